// Tracer: the op interceptor that turns a C++ callable into a graph. While one is installed, every op that
// reaches the funnel (tl::execute) becomes a node with an inferred meta and returns a symbolic tensor;
// variable reads and assignments become variable / assign nodes that capture the variable by handle.
// Nested tracers (cond branches, loop bodies) capture the outer values they use as extra inputs.
//
//   detail::Tracer tracer("double", /*allow_variables=*/true);
//   tl::Tensor x = tracer.add_input({tl::float32, {-1}}, "x");
//   tracer.set_outputs({x + x});   graph::Graph g = tracer.take_graph();
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracelab/eager/execute.h"
#include "tracelab/graph/graph.h"

namespace tl::detail {

/// What a symbolic tensor refers to: a value of the graph of the tracer with id `tracer_id`.
struct Symbol {
  std::uint64_t tracer_id = 0;
  graph::ValueRef value;
};

class Tracer final : public OpInterceptor {
 public:
  /// A top-level trace (a tl::function body). `allow_variables`: may the body create Variables?
  Tracer(std::string function_name, bool allow_variables);
  /// A nested trace (`what`: "cond true branch", ...) inside `parent`, which must be the active tracer.
  Tracer(Tracer& parent, std::string what);
  ~Tracer() override;
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  /// The innermost active tracer on this thread, or nullptr when ops run eagerly.
  static Tracer* current() noexcept;

  /// Adds a graph input and returns its symbolic tensor.
  Tensor add_input(const TensorMeta& meta, const std::string& name);
  /// Adds one capture input per tensor of `outer` (parent-level tensors) before tracing, so sibling
  /// sub-graphs (cond branches, loop cond and body) share their first inputs.
  void seed_captures(const std::vector<Tensor>& outer);
  /// The value `tensor` has in this graph: its own symbolic values, captured outer values, or constants.
  graph::ValueRef ref(const Tensor& tensor);
  /// Variables this nested trace reads with its own variable nodes (each time the sub-graph runs) instead of
  /// capturing the parent's read: loops that assign a variable must see the new value every iteration.
  void read_locally(std::vector<std::shared_ptr<VariableState>> variables) { local_variables_ = std::move(variables); }
  /// Sets the graph outputs.
  void set_outputs(const std::vector<Tensor>& outputs);
  /// The finished graph (the tracer is spent afterwards).
  graph::Graph take_graph();

  /// Parent-level tensors captured by this nested trace, in the order of the capture inputs.
  const std::vector<Tensor>& captures() const noexcept { return captures_; }
  /// Variables this (nested) trace assigned; the parent re-reads them after the structured node.
  const std::vector<std::shared_ptr<VariableState>>& assigned() const noexcept { return assigned_; }
  const std::string& name() const noexcept { return name_; }
  /// Variables created while this top-level trace (or a trace nested in it) ran.
  int variables_created() const noexcept { return variables_created_; }
  /// Number of nodes recorded so far.
  std::size_t num_nodes() const noexcept { return graph_.num_nodes(); }

  /// Adds a node of structured op `op` (cond, while_loop, dataset_loop) holding `subgraphs` through the funnel
  /// (so active tapes record it) and returns its symbolic outputs. `assigned`: the variables its sub-graphs
  /// assign (later reads must re-read them); `resource`: what the node keeps alive (a dataset).
  std::vector<Tensor> add_structured(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs,
                                     std::vector<std::shared_ptr<const graph::Graph>> subgraphs,
                                     const std::vector<std::shared_ptr<VariableState>>& assigned,
                                     std::shared_ptr<const void> resource = nullptr);

  // OpInterceptor
  void execute(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs,
               Subgraphs subgraphs, VariableHandles variables) override;
  Tensor read_variable(const std::shared_ptr<VariableState>& variable) override;
  void assign_variable(const std::shared_ptr<VariableState>& variable, const Tensor& value) override;
  void on_variable_created(const VariableState& variable) override;

 private:
  Tensor symbolic(graph::ValueRef value);
  void changed_by_node(const std::shared_ptr<VariableState>& variable);  // a node of this graph wrote `variable`
  bool owns(const Tensor& tensor) const;
  Tensor outer_value(const Tensor& tensor);  // a parent-level tensor for an ancestor's symbolic value
  std::vector<graph::ValueRef> refs(std::span<const Tensor> tensors);

  std::uint64_t id_;
  Tracer* parent_;
  std::string name_;
  bool allow_variables_;
  int variables_created_ = 0;
  graph::Graph graph_;
  std::unordered_map<const TensorImpl*, graph::ValueRef> known_;  // constants and captured outer tensors
  std::vector<Tensor> keep_alive_;                                // keeps known_'s keys valid
  std::vector<Tensor> captures_;
  std::unordered_map<const VariableState*, Tensor> variables_;    // the current value of each variable
  std::vector<std::shared_ptr<VariableState>> assigned_;
  std::vector<std::shared_ptr<VariableState>> local_variables_;
  OpInterceptor* saved_interceptor_;
  std::vector<OpObserver*> saved_observers_;
};

/// Runs structured op `op` with `subgraphs` through the funnel: a node of the active trace, or eagerly (tapes
/// record it either way).
std::vector<Tensor> call_structured(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs,
                                    Subgraphs subgraphs);

/// Runs `graph` node by node through the funnel on `inputs`: eagerly (tapes record each op) or, inside a
/// trace, inlined into the active graph. Used to differentiate through Function calls and sub-graphs.
std::vector<Tensor> replay(const graph::Graph& graph, std::span<const Tensor> inputs);

}  // namespace tl::detail
