// Array ops, part 1 — shape and layout: reshape, transpose, expand_dims, squeeze, identity, stop_gradient,
// concat, stack, slice. Part 2 (array_ops_2.cpp) holds gather, unsorted_segment_sum, broadcast_to, one_hot, cast,
// pad, zeros_like and ones_like.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ops/detail/array_common.h"
#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/array.h"

namespace tl {
namespace detail {
namespace {

/// Kernel of the ops that keep the elements in order (reshape, expand_dims, squeeze): one flat copy.
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
  Shape out{Dims(sizes.begin(), sizes.end())};
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

/// Merges one dim of two shapes that must agree: a known size wins over unknown; two known sizes must be equal.
bool merge_dim(std::int64_t& into, std::int64_t other) {
  if (into < 0) into = other;
  return other < 0 || into == other;
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

/// Concat's rule: one dtype and rank, dims equal except along the axis, where the sizes add up.
void concat_shape(ShapeContext& ctx) {
  const TensorMeta& first = ctx.input(0);
  TL_CHECK(first.shape.rank() > 0, ShapeError, "concat: cannot concatenate scalars (", meta_str(first),
           "); use stack");
  auto axis = static_cast<std::size_t>(normalize_axis("concat", ctx.attrs.get<std::int64_t>("axis"),
                                                      first.shape.rank()));
  Dims dims = first.shape.dims();
  for (std::size_t i = 1; i < ctx.inputs.size(); ++i) {
    const TensorMeta& in = ctx.input(i);
    TL_CHECK(in.dtype == first.dtype, DTypeError, "concat: all values must have one dtype, got ", meta_str(first),
             " and ", meta_str(in), " (value ", i, ")");
    bool ok = in.shape.rank() == first.shape.rank();
    for (std::size_t k = 0; ok && k < dims.size(); ++k) {
      if (k == axis) dims[k] = dims[k] < 0 || in.shape[k] < 0 ? -1 : dims[k] + in.shape[k];
      else ok = merge_dim(dims[k], in.shape[k]);
    }
    TL_CHECK(ok, ShapeError, "concat: value ", i, " ", meta_str(in), " does not match value 0 ", meta_str(first),
             " in rank or in a dim other than axis ", axis);
  }
  ctx.output() = TensorMeta{first.dtype, Shape(std::move(dims))};
}

/// Stack's rule: one dtype and shape; the count of values becomes a new dim at the axis.
void stack_shape(ShapeContext& ctx) {
  const TensorMeta& first = ctx.input(0);
  const int rank = first.shape.rank();
  auto axis = ctx.attrs.get_or<std::int64_t>("axis", 0);
  TL_CHECK(axis >= -rank - 1 && axis <= rank, InvalidArgument, "stack: axis ", axis, " is out of range for values ",
           "of rank ", rank, " (expected ", -rank - 1, " <= axis <= ", rank, ")");
  Dims dims = first.shape.dims();
  for (std::size_t i = 1; i < ctx.inputs.size(); ++i) {
    const TensorMeta& in = ctx.input(i);
    TL_CHECK(in.dtype == first.dtype, DTypeError, "stack: all values must have one dtype, got ", meta_str(first),
             " and ", meta_str(in), " (value ", i, ")");
    bool ok = in.shape.rank() == rank;
    for (std::size_t k = 0; ok && k < dims.size(); ++k) ok = merge_dim(dims[k], in.shape[k]);
    TL_CHECK(ok, ShapeError, "stack: all values must have one shape, got ", meta_str(first), " and ", meta_str(in),
             " (value ", i, ")");
  }
  dims.insert(dims.begin() + (axis < 0 ? axis + rank + 1 : axis), static_cast<std::int64_t>(ctx.inputs.size()));
  ctx.output() = TensorMeta{first.dtype, Shape(std::move(dims))};
}

/// Slice's rule: begin in [0, dim], size -1 (to the end) or in [0, dim - begin]; unknown dims are not checked.
void slice_shape(ShapeContext& ctx) {
  const TensorMeta& in = ctx.input(0);
  const Ints& begin = ctx.attrs.get<Ints>("begin");
  const Ints& size = ctx.attrs.get<Ints>("size");
  const auto rank = static_cast<std::size_t>(in.shape.rank());
  TL_CHECK(begin.size() == rank && size.size() == rank, InvalidArgument, "slice: begin ", ints_str(begin),
           " and size ", ints_str(size), " must both have one entry per dim of ", meta_str(in));
  Dims dims(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    std::int64_t d = in.shape[k];
    bool ok = begin[k] >= 0 && size[k] >= -1 && (d < 0 || begin[k] <= d);
    if (ok && d >= 0 && size[k] >= 0) ok = size[k] <= d - begin[k];
    TL_CHECK(ok, InvalidArgument, "slice: begin ", ints_str(begin), " with size ", ints_str(size),
             " is out of bounds for ", meta_str(in), " (dim ", k, ")");
    dims[k] = size[k] >= 0 ? size[k] : d < 0 ? -1 : d - begin[k];
  }
  ctx.output() = TensorMeta{in.dtype, Shape(std::move(dims))};
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

/// Concat's kernel: each output row (the dims from axis on) is the values' rows side by side.
void concat_kernel(KernelContext& ctx) {
  const Shape& out = ctx.output().shape();
  if (ctx.output().num_elements() == 0) return;
  auto axis = static_cast<std::size_t>(normalize_axis("concat", ctx.attrs.get<std::int64_t>("axis"),
                                                      out.rank()));
  const std::int64_t outer = product(out.dims(), 0, axis);
  const std::int64_t out_row = product(out.dims(), axis, out.dims().size());
  visit_dtype(ctx.output().dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::int64_t at = 0;  // column offset of the current value within an output row
    for (const Tensor& value : ctx.inputs) {
      const std::int64_t row = product(value.shape().dims(), axis, value.shape().dims().size());
      const T* src = value.data<T>();
      T* dst = ctx.output().mutable_data<T>();
      for (std::int64_t o = 0; row > 0 && o < outer; ++o) std::copy_n(src + o * row, row, dst + o * out_row + at);
      at += row;
    }
  });
}

/// Stack's kernel: the output, seen as [outer, count, row], interleaves the values' rows.
void stack_kernel(KernelContext& ctx) {
  const Shape& in = ctx.input(0).shape();
  if (ctx.output().num_elements() == 0) return;
  auto axis = ctx.attrs.get_or<std::int64_t>("axis", 0);
  auto a = static_cast<std::size_t>(axis < 0 ? axis + in.rank() + 1 : axis);
  const std::int64_t outer = product(in.dims(), 0, a);
  const std::int64_t row = product(in.dims(), a, in.dims().size());
  const auto count = static_cast<std::int64_t>(ctx.inputs.size());
  visit_dtype(ctx.output().dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = ctx.output().mutable_data<T>();
    for (std::int64_t i = 0; row > 0 && i < count; ++i) {
      const T* src = ctx.input(static_cast<std::size_t>(i)).data<T>();
      for (std::int64_t o = 0; o < outer; ++o) std::copy_n(src + o * row, row, dst + (o * count + i) * row);
    }
  });
}

/// Slice's kernel: a strided copy starting at `begin`.
void slice_kernel(KernelContext& ctx) {
  const Shape& in = ctx.input(0).shape();
  const Ints& begin = ctx.attrs.get<Ints>("begin");
  if (ctx.output().num_elements() == 0) return;
  Dims strides = in.strides();
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < begin.size(); ++k) offset += begin[k] * strides[k];
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = decltype(tag);
    strided_copy(ctx.input(0).data<T>() + offset, strides, ctx.output().mutable_data<T>(),
                 ctx.output().shape().strides(), ctx.output().shape().dims());
  });
}

