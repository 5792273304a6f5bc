// prune: dead-node elimination. A node is live when it is a function input, has effects (assign, a
// side-effecting or stateful op, a structured op with effects inside), or produces a value that a live node
// or a graph output uses. One backward sweep marks liveness; the rebuild keeps live nodes in order.
#include "graph/passes/rewriter.h"
#include "tracelab/graph/passes.h"

namespace tl::graph {

Graph prune(const Graph& g) {
  const std::size_t n = g.num_nodes();
  std::vector<bool> live(n, false);
  for (const ValueRef& v : g.outputs()) live[v.node] = true;
  for (std::size_t i = n; i-- > 0;) {
    const Node& node = g.node(i);
    if (node.kind == NodeKind::input || has_side_effects(node)) live[i] = true;
    if (!live[i]) continue;
    for (const ValueRef& v : node.inputs) live[v.node] = true;
  }
  detail::Rewriter rw(g);
  for (std::size_t i = 0; i < n; ++i)
    if (live[i]) rw.copy(i);
  return rw.finish();
}

}  // namespace tl::graph
