// Neural-network ops: softmax / log_softmax, conv2d (im2col + one Eigen matmul per group of images), max / avg pooling.
// Registrations (shape rule + Eigen kernel + gradient) and their public functions (tracelab/ops/nn.h). The
// backprop ops the window ops' gradients call live in nn_grad_ops.cpp, registered from register_nn_ops.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <utility>

#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "ops/detail/window.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/math.h"
#include "tracelab/ops/nn.h"
#include "tracelab/ops/reduce.h"

namespace tl {
namespace detail {
namespace {

using I64 = std::int64_t;
using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMajorArray = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ColMajorArray = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic>;
using VectorMap = Eigen::Map<Eigen::ArrayXf>;
using ConstVectorMap = Eigen::Map<const Eigen::ArrayXf>;

// ---------------------------------------------------------------------------------------------------------
// softmax / log_softmax: the tensor is viewed as (outer, n, inner) with n the softmax axis.

/// softmax (or log_softmax) of every column of `x` into `y`, shifted by the column max so exp cannot overflow.
template <bool Log, class In, class Out>
void softmax_columns(const In& x, Out&& y) {
  y = x.rowwise() - x.colwise().maxCoeff();
  if constexpr (Log) {
    Eigen::Array<float, 1, Eigen::Dynamic> log_total = y.exp().colwise().sum().log();
    y.rowwise() -= log_total;
  } else {
    y = y.exp();
    Eigen::Array<float, 1, Eigen::Dynamic> total = y.colwise().sum();
    y.rowwise() /= total;
  }
}

template <bool Log>
void softmax_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.num_elements() == 0) return;  // a zero-size axis (or any zero dim): empty result
  const Shape& shape = x.shape();
  int axis = normalize_axis(ctx.op.name().c_str(), ctx.attrs.get_or<I64>("axis", -1), shape.rank());
  I64 outer = 1, n = shape[static_cast<std::size_t>(axis)], inner = 1;
  for (int i = 0; i < axis; ++i) outer *= shape[static_cast<std::size_t>(i)];
  for (int i = axis + 1; i < shape.rank(); ++i) inner *= shape[static_cast<std::size_t>(i)];
  const float* in = x.data<float>();
  float* out = ctx.output().mutable_data<float>();
  if (inner == 1) {  // (outer, n) row-major is (n, outer) column-major: one expression for all rows
    softmax_columns<Log>(Eigen::Map<const ColMajorArray>(in, n, outer), Eigen::Map<ColMajorArray>(out, n, outer));
    return;
  }
  for (I64 o = 0; o < outer; ++o)
    softmax_columns<Log>(Eigen::Map<const RowMajorArray>(in + o * n * inner, n, inner),
                         Eigen::Map<RowMajorArray>(out + o * n * inner, n, inner));
}

void softmax_shape(ShapeContext& ctx) {
  expect_dtype(ctx, 0, {DType::float32});
  const Shape& shape = ctx.input(0).shape;
  TL_CHECK(shape.rank() >= 1, ShapeError, ctx.op.name(), ": logits must have rank >= 1, got shape ", shape.str());
  normalize_axis(ctx.op.name().c_str(), ctx.attrs.get_or<I64>("axis", -1), shape.rank());
  same_as_input(ctx);
}

// ---------------------------------------------------------------------------------------------------------
// conv2d: y[b, i, j, o] = sum_{di, dj, c} x[b, i*sh + di - pad_top, j*sw + dj - pad_left, c] * f[di, dj, c, o]

void conv2d_shape(ShapeContext& ctx) {
  for (std::size_t i = 0; i < 2; ++i) {
    expect_dtype(ctx, i, {DType::float32});
    expect_rank(ctx, i, 4, 4);
  }
  ctx.output() = TensorMeta{DType::float32, conv2d_output(ctx, ctx.input(0).shape, ctx.input(1).shape)};
}

void conv2d_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& f = ctx.input(1);
  const Tensor& y = ctx.output();
  const WindowPlan p = window_plan(ctx.op, ctx.attrs, x.shape(), f.shape()[0], f.shape()[1]);
  const I64 depth = p.kh * p.kw * p.channels, out_ch = f.shape()[3];
  if (y.num_elements() == 0 || depth == 0) return;  // no in_channels: every sum is empty, y stays 0
  Eigen::Map<const RowMajorMatrix> filters(f.data<float>(), depth, out_ch);
  if (p.kh == 1 && p.kw == 1 && p.sh == 1 && p.sw == 1) {  // 1x1 conv: the images already are im2col's rows
    I64 rows = p.batch * p.in_h * p.in_w;
    Eigen::Map<RowMajorMatrix>(y.mutable_data<float>(), rows, out_ch).noalias() =
        Eigen::Map<const RowMajorMatrix>(x.data<float>(), rows, depth) * filters;
    return;
  }
  const I64 rows = p.h.out * p.w.out, group = images_per_gemm(p, depth);
  // zeroed (padding entries stay 0 for every image); OutOfMemory, never an abort
  Tensor scratch = Tensor::empty(DType::float32, Shape{group * rows, depth});
  float* cols = scratch.mutable_data<float>();
  for (I64 first = 0; first < p.batch; first += group) {
    const I64 images = std::min(group, p.batch - first);
    for (I64 i = 0; i < images; ++i)
      im2col(p, x.data<float>() + (first + i) * p.in_h * p.in_w * p.channels, cols + i * rows * depth);
    Eigen::Map<RowMajorMatrix>(y.mutable_data<float>() + first * rows * out_ch, images * rows, out_ch).noalias() =
        Eigen::Map<const RowMajorMatrix>(cols, images * rows, depth) * filters;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Pooling: y[b, i, j, c] = max (or mean) of x[b, ., ., c] over the non-padding cells of window (i, j).

void pool_shape(ShapeContext& ctx) {
  expect_dtype(ctx, 0, {DType::float32});
  expect_rank(ctx, 0, 4, 4);
  auto [kh, kw] = window_hw(ctx.op, ctx.attrs, "ksize", {});
  auto [sh, sw] = window_hw(ctx.op, ctx.attrs, "strides", {});
  bool same = same_padding(ctx.op, ctx.attrs);
  const Shape& in = ctx.input(0).shape;
  ctx.output() = TensorMeta{
      DType::float32, Shape{in[0], window_dim(in[1], kh, sh, same).out, window_dim(in[2], kw, sw, same).out, in[3]}};
}

/// NaN-propagating max (the same answer natively and in WASM, where SIMD max may drop a NaN).
float max_nan(float a, float b) { return (b > a || std::isnan(b)) ? b : a; }

/// Max or mean over the input cells [y0, y1) x [x0, x1) of one image into `acc` (one value per channel).
template <bool Max>
void pool_window(const WindowPlan& p, const float* image, std::pair<I64, I64> ys, std::pair<I64, I64> xs,
                 VectorMap acc) {
  acc.setConstant(Max ? -std::numeric_limits<float>::infinity() : 0.f);  // outputs may be reused buffers
  for (I64 iy = ys.first; iy < ys.second; ++iy)
    for (I64 ix = xs.first; ix < xs.second; ++ix) {
      ConstVectorMap cell(image + (iy * p.in_w + ix) * p.channels, p.channels);
      if constexpr (Max) acc = acc.binaryExpr(cell, [](float a, float b) { return max_nan(a, b); });
      else acc += cell;
    }
  // SAME windows always overlap the input (pad_before < k and (out - 1) * s < in), so count >= 1.
  I64 count = (ys.second - ys.first) * (xs.second - xs.first);
  if (!Max) acc /= static_cast<float>(std::max<I64>(count, 1));
}

template <bool Max>
void pool_kernel(KernelContext& ctx) {
  auto [kh, kw] = window_hw(ctx.op, ctx.attrs, "ksize", {});
  const WindowPlan p = window_plan(ctx.op, ctx.attrs, ctx.input(0).shape(), kh, kw);
  if (ctx.output().num_elements() == 0) return;
  const float* x = ctx.input(0).data<float>();
  float* y = ctx.output().mutable_data<float>();
  for (I64 b = 0; b < p.batch; ++b) {
    const float* image = x + b * p.in_h * p.in_w * p.channels;
    for (I64 oy = 0; oy < p.h.out; ++oy) {
      auto ys = window_cells(oy, p.sh, p.kh, p.h, p.in_h);
      for (I64 ox = 0; ox < p.w.out; ++ox) {
        float* out = y + ((b * p.h.out + oy) * p.w.out + ox) * p.channels;
        pool_window<Max>(p, image, ys, window_cells(ox, p.sw, p.kw, p.w, p.in_w), VectorMap(out, p.channels));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Gradient rules (public ops only). The window ops' rules call the backprop ops of nn_grad_ops.cpp.

using Grads = std::span<Tensor>;

I64 axis_attr(const GradContext& c) { return c.attrs.get_or<I64>("axis", -1); }

/// d softmax = y * (g - sum(g * y)), the sum along the softmax axis
void grad_softmax(const GradContext& c, Grads d) {
  const Tensor& y = c.output();
  d[0] = y * (c.grad() - reduce_sum(c.grad() * y, {axis_attr(c)}, /*keepdims=*/true));
}
/// d log_softmax = g - softmax(x) * sum(g), with softmax(x) = exp(y), the sum along the axis
void grad_log_softmax(const GradContext& c, Grads d) {
  d[0] = c.grad() - exp(c.output()) * reduce_sum(c.grad(), {axis_attr(c)}, /*keepdims=*/true);
}
/// d conv2d(x, f) = (conv2d_backprop_input(g, f), conv2d_backprop_filter(x, g)): the two transposes, each only when
/// its gradient is needed (an image that is data, not a variable, gets none)
void grad_conv2d(const GradContext& c, Grads d) {
  const Tensor &x = c.input(0), &f = c.input(1);
  if (c.needs(0)) d[0] = conv2d_backprop_input(x.shape().dims(), f, c.grad(), window_strides(c), window_padding(c));
  if (c.needs(1)) d[1] = conv2d_backprop_filter(x, f.shape().dims(), c.grad(), window_strides(c), window_padding(c));
}
/// d max_pool2d: each window's g goes to the first position of its max (TF's CPU choice for ties)
void grad_max_pool2d(const GradContext& c, Grads d) {
  d[0] = max_pool2d_grad(c.input(0), c.output(), c.grad(), c.attrs.get<Ints>("ksize"), c.attrs.get<Ints>("strides"),
                         window_padding(c));
}
/// d avg_pool2d: each window's g / (its number of non-padding cells) spread over those cells
void grad_avg_pool2d(const GradContext& c, Grads d) {
  d[0] = avg_pool2d_grad(c.grad(), c.input(0).shape().dims(), c.attrs.get<Ints>("ksize"),
                         c.attrs.get<Ints>("strides"), window_padding(c));
}

}  // namespace

void register_nn_ops(OpRegistry& r) {
  r.op("softmax").doc("exp(x - max) / sum(exp(x - max)) along axis").inputs(1).attr<I64>("axis")
      .shape_fn(softmax_shape).kernel(softmax_kernel<false>).gradient(grad_softmax);

  r.op("log_softmax").doc("x - max - log(sum(exp(x - max))) along axis").inputs(1).attr<I64>("axis")
      .shape_fn(softmax_shape).kernel(softmax_kernel<true>).gradient(grad_log_softmax);

  r.op("conv2d").doc("2-D cross-correlation of NHWC input with HWIO filters (im2col + matmul)").inputs(2)
      .attr<Ints>("strides").attr<std::string>("padding")
      .shape_fn(conv2d_shape).kernel(conv2d_kernel).gradient(grad_conv2d);

  r.op("max_pool2d").doc("max of x over each ksize window of an NHWC input (padding ignored)").inputs(1)
      .attr<Ints>("ksize", true).attr<Ints>("strides", true).attr<std::string>("padding")
      .shape_fn(pool_shape).kernel(pool_kernel<true>).gradient(grad_max_pool2d);

  r.op("avg_pool2d").doc("mean of x over the non-padding cells of each ksize window (NHWC)").inputs(1)
      .attr<Ints>("ksize", true).attr<Ints>("strides", true).attr<std::string>("padding")
      .shape_fn(pool_shape).kernel(pool_kernel<false>).gradient(grad_avg_pool2d);

  register_nn_grad_ops(r);
}

}  // namespace detail

Tensor softmax(const Tensor& logits, std::int64_t axis) {
  static const OpDef& op = OpRegistry::global().get("softmax");
  return execute(op, {logits}, Attrs{{"axis", axis}});
}

Tensor log_softmax(const Tensor& logits, std::int64_t axis) {
  static const OpDef& op = OpRegistry::global().get("log_softmax");
  return execute(op, {logits}, Attrs{{"axis", axis}});
}

Tensor conv2d(const Tensor& input, const Tensor& filters, const Ints& strides, const std::string& padding) {
  static const OpDef& op = OpRegistry::global().get("conv2d");
  return execute(op, {input, filters}, Attrs{{"strides", strides}, {"padding", padding}});
}

Tensor max_pool2d(const Tensor& input, const Ints& ksize, const Ints& strides, const std::string& padding) {
  static const OpDef& op = OpRegistry::global().get("max_pool2d");
  return execute(op, {input}, Attrs{{"ksize", ksize}, {"strides", strides}, {"padding", padding}});
}

Tensor avg_pool2d(const Tensor& input, const Ints& ksize, const Ints& strides, const std::string& padding) {
  static const OpDef& op = OpRegistry::global().get("avg_pool2d");
  return execute(op, {input}, Attrs{{"ksize", ksize}, {"strides", strides}, {"padding", padding}});
}

}  // namespace tl
