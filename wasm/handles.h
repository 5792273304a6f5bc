// The bridge's handle tables: JavaScript holds small integer handles, C++ holds the objects. Handles are never
// reused (a stale handle is a clear error, never another object), tables are per module instance.
//
//   int id = tensors().add(t);   tensors().get(id);   tensors().remove(id);
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <emscripten/val.h>

#include "tracelab/tracelab.h"

namespace tl::wasm {

template <class T>
class HandleTable {
 public:
  explicit HandleTable(const char* kind) : kind_(kind) {}

  /// Stores `value` under a new handle.
  double add(T value) {
    double id = static_cast<double>(next_++);
    items_.emplace(static_cast<std::uint64_t>(id), std::move(value));
    return id;
  }
  /// The object behind `id`; InvalidArgument naming the kind when it was disposed or never existed.
  T& get(double id) {
    auto it = items_.find(static_cast<std::uint64_t>(id));
    TL_CHECK(it != items_.end(), InvalidArgument, kind_, " handle ", static_cast<std::uint64_t>(id),
             " is not alive (disposed, or created by another module instance)");
    return it->second;
  }
  /// The object behind `id`, or nullptr.
  T* find(double id) {
    auto it = items_.find(static_cast<std::uint64_t>(id));
    return it == items_.end() ? nullptr : &it->second;
  }
  /// Forgets `id`; true when it was alive (disposing twice is harmless, as in TF.js).
  bool remove(double id) { return items_.erase(static_cast<std::uint64_t>(id)) > 0; }
  std::size_t size() const noexcept { return items_.size(); }
  const std::unordered_map<std::uint64_t, T>& items() const noexcept { return items_; }

 private:
  const char* kind_;
  std::uint64_t next_ = 1;
  std::unordered_map<std::uint64_t, T> items_;
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
/// (engine.wrapResults): [count, then per tensor: handle, dtype (0 float32, 1 int32, 2 bool), symbolic, rank,
/// dims... (-1 unknown)], as float64. Returns the buffer's byte address; it is valid until the next such call.
double results_of(const std::vector<Tensor>& list);
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
