// Text forms of tensors: TensorFlow's outer form, NumPy's inner one.
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>

#include "tracelab/tensor/tensor.h"

namespace tl {
namespace {

constexpr std::int64_t kSummarizeOver = 1000;  // NumPy's threshold for eliding
constexpr std::int64_t kEdgeItems = 3;

std::string format_float(float value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[32];
  if (value == std::nearbyint(value) && std::fabs(value) < 1e16f) {
    std::snprintf(text, sizeof text, "%.0f.", static_cast<double>(value));
  } else {
    std::snprintf(text, sizeof text, "%.7g", static_cast<double>(value));
  }
  return text;
}

template <class T>
std::string format_value(T value) {
  if constexpr (std::is_same_v<T, float>) return format_float(value);
  else if constexpr (std::is_same_v<T, bool>) return value ? "True" : "False";
  else return std::to_string(value);
}

template <class T>
void format_dim(std::string& out, const T* data, const Shape& shape, const std::vector<std::int64_t>& strides,
                int dim, std::int64_t offset, bool summarize) {
  if (dim == shape.rank()) {
    out += format_value(data[offset]);
    return;
  }
  out += '[';
  std::int64_t n = shape[static_cast<std::size_t>(dim)];
  for (std::int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
      out += "... ";
      i = n - kEdgeItems;
    }
    format_dim(out, data, shape, strides, dim + 1, offset + i * strides[static_cast<std::size_t>(dim)], summarize);
    if (i + 1 < n) out += ' ';
  }
  out += ']';
}

}  // namespace

std::string meta_str(const TensorMeta& meta) {
  std::string out(dtype_short_name(meta.dtype));
  out += '[';
  for (std::size_t i = 0; i < meta.shape.dims().size(); ++i) {
    if (i > 0) out += ',';
    std::int64_t dim = meta.shape[i];
    out += dim < 0 ? std::string("?") : std::to_string(dim);
  }
  return out + ']';
}

std::string Tensor::values_str() const {
  if (is_symbolic()) return "<symbolic>";
  if (num_elements() == 0) return "[]";  // TensorFlow prints every empty tensor as [], whatever its shape
  std::string out;
  visit_dtype(dtype(), [&](auto tag) {
    using T = decltype(tag);
    format_dim(out, data<T>(), shape(), shape().strides(), 0, 0, num_elements() > kSummarizeOver);
  });
  return out;
}

std::string Tensor::str() const {
  if (!defined()) return "tl.Tensor(<empty handle>)";
  std::string head = "tl.Tensor(shape=" + shape().str() + ", dtype=" + std::string(dtype_name(dtype()));
  if (is_symbolic()) return head + ")";
  return head + ", values=" + values_str() + ")";
}

}  // namespace tl
