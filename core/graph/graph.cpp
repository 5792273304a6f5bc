// Graph building, accessors and the verifier. Text and JSON forms live in printer.cpp and json_*.cpp.
#include "tracelab/graph/graph.h"

#include <algorithm>

#include "tracelab/registry/registry.h"

namespace tl::graph {

std::string ValueRef::str() const {
  return output == 0 ? tl::detail::cat('%', node) : tl::detail::cat('%', node, '#', output);
}

std::string_view Node::label() const noexcept {
  switch (kind) {
    case NodeKind::input: return "input";
    case NodeKind::constant: return "const";
    case NodeKind::variable: return "variable";
    case NodeKind::assign: return "assign";
    case NodeKind::op: break;
  }
  return op != nullptr ? std::string_view(op->name()) : std::string_view("<no op>");
}

ValueRef Graph::add_input(TensorMeta meta, std::string name) {
  for (std::int64_t dim : meta.shape.dims())
    TL_CHECK(dim >= -1, InvalidArgument, "graph: input '", name, "' has invalid dim ", dim, " in ",
             meta.shape.str());
  Node node;
  node.kind = NodeKind::input;
  node.name = std::move(name);
  node.outputs.push_back(std::move(meta));
  nodes_.push_back(std::move(node));
  return {nodes_.size() - 1, 0};
}

ValueRef Graph::add_constant(const Tensor& value) {
  TL_CHECK(value.defined(), InvalidArgument, "graph: add_constant got an empty Tensor handle");
  TL_CHECK(!value.is_symbolic(), InvalidArgument, "graph: add_constant needs a concrete tensor, got a symbolic one");
  Node node;
  node.kind = NodeKind::constant;
  if (value.is_weak()) {
    auto impl = std::make_shared<tl::detail::TensorImpl>(value.impl());
    impl->weak = false;
    node.value = Tensor(std::move(impl));
  } else {
    node.value = value;
  }
  node.outputs.push_back(value.meta());
  nodes_.push_back(std::move(node));
  return {nodes_.size() - 1, 0};
}

std::vector<ValueRef> Graph::add_op(const OpDef& op, const std::vector<ValueRef>& inputs, const Attrs& attrs,
                                    std::vector<std::shared_ptr<const Graph>> subgraphs,
                                    std::vector<std::shared_ptr<tl::detail::VariableState>> variables) {
  check_refs(op, inputs);
  Node node;
  node.kind = NodeKind::op;
  node.op = &op;
  node.outputs = infer(op, inputs, attrs, subgraphs, variables);  // throws before anything changes
  node.inputs = inputs;
  node.attrs = attrs;
  node.subgraphs = std::move(subgraphs);
  node.variables = std::move(variables);
  return append_op(std::move(node));
}

std::vector<ValueRef> Graph::add_copy(const Node& node, const std::vector<ValueRef>& inputs) {
  TL_CHECK(node.kind == NodeKind::op && node.op != nullptr, InvalidArgument, "graph: add_copy copies op nodes only");
  check_refs(*node.op, inputs);
  Node copy = node;
  copy.inputs = inputs;
  return append_op(std::move(copy));
}

void Graph::check_refs(const OpDef& op, const std::vector<ValueRef>& inputs) const {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    TL_CHECK(contains(inputs[i]), InvalidArgument, op.name(), ": input ", i, " refers to ", inputs[i].str(),
             ", which is not in the graph (", nodes_.size(), " nodes)");
}

std::vector<ValueRef> Graph::append_op(Node node) {
  nodes_.push_back(std::move(node));
  std::vector<ValueRef> values;
  for (std::size_t i = 0; i < nodes_.back().outputs.size(); ++i) values.push_back({nodes_.size() - 1, i});
  return values;
}

ValueRef Graph::add_variable(std::shared_ptr<tl::detail::VariableState> variable) {
  TL_CHECK(variable != nullptr && variable->value.defined(), InvalidArgument, "graph: add_variable got no variable");
  Node node;
  node.kind = NodeKind::variable;
  node.name = variable->name;
  node.outputs.push_back(variable->value.meta());
  node.variable = std::move(variable);
  nodes_.push_back(std::move(node));
  return {nodes_.size() - 1, 0};
}

void Graph::add_assign(std::shared_ptr<tl::detail::VariableState> variable, ValueRef value) {
  TL_CHECK(variable != nullptr && variable->value.defined(), InvalidArgument, "graph: add_assign got no variable");
  TL_CHECK(contains(value), InvalidArgument, "graph: assign to '", variable->name, "' refers to ", value.str(),
           ", which is not in the graph (", nodes_.size(), " nodes)");
  const TensorMeta& got = meta(value);
  TL_CHECK(got.dtype == variable->value.dtype(), DTypeError, "assign: variable '", variable->name, "' has dtype ",
           dtype_name(variable->value.dtype()), ", got ", dtype_name(got.dtype));
  TL_CHECK(got.shape.is_compatible_with(variable->value.shape()), ShapeError, "assign: variable '", variable->name,
           "' has shape ", variable->value.shape().str(), ", got ", got.shape.str());
  Node node;
  node.kind = NodeKind::assign;
  node.name = variable->name;
  node.inputs.push_back(value);
  node.variable = std::move(variable);
  nodes_.push_back(std::move(node));
}

bool has_side_effects(const Node& node) {
  if (node.kind == NodeKind::assign) return true;
  if (node.kind != NodeKind::op || node.op == nullptr) return false;
  if (node.op->has(trait::side_effects) || node.op->has(trait::stateful)) return true;
  for (const auto& sub : node.subgraphs)
    if (has_side_effects(*sub)) return true;
  return false;
}

bool is_pure(const Node& node) {
  return node.kind == NodeKind::op && node.op != nullptr && node.subgraphs.empty() && node.variables.empty() &&
         !node.outputs.empty() && !node.op->has(trait::dynamic_outputs) && !has_side_effects(node) &&
         OpRegistry::global().find(node.op->name()) == node.op;
}

std::vector<bool> follows_from_metas(const Graph& graph) {
  std::vector<bool> follows(graph.num_nodes(), false);
  for (std::size_t i = 0; i < graph.num_nodes(); ++i) {
    const Node& node = graph.node(i);
    if (node.kind == NodeKind::constant) follows[i] = true;
    else if (is_pure(node))
      follows[i] = node.op->has(trait::reads_only_metas) ||
                   std::all_of(node.inputs.begin(), node.inputs.end(), [&](const ValueRef& v) { return follows[v.node]; });
  }
  return follows;
}

bool has_side_effects(const Graph& graph) {
  for (const auto& node : graph.nodes())
    if (has_side_effects(node)) return true;
  return false;
}

std::vector<ValueRef> Graph::add_op(std::string_view op_name, const std::vector<ValueRef>& inputs,
                                    const Attrs& attrs, std::vector<std::shared_ptr<const Graph>> subgraphs) {
  return add_op(OpRegistry::global().get(op_name), inputs, attrs, std::move(subgraphs));
}

void Graph::set_outputs(std::vector<ValueRef> outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i)
    TL_CHECK(contains(outputs[i]), InvalidArgument, "graph: output ", i, " refers to ", outputs[i].str(),
             ", which is not in the graph (", nodes_.size(), " nodes)");
  outputs_ = std::move(outputs);
}

