// Checkpoints (round trip through a file and bytes; mismatches, truncation and corruption are clear errors
// that change no variable; a crash mid-write keeps the previous file), keep-best, summaries, progress bar.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tracelab/tracelab.h"

namespace checkpoint_test {

namespace {

std::string temp_path(const std::string& name) { return "tracelab_test_" + name; }

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::vector<std::uint8_t> bytes;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return bytes;
  for (int c; (c = std::fgetc(file)) != EOF;) bytes.push_back(static_cast<std::uint8_t>(c));
  std::fclose(file);
  return bytes;
}

struct Model {
  tl::Variable w{tl::Generator(1).uniform({3, 2}), "dense/kernel"};
  tl::Variable b{tl::constant({0.5f, -0.5f}), "dense/bias"};
  tl::Variable step{tl::scalar(7), "iterations"};
  tl::Variable flag{tl::constant({true, false}, {2}), "flag"};
  tl::Checkpoint checkpoint() const { return tl::Checkpoint({{"model", {w, b, flag}}, {"optimizer", {step}}}); }
  std::vector<float> w_values() const { return w.read().to_vector<float>(); }
};

}  // namespace

TEST_CASE("checkpoint: file and byte round trips restore every variable") {
  Model saved, fresh;
  fresh.w.assign(tl::zeros({3, 2}));
  fresh.step.assign(tl::scalar(0));
  CHECK(saved.checkpoint().keys() ==
        std::vector<std::string>{"model/dense/kernel", "model/dense/bias", "model/flag", "optimizer/iterations"});
  std::string path = temp_path("roundtrip.tlc");
  saved.checkpoint().save(path);
  fresh.checkpoint().restore(path);
  CHECK(fresh.w_values() == saved.w_values());
  CHECK(fresh.step.read().item<int>() == 7);
  CHECK(fresh.flag.read().to_vector<bool>() == std::vector<bool>{true, false});
  Model other;
  other.w.assign(tl::ones({3, 2}));
  other.checkpoint().from_bytes(saved.checkpoint().to_bytes());
  CHECK(other.w_values() == saved.w_values());
  CHECK(read_bytes(path) == saved.checkpoint().to_bytes());
  std::remove(path.c_str());
}

