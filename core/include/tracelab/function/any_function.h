// tl::AnyFunction: tl::function with its types erased — a body taking a span of argument values (tensors, tensor
// specs, variables, numbers, bools, strings) and returning tensors. The JavaScript bridge and C++ embedders whose
// arguments are only known at run time use it directly; the typed tl::function is a thin layer on top of it.
// Each call computes the trace key of its arguments; on a miss the body runs once with a symbolic tensor in place
// of every tensor argument and its ops become a ConcreteFunction, which runs the later calls. docs/tracing.md.
//
//   tl::AnyFunction scale([](std::span<const tl::AnyArg> args) {
//     return std::vector<tl::Tensor>{args[0].tensor() * static_cast<float>(args[1].get<double>())}; });
//   scale({tl::ones({3}), 2.0});   // traces, then runs: [2 2 2]
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "tracelab/autodiff/variable.h"
#include "tracelab/function/call_history.h"
#include "tracelab/function/concrete_function.h"
#include "tracelab/function/function_options.h"
#include "tracelab/function/trace_key.h"

namespace tl {

/// One argument of a type-erased call. A Tensor is keyed by its dtype and shape and becomes a graph input; a
/// TensorSpec is keyed by itself and traces without data (get_concrete_function); a Variable by its identity;
/// a number, bool or string by its value (TensorFlow's rules, docs/tracing.md).
class AnyArg {
 public:
  /// What an argument holds: C++ integers are kept as std::int64_t, reals as double.
  using Value = std::variant<Tensor, TensorSpec, Variable, bool, std::int64_t, double, std::string>;

  /// A tensor argument (keyed by dtype and shape).
  AnyArg(Tensor tensor) : value_(std::move(tensor)) {}  // NOLINT(google-explicit-constructor)
  /// A spec in place of a tensor: traces without data (get_concrete_function).
  AnyArg(TensorSpec spec) : value_(std::move(spec)) {}  // NOLINT(google-explicit-constructor)
  /// A variable (keyed by identity; the graph reads and assigns it by handle).
  AnyArg(Variable variable) : value_(std::move(variable)) {}  // NOLINT(google-explicit-constructor)
  /// Plain values, keyed by value.
  AnyArg(bool value) : value_(value) {}  // NOLINT(google-explicit-constructor)
  /// Any integer type but bool, kept as std::int64_t.
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  AnyArg(I value) : value_(static_cast<std::int64_t>(value)) {}  // NOLINT(google-explicit-constructor)
  /// Any floating-point type, kept as double.
  template <class R>
    requires std::is_floating_point_v<R>
  AnyArg(R value) : value_(static_cast<double>(value)) {}  // NOLINT(google-explicit-constructor)
  /// Strings, kept as std::string.
  AnyArg(std::string value) : value_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  /// A string view, copied into a std::string.
  AnyArg(std::string_view value) : value_(std::string(value)) {}  // NOLINT(google-explicit-constructor)
  /// A C string (not null), copied into a std::string.
  AnyArg(const char* value) : value_(std::string(value)) {}       // NOLINT(google-explicit-constructor)

  /// True for a Tensor or a TensorSpec: the arguments that become graph inputs.
  bool is_tensor() const noexcept { return value_.index() <= 1; }
  /// The tensor of a Tensor argument (symbolic while the body is traced); InvalidArgument for other kinds.
  const Tensor& tensor() const { return get<Tensor>(); }
  /// The value as `T` (one of Value's types); InvalidArgument naming both kinds when it holds another.
  template <class T>
  const T& get() const {
    if (const T* value = std::get_if<T>(&value_)) return *value;
    throw_wrong_kind(index_of<T>());
  }
  /// The value itself, for std::visit or std::get_if.
  const Value& value() const noexcept { return value_; }
  /// Kind for messages: "tensor", "spec", "variable", "bool", "int", "float", "string".
  const char* kind() const noexcept;
  /// Its entry in the trace key (a Tensor contributes its TensorSpec).
  ArgKey key() const;