const Node& Graph::node(std::size_t index) const {
  TL_CHECK(index < nodes_.size(), InvalidArgument, "graph: no node ", index, " (", nodes_.size(), " nodes)");
  return nodes_[index];
}

Node& Graph::mutable_node(std::size_t index) {
  TL_CHECK(index < nodes_.size(), InvalidArgument, "graph: no node ", index, " (", nodes_.size(), " nodes)");
  return nodes_[index];
}

std::vector<ValueRef> Graph::inputs() const {
  std::vector<ValueRef> values;
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].kind == NodeKind::input) values.push_back({i, 0});
  return values;
}

bool Graph::contains(ValueRef value) const noexcept {
  return value.node < nodes_.size() && value.output < nodes_[value.node].outputs.size();
}

const TensorMeta& Graph::meta(ValueRef value) const {
  TL_CHECK(contains(value), InvalidArgument, "graph: no value ", value.str(), " (", nodes_.size(), " nodes)");
  return nodes_[value.node].outputs[value.output];
}

std::map<std::string, std::size_t> Graph::op_counts() const {
  std::map<std::string, std::size_t> counts;
  for (const auto& node : nodes_)
    if (node.kind == NodeKind::op) ++counts[std::string(node.label())];
  return counts;
}

std::size_t Graph::count(NodeKind kind) const noexcept {
  std::size_t n = 0;
  for (const auto& node : nodes_) n += node.kind == kind ? 1 : 0;
  return n;
}

std::vector<TensorMeta> Graph::infer(const OpDef& op, const std::vector<ValueRef>& inputs, const Attrs& attrs,
                                     Subgraphs subgraphs, VariableHandles variables) const {
  std::vector<const TensorMeta*> metas;
  metas.reserve(inputs.size());
  for (const auto& value : inputs) metas.push_back(&meta(value));
  std::vector<TensorMeta> outputs(op.num_outputs(attrs, subgraphs));
  op.infer(metas, attrs, outputs, subgraphs, variables);
  return outputs;
}

}  // namespace tl::graph
