// Conv2D, MaxPool2D, AvgPool2D and Flatten over NHWC images, on the registry's conv2d / pooling / reshape ops.
#include <algorithm>
#include <cctype>

#include "tracelab/nn/layers.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"
#include "tracelab/ops/nn.h"

namespace tl::layers {
namespace {

/// Keras' "valid" / "same" (any case) as the ops' "VALID" / "SAME".
std::string op_padding(const std::string& who, std::string padding) {
  std::transform(padding.begin(), padding.end(), padding.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  TL_CHECK(padding == "VALID" || padding == "SAME", InvalidArgument, who,
           ": padding must be \"valid\" or \"same\", got \"", padding, "\"");
  return padding;
}

void check_positive(const std::string& who, const char* what, const Size2& size) {
  TL_CHECK(size.height > 0 && size.width > 0, InvalidArgument, who, ": ", what, " must be positive, got (",
           size.height, ", ", size.width, ")");
}

Ints ints(const Size2& size) { return {size.height, size.width}; }

}  // namespace

// ---- Conv2D ----
Conv2D::Conv2D(std::int64_t filters, Size2 kernel_size, Conv2DOptions options)
    : Layer(options.name, "conv2d"),
      filters_(filters),
      kernel_size_(kernel_size),
      options_(std::move(options)) {
  TL_CHECK(filters > 0, InvalidArgument, "Conv2D: filters must be positive, got ", filters);
  check_positive(describe(), "kernel_size", kernel_size_);
  check_positive(describe(), "strides", options_.strides);
  check_activation(describe(), options_.activation);
  padding_ = op_padding(describe(), options_.padding);
  set_seed(options_.seed);
  input_spec().min_rank = input_spec().max_rank = 4;
  input_spec().dtype = float32;
}

void Conv2D::build(const Shape& input_shape) {
  std::int64_t channels = input_shape.dim(-1);
  TL_CHECK(channels >= 0, ShapeError, describe(), ": the channel dim (last, NHWC) must be known to build, got ",
           input_shape.str());
  kernel_ = add_weight("kernel", Shape{kernel_size_.height, kernel_size_.width, channels, filters_},
                       options_.kernel_initializer);
  if (options_.use_bias) bias_ = add_weight("bias", Shape{filters_}, options_.bias_initializer);
  input_spec().axes = {{-1, channels}};
}

Tensor Conv2D::call(const Tensor& x, bool) {
  Tensor y = conv2d(x, kernel_->read(), ints(options_.strides), padding_);
  if (bias_) y = y + bias_->read();
  return apply_activation(options_.activation, y);
}

Variable Conv2D::kernel() const {
  TL_CHECK(kernel_.has_value(), InvalidArgument, describe(), ": kernel: the layer is not built yet");
  return *kernel_;
}

// ---- pooling ----
Pool2D::Pool2D(const char* type, const char* default_name, Size2 pool_size, const Pool2DOptions& options)
    : Layer(options.name, default_name),
      pool_(ints(pool_size)),
      strides_(ints(options.strides.value_or(pool_size))) {
  check_positive(type, "pool_size", pool_size);
  check_positive(type, "strides", options.strides.value_or(pool_size));
  padding_ = op_padding(type, options.padding);
  input_spec().min_rank = input_spec().max_rank = 4;
  input_spec().dtype = float32;
}

MaxPool2D::MaxPool2D(Size2 pool_size, const Pool2DOptions& options)
    : Pool2D("MaxPool2D", "max_pool2d", pool_size, options) {}

Tensor MaxPool2D::call(const Tensor& x, bool) { return max_pool2d(x, pool_, strides_, padding_); }

AvgPool2D::AvgPool2D(Size2 pool_size, const Pool2DOptions& options)
    : Pool2D("AvgPool2D", "avg_pool2d", pool_size, options) {}

Tensor AvgPool2D::call(const Tensor& x, bool) { return avg_pool2d(x, pool_, strides_, padding_); }

// ---- Flatten ----
Flatten::Flatten(std::string name) : Layer(name, "flatten") { input_spec().min_rank = 1; }

Tensor Flatten::call(const Tensor& x, bool) {
  std::int64_t rest = 1;
  for (int i = 1; i < x.rank(); ++i) {
    std::int64_t d = x.shape()[static_cast<std::size_t>(i)];
    TL_CHECK(d >= 0, ShapeError, describe(), ": every dim but the batch dim must be known, got ", meta_str(x.meta()));
    rest *= d;
  }
  // A known batch dim is kept as is (so a batch of 0 works); an unknown one becomes reshape's -1.
  std::int64_t batch = x.shape()[0];
  return reshape(x, {batch >= 0 ? batch : -1, rest});
}

}  // namespace tl::layers
