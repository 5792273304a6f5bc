#include "tracelab/autodiff/variable.h"

#include <atomic>
#include <ostream>

#include "tracelab/autodiff/tape.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"

namespace tl {
namespace {

std::uint64_t next_variable_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

/// A weak scalar becomes a regular tensor of `dtype` (so `v.assign(0)` works for a float32 scalar variable).
Tensor strengthen(const Tensor& value, DType dtype) {
  return value.is_weak() ? cast(value, dtype) : value;
}

int rank_of(const Variable& variable) { return variable.shape().rank(); }

/// An update's dtype is the variable's (a weak scalar takes it): checked before the update is computed, so the error
/// names the assignment and the variable, not the add / sub inside it.
void check_update_dtype(const Variable& v, const Tensor& delta, const char* what) {
  TL_CHECK(delta.defined(), InvalidArgument, what, ": variable '", v.name(), "' got an empty Tensor handle");
  TL_CHECK(delta.is_weak() || delta.dtype() == v.dtype(), DTypeError, what, ": variable '", v.name(), "' has dtype ",
           dtype_name(v.dtype()), ", got ", dtype_name(delta.dtype()));
}

}  // namespace

Variable::Variable(const Tensor& initial, std::string name, bool trainable)
    : state_(std::make_shared<detail::VariableState>()) {
  TL_CHECK(initial.defined(), InvalidArgument, "Variable '", name, "': the initial value is an empty Tensor handle");
  TL_CHECK(!initial.is_symbolic(), InvalidArgument, "Variable '", name,
           "': the initial value must be concrete, not a symbolic tensor");
  state_->name = std::move(name);
  state_->id = next_variable_id();
  state_->trainable = trainable;
  if (OpInterceptor* tracer = detail::active_interceptor()) tracer->on_variable_created(*state_);
  detail::PauseRecording pause;
  detail::SuspendInterception eager;  // the initial value is concrete, even inside a trace
  state_->value = initial.is_weak() ? strengthen(initial, initial.dtype()) : initial;
}

Variable Variable::from_state(std::shared_ptr<detail::VariableState> state) {
  TL_CHECK(state != nullptr && state->value.defined(), InvalidArgument, "Variable: no state");
  Variable variable(std::move(state));
  return variable;
}

Tensor Variable::value() const {
  if (OpInterceptor* tracer = detail::active_interceptor()) return tracer->read_variable(state_);
  return state_->value;
}

Tensor Variable::read() const {
  Tensor value = this->value();
  detail::notify_variable_read(*this, value);
  return value;
}

void Variable::assign(const Tensor& value) {
  TL_CHECK(value.defined(), InvalidArgument, "assign: variable '", name(), "' got an empty Tensor handle");
  detail::PauseRecording pause;
  Tensor next = value.is_weak() ? strengthen(value, dtype()) : value;
  TL_CHECK(next.dtype() == dtype(), DTypeError, "assign: variable '", name(), "' has dtype ", dtype_name(dtype()),
           ", got ", dtype_name(next.dtype()));
  bool fits = next.is_symbolic() ? next.shape().is_compatible_with(shape()) : next.shape() == shape();
  TL_CHECK(fits, ShapeError, "assign: variable '", name(), "' has shape ", shape().str(), ", got ",
           next.shape().str());
  if (OpInterceptor* tracer = detail::active_interceptor()) return tracer->assign_variable(state_, next);
  state_->value = next;
}

namespace {

/// assign_add / assign_sub: value() op delta, computed without recording, errors named as the assignment; the
/// result must keep the variable's shape.
Tensor updated_value(const Variable& v, const Tensor& delta, const char* what, Tensor (*op)(const Tensor&, const Tensor&)) {
  check_update_dtype(v, delta, what);
  Tensor result;
  {
    detail::PauseRecording pause;
    try {
      result = op(v.value(), delta);
    } catch (const OutOfMemory&) {
      throw;
    } catch (const Error&) {  // a bool variable, a delta that does not broadcast: named as this assignment
      detail::rethrow_prefixed(detail::cat(what, ": variable '", v.name(), "': "));
    }
  }
  TL_CHECK(result.shape().is_compatible_with(v.shape()) && result.rank() == rank_of(v), ShapeError, what,
           ": variable '", v.name(), "' has shape ", v.shape().str(), ", the update ", delta.shape().str(),
           " would make it ", result.shape().str());
  return result;
}

}  // namespace

void Variable::assign_add(const Tensor& delta) {
  assign(updated_value(*this, delta, "assign_add", [](const Tensor& a, const Tensor& b) { return add(a, b); }));
}

void Variable::assign_sub(const Tensor& delta) {
  assign(updated_value(*this, delta, "assign_sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }));
}

std::string Variable::str() const {
  return "<tl.Variable '" + name() + "' shape=" + shape().str() + " dtype=" + std::string(dtype_name(dtype())) +
         ", values=" + (state_->value.defined() ? state_->value.values_str() : std::string("?")) + ">";
}

std::ostream& operator<<(std::ostream& out, const Variable& variable) { return out << variable.str(); }

}  // namespace tl
