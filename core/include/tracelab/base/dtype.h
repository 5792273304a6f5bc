// Element types. Tracelab has three: float32 (the default for real numbers), int32 and bool.
//
//   tl::Tensor t = tl::zeros({2, 3}, tl::int32);
//   if (t.dtype() == tl::int32) std::puts(tl::dtype_name(t.dtype()));   // "int32"
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tl {

/// The element type of a tensor.
enum class DType : std::uint8_t { float32, int32, bool_ };

inline constexpr DType float32 = DType::float32;  ///< 32-bit IEEE float
inline constexpr DType int32 = DType::int32;      ///< 32-bit signed integer
inline constexpr DType bool_ = DType::bool_;      ///< boolean, one byte per element

/// TensorFlow's name of a dtype: "float32", "int32", "bool".
std::string_view dtype_name(DType dtype) noexcept;
/// The IR's short name: "f32", "i32", "bool".
std::string_view dtype_short_name(DType dtype) noexcept;
/// Parses a dtype name; throws InvalidArgument for anything else.
DType dtype_from_name(std::string_view name);
/// Bytes per element.
std::size_t dtype_size(DType dtype) noexcept;

/// The C++ type that stores elements of a dtype (bool is stored as one byte).
template <DType D> struct dtype_traits;
/// float32 elements are `float`.
template <> struct dtype_traits<DType::float32> {
  using type = float;  ///< the element type
};
/// int32 elements are `std::int32_t`.
template <> struct dtype_traits<DType::int32> {
  using type = std::int32_t;  ///< the element type
};
/// bool elements are `bool`, one byte each.
template <> struct dtype_traits<DType::bool_> {
  using type = bool;  ///< the element type
};

/// The dtype of a C++ element type.
template <class T> constexpr DType dtype_of();
/// float32.
template <> constexpr DType dtype_of<float>() { return DType::float32; }
/// int32.
template <> constexpr DType dtype_of<std::int32_t>() { return DType::int32; }
/// bool.
template <> constexpr DType dtype_of<bool>() { return DType::bool_; }

/// Calls `fn(T{})` with T the element type of `dtype` (float, int32_t or bool).
template <class Fn>
decltype(auto) visit_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::float32: return fn(float{});
    case DType::int32: return fn(std::int32_t{});
    case DType::bool_: break;
  }
  return fn(bool{});
}

}  // namespace tl
