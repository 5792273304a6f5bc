// compile / fit / evaluate: Keras' built-in training loop over a Dataset of (x, y) batches, with the train and
// test steps traced as tl::functions (or run as plain calls with run_eagerly).
#include "tracelab/nn/fit.h"

#include <chrono>
#include <utility>

#include "tracelab/autodiff/tape.h"
#include "tracelab/base/clock.h"
#include "tracelab/function/function.h"
#include "tracelab/nn/progress.h"

namespace tl::layers {
namespace {

using MetricPtr = std::shared_ptr<metrics::MeanMetricWrapper>;

/// The metric a Keras name stands for; "accuracy" follows the loss, as Keras' compile does.
MetricPtr make_metric(const std::string& name, const losses::Loss& loss) {
  if (name == "accuracy" || name == "acc") {
    if (dynamic_cast<const losses::SparseCategoricalCrossentropy*>(&loss) != nullptr)
      return std::make_shared<metrics::SparseCategoricalAccuracy>(name);
    TL_CHECK(dynamic_cast<const losses::BinaryCrossentropy*>(&loss) != nullptr, InvalidArgument, "compile: metric '",
             name, "' is chosen from the loss, which must be sparse_categorical_crossentropy or binary_crossentropy; got '",
             loss.name(), "' (name the metric instead, e.g. \"mean_squared_error\")");
    return std::make_shared<metrics::BinaryAccuracy>(0.5, name);
  }
  if (name == "sparse_categorical_accuracy") return std::make_shared<metrics::SparseCategoricalAccuracy>(name);
  if (name == "binary_accuracy") return std::make_shared<metrics::BinaryAccuracy>(0.5, name);
  TL_CHECK(name == "mse" || name == "mean_squared_error", InvalidArgument, "compile: unknown metric '", name,
           "'; expected one of accuracy, acc, sparse_categorical_accuracy, binary_accuracy, mse, mean_squared_error");
  return std::make_shared<metrics::MeanSquaredError>(name);
}

/// The (x, y) input signature of a dataset's elements; `who` names the caller in the error.
std::vector<TensorSpec> pair_spec(const std::string& who, const data::Dataset& dataset) {
  const std::vector<TensorSpec>& spec = dataset.element_spec();
  TL_CHECK(spec.size() == 2, InvalidArgument, who, ": each element must be (x, y), got ", spec.size(),
           " components: ", dataset.str());
  return {TensorSpec(spec[0].shape(), spec[0].dtype(), "x"), TensorSpec(spec[1].shape(), spec[1].dtype(), "y")};
}

/// Resets a step's loss tracker and metrics (at the start of an epoch or an evaluation).
void reset(metrics::Mean& loss, const std::vector<MetricPtr>& metrics) {
  loss.reset_state();
  for (const MetricPtr& metric : metrics) metric->reset_state();
}

/// {"loss": the tracked mean, each metric's name: its result}.
std::map<std::string, double> results(metrics::Mean& loss, const std::vector<MetricPtr>& metrics) {
  std::map<std::string, double> out{{"loss", loss.result().item<float>()}};
  for (const MetricPtr& metric : metrics) out[metric->name()] = metric->result().item<float>();
  return out;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

struct CompiledModel::State {
  /// One traced (or eager) step and the element_spec it was made for.
  struct TracedStep {
    std::function<Tensor(const Tensor&, const Tensor&)> call;
    std::function<int()> traces = [] { return 0; };
    std::vector<TensorSpec> spec;
    int earlier_traces = 0;  // traces of the steps this one replaced (another element_spec)
  };

  std::shared_ptr<Layer> model;
  CompileOptions options;
  metrics::Mean train_loss{"loss"}, test_loss{"val_loss"};
  std::vector<MetricPtr> train_metrics, test_metrics;
  TracedStep train, test;

  /// Forward pass with training on, gradients of the batch mean loss, one optimizer step, metric updates.
  Tensor train_step(const Tensor& x, const Tensor& y) {
    GradientTape tape;
    Tensor y_pred = (*model)(x, /*training=*/true);
    Tensor per_sample = options.loss->call(y, y_pred);
    Tensor loss = losses::reduce_over_batch(per_sample);
    std::vector<Variable> variables = model->trainable_variables();
    options.optimizer->apply_gradients(tape.gradient(loss, variables), variables);
    train_loss.update_state(per_sample);  // weighted by the batch size, as Keras' loss tracker is
    for (const MetricPtr& metric : train_metrics) metric->update_state(y, y_pred);
    return loss;
  }

  /// Forward pass with training off, no tape; metric updates.
  Tensor test_step(const Tensor& x, const Tensor& y) {
    Tensor y_pred = (*model)(x, /*training=*/false);
    Tensor per_sample = options.loss->call(y, y_pred);
    test_loss.update_state(per_sample);
    for (const MetricPtr& metric : test_metrics) metric->update_state(y, y_pred);
    return losses::reduce_over_batch(per_sample);
  }

  /// Makes `step` fit `dataset`'s element_spec: reuses it, or (a first call, another spec) builds it anew.
  void prepare(TracedStep& step, const std::string& who, const data::Dataset& dataset, bool training) {
    std::vector<TensorSpec> spec = pair_spec(who, dataset);
    if (step.call && step.spec == spec) return;
    step.earlier_traces += step.traces();
    step.spec = spec;
    std::function<Tensor(const Tensor&, const Tensor&)> body = [this, training](const Tensor& x, const Tensor& y) { return training ? train_step(x, y) : test_step(x, y); };
    if (options.run_eagerly) {
      step.call = std::move(body);
      step.traces = [] { return 0; };
      return;
    }
    auto traced = tl::function(std::move(body), {.input_signature = InputSignature(spec),
                                                  .name = training ? "train_function" : "test_function"});
    step.call = [traced](const Tensor& x, const Tensor& y) mutable { return traced(x, y); };
    step.traces = [traced] { return traced.tracing_count(); };
  }

  /// Runs the test step over `data` after resetting the test metrics; returns {"loss", metric names...}.
  std::map<std::string, double> evaluate(const data::Dataset& data) {
    reset(test_loss, test_metrics);
    for (const data::Element& batch : data) test.call(batch[0], batch[1]);
    return results(test_loss, test_metrics);
  }

  /// One epoch of training after resetting the train metrics; returns {"loss", metric names...}.
  std::map<std::string, double> train_epoch(const data::Dataset& data, bool verbose) {
    reset(train_loss, train_metrics);
    std::optional<ProgressBar> bar;
    if (verbose && data.cardinality() >= 0) bar.emplace(data.cardinality());
    std::int64_t step = 0;
    for (const data::Element& batch : data) {
      Tensor loss = train.call(batch[0], batch[1]);
      ++step;
      if (bar) bar->update(step, {{"loss", loss.item<float>()}});
    }
    if (bar) bar->finish();
    return results(train_loss, train_metrics);
  }
};

CompiledModel::CompiledModel(std::shared_ptr<Layer> model, CompileOptions options)
    : state_(std::make_shared<State>()) {
  TL_CHECK(model != nullptr, InvalidArgument, "compile: the model is an empty pointer");
  TL_CHECK(options.optimizer != nullptr, InvalidArgument, "compile: an optimizer is required (options.optimizer)");
  TL_CHECK(options.loss != nullptr, InvalidArgument, "compile: a loss is required (options.loss)");
  for (const std::string& name : options.metrics) {
    state_->train_metrics.push_back(make_metric(name, *options.loss));
    state_->test_metrics.push_back(make_metric(name, *options.loss));
  }
  state_->model = std::move(model);
  state_->options = std::move(options);
}

History CompiledModel::fit(const data::Dataset& train, const FitOptions& options) {
  TL_CHECK(options.epochs >= 1, InvalidArgument, "fit: epochs must be at least 1, got ", options.epochs);
  State& state = *state_;
  state.prepare(state.train, "fit", train, /*training=*/true);
  if (options.validation_data) state.prepare(state.test, "fit: validation_data", *options.validation_data, false);
  History history;
  for (std::int64_t epoch = 0; epoch < options.epochs; ++epoch) {
    Clock::time_point start = Clock::now();
    for (const auto& [key, value] : state.train_epoch(train, options.verbose)) history.history[key].push_back(value);
    if (options.validation_data)
      for (const auto& [key, value] : state.evaluate(*options.validation_data))
        history.history["val_" + key].push_back(value);
    history.epoch.push_back(epoch);
    history.seconds.push_back(seconds_since(start));
  }
  return history;
}

std::map<std::string, double> CompiledModel::evaluate(const data::Dataset& data) {
  state_->prepare(state_->test, "evaluate", data, /*training=*/false);
  return state_->evaluate(data);
}

const std::shared_ptr<Layer>& CompiledModel::model() const noexcept { return state_->model; }

int CompiledModel::train_tracing_count() const { return state_->train.earlier_traces + state_->train.traces(); }

int CompiledModel::test_tracing_count() const { return state_->test.earlier_traces + state_->test.traces(); }

CompiledModel compile(std::shared_ptr<Layer> model, CompileOptions options) {
  return CompiledModel(std::move(model), std::move(options));
}

}  // namespace tl::layers
