// tl::TensorArray (tf.TensorArray): a list of tensors of one dtype and element shape, written one index at a time —
// typically a loop's per-step outputs — and stacked into one tensor. As in TensorFlow it is functional: write returns
// the new array. Its storage is one tensor, the buffer (element k is buffer[k]), so an array can be a loop variable of
// tl::while_loop: traced, each write is a tensor_array_write node of the loop's body and the array fills while the
// graph runs. Gradients flow through write, read and stack. How it compares with TensorFlow's:
// docs/tutorials/06-keras-transfer.md ("Why a TensorArray").
//
//   auto [t, outputs] = tl::while_loop([&](const tl::Tensor& t, const tl::TensorArray&) { return t < steps; },
//       [&](const tl::Tensor& t, const tl::TensorArray& out) { return std::tuple{t + 1, out.write(t, f(t))}; },
//       std::tuple{tl::scalar(0), tl::TensorArray(tl::float32, 0, {.dynamic_size = true, .element_shape = {4}})});
//   tl::Tensor all = outputs.stack();   // (steps, 4)
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tracelab/base/shape.h"
#include "tracelab/function/control_flow.h"
#include "tracelab/tensor/tensor.h"

namespace tl {

/// Options of a TensorArray.
struct TensorArrayOptions {
  /// Writes past the size grow the array (TensorFlow's dynamic_size); otherwise such a write is an error.
  bool dynamic_size = false;
  /// The shape every element must have (-1 dims: any size). Unset: taken from the first write (TensorFlow's
  /// infer_shape); later writes must match it.
  std::optional<Shape> element_shape = std::nullopt;
};

/// A functional array of tensors (tf.TensorArray). Copies are cheap and share the buffer.
class TensorArray {
 public:
  /// An array of `size` elements of `dtype` (size >= 0). With element_shape fully known the buffer exists at once,
  /// zero-filled (an unwritten element reads and stacks as zeros, as TensorFlow's does); otherwise the first write
  /// makes it, shaped by the value.
  TensorArray(DType dtype, std::int64_t size, TensorArrayOptions options = {});

  /// The array with element `index` (an int32 scalar, or a number) set to `value`. The value must have the array's
  /// dtype (DTypeError) and element shape (ShapeError); the index must be >= 0 and, unless dynamic_size, < size
  /// (InvalidArgument) — checked at once for a known index, when the graph runs for a traced one. Writing an index
  /// again replaces its element, as TensorFlow 2's TensorArray does.
  TensorArray write(const Tensor& index, const Tensor& value) const;
  /// The same with a C++ index.
  TensorArray write(std::int32_t index, const Tensor& value) const;
  /// Element `index` (an int32 scalar, or a number); an index outside [0, size) is an InvalidArgument.
  Tensor read(const Tensor& index) const;
  /// The same with a C++ index.
  Tensor read(std::int32_t index) const;
  /// Every element, stacked along a new dim 0: (size, element dims...).
  Tensor stack() const;
  /// The number of elements, an int32 scalar (for a dynamic array: the highest index written + 1, at least the
  /// initial size).
  Tensor size() const;

  /// The dtype every element has.
  DType dtype() const noexcept { return dtype_; }
  /// Whether writes past the size grow the array (TensorArrayOptions::dynamic_size).
  bool dynamic_size() const noexcept { return dynamic_size_; }
  /// The element shape known so far (given, or taken from the writes); unset before the first write if not given.
  const std::optional<Shape>& element_shape() const noexcept { return element_shape_; }
  /// The storage: element k is buffer()[k]. An empty handle until the element shape is fully known or one element
  /// has been written.
  const Tensor& buffer() const noexcept { return buffer_; }
  /// `like`'s dtype, size and options over another buffer (a loop variable's value inside tl::while_loop).
  static TensorArray with_buffer(const TensorArray& like, Tensor buffer);

 private:
  /// An int32 scalar; when known, >= 0 and below `limit` (-1: no limit), else an error naming `what` and `note`.
  void check_index(const char* what, const Tensor& index, std::int64_t limit, const char* note) const;

  DType dtype_;
  std::int64_t size_;
  bool dynamic_size_;
  std::optional<Shape> element_shape_;
  Tensor buffer_;
};

namespace detail {
/// A TensorArray is one loop variable: its buffer. It must exist when the loop starts (an InvalidArgument says so).
template <>
struct LoopVar<TensorArray> {
  static void flatten(const TensorArray& array, std::vector<Tensor>& out);
  static TensorArray unflatten(const TensorArray& like, const Tensor*& next) {
    return TensorArray::with_buffer(like, *next++);
  }
};
}  // namespace detail

}  // namespace tl
