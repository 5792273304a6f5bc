// RMSprop (tf.keras.optimizers.RMSprop, Keras 3 formulas, not centered): one rmsprop_apply (or
// rmsprop_momentum_apply) op per step updates every variable in place (core/ops/optimizer_ops.cpp).
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
Optimizer::ApplyCall RMSprop::apply_call(const UpdateContext& context) const {
  if (momentum_ == 0) {
    static const OpDef& plain = OpRegistry::global().get("rmsprop_apply");
    return {&plain, {context.learning_rate()}, &attrs_};
  }
  static const OpDef& with_momentum = OpRegistry::global().get("rmsprop_momentum_apply");
  return {&with_momentum, {context.learning_rate()}, &attrs_};
}

}  // namespace tl::optimizers
