#include "tracelab/base/shape.h"

#include <algorithm>
#include <limits>
#include <ostream>

#include "tracelab/base/error.h"

namespace tl {

void Shape::out_of_range(int i) const {
  throw InvalidArgument(detail::cat("dim index ", i, " out of range for shape ", str()));
}

bool Shape::is_fully_defined() const noexcept {
  for (auto d : dims_)
    if (d < 0) return false;
  return true;
}

std::int64_t Shape::checked_num_elements() const {
  constexpr std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 8;  // so that bytes fit in int64 too
  // One pass: an unknown dim is an error, a zero dim makes the shape empty ((2^40, 2^40, 0) is empty, not huge),
  // and a product beyond the limit is an error only when no dim is zero.
  std::int64_t n = 1;
  bool empty = false, too_many = false;
  for (auto d : dims_) {
    if (d <= 0) {
      TL_CHECK(d == 0, InvalidArgument, "shape ", str(), " has unknown dims, its size is not known");
      empty = true;
    } else if (!too_many) {
      too_many = n > limit / d;
      n *= too_many ? 1 : d;
    }
  }
  if (empty) return 0;
  TL_CHECK(!too_many, OutOfMemory, "shape ", str(), " has too many elements to count");
  return n;
}

std::vector<std::int64_t> Shape::strides() const {
  std::vector<std::int64_t> out(dims_.size(), 1);
  for (int i = rank() - 2; i >= 0; --i) out[i] = out[i + 1] * dims_[i + 1];
  return out;
}

bool Shape::is_compatible_with(const Shape& other) const noexcept {
  if (rank() != other.rank()) return false;
  for (int i = 0; i < rank(); ++i)
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) return false;
  return true;
}

std::string Shape::str() const {
  std::string out = "(";
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ", ";
    out += dims_[i] < 0 ? "None" : std::to_string(dims_[i]);
  }
  if (dims_.size() == 1) out += ",";
  return out + ")";
}

std::ostream& operator<<(std::ostream& out, const Shape& shape) { return out << shape.str(); }

Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b) {
  int rank = std::max(a.rank(), b.rank());
  DimVector dims(static_cast<std::size_t>(rank), 0);
  for (int i = 0; i < rank; ++i) {
    int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    std::int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    std::int64_t d;
    if (da == 1) d = db;
    else if (db == 1) d = da;
    else if (da < 0) d = db;  // unknown vs known: the known (non-1) size wins; unknown vs unknown stays unknown
    else if (db < 0) d = da;
    else {
      TL_CHECK(da == db, ShapeError, op, ": shapes ", a.str(), " and ", b.str(), " cannot be broadcast (dim ", i,
               ": ", da, " vs ", db, ")");
      d = da;
    }
    dims[static_cast<std::size_t>(i)] = d;
  }
  return Shape(std::move(dims));
}

int normalize_axis(const char* op, std::int64_t axis, int rank) {
  TL_CHECK(axis >= -rank && axis < rank, InvalidArgument, op, ": axis ", axis, " is out of range for rank ", rank,
           " (expected ", -rank, " <= axis < ", rank, ")");
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace tl
