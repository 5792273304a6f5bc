// Metrics: a running mean in two Variables, updated with assign_add and read with ops, so the same code runs
// eagerly and inside a traced step. Metric computations are not recorded by gradient tapes.
#include "tracelab/nn/metrics.h"

#include <cstdint>

#include "tracelab/autodiff/tape.h"
#include "tracelab/nn/losses.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"
#include "tracelab/ops/reduce.h"
#include "tracelab/tensor/creation.h"

namespace tl::metrics {
namespace {

bool last_dim_is_one(const Tensor& t) { return t.rank() > 0 && t.shape()[static_cast<std::size_t>(t.rank() - 1)] == 1; }

void check_inputs(const char* who, const Tensor& y_true, const Tensor& y_pred) {
  TL_CHECK(y_true.defined() && y_pred.defined(), InvalidArgument, who,
           ": y_true and y_pred must not be empty Tensor handles");
  TL_CHECK(y_pred.dtype() == float32, DTypeError, who, ": y_pred must be float32, got ", meta_str(y_pred.meta()));
}

/// The number of samples in per-sample `values` as a float32 scalar: static when the batch dim is known.
Tensor sample_count(const Tensor& values) {
  if (values.rank() == 0) return scalar(1.f);
  const std::int64_t batch = values.shape()[0];
  if (batch >= 0) return scalar(static_cast<float>(batch));
  return reduce_sum(ones_like(values));  // unknown while tracing: counted by the graph
}

}  // namespace

Metric::Metric(std::string name)
    : name_(std::move(name)), total_(scalar(0.f), name_ + "/total", /*trainable=*/false),
      count_(scalar(0.f), name_ + "/count", /*trainable=*/false) {}

Tensor Metric::result() const {
  Tensor total = total_.value(), count = count_.value();
  return where(equal(count, 0.f), 0.f, total / count);  // divide_no_nan
}

void Metric::reset_state() {
  total_.assign(scalar(0.f));
  count_.assign(scalar(0.f));
}

void Metric::accumulate(const Tensor& values) {
  TL_CHECK(values.defined() && values.dtype() == float32, DTypeError, name_, ": per-sample values must be float32");
  tl::detail::PauseRecording pause;
  Tensor per_sample = values;
  if (values.rank() >= 2) {  // Keras 3: one value per sample, the mean over the other dims
    Ints axes;
    for (int d = 1; d < values.rank(); ++d) axes.push_back(d);
    per_sample = reduce_mean(values, axes);
  }
  Tensor count = sample_count(per_sample);
  total_.assign_add(per_sample.rank() == 0 ? per_sample : reduce_sum(per_sample));
  count_.assign_add(count);
}

void Mean::update_state(const Tensor& values) {
  TL_CHECK(values.defined(), InvalidArgument, name(), ": update_state got an empty Tensor handle");
  tl::detail::PauseRecording pause;
  accumulate(values.dtype() == float32 ? values : cast(values, float32));
}

void MeanMetricWrapper::update_state(const Tensor& y_true, const Tensor& y_pred) {
  tl::detail::PauseRecording pause;
  accumulate(per_sample(y_true, y_pred));
}

Tensor MeanSquaredError::per_sample(const Tensor& y_true, const Tensor& y_pred) const {
  return losses::mean_squared_error(y_true, y_pred);
}

Tensor BinaryAccuracy::per_sample(const Tensor& y_true, const Tensor& y_pred) const {
  check_inputs("BinaryAccuracy", y_true, y_pred);
  Tensor t = y_true, p = y_pred;
  if (t.rank() == p.rank() + 1 && last_dim_is_one(t)) t = squeeze(t, {-1});
  else if (p.rank() == t.rank() + 1 && last_dim_is_one(p)) p = squeeze(p, {-1});
  TL_CHECK(t.shape().is_compatible_with(p.shape()), ShapeError, "BinaryAccuracy: y_true ", meta_str(y_true.meta()),
           " and y_pred ", meta_str(y_pred.meta()), " must have the same shape");
  if (t.dtype() != float32) t = cast(t, float32);
  return cast(equal(t, cast(greater(p, threshold_), float32)), float32);
}

Tensor SparseCategoricalAccuracy::per_sample(const Tensor& y_true, const Tensor& y_pred) const {
  check_inputs("SparseCategoricalAccuracy", y_true, y_pred);
  TL_CHECK(y_pred.rank() >= 1, ShapeError, "SparseCategoricalAccuracy: y_pred must have a class axis, got ",
           meta_str(y_pred.meta()));
  TL_CHECK(y_true.dtype() == int32 || y_true.dtype() == float32, DTypeError,
           "SparseCategoricalAccuracy: labels (y_true) must be int32 or float32, got ", meta_str(y_true.meta()));
  Tensor labels = y_true;
  if (labels.rank() == y_pred.rank() && last_dim_is_one(labels)) labels = squeeze(labels, {-1});
  const auto& dims = y_pred.shape().dims();
  TL_CHECK(labels.shape().is_compatible_with(Shape(std::vector<std::int64_t>(dims.begin(), dims.end() - 1))),
           ShapeError, "SparseCategoricalAccuracy: labels ", meta_str(y_true.meta()), " and y_pred ",
           meta_str(y_pred.meta()), " do not match: labels need the shape of y_pred without its last axis");
  if (labels.dtype() != int32) labels = cast(labels, int32);
  return cast(equal(labels, argmax(y_pred, y_pred.rank() - 1)), float32);
}

}  // namespace tl::metrics
