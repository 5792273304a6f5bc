// Dense: activation(x @ kernel + bias). matmul broadcasts the kernel over x's leading dims, so any rank >= 2 works
// ((batch, features), (batch, time, features), (1, 1, features)) and the gradient sums over those dims.
#include "tracelab/eager/execute.h"
#include "tracelab/nn/layers.h"
#include "tracelab/ops/linalg.h"
#include "tracelab/ops/math.h"
#include "tracelab/registry/registry.h"

namespace tl::layers {

namespace {

/// fused_matmul's attributes for an activation it computes exactly as the unfused op does, made once; nullptr for
/// the others. sigmoid and tanh stay unfused: fused, they run over a row at a time, and Eigen evaluates a short row
/// with the scalar exp / tanh where the op over the whole tensor uses the vectorized ones, which differ in the
/// last bit.
const Attrs* fused_attrs(std::string_view activation) {
  static const Attrs none{{"activation", std::string("none")}}, relu{{"activation", std::string("relu")}};
  if (activation == "none" || activation == "linear") return &none;
  if (activation == "relu") return &relu;
  return nullptr;
}

}  // namespace

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
  Tensor kernel = kernel_->read();
  // Eagerly, matmul + bias (+ relu) run as the one fused_matmul op the graph optimizer makes of them: a third of
  // the ops and tape records, the same arithmetic (the kernel adds the bias and applies relu as add and relu do),
  // and a gradient rule made of the unfused chain's gradient ops. A trace records the separate ops, as
  // TensorFlow's graph has them, and the optimizer fuses them there (graph.md).
  if (const Attrs* attrs = bias_ && detail::active_interceptor() == nullptr ? fused_attrs(options_.activation) : nullptr) {
    static const OpDef& fused = OpRegistry::global().get("fused_matmul");
    return execute(fused, {x, kernel, bias_->read()}, *attrs);
  }
  Tensor y = matmul(x, kernel);
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
