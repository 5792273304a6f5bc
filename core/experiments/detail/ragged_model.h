// The ragged experiment's model, optimizer and train step, shared by the runner's modes and by initial_kernels().
#pragma once

#include <memory>

#include "tracelab/autodiff/tape.h"
#include "tracelab/experiments/ragged.h"
#include "tracelab/nn/layers.h"
#include "tracelab/nn/losses.h"
#include "tracelab/nn/optimizers.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/reduce.h"

namespace tl::experiments::detail {

/// Dense+relu per hidden width, then Dense(1); Glorot-uniform kernels seeded from the config, zero biases.
inline std::shared_ptr<layers::Sequential> make_model(const RaggedConfig& config) {
  auto model = std::make_shared<layers::Sequential>();
  std::uint64_t seed = config.seed * 7919 + 1;
  for (std::int64_t units : config.hidden_units)
    model->add(std::make_shared<layers::Dense>(units, layers::DenseOptions{.activation = "relu", .seed = seed++}));
  model->add(std::make_shared<layers::Dense>(1, layers::DenseOptions{.seed = seed}));
  return model;
}

inline std::shared_ptr<optimizers::Optimizer> make_optimizer(const RaggedConfig& config) {
  if (config.optimizer == "sgd") return std::make_shared<optimizers::SGD>(config.learning_rate);
  if (config.optimizer == "rmsprop") return std::make_shared<optimizers::RMSprop>(config.learning_rate);
  return std::make_shared<optimizers::Adam>(config.learning_rate);
}

/// One model with its optimizer: step(x, y) trains once and returns the loss — eagerly, or traced inside a
/// tl::function (then it runs while tracing only and its ops become the graph).
class RaggedTrainer {
 public:
  explicit RaggedTrainer(const RaggedConfig& config) : model_(make_model(config)), optimizer_(make_optimizer(config)) {}

  /// prediction = Dense chain on reduce_max(x, axis 1, keepdims), flattened to (batch,); loss = MSE.
  Tensor step(const Tensor& x, const Tensor& y) {
    GradientTape tape;
    Tensor prediction = reshape((*model_)(reduce_max(x, {1}, true)), {-1});
    Tensor loss = loss_(y, prediction);
    if (variables_.empty()) variables_ = model_->trainable_variables();  // built by the first call
    optimizer_->apply_gradients(tape.gradient(loss, variables_), variables_);
    return loss;
  }

  const layers::Sequential& model() const noexcept { return *model_; }

 private:
  std::shared_ptr<layers::Sequential> model_;
  std::shared_ptr<optimizers::Optimizer> optimizer_;
  losses::MeanSquaredError loss_;
  std::vector<Variable> variables_;
};

}  // namespace tl::experiments::detail
