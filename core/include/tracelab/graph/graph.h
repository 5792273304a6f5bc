// Graph: the IR that tl::function traces into — a list of nodes in topological order, each a function input,
// a constant or an op from the registry, with typed SSA values (node index, output index). Adding an op runs
// its shape rule on the input metas, so every value carries a dtype and a (possibly partially known) shape.
// Text form (str) and JSON (to_json / from_json) are described in docs/graph.md.
//
//   tl::graph::Graph g;
//   auto x = g.add_input({tl::float32, {-1, 20}}, "x");
//   g.set_outputs(g.add_op("relu", {x}));   // g.str(): graph(%0: f32[?,20] {name="x"}) {  %1: f32[?,20] = relu %0 ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tracelab/base/attrs.h"
#include "tracelab/registry/op_def.h"
#include "tracelab/tensor/tensor.h"
#include "tracelab/tensor/variable_state.h"

/// The graph IR and what works on it: Graph and Node, the executor that runs a graph on the registry's kernels, and
/// the optimization passes.
namespace tl::graph {

/// A value of the graph: output `output` of node `node`. Printed "%3" (output 0) or "%3#1".
struct ValueRef {
  std::size_t node = 0;    ///< index of the producing node
  std::size_t output = 0;  ///< which of its outputs
  /// Same node and output.
  friend bool operator==(const ValueRef& a, const ValueRef& b) noexcept = default;
  /// "%3", or "%3#1" for output 1 of node 3.
  std::string str() const;
};

/// What a node is.
enum class NodeKind : std::uint8_t {
  input,     ///< a function argument: a name and a meta whose dims may be -1 (unknown)
  constant,  ///< a concrete tensor baked into the graph
  op,        ///< a registry op applied to earlier values (a structured op's node also holds its sub-graphs)
  variable,  ///< reads a captured Variable (by handle) at this point of the schedule; one output
  assign,    ///< writes its one input into a captured Variable, in place; no outputs, never pruned
};

class Graph;

/// One node. Its outputs' metas are in `outputs` (inputs and constants have exactly one).
struct Node {
  NodeKind kind = NodeKind::op;        ///< input, constant or op
  std::string name;                    ///< inputs: the argument name (may be empty)
  Tensor value;                        ///< constants: the concrete value
  const OpDef* op = nullptr;           ///< ops: the definition (normally from OpRegistry::global())
  std::vector<ValueRef> inputs;        ///< ops: the operands, all produced by earlier nodes
  Attrs attrs;                         ///< ops: the attributes
  std::vector<TensorMeta> outputs;     ///< the meta of each output
  std::shared_ptr<tl::detail::VariableState> variable;  ///< variable/assign nodes: the captured handle
  std::vector<std::shared_ptr<const Graph>> subgraphs;  ///< structured ops: branch / cond / body graphs
  std::shared_ptr<const void> resource;                 ///< what an attribute names by id (a dataset), kept alive
  std::vector<std::shared_ptr<tl::detail::VariableState>> variables;  ///< ops that update variables in place

  /// "input", "const" or the op's name.
  std::string_view label() const noexcept;
};

/// A traced function body: nodes in topological order plus the list of returned values.
class Graph {
 public:
  /// Adds a function input with `meta` (dims may be -1) and returns its value.
  ValueRef add_input(TensorMeta meta, std::string name = {});
  /// Adds a constant. Throws InvalidArgument for an empty handle or a symbolic tensor. A weak scalar loses its
  /// weakness: graph values have a fixed dtype (the tracer aligns weak scalars before recording an op).
  ValueRef add_constant(const Tensor& value);
  /// Adds `op` applied to `inputs` with `attrs` (and, for a structured op, the sub-graphs the node holds; for an
  /// op with trait::updates_variables, the variables it updates in place), after
  /// running its shape rule on the input metas; returns one value per output. Errors (bad refs:
  /// InvalidArgument; shape rule: ShapeError, DTypeError, ...) propagate and leave the graph unchanged.
  std::vector<ValueRef> add_op(const OpDef& op, const std::vector<ValueRef>& inputs, const Attrs& attrs = {},
                               std::vector<std::shared_ptr<const Graph>> subgraphs = {},
                               std::vector<std::shared_ptr<tl::detail::VariableState>> variables = {});
  /// The same with the op looked up in OpRegistry::global() by name.
  std::vector<ValueRef> add_op(std::string_view op_name, const std::vector<ValueRef>& inputs,
                               const Attrs& attrs = {}, std::vector<std::shared_ptr<const Graph>> subgraphs = {});
  /// Adds a copy of op node `node` (of this or another graph) on `inputs`, keeping its output metas without
  /// running its shape rule again: for passes that copy a node whose inputs have exactly the metas of the
  /// original's (verify() re-checks every shape rule). Bad refs are an InvalidArgument.
  std::vector<ValueRef> add_copy(const Node& node, const std::vector<ValueRef>& inputs);
  /// Adds a read of a captured variable; its value is the variable's value when the node runs.
  ValueRef add_variable(std::shared_ptr<tl::detail::VariableState> variable);
  /// Adds an assignment of `value` to a captured variable (dtype and shape must match the variable's).
  void add_assign(std::shared_ptr<tl::detail::VariableState> variable, ValueRef value);
  /// Sets the returned values (each must exist; InvalidArgument otherwise, leaving the old outputs).
  void set_outputs(std::vector<ValueRef> outputs);

