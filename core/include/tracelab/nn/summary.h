// Summaries: scalars written as JSON Lines — one object per line with the step, the tag, the value and the wall
// time — for the web UI (or any plotting tool) to read. TensorFlow's tf.summary.scalar, without TensorBoard's
// binary format. Write from the (eager) training loop, e.g. with the loss a traced step returned.
//
//   tl::summary::ScalarWriter writer("run/scalars.jsonl");
//   writer.scalar("loss", loss, step);    // {"step": 3, "tag": "loss", "value": 0.25, "wall_time": 1.7e9}
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

#include "tracelab/tensor/tensor.h"

namespace tl::summary {

class ScalarWriter {
 public:
  /// Opens (appends to) `path`; InvalidArgument when it cannot be opened.
  explicit ScalarWriter(const std::string& path);
  /// Writes one line and flushes it, so a reader sees it at once. NaN and infinities are written as strings.
  void scalar(const std::string& tag, double value, std::int64_t step);
  /// The same for a concrete one-element tensor.
  void scalar(const std::string& tag, const Tensor& value, std::int64_t step);
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  std::ofstream out_;
};

}  // namespace tl::summary
