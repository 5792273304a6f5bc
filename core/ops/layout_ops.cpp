// Layout ops: x's elements, none computed, in a new arrangement — reshape, expand_dims and squeeze (same order,
// new shape), transpose (dims permuted: a strided copy), broadcast_to (size-1 and missing leading dims repeated),
// identity and stop_gradient. The same-order ops are views (trait::view): eagerly their output shares x's buffer;
// in a graph x's planned slot passes to the output when x dies there, else their kernel copies into the output's
// slot. Each gradient moves g back to x's layout.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ops/detail/array_common.h"
#include "ops/detail/elementwise.h"
#include "ops/detail/grad_utils.h"
#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/array.h"

namespace tl {
namespace detail {
namespace {

/// Kernel of the ops that keep the elements in order (the view ops, in a graph): one flat copy.
void copy_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy_n(ctx.input(0).data<T>(), ctx.input(0).num_elements(), ctx.output().mutable_data<T>());
  });
}

/// The requested reshape sizes, parsed: where the -1 is, whether a 0 appears, the product of the others.
struct ReshapeSizes {
  int unknown = -1;
  bool has_zero = false;
  std::int64_t known = 1;  // product of the sizes other than -1 and 0 (saturating)
};

ReshapeSizes parse_sizes(const Ints& sizes) {
  ReshapeSizes parsed;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    TL_CHECK(sizes[i] >= -1, InvalidArgument, "reshape: sizes must be >= -1, got shape ", ints_str(sizes));
    if (sizes[i] == -1) {
      TL_CHECK(parsed.unknown < 0, InvalidArgument, "reshape: only one size may be -1, got shape ", ints_str(sizes));
      parsed.unknown = static_cast<int>(i);
    } else if (sizes[i] == 0) {
      parsed.has_zero = true;
    } else {
      parsed.known = saturating_mul(parsed.known, sizes[i]);
    }
  }
  return parsed;
}

/// Requested reshape sizes checked against the input's count. TF's Reshape: one -1 takes the size that makes the
/// counts agree; with a 0 among the sizes it is the input's count over non-zero dims (so (0, 4) -> [0, -1] is (0, 4)).
Shape reshape_shape(const Shape& in, const Ints& sizes) {
  auto [unknown, has_zero, known] = parse_sizes(sizes);
  bool count_known = in.is_fully_defined() || std::count(in.dims().begin(), in.dims().end(), 0) > 0;
  std::int64_t in_known = 1, in_nonzero = 1;  // products of the input's known dims, and of its non-zero ones
  for (auto d : in.dims()) {
    if (d >= 0) in_known = saturating_mul(in_known, d);
    if (d > 0) in_nonzero = saturating_mul(in_nonzero, d);
  }
  auto fail = [&] {
    return ShapeError(cat("reshape: cannot reshape a tensor of shape ", in.str(),
                          count_known ? cat(" (", in_known, " elements)") : std::string(), " into shape ",
                          ints_str(sizes)));
  };
  Shape out(sizes.data(), sizes.data() + sizes.size());
  std::int64_t requested = has_zero ? 0 : known;
  if (unknown < 0) {
    if (count_known && requested != in_known) throw fail();
    if (!count_known && requested % in_known != 0) throw fail();  // in_known > 0: the unknown dims multiply it
    return out;
  }
  if (!count_known) return out;  // the -1 stays unknown
  if (has_zero) {
    if (in_known != 0) throw fail();
    out.dims()[static_cast<std::size_t>(unknown)] = in.is_fully_defined() ? in_nonzero / known : -1;
  } else {
    if (in_known % known != 0) throw fail();
    out.dims()[static_cast<std::size_t>(unknown)] = in_known / known;
  }
  return out;
}

/// The permutation attribute, defaulted (empty -> reversed dims) and checked to be a permutation of 0..rank-1.
Ints checked_perm(const Ints& perm_attr, const Shape& in) {
  const int rank = in.rank();
  Ints perm = perm_attr;
  if (perm.empty())
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
  bool ok = static_cast<int>(perm.size()) == rank;
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  for (std::size_t i = 0; ok && i < perm.size(); ++i) {
    ok = perm[i] >= 0 && perm[i] < rank && !seen[static_cast<std::size_t>(perm[i])];
    if (ok) seen[static_cast<std::size_t>(perm[i])] = true;
  }
  TL_CHECK(ok, InvalidArgument, "transpose: perm ", ints_str(perm_attr), " is not a permutation of 0..", rank - 1,
           " for input of shape ", in.str());
  return perm;
}

