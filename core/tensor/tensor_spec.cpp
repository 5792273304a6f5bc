#include "tracelab/tensor/tensor_spec.h"

namespace tl {

TensorSpec::TensorSpec(Shape shape, DType dtype, std::string name)
    : shape_(std::move(shape)), dtype_(dtype), name_(std::move(name)) {
  for (auto d : shape_.dims())
    TL_CHECK(d >= -1, InvalidArgument, "TensorSpec: dims must be >= 0 or -1 (unknown), got ", shape_.str());
}

TensorSpec TensorSpec::from_tensor(const Tensor& tensor, std::string name) {
  return TensorSpec(tensor.shape(), tensor.dtype(), std::move(name));
}

bool TensorSpec::is_compatible_with(const TensorMeta& meta) const noexcept {
  return meta.dtype == dtype_ && shape_.is_compatible_with(meta.shape);
}

std::string TensorSpec::mismatch(const TensorMeta& meta) const {
  if (meta.dtype != dtype_)
    return detail::cat("expected dtype ", dtype_name(dtype_), ", got ", dtype_name(meta.dtype));
  if (meta.shape.rank() != shape_.rank())
    return detail::cat("expected rank ", shape_.rank(), " ", shape_.str(), ", got rank ", meta.shape.rank(), " ",
                       meta.shape.str());
  for (int i = 0; i < shape_.rank(); ++i) {
    auto want = shape_[static_cast<std::size_t>(i)], got = meta.shape[static_cast<std::size_t>(i)];
    if (want >= 0 && got >= 0 && want != got)
      return detail::cat("dim ", i, ": expected ", want, ", got ", got, " (shape ", meta.shape.str(), " vs ",
                         shape_.str(), ")");
  }
  return {};
}

std::optional<TensorSpec> TensorSpec::most_specific_common(const TensorSpec& other) const {
  if (dtype_ != other.dtype_ || shape_.rank() != other.shape_.rank()) return std::nullopt;
  std::vector<std::int64_t> dims(shape_.dims());
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != other.shape_[i]) dims[i] = -1;
  return TensorSpec(Shape(std::move(dims)), dtype_, name_);
}

std::string TensorSpec::str() const {
  return "TensorSpec(shape=" + shape_.str() + ", dtype=tl." + std::string(dtype_name(dtype_)) +
         ", name=" + (name_.empty() ? std::string("None") : "'" + name_ + "'") + ")";
}

}  // namespace tl
