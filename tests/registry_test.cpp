// The registry walk: every op is complete (doc, shape rule, kernel) and has sample calls, and every sample
// runs through the funnel with the output the shape rule predicted. New ops cannot slip in untested.
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "op_samples.h"

namespace registry_test {

TEST_CASE("registry: every op has a doc line, a shape rule, a kernel and samples") {
  const auto& samples = tl::testing::op_samples();
  auto ops = tl::OpRegistry::global().all();
  CHECK(ops.size() == 124);  // pinned: a new op (with its samples) updates it on purpose
  for (const tl::OpDef* op : ops) {
    CAPTURE(op->name());
    CHECK_FALSE(op->doc().empty());
    CHECK(op->has_shape_fn());
    CHECK(op->has_kernel());
    CHECK(samples.count(op->name()) == 1);
  }
  for (const auto& entry : samples) {
    const std::string& name = entry.first;
    CAPTURE(name);
    CHECK(tl::OpRegistry::global().find(name) != nullptr);  // no stale sample for a removed op
  }
}

TEST_CASE("registry: every sample runs eagerly and matches its shape rule") {
  for (const auto& entry : tl::testing::op_samples()) {
    const std::string& name = entry.first;
    const auto& calls = entry.second;
    const tl::OpDef* op = tl::OpRegistry::global().find(name);
    if (op == nullptr) continue;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      CAPTURE(name);
      CAPTURE(i);
      const auto& sample = calls[i];
      std::vector<const tl::TensorMeta*> metas;
      for (const auto& t : sample.inputs) metas.push_back(&t.meta());
      std::vector<tl::TensorMeta> predicted(tl::testing::num_outputs(*op, sample));
      op->infer(metas, sample.attrs, predicted, sample.subgraphs, sample.variables);
      std::vector<tl::Tensor> outputs(predicted.size());
      REQUIRE_NOTHROW(tl::execute(*op, sample.inputs, sample.attrs, outputs, sample.subgraphs, sample.variables));
      for (std::size_t k = 0; k < outputs.size(); ++k) {
        if (op->has(tl::trait::dynamic_outputs) && op->num_subgraphs() == 0)  // a dim decided by an input's values
          CHECK((outputs[k].dtype() == predicted[k].dtype && outputs[k].shape().is_compatible_with(predicted[k].shape)));
        else
          CHECK(outputs[k].meta() == predicted[k]);
      }
    }
  }
}

TEST_CASE("registry: every count of registry ops the docs give is the registry's") {
  // "N registry ops" in README.md and docs/ (a word-final number such as float32's is another claim), except the
  // dated history in docs/notes/, which gives the counts of its day.
  const std::filesystem::path root = std::filesystem::path(TRACELAB_TESTS_DIR).parent_path();
  std::vector<std::filesystem::path> files{root / "README.md"};
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "docs"))
    if (entry.path().extension() == ".md" && entry.path().parent_path().filename() != "notes")
      files.push_back(entry.path());
  const std::string phrase = " registry ops";
  const std::size_t registered = tl::OpRegistry::global().all().size();
  int claims = 0;
  for (const auto& file : files) {
    std::ifstream in(file);
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    const std::string body = text.str();
    for (std::size_t at = body.find(phrase); at != std::string::npos; at = body.find(phrase, at + 1)) {
      std::size_t first = at;
      while (first > 0 && std::isdigit(static_cast<unsigned char>(body[first - 1]))) --first;
      const bool word_final =
          first > 0 && (std::isalpha(static_cast<unsigned char>(body[first - 1])) || body[first - 1] == '_');
      if (first == at || word_final) continue;
      CAPTURE(file.string());
      CHECK(std::stoul(body.substr(first, at - first)) == registered);
      ++claims;
    }
  }
  CHECK(claims == 2);  // docs/features.md and docs/building.md
}

TEST_CASE("registry: looking up an unknown op or registering a name twice is an error") {
  CHECK_THROWS_WITH_AS(tl::OpRegistry::global().get("no_such_op"), doctest::Contains("unknown op 'no_such_op'"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::OpRegistry::global().op("add"), doctest::Contains("'add' is registered twice"),
                       tl::InvalidArgument);
}

}  // namespace registry_test
