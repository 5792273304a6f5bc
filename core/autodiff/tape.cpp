#include "tracelab/autodiff/tape.h"

#include <algorithm>
#include <typeinfo>

#include "autodiff/flat_map.h"
#include "tracelab/base/local_array.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"
#include "tracelab/tensor/creation.h"

namespace tl {
namespace detail {

/// One recorded op call; its tensors live flattened in TapeState::tensors.
struct TapeEntry {
  const OpDef* op;
  std::uint32_t first_input, num_inputs, first_output, num_outputs;
  Attrs attrs;
  std::vector<std::shared_ptr<const graph::Graph>> subgraphs;  // structured ops: the node's sub-graphs
};

struct TapeState final : OpObserver {
  bool persistent = false;
  bool watch_accessed_variables = true;
  bool recording = true;   // between construction and stop_recording()
  bool paused = false;     // while this tape runs its own backward pass
  bool closed = false;     // a non-persistent tape after its gradient
  std::vector<TapeEntry> entries;
  std::vector<Tensor> tensors;                   // entry inputs/outputs and watched tensors, kept alive
  PtrIndexMap watched;                           // TensorImpl* -> index into tensors
  std::vector<std::pair<Variable, const TensorImpl*>> variable_reads;

  bool is_watched(const Tensor& t) const { return watched.contains(t.impl_ptr().get()); }

  void watch(const Tensor& t) {
    if (t.dtype() != DType::float32 || is_watched(t)) return;  // only real numbers carry gradients
    watched.insert(t.impl_ptr().get(), static_cast<std::uint32_t>(tensors.size()));
    tensors.push_back(t);
  }

  void on_executed(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs,
                   std::span<const Tensor> outputs, Subgraphs subgraphs) override {
    if (paused || op.has(trait::not_differentiable)) return;
    bool touches_watched = false;
    for (const Tensor& t : inputs) touches_watched = touches_watched || is_watched(t);
    if (!touches_watched) return;
    auto first = static_cast<std::uint32_t>(tensors.size());
    tensors.insert(tensors.end(), inputs.begin(), inputs.end());
    tensors.insert(tensors.end(), outputs.begin(), outputs.end());
    entries.push_back({&op, first, static_cast<std::uint32_t>(inputs.size()),
                       first + static_cast<std::uint32_t>(inputs.size()), static_cast<std::uint32_t>(outputs.size()),
                       attrs, {subgraphs.begin(), subgraphs.end()}});
    for (const Tensor& t : outputs) watch(t);
  }
};

namespace {

void remove_observer(OpObserver* observer) {
  auto& list = active_observers();
  list.erase(std::remove(list.begin(), list.end(), observer), list.end());
}

/// Accumulated gradients during one backward pass, keyed by tensor.
class GradientMap {
 public:
  /// Room for the gradients of up to `count` tensors without growing.
  explicit GradientMap(std::size_t count) {
    index_.reserve(count);
    grads_.reserve(count);
  }
  const Tensor* find(const Tensor& t) const {
    auto i = index_.find(t.impl_ptr().get());
    return i == PtrIndexMap::npos ? nullptr : &grads_[i];
  }
  void accumulate(const Tensor& t, const Tensor& grad) {
    auto i = index_.find(t.impl_ptr().get());
    if (i == PtrIndexMap::npos) {
      index_.insert(t.impl_ptr().get(), static_cast<std::uint32_t>(grads_.size()));
      grads_.push_back(grad);
    } else {
      grads_[i] = add(grads_[i], grad);
    }
  }

 private:
  PtrIndexMap index_;
  std::vector<Tensor> grads_;
};

/// Runs one entry's gradient rule and accumulates what it returns into `grads`.
void backward_entry(const TapeState& state, const TapeEntry& entry, GradientMap& grads) {
  std::span<const Tensor> inputs(state.tensors.data() + entry.first_input, entry.num_inputs);
  std::span<const Tensor> outputs(state.tensors.data() + entry.first_output, entry.num_outputs);
  constexpr std::size_t kInline = 8;
  LocalArray<Tensor, kInline> upstream(outputs.size()), input_grads(inputs.size());
  bool any = false;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor* g = grads.find(outputs[i]);
    if (g) upstream[i] = *g;
    any = any || g != nullptr;
  }
  if (!any) return;  // nothing downstream of this op reached the target
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (!upstream[i].defined()) upstream[i] = zeros_like(outputs[i]);
  // The rule may skip the gradients of inputs the tape does not watch (they depend on no source). The mask covers
  // the first 64 inputs; the context counts the others as needed, and they are asked for below.
  std::uint64_t needed = 0;
  for (std::size_t i = 0; i < inputs.size() && i < 64; ++i)
    if (state.is_watched(inputs[i])) needed |= std::uint64_t{1} << i;
  const GradContext context{*entry.op, inputs, outputs, entry.attrs, upstream.span(), entry.subgraphs, needed};
  entry.op->backward(context, input_grads.span());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const bool watched = context.needs(i) && (i < 64 || state.is_watched(inputs[i]));
    if (!input_grads[i].defined() || !watched) continue;
    TL_CHECK(input_grads[i].shape() == inputs[i].shape(), ShapeError, entry.op->name(),
             ": gradient rule returned shape ", input_grads[i].shape().str(), " for input ", i, " of shape ",
             inputs[i].shape().str());
    grads.accumulate(inputs[i], input_grads[i]);
  }
}

/// A source's gradient, or the unconnected value.
Tensor result_for(const Tensor* grad, const Tensor& source, UnconnectedGradients unconnected) {
  if (grad) return *grad;
  return unconnected == UnconnectedGradients::zero ? zeros_like(source) : Tensor();
}

}  // namespace

