// ConcreteFunction: optimization at construction, signature printing, and execution — the executor normally,
// a node-by-node replay when a tape outside must record the call or an outer trace inlines it.
#include "tracelab/function/concrete_function.h"

#include <sstream>

#include "function/detail/tracer.h"

namespace tl {
namespace {

/// "float32 Tensor, shape=(None, 20)" — TensorFlow's pretty-printed form of a spec.
std::string spec_text(const TensorSpec& spec) {
  return std::string(dtype_name(spec.dtype())) + " Tensor, shape=" + spec.shape().str();
}

std::vector<TensorSpec> tensor_specs(const TraceKey& key, const std::vector<std::string>& names) {
  std::vector<TensorSpec> specs;
  for (std::size_t i = 0; i < key.size(); ++i)
    if (const auto* spec = std::get_if<TensorSpec>(&key.args()[i]))
      specs.emplace_back(spec->shape(), spec->dtype(), i < names.size() ? names[i] : spec->name());
  return specs;
}

}  // namespace

ConcreteFunction::ConcreteFunction(std::string name, TraceKey key, std::vector<std::string> arg_names,
                                   graph::Graph traced, const graph::OptimizeOptions& options, bool specialize_plans)
    : name_(std::move(name)),
      key_(std::move(key)),
      arg_names_(std::move(arg_names)),
      input_specs_(tensor_specs(key_, arg_names_)),
      traced_(std::move(traced)),
      optimized_(std::make_shared<const graph::Graph>(graph::optimize(traced_, options, &reports_))),
      executor_(optimized_, specialize_plans) {}

std::vector<TensorSpec> ConcreteFunction::output_specs() const {
  std::vector<TensorSpec> specs;
  for (const auto& ref : optimized_->outputs()) {
    const TensorMeta& meta = optimized_->meta(ref);
    specs.emplace_back(meta.shape, meta.dtype);
  }
  return specs;
}

std::string ConcreteFunction::pretty_signature() const {
  std::ostringstream out;
  out << name_ << '(';
  for (std::size_t i = 0; i < key_.size(); ++i) out << (i ? ", " : "") << arg_names_.at(i);
  out << ")\n  Args:\n";
  if (key_.size() == 0) out << "    None\n";
  for (std::size_t i = 0; i < key_.size(); ++i) {
    const ArgKey& arg = key_.args()[i];
    const auto* spec = std::get_if<TensorSpec>(&arg);
    out << "    " << arg_names_.at(i) << ": " << (spec ? spec_text(*spec) : arg_key_str(arg)) << '\n';
  }
  out << "  Returns:\n";
  std::vector<TensorSpec> outputs = output_specs();
  if (outputs.empty()) out << "    None\n";
  if (outputs.size() == 1) out << "    " << spec_text(outputs[0]) << '\n';
  if (outputs.size() > 1) {
    out << "    (";
    for (std::size_t i = 0; i < outputs.size(); ++i) out << (i ? ", " : "") << '<' << spec_text(outputs[i]) << '>';
    out << ")\n";
  }
  return out.str();
}

std::vector<std::string> ConcreteFunction::captured_variables() const {
  std::vector<std::string> names;
  for (const auto& node : optimized_->nodes())
    if (node.kind == graph::NodeKind::variable) names.push_back(node.name);
  return names;
}

std::vector<Tensor> ConcreteFunction::call(std::span<const Tensor> inputs) {
  TL_CHECK(inputs.size() == input_specs_.size(), InvalidArgument, name_, ": expected ", input_specs_.size(),
           " tensor argument(s), got ", inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    TL_CHECK(inputs[i].defined(), InvalidArgument, name_, ": tensor argument ", i, " is an empty Tensor handle");
    TL_CHECK(input_specs_[i].is_compatible_with(inputs[i].meta()), InvalidArgument, name_, ": argument '",
             input_specs_[i].name(), "' does not match the concrete function: ",
             input_specs_[i].mismatch(inputs[i].meta()));
  }
  // A tape outside must see every op, and an outer trace must inline them: both replay through the funnel.
  if (detail::Tracer::current() != nullptr || !detail::active_observers().empty())
    return detail::replay(*optimized_, inputs);
  return executor_.run(inputs);
}

}  // namespace tl
