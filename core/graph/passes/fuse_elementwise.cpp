// fuse_elementwise: a tree of float32 elementwise registry ops whose inner values each have exactly one use
// (inside the tree) and are not graph outputs becomes one fused_elementwise node (core/ops/fused_ops.cpp) at
// the position of the tree's root. Members must have no attributes, no effects and a gradient (so the fused
// op stays differentiable). Its inputs are the tree's external operands, each once, in order of first use;
// its `program` attribute lists the members in graph order, e.g. "mul %0 %1; add %r0 %2; relu %r1":
// %i is fused input i, %rj the result of instruction j, and the last instruction's result is the output.
#include <algorithm>
#include <string>

#include "graph/passes/rewriter.h"
#include "tracelab/graph/passes.h"
#include "tracelab/registry/registry.h"

namespace tl::graph {
namespace {

bool fusible(const Graph& g, const Node& node) {
  if (!detail::is_registry_op(node) || detail::has_effects(node) || !node.op->has(trait::elementwise) ||
      !node.attrs.empty() || !node.op->has_gradient() || node.outputs.size() != 1 ||
      node.outputs[0].dtype != DType::float32 || node.inputs.empty())
    return false;
  return std::all_of(node.inputs.begin(), node.inputs.end(),
                     [&](const ValueRef& v) { return g.meta(v).dtype == DType::float32; });
}

/// The members of the tree rooted at `root`, ascending (graph order); marks them in `grouped`.
std::vector<std::size_t> grow(const Graph& g, std::size_t root, const std::vector<std::optional<std::size_t>>& users,
                              std::vector<bool>& grouped) {
  std::vector<std::size_t> members{root}, stack{root};
  grouped[root] = true;
  while (!stack.empty()) {
    std::size_t at = stack.back();
    stack.pop_back();
    for (const ValueRef& v : g.node(at).inputs) {
      std::size_t p = v.node;
      if (grouped[p] || users[p] != at || !fusible(g, g.node(p))) continue;
      grouped[p] = true;
      members.push_back(p);
      stack.push_back(p);
    }
  }
  std::sort(members.begin(), members.end());
  return members;
}

/// The program text and the external operands of a tree (members ascending, the root last).
std::pair<std::string, std::vector<ValueRef>> program_of(const Graph& g, const std::vector<std::size_t>& members) {
  std::string program;
  std::vector<ValueRef> externals;
  for (std::size_t j = 0; j < members.size(); ++j) {
    const Node& node = g.node(members[j]);
    program += (j ? "; " : "") + node.op->name();
    for (const ValueRef& v : node.inputs) {
      auto member = std::find(members.begin(), members.end(), v.node);
      if (member != members.end()) {
        program += " %r" + std::to_string(member - members.begin());
        continue;
      }
      auto found = std::find(externals.begin(), externals.end(), v);
      if (found == externals.end()) found = externals.insert(externals.end(), v);
      program += " %" + std::to_string(found - externals.begin());
    }
  }
  return {program, externals};
}

}  // namespace

Graph fuse_elementwise(const Graph& g) {
  const auto users = detail::sole_users(g);
  std::vector<bool> grouped(g.num_nodes(), false);
  std::vector<std::vector<std::size_t>> tree_at(g.num_nodes());  // root -> members
  std::vector<bool> absorbed(g.num_nodes(), false);
  for (std::size_t i = g.num_nodes(); i-- > 0;) {
    if (grouped[i] || !fusible(g, g.node(i))) continue;
    std::vector<std::size_t> members = grow(g, i, users, grouped);
    if (members.size() < 2) continue;
    for (std::size_t m : members) absorbed[m] = m != i;
    tree_at[i] = std::move(members);
  }
  static const OpDef& fused = OpRegistry::global().get("fused_elementwise");
  detail::Rewriter rw(g);
  for (std::size_t i = 0; i < g.num_nodes(); ++i) {
    if (absorbed[i]) continue;  // computed inside the fused node at its tree's root
    if (tree_at[i].empty()) {
      rw.copy(i);
      continue;
    }
    auto [program, externals] = program_of(g, tree_at[i]);
    rw.alias(i, rw.target().add_op(fused, rw.map(externals), {{"program", program}}));
  }
  return rw.finish();
}

}  // namespace tl::graph
