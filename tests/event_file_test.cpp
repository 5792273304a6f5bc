// TensorBoard event files (tl::summary::EventFileWriter): CRC-32C against published check values, the TFRecord
// framing byte by byte, the records of a written file read back by a reader written here (which checks both CRCs
// and stops at a cut-short tail), a file cut at every byte keeping its complete records, the Event and Summary
// fields of a scalar decoded from the wire format, histogram buckets computed by hand, a graph's GraphDef node
// count, the default-writer scope, and the errors. tests/tensorboard/check_events.py checks the same files with
// protoc-generated code (ctest: tensorboard_events).
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace event_file_test {

namespace {

namespace fs = std::filesystem;

std::uint32_t le32(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

std::uint64_t le64(const std::string& bytes, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

std::uint32_t mask(std::uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

/// The complete records of a TFRecord stream, in order; stops at a tail too short for the next record. A record
/// with a wrong CRC fails the test.
std::vector<std::string> read_records(const std::string& bytes) {
  std::vector<std::string> records;
  std::size_t at = 0;
  while (at + 12 <= bytes.size()) {
    std::uint64_t length = le64(bytes, at);
    REQUIRE(le32(bytes, at + 8) == mask(tl::summary::crc32c(bytes.substr(at, 8))));
    if (at + 12 + length + 4 > bytes.size()) break;
    std::string data = bytes.substr(at + 12, length);
    REQUIRE(le32(bytes, at + 12 + length) == mask(tl::summary::crc32c(data)));
    records.push_back(data);
    at += 12 + length + 4;
  }
  return records;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// One protobuf field as read here: a varint, the raw bytes of a fixed32/fixed64, or a length-delimited payload.
struct Field {
  int wire_type;
  std::uint64_t varint = 0;
  std::string bytes;
};

/// A message's fields by number (repeated fields in order).
std::multimap<int, Field> decode(const std::string& message) {
  std::multimap<int, Field> fields;
  std::size_t at = 0;
  auto varint = [&] {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      auto byte = static_cast<unsigned char>(message.at(at++));
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (byte < 0x80) return v;
    }
  };
  while (at < message.size()) {
    std::uint64_t key = varint();
    Field field{static_cast<int>(key & 7), 0, {}};
    if (field.wire_type == 0) field.varint = varint();
    else if (field.wire_type == 1) field.bytes = message.substr((at += 8) - 8, 8);
    else if (field.wire_type == 5) field.bytes = message.substr((at += 4) - 4, 4);
    else if (field.wire_type == 2) {
      std::size_t length = varint();
      field.bytes = message.substr((at += length) - length, length);
    } else FAIL("wire type " << field.wire_type);
    fields.emplace(static_cast<int>(key >> 3), field);
  }
  return fields;
}

const Field& one(const std::multimap<int, Field>& fields, int number) {
  REQUIRE(fields.count(number) == 1);
  return fields.find(number)->second;
}

/// A fresh folder under the temp folder, removed at the end of the test.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("tracelab_events_" + name + "_" + std::to_string(getpid()))) {
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

/// The nodes of a graph and of all its sub-graphs.
std::size_t all_nodes(const tl::graph::Graph& graph) {
  std::size_t count = graph.num_nodes();
  for (const auto& node : graph.nodes())
    for (const auto& sub : node.subgraphs) count += all_nodes(*sub);
  return count;
}

struct NoStep {
  NoStep() { tl::summary::set_step(std::nullopt); }
  ~NoStep() { tl::summary::set_step(std::nullopt); }
};

}  // namespace

TEST_CASE("summary/event_file: CRC-32C check values and the mask") {
  using tl::summary::crc32c;
  CHECK(crc32c("123456789") == 0xE3069283u);                     // the CRC catalogue's check value
  CHECK(crc32c("") == 0u);
  CHECK(crc32c(std::string(32, '\0')) == 0x8A9136AAu);           // RFC 3720, B.4: 32 bytes of zeros
  CHECK(crc32c(std::string(32, '\xff')) == 0x62A8AB43u);         // 32 bytes of ones
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  CHECK(crc32c(ascending) == 0x46DD794Eu);                       // 32 ascending bytes
  CHECK(tl::summary::masked_crc32c("123456789") == mask(0xE3069283u));
  CHECK(mask(0xE3069283u) == ((0xE3069283u >> 15 | 0xE3069283u << 17) + 0xa282ead8u));
}

TEST_CASE("summary/event_file: a TFRecord is length, its masked CRC, the data, its masked CRC") {
  std::string record = tl::summary::tfrecord("abc");
  REQUIRE(record.size() == 8 + 4 + 3 + 4);
  CHECK(record.substr(0, 8) == std::string("\x03\0\0\0\0\0\0\0", 8));
  CHECK(le32(record, 8) == mask(tl::summary::crc32c(record.substr(0, 8))));
  CHECK(record.substr(12, 3) == "abc");
  CHECK(le32(record, 15) == mask(tl::summary::crc32c("abc")));
  CHECK(tl::summary::tfrecord("").size() == 16);
  CHECK(read_records(record + tl::summary::tfrecord("")) == std::vector<std::string>{"abc", ""});
}

TEST_CASE("summary/event_file: the file's name, its file_version record, a scalar's Event and Summary fields") {
  TempDir dir("scalar");
  std::string path;
  {
    auto writer = tl::summary::create_file_writer((dir.path / "run" / "a").string());  // parents are made
    path = writer.path();
    writer.scalar("loss", 0.25, 7);
    writer.scalar("neg", tl::scalar(-1.5f), -3);
  }
  fs::path file(path);
  CHECK(file.parent_path() == dir.path / "run" / "a");
  CHECK(file.filename().string().rfind("events.out.tfevents.", 0) == 0);
  std::vector<std::string> records = read_records(read_file(file));
  REQUIRE(records.size() == 3);

  auto version = decode(records[0]);
  CHECK(one(version, 3).bytes == "brain.Event:2");
  double wall = 0;
  std::memcpy(&wall, one(version, 1).bytes.data(), 8);
  CHECK(wall > 1.6e9);
  CHECK(version.count(2) == 0);  // step 0 is left out, as proto3 writes it

  auto event = decode(records[1]);
  CHECK(one(event, 2).varint == 7);
  auto value = decode(one(decode(one(event, 5).bytes), 1).bytes);
  CHECK(one(value, 1).bytes == "loss");
  auto tensor = decode(one(value, 8).bytes);
  CHECK(one(tensor, 1).varint == 1);                // DT_FLOAT
  CHECK(one(tensor, 2).bytes.empty());              // a scalar's shape: no dims
  float stored = 0;
  REQUIRE(one(tensor, 5).bytes.size() == 4);        // packed float_val
  std::memcpy(&stored, one(tensor, 5).bytes.data(), 4);
  CHECK(stored == 0.25f);
  CHECK(one(decode(one(decode(one(value, 9).bytes), 1).bytes), 1).bytes == "scalars");

  auto negative = decode(records[2]);
  CHECK(static_cast<std::int64_t>(one(negative, 2).varint) == -3);
  std::memcpy(&stored, one(decode(one(decode(one(decode(one(negative, 5).bytes), 1).bytes), 8).bytes), 5).bytes.data(), 4);
  CHECK(stored == -1.5f);
}

TEST_CASE("summary/event_file: a file cut at any byte keeps every record that ends before the cut") {
  TempDir dir("cut");
  std::string path;
  {
    auto writer = tl::summary::create_file_writer(dir.path.string());
    path = writer.path();
    for (int step = 0; step < 4; ++step) writer.scalar("x", step * 0.5, step);
    writer.histogram("h", tl::constant({1.f, 2.f, 3.f}), 4);
  }
  std::string bytes = read_file(path);
  std::vector<std::string> all = read_records(bytes);
  REQUIRE(all.size() == 6);
  std::vector<std::size_t> ends;
  std::size_t end = 0;
  for (const auto& record : all) ends.push_back(end += 16 + record.size());
  CHECK(end == bytes.size());
  for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
    std::vector<std::string> kept = read_records(bytes.substr(0, cut));
    std::size_t complete = 0;
    while (complete < ends.size() && ends[complete] <= cut) ++complete;
    REQUIRE(kept.size() == complete);
    CHECK(std::equal(kept.begin(), kept.end(), all.begin()));
  }
}

TEST_CASE("summary/event_file: histogram buckets") {
  using tl::summary::histogram_buckets;
  auto b = histogram_buckets("h", {0, 1, 2, 3, 4}, 2);  // width 2: [0, 2) holds 0 and 1, [2, 4] holds 2, 3, 4
  REQUIRE(b.size() == 2);
  CHECK(b[0].left == 0);
  CHECK(b[0].right == 2);
  CHECK(b[0].count == 2);
  CHECK(b[1].left == 2);
  CHECK(b[1].right == 4);
  CHECK(b[1].count == 3);
  auto same = histogram_buckets("h", {5, 5, 5}, 30);
  REQUIRE(same.size() == 1);
  CHECK(same[0].left == 4.5);
  CHECK(same[0].right == 5.5);
  CHECK(same[0].count == 3);
  CHECK(histogram_buckets("h", {}, 30).empty());
  CHECK_THROWS_WITH_AS(histogram_buckets("w", {1.0, std::nan("")}, 30), doctest::Contains("summary::histogram('w'): the values must be finite"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(histogram_buckets("w", {1}, 0), doctest::Contains("buckets must be at least 1"), tl::InvalidArgument);

  TempDir dir("histogram");
  std::string path;
  {
    auto writer = tl::summary::create_file_writer(dir.path.string());
    path = writer.path();
    writer.histogram("weights", tl::constant({0.f, 1.f, 2.f, 3.f, 4.f}), 1, 2);
  }
  auto records = read_records(read_file(path));
  REQUIRE(records.size() == 2);
  auto value = decode(one(decode(one(decode(records[1]), 5).bytes), 1).bytes);
  auto tensor = decode(one(value, 8).bytes);
  CHECK(one(tensor, 1).varint == 2);  // DT_DOUBLE
  auto dims = decode(one(tensor, 2).bytes);
  REQUIRE(dims.count(2) == 2);
  CHECK(one(decode(dims.find(2)->second.bytes), 1).varint == 2);
  CHECK(one(decode(std::next(dims.find(2))->second.bytes), 1).varint == 3);
  std::vector<double> rows(6);
  REQUIRE(one(tensor, 6).bytes.size() == 6 * 8);
  std::memcpy(rows.data(), one(tensor, 6).bytes.data(), 6 * 8);
  CHECK(rows == std::vector<double>{0, 2, 2, 2, 4, 3});
  CHECK(one(decode(one(decode(one(value, 9).bytes), 1).bytes), 1).bytes == "histograms");
}

TEST_CASE("summary/event_file: the default-writer scope, histograms and a traced function's graph") {
  NoStep clean;
  TempDir dir("scope");
  tl::Variable w(tl::ones({2}), "w");
  auto f = tl::function([&](const tl::Tensor& x) { return tl::relu(x * w + 1.f); });
  tl::ConcreteFunction& concrete = f.get_concrete_function(tl::TensorSpec({-1, 2}));
  CHECK_FALSE(tl::summary::graph(concrete));                              // no default writer: nothing written
  CHECK_FALSE(tl::summary::histogram("h", tl::ones({2})));
  std::string path;
  {
    auto writer = tl::summary::create_file_writer(dir.path.string());
    path = writer.path();
    tl::summary::DefaultWriter scope(writer, 5);
    CHECK(tl::summary::scalar("loss", 1.0));
    CHECK(tl::summary::histogram("w", w.value()));
    CHECK(tl::summary::graph(concrete));
  }
  auto records = read_records(read_file(path));
  REQUIRE(records.size() == 4);
  CHECK(one(decode(records[1]), 2).varint == 5);
  CHECK(one(decode(records[2]), 2).varint == 5);
  auto graph_def = decode(one(decode(records[3]), 4).bytes);
  CHECK(graph_def.count(1) == all_nodes(concrete.graph()));  // a fused group's members under its name scope
  std::vector<std::string> ops;
  for (auto [it, last] = graph_def.equal_range(1); it != last; ++it) ops.push_back(one(decode(it->second.bytes), 2).bytes);
  CHECK(ops.front() == "Placeholder");
  CHECK(std::find(ops.begin(), ops.end(), "ReadVariableOp") != ops.end());
  CHECK(std::find(ops.begin(), ops.end(), "relu") != ops.end());
}

TEST_CASE("summary/event_file: errors name the path, the tag and the writer") {
  NoStep clean;
  TempDir dir("errors");
  fs::create_directories(dir.path);
  std::ofstream(dir.path / "a_file") << "x";
  std::string blocked = (dir.path / "a_file" / "logs").string();
  CHECK_THROWS_WITH_AS(tl::summary::create_file_writer(blocked),
                       doctest::Contains(("cannot create the log folder '" + blocked + "'").c_str()), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::summary::create_file_writer((dir.path / "a_file").string()),
                       doctest::Contains(("cannot create the log folder '" + (dir.path / "a_file").string() + "'").c_str()), tl::InvalidArgument);
  tl::summary::ScalarWriter jsonl((dir.path / "scalars.jsonl").string());
  tl::summary::DefaultWriter scope(jsonl, 1);
  CHECK_THROWS_WITH_AS(tl::summary::histogram("w", tl::ones({2})), doctest::Contains("summary::histogram('w'): this writer writes scalars only"),
                       tl::InvalidArgument);
  auto writer = tl::summary::create_file_writer(dir.path.string());
  CHECK_THROWS_WITH_AS(writer.scalar("", 1.0, 0), doctest::Contains("the tag must not be empty"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(writer.histogram("h", tl::constant({1.f, std::numeric_limits<float>::infinity()}), 0), doctest::Contains("must be finite"), tl::InvalidArgument);
  // Two writers in one second in one folder: two files.
  auto second = tl::summary::create_file_writer(dir.path.string());
  CHECK(second.path() != writer.path());
}

}  // namespace event_file_test
