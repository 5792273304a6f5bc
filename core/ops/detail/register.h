// The op families, each registering its ops into the registry (called once, from register_all.cpp).
#pragma once

#include "tracelab/registry/registry.h"

namespace tl::detail {

void register_math_ops(OpRegistry& registry);       // math_ops.cpp: elementwise, comparisons, where, clip
void register_linalg_ops(OpRegistry& registry);     // linalg_ops.cpp: matmul
void register_reduce_ops(OpRegistry& registry);     // reduce_ops.cpp: reduce_*, argmax
void register_array_ops(OpRegistry& registry);      // array_ops.cpp: reshape, transpose, concat, gather, cast, ...
void register_nn_ops(OpRegistry& registry);         // nn_ops.cpp: softmax, log_softmax, conv2d, pooling;
                                                    // nn_grad_ops.cpp: their backprop ops
void register_io_ops(OpRegistry& registry);         // io_ops.cpp: print
void register_fused_ops(OpRegistry& registry);      // fused_ops.cpp: fused_matmul, fused_elementwise (optimizer)
void register_random_ops(OpRegistry& registry);     // random_ops.cpp: random_uniform_like (stateless)
void register_optimizer_ops(OpRegistry& registry);  // optimizer_ops.cpp: sgd/adam/rmsprop fused updates

}  // namespace tl::detail
