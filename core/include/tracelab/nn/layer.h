// Layer: the base of every Keras-style layer and model (tf.keras.layers.Layer). A layer is called like a
// function; on its first call it builds — creates its weights for the input's shape — and then runs `call`.
// Weights are tl::Variables named "<layer>/<weight>"; layers nest (a model is a layer that tracks sub-layers),
// and variables() collects them recursively in creation order. Layers live in std::shared_ptr.
//
//   auto dense = std::make_shared<tl::layers::Dense>(10, "relu");
//   tl::Tensor y = (*dense)(tl::ones({4, 20}));        // builds: kernel (20, 10), bias (10,)
//   dense->count_params();                             // 210
//
// Subclassing (the Keras pattern): derive from Layer, create sub-layers with track(...) in the constructor and
// override call(); see docs/layers.md. Everything a layer does in call() goes through ops, so a layer works
// eagerly, under a GradientTape and inside tl::function alike (weights are created on the first trace).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tracelab/autodiff/variable.h"
#include "tracelab/nn/initializers.h"
#include "tracelab/tensor/creation.h"
#include "tracelab/tensor/tensor.h"

namespace tl::layers {

class Layer;
/// Layers are shared: a model holds its sub-layers, a user may hold them too.
using LayerList = std::vector<std::shared_ptr<Layer>>;

/// What inputs a layer accepts (Keras' InputSpec), checked before every call with an error naming the layer.
struct InputSpec {
  int min_rank = 0;                                 ///< the input's rank must be at least this
  int max_rank = -1;                                ///< and at most this (-1: no bound)
  std::optional<DType> dtype;                       ///< the input's dtype, when fixed
  std::vector<std::pair<int, std::int64_t>> axes;   ///< (axis, size) pairs fixed at build; negative axes from the end
};

/// The base layer. Subclasses override build() (create weights) and call() (the computation).
class Layer {
 public:
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  /// Checks x against the input spec, builds on the first call, runs call(x, training) and records the output
  /// shape (shown by summary()). `training` switches layers such as Dropout to their training behaviour.
  Tensor operator()(const Tensor& x, bool training = false);

  /// The process-unique name: "dense", "dense_1", ... (an explicit name gets a suffix too if already taken).
  const std::string& name() const noexcept { return name_; }
  /// The class name shown by summary(), e.g. "Dense". Custom models should override it.
  virtual std::string type_name() const { return "Layer"; }
  /// True once the layer has built (its weights exist).
  bool built() const noexcept { return built_; }
  /// The shape of the last output (unknown dims -1 when called inside a traced function); nullopt before a call.
  const std::optional<Shape>& output_shape() const noexcept { return output_shape_; }
  /// The directly tracked sub-layers, in tracking order.
  const LayerList& layers() const noexcept { return layers_; }

  /// Every variable of this layer and its sub-layers (weights and state), in creation order, no duplicates.
  std::vector<Variable> variables() const;
  /// The trainable ones — what an optimizer updates.
  std::vector<Variable> trainable_variables() const;
  /// The others: non-trainable weights and state such as Dropout's call counter.
  std::vector<Variable> non_trainable_variables() const;
  /// The weights only (variables() without state), in creation order.
  std::vector<Variable> weights() const;
  /// Number of weight elements (state is not counted). InvalidArgument before the layer is built.
  std::int64_t count_params() const;

  /// A Keras-style table: one row per sub-layer (or the layer itself when it has none) with its output shape and
  /// parameter count, then total / trainable / non-trainable parameters. Unknown dims print as None.
  std::string summary() const;
  /// Sends summary() to the log sink (info level; the default sink writes it to stdout).
  void print_summary() const;

 protected:
  /// `name`: a base name ("my_model"); a suffix "_1", "_2", ... makes it unique in the process.
  explicit Layer(std::string_view name);
  /// `name`: the user's name, used as is (Keras keeps explicit names, so a fresh model built with the same names
  /// has the same variable names and restores a checkpoint of the old one); empty = `default_name`, made unique.
  Layer(std::string_view name, std::string_view default_name);

  /// Creates the layer's weights for inputs of `input_shape` (known where the weights need it). Runs once.
  virtual void build(const Shape& input_shape);
  /// The computation; `x` has passed the input spec and the layer is built.
  virtual Tensor call(const Tensor& x, bool training) = 0;

  /// A weight named "<layer>/<name>" with the initializer's value, drawn from the layer's generator (seeded
  /// when set_seed was given a seed, else tl::global_generator()). Call from build() or a constructor.
  Variable add_weight(const std::string& name, const Shape& shape, const initializers::Initializer& initializer,
                      bool trainable = true);
  /// A non-trainable variable that is state, not a weight (not counted by count_params), e.g. an RNG counter.
  Variable add_state(const std::string& name, const Tensor& initial);
  /// Tracks a sub-layer (its variables become this layer's) and returns it with its own type.
  template <class L>
  std::shared_ptr<L> track(std::shared_ptr<L> layer) {
    track_layer(layer);
    return layer;
  }
  /// The spec checked before each call (layers may narrow it in build(), e.g. fixing the last dim).
  InputSpec& input_spec() noexcept { return input_spec_; }
  /// Seeds the generator that add_weight draws from (nullopt: the global generator).
  void set_seed(std::optional<std::uint64_t> seed);
  /// "Dense 'dense_1'", the prefix of this layer's error messages.
  std::string describe() const;
  /// Checks x against the input spec and builds on first use; for layers with their own call forms.
  void ensure_built(const Tensor& x);
  /// Remembers y's shape as the layer's output shape.
  void record_output(const Tensor& y) { output_shape_ = y.shape(); }

 private:
  struct OwnedVariable {
    Variable variable;
    bool is_weight;
  };
  static void check_name(std::string_view name);
  void track_layer(std::shared_ptr<Layer> layer);
  void check_input(const Tensor& x) const;
  void collect(std::vector<OwnedVariable>& out) const;
  std::vector<OwnedVariable> all_variables() const;
  bool contains(const Layer* layer) const;

  std::string name_;
  bool built_ = false;
  InputSpec input_spec_;
  std::optional<Shape> output_shape_;
  std::vector<OwnedVariable> own_;
  LayerList layers_;
  std::optional<std::uint64_t> seed_;
  std::optional<Generator> generator_;
};

/// Applies an activation by Keras name: "none" (or "linear"), "relu", "sigmoid", "tanh", "softmax" (last axis).
Tensor apply_activation(std::string_view activation, const Tensor& x);
/// Throws InvalidArgument naming `who` unless `activation` is one apply_activation knows.
void check_activation(std::string_view who, std::string_view activation);

}  // namespace tl::layers
