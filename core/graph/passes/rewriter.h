// What the passes share (private to core/graph/passes): a Rewriter that rebuilds a graph node by node with
// remapped value refs, use counts, and the questions every pass asks about a node (side effects, registry op).
//
//   detail::Rewriter rw(g);
//   for (std::size_t i = 0; i < g.num_nodes(); ++i) keep(i) ? rw.copy(i) : rw.alias(i, {replacement});
//   return rw.finish();
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "tracelab/graph/graph.h"

namespace tl::graph::detail {

/// Builds a new graph from `source`: each source node is copied (inputs remapped), or its outputs are aliased
/// to values already in the new graph, or the pass emits something else in its place.
class Rewriter {
 public:
  /// Starts an empty target for `source` (which must outlive the rewriter).
  explicit Rewriter(const Graph& source);

  /// The graph being rewritten.
  const Graph& source() const noexcept { return source_; }
  /// The graph being built.
  Graph& target() noexcept { return target_; }
  /// The new value standing for source value `old`; throws InvalidArgument if its node was not handled yet.
  ValueRef map(ValueRef old) const;
  /// map() of each value.
  std::vector<ValueRef> map(const std::vector<ValueRef>& old) const;
  /// Copies source node `index` with remapped inputs (keeping the sub-graphs and resource of structured ops).
  void copy(std::size_t index);
  /// Makes source node `index`'s outputs stand for `values` (one per output) of the new graph.
  void alias(std::size_t index, std::vector<ValueRef> values);
  /// Sets the remapped graph outputs and returns the new graph.
  Graph finish();

 private:
  void set(std::size_t index, const std::vector<ValueRef>& values);

  static constexpr std::size_t kUnmapped = static_cast<std::size_t>(-1);
  const Graph& source_;
  Graph target_;
  std::vector<std::size_t> first_;  // per source node: where its outputs' new values start in values_
  std::vector<ValueRef> values_;    // the new value of each handled source node's outputs, node after node
};

/// Uses of each value: uses[node][output] = how many node inputs refer to it, plus 1 per graph output slot.
std::vector<std::vector<std::size_t>> use_counts(const Graph& g);
/// is_output[node][output]: the value is returned by the graph.
std::vector<std::vector<bool>> output_flags(const Graph& g);

/// sole_users(g)[i]: for a one-output node whose value has exactly one use, by a node (it is not a graph
/// output), the index of that node; otherwise nothing. The fusion passes absorb such values.
std::vector<std::optional<std::size_t>> sole_users(const Graph& g);

/// True for an op node without sub-graphs whose op is the registry's op of that name (not a structured op, not a
/// test-local OpDef).
bool is_registry_op(const Node& node);
/// True when `value` is produced by a constant node of `g`.
bool is_constant(const Graph& g, ValueRef value);

}  // namespace tl::graph::detail
