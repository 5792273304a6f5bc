// SGD (tf.keras.optimizers.SGD, Keras 3 formulas): one fused op per variable, sgd_update without momentum and
// sgd_momentum_update with it (core/ops/optimizer_ops.cpp).
#include <array>

#include "tracelab/nn/optimizers.h"
#include "tracelab/registry/registry.h"

namespace tl::optimizers {

SGD::SGD(LearningRate learning_rate, double momentum, bool nesterov, std::string name)
    : Optimizer(std::move(name), std::move(learning_rate)), momentum_(momentum), nesterov_(nesterov) {
  TL_CHECK(momentum >= 0 && momentum <= 1, InvalidArgument, "SGD: momentum must be in [0, 1], got ", momentum);
  attrs_.set("momentum", momentum).set("nesterov", nesterov);
}

std::vector<std::string> SGD::slot_names() const {
  if (momentum_ == 0) return {};
  return {"momentum"};
}

/// w' = w - lr g, or with momentum m' = momentum m - lr g, w' = w + m' (Nesterov: w + momentum m' - lr g).
void SGD::update_step(const Variable& var, std::span<const Variable> slots, const Tensor& grad,
                      const UpdateContext& context) const {
  if (momentum_ == 0) {
    static const OpDef& plain = OpRegistry::global().get("sgd_update");
    std::array<Tensor, 3> inputs{var.value(), grad, context.learning_rate()};
    return run_update(plain, inputs, {}, var, slots);
  }
  static const OpDef& with_momentum = OpRegistry::global().get("sgd_momentum_update");
  std::array<Tensor, 4> inputs{var.value(), slots[0].value(), grad, context.learning_rate()};
  run_update(with_momentum, inputs, attrs_, var, slots);
}

}  // namespace tl::optimizers
