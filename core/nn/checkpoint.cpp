// The checkpoint format and its atomic file I/O.
//
//   bytes 0-7    magic "TLCKPT" 0x00 0x01
//   bytes 8-15   index length L (uint64, little-endian)
//   bytes 16-19  CRC-32 of the index (uint32, little-endian)
//   next L       JSON index: {"format": "tracelab.checkpoint", "version": 1, "data_bytes": N,
//                 "tensors": [{"key", "dtype", "shape", "offset", "bytes", "crc32"}, ...]}
//   next N       tensor data, raw little-endian (bool as one byte), at the offsets the index gives
#include "tracelab/nn/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "nn/detail/file_json.h"

namespace tl {
namespace {

using Json = nlohmann::json;
constexpr std::array<std::uint8_t, 8> kMagic{'T', 'L', 'C', 'K', 'P', 'T', 0, 1};
constexpr const char* kFormat = "tracelab.checkpoint";
constexpr std::int64_t kVersion = 1;
constexpr int kMaxIndexDepth = 16;  // the index needs 3 levels

std::int64_t& fault_after() {
  static std::int64_t bytes = -1;
  return bytes;
}

std::uint32_t crc32(const std::uint8_t* data, std::size_t size) {
  return detail::checkpoint_crc32(std::span<const std::uint8_t>(data, size));
}

const std::uint8_t* bytes_of(const Tensor& t) {
  const void* data = nullptr;
  visit_dtype(t.dtype(), [&](auto tag) { data = t.data<decltype(tag)>(); });
  return static_cast<const std::uint8_t*>(data);
}

template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  throw InvalidArgument(detail::cat("checkpoint: ", parts...));
}

/// An I/O error of the file format `what` ("checkpoint", "saved_model").
template <class... Parts>
[[noreturn]] void fail_io(std::string_view what, const Parts&... parts) {
  throw InvalidArgument(detail::cat(what, ": ", parts...));
}

/// The index entry of `key`, validated against the variable it will be restored into.
struct Slot {
  const Variable* variable;
  std::size_t offset, bytes;
  std::uint32_t crc;
};

std::int64_t json_int(const Json& j, const std::string& what, std::int64_t lo, std::int64_t hi) {
  if (!j.is_number_integer() && !j.is_number_unsigned()) fail(what, " must be an integer, got ", j.dump());
  auto v = j.is_number_unsigned() ? static_cast<std::int64_t>(std::min<std::uint64_t>(j.get<std::uint64_t>(), static_cast<std::uint64_t>(hi) + 1))
                                  : j.get<std::int64_t>();
  if (v < lo || v > hi) fail(what, " is out of range: ", j.dump());
  return v;
}

std::map<std::string, Slot> read_index(const Json& index, std::size_t data_size,
                                       const std::vector<std::pair<std::string, Variable>>& expected) {
  if (!index.is_object() || index.value("format", "") != kFormat) fail("not a tracelab checkpoint index");
  if (json_int(index.at("version"), "version", 0, 1000) != kVersion) fail("unsupported version ", index.at("version").dump());
  if (!index.contains("tensors") || !index["tensors"].is_array()) fail("the index has no tensor list");
  std::map<std::string, const Variable*> wanted;
  for (const auto& [key, variable] : expected) wanted[key] = &variable;
  std::map<std::string, Slot> slots;
  for (const Json& entry : index["tensors"]) {
    if (!entry.is_object() || !entry.contains("key") || !entry["key"].is_string()) fail("a tensor entry has no key");
    std::string key = entry["key"].get<std::string>();
    auto found = wanted.find(key);
    if (found == wanted.end()) fail("the file holds '", key, "', which is not a variable of this checkpoint");
    if (slots.count(key)) fail("the file holds '", key, "' twice");
    const Variable& v = *found->second;
    std::string dtype = entry.value("dtype", "");
    if (dtype != dtype_name(v.dtype())) fail("'", key, "' is ", dtype, " in the file, the variable is ", dtype_name(v.dtype()));
    std::vector<std::int64_t> dims;
    for (const Json& d : entry.value("shape", Json::array())) dims.push_back(json_int(d, "'" + key + "' shape", 0, 1ll << 40));
    if (Shape(dims) != v.shape()) fail("'", key, "' has shape ", Shape(dims).str(), " in the file, the variable ", v.shape().str());
    auto offset = static_cast<std::size_t>(json_int(entry.at("offset"), "offset", 0, static_cast<std::int64_t>(data_size)));
    auto bytes = static_cast<std::size_t>(json_int(entry.at("bytes"), "bytes", 0, static_cast<std::int64_t>(data_size)));
    if (bytes != static_cast<std::size_t>(v.shape().num_elements()) * dtype_size(v.dtype()))
      fail("'", key, "' has ", bytes, " bytes, expected ", v.shape().num_elements() * dtype_size(v.dtype()));
    if (offset + bytes > data_size) fail("'", key, "' lies past the end of the data (the file is truncated)");
    slots[key] = {&v, offset, bytes, static_cast<std::uint32_t>(json_int(entry.at("crc32"), "crc32", 0, 0xFFFFFFFFll))};
  }
  for (const auto& [key, variable] : expected)
    if (!slots.count(key)) fail("the file has no value for '", key, "'");
  return slots;
}

/// A bool is stored as one byte, 0 or 1; any other byte would be an invalid bool once read.
void check_bools(const std::string& key, std::span<const std::uint8_t> bytes) {
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] > 1) fail("'", key, "' is bool but element ", i, " is stored as byte ", int{bytes[i]}, ", not 0 or 1");
}

