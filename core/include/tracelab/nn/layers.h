// The built-in layers (tf.keras.layers): Dense, Conv2D, MaxPool2D, AvgPool2D, Flatten, Dropout, SimpleRNNCell,
// SimpleRNN and Sequential. Options are structs with Keras' argument names, filled with designated initializers;
// images are NHWC as in TensorFlow's default. A layer given a seed draws bit-identical weights natively and in
// WASM. docs/layers.md has the table of Keras names and the subclassing pattern.
//
//   using namespace tl::layers;
//   auto model = std::make_shared<Sequential>(LayerList{std::make_shared<Dense>(10, "relu"),
//                                                       std::make_shared<Dropout>(0.5), std::make_shared<Dense>(1)});
//   tl::Tensor y = (*model)(x, /*training=*/true);   std::cout << model->summary();
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tracelab/base/attrs.h"
#include "tracelab/nn/initializers.h"
#include "tracelab/nn/layer.h"

namespace tl::layers {

/// A (height, width) pair; a single number means the same for both, as in Keras (`3` or `{3, 5}`).
struct Size2 {
  /// The same size for height and width.
  Size2(std::int64_t both) : height(both), width(both) {}  // NOLINT(google-explicit-constructor): Keras' ints
  /// Height `h`, width `w`.
  Size2(std::int64_t h, std::int64_t w) : height(h), width(w) {}
  std::int64_t height;  ///< along dim 1 of NHWC
  std::int64_t width;   ///< along dim 2 of NHWC
};

// ---- Dense ----
/// Dense's options (Keras names). `seed` seeds the weights; without one they come from tl::global_generator().
struct DenseOptions {
  std::string activation = "none";  ///< none | linear | relu | sigmoid | tanh | softmax
  bool use_bias = true;             ///< add a bias vector
  initializers::Initializer kernel_initializer = initializers::glorot_uniform();  ///< fills the kernel at build
  initializers::Initializer bias_initializer = initializers::zeros();             ///< fills the bias at build
  std::optional<std::uint64_t> seed{};  ///< seeds the initializers; unset: tl::global_generator()
  std::string name{};                   ///< empty: "dense", "dense_1", ...
};

/// activation(x @ kernel + bias) over the last dim; any rank >= 2 ((batch, features), (batch, time, features),
/// (1, 1, features) from a keepdims reduction, ...). kernel (features, units), bias (units,).
class Dense : public Layer {
 public:
  /// A layer of `units` outputs (> 0, else InvalidArgument); the kernel is made on the first call.
  explicit Dense(std::int64_t units, DenseOptions options = {});
  /// Dense(10, "relu").
  Dense(std::int64_t units, std::string activation, DenseOptions options = {});
  std::string type_name() const override { return "Dense"; }
  /// The number of outputs.
  std::int64_t units() const noexcept { return units_; }
  /// The kernel (features, units); InvalidArgument before the layer is built.
  Variable kernel() const;
  /// The bias (units,); InvalidArgument before the build or without use_bias.
  Variable bias() const;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;

 private:
  std::int64_t units_;
  DenseOptions options_;
  std::optional<Variable> kernel_, bias_;
};

// ---- Conv2D and pooling (NHWC) ----
/// Conv2D's options (Keras names); padding "valid" or "same" (either case).
struct Conv2DOptions {
  Size2 strides = 1;                ///< step of the window along height and width
  std::string padding = "valid";    ///< "valid" (no padding) or "same" (output size ceil(input / stride))
  std::string activation = "none";  ///< none | linear | relu | sigmoid | tanh | softmax
  bool use_bias = true;             ///< add a bias per filter
  initializers::Initializer kernel_initializer = initializers::glorot_uniform();  ///< fills the kernel at build
  initializers::Initializer bias_initializer = initializers::zeros();             ///< fills the bias at build
  std::optional<std::uint64_t> seed{};  ///< seeds the initializers; unset: tl::global_generator()
  std::string name{};                   ///< empty: "conv2d", "conv2d_1", ...
};

/// activation(conv2d(x, kernel) + bias) on NHWC images: kernel (kh, kw, in_channels, filters), bias (filters,).
class Conv2D : public Layer {
 public:
  /// `filters` output channels (> 0) with a kernel_size window (positive sizes); InvalidArgument otherwise.
  Conv2D(std::int64_t filters, Size2 kernel_size, Conv2DOptions options = {});
  std::string type_name() const override { return "Conv2D"; }
  /// The kernel (kh, kw, in_channels, filters); InvalidArgument before the build.
  Variable kernel() const;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;

