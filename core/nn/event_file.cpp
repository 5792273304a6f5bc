#include "tracelab/nn/event_file.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "nn/detail/proto_writer.h"

namespace tl::summary {

static_assert(std::endian::native == std::endian::little, "event files: ProtoWriter writes numbers in native order");

namespace {

using detail::ProtoWriter;

constexpr int kDtFloat = 1;   // TensorFlow's DataType DT_FLOAT
constexpr int kDtDouble = 2;  // DT_DOUBLE

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0 || name[0] == '\0') return "localhost";
  return name.data();
}

/// A TensorShapeProto (dim = 2, each Dim's size = 1); a zero size is left out, as proto3 serializers do.
ProtoWriter shape_proto(const std::vector<std::int64_t>& dims) {
  ProtoWriter shape;
  for (std::int64_t size : dims) {
    ProtoWriter dim;
    if (size != 0) dim.varint(1, static_cast<std::uint64_t>(size));
    shape.message(2, dim);
  }
  return shape;
}

/// An Event (wall_time = 1, step = 2) around one more field the caller adds.
ProtoWriter event_at(std::int64_t step) {
  ProtoWriter event;
  event.fixed_double(1, now_seconds());
  if (step != 0) event.varint(2, static_cast<std::uint64_t>(step));
  return event;
}

/// An Event whose summary (= 5) holds one value (tag = 1, tensor = 8, metadata = 9 with plugin_data.plugin_name).
std::string summary_event(const std::string& tag, const ProtoWriter& tensor, const char* plugin, std::int64_t step) {
  TL_CHECK(!tag.empty(), InvalidArgument, "summary: the tag must not be empty");
  ProtoWriter plugin_data;
  plugin_data.string(1, plugin);
  ProtoWriter metadata;
  metadata.message(1, plugin_data);
  ProtoWriter value;
  value.string(1, tag);
  value.message(8, tensor);
  value.message(9, metadata);
  ProtoWriter summary;
  summary.message(1, value);
  ProtoWriter event = event_at(step);
  event.message(5, summary);
  return event.bytes();
}

std::array<std::uint32_t, 256> crc32c_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    table[i] = crc;
  }
  return table;
}

std::string le_bytes(std::uint64_t value, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  return out;
}

/// `logdir`/events.out.tfevents.<seconds>.<host>, with ".<n>" added when a file of that name exists already.
std::string new_event_file_path(const std::string& logdir) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(logdir, error);
  TL_CHECK(!error && fs::is_directory(logdir), InvalidArgument, "summary::create_file_writer: cannot create the log folder '",
           logdir, "'", error ? ": " + error.message() : std::string(": a file of that name exists"));
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  std::string base = (fs::path(logdir) / ("events.out.tfevents." + std::to_string(seconds.count()) + "." + host_name())).string();
  std::string path = base;
  for (int n = 1; fs::exists(path); ++n) path = base + "." + std::to_string(n);
  return path;
}

}  // namespace