/// Closes the descriptor on every path out of write_file_atomically.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

/// Writes all of `size` bytes (write() may write less, or be interrupted).
bool write_all(int fd, const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::uint32_t detail::checkpoint_crc32(std::span<const std::uint8_t> bytes) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::uint8_t byte : bytes) c = table[(c ^ byte) & 0xFFu] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

/// The new file goes to `path.tmp`, is flushed to the disk (fsync), and only then renamed over `path`; the
/// folder is synced too, so the rename itself survives a power cut. A crash at any point leaves `path` as the old
/// checkpoint or the new one, never a mix (tests/checkpoint_crash_test.cpp kills a writer mid-write).
void detail::write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes, std::string_view what) {
  const std::string temp = path + ".tmp";
  std::int64_t limit = std::exchange(fault_after(), -1);
  {
    Fd out{::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (out.fd < 0) fail_io(what, "cannot write '", temp, "': ", std::strerror(errno));
    std::size_t size = bytes.size();
    if (limit >= 0 && static_cast<std::size_t>(limit) < size) {  // a simulated crash: stop mid-write
      write_all(out.fd, bytes.data(), static_cast<std::size_t>(limit));
      fail_io(what, "simulated crash after ", limit, " bytes while writing '", temp, "'");
    }
    if (!write_all(out.fd, bytes.data(), size) || ::fsync(out.fd) != 0) {
      int error = errno;
      ::close(std::exchange(out.fd, -1));
      std::remove(temp.c_str());
      fail_io(what, "writing '", temp, "' failed: ", std::strerror(error));
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    std::remove(temp.c_str());
    fail_io(what, "cannot replace '", path, "' with the new file: ", std::strerror(error));
  }
  // Best effort: some file systems (and Node's, under WASM) cannot open or sync a folder; the data is synced already.
  std::size_t slash = path.find_last_of('/');
  std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  Fd dir{::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd >= 0) ::fsync(dir.fd);
}


std::vector<std::uint8_t> detail::read_file(const std::string& path, std::string_view what) {
  // Read in 64 KiB chunks with stdio.
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) fail_io(what, "cannot read '", path, "'");
  std::vector<std::uint8_t> bytes;
  std::uint8_t chunk[65536];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, file)) > 0;) bytes.insert(bytes.end(), chunk, chunk + n);
  bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) fail_io(what, "reading '", path, "' failed");
  return bytes;
}

void detail::fail_next_checkpoint_write_after(std::int64_t bytes) { fault_after() = bytes; }

Checkpoint::Checkpoint(std::initializer_list<Group> groups) : groups_(groups) {}

Checkpoint& Checkpoint::add(std::string group, std::vector<Variable> variables) {
  groups_.emplace_back(std::move(group), std::move(variables));
  return *this;
}

std::vector<std::pair<std::string, Variable>> Checkpoint::entries() const {
  std::vector<std::pair<std::string, Variable>> out;
  std::set<std::string> seen;
  for (const auto& [group, variables] : groups_)
    for (const Variable& v : variables) {
      std::string key = group + "/" + v.name();
      TL_CHECK(seen.insert(key).second, InvalidArgument, "checkpoint: two variables share the key '", key,
               "'; give variables unique names");
      out.emplace_back(std::move(key), v);
    }
  return out;
}