// ---- gradient rules: the upstream gradient g moved back to each input's layout; public ops only ----
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

/// concat(x_0, ..., x_n; axis): d_i = the slice of g along the axis at x_i's offset, with x_i's shape
void grad_concat(const GradContext& c, Grads d) {
  const int rank = c.input(0).rank();
  auto axis = static_cast<std::size_t>(normalize_axis("concat", c.attrs.get<std::int64_t>("axis"), rank));
  Ints begin(static_cast<std::size_t>(rank), 0);
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const Dims& size = c.input(i).shape().dims();
    d[i] = slice(c.grad(), begin, size);
    begin[axis] += size[axis];
  }
}

/// stack(x_0, ..., x_n; axis): d_i = reshape(slice(g, i along the axis, size 1), x_i.shape)
void grad_stack(const GradContext& c, Grads d) {
  const Dims& out = c.output().shape().dims();
  auto axis = c.attrs.get_or<std::int64_t>("axis", 0);
  auto a = static_cast<std::size_t>(axis < 0 ? axis + c.input(0).rank() + 1 : axis);
  Ints begin(out.size(), 0), size = out;
  size[a] = 1;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    begin[a] = static_cast<std::int64_t>(i);
    d[i] = reshape(slice(c.grad(), begin, size), c.input(i).shape().dims());
  }
}

