// Common-subexpression elimination in one forward sweep over the graph being built: an op node whose
// (OpDef, remapped inputs, attributes) matches an earlier node is aliased to it, and a small constant whose
// dtype, shape and bytes match an earlier one is aliased to that. Inputs of a commutative two-input op are
// keyed in a canonical order, so add(a, b) and add(b, a) meet. Attributes compare by name, in any order.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "graph/passes/rewriter.h"
#include "tracelab/graph/passes.h"

namespace tl::graph {
namespace {

constexpr std::int64_t kMaxMergedConstantElements = 64;

struct OpKey {
  std::uintptr_t op = 0;
  std::vector<std::pair<std::size_t, std::size_t>> inputs;
  friend bool operator<(const OpKey& a, const OpKey& b) { return std::tie(a.op, a.inputs) < std::tie(b.op, b.inputs); }
};

OpKey op_key(const Node& node, const std::vector<ValueRef>& inputs) {
  OpKey key{reinterpret_cast<std::uintptr_t>(node.op), {}};
  for (const ValueRef& v : inputs) key.inputs.emplace_back(v.node, v.output);
  if (node.op->has(trait::commutative) && key.inputs.size() == 2 && key.inputs[1] < key.inputs[0])
    std::swap(key.inputs[0], key.inputs[1]);
  return key;
}

/// The same attributes, in any order (names are unique within an Attrs); nothing is copied.
bool same_attrs(const Attrs& a, const Attrs& b) {
  if (a.entries().size() != b.entries().size()) return false;
  for (const auto& entry : a.entries()) {
    auto it = std::find_if(b.entries().begin(), b.entries().end(), [&](const auto& e) { return e.first == entry.first; });
    if (it == b.entries().end() || !(it->second == entry.second)) return false;
  }
  return true;
}

/// dtype, dims and raw bytes of a constant: equal keys mean bit-identical tensors of one meta.
std::string constant_key(const Tensor& value) {
  std::string key(1, static_cast<char>(value.dtype()));
  for (std::int64_t d : value.shape().dims()) key += std::to_string(d) + ',';
  key += '|';
  visit_dtype(value.dtype(), [&](auto tag) {
    const auto* data = value.data<decltype(tag)>();
    key.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(value.num_elements()) * sizeof(*data));
  });
  return key;
}

bool mergeable_op(const Node& node) {
  return node.kind == NodeKind::op && node.op != nullptr && node.subgraphs.empty() &&
         !has_side_effects(node);
}

}  // namespace

Graph eliminate_common_subexpressions(const Graph& g) {
  detail::Rewriter rw(g);
  std::map<OpKey, std::vector<std::size_t>> ops;  // key -> new node indices with that key
  std::map<std::string, ValueRef> constants;
  for (std::size_t i = 0; i < g.num_nodes(); ++i) {
    const Node& node = g.node(i);
    if (node.kind == NodeKind::constant && node.value.num_elements() <= kMaxMergedConstantElements) {
      auto [it, added] = constants.emplace(constant_key(node.value), ValueRef{});
      if (!added) {
        rw.alias(i, {it->second});
        continue;
      }
      rw.copy(i);
      it->second = rw.map(ValueRef{i, 0});
      continue;
    }
    if (!mergeable_op(node)) {
      rw.copy(i);
      continue;
    }
    std::vector<ValueRef> inputs = rw.map(node.inputs);
    auto& candidates = ops[op_key(node, inputs)];
    auto match = std::find_if(candidates.begin(), candidates.end(), [&](std::size_t c) {
      return same_attrs(rw.target().node(c).attrs, node.attrs);
    });
    if (match != candidates.end()) {
      std::vector<ValueRef> values;
      for (std::size_t k = 0; k < node.outputs.size(); ++k) values.push_back({*match, k});
      rw.alias(i, std::move(values));
      continue;
    }
    rw.copy(i);
    if (!node.outputs.empty()) candidates.push_back(rw.map(ValueRef{i, 0}).node);
  }
  return rw.finish();
}

}  // namespace tl::graph
