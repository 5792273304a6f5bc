// RMSprop (tf.keras.optimizers.RMSprop, Keras 3 formulas, not centered): one rmsprop_update (or
// rmsprop_momentum_update) op per variable (core/ops/optimizer_ops.cpp).
#include <array>

#include "tracelab/nn/optimizers.h"
#include "tracelab/registry/registry.h"

namespace tl::optimizers {

RMSprop::RMSprop(LearningRate learning_rate, double rho, double momentum, double epsilon, std::string name)
    : Optimizer(std::move(name), std::move(learning_rate)), rho_(rho), momentum_(momentum), epsilon_(epsilon) {
  TL_CHECK(rho >= 0 && rho <= 1, InvalidArgument, "RMSprop: rho must be in [0, 1], got ", rho);
  TL_CHECK(momentum >= 0 && momentum <= 1, InvalidArgument, "RMSprop: momentum must be in [0, 1], got ", momentum);
  TL_CHECK(epsilon >= 0, InvalidArgument, "RMSprop: epsilon must be >= 0, got ", epsilon);
  attrs_.set("rho", rho).set("epsilon", epsilon);
  if (momentum > 0) attrs_.set("momentum", momentum);
}

std::vector<std::string> RMSprop::slot_names() const {
  if (momentum_ > 0) return {"rms", "momentum"};
  return {"rms"};
}

/// rms' = rho rms + (1 - rho) g^2; step = lr g / sqrt(rms' + epsilon); w' = w - step, or with momentum
/// mom' = momentum mom + step, w' = w - mom'.
void RMSprop::update_step(const Variable& var, std::span<const Variable> slots, const Tensor& grad,
                          const UpdateContext& context) const {
  if (momentum_ == 0) {
    static const OpDef& plain = OpRegistry::global().get("rmsprop_update");
    std::array<Tensor, 4> inputs{var.value(), slots[0].value(), grad, context.learning_rate()};
    return run_update(plain, inputs, attrs_, var, slots);
  }
  static const OpDef& with_momentum = OpRegistry::global().get("rmsprop_momentum_update");
  std::array<Tensor, 5> inputs{var.value(), slots[0].value(), slots[1].value(), grad, context.learning_rate()};
  run_update(with_momentum, inputs, attrs_, var, slots);
}

}  // namespace tl::optimizers
