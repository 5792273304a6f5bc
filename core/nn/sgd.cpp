// SGD (tf.keras.optimizers.SGD, Keras 3 formulas): one op per step updates every variable in place, sgd_apply
// without momentum and sgd_momentum_apply with it (core/ops/optimizer_ops.cpp).
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
Optimizer::ApplyCall SGD::apply_call(const UpdateContext& context) const {
  static const Attrs none;
  if (momentum_ == 0) {
    static const OpDef& plain = OpRegistry::global().get("sgd_apply");
    return {&plain, {context.learning_rate()}, &none};
  }
  static const OpDef& with_momentum = OpRegistry::global().get("sgd_momentum_apply");
  return {&with_momentum, {context.learning_rate()}, &attrs_};
}

}  // namespace tl::optimizers
