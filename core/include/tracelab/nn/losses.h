// Losses (tf.keras.losses): callable objects that compare targets with predictions and return one float32
// scalar, the mean of the per-sample losses over the batch (Keras' default reduction, SUM_OVER_BATCH_SIZE;
// an empty batch gives 0). They are built from public ops only, so they work eagerly, under a GradientTape
// and inside a tl::function alike. The per-sample functions (keras.losses.mean_squared_error, ...) are here too.
//
//   tl::losses::SparseCategoricalCrossentropy loss_fn(/*from_logits=*/true);
//   tl::Tensor loss = loss_fn(labels, logits);        // labels int32 (batch,), logits f32 (batch, classes)
//   auto grads = tape.gradient(loss, model_variables);
//
// Numerics follow Keras 3: from_logits paths go through log_softmax or the stable form
// max(x, 0) - x z + log(1 + exp(-|x|)), so logits of +-100 give finite losses and gradients; probability paths
// clip predictions to [epsilon, 1 - epsilon] with epsilon = 1e-7 before taking logs. Mismatched shapes or
// dtypes are ShapeError / DTypeError naming the loss and both metas.
#pragma once

#include <string>

#include "tracelab/tensor/tensor.h"

namespace tl::losses {

/// Keras' backend.epsilon(): how far probability paths keep predictions from 0 and 1.
inline constexpr float epsilon = 1e-7f;

// ---- per-sample losses: one value per sample (the last axis is reduced) ----
// y_true and y_pred have one shape, except that a trailing size-1 dim on either side is squeezed when the
// ranks differ by one ((batch,) vs (batch, 1)), as Keras does. y_pred is float32; y_true is float32, int32 or
// bool and is cast to float32.

/// mean((y_true - y_pred)^2) over the last axis.
Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred);
/// -mean(z log p + (1 - z) log(1 - p)) over the last axis; from_logits: p = sigmoid(y_pred), computed stably.
Tensor binary_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits = false);
/// -sum(y_true log p) over the last (class) axis; p = y_pred normalized to sum 1, or softmax(y_pred) from logits.
Tensor categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits = false);
/// -log p[label] with int32 (or integral float32) labels of shape y_pred.shape[:-1] (or with a trailing 1);
/// y_pred holds probabilities or logits over the last axis. Concrete labels outside [0, classes) are an
/// InvalidArgument; inside a traced function they give a loss of 0 for that sample (no values are read).
Tensor sparse_categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits = false);

/// The mean of per-sample losses, 0 for an empty batch (Keras' SUM_OVER_BATCH_SIZE with divide_no_nan).
Tensor reduce_over_batch(const Tensor& per_sample);

/// A loss object: call() gives per-sample losses, operator() reduces them over the batch.
class Loss {
 public:
  virtual ~Loss() = default;
  /// The batch mean of call(y_true, y_pred): a float32 scalar.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred) const {
    return reduce_over_batch(call(y_true, y_pred));
  }
  /// Per-sample losses.
  virtual Tensor call(const Tensor& y_true, const Tensor& y_pred) const = 0;
  /// Keras' name, e.g. "mean_squared_error".
  const std::string& name() const noexcept { return name_; }

 protected:
  /// A loss named `name` (Keras' name).
  explicit Loss(std::string name) : name_(std::move(name)) {}

 private:
  std::string name_;
};

/// tf.keras.losses.MeanSquaredError.
class MeanSquaredError : public Loss {
 public:
  /// A mean-squared-error loss.
  explicit MeanSquaredError(std::string name = "mean_squared_error") : Loss(std::move(name)) {}
  /// Per-sample mean squared error.
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
};

/// tf.keras.losses.BinaryCrossentropy: targets in [0, 1], predictions probabilities or logits.
class BinaryCrossentropy : public Loss {
 public:
  /// `from_logits`: y_pred holds logits rather than probabilities.
  explicit BinaryCrossentropy(bool from_logits = false, std::string name = "binary_crossentropy")
      : Loss(std::move(name)), from_logits_(from_logits) {}
  /// Per-sample binary crossentropy (mean over the last axis).
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  /// True when y_pred holds logits.
  bool from_logits() const noexcept { return from_logits_; }

 private:
  bool from_logits_;
};

/// tf.keras.losses.CategoricalCrossentropy: one-hot (or soft) targets over the last axis.
class CategoricalCrossentropy : public Loss {
 public:
  /// `from_logits`: y_pred holds logits rather than probabilities.
  explicit CategoricalCrossentropy(bool from_logits = false, std::string name = "categorical_crossentropy")
      : Loss(std::move(name)), from_logits_(from_logits) {}
  /// Per-sample categorical crossentropy.
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  /// True when y_pred holds logits.
  bool from_logits() const noexcept { return from_logits_; }

 private:
  bool from_logits_;
};

/// tf.keras.losses.SparseCategoricalCrossentropy: integer class labels.
class SparseCategoricalCrossentropy : public Loss {
 public:
  /// `from_logits`: y_pred holds logits rather than probabilities.
  explicit SparseCategoricalCrossentropy(bool from_logits = false,
                                         std::string name = "sparse_categorical_crossentropy")
      : Loss(std::move(name)), from_logits_(from_logits) {}
  /// Per-sample sparse categorical crossentropy.
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  /// True when y_pred holds logits.
  bool from_logits() const noexcept { return from_logits_; }

 private:
  bool from_logits_;
};

}  // namespace tl::losses