/// slice(x, b, s): d = pad(g, [b_k, dim_k - b_k - s_k] per dim): zeros with g pasted in at b
void grad_slice(const GradContext& c, Grads d) {
  const Ints& begin = c.attrs.get<Ints>("begin");
  const Dims& in = c.input(0).shape().dims();
  const Dims& out = c.output().shape().dims();
  Ints paddings;
  for (std::size_t k = 0; k < in.size(); ++k) {
    paddings.push_back(begin[k]);
    paddings.push_back(in[k] - begin[k] - out[k]);
  }
  d[0] = pad(c.grad(), paddings);
}

void register_layout_ops(OpRegistry& r) {
  r.op("reshape").doc("x's elements, in order, with a new shape; one size may be -1 (inferred)").inputs(1)
      .attr<Ints>("shape", true)
      .shape_fn([](ShapeContext& ctx) {
        ctx.output() = TensorMeta{ctx.input(0).dtype, reshape_shape(ctx.input(0).shape, ctx.attrs.get<Ints>("shape"))};
      })
      .kernel(copy_kernel)
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
      .kernel(copy_kernel)
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
      .kernel(copy_kernel)
      .gradient(grad_reshape);

  r.op("identity").doc("x itself (a copy); d = g").inputs(1)
      .shape_fn(same_as_input)
      .kernel(copy_kernel)
      .gradient([](const GradContext& c, Grads d) { d[0] = c.grad(); });

  r.op("stop_gradient").doc("x itself (a copy), invisible to the tape: no gradient flows back through it")
      .inputs(1).traits(trait::not_differentiable)
      .shape_fn(same_as_input)
      .kernel(copy_kernel);
}

void register_joining_ops(OpRegistry& r) {
  r.op("concat").doc("values joined along an existing axis").variadic_inputs(1).same_dtype_inputs(~0u)
      .attr<std::int64_t>("axis", true)
      .shape_fn(concat_shape)
      .kernel(concat_kernel)
      .gradient(grad_concat);

  r.op("stack").doc("values of one shape joined along a new axis in [-rank-1, rank]").variadic_inputs(1)
      .same_dtype_inputs(~0u)
      .attr<std::int64_t>("axis")
      .shape_fn(stack_shape)
      .kernel(stack_kernel)
      .gradient(grad_stack);

  r.op("slice").doc("y = x[begin[0] : begin[0]+size[0], ...]; size -1 runs to the end of the dim").inputs(1)
      .attr<Ints>("begin", true).attr<Ints>("size", true)
      .shape_fn(slice_shape)
      .kernel(slice_kernel)
      .gradient(grad_slice);
}

}  // namespace

void register_array_ops(OpRegistry& r) {
  register_layout_ops(r);
  register_joining_ops(r);
  register_array_ops_2(r);
}

}  // namespace detail

Tensor reshape(const Tensor& x, const Ints& shape) {
  static const OpDef& op = OpRegistry::global().get("reshape");
  return execute(op, {x}, {{"shape", shape}});
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

Tensor concat(const std::vector<Tensor>& values, std::int64_t axis) {
  static const OpDef& op = OpRegistry::global().get("concat");
  return execute(op, std::span<const Tensor>(values), {{"axis", axis}});
}

Tensor stack(const std::vector<Tensor>& values, std::int64_t axis) {
  static const OpDef& op = OpRegistry::global().get("stack");
  return execute(op, std::span<const Tensor>(values), {{"axis", axis}});
}

Tensor slice(const Tensor& x, const Ints& begin, const Ints& size) {
  static const OpDef& op = OpRegistry::global().get("slice");
  return execute(op, {x}, {{"begin", begin}, {"size", size}});
}

}  // namespace tl
