// SimpleRNNCell (one step) and SimpleRNN (the cell unrolled over a static time dim in a C++ loop — each step's ops
// land in the graph when traced; a tl::while_loop would serve unknown time dims, at the price of simplicity).
#include "tracelab/nn/layers.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/linalg.h"
#include "tracelab/ops/math.h"

namespace tl::layers {

// ---- SimpleRNNCell ----
SimpleRNNCell::SimpleRNNCell(std::int64_t units, SimpleRNNOptions options)
    : Layer(options.name, "simple_rnn_cell"), units_(units), options_(std::move(options)) {
  TL_CHECK(units > 0, InvalidArgument, "SimpleRNNCell: units must be positive, got ", units);
  check_activation(describe(), options_.activation);
  set_seed(options_.seed);
  input_spec().min_rank = input_spec().max_rank = 2;
  input_spec().dtype = float32;
}

void SimpleRNNCell::build(const Shape& input_shape) {
  std::int64_t features = input_shape.dim(-1);
  TL_CHECK(features >= 0, ShapeError, describe(), ": the feature dim of the input must be known to build, got ",
           input_shape.str());
  kernel_ = add_weight("kernel", Shape{features, units_}, options_.kernel_initializer);
  recurrent_kernel_ = add_weight("recurrent_kernel", Shape{units_, units_}, options_.recurrent_initializer);
  if (options_.use_bias) bias_ = add_weight("bias", Shape{units_}, options_.bias_initializer);
  input_spec().axes = {{-1, features}};
}

Tensor SimpleRNNCell::step(const Tensor& x, const Tensor* h) {
  Tensor y = matmul(x, kernel_->read());
  if (h != nullptr) y = y + matmul(*h, recurrent_kernel_->read());
  if (bias_) y = y + bias_->read();
  return apply_activation(options_.activation, y);
}

Tensor SimpleRNNCell::call(const Tensor& x, bool) { return step(x, nullptr); }

Tensor SimpleRNNCell::operator()(const Tensor& x, const Tensor& h) {
  ensure_built(x);
  bool fits = h.defined() && h.dtype() == float32 && h.rank() == 2 &&
              h.shape().is_compatible_with(Shape{x.shape()[0], units_});
  TL_CHECK(fits, ShapeError, describe(), ": the state must be f32[batch, ", units_, "] for the input ", meta_str(x.meta()),
           ", got ", h.defined() ? meta_str(h.meta()) : std::string("an empty handle"));
  Tensor y = step(x, &h);
  record_output(y);
  return y;
}

// ---- SimpleRNN ----
SimpleRNN::SimpleRNN(std::int64_t units, SimpleRNNOptions options)
    : Layer(options.name, "simple_rnn"), return_sequences_(options.return_sequences) {
  options.name.clear();  // the name was this layer's; the cell takes its own
  cell_ = track(std::make_shared<SimpleRNNCell>(units, std::move(options)));
  input_spec().min_rank = input_spec().max_rank = 3;
  input_spec().dtype = float32;
}

Tensor SimpleRNN::call(const Tensor& x, bool training) {
  std::int64_t time = x.shape()[1];
  TL_CHECK(time > 0, ShapeError, describe(), ": the time dim (axis 1) must be known and positive (the loop is "
           "unrolled), got ", meta_str(x.meta()));
  std::vector<Tensor> states;
  Tensor h = (*cell_)(gather(x, scalar(std::int32_t{0}), 1), training);
  states.push_back(h);
  for (std::int64_t t = 1; t < time; ++t) {
    h = (*cell_)(gather(x, scalar(static_cast<std::int32_t>(t)), 1), h);
    states.push_back(h);
  }
  return return_sequences_ ? stack(states, 1) : h;
}

}  // namespace tl::layers
