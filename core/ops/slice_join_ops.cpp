// Slicing and joining ops: a box cut out of x (slice) or x inside a larger box of a constant (pad), and values
// put side by side along an existing axis (concat) or a new one (stack). The kernels are block and strided
// copies; each gradient moves g back with the opposite op (slice <-> pad; concat and stack -> slices of g).
#include <algorithm>
#include <cstdint>
#include <limits>
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

constexpr std::int64_t kMaxDim = std::numeric_limits<std::int64_t>::max();

/// Merges one dim of two shapes that must agree: a known size wins over unknown; two known sizes must be equal.
bool merge_dim(std::int64_t& into, std::int64_t other) {
  if (into < 0) into = other;
  return other < 0 || into == other;
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

/// Pad's rule: paddings holds 2 * rank non-negative entries; each dim grows by its before + after.
void pad_shape(ShapeContext& ctx) {
  const TensorMeta& in = ctx.input(0);
  const Ints& paddings = ctx.attrs.get<Ints>("paddings");
  const auto rank = static_cast<std::size_t>(in.shape.rank());
  TL_CHECK(paddings.size() == 2 * rank, InvalidArgument, "pad: paddings ", ints_str(paddings), " must have 2 * rank = ",
           2 * rank, " entries (before, after per dim) for ", meta_str(in));
  visit_dtype(in.dtype, [&](auto tag) {
    element_from<decltype(tag)>("pad", "constant_value", ctx.attrs.get_or("constant_value", 0.0));
  });
  Dims dims(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    std::int64_t before = paddings[2 * k], after = paddings[2 * k + 1], d = in.shape[k];
    TL_CHECK(before >= 0 && after >= 0, InvalidArgument, "pad: paddings must be non-negative, got ",
             ints_str(paddings), " for ", meta_str(in));
    TL_CHECK(d < 0 || (before <= kMaxDim - d && after <= kMaxDim - d - before), OutOfMemory, "pad: padding ",
             meta_str(in), " by ", ints_str(paddings), " gives a dim too large to count");
    dims[k] = d < 0 ? -1 : d + before + after;
  }
  ctx.output() = TensorMeta{in.dtype, Shape(std::move(dims))};
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

/// Pad's kernel: fill with the constant, then copy x into the box starting at the `before` paddings.
template <class T>
void pad_fill(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& out = ctx.output();
  const Ints& paddings = ctx.attrs.get<Ints>("paddings");
  T value = element_from<T>("pad", "constant_value", ctx.attrs.get_or("constant_value", 0.0));
  std::fill_n(out.mutable_data<T>(), out.num_elements(), value);
  if (x.num_elements() == 0) return;
  Dims out_strides = out.shape().strides();
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < out_strides.size(); ++k) offset += paddings[2 * k] * out_strides[k];
  strided_copy(x.data<T>(), x.shape().strides(), out.mutable_data<T>() + offset, out_strides, x.shape().dims());
}

// ---- gradient rules: the upstream gradient g moved back to each input's box; public ops only ----
using Grads = std::span<Tensor>;

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

/// pad(x, p): d = slice(g, the before paddings, x.shape)
void grad_pad(const GradContext& c, Grads d) {
  const Ints& paddings = c.attrs.get<Ints>("paddings");
  Ints begin;
  for (std::size_t k = 0; k < paddings.size(); k += 2) begin.push_back(paddings[k]);
  d[0] = slice(c.grad(), begin, c.input(0).shape().dims());
}

}  // namespace

void register_slice_join_ops(OpRegistry& r) {
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

  r.op("pad").doc("x surrounded by constant_value: paddings[2k] before and paddings[2k+1] after dim k").inputs(1)
      .attr<Ints>("paddings", true).attr<double>("constant_value")
      .shape_fn(pad_shape)
      .kernel([](KernelContext& ctx) {
        visit_dtype(ctx.input(0).dtype(), [&](auto tag) { pad_fill<decltype(tag)>(ctx); });
      })
      .gradient(grad_pad);
}

}  // namespace detail

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

Tensor pad(const Tensor& x, const Ints& paddings, double constant_value) {
  static const OpDef& op = OpRegistry::global().get("pad");
  return execute(op, {x}, {{"paddings", paddings}, {"constant_value", constant_value}});
}

}  // namespace tl
