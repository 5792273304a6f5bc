// Executor — running the schedule: binding inputs, constants and variable reads, running kernels into
// planned slots (copy-on-shared) or freshly inferred buffers, assignments, and dropping values after their last
// use. Planning is in executor_plan.cpp.
#include "tracelab/graph/executor.h"

#include <cstring>
#include <string>

namespace tl::graph {

/// Marks the executor as running and, on every exit, drops every value handle the call still holds, so the next
/// call starts clean. A call that ran every step holds only the graph's outputs (the schedule released every other
/// value after its last use): `finished()` says so, and only those are dropped. A call that failed part-way may hold
/// any value: all of them are dropped, so it leaves nothing half-held.
class Executor::RunScope {
 public:
  explicit RunScope(Executor& executor) : executor_(executor) { executor_.running_ = true; }
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;
  ~RunScope() {
    if (finished_) {
      for (std::size_t v : executor_.output_ids_) executor_.values_[v] = Tensor();
    } else {
      for (Tensor& value : executor_.values_) value = Tensor();
    }
    executor_.running_ = false;
  }
  void finished() noexcept { finished_ = true; }

 private:
  Executor& executor_;
  bool finished_ = false;
};

using tl::detail::exclusively_owned;

std::string Executor::node_label(const Node& node) const {
  std::size_t index = static_cast<std::size_t>(&node - graph_->nodes().data());
  return tl::detail::cat('%', index, " = ", node.label());
}

std::vector<Tensor> Executor::run(std::span<const Tensor> inputs) {
  TL_CHECK(!running_, InvalidArgument,
           "executor: run() was called while this executor is already running (a kernel called back into the "
           "executor of its own graph); an executor is not reentrant: use a second Executor for the nested call");
  RunScope scope(*this);
  check_inputs(inputs);
  plan_ = plan_for(inputs);
  for (std::size_t index = 0; index < steps_.size(); ++index) {
    const Step& step = steps_[index];
    run_step(step, index, inputs);
    release(step);
  }
  std::vector<Tensor> results;
  results.reserve(output_ids_.size());
  for (std::size_t v : output_ids_) results.push_back(values_[v]);
  scope.finished();
  return results;
}

void Executor::run_step(const Step& step, std::size_t index, std::span<const Tensor> inputs) {
  switch (step.kind) {
    case NodeKind::input: values_[step.first_output] = inputs[step.input_index]; break;
    case NodeKind::constant: values_[step.first_output] = step.node->value; break;
    case NodeKind::variable: read_variable(step); break;
    case NodeKind::assign: assign_variable(step); break;
    case NodeKind::op: run_op(step, index); break;
  }
}

void Executor::release(const Step& step) {
  for (std::size_t r = 0; r < step.num_release; ++r) values_[release_ids_[step.first_release + r]] = Tensor();
}

void Executor::read_variable(const Step& step) {
  const auto& variable = *step.node->variable;
  const TensorMeta& want = *value_meta_[step.first_output];
  TL_CHECK(variable.value.defined() && !variable.value.is_symbolic(), InvalidArgument, "executor: variable '",
           variable.name, "' has no concrete value");
  const TensorMeta& got = variable.value.meta();
  TL_CHECK(got.dtype == want.dtype, DTypeError, "executor: variable '", variable.name, "' is ", meta_str(got),
           ", the graph reads it as ", meta_str(want));
  TL_CHECK(want.shape.is_compatible_with(got.shape), ShapeError, "executor: variable '", variable.name, "' is ",
           meta_str(got), ", the graph reads it as ", meta_str(want));
  values_[step.first_output] = variable.value;
}

/// Writes the value into the variable: in place when the variable's buffer is exclusively owned (nobody holds
/// an earlier read), otherwise into a fresh copy, so tensors read before stay unchanged. The variable never
/// shares a buffer with an executor value. When the value is a planned slot's tensor that dies here, the slot and
/// the variable trade buffers instead of copying (the slot is overwritten on the next call anyway). A graph input
/// or constant is never a slot: its buffer belongs to the caller or to the graph.
void Executor::assign_variable(const Step& step) {
  auto& variable = *step.node->variable;
  const std::size_t value_id = input_ids_[step.first_input];
  const Tensor& value = values_[value_id];
  const Tensor& current = variable.value;
  TL_CHECK(current.defined() && !current.is_symbolic(), InvalidArgument, "assign: variable '", variable.name,
           "' has no concrete value");
  TL_CHECK(value.dtype() == current.dtype(), DTypeError, "assign: variable '", variable.name, "' is ",
           meta_str(current.meta()), ", cannot assign ", meta_str(value.meta()));
  TL_CHECK(value.shape() == current.shape(), ShapeError, "assign: variable '", variable.name, "' is ",
           meta_str(current.meta()), ", cannot assign ", meta_str(value.meta()));
  const auto& source = value.impl().buffer;
  std::size_t bytes = static_cast<std::size_t>(value.num_elements()) * dtype_size(value.dtype());
  // A slot's tensor is held by the slot and by values_ (2 handles); nobody else may see its buffer.
  bool slot_dies_here = step.value_dies && plan_ != nullptr && plan_->slot_of_value[value_id] != npos &&
                        value.impl_ptr() == plan_->slots[plan_->slot_of_value[value_id]].impl_ptr() &&
                        value.impl_ptr().use_count() == 2 && source != nullptr && source.use_count() == 1;
  if (slot_dies_here && exclusively_owned(current)) {
    std::swap(const_cast<tl::detail::TensorImpl&>(current.impl()).buffer,
              const_cast<tl::detail::TensorImpl&>(value.impl()).buffer);
    return;
  }
  if (exclusively_owned(current)) {
    if (source != current.impl().buffer && bytes > 0)
      std::memcpy(current.impl().buffer->data(), source->data(), bytes);
    return;
  }
  Tensor fresh = Tensor::empty(value.dtype(), value.shape());
  if (bytes > 0) std::memcpy(fresh.impl().buffer->data(), source->data(), bytes);
  variable.value = std::move(fresh);
}

void Executor::run_op(const Step& step, std::size_t index) {
  const StepAction action = plan_ != nullptr ? plan_->actions[index] : StepAction::kernel;
  if (action != StepAction::kernel) {
    if (action == StepAction::known) {  // computed when the plan was made
      for (std::size_t i = 0; i < step.num_outputs; ++i)
        values_[step.first_output + i] = plan_->known[step.first_output + i];
      return;
    }
    if (action == StepAction::forward && forward_input(step)) return;
    copy_input(step);  // StepAction::copy, or a forward whose input's slot someone else holds
    return;
  }
  for (std::size_t i = 0; i < step.num_inputs; ++i) args_[i] = &values_[input_ids_[step.first_input + i]];
  const TensorRefs args(args_.data(), step.num_inputs);
  prepare_outputs(step, args);
  std::span<Tensor> outputs(values_.data() + step.first_output, step.num_outputs);
  auto& states = plan_ != nullptr ? plan_->kernel_states : kernel_states_;
  KernelContext context{*step.op,
                        args,
                        *step.attrs,
                        outputs,
                        step.node->subgraphs,
                        &states[index],
                        step.node->variables,
                        specialize_};
  step.kernel(context);
  if (!in_planned_slots(step, outputs)) check_outputs(step, outputs);
}

/// A view op whose input dies here, planned into its input's slot: the slot's tensor becomes the output, under
/// the output's meta, without a kernel. When the input is not that tensor, or someone else holds it, returns false
/// and the kernel copies as for any op (acquire_slot then gives the output a fresh buffer if the slot is held).
bool Executor::forward_input(const Step& step) {
  Tensor& in = values_[input_ids_[step.first_input]];
  const std::size_t out = step.first_output, index = plan_->slot_of_value[out];
  Tensor& slot = plan_->slots[index];
  // Held by the slot and by `in` only (a tensor's implementation, then its buffer).
  if (in.impl_ptr() != slot.impl_ptr() || slot.impl_ptr().use_count() != 2 || slot.impl().buffer.use_count() != 1)
    return false;
  in = Tensor();  // the input dies here
  const_cast<tl::detail::TensorImpl&>(slot.impl()).meta = *plan_->value_meta[out];  // nobody else sees this impl
  plan_->slot_meta_of[index] = plan_->meta_class[out];
  values_[out] = slot;
  return true;
}

/// A step whose output is its input 0's bytes as they are (StepAction::copy, or a view op whose forward failed):
/// they are copied into the output's slot, without the kernel.
void Executor::copy_input(const Step& step) {
  const Tensor& in = values_[input_ids_[step.first_input]];
  acquire_slot(step.first_output);
  const Tensor& out = values_[step.first_output];
  const std::size_t bytes = static_cast<std::size_t>(out.num_elements()) * dtype_size(out.dtype());
  if (bytes > 0) std::memcpy(out.impl().buffer->data(), in.impl().buffer->data(), bytes);  // never the same slot
}

/// True when every output is still its planned slot's tensor (the kernel wrote into it): its meta is the plan's.
bool Executor::in_planned_slots(const Step& step, std::span<const Tensor> outputs) const {
  if (plan_ == nullptr || step.dynamic_outputs) return false;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].impl_ptr() != plan_->slots[plan_->slot_of_value[step.first_output + i]].impl_ptr()) return false;
  return true;
}

