// The one funnel: every op call — from tl::add to the layers of nn/ — goes through execute().
// It checks the inputs, aligns weak scalars, runs the op's shape rule and then its kernel. The gradient tape
// (an OpObserver) and the tracer (an OpInterceptor) hook in here, so no op needs an `if (tracing)` of its own.
//
//   const tl::OpDef& op = tl::OpRegistry::global().get("add");
//   tl::Tensor y = tl::execute(op, {a, b});
#pragma once

#include <initializer_list>
#include <memory>
#include <utility>
#include <span>
#include <vector>

#include "tracelab/registry/registry.h"
#include "tracelab/tensor/variable_state.h"

namespace tl {

/// Watches executed ops: the gradient tape installs one. The funnel calls every active observer after an op
/// has succeeded, so no op or layer needs to know that a tape exists.
class OpObserver {
 public:
  virtual ~OpObserver() = default;
  /// Called after `op` ran on `inputs` with `attrs` and produced `outputs` (concrete or symbolic).
  virtual void on_executed(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs,
                           std::span<const Tensor> outputs, Subgraphs subgraphs) = 0;
};

/// Takes over op execution while a function is being traced: instead of computing, the tracer adds a graph
/// node and returns symbolic outputs. It also sees variable reads, assignments and creations, so a traced
/// function captures variables by handle. Installed by the tracing layer (function/); at most one is active.
class OpInterceptor {
 public:
  virtual ~OpInterceptor() = default;
  /// Records `op` on `inputs` (weak scalars already aligned) and fills `outputs` with symbolic tensors.
  virtual void execute(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs,
                       Subgraphs subgraphs, VariableHandles variables) = 0;
  /// The value a read of `variable` has at this point of the traced function.
  virtual Tensor read_variable(const std::shared_ptr<detail::VariableState>& variable) = 0;
  /// Records `variable = value` (dtype and shape already checked).
  virtual void assign_variable(const std::shared_ptr<detail::VariableState>& variable, const Tensor& value) = 0;
  /// Called when a Variable is created while tracing; throws when the function does not allow it.
  virtual void on_variable_created(const detail::VariableState& variable) = 0;
};

namespace detail {
/// The observers active on this thread, innermost last. Managed by the autodiff layer.
std::vector<OpObserver*>& active_observers();
/// The interceptor active on this thread (nullptr when ops run eagerly). Managed by the tracing layer.
OpInterceptor*& active_interceptor();

/// While alive, ops on this thread run eagerly even inside a trace (for concrete bookkeeping such as a
/// variable's initial value).
class SuspendInterception {
 public:
  SuspendInterception() : saved_(std::exchange(active_interceptor(), nullptr)) {}
  ~SuspendInterception() { active_interceptor() = saved_; }
  SuspendInterception(const SuspendInterception&) = delete;
  SuspendInterception& operator=(const SuspendInterception&) = delete;

 private:
  OpInterceptor* saved_;
};
}  // namespace detail

/// Runs `op` on `inputs` with `attrs` (and, for a structured op, its sub-graphs; for an op with
/// trait::updates_variables, the variables it updates in place), writing `op.num_outputs(attrs, subgraphs)`
/// results into `outputs`. Observers see the call without the variables (such ops are not differentiable).
/// Errors (bad shapes, dtypes, attributes, values) are typed exceptions thrown before any output is visible.
void execute(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs,
             Subgraphs subgraphs = {}, VariableHandles variables = {});
/** @{ */
/// Single-output convenience form.
Tensor execute(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs = {});
Tensor execute(const OpDef& op, std::initializer_list<Tensor> inputs, const Attrs& attrs = {});
/** @} */
/// By name (a registry look-up per call: for tools and bindings, not for hot paths).
Tensor execute(std::string_view op_name, std::initializer_list<Tensor> inputs, const Attrs& attrs = {});

}  // namespace tl
