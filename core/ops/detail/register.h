// The op families, each registering its ops into the registry (called once, from register_all.cpp).
#pragma once

#include "tracelab/registry/registry.h"

namespace tl::detail {

void register_math_ops(OpRegistry& registry);       // math_ops.cpp: elementwise, comparisons, where, clip
void register_linalg_ops(OpRegistry& registry);     // linalg_ops.cpp: matmul
void register_reduce_ops(OpRegistry& registry);     // reduce_ops.cpp: reduce_*, argmax
void register_layout_ops(OpRegistry& registry);     // layout_ops.cpp: reshape, transpose, expand_dims, squeeze,
                                                    // broadcast_to, identity, stop_gradient
void register_slice_join_ops(OpRegistry& registry); // slice_join_ops.cpp: concat, stack, slice, pad
void register_index_ops(OpRegistry& registry);      // index_ops.cpp: gather, unsorted_segment_sum, one_hot
void register_cast_fill_ops(OpRegistry& registry);  // cast_fill_ops.cpp: cast, zeros_like, ones_like
void register_nn_ops(OpRegistry& registry);         // nn_ops.cpp: softmax, log_softmax, conv2d, pooling;
                                                    // nn_grad_ops.cpp: their backprop ops
void register_io_ops(OpRegistry& registry);         // io_ops.cpp: print, check_numerics, record_timestamp
void register_fused_ops(OpRegistry& registry);      // fused_ops.cpp: fused_matmul (optimizer)
void register_random_ops(OpRegistry& registry);     // random_ops.cpp: random_uniform_like (stateless)
void register_optimizer_ops(OpRegistry& registry);  // optimizer_ops.cpp: sgd/adam/rmsprop fused updates
void register_assert_ops(OpRegistry& registry);     // assert_ops.cpp: assert_equal, assert_less, ..., assert

}  // namespace tl::detail
