// TensorBoard event files (tf.summary.create_file_writer): EventFileWriter is a SummaryWriter that writes
// `events.out.tfevents.<unix seconds>.<hostname>` in a log folder — TFRecord framing (a little-endian uint64 length,
// its masked CRC-32C, the data, the data's masked CRC-32C) around serialized `Event` protos: first a file_version
// "brain.Event:2" event, then one event per scalar, histogram or graph, as TensorFlow 2 writes them (scalars and
// histograms as a TensorProto value with the "scalars" / "histograms" plugin name, graphs as a GraphDef).
//
//   auto writer = tl::summary::create_file_writer("logs/run1");
//   tl::summary::DefaultWriter scope(writer, epoch);            // TF: with writer.as_default(step=epoch):
//   tl::summary::scalar("loss", mean_loss.result());             // then: tensorboard --logdir logs
//
// Every record is written through to the file as it is made (flush() then has nothing left to do), so a process
// killed mid-write leaves all earlier records complete and readable; only the record being written is cut short.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "tracelab/function/concrete_function.h"
#include "tracelab/graph/graph.h"
#include "tracelab/nn/summary.h"
#include "tracelab/tensor/tensor.h"

namespace tl::summary {

/// Writes one TensorBoard event file; made by create_file_writer. Movable, not copyable.
class EventFileWriter : public SummaryWriter {
 public:
  /// Creates `logdir` (and its parents) and a new event file in it, whose first record is the file_version event.
  /// InvalidArgument naming the path when the folder or the file cannot be made.
  explicit EventFileWriter(const std::string& logdir);
  /// Takes over the other writer's file.
  EventFileWriter(EventFileWriter&&) noexcept = default;
  /// Closes this writer's file and takes over the other's.
  EventFileWriter& operator=(EventFileWriter&&) noexcept = default;

  /// tf.summary.scalar: `value` as a float32 scalar TensorProto, plugin "scalars".
  void scalar(const std::string& tag, double value, std::int64_t step);
  /// The same for a concrete one-element tensor.
  void scalar(const std::string& tag, const Tensor& value, std::int64_t step);
  /// tf.summary.histogram: the values of a concrete tensor in `buckets` equal-width buckets (histogram_buckets).
  void histogram(const std::string& tag, const Tensor& values, std::int64_t step, int buckets = 30);
  /// tf.summary.graph: `graph` as a GraphDef (graph_def_bytes), for TensorBoard's graph tab.
  void graph(const graph::Graph& graph, std::int64_t step = 0);

  void write_scalar(const std::string& tag, double value, std::int64_t step) override { scalar(tag, value, step); }
  void write_histogram(const std::string& tag, const Tensor& values, std::int64_t step) override {
    histogram(tag, values, step);
  }
  void write_graph(const graph::Graph& g, std::int64_t step) override { graph(g, step); }
  /// Flushes the file (records are written through already).
  void flush() override;

  /// The event file's path.
  const std::string& path() const noexcept { return path_; }

 private:
  void write_event(const std::string& event);  // frames one serialized Event and writes it through
  std::string path_;
  std::ofstream out_;
};

/// tf.summary.create_file_writer(logdir): a new event file in `logdir`.
EventFileWriter create_file_writer(const std::string& logdir);

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): crc32c("123456789") == 0xE3069283.
std::uint32_t crc32c(std::string_view bytes) noexcept;
/// TFRecord's masked CRC: ((crc >> 15) | (crc << 17)) + 0xa282ead8 of crc32c(bytes).
std::uint32_t masked_crc32c(std::string_view bytes) noexcept;
/// One TFRecord: uint64 length (little-endian), masked CRC of those 8 bytes, `data`, masked CRC of `data`.
std::string tfrecord(std::string_view data);

/// One histogram bucket: values in [left, right) — the last bucket also holds `right` — and how many there were.
struct HistogramBucket {
  double left;   ///< lower edge (inclusive)
  double right;  ///< upper edge (exclusive, except in the last bucket)
  double count;  ///< how many values fell in the bucket
};
/// TensorBoard's histogram of `values`: none for no values; one bucket [v - 0.5, v + 0.5] when all equal v;
/// otherwise `buckets` equal-width buckets from the minimum to the maximum. InvalidArgument for NaN or infinity
/// (naming `tag`) or buckets < 1.
std::vector<HistogramBucket> histogram_buckets(const std::string& tag, const std::vector<double>& values, int buckets);

/// `graph` as a serialized GraphDef: one NodeDef per node named "<op>_<index>" (an input by its argument name),
/// inputs as "name" or "name:<output>", attributes and "_output_shapes"; a sub-graph's nodes under the scope
/// "<node>/body<k>/", which TensorBoard draws as a box inside the node.
std::string graph_def_bytes(const graph::Graph& graph);

/// tf.summary.histogram: writes `values` at `step` to the default writer; false, writing nothing, when there is none.
bool histogram(const std::string& tag, const Tensor& values, std::int64_t step);
/// The same at the current step; InvalidArgument when there is a default writer but no current step.
bool histogram(const std::string& tag, const Tensor& values);
/// tf.summary.graph: writes the function's optimized graph (the one that runs) to the default writer, at the
/// current step or 0; false, writing nothing, when there is no default writer.
bool graph(const ConcreteFunction& function);

}  // namespace tl::summary
