// Saved models (tf.saved_model): named concrete functions and the variables their graphs capture, in one file
// that loads into callables without the code that traced them. The file holds each function's graph (the JSON
// form of docs/graph.md) with its input and output specs, a table of the variables, and their values as a
// tl::Checkpoint. Loading recreates the variables once, binds every graph to them, and checks each call against
// the saved input signature. The format and what differs from TensorFlow: docs/saved_model.md.
//
//   tl::saved_model::save("model.tlsm", {{"predict", predict.get_concrete_function(tl::TensorSpec({-1, 4}))}});
//   tl::saved_model::SavedModel model = tl::saved_model::load("model.tlsm");   // in any process
//   std::vector<tl::Tensor> y = model.function("predict")({x});              // the same results, bit for bit
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tracelab/autodiff/variable.h"
#include "tracelab/function/any_function.h"
#include "tracelab/function/concrete_function.h"
#include "tracelab/function/function.h"

namespace tl::saved_model {

/// A saved function's signature: its name, one spec per input (with the argument's name), one per output.
struct Signature {
  std::string name;                  ///< the name the function was saved under
  std::vector<TensorSpec> inputs;    ///< dtype, shape (-1 = any size) and name of each argument
  std::vector<TensorSpec> outputs;   ///< dtype and shape of each result
  /// "predict(x: float32 (None, 4)) -> (float32 (None, 1))"
  std::string str() const;
};

/// A loaded function: runs the saved graph on tensors that fit its input signature. Copies share the function.
class LoadedFunction {
 public:
  /// Made by load(); wraps the concrete function rebuilt from the file.
  LoadedFunction(std::shared_ptr<ConcreteFunction> function, Signature signature);

  /// The name it was saved under.
  const std::string& name() const noexcept { return signature_.name; }
  /// The saved signature.
  const Signature& signature() const noexcept { return signature_; }
  /// Runs the graph. Throws InvalidArgument naming the function, the argument, the expected spec and what it got
  /// when the count, a dtype, a rank or a known dim does not fit.
  std::vector<Tensor> operator()(std::span<const Tensor> inputs) const;
  /// Runs the graph on a braced list of tensors: `f({x})`.
  std::vector<Tensor> operator()(std::initializer_list<Tensor> inputs) const {
    return (*this)(std::span<const Tensor>(inputs.begin(), inputs.size()));
  }
  /// The concrete function that runs (its graph is the saved graph; no pass runs again on load).
  const ConcreteFunction& concrete_function() const noexcept { return *function_; }

 private:
  std::shared_ptr<ConcreteFunction> function_;
  Signature signature_;
};

/// What load() returns: the functions by name and the variables they share.
class SavedModel {
 public:
  /// A model with no functions.
  SavedModel() = default;
  /// Made by load(): the functions, and the variables their graphs are bound to.
  SavedModel(std::vector<LoadedFunction> functions, std::vector<Variable> variables);

  /// The function saved as `name`; InvalidArgument listing the saved names when there is none.
  const LoadedFunction& function(const std::string& name) const;
  /// True when a function was saved as `name`.
  bool has_function(const std::string& name) const noexcept;
  /// The saved names, in the order they were saved.
  std::vector<std::string> function_names() const;
  /// Every function's signature, in the order they were saved.
  std::vector<Signature> signatures() const;
  /// The restored variables, each once however many functions use it, in the file's order. A loaded function
  /// that assigns a variable (a train step) updates these.
  const std::vector<Variable>& variables() const noexcept { return variables_; }

 private:
  std::vector<LoadedFunction> functions_;
  std::vector<Variable> variables_;
};

/// One function to save under a name. Made from a concrete function, from a tl::function or tl::AnyFunction that
/// has exactly one concrete function (call it once, or pass get_concrete_function(...)), or from a loaded
/// function (to save it again). A tl::AnyFunction with an input signature and no trace yet (JavaScript's
/// tl.function is one) is traced for its signature, as TensorFlow saves a tf.function with an input_signature.
struct Named {
  /// A concrete function; it must outlive the save.
  Named(std::string name, const ConcreteFunction& function) : name(std::move(name)), function(&function) {}
  /// The one concrete function of `traced`, traced now for its input signature if it has one and no trace yet;
  /// InvalidArgument when it has none or several.
  Named(std::string name, AnyFunction& traced);
  /// The one concrete function of a tl::function; InvalidArgument when it has none or several.
  template <class F>
  Named(std::string name, const Function<F>& function)
      : name(std::move(name)), function(only_concrete_function(this->name, function.concrete_functions())) {}
  /// A loaded function, to save it again.
  Named(std::string name, const LoadedFunction& function)
      : name(std::move(name)), function(&function.concrete_function()) {}

  std::string name;                  ///< the name to load it by
  const ConcreteFunction* function;  ///< what to save (not owned)

 private:
  static const ConcreteFunction* only_concrete_function(const std::string& name,
                                                        const std::vector<const ConcreteFunction*>& functions);
};

/// The saved model as bytes (the file's format; for the browser). Throws InvalidArgument for an empty or repeated
/// name, a function with no concrete function or several, or a graph that cannot be saved (a dataset_loop node).
std::vector<std::uint8_t> to_bytes(std::span<const Named> functions);
/// The same from a braced list: `to_bytes({{"predict", f}})`.
std::vector<std::uint8_t> to_bytes(std::initializer_list<Named> functions);
/// Writes the saved model to `path` atomically, as checkpoints are written.
void save(const std::string& path, std::span<const Named> functions);
/// The same from a braced list: `save("model.tlsm", {{"predict", f}})`.
void save(const std::string& path, std::initializer_list<Named> functions);

/// Loads a saved model from bytes. Validates everything (magic, version, checksums, every graph, the variables'
/// dtypes, shapes and values) and throws InvalidArgument starting "saved_model:" naming the first problem.
SavedModel from_bytes(std::span<const std::uint8_t> bytes);
/// Loads the saved model at `path` (as from_bytes).
SavedModel load(const std::string& path);

}  // namespace tl::saved_model
