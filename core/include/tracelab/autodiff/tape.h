// GradientTape: reverse-mode automatic differentiation, as in TensorFlow 2.
//
//   tl::GradientTape tape;                        // records from here (RAII: like `with tf.GradientTape()`)
//   auto loss = tl::reduce_mean(tl::square(tl::matmul(x, w) + b - y));
//   auto grads = tape.gradient(loss, {w, b});     // trainable Variables are watched automatically
//
// The tape records each op that touches a watched tensor (entries live on the tape, not in the tensors).
// gradient() walks them backwards, calling each op's registry gradient rule. Those rules use public ops, so an
// outer tape records the backward pass too: nested tapes give second-order gradients.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tracelab/autodiff/variable.h"
#include "tracelab/eager/execute.h"

namespace tl {

/// What gradient() returns for a watched source that the target does not depend on (tf.UnconnectedGradients).
enum class UnconnectedGradients { none, zero };

namespace detail {
struct TapeState;
}

/// Records the ops that touch watched tensors while it is alive on this thread, for gradient(); tapes nest (an
/// outer tape records the backward pass of an inner one).
class GradientTape {
 public:
  /// Starts recording. A non-persistent tape computes one gradient; a persistent one any number.
  /// With `watch_accessed_variables`, trainable Variables read while recording are watched automatically.
  explicit GradientTape(bool persistent = false, bool watch_accessed_variables = true);
  ~GradientTape();
  GradientTape(const GradientTape&) = delete;
  GradientTape& operator=(const GradientTape&) = delete;

  /// Watches a tensor (a constant becomes differentiable). An error after the tape has closed.
  void watch(const Tensor& tensor);
  /// Watches a variable's current value (also non-trainable ones).
  void watch(const Variable& variable);
  /// Stops recording (like leaving the `with` block); gradient() still works afterwards.
  void stop_recording();
  /// True while ops are being recorded.
  bool recording() const noexcept;

  /// d(sum of target)/d(source) for each source. A non-scalar target is summed, as in TensorFlow.
  std::vector<Tensor> gradient(const Tensor& target, const std::vector<Tensor>& sources,
                               UnconnectedGradients unconnected = UnconnectedGradients::none);
  /// The same for Variables (their values as read while recording).
  std::vector<Tensor> gradient(const Tensor& target, const std::vector<Variable>& sources,
                               UnconnectedGradients unconnected = UnconnectedGradients::none);
  /** @{ */
  /// One source (a tensor, or a Variable's value as read while recording).
  Tensor gradient(const Tensor& target, const Tensor& source,
                  UnconnectedGradients unconnected = UnconnectedGradients::none);
  Tensor gradient(const Tensor& target, const Variable& source,
                  UnconnectedGradients unconnected = UnconnectedGradients::none);
  /** @} */

  /// The Variables this tape watched, in first-read order (tape.watched_variables()).
  std::vector<Variable> watched_variables() const;
  /// Number of ops recorded so far.
  std::size_t size() const noexcept;

 private:
  std::unique_ptr<detail::TapeState> state_;
};

namespace detail {
/// Called by Variable::read(): lets active tapes watch trainable variables.
void notify_variable_read(const Variable& variable, const Tensor& value);
/// While alive, no tape on this thread records (used for variable assignments, which are not differentiable).
class PauseRecording {
 public:
  PauseRecording();
  ~PauseRecording();
  PauseRecording(const PauseRecording&) = delete;
  PauseRecording& operator=(const PauseRecording&) = delete;

 private:
  std::vector<OpObserver*> saved_;
};
}  // namespace detail

}  // namespace tl
