// Linear algebra: matrix products of float32 tensors, batched over leading dims like tf.linalg.matmul.
// The last two dims of each input are the matrices; the dims before them are batch dims that broadcast
// NumPy-style, so (2, 1, 3, 4) x (5, 4, 6) gives (2, 5, 3, 6). Each product runs as one Eigen GEMM.
//
//   auto w = tl::random_normal({4, 6});
//   auto y = tl::matmul(x, w);                          // x: (batch, 4) -> y: (batch, 6)
//   auto g = tl::matmul(x, dy, /*transpose_a=*/true);   // x^T dy: (4, 6)
#pragma once

#include "tracelab/tensor/tensor.h"

namespace tl {

/// a @ b over the last two dims (op(a) is (m, k), op(b) is (k, n) after the optional transposes), batch
/// dims broadcast. float32 only: cast integer tensors first. transpose_x swaps x's last two dims.
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);

}  // namespace tl