 private:
  std::int64_t filters_;
  Size2 kernel_size_;
  Conv2DOptions options_;
  std::string padding_;  // "VALID" / "SAME" for the op
  std::optional<Variable> kernel_, bias_;
};

/// Pooling options: strides default to the pool size (Keras); padding "valid" or "same".
struct Pool2DOptions {
  std::optional<Size2> strides{};  ///< step of the window; unset: the pool size
  std::string padding = "valid";   ///< "valid" or "same"
  std::string name{};              ///< empty: "max_pool2d" / "avg_pool2d", with a suffix when taken
};

/// What MaxPool2D and AvgPool2D share: the window, the strides, the padding and the NHWC input spec.
class Pool2D : public Layer {
 protected:
  /// `type` names the layer in construction errors, `default_name` is its base name.
  Pool2D(const char* type, const char* default_name, Size2 pool_size, const Pool2DOptions& options);
  Ints pool_;            ///< the window, {height, width}
  Ints strides_;         ///< the strides, {height, width}
  std::string padding_;  ///< "VALID" or "SAME", as the pooling ops take it
};

/// Max over each pool_size window of NHWC images (tf.keras.layers.MaxPool2D). No weights.
class MaxPool2D : public Pool2D {
 public:
  /// Windows of pool_size (positive sizes, else InvalidArgument).
  explicit MaxPool2D(Size2 pool_size = 2, const Pool2DOptions& options = {});
  std::string type_name() const override { return "MaxPool2D"; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
};

/// Mean over each pool_size window, padding cells excluded as in TensorFlow (tf.keras.layers.AvgPool2D). No weights.
class AvgPool2D : public Pool2D {
 public:
  /// Windows of pool_size (positive sizes, else InvalidArgument).
  explicit AvgPool2D(Size2 pool_size = 2, const Pool2DOptions& options = {});
  std::string type_name() const override { return "AvgPool2D"; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
};

/// (batch, d1, d2, ...) -> (batch, d1*d2*...); the batch dim may be unknown, the others must be known.
class Flatten : public Layer {
 public:
  /// A Flatten layer; an empty name gives "flatten", "flatten_1", ...
  explicit Flatten(std::string name = "");
  std::string type_name() const override { return "Flatten"; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
};

// ---- Dropout ----
/// Dropout's options. Without a seed, one is drawn from tl::global_generator() when the layer is made.
struct DropoutOptions {
  std::optional<std::int32_t> seed{};  ///< the masks' seed; unset: drawn from tl::global_generator()
  std::string name{};                  ///< empty: "dropout", "dropout_1", ...
};

/// Training: zeroes each element with probability `rate` and scales the rest by 1 / (1 - rate); otherwise the
/// identity. The mask is random_uniform_like(x, [seed, counter]) >= rate, where the int32 state variable
/// "<name>/seed_counter" goes up by one on every training call — so masks differ per call, eagerly and in traced
/// functions (the increment is a graph assign), and one seed always gives the same sequence of masks.
class Dropout : public Layer {
 public:
  /// Drops a fraction `rate` of the elements in training; rate must be in [0, 1) (InvalidArgument otherwise).
  explicit Dropout(double rate, DropoutOptions options = {});
  std::string type_name() const override { return "Dropout"; }
  /// The probability of zeroing an element.
  double rate() const noexcept { return rate_; }
  /// The seed the masks derive from.
  std::int32_t seed() const noexcept { return seed_; }
  /// How many training calls have drawn a mask (a state variable; checkpoints save it).
  const Variable& counter() const noexcept { return counter_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;

 private:
  double rate_;
  std::int32_t seed_;
  Variable counter_;
};

// ---- recurrent ----
/// SimpleRNNCell's and SimpleRNN's options (Keras names). Keras' default recurrent initializer is orthogonal,
/// which Tracelab lacks: glorot_uniform is the default here.
struct SimpleRNNOptions {
  std::string activation = "tanh";  ///< none | linear | relu | sigmoid | tanh | softmax
  bool use_bias = true;             ///< add a bias vector
  /// Fills the kernel (features, units) at build.
  initializers::Initializer kernel_initializer = initializers::glorot_uniform();
  /// Fills the recurrent kernel (units, units) at build.
  initializers::Initializer recurrent_initializer = initializers::glorot_uniform();
  /// Fills the bias (units,) at build.
  initializers::Initializer bias_initializer = initializers::zeros();
  bool return_sequences = false;  ///< SimpleRNN only: all steps (batch, time, units) instead of the last
  std::optional<std::uint64_t> seed{};  ///< seeds the initializers; unset: tl::global_generator()
  std::string name{};                   ///< empty: "simple_rnn_cell" / "simple_rnn", with a suffix when taken
};

/// One step h' = activation(x @ kernel + h @ recurrent_kernel + bias): x (batch, features), h (batch, units).
class SimpleRNNCell : public Layer {
 public:
  /// A cell with a state of `units` (> 0, else InvalidArgument); return_sequences is ignored.
  explicit SimpleRNNCell(std::int64_t units, SimpleRNNOptions options = {});
  std::string type_name() const override { return "SimpleRNNCell"; }
  /// The size of the state.
  std::int64_t units() const noexcept { return units_; }
  using Layer::operator();
  /// One step from state h (batch, units) to the new state; builds on the first call like operator()(x).
  Tensor operator()(const Tensor& x, const Tensor& h);

