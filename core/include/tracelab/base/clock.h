// tl::Clock: the monotonic clock every timing in Tracelab reads (call records, trace times, the runner's steps,
// record_timestamp, the benchmarks), a std::chrono clock of nanoseconds.
//
//   auto start = tl::Clock::now();
//   run();
//   double us = std::chrono::duration<double, std::micro>(tl::Clock::now() - start).count();
//
// Natively it is std::chrono::steady_clock. In WebAssembly it reads emscripten_get_now() (milliseconds, a double)
// directly: steady_clock goes through clock_gettime, whose JavaScript writes a timespec into memory for the C
// library to read back, 75-81 ns a read under Node 20 against 54 ns (the same source, performance.now() in a
// browser and process.hrtime() in Node). A traced call with timings reads it twice.
#pragma once

#include <chrono>
#include <cstdint>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#endif

namespace tl {

/// Tracelab's monotonic clock (a std::chrono Clock): nanoseconds since an unspecified start.
struct Clock {
  /** @{ */
  /// The std::chrono Clock members: int64 nanoseconds, steady.
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<Clock>;
  static constexpr bool is_steady = true;
  /** @} */

  /// The current time; never goes backwards.
  static time_point now() noexcept {
#ifdef __EMSCRIPTEN__
    return time_point(duration(static_cast<rep>(emscripten_get_now() * 1e6)));
#else
    return time_point(std::chrono::duration_cast<duration>(std::chrono::steady_clock::now().time_since_epoch()));
#endif
  }
};

}  // namespace tl
