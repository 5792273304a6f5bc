// Metrics (tf.keras.metrics): running means over batches — Mean, MeanSquaredError, BinaryAccuracy,
// SparseCategoricalAccuracy. Each keeps two non-trainable float32 scalar Variables, total and count; update_state
// adds to them with assign_add and result() is total / count (0 while count is 0, never NaN). All of it is ops,
// so update_state and result() work eagerly and inside a traced train step alike.
//
//   tl::metrics::SparseCategoricalAccuracy accuracy;
//   accuracy.update_state(labels, logits);        // per batch (also inside a tl::function)
//   float value = accuracy.result().item<float>(); accuracy.reset_state();   // per epoch
//
// As in Keras 3, values are reduced to one number per sample (the mean over the non-batch dims) and count grows
// by the batch size, so result() is the mean over every sample seen since the last reset_state().
#pragma once

#include <string>
#include <vector>

#include "tracelab/autodiff/variable.h"
#include "tracelab/tensor/tensor.h"

namespace tl::metrics {

/// The base of every metric here: a running mean held in `total` and `count` Variables.
class Metric {
 public:
  virtual ~Metric() = default;
  /// total / count as a float32 scalar, 0 when nothing was counted.
  Tensor result() const;
  /// Sets total and count back to 0 (an assignment: works traced too).
  void reset_state();
  /// The state Variables {total, count}, named "<name>/total" and "<name>/count".
  std::vector<Variable> variables() const { return {total_, count_}; }
  /// Keras' name, e.g. "sparse_categorical_accuracy".
  const std::string& name() const noexcept { return name_; }

 protected:
  /// A metric named `name`, with its total and count Variables at 0.
  explicit Metric(std::string name);
  /// Adds per-sample `values` (float32, any rank; rank >= 2 is averaged over its non-batch dims first).
  void accumulate(const Tensor& values);

 private:
  std::string name_;
  Variable total_;
  Variable count_;
};

/// tf.keras.metrics.Mean: the mean of every value passed to update_state.
class Mean : public Metric {
 public:
  /// A mean, 0 until the first update.
  explicit Mean(std::string name = "mean") : Metric(std::move(name)) {}
  /// Adds `values` (float32, int32 or bool; cast to float32). A scalar counts as one sample.
  void update_state(const Tensor& values);
};

/// A metric computed per sample from (y_true, y_pred) and averaged (keras.metrics.MeanMetricWrapper).
class MeanMetricWrapper : public Metric {
 public:
  /// Adds the per-sample values of one batch.
  void update_state(const Tensor& y_true, const Tensor& y_pred);
  /// The metric's value for each sample of a batch (float32).
  virtual Tensor per_sample(const Tensor& y_true, const Tensor& y_pred) const = 0;

 protected:
  /// A metric named `name`.
  explicit MeanMetricWrapper(std::string name) : Metric(std::move(name)) {}
};

/// tf.keras.metrics.MeanSquaredError: the mean of tl::losses::mean_squared_error over samples.
class MeanSquaredError : public MeanMetricWrapper {
 public:
  /// A running mean squared error.
  explicit MeanSquaredError(std::string name = "mean_squared_error") : MeanMetricWrapper(std::move(name)) {}
  /// Per-sample mean squared error.
  Tensor per_sample(const Tensor& y_true, const Tensor& y_pred) const override;
};

/// tf.keras.metrics.BinaryAccuracy: how often (y_pred > threshold) equals y_true (0 or 1).
class BinaryAccuracy : public MeanMetricWrapper {
 public:
  /// Predictions above `threshold` count as 1.
  explicit BinaryAccuracy(double threshold = 0.5, std::string name = "binary_accuracy")
      : MeanMetricWrapper(std::move(name)), threshold_(static_cast<float>(threshold)) {}
  /// 1 where the thresholded prediction matches the target, else 0 (shapes as for the losses).
  Tensor per_sample(const Tensor& y_true, const Tensor& y_pred) const override;
  /// The decision threshold.
  float threshold() const noexcept { return threshold_; }

 private:
  float threshold_;
};

/// tf.keras.metrics.SparseCategoricalAccuracy: how often argmax(y_pred) equals the integer label.
class SparseCategoricalAccuracy : public MeanMetricWrapper {
 public:
  /// A running accuracy over integer labels.
  explicit SparseCategoricalAccuracy(std::string name = "sparse_categorical_accuracy")
      : MeanMetricWrapper(std::move(name)) {}
  /// 1 where argmax over the last axis of y_pred equals the label (int32 or integral float32), else 0.
  Tensor per_sample(const Tensor& y_true, const Tensor& y_pred) const override;
};

}  // namespace tl::metrics
