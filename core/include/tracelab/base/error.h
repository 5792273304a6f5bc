// Tracelab errors: one hierarchy, every message names the op, what it saw and what it expected.
//
//   try { tl::matmul(a, b); }
//   catch (const tl::ShapeError& e) { std::puts(e.what()); }  // "matmul: inner dimensions must agree, got (2, 3) and (4, 5)"
//
// Internal checks use TL_CHECK(cond, ErrorType, message-parts...) so a failed precondition is always a
// typed exception, never an abort.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace tl {

/// Base of every error Tracelab throws. `what()` is a complete, human-readable message.
class Error : public std::runtime_error {
 public:
  /// An error whose what() is `message`. Each subclass inherits this constructor.
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  /// Short class name ("ShapeError", ...), used by the JS bridge to pick the JS error class.
  virtual const char* kind() const noexcept { return "Error"; }
};

/// Shapes that do not fit an op's rule (rank, broadcasting, inner dimensions, ...).
class ShapeError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "ShapeError"; }
};

/// A dtype the op does not accept, or two dtypes that must agree and do not.
class DTypeError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "DTypeError"; }
};

/// A bad attribute or argument value: an axis out of range, a negative size, an index out of bounds.
class InvalidArgument : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "InvalidArgument"; }
};

/// A tensor too large to allocate (or to even count in bytes). The engine stays usable afterwards.
class OutOfMemory : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "OutOfMemory"; }
};

/// A C++ operation that needs a value (`if (t)`, `t.item()`, `t.data()`) applied to a symbolic tensor while a
/// function is being traced — TensorFlow's OperatorNotAllowedInGraphError. Use tl::cond / tl::while_loop.
class OperatorNotAllowedInGraph : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "OperatorNotAllowedInGraphError"; }
};

namespace detail {

/// Concatenates any streamable parts into one string: cat("got ", shape, " and ", 3).
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

/// Inside a catch block: rethrows the current tl::Error as the same kind of error (ShapeError, DTypeError; any
/// other as InvalidArgument), its message prefixed with `where` — how a composite op names the member that failed.
[[noreturn]] inline void rethrow_prefixed(const std::string& where) {
  try {
    throw;
  } catch (const ShapeError& e) {
    throw ShapeError(where + e.what());
  } catch (const DTypeError& e) {
    throw DTypeError(where + e.what());
  } catch (const Error& e) {
    throw InvalidArgument(where + e.what());
  }
}

}  // namespace detail
}  // namespace tl

/// Throws `ErrorType(cat(parts...))` unless `cond` holds.
#define TL_CHECK(cond, ErrorType, ...)                                 \
  do {                                                                 \
    if (!(cond)) throw ErrorType(::tl::detail::cat(__VA_ARGS__));      \
  } while (false)
