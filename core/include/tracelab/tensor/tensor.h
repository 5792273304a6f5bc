// Tensor: a cheap value handle (a shared pointer) over an immutable n-d array of float32, int32 or bool.
//
//   tl::Tensor a = tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2});
//   tl::Tensor b = a * 2 + 1;                      // C++ numbers convert to "weak" scalars that adopt a's dtype
//   std::cout << b;                                // tl.Tensor(shape=(2, 2), dtype=float32, values=[[3. 5.] [7. 9.]])
//
// A Tensor is either concrete (it owns a buffer) or symbolic (the output of a graph node while a function is
// being traced, see function/function.h). User code is the same for both: ops take and return Tensors.
#pragma once

#include <climits>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "tracelab/base/dtype.h"
#include "tracelab/base/error.h"
#include "tracelab/base/shape.h"

namespace tl {

/// The static description of a tensor: dtype and (possibly partially known) shape.
struct TensorMeta {
  DType dtype = DType::float32;  ///< element type
  Shape shape;                   ///< dims; -1 for a dim unknown while tracing
  /// Same dtype and same dims (unknown equals unknown only).
  friend bool operator==(const TensorMeta& a, const TensorMeta& b) { return a.dtype == b.dtype && a.shape == b.shape; }
};

/// "f32[?,1,20]": the short form of a meta used in messages and the graph IR (? for unknown dims).
std::string meta_str(const TensorMeta& meta);

namespace detail {
/// A heap block of bytes, 64-byte aligned, zero-initialized, shared between tensors that alias it.
class Buffer {
  struct Key {};  // only allocate() makes buffers (through std::make_shared: one heap block with the count)

 public:
  /// Allocates `bytes` bytes; throws OutOfMemory (never aborts) when the allocation fails.
  static std::shared_ptr<Buffer> allocate(std::size_t bytes);
  Buffer(Key, void* data, std::size_t bytes) : data_(data), bytes_(bytes) {}
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  void* data_;
  std::size_t bytes_;
};

/// How many tensor buffers this process has allocated so far (benchmarks and tests count allocations per call).
std::uint64_t buffer_allocations() noexcept;

/// Opaque handle of a symbolic value (a graph node output); defined by the tracing layer.
struct Symbol;

/// What a Tensor points to. Either `buffer` (concrete) or `symbol` (symbolic) is set.
struct TensorImpl {
  TensorMeta meta;
  std::shared_ptr<Buffer> buffer;
  std::shared_ptr<Symbol> symbol;
  bool weak = false;  ///< a scalar made from a C++ number: binary ops convert it to the other operand's dtype
};
}  // namespace detail

/// A tensor handle. Copies share the same immutable values (or the same symbolic value); ops make new tensors.
class Tensor {
 public:
  /// An empty handle; using it in an op is an InvalidArgument error.
  Tensor() = default;
  /// A weak scalar from a C++ number: floating point -> float32, integer -> int32, bool -> bool.
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Tensor(T value);  // NOLINT(google-explicit-constructor): numbers mix with tensors like in TensorFlow

  /// A concrete tensor of the given dtype and fully defined shape, zero-filled.
  static Tensor empty(DType dtype, const Shape& shape);
  /// Wraps an implementation (used by the execution and tracing layers).
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}

  /// False for an empty handle (default-constructed). The accessors below throw InvalidArgument on one.
  bool defined() const noexcept { return impl_ != nullptr; }
  /// The element type.
  DType dtype() const { return impl().meta.dtype; }
  /// The dims; a symbolic tensor's may contain -1 (unknown until the graph runs).
  const Shape& shape() const { return impl().meta.shape; }
  /// Dtype and shape together.
  const TensorMeta& meta() const { return impl().meta; }
  /// Number of dims (0 for a scalar).
  int rank() const { return shape().rank(); }
  /// Product of the dims; throws InvalidArgument when a dim is unknown.
  std::int64_t num_elements() const { return shape().num_elements(); }
  /// True for the output of a node of a graph being traced: it has no values yet.
  bool is_symbolic() const { return impl().symbol != nullptr; }
  /// True for a scalar made implicitly from a C++ number.
  bool is_weak() const { return impl().weak; }

  /// Typed read-only pointer to the elements (row-major). Throws DTypeError if T does not match.
  template <class T> const T* data() const;
  /// Typed pointer for writing; only for kernels and freshly created tensors (tensors are values).
  template <class T> T* mutable_data() const;
  /// The single element of a one-element tensor, converted to T.
  template <class T> T item() const;
  /// All elements converted to T, row-major.
  template <class T> std::vector<T> to_vector() const;
  /// A scalar's truth value (non-zero); an error for several elements or a symbolic tensor.
  explicit operator bool() const;