void notify_variable_read(const Variable& variable, const Tensor& value) {
  for (OpObserver* observer : active_observers()) {
    // TapeState is final: comparing the dynamic type is the cast, without dynamic_cast's search of the hierarchy
    // (one per observer per variable read).
    auto* state = typeid(*observer) == typeid(TapeState) ? static_cast<TapeState*>(observer) : nullptr;
    if (!state || state->paused || !state->watch_accessed_variables || !variable.trainable()) continue;
    state->watch(value);
    std::pair<Variable, const TensorImpl*> read{variable, value.impl_ptr().get()};
    if (std::find(state->variable_reads.begin(), state->variable_reads.end(), read) == state->variable_reads.end())
      state->variable_reads.push_back(read);
  }
}

PauseRecording::PauseRecording() : saved_(std::move(active_observers())) { active_observers().clear(); }
PauseRecording::~PauseRecording() { active_observers() = std::move(saved_); }

}  // namespace detail

namespace detail {
namespace {

/// How much the last tape of this thread recorded. A training loop makes one tape per step, each recording
/// what the one before did: a new tape reserves that much, instead of growing its arrays step by step.
struct TapeSizeHint {
  static constexpr std::size_t kMax = 1 << 14;  // one huge tape does not make every later one huge
  std::size_t entries = 0, tensors = 0;
};
TapeSizeHint& tape_size_hint() {
  thread_local TapeSizeHint hint;
  return hint;
}
void remember_size(const TapeState& state) {
  auto& hint = tape_size_hint();
  hint.entries = std::min(state.entries.size(), TapeSizeHint::kMax);
  hint.tensors = std::min(state.tensors.size(), TapeSizeHint::kMax);
}

}  // namespace
}  // namespace detail

GradientTape::GradientTape(bool persistent, bool watch_accessed_variables)
    : state_(std::make_unique<detail::TapeState>()) {
  state_->persistent = persistent;
  state_->watch_accessed_variables = watch_accessed_variables;
  const auto& hint = detail::tape_size_hint();
  state_->entries.reserve(hint.entries);
  state_->tensors.reserve(hint.tensors);
  state_->watched.reserve(hint.tensors);
  detail::active_observers().push_back(state_.get());
}

GradientTape::~GradientTape() {
  if (state_->recording) detail::remove_observer(state_.get());
  if (!state_->closed) detail::remember_size(*state_);  // a closed tape remembered its size when it closed
}

void GradientTape::stop_recording() {
  if (!state_->recording) return;
  state_->recording = false;
  detail::remove_observer(state_.get());
}

bool GradientTape::recording() const noexcept { return state_->recording; }
std::size_t GradientTape::size() const noexcept { return state_->entries.size(); }

void GradientTape::watch(const Tensor& tensor) {
  TL_CHECK(!state_->closed, InvalidArgument,
           "GradientTape.watch: the tape is closed (a non-persistent tape is released by its gradient call)");
  TL_CHECK(tensor.defined(), InvalidArgument, "GradientTape.watch: got an empty Tensor handle");
  TL_CHECK(tensor.dtype() == DType::float32, DTypeError, "GradientTape.watch: only float32 tensors carry gradients, got ",
           dtype_name(tensor.dtype()), " ", tensor.shape().str());
  state_->watch(tensor);
}

void GradientTape::watch(const Variable& variable) {
  Tensor value = variable.value();
  watch(value);
  std::pair<Variable, const detail::TensorImpl*> read{variable, value.impl_ptr().get()};
  auto& reads = state_->variable_reads;
  if (std::find(reads.begin(), reads.end(), read) == reads.end()) reads.push_back(read);
}

