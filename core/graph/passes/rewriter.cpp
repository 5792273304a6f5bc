#include "graph/passes/rewriter.h"

#include "tracelab/registry/registry.h"

namespace tl::graph::detail {

Rewriter::Rewriter(const Graph& source) : source_(source), first_(source.num_nodes(), kUnmapped) {
  target_.reserve(source.num_nodes());
  values_.reserve(source.num_nodes() + source.num_nodes() / 2);
}

ValueRef Rewriter::map(ValueRef old) const {
  TL_CHECK(old.node < first_.size() && first_[old.node] != kUnmapped &&
               old.output < source_.node(old.node).outputs.size(),
           InvalidArgument, "graph pass: value ", old.str(), " is used before its node was rewritten");
  return values_[first_[old.node] + old.output];
}

void Rewriter::set(std::size_t index, const std::vector<ValueRef>& values) {
  first_[index] = values_.size();
  values_.insert(values_.end(), values.begin(), values.end());
}

std::vector<ValueRef> Rewriter::map(const std::vector<ValueRef>& old) const {
  std::vector<ValueRef> values;
  values.reserve(old.size());
  for (const ValueRef& v : old) values.push_back(map(v));
  return values;
}

void Rewriter::copy(std::size_t index) {
  const Node& node = source_.node(index);
  std::vector<ValueRef> values;
  switch (node.kind) {
    case NodeKind::input: values = {target_.add_input(node.outputs[0], node.name)}; break;
    case NodeKind::constant: values = {target_.add_constant(node.value)}; break;
    case NodeKind::variable: values = {target_.add_variable(node.variable)}; break;
    case NodeKind::assign: target_.add_assign(node.variable, map(node.inputs[0])); break;
    case NodeKind::op: {
      std::vector<ValueRef> inputs = map(node.inputs);
      bool same_metas = true;  // then the shape rule would give the same outputs: keep them
      for (std::size_t k = 0; k < inputs.size() && same_metas; ++k)
        same_metas = target_.meta(inputs[k]) == source_.meta(node.inputs[k]);
      if (same_metas) {
        values = target_.add_copy(node, inputs);
      } else {
        values = target_.add_op(*node.op, inputs, node.attrs, node.subgraphs, node.variables);
        target_.mutable_node(target_.num_nodes() - 1).resource = node.resource;
      }
      break;
    }
  }
  set(index, values);
}

void Rewriter::alias(std::size_t index, std::vector<ValueRef> values) {
  TL_CHECK(values.size() == source_.node(index).outputs.size(), InvalidArgument, "graph pass: node ", index, " has ",
           source_.node(index).outputs.size(), " output(s), aliased to ", values.size(), " value(s)");
  set(index, values);
}

Graph Rewriter::finish() {
  target_.set_outputs(map(source_.outputs()));
  return std::move(target_);
}

std::vector<std::vector<std::size_t>> use_counts(const Graph& g) {
  std::vector<std::vector<std::size_t>> uses(g.num_nodes());
  for (std::size_t i = 0; i < g.num_nodes(); ++i) uses[i].assign(g.node(i).outputs.size(), 0);
  for (const Node& node : g.nodes())
    for (const ValueRef& v : node.inputs) ++uses[v.node][v.output];
  for (const ValueRef& v : g.outputs()) ++uses[v.node][v.output];
  return uses;
}

std::vector<std::vector<bool>> output_flags(const Graph& g) {
  std::vector<std::vector<bool>> flags(g.num_nodes());
  for (std::size_t i = 0; i < g.num_nodes(); ++i) flags[i].assign(g.node(i).outputs.size(), false);
  for (const ValueRef& v : g.outputs()) flags[v.node][v.output] = true;
  return flags;
}

std::vector<std::optional<std::size_t>> sole_users(const Graph& g) {
  const auto uses = use_counts(g);
  const auto is_output = output_flags(g);
  std::vector<std::optional<std::size_t>> users(g.num_nodes());
  for (std::size_t j = 0; j < g.num_nodes(); ++j)
    for (const ValueRef& v : g.node(j).inputs)
      if (g.node(v.node).outputs.size() == 1 && uses[v.node][0] == 1 && !is_output[v.node][0]) users[v.node] = j;
  return users;
}

bool is_registry_op(const Node& node) {
  return node.kind == NodeKind::op && node.op != nullptr && node.subgraphs.empty() &&
         OpRegistry::global().find(node.op->name()) == node.op;
}

bool is_constant(const Graph& g, ValueRef value) { return g.node(value.node).kind == NodeKind::constant; }

}  // namespace tl::graph::detail
