// optimize: the pass pipeline. Simplification first exposes constants and duplicates; folding then turns
// constant subtrees into constants, CSE merges what became equal, prune drops what nothing uses any more;
// matmul fusion runs before elementwise fusion (else the bias add and activation would be taken into an
// elementwise tree), and a last prune removes what the fusions left unused. verify() runs after every pass,
// so a pass that breaks an invariant is reported at once, naming the node.
#include <utility>

#include "tracelab/graph/passes.h"

namespace tl::graph {
namespace {

struct Step {
  const char* name;
  bool enabled;
  Graph (*run)(const Graph&);
};

}  // namespace

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
  Graph current = g;
  for (const Step& step : steps) {
    if (!step.enabled) continue;
    const std::size_t before = current.num_nodes();
    Graph next = step.run(current);
    try {
      next.verify();
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(tl::detail::cat("optimize: the graph after pass '", step.name, "' is invalid: ", e.what()));
    }
    if (reports != nullptr) reports->push_back({step.name, before, next.num_nodes()});
    current = std::move(next);
  }
  return current;
}

}  // namespace tl::graph