 private:
  /// The position of T among Value's types.
  template <class T>
  static constexpr std::size_t index_of() {
    return []<class... Ts>(std::variant<Ts...>*) {
      std::size_t i = 0;
      (void)((std::is_same_v<T, Ts> || (++i, false)) || ...);
      return i;
    }(static_cast<Value*>(nullptr));
  }
  [[noreturn]] void throw_wrong_kind(std::size_t wanted_index) const;

  Value value_;
};

/// A polymorphic traced function over type-erased arguments (tf.function). Copies share the cache, like Python
/// references.
class AnyFunction {
 public:
  /// What runs while tracing: the call's arguments, each Tensor or TensorSpec replaced by a symbolic Tensor (in
  /// the input signature's spec when there is one); returns the outputs.
  using Body = std::function<std::vector<Tensor>(std::span<const AnyArg> args)>;

  /// A function that traces `body` (kept for the function's life) as `options` say. `source` names the code the
  /// body runs: functions made from one source share TensorFlow's frequent-retracing count (per Python function
  /// there), so one created anew in a loop warns (retracing_detector_for); empty, or with
  /// options.share_retracing_count false, the function counts alone.
  explicit AnyFunction(Body body, FunctionOptions options = {}, std::string source = {});

  /// Calls the function: traces on a new trace key, then runs the graph on the tensor arguments.
  std::vector<Tensor> operator()(std::span<const AnyArg> args);
  /// Calls the function with a braced list of arguments: `f({x, 2.0})`.
  std::vector<Tensor> operator()(std::initializer_list<AnyArg> args) {
    return (*this)(std::span<const AnyArg>(args.begin(), args.size()));
  }
  /// Calls the function with the leaves of nested arguments (arrays, dicts: the JS tl.function's): `structure`
  /// says how they nest and is part of the trace key; the body gets the leaves, flat. Not with an input signature.
  std::vector<Tensor> operator()(std::span<const AnyArg> leaves, const ArgStructure& structure);
  /// The concrete function for these arguments (Tensors or TensorSpecs, plus plain values), traced if needed.
  /// It is not a call: no record, no retracing warning.
  ConcreteFunction& get_concrete_function(std::span<const AnyArg> args);
  /// The same for the leaves of nested arguments (as the structured call).
  ConcreteFunction& get_concrete_function(std::span<const AnyArg> leaves, const ArgStructure& structure);
  /// The concrete function for a braced list of arguments: `f.get_concrete_function({tl::TensorSpec({-1, 3})})`.
  ConcreteFunction& get_concrete_function(std::initializer_list<AnyArg> args) {
    return get_concrete_function(std::span<const AnyArg>(args.begin(), args.size()));
  }

  /// How many times the body was traced: one per concrete function, plus one when the first trace created
  /// variables (TensorFlow traces that call again with variable creation forbidden).
  int tracing_count() const noexcept;
  /// Every concrete function's signature, TensorFlow's format ("name(x)\n  Args:\n    x: float32 Tensor, ...").
  std::string pretty_printed_concrete_signatures() const;
  /// The concrete functions, in tracing order.
  std::vector<const ConcreteFunction*> concrete_functions() const;
  /// The index in concrete_functions() of the concrete function the last call ran; -1 before the first call, and
  /// when it ran the body eagerly (config::run_functions_eagerly). Kept without a call history.
  std::ptrdiff_t last_call_concrete_index() const;
  /// The index in concrete_functions() of the concrete function traced last (by a call or get_concrete_function);
  /// -1 before the first trace.
  std::ptrdiff_t last_traced_concrete_index() const;
  /// The records of the last FunctionOptions::call_history calls, oldest first (none by default).
  std::span<const CallRecord> calls() const noexcept;
  /// Forgets the call records (the cache stays).
  void clear_calls() noexcept;
  /// The options it was made with.
  const FunctionOptions& options() const noexcept;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace tl
