// tl::summary's TensorFlow shape: a writer made the default by a scope (TF's writer.as_default(step)), a current
// step (tf.summary.experimental.set_step), and summary::scalar writing to the default writer — false and nothing
// written without one, an error with a writer but no step; scopes nest and restore the previous writer and step;
// a second kind of writer plugs in through SummaryWriter; per-epoch means from tl::metrics::Mean logged this way.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace summary_test {

namespace {

/// A SummaryWriter that keeps its records: the second kind of writer, as a TensorBoard event writer would be.
struct Record {
  std::string tag;
  double value;
  std::int64_t step;
  bool operator==(const Record&) const = default;
};

class MemoryWriter : public tl::summary::SummaryWriter {
 public:
  void write_scalar(const std::string& tag, double value, std::int64_t step) override { records.push_back({tag, value, step}); }
  std::vector<Record> records;
};

/// Every test starts and ends with no current step (the state is per thread and outlives a test case).
struct NoStep {
  NoStep() { tl::summary::set_step(std::nullopt); }
  ~NoStep() { tl::summary::set_step(std::nullopt); }
};

}  // namespace

TEST_CASE("summary/scalar: no default writer: false, nothing written (as tf.summary.scalar)") {
  NoStep clean;
  REQUIRE(tl::summary::default_writer() == nullptr);
  CHECK_FALSE(tl::summary::scalar("loss", 0.5, 1));
  CHECK_FALSE(tl::summary::scalar("loss", 0.5));               // no step either: still just false
  CHECK_FALSE(tl::summary::scalar("loss", tl::scalar(0.5f)));
  MemoryWriter writer;
  {
    tl::summary::DefaultWriter scope(writer);
    CHECK(tl::summary::scalar("loss", 0.5, 1));
  }
  CHECK_FALSE(tl::summary::scalar("loss", 0.75, 2));           // the scope ended: no default writer again
  CHECK(writer.records == std::vector<Record>{{"loss", 0.5, 1}});
}

TEST_CASE("summary/scalar: the step given, else the current one; none at all is an error naming the tag") {
  NoStep clean;
  MemoryWriter writer;
  tl::summary::DefaultWriter scope(writer);
  CHECK_THROWS_WITH_AS(tl::summary::scalar("accuracy", 0.9), doctest::Contains("summary::scalar('accuracy'): no step given"),
                       tl::InvalidArgument);
  tl::summary::set_step(7);
  CHECK(tl::summary::get_step() == 7);
  CHECK(tl::summary::scalar("accuracy", 0.9));
  CHECK(tl::summary::scalar("accuracy", tl::scalar(0.95f), 3));   // an explicit step wins over the current one
  CHECK(tl::summary::scalar("loss", tl::scalar(0.25f)));
  CHECK(writer.records == std::vector<Record>{{"accuracy", 0.9, 7}, {"accuracy", static_cast<double>(0.95f), 3}, {"loss", 0.25, 7}});
  CHECK_THROWS_AS(tl::summary::scalar("loss", tl::ones({2})), tl::InvalidArgument);   // not a scalar
  CHECK(writer.records.size() == 3);
}

TEST_CASE("summary/DefaultWriter: nested scopes restore the previous writer and step") {
  NoStep clean;
  MemoryWriter outer_writer, inner_writer;
  {
    tl::summary::DefaultWriter outer(outer_writer, 10);
    CHECK(tl::summary::default_writer() == &outer_writer);
    CHECK(tl::summary::get_step() == 10);
    tl::summary::scalar("a", 1.0);
    {
      tl::summary::DefaultWriter inner(inner_writer, 20);
      tl::summary::scalar("b", 2.0);
      tl::summary::set_step(21);                      // changed inside: the scope restores 10, not 20
      tl::summary::scalar("c", 3.0);
    }
    CHECK(tl::summary::default_writer() == &outer_writer);
    CHECK(tl::summary::get_step() == 10);
    tl::summary::scalar("d", 4.0);
    {
      tl::summary::DefaultWriter no_step(inner_writer);   // without a step: the current step stays, and is not restored
      tl::summary::set_step(30);
      tl::summary::scalar("e", 5.0);
    }
    CHECK(tl::summary::get_step() == 30);
    tl::summary::scalar("f", 6.0);
  }
  CHECK(tl::summary::default_writer() == nullptr);
  CHECK(tl::summary::get_step() == std::nullopt);         // the outer scope restores the step it found: none
  CHECK(outer_writer.records == std::vector<Record>{{"a", 1, 10}, {"d", 4, 10}, {"f", 6, 30}});
  CHECK(inner_writer.records == std::vector<Record>{{"b", 2, 20}, {"c", 3, 21}, {"e", 5, 30}});
}

TEST_CASE("summary/DefaultWriter: the previous writer is back when the scope is left by an exception") {
  NoStep clean;
  MemoryWriter outer_writer, inner_writer;
  tl::summary::DefaultWriter outer(outer_writer, 1);
  try {
    tl::summary::DefaultWriter inner(inner_writer, 2);
    throw tl::InvalidArgument("leaving the scope");
  } catch (const tl::InvalidArgument&) {
  }
  CHECK(tl::summary::default_writer() == &outer_writer);
  CHECK(tl::summary::get_step() == 1);
}

TEST_CASE("summary/ScalarWriter: a JSON Lines file through the default writer; per-epoch means from metrics::Mean") {
  NoStep clean;
  std::string path = "tracelab_test_summary_default.jsonl";
  std::remove(path.c_str());
  std::vector<std::vector<float>> epochs{{1.f, 2.f, 3.f}, {0.5f, 0.25f}};
  {
    tl::summary::ScalarWriter writer(path);
    tl::summary::DefaultWriter scope(writer);
    tl::metrics::Mean train_loss("train_loss");
    for (std::size_t epoch = 0; epoch < epochs.size(); ++epoch) {
      tl::summary::set_step(static_cast<std::int64_t>(epoch) + 1);
      for (float loss : epochs[epoch]) train_loss.update_state(tl::scalar(loss));   // per step
      CHECK(tl::summary::scalar("train/loss", train_loss.result()));             // the epoch's mean
      train_loss.reset_state();
    }
  }
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find("\"step\":1,\"tag\":\"train/loss\",\"value\":2.0,") != std::string::npos);
  CHECK(lines[1].find("\"step\":2,\"tag\":\"train/loss\",\"value\":0.375,") != std::string::npos);
  std::remove(path.c_str());
}

}  // namespace summary_test
