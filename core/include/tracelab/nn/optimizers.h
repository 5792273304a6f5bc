// Optimizers (tf.keras.optimizers): SGD (with momentum / Nesterov), Adam and RMSprop with Keras 3's update
// formulas and defaults, and learning-rate schedules. apply_gradients updates Variables in place, eagerly or
// inside a tl::function (then the updates become graph nodes that run on every call).
//
//   tl::optimizers::Adam optimizer(1e-3);
//   auto grads = tape.gradient(loss, vars);
//   optimizer.apply_gradients(grads, vars);       // creates the slots (m, v) on the first call
//
// How it works: each optimizer keeps, per variable, zero-initialized slot Variables named
// "<optimizer name>/<variable name>/<slot>" (created on the first apply, so inside a traced step on its first
// trace) and an int32 `iterations` Variable counting applied steps. Each variable's update is ONE fused
// registry op (sgd_update, adam_update, ... in core/ops/optimizer_ops.cpp) whose outputs are assigned to the
// variable and its slots; the learning rate is a float or a schedule evaluated with ops on `iterations`, so
// a traced step sees the current rate on every call. Copies of an optimizer share its state (like Python
// references). variables() lists iterations and the slots, for checkpoints.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tracelab/autodiff/variable.h"
#include "tracelab/base/attrs.h"
#include "tracelab/tensor/tensor.h"

namespace tl {
class GradientTape;
class OpDef;
}

namespace tl::optimizers {

// ---------------------------------------------------------------- learning-rate schedules ----

/// A learning rate that depends on the step (keras.optimizers.schedules.LearningRateSchedule).
class LearningRateSchedule {
 public:
  virtual ~LearningRateSchedule() = default;
  /// The rate at `step` (an int32 scalar, the optimizer's iterations) as a float32 scalar, built from ops so it
  /// works inside a traced function.
  virtual Tensor operator()(const Tensor& step) const = 0;
};

/// initial * decay_rate ^ (step / decay_steps); with staircase the exponent is floored (integer division).
class ExponentialDecay : public LearningRateSchedule {
 public:
  /// decay_steps must be positive (InvalidArgument otherwise).
  ExponentialDecay(double initial_learning_rate, std::int64_t decay_steps, double decay_rate, bool staircase = false);
  /// The decayed rate at `step`.
  Tensor operator()(const Tensor& step) const override;

 private:
  float initial_;
  std::int64_t decay_steps_;
  float decay_rate_;
  bool staircase_;
};

/// values[0] while step <= boundaries[0], values[i] while boundaries[i-1] < step <= boundaries[i], values.back()
/// after the last boundary. Boundaries strictly increase; values has one more entry.
class PiecewiseConstantDecay : public LearningRateSchedule {
 public:
  /// Boundaries in [0, 2^31) and strictly increasing, one more value than boundaries; InvalidArgument otherwise.
  PiecewiseConstantDecay(std::vector<std::int64_t> boundaries, std::vector<double> values);
  /// The rate of the interval `step` falls in.
  Tensor operator()(const Tensor& step) const override;

 private:
  std::vector<std::int32_t> boundaries_;
  std::vector<float> values_;
};

/// A learning rate: a plain number or a schedule (converts implicitly from either).
class LearningRate {
 public:
  /// A constant rate: finite and >= 0 (InvalidArgument otherwise).
  LearningRate(double value);  // NOLINT(google-explicit-constructor): Adam(0.01)
  /// Any LearningRateSchedule, copied in: Adam(tl::optimizers::ExponentialDecay(0.1, 1000, 0.9)).
  template <class S, std::enable_if_t<std::is_base_of_v<LearningRateSchedule, S>, int> = 0>
  LearningRate(S schedule) : schedule_(std::make_shared<S>(std::move(schedule))) {}  // NOLINT
  /// A shared schedule (for schedules defined elsewhere).
  explicit LearningRate(std::shared_ptr<const LearningRateSchedule> schedule);

