// The committed op_call seeds (tests/fuzz/corpus/op_call) are the op samples as encoded now. A seed names its op by
// registry index, so a new op shifts the seeds after it to other ops; when this fails, regenerate the corpus with
// build/fuzz/tests/fuzz/fuzz_make_seeds tests/fuzz/corpus (docs/reliability.md, "Seed corpus").
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "fuzz/op_call_format.h"
#include "op_samples.h"

TEST_CASE("fuzz/seeds: every op_call seed is an op sample as encoded now, and every plain sample has its seed") {
  const std::filesystem::path dir = std::filesystem::path(TRACELAB_TESTS_DIR) / "fuzz" / "corpus" / "op_call";
  std::set<std::string> expected;
  for (const auto& [name, samples] : tl::testing::op_samples()) {
    const tl::OpDef& op = tl::OpRegistry::global().get(name);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (!samples[i].subgraphs.empty() || !samples[i].variables.empty()) continue;  // not an op_call seed
      const std::string file = name + "." + std::to_string(i);
      CAPTURE(file);
      expected.insert(file);
      std::ifstream in(dir / file, std::ios::binary);
      REQUIRE_MESSAGE(in.good(), "no seed for this sample: regenerate the corpus");
      const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
      CHECK_MESSAGE(bytes == tl::fuzz::encode_op_call(op, samples[i].inputs, samples[i].attrs),
                    "the seed is not this sample as encoded now: regenerate the corpus");
    }
  }
  CHECK(expected.size() > 150);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind("regress.", 0) == 0) continue;  // inputs that found bugs, kept as they were
    CAPTURE(file);
    CHECK_MESSAGE(expected.count(file) == 1, "a seed without a sample: regenerate the corpus");
  }
}
