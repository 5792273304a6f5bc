// Helpers shared by the array op files (layout_ops.cpp, slice_join_ops.cpp, index_ops.cpp; private to core/ops).
//
// The layout, slicing/joining and index ops move elements without changing them, so their kernels are copies: whole buffers (reshape), blocks
// (concat, stack, gather) or n-d strided boxes (transpose, slice, pad) via strided_copy below, whose innermost
// rows are Eigen strided maps. Their gradients move g back the same way (slice <-> pad, gather <->
// unsorted_segment_sum, broadcast_to <-> unbroadcast), using public ops only.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "tracelab/base/attrs.h"
#include "tracelab/base/error.h"
#include "tracelab/registry/registry.h"

namespace tl::detail {

using Dims = std::vector<std::int64_t>;

/// a * b for non-negative sizes, saturating at INT64_MAX (a count no tensor can have) instead of overflowing.
inline std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > std::numeric_limits<std::int64_t>::max() / b ? std::numeric_limits<std::int64_t>::max() : a * b;
}

/// Product of dims[begin, end) of a concrete shape (1 for an empty range), saturating like saturating_mul:
/// a zero-size tensor may have other dims whose product overflows, e.g. (2^40, 2^40, 0).
inline std::int64_t product(const Dims& dims, std::size_t begin, std::size_t end) {
  std::int64_t n = 1;
  for (std::size_t i = begin; i < end; ++i) n = saturating_mul(n, dims[i]);
  return n;
}

/// A double attribute (one_hot's on/off values, pad's constant) as an element of type T, without UB:
/// float32 rounds (beyond its range: +-inf); int32 must be a whole number in range; bool is != 0.
template <class T>
T element_from(const char* op, const char* name, double value) {
  if constexpr (std::is_same_v<T, float>) {
    constexpr double max = std::numeric_limits<float>::max();
    if (value > max) return std::numeric_limits<float>::infinity();
    if (value < -max) return -std::numeric_limits<float>::infinity();
    return static_cast<float>(value);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    TL_CHECK(value == std::trunc(value) && value >= INT32_MIN && value <= INT32_MAX, InvalidArgument, op, ": ",
             name, " ", value, " is not a whole number in the int32 range");
    return static_cast<std::int32_t>(value);
  } else {
    return value != 0;
  }
}

/// One row of a strided copy: dst[i * dst_stride] = src[i * src_stride] for i < length.
template <class T>
void copy_row(const T* src, std::int64_t src_stride, T* dst, std::int64_t dst_stride, std::int64_t length) {
  if (src_stride == 1 && dst_stride == 1) {
    std::copy_n(src, length, dst);
    return;
  }
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  using Stride = Eigen::InnerStride<Eigen::Dynamic>;
  Eigen::Map<Array, 0, Stride>(dst, length, Stride(dst_stride)) =
      Eigen::Map<const Array, 0, Stride>(src, length, Stride(src_stride));
}

/// Copies an n-d box of extent `dims`: dst[sum i_k * dst_strides[k]] = src[sum i_k * src_strides[k]].
/// Size-1 dims are dropped and dims that are contiguous in both src and dst merge, so a plain block is one row.
template <class T>
void strided_copy(const T* src, const Dims& src_strides, T* dst, const Dims& dst_strides, const Dims& dims) {
  Dims extent, ss, ds;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) return;
    if (dims[i] == 1) continue;
    if (!extent.empty() && ss.back() == src_strides[i] * dims[i] && ds.back() == dst_strides[i] * dims[i]) {
      extent.back() *= dims[i];
      ss.back() = src_strides[i];
      ds.back() = dst_strides[i];
    } else {
      extent.push_back(dims[i]);
      ss.push_back(src_strides[i]);
      ds.push_back(dst_strides[i]);
    }
  }
  if (extent.empty()) return void(*dst = *src);
  const std::size_t rank = extent.size();
  const std::int64_t rows = product(extent, 0, rank - 1);
  Dims index(rank, 0);
  std::int64_t src_at = 0, dst_at = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    copy_row(src + src_at, ss.back(), dst + dst_at, ds.back(), extent.back());
    for (int i = static_cast<int>(rank) - 2; i >= 0; --i) {  // advance the outer index, carrying
      auto k = static_cast<std::size_t>(i);
      ++index[k];
      src_at += ss[k];
      dst_at += ds[k];
      if (index[k] < extent[k]) break;
      src_at -= ss[k] * extent[k];
      dst_at -= ds[k] * extent[k];
      index[k] = 0;
    }
  }
}

}  // namespace tl::detail
