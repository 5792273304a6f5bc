// The backprop ops of the window ops, as in TensorFlow: conv2d_backprop_input / conv2d_backprop_filter (the
// transposes of conv2d w.r.t. its input and its filters: col2im and im2col around one Eigen matmul per group of
// images), max_pool2d_grad (+ its transpose max_pool2d_grad_grad) and avg_pool2d_grad. conv2d's and the pools'
// gradient rules (nn_ops.cpp) call them. All are linear in their gradient operand, so their own gradients are the
// forward op or the other backprop op, and gradients of any order go through conv2d and the pools.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "ops/detail/window.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/nn.h"

namespace tl {
namespace detail {
namespace {

using I64 = std::int64_t;
using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VectorMap = Eigen::Map<Eigen::ArrayXf>;
using ConstVectorMap = Eigen::Map<const Eigen::ArrayXf>;
using Grads = std::span<Tensor>;

// ---------------------------------------------------------------------------------------------------------
// Shape rules: the output is the forward op's input (or filters); out_backprop must have the forward output's shape.

/// An image-size attribute [N, H, W, C]: H and W known, N and C known or -1 (then taken from the other inputs,
/// so a gradient traced with an unknown batch still works).
Ints image_sizes(const ShapeContext& ctx, const char* name) {
  Ints sizes = ctx.attrs.get<Ints>(name);
  TL_CHECK(sizes.size() == 4 && sizes[0] >= -1 && sizes[1] >= 0 && sizes[2] >= 0 && sizes[3] >= -1, InvalidArgument,
           ctx.op.name(), ": ", name, " must be 4 ints [batch, height, width, channels] (batch and channels may be "
           "-1 = from the other inputs), got ", ints_str(sizes));
  return sizes;
}

/// `known` when it is >= 0, else `fallback` (which may be -1 itself).
I64 known_or(I64 known, I64 fallback) { return known >= 0 ? known : fallback; }

/// ShapeError unless input `i` (called `name`) is compatible with `expected`, the forward op's output shape.
void expect_forward_output(const ShapeContext& ctx, std::size_t i, const char* name, const Shape& expected,
                           const std::string& forward) {
  TL_CHECK(ctx.input(i).shape.is_compatible_with(expected), ShapeError, ctx.op.name(), ": ", name, " must have shape ",
           expected.str(), " (the output of ", forward, "), got ", meta_str(ctx.input(i)));
}

/// "conv2d of (1, 3, 3, 1) with filters (2, 2, 1, 1), strides [2, 2], SAME"-style text for messages.
std::string forward_str(const char* forward, const Shape& image, const char* window_name, const Shape& window,
                        const ShapeContext& ctx) {
  return cat(forward, " of ", image.str(), " with ", window_name, " ", window.str(), ", strides ",
             ints_str(ctx.attrs.get_or<Ints>("strides", {1, 1})), ", ",
             ctx.attrs.get_or<std::string>("padding", "VALID"));
}

/// Every input must be a float32 rank-4 tensor.
void float_rank4(ShapeContext& ctx) {
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
    expect_dtype(ctx, i, {DType::float32});
    expect_rank(ctx, i, 4, 4);
  }
}

/// conv2d_backprop_input(filters, out_backprop) -> f32[input_sizes]
void conv2d_backprop_input_shape(ShapeContext& ctx) {
  float_rank4(ctx);
  const Shape& f = ctx.input(0).shape;
  const Shape& dy = ctx.input(1).shape;
  Ints sizes = image_sizes(ctx, "input_sizes");
  Shape image{known_or(sizes[0], dy[0]), sizes[1], sizes[2], known_or(sizes[3], f[2])};
  Shape out = conv2d_output(ctx, image, f);
  expect_forward_output(ctx, 1, "out_backprop", out, forward_str("conv2d", image, "filters", f, ctx));
  ctx.output() = TensorMeta{DType::float32, image};
}

/// conv2d_backprop_filter(input, out_backprop) -> f32[filter_sizes]
void conv2d_backprop_filter_shape(ShapeContext& ctx) {
  float_rank4(ctx);
  const Shape& image = ctx.input(0).shape;
  Ints sizes = ctx.attrs.get<Ints>("filter_sizes");
  TL_CHECK(sizes.size() == 4 && std::all_of(sizes.begin(), sizes.end(), [](I64 d) { return d >= 0; }),
           InvalidArgument, "conv2d_backprop_filter: filter_sizes must be 4 non-negative ints [height, width, "
           "in_channels, out_channels], got ", ints_str(sizes));
  Shape f(sizes);
  Shape out = conv2d_output(ctx, image, f);
  expect_forward_output(ctx, 1, "out_backprop", out, forward_str("conv2d", image, "filters", f, ctx));
  ctx.output() = TensorMeta{DType::float32, f};
}

/// The pool's output shape for an image shape.
Shape pool_output(const ShapeContext& ctx, const Shape& image) {
  auto [kh, kw] = window_hw(ctx.op, ctx.attrs, "ksize", {});
  auto [sh, sw] = window_hw(ctx.op, ctx.attrs, "strides", {});
  bool same = same_padding(ctx.op, ctx.attrs);
  return Shape{image[0], window_dim(image[1], kh, sh, same).out, window_dim(image[2], kw, sw, same).out, image[3]};
}

std::string pool_str(const char* forward, const Shape& image, const ShapeContext& ctx) {
  return cat(forward, " of ", image.str(), " with ksize ", ints_str(ctx.attrs.get<Ints>("ksize")), ", strides ",
             ints_str(ctx.attrs.get<Ints>("strides")), ", ", ctx.attrs.get_or<std::string>("padding", "VALID"));
}

/// max_pool2d_grad(input, output, out_backprop) -> f32[input's shape]
void max_pool2d_grad_shape(ShapeContext& ctx) {
  float_rank4(ctx);
  const Shape& image = ctx.input(0).shape;
  Shape out = pool_output(ctx, image);
  expect_forward_output(ctx, 1, "output", out, pool_str("max_pool2d", image, ctx));
  expect_forward_output(ctx, 2, "out_backprop", out, pool_str("max_pool2d", image, ctx));
  ctx.output() = ctx.input(0);
}

/// max_pool2d_grad_grad(input, output, grad) -> f32[output's shape]
void max_pool2d_grad_grad_shape(ShapeContext& ctx) {
  float_rank4(ctx);
  const Shape& image = ctx.input(0).shape;
  Shape out = pool_output(ctx, image);
  expect_forward_output(ctx, 1, "output", out, pool_str("max_pool2d", image, ctx));
  TL_CHECK(ctx.input(2).shape.is_compatible_with(image), ShapeError, "max_pool2d_grad_grad: grad must have the "
           "input's shape ", image.str(), ", got ", meta_str(ctx.input(2)));
  ctx.output() = TensorMeta{DType::float32, out};
}

/// avg_pool2d_grad(out_backprop) -> f32[input_sizes]
void avg_pool2d_grad_shape(ShapeContext& ctx) {
  float_rank4(ctx);
  const Shape& dy = ctx.input(0).shape;
  Ints sizes = image_sizes(ctx, "input_sizes");
  Shape image{known_or(sizes[0], dy[0]), sizes[1], sizes[2], known_or(sizes[3], dy[3])};
  expect_forward_output(ctx, 0, "out_backprop", pool_output(ctx, image), pool_str("avg_pool2d", image, ctx));
  ctx.output() = TensorMeta{DType::float32, image};
}

// ---------------------------------------------------------------------------------------------------------
// Kernels. Outputs start zeroed; these kernels zero them again because they accumulate.

float* zeroed_output(const KernelContext& ctx) {
  float* out = ctx.output().mutable_data<float>();
  std::fill(out, out + ctx.output().num_elements(), 0.f);
  return out;
}

/// dx = col2im(dy x filters^T), a group of images at a time (images_per_gemm); a 1x1 stride-1 conv needs no col2im.
void conv2d_backprop_input_kernel(KernelContext& ctx) {
  const Tensor& f = ctx.input(0);
  const Tensor& dy = ctx.input(1);
  float* dx = zeroed_output(ctx);
  const WindowPlan p = window_plan(ctx.op, ctx.attrs, ctx.output().shape(), f.shape()[0], f.shape()[1]);
  const I64 depth = p.kh * p.kw * p.channels, out_ch = f.shape()[3];
  if (ctx.output().num_elements() == 0 || dy.num_elements() == 0) return;  // no window or no out_ch: dx = 0
  Eigen::Map<const RowMajorMatrix> filters(f.data<float>(), depth, out_ch);
  if (p.kh == 1 && p.kw == 1 && p.sh == 1 && p.sw == 1) {
    I64 rows = p.batch * p.in_h * p.in_w;
    Eigen::Map<RowMajorMatrix>(dx, rows, depth).noalias() =
        Eigen::Map<const RowMajorMatrix>(dy.data<float>(), rows, out_ch) * filters.transpose();
    return;
  }
  const I64 rows = p.h.out * p.w.out, group = images_per_gemm(p, depth);
  Tensor scratch = Tensor::empty(DType::float32, Shape{group * rows, depth});
  float* cols = scratch.mutable_data<float>();
  for (I64 first = 0; first < p.batch; first += group) {
    const I64 images = std::min(group, p.batch - first);
    Eigen::Map<RowMajorMatrix>(cols, images * rows, depth).noalias() =
        Eigen::Map<const RowMajorMatrix>(dy.data<float>() + first * rows * out_ch, images * rows, out_ch) *
        filters.transpose();
    for (I64 i = 0; i < images; ++i)
      col2im(p, cols + i * rows * depth, dx + (first + i) * p.in_h * p.in_w * p.channels);
  }
}

/// df = sum over images of im2col(x)^T x dy; a 1x1 stride-1 conv needs no im2col.
void conv2d_backprop_filter_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& dy = ctx.input(1);
  const Shape& fs = ctx.output().shape();
  Eigen::Map<RowMajorMatrix> df(zeroed_output(ctx), fs[0] * fs[1] * fs[2], fs[3]);
  const WindowPlan p = window_plan(ctx.op, ctx.attrs, x.shape(), fs[0], fs[1]);
  const I64 depth = df.rows(), out_ch = df.cols();
  if (df.size() == 0 || dy.num_elements() == 0) return;  // no output cell: every sum is empty
  if (p.kh == 1 && p.kw == 1 && p.sh == 1 && p.sw == 1) {
    I64 rows = p.batch * p.in_h * p.in_w;
    df.noalias() = Eigen::Map<const RowMajorMatrix>(x.data<float>(), rows, depth).transpose() *
                   Eigen::Map<const RowMajorMatrix>(dy.data<float>(), rows, out_ch);
    return;
  }
  const I64 rows = p.h.out * p.w.out, group = images_per_gemm(p, depth);
  // padding entries stay 0 for every image
  Tensor scratch = Tensor::empty(DType::float32, Shape{group * rows, depth});
  float* cols = scratch.mutable_data<float>();
  for (I64 first = 0; first < p.batch; first += group) {
    const I64 images = std::min(group, p.batch - first);
    for (I64 i = 0; i < images; ++i)
      im2col(p, x.data<float>() + (first + i) * p.in_h * p.in_w * p.channels, cols + i * rows * depth);
    df.noalias() += Eigen::Map<const RowMajorMatrix>(cols, images * rows, depth).transpose() *
                    Eigen::Map<const RowMajorMatrix>(dy.data<float>() + first * rows * out_ch, images * rows, out_ch);
  }
}

/// True when `v` replaces `best` as a window's max: strictly larger, or the first NaN (max_pool2d propagates NaN).
bool beats(float v, float best) { return v > best || (std::isnan(v) && !std::isnan(best)); }

/// Calls visit(out, in) for every window and channel of max_pool2d over the NHWC batch `x`: `out` indexes the
/// pooled output, `in` the input cell holding the window's max, the FIRST one (row-major in the window) among ties.
template <class Visit>
void for_each_window_max(const WindowPlan& p, const float* x, Visit&& visit) {
  const I64 image_size = p.in_h * p.in_w * p.channels;
  std::vector<I64> best(static_cast<std::size_t>(p.channels));  // per channel: offset of the max in the batch
  for (I64 b = 0; b < p.batch; ++b)
    for (I64 oy = 0; oy < p.h.out; ++oy) {
      auto [y0, y1] = window_cells(oy, p.sh, p.kh, p.h, p.in_h);
      for (I64 ox = 0; ox < p.w.out; ++ox) {
        auto [x0, x1] = window_cells(ox, p.sw, p.kw, p.w, p.in_w);
        for (I64 c = 0; c < p.channels; ++c)
          best[static_cast<std::size_t>(c)] = b * image_size + (y0 * p.in_w + x0) * p.channels + c;
        for (I64 iy = y0; iy < y1; ++iy)
          for (I64 ix = x0; ix < x1; ++ix)
            for (I64 c = 0; c < p.channels; ++c) {
              I64 at = b * image_size + (iy * p.in_w + ix) * p.channels + c;
              I64& arg = best[static_cast<std::size_t>(c)];
              if (beats(x[at], x[arg])) arg = at;
            }
        const I64 out = ((b * p.h.out + oy) * p.w.out + ox) * p.channels;
        for (I64 c = 0; c < p.channels; ++c) visit(out + c, best[static_cast<std::size_t>(c)]);
      }
    }
}

WindowPlan pool_plan(const KernelContext& ctx) {
  auto [kh, kw] = window_hw(ctx.op, ctx.attrs, "ksize", {});
  return window_plan(ctx.op, ctx.attrs, ctx.input(0).shape(), kh, kw);
}

/// dx[max cell of each window] += dy[window]: overlapping windows accumulate.
void max_pool2d_grad_kernel(KernelContext& ctx) {
  float* dx = zeroed_output(ctx);
  const float* dy = ctx.input(2).data<float>();
  for_each_window_max(pool_plan(ctx), ctx.input(0).data<float>(), [&](I64 out, I64 in) { dx[in] += dy[out]; });
}

/// z[window] = grad[max cell of the window]: the transpose of max_pool2d_grad (TF's MaxPoolGradGrad).
void max_pool2d_grad_grad_kernel(KernelContext& ctx) {
  float* z = zeroed_output(ctx);
  const float* grad = ctx.input(2).data<float>();
  for_each_window_max(pool_plan(ctx), ctx.input(0).data<float>(), [&](I64 out, I64 in) { z[out] = grad[in]; });
}

/// For every window, adds dy / (its number of non-padding cells) to each of those cells.
void avg_pool2d_grad_kernel(KernelContext& ctx) {
  auto [kh, kw] = window_hw(ctx.op, ctx.attrs, "ksize", {});
  const WindowPlan p = window_plan(ctx.op, ctx.attrs, ctx.output().shape(), kh, kw);
  float* dx = zeroed_output(ctx);
  const float* dy = ctx.input(0).data<float>();
  Eigen::ArrayXf share(p.channels);
  for (I64 b = 0; b < p.batch; ++b)
    for (I64 oy = 0; oy < p.h.out; ++oy) {
      auto [y0, y1] = window_cells(oy, p.sh, p.kh, p.h, p.in_h);
      for (I64 ox = 0; ox < p.w.out; ++ox) {
        auto [x0, x1] = window_cells(ox, p.sw, p.kw, p.w, p.in_w);
        I64 count = std::max<I64>((y1 - y0) * (x1 - x0), 1);  // >= 1 always (see pool_window in nn_ops.cpp)
        share = ConstVectorMap(dy + ((b * p.h.out + oy) * p.w.out + ox) * p.channels, p.channels) /
                static_cast<float>(count);
        for (I64 iy = y0; iy < y1; ++iy)
          for (I64 ix = x0; ix < x1; ++ix)
            VectorMap(dx + ((b * p.in_h + iy) * p.in_w + ix) * p.channels, p.channels) += share;
      }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Gradients of the linear backprop ops (public ops only): each is the transpose of a forward op, so its
// gradient is that forward op, and the gradient w.r.t. its other operand is the other backprop op.

/// dx = A_f^T dy, so <g, dx> = <conv2d(g, f), dy>: d dy = conv2d(g, f), d f = conv2d_backprop_filter(g, dy)
void grad_conv2d_backprop_input(const GradContext& c, Grads d) {
  const Tensor &f = c.input(0), &dy = c.input(1);
  if (c.needs(0)) d[0] = conv2d_backprop_filter(c.grad(), f.shape().dims(), dy, window_strides(c), window_padding(c));
  if (c.needs(1)) d[1] = conv2d(c.grad(), f, window_strides(c), window_padding(c));
}
/// df = B_x^T dy, so <g, df> = <conv2d(x, g), dy>: d dy = conv2d(x, g), d x = conv2d_backprop_input(g, dy)
void grad_conv2d_backprop_filter(const GradContext& c, Grads d) {
  const Tensor &x = c.input(0), &dy = c.input(1);
  if (c.needs(0)) d[0] = conv2d_backprop_input(x.shape().dims(), c.grad(), dy, window_strides(c), window_padding(c));
  if (c.needs(1)) d[1] = conv2d(x, c.grad(), window_strides(c), window_padding(c));
}
/// dx = M_x^T dy with M_x the (piecewise constant in x) window-max selection: d dy = M_x g, none to x or y
void grad_max_pool2d_grad(const GradContext& c, Grads d) {
  d[0] = zeros_like(c.input(0));
  d[1] = zeros_like(c.input(1));
  d[2] = max_pool2d_grad_grad(c.input(0), c.input(1), c.grad(), c.attrs.get<Ints>("ksize"),
                              c.attrs.get<Ints>("strides"), window_padding(c));
}
/// z = M_x grad, so d grad = M_x^T g = max_pool2d_grad(g), none to x or y
void grad_max_pool2d_grad_grad(const GradContext& c, Grads d) {
  d[0] = zeros_like(c.input(0));
  d[1] = zeros_like(c.input(1));
  d[2] = max_pool2d_grad(c.input(0), c.input(1), c.grad(), c.attrs.get<Ints>("ksize"), c.attrs.get<Ints>("strides"),
                         window_padding(c));
}
/// dx = P^T dy, so d dy = P g = avg_pool2d(g)
void grad_avg_pool2d_grad(const GradContext& c, Grads d) {
  d[0] = avg_pool2d(c.grad(), c.attrs.get<Ints>("ksize"), c.attrs.get<Ints>("strides"), window_padding(c));
}

}  // namespace

void register_nn_grad_ops(OpRegistry& r) {
  r.op("conv2d_backprop_input")
      .doc("gradient of conv2d w.r.t. its NHWC input: conv2d's transpose applied to out_backprop (col2im of "
           "out_backprop x filters^T); inputs filters, out_backprop; attr input_sizes [N, H, W, C]")
      .inputs(2).attr<Ints>("input_sizes", true).attr<Ints>("strides").attr<std::string>("padding")
      .shape_fn(conv2d_backprop_input_shape).kernel(conv2d_backprop_input_kernel)
      .gradient(grad_conv2d_backprop_input);

  r.op("conv2d_backprop_filter")
      .doc("gradient of conv2d w.r.t. its HWIO filters: im2col(input)^T x out_backprop summed over the batch; "
           "inputs input, out_backprop; attr filter_sizes [KH, KW, C, O]")
      .inputs(2).attr<Ints>("filter_sizes", true).attr<Ints>("strides").attr<std::string>("padding")
      .shape_fn(conv2d_backprop_filter_shape).kernel(conv2d_backprop_filter_kernel)
      .gradient(grad_conv2d_backprop_filter);

  r.op("max_pool2d_grad")
      .doc("gradient of max_pool2d: each window's out_backprop goes to the first (row-major) cell of its max, "
           "accumulated where windows overlap, none to padding; inputs input, output, out_backprop")
      .inputs(3).attr<Ints>("ksize", true).attr<Ints>("strides", true).attr<std::string>("padding")
      .shape_fn(max_pool2d_grad_shape).kernel(max_pool2d_grad_kernel).gradient(grad_max_pool2d_grad);

  r.op("max_pool2d_grad_grad")
      .doc("the transpose of max_pool2d_grad: grad (input-shaped) read at each window's first max cell; inputs "
           "input, output, grad")
      .inputs(3).attr<Ints>("ksize", true).attr<Ints>("strides", true).attr<std::string>("padding")
      .shape_fn(max_pool2d_grad_grad_shape).kernel(max_pool2d_grad_grad_kernel).gradient(grad_max_pool2d_grad_grad);

  r.op("avg_pool2d_grad")
      .doc("gradient of avg_pool2d: each window's out_backprop / (its number of non-padding cells) added to "
           "those cells; input out_backprop; attr input_sizes [N, H, W, C]")
      .inputs(1).attr<Ints>("input_sizes", true)
      .attr<Ints>("ksize", true).attr<Ints>("strides", true).attr<std::string>("padding")
      .shape_fn(avg_pool2d_grad_shape).kernel(avg_pool2d_grad_kernel).gradient(grad_avg_pool2d_grad);
}

}  // namespace detail

Tensor conv2d_backprop_input(const Ints& input_sizes, const Tensor& filters, const Tensor& out_backprop,
                             const Ints& strides, const std::string& padding) {
  static const OpDef& op = OpRegistry::global().get("conv2d_backprop_input");
  return execute(op, {filters, out_backprop},
                 Attrs{{"input_sizes", input_sizes}, {"strides", strides}, {"padding", padding}});
}

Tensor conv2d_backprop_filter(const Tensor& input, const Ints& filter_sizes, const Tensor& out_backprop,
                              const Ints& strides, const std::string& padding) {
  static const OpDef& op = OpRegistry::global().get("conv2d_backprop_filter");
  return execute(op, {input, out_backprop},
                 Attrs{{"filter_sizes", filter_sizes}, {"strides", strides}, {"padding", padding}});
}

Tensor max_pool2d_grad(const Tensor& input, const Tensor& output, const Tensor& out_backprop, const Ints& ksize,
                       const Ints& strides, const std::string& padding) {
  static const OpDef& op = OpRegistry::global().get("max_pool2d_grad");
  return execute(op, {input, output, out_backprop},
                 Attrs{{"ksize", ksize}, {"strides", strides}, {"padding", padding}});
}

Tensor max_pool2d_grad_grad(const Tensor& input, const Tensor& output, const Tensor& grad, const Ints& ksize,
                            const Ints& strides, const std::string& padding) {
  static const OpDef& op = OpRegistry::global().get("max_pool2d_grad_grad");
  return execute(op, {input, output, grad}, Attrs{{"ksize", ksize}, {"strides", strides}, {"padding", padding}});
}

Tensor avg_pool2d_grad(const Tensor& out_backprop, const Ints& input_sizes, const Ints& ksize, const Ints& strides,
                       const std::string& padding) {
  static const OpDef& op = OpRegistry::global().get("avg_pool2d_grad");
  return execute(op, {out_backprop},
                 Attrs{{"input_sizes", input_sizes}, {"ksize", ksize}, {"strides", strides}, {"padding", padding}});
}

}  // namespace tl