  /// Number of nodes.
  std::size_t num_nodes() const noexcept { return nodes_.size(); }
  /// Makes room for `count` nodes (a pass rebuilding a graph of that size adds them without reallocating).
  void reserve(std::size_t count) { nodes_.reserve(count); }
  /// Node `index`; throws InvalidArgument when out of range.
  const Node& node(std::size_t index) const;
  /// Every node, in topological order.
  const std::vector<Node>& nodes() const noexcept { return nodes_; }
  /// The values of the input nodes, in order.
  std::vector<ValueRef> inputs() const;
  /// The returned values.
  const std::vector<ValueRef>& outputs() const noexcept { return outputs_; }
  /// The meta of a value; throws InvalidArgument when the value does not exist.
  const TensorMeta& meta(ValueRef value) const;
  /// True when `value` names an existing node output.
  bool contains(ValueRef value) const noexcept;
  /// How many op nodes use each op, by op name (inputs and constants are not counted).
  std::map<std::string, std::size_t> op_counts() const;
  /// How many nodes are of `kind`.
  std::size_t count(NodeKind kind) const noexcept;

  /// Write access to a node, for passes and tests that rewrite in place; run verify() afterwards.
  Node& mutable_node(std::size_t index);

  /// Checks the invariants: refs point to earlier nodes and existing outputs, node kinds are well formed, each
  /// op's shape rule gives its stored metas, outputs exist. Throws InvalidArgument naming the node.
  void verify() const;

  /// The text form: one SSA line per node (see docs/graph.md).
  std::string str() const;
  /// The JSON form: typed attributes, constants with bit-exact values (see docs/graph.md).
  std::string to_json() const;
  /// Loads the JSON form, validating everything; throws InvalidArgument naming the place of any problem. Each
  /// variable id the JSON names gets one fresh zero-valued variable (shared by the graph and its sub-graphs).
  static Graph from_json(std::string_view text);
  /// Variables by the id the JSON names them with.
  using VariableBinding = std::map<std::uint64_t, std::shared_ptr<tl::detail::VariableState>>;
  /// Loads the JSON form with its variables bound to existing ones: every variable id the JSON names must be in
  /// `variables` with the dtype and shape the JSON gives (InvalidArgument otherwise). Saved models use it.
  static Graph from_json(std::string_view text, const VariableBinding& variables);

 private:
  std::vector<TensorMeta> infer(const OpDef& op, const std::vector<ValueRef>& inputs, const Attrs& attrs,
                                Subgraphs subgraphs, VariableHandles variables) const;
  void verify_node(std::size_t index) const;
  void check_refs(const OpDef& op, const std::vector<ValueRef>& inputs) const;  // InvalidArgument for a bad ref
  std::vector<ValueRef> append_op(Node node);  // appends a checked op node; returns its values

  std::vector<Node> nodes_;
  std::vector<ValueRef> outputs_;
};

/// True when the graph (or a sub-graph of one of its nodes) assigns a variable or runs an op with side effects.
bool has_side_effects(const Graph& graph);
/// True when the node must run even if nothing uses its outputs: an assign, an op with trait::side_effects or
/// trait::stateful, or a structured op whose sub-graphs have side effects.
bool has_side_effects(const Node& node);
/// True for an op node whose outputs follow from its inputs alone (their values, or only their metas for an op
/// with trait::reads_only_metas), so it may run ahead of its call: a registry op with outputs and without
/// sub-graphs, variables, side effects or dynamic outputs. Constant folding runs such nodes on constants, and an
/// executor's plan runs them once when their inputs are known to it.
bool is_pure(const Node& node);
/// Per node of `graph`: its values follow from constants and the metas of other values alone — a constant, a pure
/// node with trait::reads_only_metas (zeros_like, ones_like), or a pure node whose inputs all follow so. An
/// executor's plan, which knows every meta, computes such nodes once (up to a size; Executor::fold_known_values),
/// and fuse_elementwise leaves them out of fused nodes for that reason.
std::vector<bool> follows_from_metas(const Graph& graph);

}  // namespace tl::graph

/// Hash of a value reference, so passes can key maps by value.
template <>
struct std::hash<tl::graph::ValueRef> {
  /// Combines the hashes of the node index and the output index.
  std::size_t operator()(const tl::graph::ValueRef& v) const noexcept {
    return std::hash<std::size_t>()(v.node) * 31u + std::hash<std::size_t>()(v.output);
  }
};
