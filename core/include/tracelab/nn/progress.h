// A terminal progress bar for long loops: step, rate, ETA and the latest metrics on one line redrawn in place.
// It is off when the output is not a terminal (CI logs, pipes), so logs stay clean.
//
//   tl::ProgressBar bar(1000);
//   for (int step = 1; step <= 1000; ++step) bar.update(step, {{"loss", loss}});
//   bar.finish();   //  [==============================] 1000/1000  812.3 it/s  ETA 0:00  loss 0.0213
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "tracelab/base/clock.h"

namespace tl {

/// A one-line terminal progress bar (Keras' Progbar): step, rate, ETA and metrics, redrawn in place.
class ProgressBar {
 public:
  /// A bar for `total` steps writing to stderr, enabled only when stderr is a terminal.
  explicit ProgressBar(std::int64_t total);
  /// A bar writing to `out`; `enabled` decides (tests and callers that know better).
  ProgressBar(std::int64_t total, std::ostream& out, bool enabled);

  /// Redraws the line for `step` with `metrics` (at most ~10 times per second, and always on the last step).
  void update(std::int64_t step, const std::vector<std::pair<std::string, double>>& metrics = {});
  /// Ends the line.
  void finish();
  /// The line that update() would draw (without the leading carriage return).
  std::string line(std::int64_t step, const std::vector<std::pair<std::string, double>>& metrics, double seconds) const;
  /// Whether it draws anything; when false, update() and finish() do nothing.
  bool enabled() const noexcept { return enabled_; }

 private:
  std::int64_t total_;
  std::ostream& out_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
};

}  // namespace tl
