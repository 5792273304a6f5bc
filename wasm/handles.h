// The bridge's handle tables: JavaScript holds integer handles, C++ holds the objects. Handles are never reused
// (a stale handle is a clear error, never another object), tables are per module instance.
//
//   int id = tensors().add(t);   tensors().get(id);   tensors().remove(id);
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <emscripten/val.h>

#include "tracelab/tracelab.h"

namespace tl::wasm {

/// Objects by handle. A handle is a slot index (low kSlotBits bits) and the slot's generation (the bits above),
/// exact in a JS number: a look-up is an index and a compare. Removing bumps the slot's generation, so a stale
/// handle never finds the slot's next object; a slot whose generation is used up is retired, never reused.
template <class T>
class HandleTable {
 public:
  explicit HandleTable(const char* kind) : kind_(kind) {}

  /// Stores `value` under a new handle.
  double add(T value) {
    std::size_t slot;
    if (free_.empty()) {
      slot = slots_.size();
      TL_CHECK(slot < kMaxSlots, OutOfMemory, kind_, ": more than ", kMaxSlots, " live handles");
      slots_.emplace_back();
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    slots_[slot].value.emplace(std::move(value));
    ++size_;
    return static_cast<double>((slots_[slot].generation << kSlotBits) | slot);
  }
  /// The object behind `id`; InvalidArgument naming the kind when it was disposed or never existed.
  T& get(double id) {
    T* found = find(id);
    TL_CHECK(found != nullptr, InvalidArgument, kind_, " handle ",
             id >= 0 && id < 9007199254740992.0 && id == static_cast<double>(static_cast<std::uint64_t>(id))
                 ? std::to_string(static_cast<std::uint64_t>(id)) : std::to_string(id),
             " is not alive (disposed, or created by another module instance)");
    return *found;
  }
  /// The object behind `id`, or nullptr.
  T* find(double id) {
    Slot* slot = slot_of(id);
    return slot == nullptr ? nullptr : &*slot->value;
  }
  /// Forgets `id`; true when it was alive (disposing twice is harmless, as in TF.js).
  bool remove(double id) {
    Slot* slot = slot_of(id);
    if (slot == nullptr) return false;
    std::optional<T> gone = std::move(slot->value);  // destroyed after the table is consistent again
    slot->value.reset();
    --size_;
    if (++slot->generation < kMaxGeneration) free_.push_back(static_cast<std::size_t>(raw_slot(id)));
    return true;
  }
  std::size_t size() const noexcept { return size_; }
  /// Calls f(object) for every live object.
  template <class F> void for_each(F&& f) const {
    for (const Slot& slot : slots_)
      if (slot.value) f(*slot.value);
  }

 private:
  static constexpr int kSlotBits = 26;
  static constexpr std::uint64_t kMaxSlots = std::uint64_t{1} << kSlotBits;
  static constexpr std::uint64_t kMaxGeneration = std::uint64_t{1} << (53 - kSlotBits);  // ids stay below 2^53

  struct Slot {
    std::optional<T> value;
    std::uint64_t generation = 1;  // handle 0 is never issued
  };

  static std::uint64_t raw_slot(double id) { return static_cast<std::uint64_t>(id) & (kMaxSlots - 1); }

  Slot* slot_of(double id) {
    if (!(id >= 0 && id < 9007199254740992.0)) return nullptr;
    const auto raw = static_cast<std::uint64_t>(id);
    const std::uint64_t index = raw_slot(id);
    if (static_cast<double>(raw) != id || index >= slots_.size()) return nullptr;
    Slot& slot = slots_[index];
    return slot.value && slot.generation == (raw >> kSlotBits) ? &slot : nullptr;
  }

  const char* kind_;
  std::deque<Slot> slots_;  // a deque: adding never moves the objects, so references from get() stay valid
  std::vector<std::size_t> free_;
  std::size_t size_ = 0;
};

/// Live tensors (concrete or, while a JS function is traced, symbolic).
HandleTable<Tensor>& tensors();
/// Live variables.
HandleTable<Variable>& variables();
/// The handle of a core Variable: the same handle every time it is asked for, while that handle is alive.
double variable_handle(const Variable& variable);
/// A new handle per tensor, as a JS array.
emscripten::val handles_of(const std::vector<Tensor>& list);
/// A new handle per tensor, with its meta, written to a buffer in the module's memory that JS reads in one go
/// (engine.wrapResults): [count, then per tensor: handle, dtype (0 float32, 1 int32, 2 bool), symbolic, the byte
/// address of its values (0 for a symbolic tensor), rank, dims... (-1 unknown)], as float64. A tensor's values
/// stay at their address while it lives, so dataSync reads them without another call. Returns the buffer's byte
/// address; it is valid until the next such call.
/// An undefined Tensor in `list` is written as handle 0 (never issued; JS reads it as null) with no meta.
double results_of(std::span<const Tensor> list);
/// results_of for one tensor.
inline double results_of(const Tensor& t) { return results_of(std::span<const Tensor>(&t, 1)); }
/// The values of `list`, copied into a buffer in the module's memory that JS reads in one go (a tl.function's
/// `dataSync(...args)` and `arraySync(...args)`): [count, then per tensor: dtype (as results_of; -1 for no tensor),
/// the byte address of its values, their count, rank, dims...], as float64, the values after the entries (each
/// tensor's 8-byte aligned). No handles are made: the tensors may be released as soon as this returns. Returns the
/// buffer's byte address; it is valid until the next such call. OperatorNotAllowedInGraph naming `what` for a
/// symbolic tensor (it has no values).
double data_of(std::span<const Tensor> list, std::string_view what);
/// The staging area: JS writes a call's tensor handles (as float64) here and passes only their count, so a call
/// crosses the bridge once with numbers instead of an array (tl.function calls and eager op calls). Grows to
/// hold at least `count` handles; returns its byte address (valid until it grows again).
double staging_area(double count);
/// The first `count` numbers JS wrote to the staging area: a view, valid until JS grows the area again (no core
/// call does), so read it before calling back into JS.
std::span<const double> staged_numbers(double count, std::string_view what);
/// A dtype as results_of writes it (0 float32, 1 int32, 2 bool), and back (InvalidArgument naming `what`).
double dtype_code(DType dtype) noexcept;
DType dtype_of_code(double code, std::string_view what);
/// The tensors behind handles JS wrote to the staging area, into `out` (one per id).
void tensors_into(std::span<const double> ids, std::span<Tensor> out);
/// The same, as a vector.
std::vector<Tensor> tensors_of(std::span<const double> ids);
/// The variables behind handles JS wrote to the staging area.
std::vector<Variable> variables_of(std::span<const double> ids);
/// The tensors behind a JS array of handles (InvalidArgument naming `what` for anything else).
std::vector<Tensor> tensors_of(const emscripten::val& ids, const std::string& what);
/// The same, releasing the handles: the tensors' ownership passes from JS to C++.
std::vector<Tensor> take_tensors(const emscripten::val& ids, const std::string& what);
/// A TensorSpec from a JS {shape (-1 = any), dtype = 'float32', name?}.
TensorSpec to_spec(const emscripten::val& spec, const std::string& what);
/// Calls a JS trampoline with handles of `inputs`; it answers {outputs: [handles]} or {error: {name, message}}.
/// Every handle made for the call is released (the outputs after they are read); a JS error is rethrown as the
/// matching tl::Error, so C++ unwinds normally (a trace in progress ends cleanly).
std::vector<Tensor> call_js(const emscripten::val& callback, const std::vector<Tensor>& inputs);
/// Open gradient tapes.
HandleTable<std::unique_ptr<GradientTape>>& tapes();

}  // namespace tl::wasm
