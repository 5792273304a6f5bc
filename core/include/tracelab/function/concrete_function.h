// ConcreteFunction: one traced graph of a tl::function, for one trace key — the graph as traced, the graph
// after the optimization passes (with a report per pass), the executor that runs it, and its signature.
//
//   tl::ConcreteFunction& f = step.get_concrete_function(tl::TensorSpec({-1, 20}));
//   std::cout << f.graph().str();                 // the optimized graph, one SSA line per node
//   std::vector<tl::Tensor> out = f.call({x});    // runs it (inputs are checked against the signature)
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tracelab/function/trace_key.h"
#include "tracelab/graph/executor.h"
#include "tracelab/graph/graph.h"
#include "tracelab/graph/passes.h"

namespace tl {

/// One traced graph of a function for one trace key (TensorFlow's ConcreteFunction): the traced and optimized
/// graphs, the executor that runs them, and the signature. Held by its function's cache, which copies share.
class ConcreteFunction {
 public:
  /// Built by the tracing layer: `traced` as recorded, optimized with `options`; `key` is what it serves.
  /// `specialize_plans`: whether the executor plans a graph with unknown dims per input shapes (Executor).
  ConcreteFunction(std::string name, TraceKey key, std::vector<std::string> arg_names, graph::Graph traced,
                   const graph::OptimizeOptions& options, bool specialize_plans = true);

  /// The function's name (FunctionOptions::name), as in signatures.
  const std::string& name() const noexcept { return name_; }
  /// The (possibly generalized) key this function was traced for; it serves every call the key accepts.
  const TraceKey& key() const noexcept { return key_; }
  /// One spec per tensor argument, with the argument's name.
  const std::vector<TensorSpec>& input_specs() const noexcept { return input_specs_; }
  /// One spec per output (shapes may have unknown dims).
  std::vector<TensorSpec> output_specs() const;
  /// TensorFlow's pretty-printed signature: "name(x, y)\n  Args:\n    x: float32 Tensor, shape=(None, 20)\n ...".
  std::string pretty_signature() const;

  /// The graph as traced, before optimization.
  const graph::Graph& traced_graph() const noexcept { return traced_; }
  /// The graph that runs (after the passes).
  const graph::Graph& graph() const noexcept { return *optimized_; }
  /// One report per pass that ran (node counts before and after).
  const std::vector<graph::PassReport>& pass_reports() const noexcept { return reports_; }
  /// Variables the graph captured by handle.
  std::vector<std::string> captured_variables() const;

  /// Runs the graph on one tensor per tensor argument (checked against input_specs()).
  std::vector<Tensor> call(std::span<const Tensor> inputs);
  /// Runs the graph on a braced list of tensors: `f.call({x, y})`.
  std::vector<Tensor> call(std::initializer_list<Tensor> inputs) {
    return call(std::span<const Tensor>(inputs.begin(), inputs.size()));
  }
  /// The executor (planned buffers when every shape is static).
  const graph::Executor& executor() const noexcept { return executor_; }

 private:
  std::string name_;
  TraceKey key_;
  std::vector<std::string> arg_names_;
  std::vector<TensorSpec> input_specs_;
  graph::Graph traced_;
  std::vector<graph::PassReport> reports_;  // before optimized_: the optimizer fills it while optimized_ is built
  std::shared_ptr<const graph::Graph> optimized_;
  graph::Executor executor_;
};

}  // namespace tl
