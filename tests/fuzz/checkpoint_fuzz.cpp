// fuzz_checkpoint: tl::Checkpoint::from_bytes and Checkpoint::restore(path) on fuzzed checkpoint bytes, into a
// fixed set of variables (checkpoint_format.h). The first input byte is the mode: the bytes as they are, or
// re-signed (the header's index CRC and each tensor's crc32 recomputed) so that mutations get past the
// checksums to the validation behind them; bit 2 restores from a file instead of from bytes.
//
// Must hold: a restore either succeeds or throws a tl::Error; after a failure every variable holds exactly the
// bits it held before (checked byte for byte; a change is a __builtin_trap); after a success each variable
// keeps its dtype and shape, every bool holds 0 or 1, and to_bytes() restores again to the same bits. Each
// input starts from the same initial values.
#include <unistd.h>

#include <cstdlib>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "checkpoint_format.h"
#include "fuzz_check.h"

namespace {

using namespace tl;
constexpr std::size_t kHeader = 20;  // magic (8), index length (8), index CRC (4)

/// Deepest [ / { nesting of a JSON text (strings skipped); the harness itself must not recurse deeply.
int nesting(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

/// Each tensor entry's crc32 recomputed from the data it points at (entries that point nowhere left alone).
std::string resign_index(const std::string& index_text, const std::vector<std::uint8_t>& data) {
  if (nesting(index_text) > 16) return index_text;
  nlohmann::json index = nlohmann::json::parse(index_text, nullptr, false);
  if (index.is_discarded() || !index.is_object() || !index.contains("tensors") || !index["tensors"].is_array())
    return index_text;
  for (auto& entry : index["tensors"]) {
    if (!entry.is_object() || !entry.contains("offset") || !entry.contains("bytes")) continue;
    const auto &offset = entry["offset"], &bytes = entry["bytes"];
    if (!offset.is_number_unsigned() || !bytes.is_number_unsigned()) continue;
    auto o = offset.get<std::uint64_t>(), b = bytes.get<std::uint64_t>();
    if (o <= data.size() && b <= data.size() - o) entry["crc32"] = tl::detail::checkpoint_crc32({data.data() + o, b});
  }
  return index.dump();
}

/// The checkpoint bytes with the header's length and index CRC made to match the (possibly re-signed) index.
std::vector<std::uint8_t> prepare(const std::uint8_t* bytes, std::size_t size, std::uint8_t mode) {
  std::vector<std::uint8_t> raw(bytes, bytes + size);
  if ((mode & 3) == fuzz::kRaw || size < kHeader) return raw;
  std::uint64_t length = 0;
  for (std::size_t i = 0; i < 8; ++i) length |= std::uint64_t{raw[8 + i]} << (8 * i);
  length = std::min<std::uint64_t>(length, size - kHeader);
  std::string index(raw.begin() + kHeader, raw.begin() + static_cast<std::ptrdiff_t>(kHeader + length));
  std::vector<std::uint8_t> data(raw.begin() + static_cast<std::ptrdiff_t>(kHeader + length), raw.end());
  if ((mode & 3) >= fuzz::kResign) index = resign_index(index, data);
  return fuzz::checkpoint_bytes(index, data, std::span<const std::uint8_t>(raw).first(8));  // the input's own magic, mutations included
}

struct Fixture {
  fuzz::CheckpointVariables variables = fuzz::make_checkpoint_variables();
  Checkpoint checkpoint = fuzz::checkpoint_of(variables);
  std::vector<Tensor> initial;
  std::string path = "/tmp/tracelab-fuzz-checkpoint-" + std::to_string(::getpid()) + ".tlc";

  Fixture() {
    for (const Variable& v : all()) initial.push_back(copy(v.value()));
  }
  std::vector<Variable> all() const {
    std::vector<Variable> out = variables.model;
    out.insert(out.end(), variables.optimizer.begin(), variables.optimizer.end());
    return out;
  }
  static Tensor copy(const Tensor& t) {
    Tensor out = Tensor::empty(t.dtype(), t.shape());
    if (t.num_elements())
      std::memcpy(out.impl().buffer->data(), t.impl().buffer->data(),
                  static_cast<std::size_t>(t.num_elements()) * dtype_size(t.dtype()));
    return out;
  }
  std::vector<Tensor> snapshot() const {
    std::vector<Tensor> out;
    for (const Variable& v : all()) out.push_back(copy(v.value()));
    return out;
  }
  void reset() {
    auto vars = all();
    for (std::size_t i = 0; i < vars.size(); ++i) vars[i].assign(initial[i]);
  }
};

Fixture& fixture() {
  static Fixture* f = new Fixture();  // never destroyed: outlives libFuzzer's exit path
  return *f;
}

void restore(Fixture& f, const std::vector<std::uint8_t>& bytes, bool from_file) {
  if (!from_file) return f.checkpoint.from_bytes(bytes);
  std::FILE* file = std::fopen(f.path.c_str(), "wb");
  FUZZ_CHECK(file != nullptr, "cannot write ", f.path);
  std::fwrite(bytes.data(), 1, bytes.size(), file);
  std::fclose(file);
  f.checkpoint.restore(f.path);
}

void check_restored(Fixture& f) {
  auto vars = f.all();
  for (std::size_t i = 0; i < vars.size(); ++i) {
    Tensor value = vars[i].value();
    FUZZ_CHECK(value.meta() == f.initial[i].meta(), vars[i].name(), " changed from ", meta_str(f.initial[i].meta()),
               " to ", meta_str(value.meta()));
    if (value.dtype() != DType::bool_) continue;
    const auto* bytes = static_cast<const std::uint8_t*>(value.impl().buffer->data());
    for (std::int64_t k = 0; k < value.num_elements(); ++k)
      FUZZ_CHECK(bytes[k] <= 1, "restored bool variable ", vars[i].name(), " holds byte ", int{bytes[k]},
                 " at element ", k, " (a bool must be 0 or 1)");
  }
  std::vector<Tensor> restored = f.snapshot();
  std::vector<std::uint8_t> again = f.checkpoint.to_bytes();
  f.reset();
  try {
    f.checkpoint.from_bytes(again);
  } catch (const Error& e) {
    FUZZ_FAIL("to_bytes() after a successful restore does not restore: ", e.what());
  }
  std::vector<Tensor> round = f.snapshot();
  for (std::size_t i = 0; i < round.size(); ++i)
    FUZZ_CHECK(fuzz::same_bits(round[i], restored[i]), vars[i].name(), " differs after to_bytes() -> from_bytes()");
}

void check(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return;
  Fixture& f = fixture();
  f.reset();
  const std::uint8_t mode = data[0];
  std::vector<std::uint8_t> bytes = prepare(data + 1, size - 1, mode);
  std::vector<Tensor> before = f.snapshot();
  try {
    restore(f, bytes, (mode & fuzz::kFromFile) != 0);
  } catch (const Error&) {
    std::vector<Tensor> after = f.snapshot();
    for (std::size_t i = 0; i < after.size(); ++i)
      FUZZ_CHECK(fuzz::same_bits(after[i], before[i]), "a failed restore changed variable ", f.all()[i].name());
    return;
  }
  check_restored(f);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Fixture& f = fixture();
  try {  // a missing file is an error, not a crash
    f.checkpoint.restore(f.path + ".missing");
    FUZZ_FAIL("restoring a missing file succeeded");
  } catch (const Error&) {
  }
  std::atexit([] { std::remove(fixture().path.c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FUZZ_GUARD(check(data, size));
  return 0;
}
