// optimize: the pass pipeline. Simplification first exposes constants and duplicates; folding then turns
// constant subtrees into constants, CSE merges what became equal, prune drops what nothing uses any more;
// matmul fusion runs before elementwise fusion (else the bias add and activation would be taken into an
// elementwise tree), and a last prune removes what the fusions left unused. verify() runs after every pass,
// so a pass that breaks an invariant is reported at once, naming the node. Last, the same pipeline runs on the
// sub-graphs of cond and while nodes.
#include <algorithm>
#include <unordered_map>
#include <utility>

#include "tracelab/graph/passes.h"
#include "tracelab/registry/op_def.h"

namespace tl::graph {
namespace {

struct Step {
  const char* name;
  bool enabled;
  Graph (*run)(const Graph&);
};

bool has_optimizable_subgraphs(const Node& node) {
  return node.kind == NodeKind::op && !node.subgraphs.empty() && node.op != nullptr &&
         !node.op->has(trait::subgraphs_as_is);
}

/// `sub` optimized, held by node `index` of the graph being optimized; its inputs and output metas must stay.
std::shared_ptr<const Graph> optimized_subgraph(const Graph& sub, const OptimizeOptions& options, std::size_t index) {
  auto out = std::make_shared<const Graph>(optimize(sub, options));
  const std::vector<ValueRef> before = sub.outputs(), after = out->outputs();
  bool same = out->inputs().size() == sub.inputs().size() && after.size() == before.size();
  for (std::size_t i = 0; same && i < after.size(); ++i) same = out->meta(after[i]) == sub.meta(before[i]);
  TL_CHECK(same, InvalidArgument, "optimize: a sub-graph of node ", index, " (", sub.num_nodes(),
           " nodes) changed its inputs or output metas when optimized");
  return out;
}

/// `g` with the sub-graphs of its cond and while nodes optimized.
Graph optimize_subgraphs(const Graph& g, const OptimizeOptions& options) {
  Graph out = g;
  std::unordered_map<const Graph*, std::shared_ptr<const Graph>> done;  // a shared sub-graph stays shared
  for (std::size_t i = 0; i < out.num_nodes(); ++i) {
    if (!has_optimizable_subgraphs(out.node(i))) continue;
    std::vector<std::shared_ptr<const Graph>> subgraphs = out.node(i).subgraphs;
    for (auto& sub : subgraphs) {
      auto [entry, fresh] = done.try_emplace(sub.get());
      if (fresh) entry->second = optimized_subgraph(*sub, options, i);
      sub = entry->second;
    }
    out.mutable_node(i).subgraphs = std::move(subgraphs);
  }
  return out;
}

}  // namespace

std::size_t nodes_within(const Graph& g) {
  std::size_t count = g.num_nodes();
  for (const Node& node : g.nodes())
    if (has_optimizable_subgraphs(node))
      for (const auto& sub : node.subgraphs) count += nodes_within(*sub);
  return count;
}

Graph optimize(const Graph& g, const OptimizeOptions& options, std::vector<PassReport>* reports) {
  const Step steps[] = {
      {"simplify", options.simplify, simplify},
      {"constant_folding", options.constant_folding, fold_constants},
      {"cse", options.cse, eliminate_common_subexpressions},
      {"prune", options.prune, prune},
      {"fuse_matmul", options.fuse_matmul, fuse_matmul_bias_activation},
      {"fuse_elementwise", options.fuse_elementwise, fuse_elementwise},
      {"prune", options.prune, prune},
  };
  const auto verified = [](Graph next, const char* pass) {
    try {
      next.verify();
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(tl::detail::cat("optimize: the graph after pass '", pass, "' is invalid: ", e.what()));
    }
    return next;
  };
  Graph current = g;
  for (const Step& step : steps) {
    if (!step.enabled) continue;
    const std::size_t before = current.num_nodes();
    Graph next = verified(step.run(current), step.name);
    if (reports != nullptr) reports->push_back({step.name, before, next.num_nodes()});
    current = std::move(next);
  }
  if (!options.subgraphs || std::none_of(current.nodes().begin(), current.nodes().end(), has_optimizable_subgraphs))
    return current;
  const std::size_t before = nodes_within(current);
  Graph next = verified(optimize_subgraphs(current, options), "subgraphs");
  if (reports != nullptr) reports->push_back({"subgraphs", before, nodes_within(next)});
  return next;
}

}  // namespace tl::graph
