// Neural-network ops: softmax / log_softmax, conv2d (im2col + one Eigen matmul per image), max / avg pooling.
// Registrations (shape rule + Eigen kernel) and the public functions of tracelab/ops/nn.h.
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/nn.h"

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
// Sliding windows (conv2d, pooling): attributes and TensorFlow's output-size / padding rule.

std::string ints_str(const Ints& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

/// {h, w} of a window attribute ("strides" or "ksize"): 1 int (both), 2 ints, or 4 ints [1, h, w, 1] as in TF.
std::array<I64, 2> window_hw(const OpDef& op, const Attrs& attrs, const char* name, const Ints& fallback) {
  Ints v = attrs.get_or<Ints>(name, fallback);
  TL_CHECK(v.size() == 1 || v.size() == 2 || v.size() == 4, InvalidArgument, op.name(), ": ", name,
           " must have 1, 2 or 4 elements, got ", ints_str(v));
  TL_CHECK(v.size() != 4 || (v[0] == 1 && v[3] == 1), InvalidArgument, op.name(), ": ", name,
           " must be 1 in the batch and channel dims, got ", ints_str(v));
  std::array<I64, 2> hw = v.size() == 1 ? std::array<I64, 2>{v[0], v[0]}
                          : v.size() == 2 ? std::array<I64, 2>{v[0], v[1]}
                                          : std::array<I64, 2>{v[1], v[2]};
  TL_CHECK(hw[0] >= 1 && hw[1] >= 1, InvalidArgument, op.name(), ": ", name, " must be positive, got ",
           ints_str(v));
  return hw;
}

/// True for "SAME", false for "VALID"; anything else is an InvalidArgument.
bool same_padding(const OpDef& op, const Attrs& attrs) {
  std::string padding = attrs.get_or<std::string>("padding", "VALID");
  TL_CHECK(padding == "VALID" || padding == "SAME", InvalidArgument, op.name(),
           ": padding must be \"VALID\" or \"SAME\", got \"", padding, "\"");
  return padding == "SAME";
}

/// One spatial dim of a window: output size and the padding before the first cell (-1 size when unknown).
struct WindowDim {
  I64 out;
  I64 pad_before;
};

/// TF's rule. VALID: out = ceil((in - k + 1) / s), 0 when the window does not fit. SAME: out = ceil(in / s),
/// padded by pad_total = max((out - 1) * s + k - in, 0), of which pad_total / 2 goes before (the extra after).
WindowDim window_dim(I64 in, I64 k, I64 s, bool same) {
  if (in < 0 || k < 0) return {-1, 0};
  if (!same) return {in < k ? 0 : (in - k) / s + 1, 0};
  I64 out = in / s + (in % s != 0 ? 1 : 0);
  if (out == 0) return {0, 0};
  I64 covered = in - (out - 1) * s;  // in (0, s]: written this way (out - 1) * s + k cannot overflow
  return {out, std::max<I64>(k - covered, 0) / 2};
}

/// The input cells [first, last) that window `o` covers along one dim, padding cells cut off.
std::pair<I64, I64> window_cells(I64 o, I64 s, I64 k, const WindowDim& dim, I64 in) {
  I64 start = o * s - dim.pad_before;
  I64 end = k >= in - start ? in : start + k;
  return {std::max<I64>(start, 0), end};
}

/// Everything a conv or pool kernel needs about its NHWC input and window.
struct WindowPlan {
  I64 batch, in_h, in_w, channels;
  I64 kh, kw, sh, sw;
  WindowDim h, w;
};

WindowPlan window_plan(const KernelContext& ctx, I64 kh, I64 kw) {
  const Shape& s = ctx.input(0).shape();
  auto [sh, sw] = window_hw(ctx.op, ctx.attrs, "strides", {1, 1});
  bool same = same_padding(ctx.op, ctx.attrs);
  return {s[0], s[1], s[2], s[3], kh, kw, sh, sw, window_dim(s[1], kh, sh, same), window_dim(s[2], kw, sw, same)};
}

// ---------------------------------------------------------------------------------------------------------
// conv2d: y[b, i, j, o] = sum_{di, dj, c} x[b, i*sh + di - pad_top, j*sw + dj - pad_left, c] * f[di, dj, c, o]

void conv2d_shape(ShapeContext& ctx) {
  for (std::size_t i = 0; i < 2; ++i) {
    expect_dtype(ctx, i, {DType::float32});
    expect_rank(ctx, i, 4, 4);
  }
  const Shape& in = ctx.input(0).shape;
  const Shape& f = ctx.input(1).shape;
  TL_CHECK(in[3] < 0 || f[2] < 0 || in[3] == f[2], ShapeError,
           "conv2d: input channels must equal the filters' in_channels, got input ", in.str(),
           " (NHWC) and filters ", f.str(), " (HWIO)");
  TL_CHECK(f[0] != 0 && f[1] != 0, InvalidArgument, "conv2d: the filter window must not be empty, got filters ",
           f.str());
  auto [sh, sw] = window_hw(ctx.op, ctx.attrs, "strides", {1, 1});
  bool same = same_padding(ctx.op, ctx.attrs);
  ctx.output() = TensorMeta{DType::float32,
                            Shape{in[0], window_dim(in[1], f[0], sh, same).out, window_dim(in[2], f[1], sw, same).out,
                                  f[3]}};
}

/// Copies every receptive field of one NHWC image into a row of `cols` (padding cells stay 0).
void im2col(const WindowPlan& p, const float* image, float* cols) {
  const I64 row_size = p.kh * p.kw * p.channels;
  for (I64 oy = 0; oy < p.h.out; ++oy) {
    auto [y0, y1] = window_cells(oy, p.sh, p.kh, p.h, p.in_h);
    I64 ky0 = y0 - (oy * p.sh - p.h.pad_before);
    for (I64 ox = 0; ox < p.w.out; ++ox) {
      auto [x0, x1] = window_cells(ox, p.sw, p.kw, p.w, p.in_w);
      I64 kx0 = x0 - (ox * p.sw - p.w.pad_before);
      float* row = cols + (oy * p.w.out + ox) * row_size;
      for (I64 iy = y0; iy < y1; ++iy) {  // the covered cells of one input row are contiguous: one copy
        const float* src = image + (iy * p.in_w + x0) * p.channels;
        std::copy(src, src + (x1 - x0) * p.channels, row + ((ky0 + iy - y0) * p.kw + kx0) * p.channels);
      }
    }
  }
}

void conv2d_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& f = ctx.input(1);
  const Tensor& y = ctx.output();
  const WindowPlan p = window_plan(ctx, f.shape()[0], f.shape()[1]);
  const I64 depth = p.kh * p.kw * p.channels, out_ch = f.shape()[3];
  if (y.num_elements() == 0 || depth == 0) return;  // no in_channels: every sum is empty, y stays 0
  Eigen::Map<const RowMajorMatrix> filters(f.data<float>(), depth, out_ch);
  if (p.kh == 1 && p.kw == 1 && p.sh == 1 && p.sw == 1) {  // 1x1 conv: the images already are im2col's rows
    I64 rows = p.batch * p.in_h * p.in_w;
    Eigen::Map<RowMajorMatrix>(y.mutable_data<float>(), rows, out_ch).noalias() =
        Eigen::Map<const RowMajorMatrix>(x.data<float>(), rows, depth) * filters;
    return;
  }
  const I64 rows = p.h.out * p.w.out;
  Tensor scratch = Tensor::empty(DType::float32, Shape{rows, depth});  // zeroed; OutOfMemory, never an abort
  float* cols = scratch.mutable_data<float>();
  for (I64 b = 0; b < p.batch; ++b) {
    im2col(p, x.data<float>() + b * p.in_h * p.in_w * p.channels, cols);
    Eigen::Map<RowMajorMatrix>(y.mutable_data<float>() + b * rows * out_ch, rows, out_ch).noalias() =
        Eigen::Map<const RowMajorMatrix>(cols, rows, depth) * filters;
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
  if (Max) acc.setConstant(-std::numeric_limits<float>::infinity());
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
  const WindowPlan p = window_plan(ctx, kh, kw);
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

}  // namespace

void register_nn_ops(OpRegistry& r) {
  r.op("softmax").doc("exp(x - max) / sum(exp(x - max)) along axis").inputs(1).attr<I64>("axis")
      .shape_fn(softmax_shape).kernel(softmax_kernel<false>);

  r.op("log_softmax").doc("x - max - log(sum(exp(x - max))) along axis").inputs(1).attr<I64>("axis")
      .shape_fn(softmax_shape).kernel(softmax_kernel<true>);

  r.op("conv2d").doc("2-D cross-correlation of NHWC input with HWIO filters (im2col + matmul)").inputs(2)
      .attr<Ints>("strides").attr<std::string>("padding")
      .shape_fn(conv2d_shape).kernel(conv2d_kernel);

  r.op("max_pool2d").doc("max of x over each ksize window of an NHWC input (padding ignored)").inputs(1)
      .attr<Ints>("ksize", true).attr<Ints>("strides", true).attr<std::string>("padding")
      .shape_fn(pool_shape).kernel(pool_kernel<true>);

  r.op("avg_pool2d").doc("mean of x over the non-padding cells of each ksize window (NHWC)").inputs(1)
      .attr<Ints>("ksize", true).attr<Ints>("strides", true).attr<std::string>("padding")
      .shape_fn(pool_shape).kernel(pool_kernel<false>);
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
