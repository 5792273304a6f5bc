// Array ops, part 2 — selecting, padding, converting and filling: gather, one_hot, pad, cast, zeros_like,
// ones_like. Registered from register_array_ops (array_ops.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ops/detail/array_common.h"
#include "ops/detail/elementwise.h"
#include "ops/detail/rules.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/array.h"

namespace tl {
namespace detail {
namespace {

using I32 = std::int32_t;
constexpr std::int64_t kMaxDim = std::numeric_limits<std::int64_t>::max();

/// A double attribute (one_hot's on/off values, pad's constant) as an element of type T, without UB:
/// float32 rounds (beyond its range: +-inf); int32 must be a whole number in range; bool is != 0.
template <class T>
T element_from(const char* op, const char* name, double value) {
  if constexpr (std::is_same_v<T, float>) {
    constexpr double max = std::numeric_limits<float>::max();
    if (value > max) return std::numeric_limits<float>::infinity();
    if (value < -max) return -std::numeric_limits<float>::infinity();
    return static_cast<float>(value);
  } else if constexpr (std::is_same_v<T, I32>) {
    TL_CHECK(value == std::trunc(value) && value >= INT32_MIN && value <= INT32_MAX, InvalidArgument, op, ": ",
             name, " ", value, " is not a whole number in the int32 range");
    return static_cast<I32>(value);
  } else {
    return value != 0;
  }
}

/// float32 -> int32 as Tracelab defines it: truncation toward zero, saturating at the int32 limits, NaN -> 0.
/// TensorFlow leaves NaN and out-of-range values implementation-defined (x86 gives INT32_MIN for all of them).
I32 saturate_to_i32(float value) {
  if (std::isnan(value)) return 0;
  if (value >= 2147483648.f) return std::numeric_limits<I32>::max();
  if (value <= -2147483648.f) return std::numeric_limits<I32>::min();
  return static_cast<I32>(value);
}

/// out = cast<To>(in) elementwise, for one pair of element types.
template <class From, class To>
void cast_elements(const Tensor& in, const Tensor& out) {
  if constexpr (std::is_same_v<From, To>) {
    std::copy_n(in.data<From>(), in.num_elements(), out.mutable_data<To>());
  } else if constexpr (std::is_same_v<To, bool>) {
    unary_map<From, bool>(in, out, [](const auto& x) { return x != From(0); });  // NaN -> true, as in TF
  } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, I32>) {
    auto saturate = [](float v) { return saturate_to_i32(v); };
    unary_map<float, I32>(in, out, [&](const auto& x) { return x.unaryExpr(saturate); });
  } else {
    unary_map<From, To>(in, out, [](const auto& x) { return x.template cast<To>(); });
  }
}

/// Gather's rule: params of rank >= 1, int32 indices; shape params[:axis] + indices.shape + params[axis+1:].
void gather_shape(ShapeContext& ctx) {
  const TensorMeta& params = ctx.input(0);
  TL_CHECK(params.shape.rank() >= 1, ShapeError, "gather: params must have rank >= 1, got ", meta_str(params));
  expect_dtype(ctx, 1, {DType::int32});
  auto axis = static_cast<std::size_t>(
      normalize_axis("gather", ctx.attrs.get_or<std::int64_t>("axis", 0), params.shape.rank()));
  const Dims& p = params.shape.dims();
  Dims dims(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(axis));
  const Dims& i = ctx.input(1).shape.dims();
  dims.insert(dims.end(), i.begin(), i.end());
  dims.insert(dims.end(), p.begin() + static_cast<std::ptrdiff_t>(axis) + 1, p.end());
  ctx.output() = TensorMeta{params.dtype, Shape(std::move(dims))};
}

/// Gather's kernel: every index is checked (InvalidArgument, like TF on CPU) before rows are copied.
void gather_kernel(KernelContext& ctx) {
  const Tensor& params = ctx.input(0);
  const Dims& p = params.shape().dims();
  auto axis = static_cast<std::size_t>(
      normalize_axis("gather", ctx.attrs.get_or<std::int64_t>("axis", 0), params.rank()));
  const std::int64_t outer = product(p, 0, axis), size = p[axis], inner = product(p, axis + 1, p.size());
  const std::int64_t count = ctx.input(1).num_elements();
  const I32* index = ctx.input(1).data<I32>();
  for (std::int64_t j = 0; j < count; ++j)
    TL_CHECK(index[j] >= 0 && index[j] < size, InvalidArgument, "gather: indices[", j, "] = ", index[j],
             " is not in [0, ", size, ") (params ", params.shape().str(), ", axis ", axis, ")");
  if (ctx.output().num_elements() == 0) return;
  visit_dtype(params.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = params.data<T>();
    T* dst = ctx.output().mutable_data<T>();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t j = 0; j < count; ++j)
        std::copy_n(src + (o * size + index[j]) * inner, inner, dst + (o * count + j) * inner);
  });
}

