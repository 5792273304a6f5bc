#include "tracelab/base/dtype.h"

#include "tracelab/base/error.h"

namespace tl {

std::string_view dtype_name(DType dtype) noexcept {
  switch (dtype) {
    case DType::float32: return "float32";
    case DType::int32: return "int32";
    case DType::bool_: return "bool";
  }
  return "invalid";
}

std::string_view dtype_short_name(DType dtype) noexcept {
  switch (dtype) {
    case DType::float32: return "f32";
    case DType::int32: return "i32";
    case DType::bool_: break;
  }
  return "bool";
}

DType dtype_from_name(std::string_view name) {
  if (name == "float32") return DType::float32;
  if (name == "int32") return DType::int32;
  if (name == "bool") return DType::bool_;
  throw InvalidArgument(detail::cat("unknown dtype '", name, "', expected float32, int32 or bool"));
}

std::size_t dtype_size(DType dtype) noexcept {
  return dtype == DType::bool_ ? 1 : 4;
}

}  // namespace tl
