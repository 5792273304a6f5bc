// Stateless random numbers: pure functions of a seed tensor, like tf.random.stateless_uniform. The same seed gives
// the same numbers every time, eagerly and in a traced graph, natively and in WASM (integer hashing only); to get
// new numbers per call, feed a seed that changes — e.g. [seed, counter] with a counter Variable that an
// assign_add moves on each call (what tl::layers::Dropout does).
//
//   tl::Variable step(tl::scalar(0), "step", false);
//   step.assign_add(1);
//   auto u = tl::random_uniform_like(x, tl::stack({tl::scalar(42), step.value()}));   // float32 in [0, 1), x's shape
#pragma once

#include "tracelab/tensor/tensor.h"

namespace tl {

/// Float32 numbers in [0, 1) on a 2^-24 grid with x's shape (x's values are not read; any dtype). `seed` is an int32
/// vector of two numbers [seed, counter]. Element i is a counter-based hash (SplitMix64) of (seed, counter, i).
/// Not differentiable; not stateful (a pure function of its inputs).
Tensor random_uniform_like(const Tensor& x, const Tensor& seed);

}  // namespace tl
