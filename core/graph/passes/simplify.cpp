// Algebraic simplification in one forward sweep: a node that computes one of its inputs x unchanged is aliased
// to x. The rules (ops by identity, looked up in the registry once):
//   add(x, 0), add(0, x), sub(x, 0), mul(x, 1), mul(1, x), div(x, 1), neg(neg(x)), identity(x),
//   reshape(x) to x's own shape, transpose(x) by the identity permutation, cast(x) to x's dtype  ->  x
// A rule fires only when the node's output meta equals x's meta exactly (broadcasting against a bigger
// constant changes the shape) and the constant holds one value in every element (a scalar or a filled
// tensor). Zero means +0 or -0; x + 0 maps x = -0 to +0, a difference this pass accepts (the two compare
// equal). x * 0 is not simplified: nan * 0 and inf * 0 are nan. The sweep looks at the rewritten inputs, so
// chains collapse in one run: neg(neg(neg(neg(x)))) -> x.
//
// What the backward pass leaves behind is rewritten too (each becomes a cheaper node or disappears):
//   reduce_{sum,mean,max,min}(x) over axes of known size 1  ->  x (keepdims), else reshape(x) to the result
//   reshape(reshape(x))                                      ->  reshape(x) to the outer shape
//   reshape(reduce_*(x, keepdims=true)) to the shape without the kept dims  ->  reduce_*(x, keepdims=false)
//     (when the reshape is the reduction's only user; the reshape then has its input's shape and goes)
// A reshape made this way needs a target with at most one unknown dim (written -1); otherwise the node stays.
// Reducing a size-1 axis changes no value (a sum or max of one element is that element; a mean divides by 1).
#include <algorithm>
#include <optional>

#include "graph/passes/rewriter.h"
#include "tracelab/graph/passes.h"
#include "tracelab/registry/registry.h"

namespace tl::graph {
namespace {

struct KnownOps {
  const OpDef* reduce_sum;
  const OpDef* reduce_mean;
  const OpDef* reduce_max;
  const OpDef* reduce_min;
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
    return KnownOps{&r.get("reduce_sum"), &r.get("reduce_mean"), &r.get("reduce_max"), &r.get("reduce_min"),
                    &r.get("add"), &r.get("sub"), &r.get("mul"), &r.get("div"), &r.get("neg"),
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

/// The reshape attribute for `shape`: its dims, the one unknown dim as -1; nothing with two unknown dims.
std::optional<Ints> reshape_target(const Shape& shape) {
  Ints dims = shape.dims();
  if (std::count(dims.begin(), dims.end(), std::int64_t{-1}) > 1) return std::nullopt;
  return dims;
}

bool is_reduction(const OpDef* op) {
  const KnownOps& k = known_ops();
  return op == k.reduce_sum || op == k.reduce_mean || op == k.reduce_max || op == k.reduce_min;
}

/// True when every axis a reduction node reduces has known size 1 in `x`.
bool reduces_only_ones(const Node& node, const TensorMeta& x) {
  const int rank = x.shape.rank();
  Ints axes = node.attrs.get_or<Ints>("axes", {});
  if (axes.empty())
    for (int a = 0; a < rank; ++a) axes.push_back(a);
  for (std::int64_t axis : axes) {
    const std::int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank || x.shape[static_cast<std::size_t>(a)] != 1) return false;
  }
  return true;
}

/// x, or a single reshape of x, when `node` only moves x's values into another shape (see the header comment);
/// adds the reshape to `target`. Nothing otherwise.
std::optional<ValueRef> reshaped(const Node& node, Graph& target, const std::vector<ValueRef>& in) {
  if (!detail::is_registry_op(node) || node.outputs.size() != 1) return std::nullopt;
  const KnownOps& k = known_ops();
  const OpDef* op = node.op;
  ValueRef source;
  if (is_reduction(op)) {
    if (!reduces_only_ones(node, target.meta(in[0]))) return std::nullopt;
    source = in[0];
  } else if (op == k.reshape) {
    const Node& inner = target.node(in[0].node);
    if (inner.kind != NodeKind::op || inner.op != k.reshape) return std::nullopt;
    source = inner.inputs[0];
  } else {
    return std::nullopt;
  }
  const TensorMeta& want = node.outputs[0];
  if (target.meta(source) == want) return source;
  std::optional<Ints> shape = reshape_target(want.shape);
  if (!shape) return std::nullopt;
  std::vector<ValueRef> out;
  try {
    out = target.add_op(*k.reshape, {source}, {{"shape", *shape}});
  } catch (const Error&) {  // a reshape the shape rule refuses: keep the node as it is
    return std::nullopt;
  }
  if (!(target.meta(out[0]) == want)) return std::nullopt;  // kept as it is; prune drops the unused reshape
  return out[0];
}

/// For each node, its only user when it has exactly one (a node input or a graph output counts), else npos.
std::vector<std::size_t> sole_users(const Graph& g) {
  constexpr std::size_t npos = static_cast<std::size_t>(-1), many = npos - 1;
  std::vector<std::size_t> user(g.num_nodes(), npos);
  auto use = [&](std::size_t node, std::size_t by) { user[node] = user[node] == npos ? by : many; };
  for (std::size_t i = 0; i < g.num_nodes(); ++i)
    for (const ValueRef& ref : g.node(i).inputs) use(ref.node, i);
  for (const ValueRef& ref : g.outputs()) use(ref.node, many);
  for (std::size_t& u : user)
    if (u == many) u = npos;
  return user;
}

/// The reduction without keepdims, when `node` reduces with keepdims=true and its only user is a reshape to
/// exactly that result's meta; adds it to `target`. Nothing otherwise.
std::optional<ValueRef> without_kept_dims(const Graph& g, const Node& node, std::size_t sole_user, Graph& target,
                                          const std::vector<ValueRef>& in) {
  if (!detail::is_registry_op(node) || !is_reduction(node.op) || node.outputs.size() != 1 ||
      !node.attrs.get_or("keepdims", false) || sole_user >= g.num_nodes())
    return std::nullopt;
  const Node& user = g.node(sole_user);
  if (!detail::is_registry_op(user) || user.op != known_ops().reshape) return std::nullopt;
  Attrs attrs = node.attrs;
  attrs.set("keepdims", false);
  std::vector<ValueRef> out;
  try {
    out = target.add_op(*node.op, in, attrs);
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!(target.meta(out[0]) == user.outputs[0])) return std::nullopt;  // prune drops the unused node
  return out[0];
}

}  // namespace

Graph simplify(const Graph& g) {
  detail::Rewriter rw(g);
  const std::vector<std::size_t> sole_user = sole_users(g);
  for (std::size_t i = 0; i < g.num_nodes(); ++i) {
    const Node& node = g.node(i);
    std::optional<ValueRef> x;
    if (node.kind == NodeKind::op) {
      std::vector<ValueRef> in = rw.map(node.inputs);
      x = simplified(node, rw.target(), in);
      if (!x) x = reshaped(node, rw.target(), in);
      if (!x) x = without_kept_dims(g, node, sole_user[i], rw.target(), in);
    }
    if (x) rw.alias(i, {*x});
    else rw.copy(i);
  }
  return rw.finish();
}

}  // namespace tl::graph
