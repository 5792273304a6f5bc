// TensorSpec: the dtype and (partially known) shape a function argument must have — an input signature entry.
//
//   tl::TensorSpec spec({-1, -1, 20}, tl::float32, "x");
//   spec.is_compatible_with(tl::zeros({1, 7, 20}).meta());   // true: -1 accepts any size
//   spec.str();   // "TensorSpec(shape=(None, None, 20), dtype=tl.float32, name='x')"
#pragma once

#include <optional>
#include <string>

#include "tracelab/tensor/tensor.h"

namespace tl {

class TensorSpec {
 public:
  TensorSpec() = default;
  /// A spec; a dim of -1 accepts any size. Throws InvalidArgument for dims below -1.
  TensorSpec(Shape shape, DType dtype = float32, std::string name = {});
  /// The exact spec of a tensor (its dtype and shape).
  static TensorSpec from_tensor(const Tensor& tensor, std::string name = {});

  const Shape& shape() const noexcept { return shape_; }
  DType dtype() const noexcept { return dtype_; }
  const std::string& name() const noexcept { return name_; }
  TensorMeta meta() const { return TensorMeta{dtype_, shape_}; }

  /// True when a tensor with `meta` fits: same dtype and rank, and every known dim here equals meta's.
  bool is_compatible_with(const TensorMeta& meta) const noexcept;
  /// Why `meta` does not fit, or an empty string when it does ("dim 1: expected 20, got 7").
  std::string mismatch(const TensorMeta& meta) const;
  /// The most specific spec accepting both (differing dims become -1), or nothing when dtype or rank differ.
  std::optional<TensorSpec> most_specific_common(const TensorSpec& other) const;

  /// TensorFlow's form: "TensorSpec(shape=(None, 20), dtype=tl.float32, name=None)".
  std::string str() const;
  /// Specs are equal when dtype and shape are; the name is a label only.
  friend bool operator==(const TensorSpec& a, const TensorSpec& b) noexcept {
    return a.dtype_ == b.dtype_ && a.shape_ == b.shape_;
  }

 private:
  Shape shape_;
  DType dtype_ = float32;
  std::string name_;
};

}  // namespace tl
