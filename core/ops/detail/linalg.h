// The matmul kernel's product, shared with fused_matmul (private to core/ops).
#pragma once

#include "tracelab/tensor/tensor.h"

namespace tl::detail {

/// out = op(a) op(b) over the (broadcast) batch dims, op = optional transpose of the last two dims; `out` is
/// allocated with matmul's inferred shape and is overwritten (an empty inner dim gives zeros).
void matmul_into(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b, const Tensor& out);

}  // namespace tl::detail