/// Static: each output is its planned slot. Dynamic: the shape rule runs on the actual input metas and the
/// outputs are allocated. Outputs of dynamic_outputs ops stay empty handles for the kernel to set.
void Executor::prepare_outputs(const Step& step, TensorRefs args) {
  if (plan_ != nullptr) {
    if (!step.dynamic_outputs)
      for (std::size_t i = 0; i < step.num_outputs; ++i) acquire_slot(step.first_output + i);
    return;
  }
  for (std::size_t i = 0; i < args.size(); ++i) arg_metas_[i] = &args[i].meta();
  std::span<TensorMeta> metas(out_metas_.data(), step.num_outputs);
  for (TensorMeta& meta : metas) meta = TensorMeta{};
  step.op->infer(std::span<const TensorMeta* const>(arg_metas_.data(), args.size()), *step.attrs, metas,
                 step.node->subgraphs, step.node->variables);
  for (std::size_t i = 0; i < step.num_outputs; ++i) {
    const TensorMeta& want = *value_meta_[step.first_output + i];
    TL_CHECK(metas[i].dtype == want.dtype && metas[i].shape.is_compatible_with(want.shape), ShapeError,
             "executor: ", node_label(*step.node), ": output ", i, " is ", meta_str(metas[i]),
             " for these inputs, but the graph recorded ", meta_str(want));
    if (step.dynamic_outputs) continue;
    TL_CHECK(metas[i].shape.is_fully_defined(), ShapeError, "executor: ", node_label(*step.node),
             ": output ", i, " has unknown dims ", meta_str(metas[i]), " although every input is concrete");
    values_[step.first_output + i] = Tensor::empty(metas[i].dtype, metas[i].shape);
  }
}

