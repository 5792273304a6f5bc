// Initializers: plain C++ over freshly drawn concrete tensors (no ops, so building inside a trace gives concrete
// values). Portability: the random draws happen in tensor/random.cpp (compiled without FMA contraction); here each
// value is at most one float multiply, which no compiler can fuse, so native and WASM agree bit for bit.
#include "tracelab/nn/initializers.h"

#include <algorithm>
#include <cmath>

namespace tl::initializers {

Fans compute_fans(const Shape& shape) {
  TL_CHECK(shape.is_fully_defined(), ShapeError, "initializer: the weight shape ", shape.str(),
           " must be fully defined");
  const auto& d = shape.dims();
  Fans fans;
  if (d.size() == 1) {
    fans.fan_in = fans.fan_out = static_cast<double>(d[0]);
  } else if (d.size() >= 2) {
    double receptive = 1;
    for (std::size_t i = 0; i + 2 < d.size(); ++i) receptive *= static_cast<double>(d[i]);
    fans.fan_in = static_cast<double>(d[d.size() - 2]) * receptive;
    fans.fan_out = static_cast<double>(d.back()) * receptive;
  }
  return fans;
}

Initializer zeros() {
  return [](const Shape& shape, Generator&) { return tl::zeros(shape); };
}

Initializer ones() {
  return [](const Shape& shape, Generator&) { return tl::ones(shape); };
}

Initializer constant(float value) {
  return [value](const Shape& shape, Generator&) { return tl::fill(shape, scalar(value)); };
}

Initializer random_uniform(double minval, double maxval) {
  TL_CHECK(std::isfinite(minval) && std::isfinite(maxval) && minval < maxval, InvalidArgument,
           "initializers::random_uniform: need finite minval < maxval, got [", minval, ", ", maxval, ")");
  return [minval, maxval](const Shape& shape, Generator& gen) { return gen.uniform(shape, minval, maxval); };
}

Initializer glorot_uniform() {
  return [](const Shape& shape, Generator& gen) {
    Fans fans = compute_fans(shape);
    double limit = std::sqrt(6.0 / std::max(1.0, fans.fan_in + fans.fan_out));
    return gen.uniform(shape, -limit, limit);
  };
}

Initializer he_normal() {
  return [](const Shape& shape, Generator& gen) {
    // 0.8796... is the stddev of a unit normal truncated to [-2, 2] (Keras' constant).
    auto stddev = static_cast<float>(std::sqrt(2.0 / std::max(1.0, compute_fans(shape).fan_in)) / 0.87962566103423978);
    Tensor out = gen.normal(shape, 0, 1);
    float* values = out.mutable_data<float>();
    for (std::int64_t i = 0, n = out.num_elements(); i < n; ++i) {
      float z = values[i];
      while (std::fabs(z) > 2.f) z = gen.normal({1}, 0, 1).data<float>()[0];  // redraw outside two stddevs
      values[i] = z * stddev;
    }
    return out;
  };
}

}  // namespace tl::initializers
