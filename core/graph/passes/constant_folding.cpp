// constant folding: a registry op whose inputs are all constants (in the graph being built, so folds chain) is
// run now — outputs allocated from OpDef::infer, filled by OpDef::run — and replaced by constant nodes. An op
// with trait::reads_only_metas (zeros_like, ones_like: what the backward pass seeds gradients with) is folded
// whenever its inputs' shapes are fully known, whatever computes them: its kernel sees inputs of those metas.
// Not folded: stateful, side-effecting or dynamic-output ops, structured ops, outputs over 2^20 elements, and
// any op whose kernel throws (it stays, so the error surfaces when the graph runs, with its usual message).
#include <exception>
#include <optional>

#include "graph/passes/rewriter.h"
#include "tracelab/graph/passes.h"

namespace tl::graph {
namespace {

constexpr std::int64_t kMaxFoldedElements = std::int64_t{1} << 20;

bool foldable(const Node& node, const Graph& target, const std::vector<ValueRef>& inputs) {
  if (!is_pure(node)) return false;
  const bool metas_suffice = node.op->has(trait::reads_only_metas);
  for (const ValueRef& v : inputs)
    if (!(detail::is_constant(target, v) || (metas_suffice && target.meta(v).shape.is_fully_defined()))) return false;
  for (const TensorMeta& meta : node.outputs)
    if (!meta.shape.is_fully_defined() || meta.shape.num_elements() > kMaxFoldedElements) return false;
  return true;
}

/// The op's results on the constant inputs, or nothing when its shape rule or kernel refuses.
std::optional<std::vector<Tensor>> evaluate(const Node& node, const Graph& target,
                                            const std::vector<ValueRef>& inputs) {
  std::vector<Tensor> values;
  for (const ValueRef& v : inputs) {
    const TensorMeta& meta = target.meta(v);
    values.push_back(detail::is_constant(target, v) ? target.node(v.node).value : Tensor::empty(meta.dtype, meta.shape));
  }
  std::vector<const TensorMeta*> metas;
  for (const Tensor& t : values) metas.push_back(&t.meta());
  std::vector<TensorMeta> out_metas(node.outputs.size());
  std::vector<Tensor> results;
  try {
    node.op->infer(metas, node.attrs, out_metas);
    for (const TensorMeta& meta : out_metas) results.push_back(Tensor::empty(meta.dtype, meta.shape));
    node.op->run(values, node.attrs, results);
  } catch (const std::exception&) {  // a kernel error: keep the node, it will fail at run time
    return std::nullopt;
  }
  return results;
}

}  // namespace

Graph fold_constants(const Graph& g) {
  detail::Rewriter rw(g);
  for (std::size_t i = 0; i < g.num_nodes(); ++i) {
    const Node& node = g.node(i);
    if (node.kind != NodeKind::op) {
      rw.copy(i);
      continue;
    }
    std::vector<ValueRef> inputs = rw.map(node.inputs);
    std::optional<std::vector<Tensor>> results;
    if (foldable(node, rw.target(), inputs)) results = evaluate(node, rw.target(), inputs);
    if (!results) {
      rw.copy(i);
      continue;
    }
    std::vector<ValueRef> values;
    for (const Tensor& t : *results) values.push_back(rw.target().add_constant(t));
    rw.alias(i, std::move(values));
  }
  return rw.finish();
}

}  // namespace tl::graph
