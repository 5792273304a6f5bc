// What counts as a finding in the fuzz targets, in one place.
//
//   FUZZ_CHECK(a == b, "keys equal but hashes differ: ", a.str());   // message to stderr, then a trap
//   FUZZ_GUARD(run(input));   // a tl::Error is an accepted answer to bad input; any other exception is a finding
//
// The policy: Tracelab promises that bad input gets a typed tl::Error (base/error.h). So a target catches
// tl::Error — and only it. Any other exception (std::out_of_range from a stray .at(), nlohmann's
// json::exception, std::bad_alloc from an unchecked size, std::length_error, ...) escaped the engine's
// validation and is reported as a finding, as are crashes, sanitizer reports, leaks, timeouts and failed
// FUZZ_CHECKs (__builtin_trap, so libFuzzer saves the input).
#pragma once

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <typeinfo>

#include "tracelab/tracelab.h"

namespace tl::fuzz {

[[noreturn]] inline void fail(const std::string& message) {
  std::fprintf(stderr, "\n==== fuzz finding: %s\n", message.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

/// True when two tensors have the same dtype, shape and bytes.
inline bool same_bits(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || !(a.meta() == b.meta())) return false;
  auto bytes = static_cast<std::size_t>(a.num_elements()) * dtype_size(a.dtype());
  return bytes == 0 || std::memcmp(a.impl().buffer->data(), b.impl().buffer->data(), bytes) == 0;
}

}  // namespace tl::fuzz

#define FUZZ_FAIL(...) ::tl::fuzz::fail(::tl::detail::cat(__VA_ARGS__))
#define FUZZ_CHECK(cond, ...)          \
  do {                                 \
    if (!(cond)) FUZZ_FAIL(__VA_ARGS__); \
  } while (false)
#define FUZZ_GUARD(statement)                                                                    \
  do {                                                                                           \
    try {                                                                                        \
      statement;                                                                                 \
    } catch (const ::tl::Error&) {                                                               \
    } catch (const std::exception& e) {                                                          \
      FUZZ_FAIL("an exception that is not a tl::Error escaped: ", typeid(e).name(), ": ", e.what()); \
    } catch (...) {                                                                              \
      FUZZ_FAIL("a non-std exception escaped");                                                  \
    }                                                                                            \
  } while (false)
