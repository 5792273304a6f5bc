// The matmul kernel's product, shared with fused_matmul (private to core/ops).
#pragma once

#include <span>

#include "tracelab/base/attrs.h"
#include "tracelab/tensor/tensor.h"

namespace tl::detail {

/// matmul's attributes for these transposes, made once (an eager product, forward or in a gradient, builds none).
const Attrs& matmul_attrs(bool transpose_a, bool transpose_b);

/// The gradients of op(a) op(b) for the upstream gradient g (TensorFlow's _MatMulGrad), into d[0] for a and d[1]
/// for b, each only when `need_a` / `need_b` (else left empty): matmul's rule, and fused_matmul's once it has the
/// gradient before the bias and activation.
void matmul_input_grads(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b, const Tensor& g,
                        std::span<Tensor> d, bool need_a = true, bool need_b = true);

/// out = op(a) op(b) over the (broadcast) batch dims, op = optional transpose of the last two dims; `out` is
/// allocated with matmul's inferred shape and is overwritten (an empty inner dim gives zeros).
void matmul_into(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b, const Tensor& out);

}  // namespace tl::detail
