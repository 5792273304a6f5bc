#include "ops/detail/rules.h"

#include <string>

namespace tl::detail {

void expect_dtype(const ShapeContext& ctx, std::size_t i, std::initializer_list<DType> allowed) {
  DType got = ctx.input(i).dtype;
  for (DType d : allowed)
    if (d == got) return;
  std::string names;
  for (DType d : allowed) names += (names.empty() ? "" : " or ") + std::string(dtype_name(d));
  throw DTypeError(cat(ctx.op.name(), ": input ", i, " must be ", names, ", got ", dtype_name(got), " (",
                       meta_str(ctx.input(i)), ")"));
}

void expect_rank(const ShapeContext& ctx, std::size_t i, int min_rank, int max_rank) {
  int rank = ctx.input(i).shape.rank();
  TL_CHECK(rank >= min_rank && rank <= max_rank, ShapeError, ctx.op.name(), ": input ", i, " must have rank ",
           min_rank == max_rank ? std::to_string(min_rank)
                                : std::to_string(min_rank) + ".." + std::to_string(max_rank),
           ", got shape ", ctx.input(i).shape.str());
}

void expect_same_dtypes(const ShapeContext& ctx) {
  std::uint32_t mask = ctx.op.same_dtype_mask();
  const TensorMeta* first = nullptr;
  for (std::size_t i = 0; i < ctx.inputs.size() && i < 32; ++i) {
    if (!(mask >> i & 1u)) continue;
    if (!first) first = &ctx.input(i);
    TL_CHECK(ctx.input(i).dtype == first->dtype, DTypeError, ctx.op.name(), ": inputs must have the same dtype, got ",
             dtype_name(first->dtype), " and ", dtype_name(ctx.input(i).dtype));
  }
}

void same_as_input(ShapeContext& ctx) {
  expect_same_dtypes(ctx);
  ctx.output() = ctx.input(0);
}

void broadcast_all(ShapeContext& ctx) {
  expect_same_dtypes(ctx);
  bool same = true;  // equal shapes broadcast to themselves (the common case: no new dims to build)
  for (std::size_t i = 1; i < ctx.inputs.size() && same; ++i) same = ctx.input(i).shape == ctx.input(0).shape;
  if (same) {
    ctx.output() = ctx.input(0);
    return;
  }
  Shape shape = ctx.input(0).shape;
  for (std::size_t i = 1; i < ctx.inputs.size(); ++i)
    shape = broadcast_shapes(ctx.op.name().c_str(), shape, ctx.input(i).shape);
  ctx.output() = TensorMeta{ctx.input(0).dtype, std::move(shape)};
}

}  // namespace tl::detail
