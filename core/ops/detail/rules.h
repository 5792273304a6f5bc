// Shape/dtype rule helpers shared by the op families (private to core/ops).
#pragma once

#include <initializer_list>

#include "tracelab/registry/op_def.h"

namespace tl::detail {

/// Throws DTypeError unless input `i` has one of `allowed`.
void expect_dtype(const ShapeContext& ctx, std::size_t i, std::initializer_list<DType> allowed);
/// Throws ShapeError unless input `i` has rank in [min_rank, max_rank].
void expect_rank(const ShapeContext& ctx, std::size_t i, int min_rank, int max_rank);
/// Throws DTypeError unless the inputs in the op's same_dtype_inputs mask share one dtype. The funnel already
/// aligned weak scalars; this keeps shape rules honest when they run on metas alone (op.infer while tracing).
void expect_same_dtypes(const ShapeContext& ctx);

/// Rule: one output with the input's dtype and shape (after expect_same_dtypes).
void same_as_input(ShapeContext& ctx);
/// Rule: broadcast of all inputs' shapes, dtype of input 0 (after expect_same_dtypes).
void broadcast_all(ShapeContext& ctx);

}  // namespace tl::detail
