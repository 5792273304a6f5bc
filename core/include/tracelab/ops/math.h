// Elementwise math: unary functions, binary arithmetic with NumPy broadcasting, comparisons, selection.
// C++ numbers mix with tensors as "weak" scalars that take the tensor's dtype (x * 2 stays float32).
//
//   auto y = tl::relu(x * 2 - 1);
//   auto mask = x > 0.5f;                        // bool tensor (tl::greater)
//   auto z = tl::where(mask, x, tl::zeros_like(x));
#pragma once

#include "tracelab/tensor/tensor.h"

namespace tl {

// ---- unary (float32 and int32 unless noted) ----
Tensor neg(const Tensor& x);          ///< -x (int32 wraps at INT32_MIN like TensorFlow)
Tensor abs(const Tensor& x);          ///< |x|
Tensor exp(const Tensor& x);          ///< e^x, float32 only
Tensor log(const Tensor& x);          ///< natural log, float32 only (log(0) = -inf, log(<0) = nan)
Tensor sqrt(const Tensor& x);         ///< square root, float32 only
Tensor square(const Tensor& x);       ///< x * x
Tensor relu(const Tensor& x);         ///< max(x, 0)
Tensor sigmoid(const Tensor& x);      ///< 1 / (1 + e^-x), float32 only
Tensor tanh(const Tensor& x);         ///< hyperbolic tangent, float32 only

// ---- binary, broadcasting; both inputs share a dtype ----
Tensor add(const Tensor& x, const Tensor& y);       ///< x + y
Tensor sub(const Tensor& x, const Tensor& y);       ///< x - y
Tensor mul(const Tensor& x, const Tensor& y);       ///< x * y
Tensor div(const Tensor& x, const Tensor& y);       ///< x / y, float32 only (cast integers first)
Tensor pow(const Tensor& x, const Tensor& y);       ///< x^y (int32: negative exponents are an error)
Tensor maximum(const Tensor& x, const Tensor& y);   ///< elementwise max
Tensor minimum(const Tensor& x, const Tensor& y);   ///< elementwise min

// ---- comparisons: bool results ----
Tensor equal(const Tensor& x, const Tensor& y);          ///< x == y (also for bool)
Tensor not_equal(const Tensor& x, const Tensor& y);      ///< x != y (also for bool)
Tensor less(const Tensor& x, const Tensor& y);           ///< x < y
Tensor less_equal(const Tensor& x, const Tensor& y);     ///< x <= y
Tensor greater(const Tensor& x, const Tensor& y);        ///< x > y
Tensor greater_equal(const Tensor& x, const Tensor& y);  ///< x >= y

// ---- logical, on bool tensors ----
Tensor logical_and(const Tensor& x, const Tensor& y);  ///< x and y, broadcasting
Tensor logical_or(const Tensor& x, const Tensor& y);   ///< x or y, broadcasting
Tensor logical_xor(const Tensor& x, const Tensor& y);  ///< x != y, broadcasting
Tensor logical_not(const Tensor& x);                   ///< not x

// ---- selection ----
/// cond ? x : y elementwise; all three broadcast together (TensorFlow 2's tf.where).
Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y);
/// min(max(x, lo), hi); lo and hi broadcast to x's shape.
Tensor clip_by_value(const Tensor& x, const Tensor& lo, const Tensor& hi);

/** @{ */
/// add, sub, mul, div and neg as operators; a C++ number on either side is a weak scalar of the tensor's dtype.
Tensor operator+(const Tensor& x, const Tensor& y);
Tensor operator-(const Tensor& x, const Tensor& y);
Tensor operator*(const Tensor& x, const Tensor& y);
Tensor operator/(const Tensor& x, const Tensor& y);
Tensor operator-(const Tensor& x);
/** @} */

/** @{ */
/// Comparison and logical operators, elementwise as TensorFlow 2's Python operators on tensors: `x > 0.5f` is a
/// bool tensor, `(x > 0) & (x < 1)` combines masks, `~mask` negates one (logical ops take bool tensors). A C++
/// number on either side is a weak scalar of the tensor's dtype. `x == y` compares elements too (TF 2's
/// Tensor.__eq__); to ask whether two handles are the same tensor, compare `a.impl_ptr() == b.impl_ptr()`. Like
/// any bool tensor, a result used as a C++ `bool` (`if (x > 0)`) reads its value: eagerly a one-element tensor's
/// value, while tracing an error pointing to tl::cond.
Tensor operator==(const Tensor& x, const Tensor& y);
Tensor operator!=(const Tensor& x, const Tensor& y);
Tensor operator<(const Tensor& x, const Tensor& y);
Tensor operator<=(const Tensor& x, const Tensor& y);
Tensor operator>(const Tensor& x, const Tensor& y);
Tensor operator>=(const Tensor& x, const Tensor& y);
Tensor operator&(const Tensor& x, const Tensor& y);
Tensor operator|(const Tensor& x, const Tensor& y);
Tensor operator^(const Tensor& x, const Tensor& y);
Tensor operator~(const Tensor& x);
/** @} */

}  // namespace tl