  /// TensorFlow-style text: tl.Tensor(shape=(2,), dtype=float32, values=[1. 2.])
  std::string str() const;
  /// The values alone, NumPy style: [[1. 2.] [3. 4.]]; long tensors are elided with "...".
  std::string values_str() const;

  /// The implementation (for the execution and tracing layers); throws InvalidArgument on an empty handle.
  const detail::TensorImpl& impl() const {
    if (impl_ == nullptr) empty_handle_error();
    return *impl_;
  }
  /// The shared implementation pointer, null for an empty handle.
  const std::shared_ptr<detail::TensorImpl>& impl_ptr() const noexcept { return impl_; }

 private:
  /// The elements when the tensor is concrete and of dtype `expected`; otherwise throws naming `what`.
  const void* raw_data(DType expected, const char* what) const {
    const detail::TensorImpl& self = impl();
    if (self.symbol == nullptr && self.meta.dtype == expected) return self.buffer->data();
    raw_data_error(expected, what);
  }
  [[noreturn]] static void empty_handle_error();
  [[noreturn]] void raw_data_error(DType expected, const char* what) const;
  std::shared_ptr<detail::TensorImpl> impl_;
};

/// Writes tensor.str().
std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

namespace detail {
Tensor make_weak_scalar_f32(float value);
Tensor make_weak_scalar_i32(std::int32_t value);
Tensor make_weak_scalar_bool(bool value);
}  // namespace detail

template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int>>
Tensor::Tensor(T value) {
  if constexpr (std::is_same_v<T, bool>) *this = detail::make_weak_scalar_bool(value);
  else if constexpr (std::is_floating_point_v<T>) *this = detail::make_weak_scalar_f32(static_cast<float>(value));
  else {
    bool fits;
    if constexpr (std::is_signed_v<T>) fits = value >= INT32_MIN && value <= INT32_MAX;
    else fits = value <= static_cast<std::uint32_t>(INT32_MAX);
    TL_CHECK(fits, InvalidArgument, "integer ", value, " does not fit in int32");
    *this = detail::make_weak_scalar_i32(static_cast<std::int32_t>(value));
  }
}

template <class T>
const T* Tensor::data() const {
  return static_cast<const T*>(raw_data(dtype_of<T>(), "data"));
}

template <class T>
T* Tensor::mutable_data() const {
  return static_cast<T*>(const_cast<void*>(raw_data(dtype_of<T>(), "mutable_data")));
}

namespace detail {
/// One element converted to T. Floating point to integer saturates and maps NaN to 0, like tl::cast: a plain
/// static_cast of NaN, inf or an out-of-range value is undefined behaviour.
template <class T, class S>
T convert_element(S value) {
  if constexpr (std::is_floating_point_v<S> && std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (value != value) return T{0};
    if (value <= static_cast<S>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    if (value >= static_cast<S>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  }
  return static_cast<T>(value);
}
}  // namespace detail

template <class T>
std::vector<T> Tensor::to_vector() const {
  std::vector<T> out(static_cast<std::size_t>(num_elements()));
  visit_dtype(dtype(), [&](auto tag) {
    using S = decltype(tag);
    const S* src = data<S>();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = detail::convert_element<T>(src[i]);
  });
  return out;
}

template <class T>
T Tensor::item() const {
  TL_CHECK(!defined() || !is_symbolic(), OperatorNotAllowedInGraph, "item: a symbolic tensor ", meta_str(meta()),
           " has no value while a function is being traced; use tl::cond / tl::while_loop for decisions and "
           "tl::print to see values when the graph runs");
  TL_CHECK(defined() && num_elements() == 1, InvalidArgument,
           "item: expected a concrete tensor with exactly one element, got ",
           defined() ? shape().str() : std::string("an empty handle"));
  return to_vector<T>()[0];
}

namespace detail {
/// True when nobody but the holder of `tensor` sees its implementation or its buffer: it may be written in place.
inline bool exclusively_owned(const Tensor& tensor) noexcept {
  const auto& impl = tensor.impl_ptr();
  return impl != nullptr && impl.use_count() == 1 && impl->buffer != nullptr && impl->buffer.use_count() == 1;
}

/// A tensor of `meta` sharing `source`'s buffer (ops with trait::view, eagerly): `meta` must hold as many bytes as
/// `source`, which the op's shape rule guarantees.
Tensor view(const Tensor& source, TensorMeta&& meta);
}  // namespace detail

}  // namespace tl
