#include "tracelab/registry/registry.h"

namespace tl {

OpDef& OpRegistry::op(std::string name) {
  TL_CHECK(find(name) == nullptr, InvalidArgument, "op '", name, "' is registered twice");
  return ops_.emplace_back(std::move(name));
}

const OpDef* OpRegistry::find(std::string_view name) const noexcept {
  for (const auto& op : ops_)
    if (op.name() == name) return &op;
  return nullptr;
}

const OpDef& OpRegistry::get(std::string_view name) const {
  const OpDef* op = find(name);
  TL_CHECK(op != nullptr, InvalidArgument, "unknown op '", name, "'");
  return *op;
}

std::vector<const OpDef*> OpRegistry::all() const {
  std::vector<const OpDef*> out;
  out.reserve(ops_.size());
  for (const auto& op : ops_) out.push_back(&op);
  return out;
}

}  // namespace tl