TEST_CASE("checkpoint: mismatches, truncation and corruption are clear errors and change no variable") {
  Model saved;
  std::vector<std::uint8_t> bytes = saved.checkpoint().to_bytes();
  Model target;
  target.w.assign(tl::ones({3, 2}));
  auto untouched = [&] {
    CHECK(target.w_values() == std::vector<float>(6, 1.f));
    CHECK(target.step.read().item<int>() == 7);
  };
  SUBCASE("a variable of another shape") {
    tl::Variable wide(tl::zeros({3, 3}), "dense/kernel");
    tl::Checkpoint bad({{"model", {wide, target.b, target.flag}}, {"optimizer", {target.step}}});
    CHECK_THROWS_WITH_AS(bad.from_bytes(bytes), doctest::Contains("'model/dense/kernel' has shape (3, 2) in the file, the variable (3, 3)"),
                         tl::InvalidArgument);
    CHECK(wide.read().to_vector<float>() == std::vector<float>(9, 0.f));
  }
  SUBCASE("a missing and an unexpected name") {
    tl::Checkpoint fewer({{"model", {target.w, target.b, target.flag}}});
    CHECK_THROWS_WITH_AS(fewer.from_bytes(bytes), doctest::Contains("'optimizer/iterations', which is not a variable"),
                         tl::InvalidArgument);
    tl::Variable extra(tl::zeros({1}), "extra");
    tl::Checkpoint more = target.checkpoint();
    more.add("more", {extra});
    CHECK_THROWS_WITH_AS(more.from_bytes(bytes), doctest::Contains("the file has no value for 'more/extra'"), tl::InvalidArgument);
  }
  SUBCASE("truncated at every length") {
    for (std::size_t n = 0; n < bytes.size(); n += 7) {
      CAPTURE(n);
      CHECK_THROWS_AS(target.checkpoint().from_bytes(std::span<const std::uint8_t>(bytes.data(), n)), tl::InvalidArgument);
    }
  }
  SUBCASE("a flipped bit in the data or the index") {
    auto corrupt = bytes;
    corrupt[corrupt.size() - 3] ^= 0x10;
    CHECK_THROWS_WITH_AS(target.checkpoint().from_bytes(corrupt), doctest::Contains("fails its checksum"), tl::InvalidArgument);
    corrupt = bytes;
    corrupt[24] ^= 0x01;
    CHECK_THROWS_WITH_AS(target.checkpoint().from_bytes(corrupt), doctest::Contains("checkpoint:"), tl::InvalidArgument);
  }
  SUBCASE("not a checkpoint at all") {
    std::vector<std::uint8_t> junk(64, 'x');
    CHECK_THROWS_WITH_AS(target.checkpoint().from_bytes(junk), doctest::Contains("not a tracelab checkpoint"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(target.checkpoint().restore(temp_path("does_not_exist")), doctest::Contains("cannot read"),
                         tl::InvalidArgument);
  }
  untouched();
}

TEST_CASE("checkpoint: a crash mid-write leaves the previous file intact") {
  Model model;
  std::string path = temp_path("atomic.tlc");
  model.checkpoint().save(path);
  std::vector<std::uint8_t> before = read_bytes(path);
  model.w.assign(tl::zeros({3, 2}));
  tl::detail::fail_next_checkpoint_write_after(40);
  CHECK_THROWS_WITH_AS(model.checkpoint().save(path), doctest::Contains("simulated crash"), tl::InvalidArgument);
  CHECK(read_bytes(path) == before);      // the old checkpoint is still there, whole
  Model restored;
  restored.checkpoint().restore(path);
  CHECK(restored.w_values() != model.w_values());
  model.checkpoint().save(path);          // the next save works and replaces it
  restored.checkpoint().restore(path);
  CHECK(restored.w_values() == std::vector<float>(6, 0.f));
  std::remove(path.c_str());
  std::remove((path + ".tmp").c_str());
}

TEST_CASE("checkpoint: duplicate keys, keep-best") {
  tl::Variable a(tl::zeros({1}), "w"), b(tl::zeros({1}), "w");
  CHECK_THROWS_WITH_AS(tl::Checkpoint({{"m", {a, b}}}).keys(), doctest::Contains("two variables share the key 'm/w'"),
                       tl::InvalidArgument);
  std::string path = temp_path("best.tlc");
  tl::Variable v(tl::scalar(0.f), "v");
  tl::KeepBest keep(tl::Checkpoint({{"m", {v}}}), path, tl::KeepBest::Mode::max);
  std::vector<bool> saved;
  for (float metric : {0.5f, 0.4f, 0.7f, 0.7f, 0.9f}) {
    v.assign(tl::scalar(metric));
    saved.push_back(keep.update(metric));
  }
  CHECK(saved == std::vector<bool>{true, false, true, false, true});
  v.assign(tl::scalar(0.f));
  tl::Checkpoint({{"m", {v}}}).restore(path);
  CHECK(v.read().item<float>() == 0.9f);
  CHECK(keep.best() == doctest::Approx(0.9));
  std::remove(path.c_str());
}

TEST_CASE("summary: scalars as JSON lines; progress bar text") {
  std::string path = temp_path("scalars.jsonl");
  std::remove(path.c_str());
  {
    tl::summary::ScalarWriter writer(path);
    writer.scalar("loss", 0.25, 1);
    writer.scalar("loss", tl::scalar(0.125f), 2);
    writer.scalar("loss", std::nan(""), 3);
  }
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].find("\"step\":1") != std::string::npos);
  CHECK(lines[0].find("\"tag\":\"loss\"") != std::string::npos);
  CHECK(lines[1].find("\"value\":0.125") != std::string::npos);
  CHECK(lines[2].find("\"value\":\"nan\"") != std::string::npos);
  CHECK(lines[0].find("\"wall_time\":") != std::string::npos);
  std::remove(path.c_str());

  std::ostringstream out;
  tl::ProgressBar bar(100, out, true);
  CHECK(bar.line(50, {{"loss", 0.5}}, 2.0) == "[===============>              ] 50/100  25.0 it/s  ETA 0:02  loss 0.5000");
  bar.update(100, {{"loss", 0.1}});
  bar.finish();
  CHECK(out.str().find("100/100") != std::string::npos);
  std::ostringstream quiet;
  tl::ProgressBar off(10, quiet, false);
  off.update(5);
  off.finish();
  CHECK(quiet.str().empty());
}

TEST_CASE("checkpoint: the stored CRC-32 is the IEEE one (zlib's crc32)") {
  const std::string check = "123456789";  // the standard check value of CRC-32/ISO-HDLC
  CHECK(tl::detail::checkpoint_crc32({reinterpret_cast<const std::uint8_t*>(check.data()), check.size()}) == 0xCBF43926u);
  CHECK(tl::detail::checkpoint_crc32({}) == 0u);
}

}  // namespace checkpoint_test
