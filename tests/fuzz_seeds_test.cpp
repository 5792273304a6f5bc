// The committed op_call seeds (tests/fuzz/corpus/op_call) are the op samples as encoded now, and the inputs that found
// bugs still call the op they found them in. A seed names its op by registry index, so a new op shifts the seeds
// after it to other ops; when this fails, regenerate the corpus with
// build/asan/tests/fuzz/fuzz_make_seeds tests/fuzz/corpus (docs/reliability.md, "Seed corpus").
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fuzz/op_call_format.h"
#include "op_samples.h"

namespace fuzz_seeds_test {

namespace {

const std::filesystem::path& op_call_corpus() {
  static const std::filesystem::path dir = std::filesystem::path(TRACELAB_TESTS_DIR) / "fuzz" / "corpus" / "op_call";
  return dir;
}

/// The bytes of one op_call seed; empty when there is no such file.
std::vector<std::uint8_t> seed_bytes(const std::string& file) {
  std::ifstream in(op_call_corpus() / file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// The file names of the op_call corpus.
std::vector<std::string> seed_files() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(op_call_corpus()))
    files.push_back(entry.path().filename().string());
  return files;
}

bool is_regression(const std::string& file) { return file.rfind("regress.", 0) == 0; }

}  // namespace

TEST_CASE("fuzz/seeds: every op_call seed is an op sample as encoded now, and every plain sample has its seed") {
  std::set<std::string> expected;
  for (const auto& [name, samples] : tl::testing::op_samples()) {
    const tl::OpDef& op = tl::OpRegistry::global().get(name);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (!samples[i].subgraphs.empty() || !samples[i].variables.empty()) continue;  // not an op_call seed
      const std::string file = name + "." + std::to_string(i);
      CAPTURE(file);
      expected.insert(file);
      const std::vector<std::uint8_t> bytes = seed_bytes(file);
      REQUIRE_MESSAGE(!bytes.empty(), "no seed for this sample: regenerate the corpus");
      CHECK_MESSAGE(bytes == tl::fuzz::encode_op_call(op, samples[i].inputs, samples[i].attrs),
                    "the seed is not this sample as encoded now: regenerate the corpus");
    }
  }
  CHECK(expected.size() > 150);
  for (const std::string& file : seed_files()) {
    CAPTURE(file);
    if (!is_regression(file)) CHECK_MESSAGE(expected.count(file) == 1, "a seed without a sample: regenerate the corpus");
  }
}

TEST_CASE("fuzz/seeds: the op_call inputs that found bugs still decode to the op they found it in") {
  // Their first byte is the op's index among tl::fuzz::callable_ops(): after a new op, set it to the op's new index.
  const std::map<std::string, std::string> regressions{{"regress.matmul_empty_grad", "matmul"},
                                                       {"regress.reduce_empty_huge_dims", "broadcast_to"}};
  for (const auto& regression : regressions) {
    CAPTURE(regression.first);
    const std::vector<std::uint8_t> bytes = seed_bytes(regression.first);
    REQUIRE(!bytes.empty());
    tl::fuzz::ByteReader reader(bytes.data(), bytes.size());
    CHECK(tl::fuzz::decode_op_call(reader).op->name() == regression.second);
  }
  for (const std::string& file : seed_files()) {
    CAPTURE(file);
    if (is_regression(file))
      CHECK_MESSAGE(regressions.count(file) == 1, "a bug-finding input this test does not list with its op");
  }
}

}  // namespace fuzz_seeds_test
