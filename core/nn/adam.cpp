// Adam (tf.keras.optimizers.Adam, Keras 3 formulas): one adam_apply op per step updates every variable and its
// m, v in place, each in one pass (core/ops/optimizer_ops.cpp).
#include <array>

#include "tracelab/nn/optimizers.h"
#include "tracelab/registry/registry.h"

namespace tl::optimizers {

Adam::Adam(LearningRate learning_rate, double beta_1, double beta_2, double epsilon, std::string name)
    : Optimizer(std::move(name), std::move(learning_rate)), beta_1_(beta_1), beta_2_(beta_2), epsilon_(epsilon) {
  TL_CHECK(beta_1 >= 0 && beta_1 < 1, InvalidArgument, "Adam: beta_1 must be in [0, 1), got ", beta_1);
  TL_CHECK(beta_2 >= 0 && beta_2 < 1, InvalidArgument, "Adam: beta_2 must be in [0, 1), got ", beta_2);
  TL_CHECK(epsilon >= 0, InvalidArgument, "Adam: epsilon must be >= 0, got ", epsilon);
  attrs_.set("beta_1", beta_1).set("beta_2", beta_2).set("epsilon", epsilon);
}

std::vector<std::string> Adam::slot_names() const { return {"m", "v"}; }

/// m' = m + (g - m)(1 - beta_1), v' = v + (g^2 - v)(1 - beta_2),
/// w' = w - lr sqrt(1 - beta_2^t) / (1 - beta_1^t) m' / (sqrt(v') + epsilon), t = iterations + 1.
Optimizer::ApplyCall Adam::apply_call(const UpdateContext& context) const {
  static const OpDef& op = OpRegistry::global().get("adam_apply");
  return {&op, {context.learning_rate(), context.local_step()}, &attrs_};
}

}  // namespace tl::optimizers
