// TraceKey: what a tl::function call is cached by — one entry per argument, as in TensorFlow:
//   a tensor contributes its TensorSpec (dtype + shape), a C++ number, bool or string its *value*, and a
//   Variable its identity. Equal keys share one concrete function; a new key means a new trace.
//
//   tl::TraceKey key({tl::TensorSpec({1, 7, 20}), tl::ArgKey(std::int64_t{3})});
//   key.str();        // "(TensorSpec(shape=(1, 7, 20), dtype=tl.float32, name=None), 3)"
//   generic.accepts(key);   // does the function traced for `generic` serve this call?
// A call with nested arguments (arrays, dicts) is keyed by its leaves and its structure (ArgStructure).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "tracelab/tensor/tensor_spec.h"

namespace tl {

/// A captured Variable in a trace key: its identity (and, for messages, dtype and shape).
struct VariableKey {
  std::uint64_t id = 0;   ///< the variable's identity; the only part compared
  DType dtype = float32;  ///< its dtype, for messages
  Shape shape;            ///< its shape, for messages
  /// Same variable: equal ids (dtype and shape are not compared).
  friend bool operator==(const VariableKey& a, const VariableKey& b) noexcept { return a.id == b.id; }
};

/// One argument's part of a key: a tensor spec, a plain value (bool, integer, real, string) or a variable.
using ArgKey = std::variant<TensorSpec, bool, std::int64_t, double, std::string, VariableKey>;

/// "TensorSpec(...)", "3", "0.5", "True", "'relu'", "<Variable 4>".
std::string arg_key_str(const ArgKey& arg);
/// Kind of an argument key for messages: "tensor", "bool", "int", "float", "string", "variable".
const char* arg_key_kind(const ArgKey& arg) noexcept;
/// Whether two argument keys are the same: specs by dtype and shape, plain values by value, variables by id.
/// Unlike the variant's ==, a NaN equals a NaN: a key must equal itself, or a call with NaN would retrace forever.
bool same_arg_key(const ArgKey& a, const ArgKey& b) noexcept;

/// The nesting of a call whose arguments hold arrays or dicts of values (TensorFlow's nest structure): the
/// arguments flatten to their leaves, and the structure is a template of the call with kLeaf in each leaf's place,
/// e.g. "(\x1f, {'x': \x1f, 'y': [\x1f, \x1f]})", with each leaf's path ("args[1].y[0]") for messages. Dict keys and
/// list lengths are in the template, so a call of another structure has another key.
struct ArgStructure {
  /// The character that stands for a leaf in the template (ASCII unit separator).
  static constexpr char kLeaf = '\x1f';
  std::string text;                ///< the template; empty for a flat call (one leaf per argument)
  std::vector<std::string> paths;  ///< one per leaf, in order; not part of the key (the template implies them)
};

/// The cache key of one call: one ArgKey per leaf argument plus the nesting (TensorFlow's function cache key).
/// A value type: compare with ==, hash with hash() or TraceKeyHash, print with str().
class TraceKey {
 public:
  /// The key of a call with no arguments.
  TraceKey() = default;
  /// The key of a call with these leaves, nested as `structure` says (default: flat, one leaf per argument).
  explicit TraceKey(std::vector<ArgKey> args, ArgStructure structure = {})
      : args_(std::move(args)), structure_(std::move(structure)) {}

  /// The leaves: one entry per argument of a flat call, per leaf of a structured one.
  const std::vector<ArgKey>& args() const noexcept { return args_; }
  /// The number of leaves.
  std::size_t size() const noexcept { return args_.size(); }
  /// The nesting of the arguments (empty text for a flat call).
  const ArgStructure& structure() const noexcept { return structure_; }
  /// The structure with "*" for each leaf, e.g. "(*, {'x': *})"; "(*, *)" for a flat call of two.
  std::string structure_str() const;

  /// True when the function traced for this key can run a call with key `call`: the same arity and kinds,
  /// equal plain values and variables, and every tensor spec here compatible with the call's (-1 accepts any).
  bool accepts(const TraceKey& call) const noexcept;
  /// A hash consistent with ==.
  std::size_t hash() const noexcept;
  /// "(spec, value, ...)", nested as the call was: "(spec, {'x': spec})".
  std::string str() const;

  /// Same structure and, leaf by leaf, the same argument key (same_arg_key).
  friend bool operator==(const TraceKey& a, const TraceKey& b) noexcept;
  /// Not ==.
  friend bool operator!=(const TraceKey& a, const TraceKey& b) noexcept { return !(a == b); }

 private:
  std::vector<ArgKey> args_;
  ArgStructure structure_;
};

/// TraceKey's hasher for unordered containers: `std::unordered_map<tl::TraceKey, V, tl::TraceKeyHash>`.
struct TraceKeyHash {
  /// key.hash().
  std::size_t operator()(const TraceKey& key) const noexcept { return key.hash(); }
};

}  // namespace tl
