// The graph optimizer: passes that each take a Graph and return a rebuilt, equivalent one (values remapped,
// topological order and the order of side-effecting nodes kept), and optimize() that runs them in sequence,
// verifying the graph after each pass. See docs/graph.md, "Optimization passes".
//
//   std::vector<tl::graph::PassReport> reports;
//   tl::graph::Graph fast = tl::graph::optimize(g, {}, &reports);
//   for (const auto& r : reports) std::printf("%s: %zu -> %zu nodes\n", r.pass.c_str(), r.nodes_before, r.nodes_after);
//
// Rules every pass keeps: function inputs are never removed or reordered; assign nodes and ops with
// trait::side_effects or trait::stateful are never removed, merged, folded or reordered relative to each other;
// variable reads are never merged or folded; structured ops (nodes holding sub-graphs) are never merged, folded or
// fused, and each pass copies their sub-graphs as they are. optimize() then runs the whole pipeline on the
// sub-graphs of every structured op without trait::subgraphs_as_is (cond's branches, while_loop's cond and body),
// keeping each sub-graph's inputs and output metas.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tracelab/graph/graph.h"

namespace tl::graph {

/// What one pass did: its name and the node counts before and after it.
struct PassReport {
  /// "prune", "constant_folding", "cse", "simplify", "fuse_matmul", "fuse_elementwise" or "subgraphs"
  std::string pass;
  std::size_t nodes_before = 0;  ///< num_nodes() of the graph the pass got ("subgraphs": nodes_within())
  std::size_t nodes_after = 0;   ///< num_nodes() of the graph it returned ("subgraphs": nodes_within())
};

/// Which passes optimize() runs.
struct OptimizeOptions {
  bool prune = true;             ///< drop nodes that reach neither an output nor a side effect
  bool constant_folding = true;  ///< run ops on constant inputs now
  bool cse = true;               ///< merge equal ops and equal small constants
  bool simplify = true;          ///< algebraic identities (x + 0, x * 1, neg(neg(x)), identity, no-op reshape, ...)
  bool fuse_elementwise = true;  ///< chains of float32 elementwise ops -> one fused_elementwise node
  bool fuse_matmul = true;       ///< matmul -> add bias -> optional relu/sigmoid/tanh -> one fused_matmul node
  bool subgraphs = true;         ///< the enabled passes also on the sub-graphs of cond / while_loop nodes
};

/// The nodes of `g` and of the sub-graphs optimize() rewrites (those of structured ops without
/// trait::subgraphs_as_is: not a fused_elementwise body), recursively; a sub-graph several nodes hold counts for
/// each. The "subgraphs" report's counts, comparable as the other passes' num_nodes() are.
std::size_t nodes_within(const Graph& g);

/// Drops nodes whose values reach neither a graph output nor a side-effecting node (assign, ops with
/// side_effects or stateful traits, structured ops whose sub-graphs have effects). Inputs always stay.
Graph prune(const Graph& g);

/// Replaces each registry op whose inputs are all constants (not stateful, side-effecting or with dynamic
/// outputs) by constants holding its results, computed now with OpDef::run. Skips outputs of more than 2^20
/// elements, and any op whose kernel throws (the error then surfaces when the graph runs). Leaves the old
/// constants in place: run prune() afterwards.
Graph fold_constants(const Graph& g);

/// Common-subexpression elimination: an op node with the same OpDef, the same input values (either order for
/// a commutative op) and equal attributes as an earlier one is replaced by it; constants of equal dtype and
/// shape and bit-identical values (at most 64 elements) are merged. Never merges variable reads, assigns,
/// stateful or side-effecting ops, or structured ops.
Graph eliminate_common_subexpressions(const Graph& g);

/// Algebraic simplification: x+0, 0+x, x-0, x*1, 1*x, x/1, neg(neg(x)), identity(x), reshape to x's own
/// shape, transpose by the identity permutation and cast to x's dtype all become x — only when the result's
/// meta equals x's meta exactly and the constant is all one value. x*0 is left alone (x may be nan or inf).
/// What the backward pass leaves behind: a reduction over axes of known size 1 becomes x or one reshape of x,
/// and reshape(reshape(x)) one reshape.
Graph simplify(const Graph& g);

/// Fuses trees of float32 elementwise registry ops (no attributes, with a gradient) whose intermediate values
/// have exactly one use and are not graph outputs into one `fused_elementwise` node, a structured op whose
/// sub-graph (its body) holds the member ops (see docs/graph.md).
Graph fuse_elementwise(const Graph& g);

/// The registry's `fused_elementwise` op (registered by this layer on first use). A node holds one sub-graph, its
/// body: one input node per fused input, then pure one-output float32 elementwise registry ops without
/// attributes, the last one the body's only output (InvalidArgument otherwise). Its kernel runs the members'
/// kernels in one pass over the data; its gradient chains theirs. Add it with
/// Graph::add_op(fused_elementwise_op(), inputs, {}, {body}), or run it with tl::execute(..., subgraphs).
const OpDef& fused_elementwise_op();

/// Fuses matmul(a, b) -> add(., bias) -> optional relu / sigmoid / tanh into one `fused_matmul` node, when each
/// intermediate has exactly one use, is not a graph output, and the bias (rank <= 1) broadcasts along the last
/// dim without changing the product's meta.
Graph fuse_matmul_bias_activation(const Graph& g);

/// Runs the enabled passes — simplify, constant_folding, cse, prune, fuse_matmul, fuse_elementwise, prune —
/// calling verify() after each, and appends one PassReport per pass run to `reports` (when given). Then, with
/// OptimizeOptions::subgraphs, optimizes the sub-graphs of every structured op without trait::subgraphs_as_is
/// with the same options (recursively; a sub-graph several nodes hold, once, and it stays shared) and reports
/// "subgraphs" with nodes_within() before and after, when the graph has such a node. A sub-graph whose inputs or
/// output metas the passes changed is an InvalidArgument naming the node.
Graph optimize(const Graph& g, const OptimizeOptions& options = {}, std::vector<PassReport>* reports = nullptr);

}  // namespace tl::graph
