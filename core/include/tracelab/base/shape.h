// Shapes: a list of dimensions. -1 marks a dimension unknown until run time (used while tracing).
//
//   tl::Shape s{2, 3};
//   s.num_elements();                                   // 6
//   tl::broadcast_shapes("add", {2, 1}, {3}).str();     // "(2, 3)"
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <vector>

#include "tracelab/base/dim_vector.h"

namespace tl {

/// A tensor's dimensions, outermost first. A dim of -1 is unknown (partially known shapes while tracing).
class Shape {
 public:
  /// The shape of a scalar: rank 0.
  Shape() = default;
  /** @{ */
  /// A shape of the given dims, outermost first (-1 for an unknown dim); {} is a scalar's.
  Shape(std::initializer_list<std::int64_t> dims) : dims_(dims) {}
  explicit Shape(const std::vector<std::int64_t>& dims) : dims_(dims) {}
  explicit Shape(DimVector dims) : dims_(std::move(dims)) {}
  Shape(const std::int64_t* first, const std::int64_t* last) : dims_(first, last) {}
  /** @} */

  /// Number of dimensions (0 for a scalar).
  int rank() const noexcept { return static_cast<int>(dims_.size()); }
  /// Dimension `i`; negative `i` counts from the end. Throws InvalidArgument when out of range.
  std::int64_t dim(int i) const {
    const int n = rank();
    if (i >= -n && i < n) return dims_[static_cast<std::size_t>(i < 0 ? i + n : i)];
    out_of_range(i);
  }
  /// Dimension `i` in [0, rank), unchecked.
  std::int64_t operator[](std::size_t i) const noexcept { return dims_[i]; }
  /** @{ */
  /// All dims, outermost first; the mutable one lets shape rules edit a shape in place.
  const DimVector& dims() const noexcept { return dims_; }
  DimVector& dims() noexcept { return dims_; }
  /** @} */

  /// True when every dim is known (>= 0).
  bool is_fully_defined() const noexcept;
  /// Product of the dims (1 for a scalar). Throws InvalidArgument if a dim is unknown, OutOfMemory on overflow.
  std::int64_t num_elements() const {
    // The common case inline: at most four positive dims whose product cannot overflow (each below 2^15).
    if (dims_.size() <= 4) {
      std::int64_t n = 1;
      bool small = true;
      for (std::int64_t d : dims_) {
        small = small && d > 0 && d < (std::int64_t{1} << 15);
        n *= small ? d : 1;
      }
      if (small) return n;
    }
    return checked_num_elements();
  }
  /// Row-major strides in elements.
  std::vector<std::int64_t> strides() const;
  /// True when `other` could be the same shape once unknown dims are known.
  bool is_compatible_with(const Shape& other) const noexcept;

  /// "(2, 3)", "()" or "(None, 3)" for unknown dims, as TensorFlow prints shapes.
  std::string str() const;

  /** @{ */
  /// Same dims, an unknown dim equal only to an unknown dim (see is_compatible_with for "could be equal").
  friend bool operator==(const Shape& a, const Shape& b) noexcept { return a.dims_ == b.dims_; }
  friend bool operator!=(const Shape& a, const Shape& b) noexcept { return a.dims_ != b.dims_; }
  /** @} */

 private:
  [[noreturn]] void out_of_range(int i) const;
  std::int64_t checked_num_elements() const;
  DimVector dims_;
};

/// Writes shape.str().
std::ostream& operator<<(std::ostream& out, const Shape& shape);

/// NumPy broadcasting of two shapes (unknown dims allowed); throws ShapeError naming `op`.
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b);
/// Normalizes `axis` in [-rank, rank) to [0, rank); throws InvalidArgument naming `op` otherwise.
int normalize_axis(const char* op, std::int64_t axis, int rank);

}  // namespace tl
