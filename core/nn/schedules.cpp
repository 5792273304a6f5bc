// Learning-rate schedules and LearningRate (a number or a schedule). Schedules are ops on the step tensor, so a
// traced train step evaluates them on every call from the optimizer's iterations Variable.
#include <cmath>
#include <limits>

#include "tracelab/nn/optimizers.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"
#include "tracelab/tensor/creation.h"

namespace tl::optimizers {
namespace {

void check_step(const char* who, const Tensor& step) {
  TL_CHECK(step.defined(), InvalidArgument, who, ": the step is an empty Tensor handle");
  TL_CHECK(step.dtype() == int32 || step.dtype() == float32, DTypeError, who,
           ": the step must be an int32 or float32 scalar, got ", meta_str(step.meta()));
  TL_CHECK(step.rank() == 0, ShapeError, who, ": the step must be a scalar, got ", meta_str(step.meta()));
}

}  // namespace

ExponentialDecay::ExponentialDecay(double initial_learning_rate, std::int64_t decay_steps, double decay_rate,
                                   bool staircase)
    : initial_(static_cast<float>(initial_learning_rate)), decay_steps_(decay_steps),
      decay_rate_(static_cast<float>(decay_rate)), staircase_(staircase) {
  TL_CHECK(decay_steps > 0, InvalidArgument, "ExponentialDecay: decay_steps must be positive, got ", decay_steps);
}

Tensor ExponentialDecay::operator()(const Tensor& step) const {
  check_step("ExponentialDecay", step);
  Tensor p = (step.dtype() == float32 ? step : cast(step, float32)) / static_cast<float>(decay_steps_);
  // floor(p) for p >= 0: the float -> int32 cast truncates toward zero (steps are never negative)
  if (staircase_) p = cast(cast(p, int32), float32);
  return initial_ * pow(Tensor(decay_rate_), p);
}

PiecewiseConstantDecay::PiecewiseConstantDecay(std::vector<std::int64_t> boundaries, std::vector<double> values) {
  TL_CHECK(values.size() == boundaries.size() + 1, InvalidArgument, "PiecewiseConstantDecay: ", boundaries.size(),
           " boundaries need ", boundaries.size() + 1, " values, got ", values.size());
  for (std::size_t i = 0; i < boundaries.size(); ++i) {
    TL_CHECK(boundaries[i] >= 0 && boundaries[i] <= std::numeric_limits<std::int32_t>::max(), InvalidArgument,
             "PiecewiseConstantDecay: boundary ", boundaries[i], " is outside [0, 2^31)");
    TL_CHECK(i == 0 || boundaries[i] > boundaries[i - 1], InvalidArgument,
             "PiecewiseConstantDecay: boundaries must increase, got ", boundaries[i - 1], " then ", boundaries[i]);
    boundaries_.push_back(static_cast<std::int32_t>(boundaries[i]));
  }
  for (double v : values) values_.push_back(static_cast<float>(v));
}

Tensor PiecewiseConstantDecay::operator()(const Tensor& step) const {
  check_step("PiecewiseConstantDecay", step);
  Tensor s = step.dtype() == int32 ? step : cast(step, int32);
  // From the last interval back: where step <= boundaries[i], the value of interval i wins.
  Tensor rate = scalar(values_.back());
  for (std::size_t i = boundaries_.size(); i-- > 0;)
    rate = where(greater(s, scalar(boundaries_[i])), rate, scalar(values_[i]));
  return rate;
}

LearningRate::LearningRate(double value) : value_(static_cast<float>(value)), constant_(scalar(value_)) {
  TL_CHECK(std::isfinite(value) && value >= 0, InvalidArgument,
           "learning_rate must be a finite non-negative number, got ", value);
}

LearningRate::LearningRate(std::shared_ptr<const LearningRateSchedule> schedule) : schedule_(std::move(schedule)) {
  TL_CHECK(schedule_ != nullptr, InvalidArgument, "learning_rate: the schedule is a null pointer");
}

Tensor LearningRate::at(const Tensor& step) const {
  if (!schedule_) return constant_;
  Tensor rate = (*schedule_)(step);
  TL_CHECK(rate.defined() && rate.dtype() == float32 && rate.rank() == 0, DTypeError,
           "learning_rate: the schedule must return a float32 scalar, got ",
           rate.defined() ? meta_str(rate.meta()) : std::string("an empty handle"));
  return rate;
}

}  // namespace tl::optimizers
