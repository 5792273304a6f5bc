// Summaries (tf.summary): a writer, a default-writer scope with a current step, and free functions that write to
// the default writer. ScalarWriter here writes JSON Lines, one object per line with the step, the tag, the value
// and the wall time, for the web UI (or any plotting tool) to read; EventFileWriter (event_file.h) writes
// TensorBoard event files and also takes histograms and graphs. Write from the (eager) training loop, e.g. with a
// metric's result.
//
//   tl::summary::ScalarWriter writer("run/scalars.jsonl");
//   tl::summary::DefaultWriter scope(writer);    // TF: with writer.as_default():
//   tl::summary::set_step(epoch); tl::summary::scalar("loss", mean_loss.result());   // {"step": 3, "tag": "loss", ...}
//
// As in TensorFlow, scalar() returns false and writes nothing when no writer is the default, and needs a step:
// the one it is given, else the current one (set_step, or DefaultWriter's step). The default writer and the
// current step are per thread, as TensorFlow's summary state is.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

#include "tracelab/graph/graph.h"
#include "tracelab/tensor/tensor.h"

namespace tl::summary {

/// Where summaries go: a JSON Lines ScalarWriter, a TensorBoard EventFileWriter, or any other kind.
class SummaryWriter {
 public:
  virtual ~SummaryWriter() = default;
  /// Writes one scalar record; InvalidArgument when it cannot be written.
  virtual void write_scalar(const std::string& tag, double value, std::int64_t step) = 0;
  /// Writes a histogram of a concrete tensor's values; this default throws InvalidArgument (a scalars-only writer).
  virtual void write_histogram(const std::string& tag, const Tensor& values, std::int64_t step);
  /// Writes a graph; this default throws InvalidArgument (a scalars-only writer).
  virtual void write_graph(const graph::Graph& graph, std::int64_t step);
  /// Makes what was written visible to readers (a no-op for writers that flush every record).
  virtual void flush() {}
};

/// Scalars as JSON Lines, appended to a file and flushed line by line.
class ScalarWriter : public SummaryWriter {
 public:
  /// Opens (appends to) `path`; InvalidArgument when it cannot be opened.
  explicit ScalarWriter(const std::string& path);
  /// Writes one line and flushes it, so a reader sees it at once. NaN and infinities are written as strings.
  void scalar(const std::string& tag, double value, std::int64_t step);
  /// The same for a concrete one-element tensor.
  void scalar(const std::string& tag, const Tensor& value, std::int64_t step);
  /// SummaryWriter's entry point: scalar(tag, value, step).
  void write_scalar(const std::string& tag, double value, std::int64_t step) override { scalar(tag, value, step); }
  /// The file it appends to.
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  std::ofstream out_;
};

/// TF's `with writer.as_default(step):` as a scope: while alive, `writer` is this thread's default writer (and
/// `step`, when given, the current step); its destructor brings back the previous writer (and step), so scopes
/// nest. The writer must outlive the scope.
class DefaultWriter {
 public:
  /// Makes `writer` the default; leaves the current step as it is.
  explicit DefaultWriter(SummaryWriter& writer);
  /// Makes `writer` the default and `step` the current step.
  DefaultWriter(SummaryWriter& writer, std::int64_t step);
  /// Brings back the previous default writer, and the previous step if this scope set one.
  ~DefaultWriter();
  DefaultWriter(const DefaultWriter&) = delete;
  DefaultWriter& operator=(const DefaultWriter&) = delete;

 private:
  SummaryWriter* previous_writer_;
  bool sets_step_ = false;                    // whether this scope changed the step (and so restores it)
  std::optional<std::int64_t> previous_step_;
};

/// This thread's default writer, or nullptr.
SummaryWriter* default_writer() noexcept;
/// tf.summary.experimental.set_step: the step scalar() uses when given none; std::nullopt for none.
void set_step(std::optional<std::int64_t> step) noexcept;
/// tf.summary.experimental.get_step: the current step, if any.
std::optional<std::int64_t> get_step() noexcept;

/// tf.summary.scalar: writes (tag, value) at `step` to the default writer. true when written; false, writing
/// nothing, when there is no default writer.
bool scalar(const std::string& tag, double value, std::int64_t step);
/// The same at the current step; InvalidArgument when there is a default writer but no current step.
bool scalar(const std::string& tag, double value);
/// The same for a concrete one-element tensor (a metric's result(), a loss).
bool scalar(const std::string& tag, const Tensor& value, std::int64_t step);
/// The same for a tensor at the current step.
bool scalar(const std::string& tag, const Tensor& value);

}  // namespace tl::summary