/// The new dim's position in one_hot's output, from the axis attribute (-1 or [0, rank]).
std::size_t one_hot_axis(const ShapeContext& ctx) {
  const int rank = ctx.input(0).shape.rank();
  auto axis = ctx.attrs.get_or<std::int64_t>("axis", -1);
  TL_CHECK(axis >= -1 && axis <= rank, InvalidArgument, "one_hot: axis ", axis, " is out of range for indices ",
           meta_str(ctx.input(0)), " (expected -1 or 0 <= axis <= ", rank, ")");
  return static_cast<std::size_t>(axis < 0 ? rank : axis);
}

/// One-hot's rule: int32 indices, depth >= 0, on/off values that fit the dtype; depth is inserted at the axis.
void one_hot_shape(ShapeContext& ctx) {
  expect_dtype(ctx, 0, {DType::int32});
  auto depth = ctx.attrs.get<std::int64_t>("depth");
  TL_CHECK(depth >= 0, InvalidArgument, "one_hot: depth must be non-negative, got ", depth);
  DType dtype = ctx.attrs.get_or("dtype", DType::float32);
  visit_dtype(dtype, [&](auto tag) {
    element_from<decltype(tag)>("one_hot", "on_value", ctx.attrs.get_or("on_value", 1.0));
    element_from<decltype(tag)>("one_hot", "off_value", ctx.attrs.get_or("off_value", 0.0));
  });
  Dims dims = ctx.input(0).shape.dims();
  dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(one_hot_axis(ctx)), depth);
  ctx.output() = TensorMeta{dtype, Shape(std::move(dims))};
}

/// One-hot's kernel: the output, seen as [outer, depth, inner], is off_value except at the indexed positions.
template <class T>
void one_hot_fill(KernelContext& ctx, std::size_t axis) {
  const Dims& in = ctx.input(0).shape().dims();
  const std::int64_t outer = product(in, 0, axis), inner = product(in, axis, in.size());
  const std::int64_t depth = ctx.attrs.get<std::int64_t>("depth");
  const T on = element_from<T>("one_hot", "on_value", ctx.attrs.get_or("on_value", 1.0));
  const T off = element_from<T>("one_hot", "off_value", ctx.attrs.get_or("off_value", 0.0));
  T* out = ctx.output().mutable_data<T>();
  std::fill_n(out, ctx.output().num_elements(), off);
  if (ctx.output().num_elements() == 0) return;
  const I32* index = ctx.input(0).data<I32>();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      I32 v = index[o * inner + i];
      if (v >= 0 && v < depth) out[(o * depth + v) * inner + i] = on;
    }
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

/// Registers zeros_like / ones_like: x's dtype and shape, filled with `value` (no gradient, as in TF).
void register_fill_like(OpRegistry& r, const char* name, const char* doc, int value) {
  r.op(name).doc(doc).inputs(1).traits(trait::not_differentiable)
      .shape_fn(same_as_input)
      .kernel([value](KernelContext& ctx) {
        visit_dtype(ctx.output().dtype(), [&](auto tag) {
          using T = decltype(tag);
          std::fill_n(ctx.output().mutable_data<T>(), ctx.output().num_elements(), static_cast<T>(value));
        });
      });
}

}  // namespace

