// Seeded random numbers that are bit-identical natively and in WASM: PCG32 (integer arithmetic only),
// floats from the top 24 bits, and normals by Marsaglia's polar method with a logarithm written in plain
// IEEE double arithmetic (libm's log may differ in the last bit between glibc and musl).
#include <climits>
#include <cmath>
#include <limits>

#include "tracelab/tensor/creation.h"

namespace tl {
namespace {

/// ln(x) for finite x > 0, using only +, -, *, / and frexp/ldexp (exact): x = m * 2^e, m in [sqrt(1/2), sqrt(2)),
/// ln(m) = 2 atanh(z) with z = (m - 1) / (m + 1), |z| < 0.172, summed until the terms vanish.
double portable_log(double x) {
  int exponent = 0;
  double m = std::frexp(x, &exponent);  // m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2;
    exponent -= 1;
  }
  double z = (m - 1) / (m + 1), z2 = z * z, term = z, sum = 0;
  for (int k = 1; k < 60; k += 2) {
    sum += term / k;
    term *= z2;
  }
  return 2 * sum + exponent * 0.69314718055994530942;
}

/// Uniform float32 in [minval, maxval): lo + span * u with u in [0, 1) on a 2^-24 grid.
Tensor uniform_float(Generator& gen, const Shape& shape, double minval, double maxval) {
  auto lo = static_cast<float>(minval), hi = static_cast<float>(maxval), span = static_cast<float>(maxval - minval);
  TL_CHECK(std::isfinite(lo) && std::isfinite(hi) && std::isfinite(span) && lo < hi, InvalidArgument,
           "random_uniform: [", minval, ", ", maxval, ") is not a non-empty float32 range");
  Tensor out = Tensor::empty(DType::float32, shape);
  float* dst = out.mutable_data<float>();
  float below_hi = std::nextafter(hi, lo);
  for (std::int64_t i = 0, n = out.num_elements(); i < n; ++i) {
    float v = lo + span * gen.next_float();  // may round up to hi (1 + (1 - 2^-24) == 2 in float32): keep it < hi
    dst[i] = v < hi ? v : below_hi;
  }
  return out;
}

/// Uniform int32 over the integers in [minval, maxval), unbiased by rejection sampling.
Tensor uniform_int(Generator& gen, const Shape& shape, double minval, double maxval) {
  TL_CHECK(minval >= INT32_MIN && maxval <= static_cast<double>(INT32_MAX) + 1, InvalidArgument,
           "random_uniform: int32 bounds out of range, got [", minval, ", ", maxval, ")");
  auto lo = static_cast<std::int64_t>(std::ceil(minval));
  auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(std::ceil(maxval)) - lo);
  TL_CHECK(span > 0, InvalidArgument, "random_uniform: no integer lies in [", minval, ", ", maxval, ")");
  Tensor out = Tensor::empty(DType::int32, shape);
  std::int32_t* dst = out.mutable_data<std::int32_t>();
  std::uint64_t limit = (std::uint64_t{1} << 32) - ((std::uint64_t{1} << 32) % span);  // rejection keeps it unbiased
  for (std::int64_t i = 0, n = out.num_elements(); i < n; ++i) {
    std::uint64_t r;
    do r = gen.next_u32(); while (r >= limit);
    dst[i] = static_cast<std::int32_t>(lo + static_cast<std::int64_t>(r % span));
  }
  return out;
}

}  // namespace

Generator::Generator(std::uint64_t seed) : state_(0), increment_((seed << 1u) | 1u) {
  next_u32();
  state_ += seed ^ 0x853c49e6748fea9bULL;
  next_u32();
}

std::uint32_t Generator::next_u32() {
  std::uint64_t old = state_;
  state_ = old * 6364136223846793005ULL + increment_;
  auto xorshifted = static_cast<std::uint32_t>(((old >> 18u) ^ old) >> 27u);
  auto rot = static_cast<std::uint32_t>(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

float Generator::next_float() { return static_cast<float>(next_u32() >> 8) * (1.0f / 16777216.0f); }

Tensor Generator::uniform(const Shape& shape, double minval, double maxval, DType dtype) {
  TL_CHECK(dtype != DType::bool_, DTypeError, "random_uniform: dtype must be float32 or int32, got bool");
  TL_CHECK(std::isfinite(minval) && std::isfinite(maxval) && minval < maxval, InvalidArgument,
           "random_uniform: need finite minval < maxval, got [", minval, ", ", maxval, ")");
  return dtype == DType::float32 ? uniform_float(*this, shape, minval, maxval)
                                 : uniform_int(*this, shape, minval, maxval);
}

Tensor Generator::normal(const Shape& shape, float mean, float stddev) {
  TL_CHECK(std::isfinite(mean) && std::isfinite(stddev) && stddev >= 0, InvalidArgument,
           "random_normal: need finite mean and stddev >= 0, got mean ", mean, ", stddev ", stddev);
  Tensor out = Tensor::empty(DType::float32, shape);
  float* dst = out.mutable_data<float>();
  std::int64_t n = out.num_elements();
  for (std::int64_t i = 0; i < n; i += 2) {
    double u, v, s;
    do {
      u = 2.0 * (next_u32() * (1.0 / 4294967296.0)) - 1.0;
      v = 2.0 * (next_u32() * (1.0 / 4294967296.0)) - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    double factor = std::sqrt(-2.0 * portable_log(s) / s);
    dst[i] = mean + stddev * static_cast<float>(u * factor);
    if (i + 1 < n) dst[i + 1] = mean + stddev * static_cast<float>(v * factor);
  }
  return out;
}

Generator& global_generator() {
  static Generator generator(0);
  return generator;
}

void set_random_seed(std::uint64_t seed) { global_generator() = Generator(seed); }

Tensor random_uniform(const Shape& shape, double minval, double maxval, DType dtype) {
  return global_generator().uniform(shape, minval, maxval, dtype);
}

Tensor random_normal(const Shape& shape, float mean, float stddev) {
  return global_generator().normal(shape, mean, stddev);
}

}  // namespace tl