std::vector<std::string> Checkpoint::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : entries()) out.push_back(entry.first);
  return out;
}

std::vector<std::uint8_t> Checkpoint::to_bytes() const {
  Json tensors = Json::array();
  std::vector<std::uint8_t> data;
  for (const auto& [key, variable] : entries()) {
    Tensor value = variable.value();
    TL_CHECK(!value.is_symbolic(), InvalidArgument, "checkpoint: cannot save inside a traced function");
    std::size_t bytes = static_cast<std::size_t>(value.num_elements()) * dtype_size(value.dtype());
    const std::uint8_t* src = bytes ? bytes_of(value) : nullptr;
    tensors.push_back({{"key", key}, {"dtype", dtype_name(value.dtype())}, {"shape", value.shape().dims()},
                       {"offset", data.size()}, {"bytes", bytes}, {"crc32", crc32(src, bytes)}});
    if (bytes) data.insert(data.end(), src, src + bytes);
  }
  std::string index = Json{{"format", kFormat}, {"version", kVersion}, {"data_bytes", data.size()}, {"tensors", tensors}}.dump();
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  std::uint64_t length = index.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(length >> (8 * i)));
  std::uint32_t index_crc = crc32(reinterpret_cast<const std::uint8_t*>(index.data()), index.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(index_crc >> (8 * i)));
  out.insert(out.end(), index.begin(), index.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

void Checkpoint::from_bytes(std::span<const std::uint8_t> bytes) const {
  constexpr std::size_t kHeader = 20;
  if (bytes.size() < kHeader || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin()))
    fail("not a tracelab checkpoint (bad magic or shorter than ", kHeader, " bytes)");
  std::uint64_t length = 0;
  std::uint32_t index_crc = 0;
  for (std::size_t i = 0; i < 8; ++i) length |= static_cast<std::uint64_t>(bytes[8 + i]) << (8 * i);
  for (std::size_t i = 0; i < 4; ++i) index_crc |= static_cast<std::uint32_t>(bytes[16 + i]) << (8 * i);
  if (length > bytes.size() - kHeader) fail("the index is cut off (the file is truncated)");
  if (crc32(bytes.data() + kHeader, length) != index_crc) fail("the index fails its checksum (the file is corrupt)");
  Json index = detail::parse_file_json(bytes.subspan(kHeader, length), kMaxIndexDepth, "checkpoint", "index");
  std::span<const std::uint8_t> data = bytes.subspan(kHeader + length);
  const std::vector<std::pair<std::string, Variable>> expected = entries();  // the slots point into it
  std::map<std::string, Slot> slots;
  try {
    slots = read_index(index, data.size(), expected);
  } catch (const Json::exception& e) {
    fail("malformed index: ", e.what());
  }
  std::vector<std::pair<const Variable*, Tensor>> values;  // everything is checked before anything is assigned
  for (const auto& [key, slot] : slots) {
    if (crc32(data.data() + slot.offset, slot.bytes) != slot.crc) fail("'", key, "' fails its checksum (the file is corrupt)");
    if (slot.variable->dtype() == DType::bool_) check_bools(key, data.subspan(slot.offset, slot.bytes));
    Tensor value = Tensor::empty(slot.variable->dtype(), slot.variable->shape());
    if (slot.bytes) std::memcpy(const_cast<std::uint8_t*>(bytes_of(value)), data.data() + slot.offset, slot.bytes);
    values.emplace_back(slot.variable, value);
  }
  for (auto& [variable, value] : values) Variable(*variable).assign(value);
}

void Checkpoint::save(const std::string& path) const { detail::write_file_atomically(path, to_bytes(), "checkpoint"); }

void Checkpoint::restore(const std::string& path) const { from_bytes(detail::read_file(path, "checkpoint")); }

KeepBest::KeepBest(Checkpoint checkpoint, std::string path, Mode mode)
    : checkpoint_(std::move(checkpoint)), path_(std::move(path)), mode_(mode), best_(std::nan("")) {}

bool KeepBest::update(double metric) {
  bool better = !has_best_ || (mode_ == Mode::max ? metric > best_ : metric < best_);
  if (!better || std::isnan(metric)) return false;
  checkpoint_.save(path_);
  best_ = metric;
  has_best_ = true;
  return true;
}

}  // namespace tl
