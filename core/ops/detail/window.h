// Sliding windows over NHWC images, shared by the nn forward ops (nn_ops.cpp) and their backprop ops
// (nn_grad_ops.cpp): window attributes, TensorFlow's output-size / padding rule, and im2col / col2im.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "ops/detail/rules.h"
#include "tracelab/registry/registry.h"

namespace tl::detail {

/// nn_grad_ops.cpp: conv2d_backprop_input / _filter, max_pool2d_grad, avg_pool2d_grad (called by register_nn_ops).
void register_nn_grad_ops(OpRegistry& registry);

/// A window op's "strides" and "padding" attributes as its gradient rules read them (TF's defaults).
inline Ints window_strides(const GradContext& c) { return c.attrs.get_or<Ints>("strides", {1, 1}); }
inline std::string window_padding(const GradContext& c) { return c.attrs.get_or<std::string>("padding", "VALID"); }

/// {h, w} of a window attribute ("strides" or "ksize"): 1 int (both), 2 ints, or 4 ints [1, h, w, 1] as in TF.
inline std::array<std::int64_t, 2> window_hw(const OpDef& op, const Attrs& attrs, const char* name,
                                             const Ints& fallback) {
  Ints v = attrs.get_or<Ints>(name, fallback);
  TL_CHECK(v.size() == 1 || v.size() == 2 || v.size() == 4, InvalidArgument, op.name(), ": ", name,
           " must have 1, 2 or 4 elements, got ", ints_str(v));
  TL_CHECK(v.size() != 4 || (v[0] == 1 && v[3] == 1), InvalidArgument, op.name(), ": ", name,
           " must be 1 in the batch and channel dims, got ", ints_str(v));
  std::array<std::int64_t, 2> hw = v.size() == 1 ? std::array<std::int64_t, 2>{v[0], v[0]}
                                   : v.size() == 2 ? std::array<std::int64_t, 2>{v[0], v[1]}
                                                   : std::array<std::int64_t, 2>{v[1], v[2]};
  TL_CHECK(hw[0] >= 1 && hw[1] >= 1, InvalidArgument, op.name(), ": ", name, " must be positive, got ",
           ints_str(v));
  return hw;
}

/// True for "SAME", false for "VALID"; anything else is an InvalidArgument.
inline bool same_padding(const OpDef& op, const Attrs& attrs) {
  std::string padding = attrs.get_or<std::string>("padding", "VALID");
  TL_CHECK(padding == "VALID" || padding == "SAME", InvalidArgument, op.name(),
           ": padding must be \"VALID\" or \"SAME\", got \"", padding, "\"");
  return padding == "SAME";
}

/// One spatial dim of a window: output size and the padding before the first cell (-1 size when unknown).
struct WindowDim {
  std::int64_t out;
  std::int64_t pad_before;
};

/// TF's rule. VALID: out = ceil((in - k + 1) / s), 0 when the window does not fit. SAME: out = ceil(in / s),
/// padded by pad_total = max((out - 1) * s + k - in, 0), of which pad_total / 2 goes before (the extra after).
inline WindowDim window_dim(std::int64_t in, std::int64_t k, std::int64_t s, bool same) {
  if (in < 0 || k < 0) return {-1, 0};
  if (!same) return {in < k ? 0 : (in - k) / s + 1, 0};
  std::int64_t out = in / s + (in % s != 0 ? 1 : 0);
  if (out == 0) return {0, 0};
  std::int64_t covered = in - (out - 1) * s;  // in (0, s]: written this way (out - 1) * s + k cannot overflow
  return {out, std::max<std::int64_t>(k - covered, 0) / 2};
}

/// The input cells [first, last) that window `o` covers along one dim, padding cells cut off.
inline std::pair<std::int64_t, std::int64_t> window_cells(std::int64_t o, std::int64_t s, std::int64_t k,
                                                          const WindowDim& dim, std::int64_t in) {
  std::int64_t start = o * s - dim.pad_before;
  std::int64_t end = k >= in - start ? in : start + k;
  return {std::max<std::int64_t>(start, 0), end};
}

/// Everything a conv or pool kernel needs about its NHWC image and window.
struct WindowPlan {
  std::int64_t batch, in_h, in_w, channels;
  std::int64_t kh, kw, sh, sw;
  WindowDim h, w;
};

/// conv2d's output shape for an image and HWIO filters (the one rule conv2d and its backprop ops share):
/// checks the channels and the window, then applies TensorFlow's VALID/SAME output size per spatial dim.
inline Shape conv2d_output(const ShapeContext& ctx, const Shape& image, const Shape& f) {
  TL_CHECK(image[3] < 0 || f[2] < 0 || image[3] == f[2], ShapeError, ctx.op.name(),
           ": input channels must equal the filters' in_channels, got input ", image.str(), " (NHWC) and filters ",
           f.str(), " (HWIO)");
  TL_CHECK(f[0] != 0 && f[1] != 0, InvalidArgument, ctx.op.name(), ": the filter window must not be empty, got "
           "filters ", f.str());
  auto [sh, sw] = window_hw(ctx.op, ctx.attrs, "strides", {1, 1});
  bool same = same_padding(ctx.op, ctx.attrs);
  return Shape{image[0], window_dim(image[1], f[0], sh, same).out, window_dim(image[2], f[1], sw, same).out, f[3]};
}

/// The plan for an NHWC image of `image` shape (concrete), a kh x kw window and the op's strides / padding.
inline WindowPlan window_plan(const OpDef& op, const Attrs& attrs, const Shape& image, std::int64_t kh,
                              std::int64_t kw) {
  auto [sh, sw] = window_hw(op, attrs, "strides", {1, 1});
  bool same = same_padding(op, attrs);
  return {image[0], image[1], image[2], image[3], kh, kw, sh, sw,
          window_dim(image[1], kh, sh, same), window_dim(image[2], kw, sw, same)};
}

/// Calls visit(row, iy, x0, x1, k_offset) for every output cell `row` (= oy * out_w + ox) and every input row
/// `iy` its window covers: the covered cells [x0, x1) of that input row are contiguous in the image and land
/// at kernel position k_offset (in units of channels) of the receptive field. im2col and col2im share it.
template <class Visit>
void for_each_window_row(const WindowPlan& p, Visit&& visit) {
  for (std::int64_t oy = 0; oy < p.h.out; ++oy) {
    auto [y0, y1] = window_cells(oy, p.sh, p.kh, p.h, p.in_h);
    std::int64_t ky0 = y0 - (oy * p.sh - p.h.pad_before);
    for (std::int64_t ox = 0; ox < p.w.out; ++ox) {
      auto [x0, x1] = window_cells(ox, p.sw, p.kw, p.w, p.in_w);
      std::int64_t kx0 = x0 - (ox * p.sw - p.w.pad_before);
      for (std::int64_t iy = y0; iy < y1; ++iy)
        visit(oy * p.w.out + ox, iy, x0, x1, (ky0 + iy - y0) * p.kw + kx0);
    }
  }
}

/// How many images of a conv's batch share one im2col matrix (and so one GEMM): as many as fit in ~1M floats
/// (4 MiB) of `depth`-wide rows, at least one. One GEMM over many images runs at the GEMM's speed where a
/// product per image of a small image (28 x 28 rows, 9 columns) pays the GEMM's setup for little work.
inline std::int64_t images_per_gemm(const WindowPlan& p, std::int64_t depth) {
  const std::int64_t floats_per_image = std::max<std::int64_t>(p.h.out * p.w.out * depth, 1);
  return std::clamp<std::int64_t>((std::int64_t{1} << 20) / floats_per_image, 1, std::max<std::int64_t>(p.batch, 1));
}

/// Copies every receptive field of one NHWC image into a row of `cols` (padding cells stay 0).
inline void im2col(const WindowPlan& p, const float* image, float* cols) {
  const std::int64_t row_size = p.kh * p.kw * p.channels;
  for_each_window_row(p, [&](std::int64_t row, std::int64_t iy, std::int64_t x0, std::int64_t x1, std::int64_t k) {
    const float* src = image + (iy * p.in_w + x0) * p.channels;
    std::copy(src, src + (x1 - x0) * p.channels, cols + row * row_size + k * p.channels);
  });
}

/// The transpose of im2col: adds every row of `cols` back onto the image cells it was copied from
/// (overlapping windows accumulate; padding entries are dropped). `image` must start zeroed.
inline void col2im(const WindowPlan& p, const float* cols, float* image) {
  const std::int64_t row_size = p.kh * p.kw * p.channels;
  for_each_window_row(p, [&](std::int64_t row, std::int64_t iy, std::int64_t x0, std::int64_t x1, std::int64_t k) {
    const float* src = cols + row * row_size + k * p.channels;
    float* dst = image + (iy * p.in_w + x0) * p.channels;
    for (std::int64_t i = 0; i < (x1 - x0) * p.channels; ++i) dst[i] += src[i];
  });
}

}  // namespace tl::detail
