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

// ---- unary, float32 only unless noted: computed in double and rounded, the same values natively and in WASM ----
Tensor sin(const Tensor& x);          ///< sine (radians)
Tensor cos(const Tensor& x);          ///< cosine (radians)
Tensor tan(const Tensor& x);          ///< tangent (radians)
Tensor asin(const Tensor& x);         ///< arcsine; nan outside [-1, 1]
Tensor acos(const Tensor& x);         ///< arccosine; nan outside [-1, 1]
Tensor atan(const Tensor& x);         ///< arctangent
Tensor sinh(const Tensor& x);         ///< hyperbolic sine
Tensor cosh(const Tensor& x);         ///< hyperbolic cosine
Tensor asinh(const Tensor& x);        ///< inverse hyperbolic sine
Tensor acosh(const Tensor& x);        ///< inverse hyperbolic cosine; nan below 1
Tensor atanh(const Tensor& x);        ///< inverse hyperbolic tangent; ±inf at ±1, nan beyond
Tensor erf(const Tensor& x);          ///< the error function
Tensor expm1(const Tensor& x);        ///< e^x - 1, accurate near 0
Tensor log1p(const Tensor& x);        ///< ln(1 + x), accurate near 0
Tensor reciprocal(const Tensor& x);   ///< 1 / x (1 / 0 = inf)
Tensor rsqrt(const Tensor& x);        ///< 1 / sqrt(x)
Tensor softplus(const Tensor& x);     ///< ln(1 + e^x) without overflow: max(x, 0) + ln(1 + e^-|x|)
Tensor floor(const Tensor& x);        ///< the largest integer <= x; gradient 0 (as TF.js)
Tensor ceil(const Tensor& x);         ///< the smallest integer >= x; gradient 0
Tensor round(const Tensor& x);        ///< the nearest integer, half to even (2.5 -> 2); float32 and int32; gradient 0
Tensor sign(const Tensor& x);         ///< -1, 0 or 1, nan for nan; float32 and int32; gradient 0
Tensor is_nan(const Tensor& x);       ///< bool: x is nan (float32 and int32); not differentiable
Tensor is_inf(const Tensor& x);       ///< bool: x is +inf or -inf (float32 and int32); not differentiable
Tensor is_finite(const Tensor& x);    ///< bool: x is neither nan nor infinite (float32 and int32); not differentiable

// ---- binary, broadcasting; both inputs share a dtype ----
Tensor add(const Tensor& x, const Tensor& y);       ///< x + y
Tensor sub(const Tensor& x, const Tensor& y);       ///< x - y
Tensor mul(const Tensor& x, const Tensor& y);       ///< x * y
Tensor div(const Tensor& x, const Tensor& y);       ///< x / y, float32 only (cast integers first)
Tensor pow(const Tensor& x, const Tensor& y);       ///< x^y (int32: negative exponents are an error)
Tensor maximum(const Tensor& x, const Tensor& y);   ///< elementwise max
Tensor minimum(const Tensor& x, const Tensor& y);   ///< elementwise min
Tensor atan2(const Tensor& y, const Tensor& x);     ///< the angle of the point (x, y) in (-pi, pi], float32 only
/// x mod y with the sign of y (floor mod: mod(-7, 3) = 2), float32 and int32; an int32 y of 0 is an InvalidArgument.
Tensor mod(const Tensor& x, const Tensor& y);
/// floor(x / y), float32 and int32; an int32 y of 0 is an InvalidArgument; not differentiable.
Tensor floor_div(const Tensor& x, const Tensor& y);
Tensor squared_difference(const Tensor& x, const Tensor& y);  ///< (x - y)^2
Tensor div_no_nan(const Tensor& x, const Tensor& y);  ///< x / y, but 0 where y == 0; float32 only

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
