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

/// An input signature entry: the dtype and shape (-1 for any size) an argument must have, and an optional name.
class TensorSpec {
 public:
  /// A float32 scalar spec.
  TensorSpec() = default;
  /// A spec; a dim of -1 accepts any size. Throws InvalidArgument for dims below -1.
  TensorSpec(Shape shape, DType dtype = float32, std::string name = {});
  /// The exact spec of a tensor (its dtype and shape).
  static TensorSpec from_tensor(const Tensor& tensor, std::string name = {});

  /// The shape; -1 dims accept any size.
  const Shape& shape() const noexcept { return shape_; }
  /// The dtype an argument must have.
  DType dtype() const noexcept { return dtype_; }
  /// The argument's name, or empty (printed as None).
  const std::string& name() const noexcept { return name_; }
  /// Dtype and shape as a meta (the name dropped).
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
