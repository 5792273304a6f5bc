// compile and fit (Keras' model.compile / model.fit): a model with its loss, optimizer and metrics, and the
// training loop that Keras runs for you — per epoch, every batch of a Dataset through one traced train step
// (tape, loss, gradients, apply_gradients, metric updates), then the validation set through a traced test step;
// the metrics are reset at the start of every epoch and of every evaluation. fit returns a History of per-epoch
// means, as keras.callbacks.History does.
//
//   auto compiled = tl::layers::compile(model, {.optimizer = std::make_shared<tl::optimizers::Adam>(2e-3),
//       .loss = std::make_shared<tl::losses::SparseCategoricalCrossentropy>(), .metrics = {"accuracy"}});
//   tl::layers::History history = compiled.fit(train_set, {.epochs = 6, .validation_data = validation_set});
//   history.history.at("val_accuracy").back();
//
// Each dataset element is (x, y). The steps are tl::functions whose input signature is the dataset's element_spec
// (a smaller last batch does not retrace); the train step traces twice on its first call (it creates the
// optimizer's slots, then traces again with variable creation forbidden, as TensorFlow does). With
// run_eagerly the same steps run as plain calls. docs/training.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tracelab/data/dataset.h"
#include "tracelab/nn/layer.h"
#include "tracelab/nn/losses.h"
#include "tracelab/nn/metrics.h"
#include "tracelab/nn/optimizers.h"

namespace tl::layers {

/// What Keras' model.compile takes.
struct CompileOptions {
  std::shared_ptr<optimizers::Optimizer> optimizer{};  ///< required
  std::shared_ptr<losses::Loss> loss{};               ///< required; its batch mean is what the gradients minimize
  /// By Keras name: "accuracy" / "acc" (chosen from the loss: sparse categorical or binary),
  /// "sparse_categorical_accuracy", "binary_accuracy", "mse" / "mean_squared_error".
  std::vector<std::string> metrics{};
  bool run_eagerly = false;  ///< Keras' run_eagerly: the steps run as plain calls, not tl::functions
};

/// What Keras' model.fit takes besides the data.
struct FitOptions {
  std::int64_t epochs = 1;                         ///< at least 1
  std::optional<data::Dataset> validation_data{};  ///< (x, y) batches evaluated after every epoch
  bool verbose = true;                             ///< a progress bar per epoch (drawn only on a terminal)
};

/// keras.callbacks.History: per-epoch means under Keras' keys — "loss", each metric's name, and with validation
/// data "val_loss" and "val_<metric>".
struct History {
  std::vector<std::int64_t> epoch;                       ///< 0, 1, ... as Keras counts them
  std::map<std::string, std::vector<double>> history;    ///< key -> one value per epoch
  std::vector<double> seconds;                           ///< wall time of each epoch (training and validation)
};

/// A model compiled with a loss, an optimizer and metrics (Keras' model after model.compile). Copies share state.
class CompiledModel {
 public:
  /// Checks the options (InvalidArgument naming compile and what is missing or unknown).
  CompiledModel(std::shared_ptr<Layer> model, CompileOptions options);

  /// Trains on `train` (elements (x, y)) for options.epochs epochs; returns the per-epoch means.
  History fit(const data::Dataset& train, const FitOptions& options = {});
  /// One pass over `data` (elements (x, y)) with training off: {"loss": ..., "<metric>": ...}.
  std::map<std::string, double> evaluate(const data::Dataset& data);

  /// The model it trains.
  const std::shared_ptr<Layer>& model() const noexcept;
  /// How many times the train step was traced (0 with run_eagerly; 2 after the first fit that built the slots).
  int train_tracing_count() const;
  /// How many times the test step was traced.
  int test_tracing_count() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// Keras' model.compile(optimizer=..., loss=..., metrics=[...]) as a value.
CompiledModel compile(std::shared_ptr<Layer> model, CompileOptions options);

}  // namespace tl::layers