  /// The rate at `step` (int32 scalar) as a float32 scalar tensor.
  Tensor at(const Tensor& step) const;
  /// True for a schedule, false for a constant.
  bool is_schedule() const noexcept { return schedule_ != nullptr; }
  /// The constant rate (meaningless for a schedule).
  float value() const noexcept { return value_; }

 private:
  float value_ = 0;
  Tensor constant_;  ///< value_ as a float32 scalar, made once
  std::shared_ptr<const LearningRateSchedule> schedule_;
};

// ---------------------------------------------------------------- optimizers ----

namespace detail {
struct OptimizerState;
}

/// What an optimizer's apply_call sees for one apply_gradients call.
class UpdateContext {
 public:
  /// `step` is iterations + 1 (int32 scalar): the number this step will have once applied.
  UpdateContext(Tensor learning_rate, Tensor step) : learning_rate_(std::move(learning_rate)), step_(std::move(step)) {}
  /// The learning rate for this step (float32 scalar).
  const Tensor& learning_rate() const noexcept { return learning_rate_; }
  /// iterations + 1 as a float32 scalar (Adam's bias-correction step), computed once per apply.
  const Tensor& local_step() const;

 private:
  Tensor learning_rate_;
  Tensor step_;
  mutable Tensor local_step_;
};

/// The optimizer interface (tf.keras.optimizers.Optimizer). Subclasses name their slots and update one variable.
class Optimizer {
 public:
  virtual ~Optimizer();

  /// Updates each variable with its gradient. Undefined gradients are skipped (with a warning through the log
  /// sink, as TensorFlow's "Gradients do not exist for variables"); all undefined is an InvalidArgument. Sizes,
  /// dtypes and shapes are checked for every pair before anything changes. Increments iterations by one.
  void apply_gradients(const std::vector<Tensor>& grads, const std::vector<Variable>& vars);
  /// The same from (gradient, variable) pairs.
  void apply_gradients(const std::vector<std::pair<Tensor, Variable>>& grads_and_vars);
  /// Keras' minimize(loss, var_list, tape): tape.gradient(loss, vars), then apply_gradients.
  void minimize(GradientTape& tape, const Tensor& loss, const std::vector<Variable>& vars);
  /// The same for the variables the tape watched, the ones the loss read (Keras' default var_list is the
  /// trainable variables).
  void minimize(GradientTape& tape, const Tensor& loss);
  /// Creates the slots of `vars` now (Keras' build), e.g. before restoring a checkpoint. Idempotent.
  void build(const std::vector<Variable>& vars);

  /// The number of steps applied so far (an int32 scalar Variable named "<name>/iterations").
  const Variable& iterations() const noexcept;
  /// iterations followed by every slot, in creation order (for checkpoints).
  std::vector<Variable> variables() const;
  /// The slot `slot_name` of `var` (e.g. "m"); InvalidArgument when the optimizer has no such slot for it.
  Variable get_slot(const Variable& var, const std::string& slot_name) const;
  /// The current learning rate (the schedule at iterations) as a float32 scalar tensor; works traced.
  Tensor learning_rate() const;
  /// The optimizer's name, e.g. "Adam".
  const std::string& name() const noexcept;

