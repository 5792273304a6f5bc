// Dense: activation(x @ kernel + bias). matmul broadcasts the kernel over x's leading dims, so any rank >= 2 works
// ((batch, features), (batch, time, features), (1, 1, features)) and the gradient sums over those dims.
#include "tracelab/nn/layers.h"
#include "tracelab/ops/linalg.h"
#include "tracelab/ops/math.h"

namespace tl::layers {

Dense::Dense(std::int64_t units, DenseOptions options)
    : Layer(options.name, "dense"), units_(units), options_(std::move(options)) {
  TL_CHECK(units > 0, InvalidArgument, "Dense: units must be positive, got ", units);
  check_activation(describe(), options_.activation);
  set_seed(options_.seed);
  input_spec().min_rank = 2;
  input_spec().dtype = float32;
}

Dense::Dense(std::int64_t units, std::string activation, DenseOptions options)
    : Dense(units, [&] {
        options.activation = std::move(activation);
        return std::move(options);
      }()) {}

void Dense::build(const Shape& input_shape) {
  std::int64_t features = input_shape.dim(-1);
  TL_CHECK(features >= 0, ShapeError, describe(), ": the last dim of the input must be known to build, got ",
           input_shape.str());
  kernel_ = add_weight("kernel", Shape{features, units_}, options_.kernel_initializer);
  if (options_.use_bias) bias_ = add_weight("bias", Shape{units_}, options_.bias_initializer);
  input_spec().axes = {{-1, features}};
}

Tensor Dense::call(const Tensor& x, bool) {
  Tensor y = matmul(x, kernel_->read());
  if (bias_) y = y + bias_->read();
  return apply_activation(options_.activation, y);
}

Variable Dense::kernel() const {
  TL_CHECK(kernel_.has_value(), InvalidArgument, describe(), ": kernel: the layer is not built yet");
  return *kernel_;
}

Variable Dense::bias() const {
  TL_CHECK(bias_.has_value(), InvalidArgument, describe(), ": bias: ",
           options_.use_bias ? "the layer is not built yet" : "the layer has no bias (use_bias = false)");
  return *bias_;
}

}  // namespace tl::layers
