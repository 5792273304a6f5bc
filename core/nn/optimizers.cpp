// Optimizer base: slot bookkeeping, the checks of apply_gradients, the learning rate on iterations, and
// running one fused update op per variable. The update rules themselves are in sgd.cpp, adam.cpp, rmsprop.cpp.
#include <array>
#include <set>
#include <unordered_map>

#include "tracelab/autodiff/tape.h"
#include "tracelab/base/log.h"
#include "tracelab/eager/execute.h"
#include "tracelab/nn/optimizers.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"
#include "tracelab/tensor/creation.h"

namespace tl::optimizers {

namespace detail {
/// Shared by copies of an optimizer.
struct OptimizerState {
  OptimizerState(std::string name_, LearningRate rate)
      : name(std::move(name_)), learning_rate(std::move(rate)),
        iterations(scalar(std::int32_t{0}), name + "/iterations", /*trainable=*/false) {}

  std::string name;
  LearningRate learning_rate;
  Variable iterations;
  std::vector<std::uint64_t> order;                                 ///< variable ids, in slot-creation order
  std::unordered_map<std::uint64_t, std::vector<Variable>> slots;  ///< variable id -> its slots
  std::set<std::string> prefixes;                                   ///< "<name>/<variable>" already used
};
}  // namespace detail

namespace {

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return "[" + out + "]";
}

/// Gradient and variable must be float32 of one shape (a symbolic gradient's unknown dims accept any size).
void check_pair(const std::string& who, const Tensor& grad, const Variable& var) {
  TL_CHECK(var.dtype() == float32, DTypeError, who, ": variable '", var.name(), "' is ",
           meta_str({var.dtype(), var.shape()}), "; only float32 variables can be optimized");
  TL_CHECK(grad.dtype() == float32, DTypeError, who, ": the gradient for variable '", var.name(), "' is ",
           meta_str(grad.meta()), ", expected float32");
  TL_CHECK(grad.shape().is_compatible_with(var.shape()), ShapeError, who, ": the gradient for variable '",
           var.name(), "' is ", meta_str(grad.meta()), ", the variable is ", meta_str({var.dtype(), var.shape()}));
}

}  // namespace

const Tensor& UpdateContext::local_step() const {
  if (!local_step_.defined()) local_step_ = cast(step_, float32);
  return local_step_;
}

Optimizer::Optimizer(std::string name, LearningRate learning_rate)
    : state_(std::make_shared<detail::OptimizerState>(std::move(name), std::move(learning_rate))) {}

Optimizer::~Optimizer() = default;

const Variable& Optimizer::iterations() const noexcept { return state_->iterations; }
const std::string& Optimizer::name() const noexcept { return state_->name; }

Tensor Optimizer::learning_rate() const { return state_->learning_rate.at(state_->iterations.value()); }

std::vector<Variable> Optimizer::variables() const {
  std::vector<Variable> out{state_->iterations};
  for (std::uint64_t id : state_->order)
    for (const Variable& slot : state_->slots.at(id)) out.push_back(slot);
  return out;
}

/// The slots of `var`, created zero-filled on first use as "<optimizer>/<variable>/<slot>" (a repeated variable
/// name gets "_1", "_2", ... so every slot name stays unique, e.g. for checkpoints).
const std::vector<Variable>& Optimizer::slots_for(const Variable& var) const {
  auto found = state_->slots.find(var.id());
  if (found != state_->slots.end()) return found->second;
  std::string prefix = state_->name + "/" + var.name();
  for (int k = 1; state_->prefixes.count(prefix); ++k)
    prefix = state_->name + "/" + var.name() + "_" + std::to_string(k);
  std::vector<Variable> slots;
  for (const std::string& slot : slot_names())
    slots.emplace_back(Tensor::empty(var.dtype(), var.shape()), prefix + "/" + slot, /*trainable=*/false);
  state_->prefixes.insert(prefix);
  state_->order.push_back(var.id());
  return state_->slots.emplace(var.id(), std::move(slots)).first->second;
}

Variable Optimizer::get_slot(const Variable& var, const std::string& slot_name) const {
  auto found = state_->slots.find(var.id());
  TL_CHECK(found != state_->slots.end(), InvalidArgument, state_->name, ": variable '", var.name(),
           "' has no slots yet (they are created by the first apply_gradients or by build)");
  std::vector<std::string> names = slot_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == slot_name) return found->second[i];
  throw InvalidArgument(tl::detail::cat(state_->name, ": no slot '", slot_name, "'; its slots are ",
                                        joined_names(names)));
}

void Optimizer::build(const std::vector<Variable>& vars) {
  for (const Variable& var : vars) slots_for(var);
}

void Optimizer::apply_gradients(const std::vector<Tensor>& grads, const std::vector<Variable>& vars) {
  const std::string& who = state_->name;
  TL_CHECK(grads.size() == vars.size(), InvalidArgument, who, ": apply_gradients got ", grads.size(),
           " gradients for ", vars.size(), " variables");
  std::vector<std::size_t> present;
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) {
      missing.push_back(vars[i].name());
      continue;
    }
    check_pair(who, grads[i], vars[i]);
    present.push_back(i);
  }
  TL_CHECK(!present.empty(), InvalidArgument, who, ": no gradients provided for any variable: ",
           joined_names(missing));
  if (!missing.empty())
    log_message(LogLevel::warning, tl::detail::cat(who, ": gradients do not exist for variables ",
                                                   joined_names(missing), " when minimizing the loss; they are "
                                                   "left unchanged"));
  tl::detail::PauseRecording pause;  // optimizer updates are never differentiated
  for (std::size_t i : present) slots_for(vars[i]);  // every slot exists before the first update
  Tensor done = state_->iterations.value();  // steps applied before this one: the schedule's argument
  Tensor step = done + 1;
  UpdateContext context(state_->learning_rate.at(done), step);
  // One node for the whole step: the gradients and the scalars in, every variable and slot updated in place.
  ApplyCall call = apply_call(context);
  const std::size_t num_slots = slot_names().size();
  std::vector<Tensor> inputs;
  std::vector<std::shared_ptr<tl::detail::VariableState>> targets((1 + num_slots) * present.size());
  for (std::size_t p = 0; p < present.size(); ++p) {
    const std::size_t i = present[p];
    inputs.push_back(grads[i]);
    targets[p] = vars[i].state();
    const std::vector<Variable>& slots = slots_for(vars[i]);
    for (std::size_t k = 0; k < num_slots; ++k) targets[(k + 1) * present.size() + p] = slots[k].state();
  }
  inputs.insert(inputs.end(), call.scalars.begin(), call.scalars.end());
  execute(*call.op, inputs, *call.attrs, {}, {}, targets);
  Variable iterations = state_->iterations;
  iterations.assign(step);
}

void Optimizer::minimize(GradientTape& tape, const Tensor& loss, const std::vector<Variable>& vars) {
  apply_gradients(tape.gradient(loss, vars), vars);
}

void Optimizer::minimize(GradientTape& tape, const Tensor& loss) { minimize(tape, loss, tape.watched_variables()); }

void Optimizer::apply_gradients(const std::vector<std::pair<Tensor, Variable>>& grads_and_vars) {
  std::vector<Tensor> grads;
  std::vector<Variable> vars;
  for (const auto& [grad, var] : grads_and_vars) {
    grads.push_back(grad);
    vars.push_back(var);
  }
  apply_gradients(grads, vars);
}

}  // namespace tl::optimizers
