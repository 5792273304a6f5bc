// Graph::verify: re-checks every node (refs point backwards, kinds are well formed, shape rules agree with the
// stored metas) and the outputs. Passes call it after rewriting a graph; from_json relies on the same rules.
#include "tracelab/graph/graph.h"

namespace tl::graph {
namespace {

/// "graph: node 3 (matmul): " — the prefix of every verifier message.
std::string where(std::size_t index, const Node& node) {
  return tl::detail::cat("graph: node ", index, " (", node.label(), "): ");
}

void verify_variable_node(std::size_t index, const Node& node, const std::vector<Node>& nodes) {
  TL_CHECK(node.variable != nullptr && node.variable->value.defined() && node.op == nullptr && node.attrs.empty(),
           InvalidArgument, where(index, node), "must capture a variable and have no op or attributes");
  const TensorMeta& var = node.variable->value.meta();
  if (node.kind == NodeKind::variable) {
    TL_CHECK(node.inputs.empty() && node.outputs.size() == 1, InvalidArgument, where(index, node),
             "a variable read has no inputs and 1 output");
    TL_CHECK(node.outputs[0] == var, InvalidArgument, where(index, node), "stored meta ", meta_str(node.outputs[0]),
             " differs from the variable's ", meta_str(var));
    return;
  }
  TL_CHECK(node.inputs.size() == 1 && node.outputs.empty(), InvalidArgument, where(index, node),
           "an assign has 1 input and no outputs");
  const ValueRef& ref = node.inputs[0];
  TL_CHECK(ref.node < index && ref.output < nodes[ref.node].outputs.size(), InvalidArgument, where(index, node),
           "input refers to ", ref.str(), ", which is not an earlier value");
  const TensorMeta& got = nodes[ref.node].outputs[ref.output];
  TL_CHECK(got.dtype == var.dtype && got.shape.is_compatible_with(var.shape), InvalidArgument, where(index, node),
           "assigns ", meta_str(got), " to a variable of ", meta_str(var));
}

void verify_leaf(std::size_t index, const Node& node) {
  TL_CHECK(node.op == nullptr && node.inputs.empty() && node.attrs.empty(), InvalidArgument, where(index, node),
           "an ", node.label(), " node must have no op, inputs or attributes");
  TL_CHECK(node.outputs.size() == 1, InvalidArgument, where(index, node), "must have exactly 1 output, has ",
           node.outputs.size());
  if (node.kind == NodeKind::input) {
    for (std::int64_t dim : node.outputs[0].shape.dims())
      TL_CHECK(dim >= -1, InvalidArgument, where(index, node), "invalid dim ", dim);
    return;
  }
  TL_CHECK(node.value.defined() && !node.value.is_symbolic(), InvalidArgument, where(index, node),
           "a constant must hold a concrete tensor");
  TL_CHECK(node.value.meta() == node.outputs[0], InvalidArgument, where(index, node), "stored meta ",
           meta_str(node.outputs[0]), " differs from the value's ", meta_str(node.value.meta()));
}

}  // namespace

void Graph::verify_node(std::size_t index) const {
  const Node& node = nodes_[index];
  if (node.kind == NodeKind::variable || node.kind == NodeKind::assign)
    return verify_variable_node(index, node, nodes_);
  if (node.kind != NodeKind::op) return verify_leaf(index, node);
  TL_CHECK(node.op != nullptr, InvalidArgument, where(index, node), "an op node must have an op");
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    const ValueRef& ref = node.inputs[i];
    TL_CHECK(ref.node < index, InvalidArgument, where(index, node), "input ", i, " refers to ", ref.str(),
             ", which does not come before it");
    TL_CHECK(ref.output < nodes_[ref.node].outputs.size(), InvalidArgument, where(index, node), "input ", i,
             " refers to ", ref.str(), ", but node ", ref.node, " has ", nodes_[ref.node].outputs.size(),
             " output(s)");
  }
  std::vector<TensorMeta> expected;
  try {
    expected = infer(*node.op, node.inputs, node.attrs, node.subgraphs, node.variables);
  } catch (const Error& e) {
    throw InvalidArgument(where(index, node) + "shape rule fails: " + e.what());
  }
  TL_CHECK(expected.size() == node.outputs.size(), InvalidArgument, where(index, node), "has ",
           node.outputs.size(), " output meta(s), the op has ", expected.size(), " output(s)");
  for (std::size_t i = 0; i < expected.size(); ++i)
    TL_CHECK(expected[i] == node.outputs[i], InvalidArgument, where(index, node), "output ", i, " is recorded as ",
             meta_str(node.outputs[i]), " but the shape rule gives ", meta_str(expected[i]));
}

void Graph::verify() const {
  for (std::size_t i = 0; i < nodes_.size(); ++i) verify_node(i);
  for (std::size_t i = 0; i < outputs_.size(); ++i)
    TL_CHECK(contains(outputs_[i]), InvalidArgument, "graph: output ", i, " refers to ", outputs_[i].str(),
             ", which is not in the graph (", nodes_.size(), " nodes)");
}

}  // namespace tl::graph