void register_array_ops_2(OpRegistry& r) {
  r.op("gather").doc("y[p..., i..., q...] = params[p..., indices[i...], q...] along axis").inputs(2)
      .attr<std::int64_t>("axis")
      .shape_fn(gather_shape)
      .kernel(gather_kernel);

  r.op("one_hot").doc("y[..., d, ...] = indices[...] == d ? on_value : off_value, d in [0, depth)").inputs(1)
      .traits(trait::not_differentiable)
      .attr<std::int64_t>("depth", true).attr<double>("on_value").attr<double>("off_value")
      .attr<std::int64_t>("axis").attr<DType>("dtype")
      .shape_fn(one_hot_shape)
      .kernel([](KernelContext& ctx) {
        auto axis = ctx.attrs.get_or<std::int64_t>("axis", -1);
        auto a = static_cast<std::size_t>(axis < 0 ? ctx.input(0).rank() : axis);
        visit_dtype(ctx.output().dtype(), [&](auto tag) { one_hot_fill<decltype(tag)>(ctx, a); });
      });

  r.op("pad").doc("x surrounded by constant_value: paddings[2k] before and paddings[2k+1] after dim k").inputs(1)
      .attr<Ints>("paddings", true).attr<double>("constant_value")
      .shape_fn(pad_shape)
      .kernel([](KernelContext& ctx) {
        visit_dtype(ctx.input(0).dtype(), [&](auto tag) { pad_fill<decltype(tag)>(ctx); });
      });

  // Differentiable as an op, but the gradient (added with autodiff) returns none unless the target is float32:
  // traits are static per op, and cast-to-float32 must stay differentiable.
  r.op("cast").doc("x converted to dtype; float -> int32 truncates and saturates (NaN -> 0); to bool is x != 0")
      .inputs(1).attr<DType>("dtype", true)
      .shape_fn([](ShapeContext& ctx) {
        ctx.output() = TensorMeta{ctx.attrs.get<DType>("dtype"), ctx.input(0).shape};
      })
      .kernel([](KernelContext& ctx) {
        visit_dtype(ctx.input(0).dtype(), [&](auto from) {
          visit_dtype(ctx.output().dtype(), [&](auto to) {
            cast_elements<decltype(from), decltype(to)>(ctx.input(0), ctx.output());
          });
        });
      });

  register_fill_like(r, "zeros_like", "zeros of x's dtype and shape", 0);
  register_fill_like(r, "ones_like", "ones (true) of x's dtype and shape", 1);
}

}  // namespace detail

Tensor gather(const Tensor& params, const Tensor& indices, std::int64_t axis) {
  static const OpDef& op = OpRegistry::global().get("gather");
  return execute(op, {params, indices}, {{"axis", axis}});
}

Tensor one_hot(const Tensor& indices, std::int64_t depth, double on_value, double off_value, std::int64_t axis,
               DType dtype) {
  static const OpDef& op = OpRegistry::global().get("one_hot");
  return execute(op, {indices},
                 {{"depth", depth}, {"on_value", on_value}, {"off_value", off_value}, {"axis", axis},
                  {"dtype", dtype}});
}

Tensor pad(const Tensor& x, const Ints& paddings, double constant_value) {
  static const OpDef& op = OpRegistry::global().get("pad");
  return execute(op, {x}, {{"paddings", paddings}, {"constant_value", constant_value}});
}

Tensor cast(const Tensor& x, DType dtype) {
  static const OpDef& op = OpRegistry::global().get("cast");
  return execute(op, {x}, {{"dtype", dtype}});
}

Tensor zeros_like(const Tensor& x) {
  static const OpDef& op = OpRegistry::global().get("zeros_like");
  return execute(op, {x});
}

Tensor ones_like(const Tensor& x) {
  static const OpDef& op = OpRegistry::global().get("ones_like");
  return execute(op, {x});
}

}  // namespace tl