 protected:
  /// An optimizer named `name` (the prefix of its variables), with its `iterations` Variable at 0.
  Optimizer(std::string name, LearningRate learning_rate);
  /// Copies (of an Adam as an Adam, ...) share the state — iterations, slots — like Python references.
  /// Protected, so an Optimizer& cannot be assigned from another kind of optimizer.
  Optimizer(const Optimizer&) = default;
  /// Makes this optimizer share the other's state, as the copy does.
  Optimizer& operator=(const Optimizer&) = default;
  /// The slots each variable gets, e.g. {"m", "v"} (may be empty).
  virtual std::vector<std::string> slot_names() const = 0;
  /// The op that updates every variable of a step and its slots in place (an `_apply` op of
  /// core/ops/optimizer_ops.cpp), its scalar inputs (after the gradients) and its attributes.
  struct ApplyCall {
    const OpDef* op;               ///< the registry op; not owned (registry ops live for the process)
    std::vector<Tensor> scalars;   ///< inputs after the gradients, e.g. the learning rate
    const Attrs* attrs;            ///< its attributes; not owned, must outlive the apply_gradients call
  };
  /// The op, scalars and attributes of one step; apply_gradients runs the op once, on every gradient, variable
  /// and slot of the step together.
  virtual ApplyCall apply_call(const UpdateContext& context) const = 0;

 private:
  const std::vector<Variable>& slots_for(const Variable& var) const;
  std::shared_ptr<detail::OptimizerState> state_;
};

/// tf.keras.optimizers.SGD: w -= lr g; with momentum m = momentum m - lr g, w += m (Nesterov:
/// w += momentum m - lr g). Slot "momentum" only when momentum != 0.
class SGD : public Optimizer {
 public:
  /// momentum in [0, 1] (InvalidArgument otherwise).
  explicit SGD(LearningRate learning_rate = 0.01, double momentum = 0.0, bool nesterov = false,
               std::string name = "SGD");
  double momentum() const noexcept { return momentum_; }  ///< the momentum factor
  bool nesterov() const noexcept { return nesterov_; }    ///< Nesterov momentum or not

 protected:
  std::vector<std::string> slot_names() const override;
  ApplyCall apply_call(const UpdateContext& context) const override;

 private:
  double momentum_;
  bool nesterov_;
  Attrs attrs_;  ///< the fused op's attributes, built once
};

/// tf.keras.optimizers.Adam (Keras 3): m, v moving averages; the step uses lr sqrt(1 - beta_2^t) / (1 - beta_1^t)
/// and divides by sqrt(v) + epsilon (epsilon "hat"). Slots "m" and "v".
class Adam : public Optimizer {
 public:
  /// beta_1, beta_2 in [0, 1), epsilon >= 0 (InvalidArgument otherwise).
  explicit Adam(LearningRate learning_rate = 0.001, double beta_1 = 0.9, double beta_2 = 0.999,
                double epsilon = 1e-7, std::string name = "Adam");
  double beta_1() const noexcept { return beta_1_; }    ///< decay of the first moment
  double beta_2() const noexcept { return beta_2_; }    ///< decay of the second moment
  double epsilon() const noexcept { return epsilon_; }  ///< added to sqrt(v)

 protected:
  std::vector<std::string> slot_names() const override;
  ApplyCall apply_call(const UpdateContext& context) const override;

 private:
  double beta_1_, beta_2_, epsilon_;
  Attrs attrs_;
};

/// tf.keras.optimizers.RMSprop (Keras 3, not centered): rms = rho rms + (1 - rho) g^2,
/// step lr g / sqrt(rms + epsilon), with optional momentum. Slots "rms" (and "momentum" when momentum > 0).
class RMSprop : public Optimizer {
 public:
  /// rho in [0, 1], momentum in [0, 1], epsilon >= 0 (InvalidArgument otherwise).
  explicit RMSprop(LearningRate learning_rate = 0.001, double rho = 0.9, double momentum = 0.0,
                   double epsilon = 1e-7, std::string name = "RMSprop");
  double rho() const noexcept { return rho_; }            ///< decay of the squared-gradient average
  double momentum() const noexcept { return momentum_; }  ///< the momentum factor
  double epsilon() const noexcept { return epsilon_; }    ///< added under the square root

 protected:
  std::vector<std::string> slot_names() const override;
  ApplyCall apply_call(const UpdateContext& context) const override;

 private:
  double rho_, momentum_, epsilon_;
  Attrs attrs_;
};

}  // namespace tl::optimizers
