#include "tracelab/registry/op_def.h"

#include <array>
#include <atomic>
#include <vector>

namespace tl {

std::uint64_t OpDef::next_check_id() noexcept {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void OpDef::check_attrs(const Attrs& attrs) const {
  if (attrs.checked_by() == check_id_) return;  // these attributes passed this op's check before, unchanged since
  const auto& entries = attrs.entries();
  std::size_t required_seen = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& [name, value] = entries[i];
    // Op wrappers write the attributes in declaration order: the spec at the same place is tried first.
    const AttrSpec* spec = i < attrs_.size() && attrs_[i].name == name ? &attrs_[i] : nullptr;
    for (std::size_t j = 0; spec == nullptr && j < attrs_.size(); ++j)
      if (attrs_[j].name == name) spec = &attrs_[j];
    TL_CHECK(spec != nullptr, InvalidArgument, name_, ": unknown attribute '", name, "'");
    TL_CHECK(spec->type_index == value.index(), InvalidArgument, name_, ": attribute '", name, "' must be of type ",
             attr_type_name(spec->type_index), ", got ", attr_type_name(value));
    required_seen += spec->required ? 1 : 0;
  }
  // An Attrs holds each name once, so when as many required ones were seen as the op declares, none is missing.
  if (required_seen != required_attrs_)
    for (const auto& spec : attrs_)
      TL_CHECK(!spec.required || attrs.has(spec.name), InvalidArgument, name_, ": missing required attribute '",
               spec.name, "'");
  attrs.set_checked_by(check_id_);
}

std::size_t OpDef::num_outputs(const Attrs& attrs, Subgraphs subgraphs) const {
  if (output_count_) check_attrs(attrs);  // the count may read them
  return count_outputs(attrs, subgraphs);
}

std::size_t OpDef::count_outputs(const Attrs& attrs, Subgraphs subgraphs) const {
  TL_CHECK(static_cast<int>(subgraphs.size()) == num_subgraphs_, InvalidArgument, name_, ": expected ",
           num_subgraphs_, " sub-graph(s), got ", subgraphs.size());
  for (std::size_t i = 0; i < subgraphs.size(); ++i)
    TL_CHECK(subgraphs[i] != nullptr, InvalidArgument, name_, ": sub-graph ", i, " is missing");
  if (!output_count_) return static_cast<std::size_t>(num_outputs_ > 0 ? num_outputs_ : 0);
  return output_count_(attrs, subgraphs);
}

void OpDef::infer(std::span<const TensorMeta* const> inputs, const Attrs& attrs, std::span<TensorMeta> outputs,
                  Subgraphs subgraphs, VariableHandles variables) const {
  auto count = static_cast<int>(inputs.size());
  if (num_inputs_ == variadic) {
    TL_CHECK(count >= min_inputs_, InvalidArgument, name_, ": expected at least ", min_inputs_, " inputs, got ",
             count);
  } else {
    TL_CHECK(count == num_inputs_, InvalidArgument, name_, ": expected ", num_inputs_, " inputs, got ", count);
  }
  check_attrs(attrs);
  const std::size_t expected = count_outputs(attrs, subgraphs);
  TL_CHECK(outputs.size() == expected, InvalidArgument, name_, ": expected ", expected, " outputs, got ",
           outputs.size());
  TL_CHECK(static_cast<bool>(shape_fn_), InvalidArgument, name_, ": op has no shape rule");
  TL_CHECK(has(trait::updates_variables) || variables.empty(), InvalidArgument, name_, ": got ", variables.size(),
           " variable handle(s), but the op updates no variables");
  for (std::size_t i = 0; i < variables.size(); ++i)
    TL_CHECK(variables[i] != nullptr && variables[i]->value.defined() && !variables[i]->value.is_symbolic(),
             InvalidArgument, name_, ": variable ", i, " has no concrete value");
  ShapeContext context{*this, inputs, attrs, outputs, subgraphs, variables};
  shape_fn_(context);
}

void OpDef::run(std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs, Subgraphs subgraphs,
                std::unique_ptr<KernelState>* state, VariableHandles variables, bool specialize_plans) const {
  constexpr std::size_t kOnStack = 8;
  std::array<const Tensor*, kOnStack> on_stack;
  std::vector<const Tensor*> on_heap;
  const Tensor** refs = on_stack.data();
  if (inputs.size() > kOnStack) {
    on_heap.resize(inputs.size());
    refs = on_heap.data();
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) refs[i] = &inputs[i];
  run(TensorRefs(refs, inputs.size()), attrs, outputs, subgraphs, state, variables, specialize_plans);
}

void OpDef::run(TensorRefs inputs, const Attrs& attrs, std::span<Tensor> outputs, Subgraphs subgraphs,
                std::unique_ptr<KernelState>* state, VariableHandles variables, bool specialize_plans) const {
  TL_CHECK(static_cast<bool>(kernel_), InvalidArgument, name_, ": op has no kernel");
  std::unique_ptr<KernelState> call_state;
  KernelContext context{*this,     inputs,    attrs, outputs, subgraphs, state != nullptr ? state : &call_state,
                        variables, specialize_plans};
  kernel_(context);
}

KernelFn OpDef::bind_kernel(const Attrs& attrs) const {
  TL_CHECK(static_cast<bool>(kernel_), InvalidArgument, name_, ": op has no kernel");
  return binder_ ? binder_(attrs) : kernel_;
}

void OpDef::backward(const GradContext& context, std::span<Tensor> input_grads) const {
  TL_CHECK(static_cast<bool>(gradient_), InvalidArgument, name_, ": op has no gradient",
           has(trait::not_differentiable) ? " (it is not differentiable)" : "");
  gradient_(context, input_grads);
}

}  // namespace tl
