// The one funnel: every op call — from tl::add to the layers of later issues — goes through execute().
// It checks the inputs, aligns weak scalars, runs the op's shape rule and then its kernel. Later issues hook
// the tape and the tracer in here, so no op needs an `if (tracing)` of its own.
//
//   const tl::OpDef& op = tl::OpRegistry::global().get("add");
//   tl::Tensor y = tl::execute(op, {a, b});
#pragma once

#include <initializer_list>
#include <span>
#include <vector>

#include "tracelab/registry/registry.h"

namespace tl {

/// Watches executed ops: the gradient tape installs one. The funnel calls every active observer after an op
/// has succeeded, so no op or layer needs to know that a tape exists.
class OpObserver {
 public:
  virtual ~OpObserver() = default;
  virtual void on_executed(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs,
                           std::span<const Tensor> outputs) = 0;
};

namespace detail {
/// The observers active on this thread, innermost last. Managed by the autodiff layer.
std::vector<OpObserver*>& active_observers();
}  // namespace detail

/// Runs `op` on `inputs` with `attrs`, writing `op.num_outputs()` results into `outputs`.
/// Errors (bad shapes, dtypes, attributes, values) are typed exceptions thrown before any output is visible.
void execute(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs);
/// Single-output convenience form.
Tensor execute(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs = {});
Tensor execute(const OpDef& op, std::initializer_list<Tensor> inputs, const Attrs& attrs = {});
/// By name (a registry look-up per call: for tools and bindings, not for hot paths).
Tensor execute(std::string_view op_name, std::initializer_list<Tensor> inputs, const Attrs& attrs = {});

}  // namespace tl