std::vector<Variable> GradientTape::watched_variables() const {
  std::vector<Variable> out;
  for (const auto& [variable, impl] : state_->variable_reads)
    if (std::find(out.begin(), out.end(), variable) == out.end()) out.push_back(variable);
  return out;
}

namespace {

/// Guards a backward pass: this tape does not record its own gradient ops (outer tapes still do).
struct PauseTape {
  explicit PauseTape(detail::TapeState& s) : state(s) { state.paused = true; }
  ~PauseTape() { state.paused = false; }
  detail::TapeState& state;
};

void check_target(const detail::TapeState& state, const Tensor& target) {
  TL_CHECK(!state.closed, InvalidArgument,
           "GradientTape.gradient: a non-persistent tape computes one gradient and is then released; "
           "use GradientTape(/*persistent=*/true) to call gradient() several times");
  TL_CHECK(target.defined(), InvalidArgument, "GradientTape.gradient: the target is an empty Tensor handle");
  TL_CHECK(target.dtype() == DType::float32, DTypeError,
           "GradientTape.gradient: the target must be float32 to be differentiated, got ",
           dtype_name(target.dtype()), " ", target.shape().str());
}

}  // namespace

std::vector<Tensor> GradientTape::gradient(const Tensor& target, const std::vector<Tensor>& sources,
                                           UnconnectedGradients unconnected) {
  auto& state = *state_;
  check_target(state, target);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    TL_CHECK(sources[i].defined(), InvalidArgument, "GradientTape.gradient: source ", i, " is an empty Tensor handle");
    TL_CHECK(state.is_watched(sources[i]), InvalidArgument, "GradientTape.gradient: source ", i, " (",
             dtype_name(sources[i].dtype()), " ", sources[i].shape().str(),
             ") is not watched by this tape; call tape.watch(x) before using it, or use a trainable Variable");
  }
  std::vector<Tensor> out;
  out.reserve(sources.size());
  {
    PauseTape pause(state);
    detail::GradientMap grads(state.tensors.size());
    if (state.is_watched(target)) {
      grads.accumulate(target, ones_like(target));  // a non-scalar target is summed, as in TensorFlow
      for (std::size_t e = state.entries.size(); e-- > 0;) detail::backward_entry(state, state.entries[e], grads);
    }
    for (const Tensor& source : sources) out.push_back(detail::result_for(grads.find(source), source, unconnected));
  }
  if (!state.persistent) {
    detail::remember_size(state);
    state.closed = true;
    stop_recording();
    state.entries.clear();
    state.tensors.clear();
    state.watched.clear();
  }
  return out;
}

std::vector<Tensor> GradientTape::gradient(const Tensor& target, const std::vector<Variable>& sources,
                                           UnconnectedGradients unconnected) {
  auto& state = *state_;
  check_target(state, target);
  // Every value a variable had while it was read on this tape is a source; their gradients add up.
  std::vector<Tensor> values;
  std::vector<std::size_t> owner;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    bool read = false;
    for (std::size_t r = 0; r < state.variable_reads.size(); ++r) {
      if (!(state.variable_reads[r].first == sources[i])) continue;
      read = true;
      auto index = state.watched.find(state.variable_reads[r].second);  // every value read was watched
      if (index == detail::PtrIndexMap::npos) continue;
      values.push_back(state.tensors[index]);
      owner.push_back(i);
    }
    TL_CHECK(read || (sources[i].trainable() && state.watch_accessed_variables), InvalidArgument,
             "GradientTape.gradient: variable '", sources[i].name(),
             "' is not watched by this tape (it is not trainable, or the tape does not watch accessed variables);"
             " call tape.watch(variable)");
  }
  std::vector<Tensor> per_value = gradient(target, values, UnconnectedGradients::none);
  std::vector<Tensor> out(sources.size());
  for (std::size_t k = 0; k < per_value.size(); ++k) {
    if (!per_value[k].defined()) continue;
    Tensor& slot = out[owner[k]];
    slot = slot.defined() ? add(slot, per_value[k]) : per_value[k];
  }
  if (unconnected == UnconnectedGradients::zero)
    for (std::size_t i = 0; i < out.size(); ++i)
      if (!out[i].defined()) out[i] = zeros(sources[i].shape(), sources[i].dtype());
  return out;
}

Tensor GradientTape::gradient(const Tensor& target, const Tensor& source, UnconnectedGradients unconnected) {
  return gradient(target, std::vector<Tensor>{source}, unconnected)[0];
}

Tensor GradientTape::gradient(const Tensor& target, const Variable& source, UnconnectedGradients unconnected) {
  return gradient(target, std::vector<Variable>{source}, unconnected)[0];
}

}  // namespace tl
