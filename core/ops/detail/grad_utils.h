// Helpers for gradient rules (private to core/ops). Gradient rules use public ops only, so these do too.
#pragma once

#include "tracelab/ops/array.h"
#include "tracelab/ops/reduce.h"

namespace tl::detail {

/// Sums a broadcast gradient back to `shape`: over the leading dims `shape` lacks and over the dims where
/// `shape` has 1 and the gradient does not (the reverse of NumPy broadcasting).
inline Tensor unbroadcast(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  const int extra = grad.rank() - shape.rank();
  const auto summed_away = [&](int i) {
    return i < extra || (shape[static_cast<std::size_t>(i - extra)] == 1 && grad.shape()[static_cast<std::size_t>(i)] != 1);
  };
  // A sum over dims of size 1 adds nothing: when every summed dim is known to be 1, the reshape does it all.
  bool only_ones = true;
  for (int i = 0; i < grad.rank() && only_ones; ++i)
    only_ones = !summed_away(i) || grad.shape()[static_cast<std::size_t>(i)] == 1;
  if (only_ones) return reshape(grad, shape.dims());
  Ints axes;
  for (int i = 0; i < grad.rank(); ++i)
    if (summed_away(i)) axes.push_back(i);
  return reshape(reduce_sum(grad, axes, /*keepdims=*/true), shape.dims());
}

/// relu's gradient from its output: g where y > 0, else 0 — the relu_grad op (math_ops.cpp), shared by relu's
/// rule, relu_grad's own rule and fused_matmul's relu activation.
Tensor relu_grad(const Tensor& g, const Tensor& y);

}  // namespace tl::detail
