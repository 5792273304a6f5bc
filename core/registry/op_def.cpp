#include "tracelab/registry/op_def.h"

namespace tl {

void OpDef::check_attrs(const Attrs& attrs) const {
  for (const auto& [name, value] : attrs.entries()) {
    const AttrSpec* spec = nullptr;
    for (const auto& candidate : attrs_)
      if (candidate.name == name) spec = &candidate;
    TL_CHECK(spec != nullptr, InvalidArgument, name_, ": unknown attribute '", name, "'");
    TL_CHECK(spec->type_index == value.index(), InvalidArgument, name_, ": attribute '", name, "' must be of type ",
             attr_type_name(spec->type_index), ", got ", attr_type_name(value));
  }
  for (const auto& spec : attrs_)
    TL_CHECK(!spec.required || attrs.has(spec.name), InvalidArgument, name_, ": missing required attribute '",
             spec.name, "'");
}

void OpDef::infer(std::span<const TensorMeta* const> inputs, const Attrs& attrs,
                  std::span<TensorMeta> outputs) const {
  auto count = static_cast<int>(inputs.size());
  if (num_inputs_ == variadic) {
    TL_CHECK(count >= min_inputs_, InvalidArgument, name_, ": expected at least ", min_inputs_, " inputs, got ",
             count);
  } else {
    TL_CHECK(count == num_inputs_, InvalidArgument, name_, ": expected ", num_inputs_, " inputs, got ", count);
  }
  TL_CHECK(static_cast<int>(outputs.size()) == num_outputs_, InvalidArgument, name_, ": expected ", num_outputs_,
           " outputs, got ", outputs.size());
  check_attrs(attrs);
  TL_CHECK(static_cast<bool>(shape_fn_), InvalidArgument, name_, ": op has no shape rule");
  ShapeContext context{*this, inputs, attrs, outputs};
  shape_fn_(context);
}

void OpDef::run(std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) const {
  TL_CHECK(static_cast<bool>(kernel_), InvalidArgument, name_, ": op has no kernel");
  KernelContext context{*this, inputs, attrs, outputs};
  kernel_(context);
}

void OpDef::backward(const GradContext& context, std::span<Tensor> input_grads) const {
  TL_CHECK(static_cast<bool>(gradient_), InvalidArgument, name_, ": op has no gradient",
           has(trait::not_differentiable) ? " (it is not differentiable)" : "");
  gradient_(context, input_grads);
}

}  // namespace tl
