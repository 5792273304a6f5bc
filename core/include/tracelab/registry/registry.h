// The op registry: every op Tracelab knows, by name, built once on first use.
//
//   const tl::OpDef& add = tl::OpRegistry::global().get("add");
//   for (const tl::OpDef* op : tl::OpRegistry::global().all()) std::puts(op->name().c_str());
#pragma once

#include <deque>
#include <string_view>
#include <vector>

#include "tracelab/registry/op_def.h"

namespace tl {

/// The table of op definitions. Ops are added once (at start-up, or on first use by the layer defining them) and
/// never removed, so `const OpDef&` references stay valid for the whole process.
class OpRegistry {
 public:
  /// The process-wide registry holding all built-in ops.
  static OpRegistry& global();

  /// Starts defining a new op; throws InvalidArgument if the name is taken.
  OpDef& op(std::string name);
  /// The op named `name`; throws InvalidArgument listing nothing more than the name when unknown.
  const OpDef& get(std::string_view name) const;
  /// The op named `name`, or nullptr.
  const OpDef* find(std::string_view name) const noexcept;
  /// Every op, in registration order.
  std::vector<const OpDef*> all() const;

 private:
  OpRegistry() = default;
  std::deque<OpDef> ops_;  // a deque keeps OpDef addresses stable
};

}  // namespace tl
