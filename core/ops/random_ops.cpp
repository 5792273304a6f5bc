// Stateless random ops. random_uniform_like(x, seed) is a pure function of its inputs — no hidden generator — so
// passes may fold, merge or reorder it like any other op, and a traced graph gives the eager numbers. Only integer
// arithmetic and one exact float multiply: bit-identical natively and in WASM.
#include "ops/detail/register.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/random.h"

namespace tl {
namespace detail {
namespace {

/// SplitMix64's finalizer: a bijection of 64-bit words that mixes every input bit into every output bit.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// u[i] = top 24 bits of mix64(key + (i + 1) * golden) / 2^24 with key = mix64(seed << 32 | counter): element i of
/// the SplitMix64 stream that starts at the (seed, counter) key. Independent of how the elements are laid out.
void uniform_like_kernel(KernelContext& ctx) {
  const std::int32_t* seed = ctx.input(1).data<std::int32_t>();
  std::uint64_t key = mix64((std::uint64_t{static_cast<std::uint32_t>(seed[0])} << 32) |
                            std::uint64_t{static_cast<std::uint32_t>(seed[1])});
  float* out = ctx.output().mutable_data<float>();
  for (std::int64_t i = 0, n = ctx.output().num_elements(); i < n; ++i) {
    std::uint64_t bits = mix64(key + (static_cast<std::uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ULL);
    out[i] = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
  }
}

}  // namespace

void register_random_ops(OpRegistry& registry) {
  // random_uniform_like(x, seed): float32 U[0, 1) of x's shape from the int32 pair seed = [seed, counter].
  registry.op("random_uniform_like")
      .doc("float32 numbers in [0, 1) of x's shape, a pure hash of the int32 pair seed = [seed, counter] and the "
           "element index (stateless, like tf.random.stateless_uniform)")
      .inputs(2)
      .traits(trait::not_differentiable)
      .shape_fn([](ShapeContext& ctx) {
        const TensorMeta& seed = ctx.input(1);
        TL_CHECK(seed.dtype == DType::int32 && seed.shape.rank() == 1 &&
                     (seed.shape[0] == 2 || seed.shape[0] == -1),
                 ShapeError, "random_uniform_like: seed must be an int32 vector of 2 numbers [seed, counter], got ",
                 meta_str(seed));
        ctx.output() = {DType::float32, ctx.input(0).shape};
      })
      .kernel(uniform_like_kernel);
}

}  // namespace detail

Tensor random_uniform_like(const Tensor& x, const Tensor& seed) {
  static const OpDef& op = OpRegistry::global().get("random_uniform_like");
  return execute(op, {x, seed});
}

}  // namespace tl
