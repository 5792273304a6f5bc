// Creating tensors: from values, filled, ranges and seeded random numbers.
//
//   auto a = tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2});
//   auto z = tl::zeros({3}, tl::int32);
//   tl::Generator gen(42);  auto w = gen.uniform({20, 10}, -0.5f, 0.5f);   // same numbers natively and in WASM
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "tracelab/tensor/tensor.h"

namespace tl {

/** @{ */
/// A tensor holding `values` (row-major) with `shape`; the count must match (ShapeError otherwise).
Tensor constant(std::vector<float> values, const Shape& shape);
Tensor constant(std::vector<std::int32_t> values, const Shape& shape);
Tensor constant(std::vector<bool> values, const Shape& shape);
Tensor constant(std::initializer_list<float> values, const Shape& shape);
Tensor constant(std::initializer_list<std::int32_t> values, const Shape& shape);
Tensor constant(std::initializer_list<bool> values, const Shape& shape);
/** @} */
/** @{ */
/// A 1-D tensor holding `values`.
Tensor constant(std::initializer_list<float> values);
Tensor constant(std::initializer_list<std::int32_t> values);
/** @} */
/** @{ */
/// A (non-weak) rank-0 tensor.
Tensor scalar(float value);
Tensor scalar(std::int32_t value);
Tensor scalar(bool value);
/** @} */

/// Zeros of a shape and dtype.
Tensor zeros(const Shape& shape, DType dtype = float32);
/// Ones of a shape and dtype.
Tensor ones(const Shape& shape, DType dtype = float32);
/// `value` (a scalar tensor or C++ number) repeated over `shape`, in the value's dtype.
Tensor fill(const Shape& shape, const Tensor& value);
/// [start, start+delta, ...) up to but excluding `limit`, like tf.range. delta must be non-zero.
Tensor range(double start, double limit, double delta = 1, DType dtype = float32);
/// tf.range with integer arguments: int32, as TensorFlow infers it (`tl::range(5)` is [0 1 2 3 4], int32). Any
/// real argument chooses the float32 overload above.
template <std::integral Start, std::integral Limit = Start, std::integral Delta = Start>
  requires(!std::same_as<Start, bool> && !std::same_as<Limit, bool> && !std::same_as<Delta, bool>)
Tensor range(Start start, Limit limit, Delta delta = 1) {
  return range(static_cast<double>(start), static_cast<double>(limit), static_cast<double>(delta), int32);
}
/// tf.range(limit) with an integer: [0, limit), int32.
template <std::integral Limit>
  requires(!std::same_as<Limit, bool>)
Tensor range(Limit limit) {
  return range(0.0, static_cast<double>(limit), 1.0, int32);
}

/// A seeded random generator (PCG32) whose streams are bit-identical natively and in WASM.
class Generator {
 public:
  /// A generator whose stream is fixed by `seed`.
  explicit Generator(std::uint64_t seed);
  /// Uniform in [minval, maxval): float32 (24 random bits) or int32 (unbiased).
  Tensor uniform(const Shape& shape, double minval = 0, double maxval = 1, DType dtype = float32);
  /// Normal(mean, stddev) float32, by the polar method with a portable logarithm.
  Tensor normal(const Shape& shape, float mean = 0, float stddev = 1);
  /// The next raw 32-bit output.
  std::uint32_t next_u32();
  /// The next float in [0, 1) with 24 random bits.
  float next_float();

 private:
  std::uint64_t state_;
  std::uint64_t increment_;
};

/// tf.random.set_seed: reseeds the global generator used by random_uniform / random_normal.
void set_random_seed(std::uint64_t seed);
/// The global generator (seeded with 0 at start-up).
Generator& global_generator();
/// Uniform numbers from the global generator.
Tensor random_uniform(const Shape& shape, double minval = 0, double maxval = 1, DType dtype = float32);
/// Normal numbers from the global generator.
Tensor random_normal(const Shape& shape, float mean = 0, float stddev = 1);

}  // namespace tl
