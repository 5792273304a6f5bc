// Algebraic simplification in one forward sweep: a node that computes one of its inputs x unchanged is aliased
// to x. The rules (ops by identity, looked up in the registry once):
//   add(x, 0), add(0, x), sub(x, 0), mul(x, 1), mul(1, x), div(x, 1), neg(neg(x)), identity(x),
//   reshape(x) to x's own shape, transpose(x) by the identity permutation, cast(x) to x's dtype  ->  x
// A rule fires only when the node's output meta equals x's meta exactly (broadcasting against a bigger
// constant changes the shape) and the constant holds one value in every element (a scalar or a filled
// tensor). Zero means +0 or -0; x + 0 maps x = -0 to +0, a difference this pass accepts (the two compare
// equal). x * 0 is not simplified: nan * 0 and inf * 0 are nan. The sweep looks at the rewritten inputs, so
// chains collapse in one run: neg(neg(neg(neg(x)))) -> x.
#include <optional>

#include "graph/passes/rewriter.h"
#include "tracelab/graph/passes.h"
#include "tracelab/registry/registry.h"

namespace tl::graph {
namespace {

struct KnownOps {
  const OpDef* add;
  const OpDef* sub;
  const OpDef* mul;
  const OpDef* div;
  const OpDef* neg;
  const OpDef* identity;
  const OpDef* reshape;
  const OpDef* transpose;
  const OpDef* cast;
};

const KnownOps& known_ops() {
  static const KnownOps ops = [] {
    const OpRegistry& r = OpRegistry::global();
    return KnownOps{&r.get("add"), &r.get("sub"), &r.get("mul"), &r.get("div"), &r.get("neg"),
                    &r.get("identity"), &r.get("reshape"), &r.get("transpose"), &r.get("cast")};
  }();
  return ops;
}

/// True when `value` is a float32 or int32 constant of `target` with every element equal to `number`.
bool constant_all(const Graph& target, ValueRef value, int number) {
  const Node& node = target.node(value.node);
  if (node.kind != NodeKind::constant) return false;
  const Tensor& t = node.value;
  auto all_equal = [&](const auto* data, auto wanted) {
    for (std::int64_t i = 0; i < t.num_elements(); ++i)
      if (!(data[i] == wanted)) return false;
    return true;
  };
  if (t.dtype() == DType::float32) return all_equal(t.data<float>(), static_cast<float>(number));
  if (t.dtype() == DType::int32) return all_equal(t.data<std::int32_t>(), static_cast<std::int32_t>(number));
  return false;
}

bool is_identity_perm(const Attrs& attrs, int rank) {
  Ints perm = attrs.get_or<Ints>("perm", {});
  if (perm.empty()) return rank <= 1;  // an empty perm reverses the dims
  if (static_cast<int>(perm.size()) != rank) return false;
  for (int i = 0; i < rank; ++i)
    if (perm[static_cast<std::size_t>(i)] != i && perm[static_cast<std::size_t>(i)] != i - rank) return false;
  return true;
}

/// x when `node` (with rewritten inputs `in`) computes x unchanged, else nothing.
std::optional<ValueRef> simplified(const Node& node, const Graph& target, const std::vector<ValueRef>& in) {
  if (!detail::is_registry_op(node) || node.outputs.size() != 1) return std::nullopt;
  const KnownOps& k = known_ops();
  const OpDef* op = node.op;
  auto same_meta = [&](ValueRef x) -> std::optional<ValueRef> {
    if (target.meta(x) == node.outputs[0]) return x;
    return std::nullopt;
  };
  if (op == k.add || op == k.sub || op == k.mul || op == k.div) {
    const int unit = op == k.add || op == k.sub ? 0 : 1;
    if (constant_all(target, in[1], unit))
      if (auto x = same_meta(in[0])) return x;
    if ((op == k.add || op == k.mul) && constant_all(target, in[0], unit)) return same_meta(in[1]);
    return std::nullopt;
  }
  if (op == k.neg) {
    const Node& inner = target.node(in[0].node);
    if (inner.kind == NodeKind::op && inner.op == k.neg) return same_meta(inner.inputs[0]);
    return std::nullopt;
  }
  if (op == k.identity || op == k.reshape || op == k.cast) return same_meta(in[0]);
  if (op == k.transpose && is_identity_perm(node.attrs, target.meta(in[0]).shape.rank())) return same_meta(in[0]);
  return std::nullopt;
}

}  // namespace

Graph simplify(const Graph& g) {
  detail::Rewriter rw(g);
  for (std::size_t i = 0; i < g.num_nodes(); ++i) {
    const Node& node = g.node(i);
    std::optional<ValueRef> x;
    if (node.kind == NodeKind::op) x = simplified(node, rw.target(), rw.map(node.inputs));
    if (x) rw.alias(i, {*x});
    else rw.copy(i);
  }
  return rw.finish();
}

}  // namespace tl::graph