std::uint32_t crc32c(std::string_view bytes) noexcept {
  static const std::array<std::uint32_t, 256> table = crc32c_table();
  std::uint32_t crc = 0xFFFFFFFFu;
  for (char c : bytes) crc = table[(crc ^ static_cast<unsigned char>(c)) & 0xff] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

std::uint32_t masked_crc32c(std::string_view bytes) noexcept {
  std::uint32_t crc = crc32c(bytes);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::string tfrecord(std::string_view data) {
  std::string length = le_bytes(data.size(), 8);
  std::string record = length + le_bytes(masked_crc32c(length), 4);
  record.append(data);
  return record + le_bytes(masked_crc32c(data), 4);
}

std::vector<HistogramBucket> histogram_buckets(const std::string& tag, const std::vector<double>& values, int buckets) {
  TL_CHECK(buckets >= 1, InvalidArgument, "summary::histogram('", tag, "'): buckets must be at least 1, got ", buckets);
  if (values.empty()) return {};
  for (double v : values)
    TL_CHECK(std::isfinite(v), InvalidArgument, "summary::histogram('", tag, "'): the values must be finite, got ", v);
  auto [low, high] = std::minmax_element(values.begin(), values.end());
  double min = *low, max = *high;
  if (min == max) return {{min - 0.5, max + 0.5, static_cast<double>(values.size())}};
  double width = (max - min) / buckets;
  std::vector<HistogramBucket> out(static_cast<std::size_t>(buckets));
  for (int i = 0; i < buckets; ++i) out[i] = {min + i * width, i + 1 == buckets ? max : min + (i + 1) * width, 0.0};
  for (double v : values) {
    auto index = static_cast<std::size_t>(std::floor((v - min) / width));
    out[std::min(index, out.size() - 1)].count += 1;
  }
  return out;
}

EventFileWriter::EventFileWriter(const std::string& logdir) : path_(new_event_file_path(logdir)) {
  out_.open(path_, std::ios::binary);
  TL_CHECK(out_.good(), InvalidArgument, "summary::create_file_writer: cannot create the event file '", path_, "'");
  ProtoWriter event = event_at(0);
  event.string(3, "brain.Event:2");  // file_version
  write_event(event.bytes());
}

void EventFileWriter::write_event(const std::string& event) {
  out_ << tfrecord(event);
  out_.flush();
  TL_CHECK(out_.good(), InvalidArgument, "summary: writing '", path_, "' failed");
}

void EventFileWriter::scalar(const std::string& tag, double value, std::int64_t step) {
  ProtoWriter tensor;
  tensor.varint(1, kDtFloat);
  tensor.message(2, shape_proto({}));
  tensor.packed_floats(5, {static_cast<float>(value)});
  write_event(summary_event(tag, tensor, "scalars", step));
}

void EventFileWriter::scalar(const std::string& tag, const Tensor& value, std::int64_t step) {
  scalar(tag, value.item<double>(), step);
}

void EventFileWriter::histogram(const std::string& tag, const Tensor& values, std::int64_t step, int buckets) {
  TL_CHECK(values.defined() && !values.is_symbolic(), InvalidArgument, "summary::histogram('", tag,
           "'): needs a concrete tensor (write summaries from the eager loop, not inside a traced function)");
  std::vector<HistogramBucket> histogram = histogram_buckets(tag, values.to_vector<double>(), buckets);
  std::vector<double> rows;
  for (const HistogramBucket& b : histogram) rows.insert(rows.end(), {b.left, b.right, b.count});
  ProtoWriter tensor;
  tensor.varint(1, kDtDouble);
  tensor.message(2, shape_proto({static_cast<std::int64_t>(histogram.size()), 3}));
  tensor.packed_doubles(6, rows);
  write_event(summary_event(tag, tensor, "histograms", step));
}

void EventFileWriter::graph(const graph::Graph& graph, std::int64_t step) {
  ProtoWriter event = event_at(step);
  event.string(4, graph_def_bytes(graph));  // graph_def
  write_event(event.bytes());
}

void EventFileWriter::flush() {
  out_.flush();
  TL_CHECK(out_.good(), InvalidArgument, "summary: flushing '", path_, "' failed");
}

EventFileWriter create_file_writer(const std::string& logdir) { return EventFileWriter(logdir); }

bool histogram(const std::string& tag, const Tensor& values, std::int64_t step) {
  SummaryWriter* writer = default_writer();
  if (writer == nullptr) return false;
  writer->write_histogram(tag, values, step);
  return true;
}

bool histogram(const std::string& tag, const Tensor& values) {
  if (default_writer() == nullptr) return false;
  std::optional<std::int64_t> step = get_step();
  TL_CHECK(step.has_value(), InvalidArgument, "summary::histogram('", tag,
           "'): no step given and none set (tl::summary::set_step, or DefaultWriter(writer, step))");
  return histogram(tag, values, *step);
}

bool graph(const ConcreteFunction& function) {
  SummaryWriter* writer = default_writer();
  if (writer == nullptr) return false;
  writer->write_graph(function.graph(), get_step().value_or(0));
  return true;
}

}  // namespace tl::summary