/// The output dims of squeeze; `keep[i]` says whether input dim i survives.
std::vector<bool> squeezed(const TensorMeta& in, const Ints& axes) {
  const Shape& shape = in.shape;
  std::vector<bool> keep(static_cast<std::size_t>(shape.rank()), true);
  if (axes.empty()) {
    for (int i = 0; i < shape.rank(); ++i) {
      auto d = shape[static_cast<std::size_t>(i)];
      // TF would return a shape of unknown rank here; Tracelab shapes always have a known rank.
      TL_CHECK(d >= 0, ShapeError, "squeeze: cannot squeeze every size-1 dim of ", meta_str(in),
               " while a dim is unknown (the rank would be unknown); list the axes to squeeze");
      keep[static_cast<std::size_t>(i)] = d != 1;
    }
    return keep;
  }
  for (auto axis : axes) {
    auto a = static_cast<std::size_t>(normalize_axis("squeeze", axis, shape.rank()));
    TL_CHECK(shape[a] == 1 || shape[a] < 0, ShapeError, "squeeze: cannot squeeze axis ", axis, " of ", meta_str(in),
             ": its size is ", shape[a], ", not 1");
    keep[a] = false;
  }
  return keep;
}

/// Transpose's kernel: the output walks the input with permuted strides.
void transpose_kernel(KernelContext& ctx) {
  const Shape& in = ctx.input(0).shape();
  if (ctx.output().num_elements() == 0) return;
  Ints perm = checked_perm(ctx.attrs.get_or<Ints>("perm", {}), in);
  Dims in_strides = in.strides(), src_strides;
  for (auto p : perm) src_strides.push_back(in_strides[static_cast<std::size_t>(p)]);
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = decltype(tag);
    strided_copy(ctx.input(0).data<T>(), src_strides, ctx.output().mutable_data<T>(),
                 ctx.output().shape().strides(), ctx.output().shape().dims());
  });
}

/// broadcast_to's rule: the sizes are >= 0 and x's shape broadcasts to them by NumPy's rules (x has no more
/// dims; each of its trailing dims is 1 or the target size).
void broadcast_to_shape(ShapeContext& ctx) {
  const TensorMeta& in = ctx.input(0);
  const Ints& shape = ctx.attrs.get<Ints>("shape");
  for (auto size : shape)
    TL_CHECK(size >= 0, InvalidArgument, "broadcast_to: sizes must be non-negative, got shape ", ints_str(shape));
  const auto extra = static_cast<std::int64_t>(shape.size()) - in.shape.rank();
  bool ok = extra >= 0;
  for (int k = 0; ok && k < in.shape.rank(); ++k) {
    std::int64_t d = in.shape[static_cast<std::size_t>(k)];
    ok = d < 0 || d == 1 || d == shape[static_cast<std::size_t>(extra + k)];
  }
  TL_CHECK(ok, ShapeError, "broadcast_to: cannot broadcast ", meta_str(in), " to shape ", ints_str(shape));
  ctx.output() = TensorMeta{in.dtype, Shape(Dims(shape.begin(), shape.end()))};
}

/// broadcast_to's kernel: output rows are copies of x's rows, or one repeated element where x broadcasts.
template <class T>
void broadcast_fill(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (ctx.output().num_elements() == 0) return;
  const T* src = x.data<T>();
  T* dst = ctx.output().mutable_data<T>();
  auto plan = plan_broadcast<1>(ctx.output().shape(), {&x.shape()});
  for_each_row(plan, [&](std::int64_t at, std::int64_t length, const auto& offsets, const auto& inner) {
    if (inner[0] == 0) std::fill_n(dst + at, length, src[offsets[0]]);
    else std::copy_n(src + offsets[0], length, dst + at);
  });
}

// ---- gradient rules: the upstream gradient g moved back to x's layout; public ops only ----
using Grads = std::span<Tensor>;

/// reshape, expand_dims, squeeze: the elements keep their order, so d = reshape(g, x.shape)
void grad_reshape(const GradContext& c, Grads d) { d[0] = reshape(c.grad(), c.input(0).shape().dims()); }

/// transpose(x, p): d = transpose(g, p^-1)
void grad_transpose(const GradContext& c, Grads d) {
  Ints perm = checked_perm(c.attrs.get_or<Ints>("perm", {}), c.input(0).shape());
  Ints inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
  d[0] = transpose(c.grad(), inverse);
}

/// broadcast_to(x, shape): d = g summed over the broadcast dims
void grad_broadcast_to(const GradContext& c, Grads d) { d[0] = unbroadcast(c.grad(), c.input(0).shape()); }

}  // namespace

