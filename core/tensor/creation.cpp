#include "tracelab/tensor/creation.h"

#include <climits>
#include <cmath>
#include <limits>
#include <memory>

namespace tl {
namespace {

template <class T>
Tensor from_values(const T* values, std::size_t count, const Shape& shape) {
  TL_CHECK(shape.is_fully_defined(), ShapeError, "constant: shape ", shape.str(), " must be fully defined");
  TL_CHECK(static_cast<std::int64_t>(count) == shape.num_elements(), ShapeError, "constant: ", count,
           " values do not fill shape ", shape.str(), " (", shape.num_elements(), " elements)");
  Tensor out = Tensor::empty(dtype_of<T>(), shape);
  T* dst = out.mutable_data<T>();
  for (std::size_t i = 0; i < count; ++i) dst[i] = values[i];
  return out;
}

template <class T>
Tensor filled(const Shape& shape, T value) {
  Tensor out = Tensor::empty(dtype_of<T>(), shape);
  T* dst = out.mutable_data<T>();
  for (std::int64_t i = 0, n = out.num_elements(); i < n; ++i) dst[i] = value;
  return out;
}

}  // namespace

Tensor constant(std::vector<float> values, const Shape& shape) {
  return from_values(values.data(), values.size(), shape);
}
Tensor constant(std::vector<std::int32_t> values, const Shape& shape) {
  return from_values(values.data(), values.size(), shape);
}
Tensor constant(std::vector<bool> values, const Shape& shape) {
  std::vector<char> bytes(values.begin(), values.end());
  std::vector<bool>::size_type n = values.size();
  std::unique_ptr<bool[]> flags(new bool[n == 0 ? 1 : n]);
  for (std::size_t i = 0; i < n; ++i) flags[i] = bytes[i] != 0;
  return from_values(flags.get(), n, shape);
}
Tensor constant(std::initializer_list<float> values, const Shape& shape) {
  return from_values(values.begin(), values.size(), shape);
}
Tensor constant(std::initializer_list<std::int32_t> values, const Shape& shape) {
  return from_values(values.begin(), values.size(), shape);
}
Tensor constant(std::initializer_list<bool> values, const Shape& shape) {
  return from_values(values.begin(), values.size(), shape);
}
Tensor constant(std::initializer_list<float> values) {
  return constant(values, Shape{static_cast<std::int64_t>(values.size())});
}
Tensor constant(std::initializer_list<std::int32_t> values) {
  return constant(values, Shape{static_cast<std::int64_t>(values.size())});
}
Tensor scalar(float value) { return filled(Shape{}, value); }
Tensor scalar(std::int32_t value) { return filled(Shape{}, value); }
Tensor scalar(bool value) { return filled(Shape{}, value); }

Tensor zeros(const Shape& shape, DType dtype) { return Tensor::empty(dtype, shape); }

Tensor ones(const Shape& shape, DType dtype) {
  return visit_dtype(dtype, [&](auto tag) { return filled(shape, static_cast<decltype(tag)>(1)); });
}

Tensor fill(const Shape& shape, const Tensor& value) {
  TL_CHECK(value.defined(), InvalidArgument, "fill: value is an empty Tensor handle");
  TL_CHECK(value.rank() == 0, ShapeError, "fill: value must be a scalar, got shape ", value.shape().str());
  return visit_dtype(value.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return filled(shape, *value.data<T>());
  });
}

Tensor range(double start, double limit, double delta, DType dtype) {
  TL_CHECK(delta != 0 && std::isfinite(delta), InvalidArgument, "range: delta must be finite and non-zero, got ",
           delta);
  TL_CHECK(std::isfinite(start) && std::isfinite(limit), InvalidArgument, "range: start and limit must be finite");
  TL_CHECK(dtype != DType::bool_, DTypeError, "range: dtype must be float32 or int32, got bool");
  double count = std::ceil((limit - start) / delta);
  if (count < 0) count = 0;
  TL_CHECK(count < static_cast<double>(std::numeric_limits<std::int32_t>::max()), OutOfMemory, "range: ", count,
           " elements are too many");
  auto n = static_cast<std::int64_t>(count);
  if (dtype == DType::int32) {  // every value must be an exact int32 (a float->int cast of 3e9 is UB)
    double last = n > 0 ? start + static_cast<double>(n - 1) * delta : start;
    auto is_int32 = [](double v) { return v == std::floor(v) && v >= INT32_MIN && v <= INT32_MAX; };
    TL_CHECK(is_int32(start) && is_int32(delta) && is_int32(last), InvalidArgument,
             "range: int32 ranges need integer start and delta and int32 values, got start ", start, ", limit ",
             limit, ", delta ", delta);
  }
  Tensor out = Tensor::empty(dtype, Shape{n});
  visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* dst = out.mutable_data<T>();
    for (std::int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(start + static_cast<double>(i) * delta);
  });
  return out;
}

}  // namespace tl
