// fuse_elementwise: a tree of float32 elementwise registry ops whose inner values each have exactly one use
// (inside the tree) and are not graph outputs becomes one fused_elementwise node (core/graph/fused_elementwise.cpp)
// at the position of the tree's root. Members must have no attributes, no effects and a gradient (so the fused
// op stays differentiable). Its inputs are the tree's external operands, each once, in order of first use; its
// body sub-graph holds one input per external operand and the members in graph order, the root's value returned.
// A node whose value follows from constants and metas alone (follows_from_metas) is never a member: a graph with
// unknown dims keeps such nodes, and each executor plan computes them once for its shapes (a mean's gradient
// seeds `(zeros_like(x) + 1) / count`), where inside a fused node they would run on every call.
#include <algorithm>
#include <memory>

#include "graph/passes/rewriter.h"
#include "tracelab/graph/passes.h"

namespace tl::graph {
namespace {

bool fusible(const Graph& g, const Node& node) {
  if (!detail::is_registry_op(node) || has_side_effects(node) || !node.op->has(trait::elementwise) ||
      !node.attrs.empty() || !node.op->has_gradient() || node.outputs.size() != 1 ||
      node.outputs[0].dtype != DType::float32 || node.inputs.empty())
    return false;
  return std::all_of(node.inputs.begin(), node.inputs.end(),
                     [&](const ValueRef& v) { return g.meta(v).dtype == DType::float32; });
}

/// The members of the tree rooted at `root`, ascending (graph order); marks them in `grouped`.
std::vector<std::size_t> grow(const Graph& g, std::size_t root, const std::vector<std::optional<std::size_t>>& users,
                              const std::vector<bool>& known, std::vector<bool>& grouped) {
  std::vector<std::size_t> members{root}, stack{root};
  grouped[root] = true;
  while (!stack.empty()) {
    std::size_t at = stack.back();
    stack.pop_back();
    for (const ValueRef& v : g.node(at).inputs) {
      std::size_t p = v.node;
      if (grouped[p] || users[p] != at || known[p] || !fusible(g, g.node(p))) continue;
      grouped[p] = true;
      members.push_back(p);
      stack.push_back(p);
    }
  }
  std::sort(members.begin(), members.end());
  return members;
}

/// The body of a tree (members ascending, the root last) and its external operands, in order of first use.
std::pair<std::shared_ptr<const Graph>, std::vector<ValueRef>> body_of(const Graph& g,
                                                                     const std::vector<std::size_t>& members) {
  std::vector<ValueRef> externals;
  for (std::size_t m : members)
    for (const ValueRef& v : g.node(m).inputs)
      if (std::find(members.begin(), members.end(), v.node) == members.end() &&
          std::find(externals.begin(), externals.end(), v) == externals.end())
        externals.push_back(v);
  auto body = std::make_shared<Graph>();
  std::vector<ValueRef> inside(externals.size());
  for (std::size_t i = 0; i < externals.size(); ++i) inside[i] = body->add_input(g.meta(externals[i]));
  std::vector<ValueRef> member_value(members.size());
  for (std::size_t j = 0; j < members.size(); ++j) {
    const Node& node = g.node(members[j]);
    std::vector<ValueRef> args;
    for (const ValueRef& v : node.inputs) {
      auto member = std::find(members.begin(), members.end(), v.node);
      args.push_back(member != members.end()
                         ? member_value[static_cast<std::size_t>(member - members.begin())]
                         : inside[static_cast<std::size_t>(std::find(externals.begin(), externals.end(), v) -
                                                           externals.begin())]);
    }
    member_value[j] = body->add_op(*node.op, args)[0];
  }
  body->set_outputs({member_value.back()});
  return {std::move(body), std::move(externals)};
}

}  // namespace

Graph fuse_elementwise(const Graph& g) {
  const auto users = detail::sole_users(g);
  const std::vector<bool> known = follows_from_metas(g);
  std::vector<bool> grouped(g.num_nodes(), false);
  std::vector<std::vector<std::size_t>> tree_at(g.num_nodes());  // root -> members
  std::vector<bool> absorbed(g.num_nodes(), false);
  for (std::size_t i = g.num_nodes(); i-- > 0;) {
    if (grouped[i] || known[i] || !fusible(g, g.node(i))) continue;
    std::vector<std::size_t> members = grow(g, i, users, known, grouped);
    if (members.size() < 2) continue;
    for (std::size_t m : members) absorbed[m] = m != i;
    tree_at[i] = std::move(members);
  }
  detail::Rewriter rw(g);
  for (std::size_t i = 0; i < g.num_nodes(); ++i) {
    if (absorbed[i]) continue;  // computed inside the fused node at its tree's root
    if (tree_at[i].empty()) {
      rw.copy(i);
      continue;
    }
    auto [body, externals] = body_of(g, tree_at[i]);
    rw.alias(i, rw.target().add_op(fused_elementwise_op(), rw.map(externals), {}, {body}));
  }
  return rw.finish();
}

}  // namespace tl::graph
