// Dropout with a counter-based mask: no random state hides in an op. Each training call does
// counter += 1 (an assign, a graph node when traced) and draws random_uniform_like(x, [seed, counter]) — a pure
// function of its inputs — so eager and traced runs give the same sequence of masks for one seed.
#include "tracelab/nn/layers.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"
#include "tracelab/ops/random.h"

namespace tl::layers {
namespace {

std::int32_t seed_or_draw(const std::optional<std::int32_t>& seed) {
  return seed ? *seed : static_cast<std::int32_t>(global_generator().next_u32() >> 1);
}

}  // namespace

Dropout::Dropout(double rate, DropoutOptions options)
    : Layer(options.name, "dropout"),
      rate_(rate),
      seed_(seed_or_draw(options.seed)),
      counter_(add_state("seed_counter", scalar(std::int32_t{0}))) {
  TL_CHECK(rate >= 0 && rate < 1, InvalidArgument, describe(), ": rate must be in [0, 1), got ", rate);
  input_spec().dtype = float32;
}

Tensor Dropout::call(const Tensor& x, bool training) {
  if (!training || rate_ == 0) return x;
  counter_.assign_add(1);
  Tensor seed = stack({scalar(seed_), counter_.value()});
  Tensor dropped = less(random_uniform_like(x, seed), static_cast<float>(rate_));
  return where(dropped, 0.f, x * static_cast<float>(1.0 / (1.0 - rate_)));
}

}  // namespace tl::layers
