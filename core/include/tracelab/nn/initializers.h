// Initializers: how a layer's weights get their first values (tf.keras.initializers). An initializer is a small
// value — a std::function from (shape, generator) to a concrete tensor — so layers take any callable. The numbers
// come from a tl::Generator (PCG32), so a layer built with a seed has bit-identical weights natively and in WASM.
// Initializers compute in plain C++ (no ops), so building a layer inside a traced function still gives concrete
// initial values.
//
//   tl::Generator gen(1);
//   tl::Tensor w = tl::initializers::glorot_uniform()({20, 10}, gen);   // U(-limit, limit), limit = sqrt(6/30)
//   auto init = tl::initializers::random_uniform(-0.1, 0.1);           // any Initializer can go into a layer
#pragma once

#include <functional>

#include "tracelab/tensor/creation.h"
#include "tracelab/tensor/tensor.h"

namespace tl::initializers {

/// Makes the initial value of a weight of `shape`, drawing any random numbers from `generator`.
using Initializer = std::function<Tensor(const Shape& shape, Generator& generator)>;

/// Keras' fans of a weight shape: (in, out) for a matrix; for a conv kernel (kh, kw, in, out) each is multiplied by
/// the receptive field kh*kw; a vector has fan_in = fan_out = its size, a scalar 1 and 1.
struct Fans {
  double fan_in = 1;   ///< inputs feeding each output unit
  double fan_out = 1;  ///< outputs each input unit feeds
};
/// The fans of `shape` (every dim must be known).
Fans compute_fans(const Shape& shape);

/// All zeros (float32). Draws nothing from the generator.
Initializer zeros();
/// All ones (float32). Draws nothing from the generator.
Initializer ones();
/// Every element `value` (float32).
Initializer constant(float value);
/// Uniform in [minval, maxval) — Keras' RandomUniform, whose defaults are [-0.05, 0.05).
Initializer random_uniform(double minval = -0.05, double maxval = 0.05);
/// Glorot (Xavier) uniform, Keras' default kernel initializer: U(-limit, limit), limit = sqrt(6 / (fan_in + fan_out)).
Initializer glorot_uniform();
/// He normal (Keras): a normal of stddev sqrt(2 / fan_in) / 0.8796 truncated at two standard deviations (values
/// beyond are redrawn), so the kept values have stddev sqrt(2 / fan_in). For ReLU layers.
Initializer he_normal();

}  // namespace tl::initializers
