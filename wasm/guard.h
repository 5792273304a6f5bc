// Turning C++ errors into JavaScript errors at the bridge, and the small conversions every adapter needs.
//
//   return guarded([&] { ...; return val(result); });   // a tl::ShapeError becomes a JS Error named "ShapeError"
#pragma once

#include <emscripten/val.h>

#include <new>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace tl::wasm {

using emscripten::val;

/// Throws a JS Error named `kind` (the C++ class) with `message`.
[[noreturn]] void throw_js_error(const std::string& kind, const std::string& message);

/// Runs `body` and returns its result (a val, or a number for the hot calls: returning a number skips the val
/// handle); a C++ exception becomes a JS Error whose name is the C++ class. The JS throw happens after the C++
/// catch block has ended, so the C++ exception object is released first. The JS facade turns the name into an
/// Error subclass (ShapeError, DTypeError, ...).
template <class Body>
auto guarded(Body&& body) -> decltype(body()) {
  std::string kind, message;
  try {
    return body();
  } catch (const tl::Error& e) {
    kind = e.kind();
    message = e.what();
  } catch (const std::bad_alloc&) {
    kind = "OutOfMemory";
    message = "out of memory";
  } catch (const std::exception& e) {
    kind = "Error";
    message = e.what();
  }
  throw_js_error(kind, message);
}

/// Throws the tl::Error subclass named `kind` (as e.kind() spells it) with `message`: a JS callback's error
/// crosses back into C++ as a C++ exception, so C++ destructors run (a trace in progress is unwound).
[[noreturn]] void rethrow_as(const std::string& kind, const std::string& message);

inline bool is_integer(const val& v) { return val::global("Number").call<bool>("isInteger", v); }
inline bool is_array(const val& v) { return val::global("Array").call<bool>("isArray", v); }
inline unsigned length_of(const val& v) { return v["length"].as<unsigned>(); }

/// An array of integers (InvalidArgument naming `what` otherwise).
Ints to_ints(const val& array, const std::string& what);
/// A JS array of numbers from dims.
val dims_to_js(const Shape& shape);
/// A JS array of {name (when the spec has one), dtype, shape} objects from specs.
val specs_to_js(const std::vector<TensorSpec>& specs);

}  // namespace tl::wasm