void register_layout_ops(OpRegistry& r) {
  r.op("reshape").doc("x's elements, in order, with a new shape; one size may be -1 (inferred)").inputs(1)
      .attr<Ints>("shape", true)
      .shape_fn([](ShapeContext& ctx) {
        ctx.output() = TensorMeta{ctx.input(0).dtype, reshape_shape(ctx.input(0).shape, ctx.attrs.get<Ints>("shape"))};
      })
      .traits(trait::view).kernel(copy_kernel)
      .gradient(grad_reshape);

  r.op("transpose").doc("y[i_perm[0], ..., i_perm[n-1]] = x[i_0, ..., i_n-1]; empty perm reverses").inputs(1)
      .attr<Ints>("perm")
      .shape_fn([](ShapeContext& ctx) {
        Ints perm = checked_perm(ctx.attrs.get_or<Ints>("perm", {}), ctx.input(0).shape);
        Dims dims;
        for (auto p : perm) dims.push_back(ctx.input(0).shape[static_cast<std::size_t>(p)]);
        ctx.output() = TensorMeta{ctx.input(0).dtype, Shape(std::move(dims))};
      })
      .kernel(transpose_kernel)
      .gradient(grad_transpose);

  r.op("expand_dims").doc("x with a size-1 dim inserted at axis in [-rank-1, rank]").inputs(1)
      .attr<std::int64_t>("axis", true)
      .shape_fn([](ShapeContext& ctx) {
        const TensorMeta& in = ctx.input(0);
        const int rank = in.shape.rank();
        auto axis = ctx.attrs.get<std::int64_t>("axis");
        TL_CHECK(axis >= -rank - 1 && axis <= rank, InvalidArgument, "expand_dims: axis ", axis,
                 " is out of range for ", meta_str(in), " (expected ", -rank - 1, " <= axis <= ", rank, ")");
        Dims dims = in.shape.dims();
        dims.insert(dims.begin() + (axis < 0 ? axis + rank + 1 : axis), 1);
        ctx.output() = TensorMeta{in.dtype, Shape(std::move(dims))};
      })
      .traits(trait::view).kernel(copy_kernel)
      .gradient(grad_reshape);

  r.op("squeeze").doc("x without the listed size-1 dims (all size-1 dims when axes is empty)").inputs(1)
      .attr<Ints>("axes")
      .shape_fn([](ShapeContext& ctx) {
        const TensorMeta& in = ctx.input(0);
        std::vector<bool> keep = squeezed(in, ctx.attrs.get_or<Ints>("axes", {}));
        Dims dims;
        for (std::size_t i = 0; i < keep.size(); ++i)
          if (keep[i]) dims.push_back(in.shape[i]);
        ctx.output() = TensorMeta{in.dtype, Shape(std::move(dims))};
      })
      .traits(trait::view).kernel(copy_kernel)
      .gradient(grad_reshape);

  r.op("broadcast_to").doc("x repeated along its size-1 and missing leading dims to shape (NumPy rules)").inputs(1)
      .attr<Ints>("shape", true)
      .shape_fn(broadcast_to_shape)
      .kernel([](KernelContext& ctx) {
        visit_dtype(ctx.input(0).dtype(), [&](auto tag) { broadcast_fill<decltype(tag)>(ctx); });
      })
      .gradient(grad_broadcast_to);

  r.op("identity").doc("x itself (eagerly the same values, in a graph a copy); d = g").inputs(1)
      .traits(trait::view).shape_fn(same_as_input)
      .kernel(copy_kernel)
      .gradient([](const GradContext& c, Grads d) { d[0] = c.grad(); });

  r.op("stop_gradient").doc("x itself (eagerly the same values, in a graph a copy), invisible to the tape: no "
                             "gradient flows back through it")
      .inputs(1).traits(trait::not_differentiable | trait::view)
      .shape_fn(same_as_input)
      .kernel(copy_kernel);
}

}  // namespace detail

Tensor reshape(const Tensor& x, const Ints& shape) { return reshape(x, Ints(shape)); }

Tensor reshape(const Tensor& x, Ints&& shape) {
  static const OpDef& op = OpRegistry::global().get("reshape");
  Attrs attrs;
  attrs.set("shape", std::move(shape));  // one copy of the dims fewer than an Attrs{{...}} list makes
  return execute(op, {x}, attrs);
}

Tensor transpose(const Tensor& x, const Ints& perm) {
  static const OpDef& op = OpRegistry::global().get("transpose");
  return execute(op, {x}, {{"perm", perm}});
}

Tensor expand_dims(const Tensor& x, std::int64_t axis) {
  static const OpDef& op = OpRegistry::global().get("expand_dims");
  return execute(op, {x}, {{"axis", axis}});
}

Tensor squeeze(const Tensor& x, const Ints& axes) {
  static const OpDef& op = OpRegistry::global().get("squeeze");
  return execute(op, {x}, {{"axes", axes}});
}

Tensor identity(const Tensor& x) {
  static const OpDef& op = OpRegistry::global().get("identity");
  return execute(op, {x});
}

Tensor stop_gradient(const Tensor& x) {
  static const OpDef& op = OpRegistry::global().get("stop_gradient");
  return execute(op, {x});
}

Tensor broadcast_to(const Tensor& x, const Ints& shape) {
  static const OpDef& op = OpRegistry::global().get("broadcast_to");
  return execute(op, {x}, {{"shape", shape}});
}

}  // namespace tl
