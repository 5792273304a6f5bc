// Reductions: sum, mean, max and min over some axes (all of them by default), and argmax along one axis.
// float32 and int32 inputs; axes may be negative (counting from the end) and keepdims keeps each reduced
// axis as a dim of size 1, as in TensorFlow. One difference: an EMPTY axes list means "all axes" here
// (TensorFlow reduces nothing for axis=[] and everything for axis=None; C++ has no None).
//
//   auto total = tl::reduce_sum(x);                     // a scalar
//   auto row_max = tl::reduce_max(x, {1}, true);        // (batch, 1)
//   auto label = tl::argmax(logits, -1);                // int32 (batch,)
#pragma once

#include <cstdint>

#include "tracelab/base/attrs.h"
#include "tracelab/tensor/tensor.h"

namespace tl {

/// Sum over `axes` (empty: all). int32 sums wrap around on overflow, like TensorFlow's.
Tensor reduce_sum(const Tensor& x, const Ints& axes = {}, bool keepdims = false);
/// Mean over `axes` (empty: all). float32 of zero elements is nan; int32 truncates toward zero (like
/// TensorFlow) and is an InvalidArgument for zero elements.
Tensor reduce_mean(const Tensor& x, const Ints& axes = {}, bool keepdims = false);
/// Maximum over `axes` (empty: all); NaN wins. Over zero elements: -inf (float32) or INT32_MIN (int32).
Tensor reduce_max(const Tensor& x, const Ints& axes = {}, bool keepdims = false);
/// Minimum over `axes` (empty: all); NaN wins. Over zero elements: +inf (float32) or INT32_MAX (int32).
Tensor reduce_min(const Tensor& x, const Ints& axes = {}, bool keepdims = false);
/// int32 index of the largest value along `axis` (the first one among ties; a NaN counts as the largest,
/// so the first NaN wins, as in NumPy). The axis must not be empty. TensorFlow's default output is int64.
Tensor argmax(const Tensor& x, std::int64_t axis = 0);

}  // namespace tl
