// Helpers for gradient rules (private to core/ops). Gradient rules use public ops only, so these do too.
#pragma once

#include <algorithm>

#include "tracelab/ops/array.h"
#include "tracelab/ops/reduce.h"

namespace tl::detail {

/// Sums a broadcast gradient back to `shape`: over the leading dims `shape` lacks and over the dims where
/// `shape` has 1 and the gradient does not (the reverse of NumPy broadcasting).
inline Tensor unbroadcast(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  const int extra = grad.rank() - shape.rank();
  Ints axes;
  for (int i = 0; i < grad.rank(); ++i)
    if (i < extra || (shape[static_cast<std::size_t>(i - extra)] == 1 && grad.shape()[static_cast<std::size_t>(i)] != 1))
      axes.push_back(i);
  // A sum over dims of size 1 adds nothing: when every summed dim is known to be 1, the reshape does it all.
  const bool only_ones = std::all_of(axes.begin(), axes.end(), [&](std::int64_t a) {
    return grad.shape()[static_cast<std::size_t>(a)] == 1;
  });
  Tensor summed = axes.empty() || only_ones ? grad : reduce_sum(grad, axes, /*keepdims=*/true);
  return reshape(summed, shape.dims());
}

/// relu's gradient from its output: g where y > 0, else 0 — the relu_grad op (math_ops.cpp), shared by relu's
/// rule, relu_grad's own rule and fused_matmul's relu activation.
Tensor relu_grad(const Tensor& g, const Tensor& y);

}  // namespace tl::detail