/// The slot's tensor, written in place unless someone else holds it (copy-on-shared: then a fresh buffer).
/// A slot shared by values of different shapes (same dtype and bytes) gets the value's meta.
void Executor::acquire_slot(std::size_t value) {
  const std::size_t index = plan_->slot_of_value[value];
  Tensor& slot = plan_->slots[index];
  const std::size_t meta_class = plan_->meta_class[value];
  if (!slot.defined() || !tl::detail::exclusively_owned(slot)) {
    const TensorMeta& meta = *plan_->value_meta[value];
    slot = Tensor::empty(meta.dtype, meta.shape);
  } else if (plan_->slot_meta_of[index] != meta_class) {
    const_cast<tl::detail::TensorImpl&>(slot.impl()).meta = *plan_->value_meta[value];  // nobody else sees this impl
  }
  plan_->slot_meta_of[index] = meta_class;  // the slot's tensor now has this value's meta
  values_[value] = slot;
}

/// The meta an output must have: the inferred one (dynamic) or the graph's (static).
const TensorMeta& Executor::expected_meta(const Step& step, std::size_t output) const {
  return plan_ != nullptr ? *plan_->value_meta[step.first_output + output] : out_metas_[output];
}

/// After the kernel: every output is a concrete tensor of the expected meta. A kernel that replaced a
/// preallocated output instead of writing into it is accepted (its tensor is adopted; the slot stays as is)
/// when the meta matches exactly; dynamic_outputs ops need a compatible shape.
void Executor::check_outputs(const Step& step, std::span<Tensor> outputs) const {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const TensorMeta& want = expected_meta(step, i);
    TL_CHECK(outputs[i].defined() && !outputs[i].is_symbolic(), InvalidArgument, "executor: ",
             node_label(*step.node), ": the kernel left output ", i, " without a concrete value (expected ",
             meta_str(want), ")");
    const TensorMeta& got = outputs[i].meta();
    TL_CHECK(got.dtype == want.dtype, DTypeError, "executor: ", node_label(*step.node),
             ": the kernel produced ", meta_str(got), " for output ", i, ", expected ", meta_str(want));
    bool fits = step.dynamic_outputs ? got.shape.is_compatible_with(want.shape) : got.shape == want.shape;
    TL_CHECK(fits, ShapeError, "executor: ", node_label(*step.node), ": the kernel produced ",
             meta_str(got), " for output ", i, ", expected ", meta_str(want));
  }
}

}  // namespace tl::graph