 protected:
  void build(const Shape& input_shape) override;
  /// One step from the zero state (the h @ recurrent_kernel term vanishes), so no zeros of the batch are needed.
  Tensor call(const Tensor& x, bool training) override;

 private:
  Tensor step(const Tensor& x, const Tensor* h);
  std::int64_t units_;
  SimpleRNNOptions options_;
  std::optional<Variable> kernel_, recurrent_kernel_, bias_;
};

/// Runs a SimpleRNNCell over the time axis of (batch, time, features) from a zero state; the time dim must be
/// known (the loop is unrolled in C++). Returns the last state (batch, units), or every state
/// (batch, time, units) with return_sequences.
class SimpleRNN : public Layer {
 public:
  /// An RNN whose cell has `units` (> 0, else InvalidArgument); `options.name` names this layer, the cell gets
  /// its own name.
  explicit SimpleRNN(std::int64_t units, SimpleRNNOptions options = {});
  std::string type_name() const override { return "SimpleRNN"; }
  /// The cell it runs at each step (a tracked sub-layer: its weights are this layer's).
  const std::shared_ptr<SimpleRNNCell>& cell() const noexcept { return cell_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;

 private:
  bool return_sequences_;
  std::shared_ptr<SimpleRNNCell> cell_;
};

// ---- Sequential ----
/// A stack of layers, each feeding the next (tf.keras.Sequential). `training` is passed to every layer.
class Sequential : public Layer {
 public:
  /// A stack of `layers` (each add()ed in order); an empty name gives "sequential", "sequential_1", ...
  explicit Sequential(LayerList layers = {}, std::string name = "");
  std::string type_name() const override { return "Sequential"; }
  /// Appends a layer (tracked: its variables become the model's). The same layer may appear twice (shared weights).
  void add(std::shared_ptr<Layer> layer);
  /// The layers in call order.
  const LayerList& stack() const noexcept { return stack_; }

 protected:
  /// Only checks that there are layers: each layer builds itself on its first call.
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;

 private:
  LayerList stack_;
};

}  // namespace tl::layers
