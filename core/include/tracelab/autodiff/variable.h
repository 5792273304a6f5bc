// Variables: named, typed, shaped mutable state with a stable id — the weights a training loop updates.
//
//   tl::Variable w(tl::zeros({3, 1}), "w");
//   w.assign_sub(learning_rate * grad);          // in place; shape and dtype are checked
//   tl::Tensor y = tl::matmul(x, w);              // a Variable is read implicitly where a Tensor is expected
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tracelab/tensor/tensor.h"
#include "tracelab/tensor/variable_state.h"

namespace tl {


/// A handle to mutable state; copies share it (like Python references to a tf.Variable).
class Variable {
 public:
  /// A variable holding `initial` (a concrete tensor; a weak scalar becomes a float32/int32 scalar).
  explicit Variable(const Tensor& initial, std::string name = "Variable", bool trainable = true);

  /// The name given at creation (not unique).
  const std::string& name() const noexcept { return state_->name; }
  /// A process-unique id, stable for the variable's life.
  std::uint64_t id() const noexcept { return state_->id; }
  /// True when tapes watch it automatically on read.
  bool trainable() const noexcept { return state_->trainable; }
  /// The dtype, fixed at creation.
  DType dtype() const noexcept { return state_->value.dtype(); }
  /// The shape, fixed at creation.
  const Shape& shape() const noexcept { return state_->value.shape(); }

  /// The current value. Active gradient tapes watch it when the variable is trainable. Inside a traced
  /// function it is the symbolic value the variable has at that point of the graph.
  Tensor read() const;
  /// The current value without notifying tapes (for bookkeeping such as optimizers' slot updates).
  Tensor value() const;
  /// Implicit read, so a Variable can be passed wherever a Tensor is expected.
  operator Tensor() const { return read(); }  // NOLINT(google-explicit-constructor)

  /// Replaces the value; dtype and shape must match (DTypeError / ShapeError otherwise, value unchanged).
  void assign(const Tensor& value);
  /// value += delta (delta broadcasts to the variable's shape).
  void assign_add(const Tensor& delta);
  /// value -= delta.
  void assign_sub(const Tensor& delta);

  /// "<tl.Variable 'w' shape=(3, 1) dtype=float32, values=[[0.] [0.] [0.]]>"
  std::string str() const;
  /// True when both handles share the same state (identity, not equal values).
  friend bool operator==(const Variable& a, const Variable& b) noexcept { return a.state_ == b.state_; }

  /// The shared state (for the tracing and graph layers).
  const std::shared_ptr<detail::VariableState>& state() const noexcept { return state_; }
  /// A handle to existing state (a graph node's captured variable, for example).
  static Variable from_state(std::shared_ptr<detail::VariableState> state);

 private:
  explicit Variable(std::shared_ptr<detail::VariableState> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::VariableState> state_;
};

/// Writes variable.str().
std::ostream& operator<<(std::ostream& out, const Variable& variable);

}  // namespace tl
