// Losses: shape/dtype checks that name the loss, then the per-sample formulas as public ops (so the tape
// differentiates them and the tracer records them), then the batch mean.
#include "tracelab/nn/losses.h"

#include <cstdint>
#include <vector>

#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"
#include "tracelab/ops/nn.h"
#include "tracelab/ops/reduce.h"
#include "tracelab/tensor/creation.h"

namespace tl::losses {
namespace {

/// Both sides after the checks: float32, one shape.
struct Aligned {
  Tensor y_true;
  Tensor y_pred;
};

void check_defined(const char* who, const Tensor& y_true, const Tensor& y_pred) {
  TL_CHECK(y_true.defined() && y_pred.defined(), InvalidArgument, who, ": y_true and y_pred must not be empty "
           "Tensor handles");
}

void check_pred_dtype(const char* who, const Tensor& y_pred) {
  TL_CHECK(y_pred.dtype() == float32, DTypeError, who, ": y_pred must be float32, got ", meta_str(y_pred.meta()));
}

bool last_dim_is_one(const Tensor& t) { return t.rank() > 0 && t.shape()[static_cast<std::size_t>(t.rank() - 1)] == 1; }

/// Keras' squeeze_or_expand_to_same_rank: when the ranks differ by one and the longer side ends in a size-1
/// dim, that dim is squeezed ((batch,) vs (batch, 1)).
void squeeze_to_same_rank(Tensor& a, Tensor& b) {
  if (a.rank() == b.rank() + 1 && last_dim_is_one(a)) a = squeeze(a, {-1});
  else if (b.rank() == a.rank() + 1 && last_dim_is_one(b)) b = squeeze(b, {-1});
}

/// Checks dtypes, squeezes a trailing 1, checks that the shapes agree and casts y_true to float32.
Aligned align(const char* who, Tensor y_true, Tensor y_pred) {
  check_defined(who, y_true, y_pred);
  check_pred_dtype(who, y_pred);
  const std::string given = meta_str(y_true.meta()) + " and y_pred " + meta_str(y_pred.meta());
  squeeze_to_same_rank(y_true, y_pred);
  TL_CHECK(y_true.shape().is_compatible_with(y_pred.shape()), ShapeError, who, ": y_true ", given,
           " must have the same shape");
  if (y_true.dtype() != float32) y_true = cast(y_true, float32);
  return {y_true, y_pred};
}

/// Mean over the last axis (a scalar stays as it is).
Tensor mean_last_axis(const Tensor& x) {
  if (x.rank() == 0) return x;
  return reduce_mean(x, {-1});
}

Tensor mse(const char* who, const Tensor& y_true, const Tensor& y_pred) {
  Aligned a = align(who, y_true, y_pred);
  return mean_last_axis(square(a.y_pred - a.y_true));
}

/// TF's sigmoid_cross_entropy_with_logits: max(x, 0) - x z + log(1 + exp(-|x|)). The max and |x| are written
/// with x >= 0 selecting one branch, so the gradient at x = 0 is sigmoid(0) - z, as in TensorFlow.
Tensor bce_from_logits(const Tensor& z, const Tensor& x) {
  Tensor negative = less(x, 0.f);
  Tensor relu_x = where(negative, zeros_like(x), x);
  Tensor neg_abs_x = where(negative, x, -x);
  return relu_x - x * z + log(1.f + exp(neg_abs_x));
}

Tensor bce(const char* who, const Tensor& y_true, const Tensor& y_pred, bool from_logits) {
  Aligned a = align(who, y_true, y_pred);
  if (from_logits) return mean_last_axis(bce_from_logits(a.y_true, a.y_pred));
  Tensor p = clip_by_value(a.y_pred, epsilon, 1.f - epsilon);
  return mean_last_axis(-(a.y_true * log(p) + (1.f - a.y_true) * log(1.f - p)));
}

void check_has_class_axis(const char* who, const Tensor& y_pred) {
  TL_CHECK(y_pred.rank() >= 1, ShapeError, who, ": y_pred must have a class axis (rank >= 1), got ",
           meta_str(y_pred.meta()));
}

Tensor cce(const char* who, const Tensor& y_true, const Tensor& y_pred, bool from_logits) {
  Aligned a = align(who, y_true, y_pred);
  check_has_class_axis(who, a.y_pred);
  if (from_logits) return -reduce_sum(a.y_true * log_softmax(a.y_pred, -1), {-1});
  Tensor p = clip_by_value(a.y_pred / reduce_sum(a.y_pred, {-1}, true), epsilon, 1.f - epsilon);
  return -reduce_sum(a.y_true * log(p), {-1});
}

/// Concrete labels must lie in [0, classes); symbolic ones cannot be read and are not checked.
void check_label_range(const char* who, const Tensor& labels, std::int64_t classes) {
  if (labels.is_symbolic()) return;
  for (std::int32_t label : labels.to_vector<std::int32_t>())
    TL_CHECK(label >= 0 && label < classes, InvalidArgument, who, ": label ", label, " is outside [0, ", classes,
             ") for y_pred with ", classes, " classes");
}

Tensor sparse_cce(const char* who, Tensor labels, const Tensor& y_pred, bool from_logits) {
  check_defined(who, labels, y_pred);
  check_pred_dtype(who, y_pred);
  check_has_class_axis(who, y_pred);
  TL_CHECK(labels.dtype() == int32 || labels.dtype() == float32, DTypeError, who,
           ": labels (y_true) must be int32 or float32 class indices, got ", meta_str(labels.meta()));
  const std::string given = meta_str(labels.meta()) + " and y_pred " + meta_str(y_pred.meta());
  if (labels.rank() == y_pred.rank() && last_dim_is_one(labels)) labels = squeeze(labels, {-1});
  const std::vector<std::int64_t>& dims = y_pred.shape().dims();
  Shape batch_shape(std::vector<std::int64_t>(dims.begin(), dims.end() - 1));
  TL_CHECK(labels.shape().is_compatible_with(batch_shape), ShapeError, who, ": labels ", given,
           " do not match: labels need the shape of y_pred without its last (class) axis");
  const std::int64_t classes = dims.back();
  TL_CHECK(classes >= 0, ShapeError, who, ": the number of classes (the last dim of y_pred ",
           meta_str(y_pred.meta()), ") must be known");
  if (labels.dtype() != int32) labels = cast(labels, int32);
  check_label_range(who, labels, classes);
  Tensor log_p = from_logits ? log_softmax(y_pred, -1)
                             : log_softmax(log(clip_by_value(y_pred, epsilon, 1.f - epsilon)), -1);
  return -reduce_sum(one_hot(labels, classes) * log_p, {-1});
}

}  // namespace

Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred) {
  return mse("mean_squared_error", y_true, y_pred);
}
Tensor binary_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits) {
  return bce("binary_crossentropy", y_true, y_pred, from_logits);
}
Tensor categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits) {
  return cce("categorical_crossentropy", y_true, y_pred, from_logits);
}
Tensor sparse_categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits) {
  return sparse_cce("sparse_categorical_crossentropy", y_true, y_pred, from_logits);
}

Tensor reduce_over_batch(const Tensor& per_sample) {
  TL_CHECK(per_sample.defined() && per_sample.dtype() == float32, DTypeError,
           "reduce_over_batch: per-sample losses must be float32");
  if (per_sample.rank() == 0) return per_sample;
  if (per_sample.shape().is_fully_defined())  // the count is static: one reduce_mean, or 0 for an empty batch
    return per_sample.num_elements() > 0 ? reduce_mean(per_sample) : reduce_sum(per_sample);
  // divide_no_nan(sum, count) with the count computed by the graph (the batch size is unknown while tracing)
  return reduce_sum(per_sample) / maximum(reduce_sum(ones_like(per_sample)), 1.f);
}

Tensor MeanSquaredError::call(const Tensor& y_true, const Tensor& y_pred) const {
  return mse("MeanSquaredError", y_true, y_pred);
}
Tensor BinaryCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  return bce("BinaryCrossentropy", y_true, y_pred, from_logits_);
}
Tensor CategoricalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  return cce("CategoricalCrossentropy", y_true, y_pred, from_logits_);
}
Tensor SparseCategoricalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  return sparse_cce("SparseCategoricalCrossentropy", y_true, y_pred, from_logits_);
}

}  // namespace tl::losses
