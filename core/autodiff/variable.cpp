#include "tracelab/autodiff/variable.h"

#include <atomic>
#include <ostream>

#include "tracelab/autodiff/tape.h"
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

}  // namespace

Variable::Variable(const Tensor& initial, std::string name, bool trainable)
    : state_(std::make_shared<detail::VariableState>()) {
  TL_CHECK(initial.defined(), InvalidArgument, "Variable '", name, "': the initial value is an empty Tensor handle");
  TL_CHECK(!initial.is_symbolic(), InvalidArgument, "Variable '", name,
           "': the initial value must be concrete, not a symbolic tensor");
  state_->name = std::move(name);
  state_->id = next_variable_id();
  state_->trainable = trainable;
  detail::PauseRecording pause;
  state_->value = initial.is_weak() ? strengthen(initial, initial.dtype()) : initial;
}

Tensor Variable::read() const {
  detail::notify_variable_read(*this);
  return state_->value;
}

void Variable::assign(const Tensor& value) {
  TL_CHECK(value.defined(), InvalidArgument, "assign: variable '", name(), "' got an empty Tensor handle");
  detail::PauseRecording pause;
  Tensor next = value.is_weak() ? strengthen(value, dtype()) : value;
  TL_CHECK(next.dtype() == dtype(), DTypeError, "assign: variable '", name(), "' has dtype ", dtype_name(dtype()),
           ", got ", dtype_name(next.dtype()));
  TL_CHECK(next.shape() == shape(), ShapeError, "assign: variable '", name(), "' has shape ", shape().str(),
           ", got ", next.shape().str());
  state_->value = next;
}

void Variable::assign_add(const Tensor& delta) {
  Tensor sum;
  {
    detail::PauseRecording pause;
    sum = add(state_->value, delta);
  }
  TL_CHECK(sum.shape() == shape(), ShapeError, "assign_add: variable '", name(), "' has shape ", shape().str(),
           ", the update ", delta.shape().str(), " would make it ", sum.shape().str());
  assign(sum);
}

void Variable::assign_sub(const Tensor& delta) {
  Tensor difference;
  {
    detail::PauseRecording pause;
    difference = sub(state_->value, delta);
  }
  TL_CHECK(difference.shape() == shape(), ShapeError, "assign_sub: variable '", name(), "' has shape ",
           shape().str(), ", the update ", delta.shape().str(), " would make it ", difference.shape().str());
  assign(difference);
}

std::string Variable::str() const {
  return "<tl.Variable '" + name() + "' shape=" + shape().str() + " dtype=" + std::string(dtype_name(dtype())) +
         ", values=" + state_->value.values_str() + ">";
}

std::ostream& operator<<(std::ostream& out, const Variable& variable) { return out << variable.str(); }

}  // namespace tl
