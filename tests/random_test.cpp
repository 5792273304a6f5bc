// Seeded random numbers. The golden values below were printed once natively (%.9g, so they round-trip) and are
// compared exactly: this same test runs in the WASM build, which proves the streams are bit-identical there.
#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tracelab/tracelab.h"

namespace random_test {

using doctest::Contains;
using F = std::vector<float>;
using I = std::vector<std::int32_t>;

TEST_CASE("random/generator: golden streams for seed 42") {
  SUBCASE("raw 32-bit outputs and next_float") {
    tl::Generator gen(42);
    CHECK(gen.next_u32() == 3413346080u);
    CHECK(gen.next_u32() == 3508673569u);
    CHECK(gen.next_u32() == 3540666473u);
    CHECK(gen.next_u32() == 2418394718u);
    CHECK(tl::Generator(42).next_float() == 0.794731557f);  // (3413346080 >> 8) / 2^24
  }
  SUBCASE("uniform float32 in [0, 1)") {
    F expected{0.794731557f, 0.816926718f, 0.824375629f, 0.563076377f,
               0.810134768f, 0.458963752f, 0.314645708f, 0.0623714328f};
    auto u = tl::Generator(42).uniform({8});
    CHECK(u.dtype() == tl::float32);
    CHECK(u.to_vector<float>() == expected);
    CHECK(tl::Generator(42).uniform({2, 4}).to_vector<float>() == expected);
  }
  SUBCASE("uniform int32 in [-5, 5)") {
    auto u = tl::Generator(42).uniform({8}, -5, 5, tl::int32);
    CHECK(u.dtype() == tl::int32);
    CHECK(u.to_vector<std::int32_t>() == I{-5, 4, -2, 3, -2, 4, -2, 2});  // -5 + u32 % 10
  }
  SUBCASE("normal(0, 1)") {
    F expected{0.517470241f, 0.556439042f, 1.26342189f, 0.24567844f,
               1.35772502f, -0.179650545f, -0.175700337f, -0.414835215f};
    CHECK(tl::Generator(42).normal({8}).to_vector<float>() == expected);
    CHECK(tl::Generator(42).normal({3}).to_vector<float>() == F{0.517470241f, 0.556439042f, 1.26342189f});
  }
  SUBCASE("seed 7: scaled uniform, then normal(1, 2) from the same generator") {
    tl::Generator gen(7);
    CHECK(gen.uniform({2, 3}, -0.5, 0.5).to_vector<float>() ==
          F{-0.454139233f, -0.36981076f, 0.472607374f, 0.11965394f, -0.206451058f, 0.00809198618f});
    CHECK(gen.normal({5}, 1.f, 2.f).to_vector<float>() ==
          F{2.75284195f, 5.42223072f, -0.884854436f, 1.82818437f, -0.809187531f});
  }
}

TEST_CASE("random/generator: copies and seeds") {
  tl::Generator a(123);
  tl::Generator b = a;
  CHECK(a.uniform({16}).to_vector<float>() == b.uniform({16}).to_vector<float>());
  CHECK(tl::Generator(1).uniform({16}).to_vector<float>() != tl::Generator(2).uniform({16}).to_vector<float>());
  tl::Generator c(5);
  auto first = c.uniform({4}).to_vector<float>();
  CHECK(c.uniform({4}).to_vector<float>() != first);  // the stream advances
  CHECK(tl::Generator(9).uniform({0, 3}).shape() == tl::Shape{0, 3});
  CHECK(tl::Generator(9).normal({}).shape() == tl::Shape{});
}

TEST_CASE("random/generator: statistics") {
  tl::Generator gen(2024);
  SUBCASE("normal mean and stddev") {
    auto v = gen.normal({10000}, 3.f, 2.f).to_vector<float>();
    double sum = 0, sq = 0;
    for (float x : v) sum += x;
    double mean = sum / v.size();
    for (float x : v) sq += (x - mean) * (x - mean);
    double stddev = std::sqrt(sq / (v.size() - 1));
    CHECK(mean == doctest::Approx(3.0).epsilon(0.04 / 3));  // standard error 0.02
    CHECK(stddev == doctest::Approx(2.0).epsilon(0.03));
    int within_one = 0;
    for (float x : v) within_one += std::fabs(x - 3.f) < 2.f;
    CHECK(within_one / 10000.0 == doctest::Approx(0.6827).epsilon(0.03));
  }
  SUBCASE("uniform float bounds and mean") {
    auto v = gen.uniform({10000}, -2, 6).to_vector<float>();
    double sum = 0;
    int outside = 0;
    for (float x : v) {
      outside += !(x >= -2.f && x < 6.f);
      sum += x;
    }
    CHECK(outside == 0);
    CHECK(sum / v.size() == doctest::Approx(2.0).epsilon(0.05));  // standard error ~0.023
  }
  SUBCASE("uniform float stays below maxval even where rounding would reach it") {
    // Near 1e6 float32 steps are 1/16, so lo + span * u rounds up to maxval for u >= 1 - 1/32 (~3% of draws).
    auto v = gen.uniform({10000}, 1e6, 1e6 + 1).to_vector<float>();
    int at_top = 0, outside = 0;
    for (float x : v) {
      outside += !(x >= 1e6f && x < 1000001.f);
      at_top += x == 1000000.9375f;
    }
    CHECK(outside == 0);
    CHECK(at_top / 10000.0 == doctest::Approx(3.0 / 32).epsilon(0.2));  // [1 - 3/32, 1) all land on the top float
  }
  SUBCASE("uniform int32 covers [lo, hi) evenly") {
    auto v = gen.uniform({30000}, -2, 3, tl::int32).to_vector<std::int32_t>();
    int counts[5] = {0, 0, 0, 0, 0}, outside = 0;
    for (std::int32_t x : v) {
      if (x >= -2 && x < 3) ++counts[x + 2];
      else ++outside;
    }
    CHECK(outside == 0);
    for (int c : counts) CHECK(c == doctest::Approx(6000).epsilon(0.06));  // sigma ~69, 0.06 * 6000 = 5 sigma
  }
  SUBCASE("uniform int32 with fractional and extreme bounds") {
    int ones = 0, twos = 0;
    for (std::int32_t x : gen.uniform({200}, 0.5, 3, tl::int32).to_vector<std::int32_t>()) {
      ones += x == 1;
      twos += x == 2;
    }
    CHECK(ones + twos == 200);
    CHECK(ones > 60);
    CHECK(twos > 60);
    CHECK(gen.uniform({50}, 7, 8, tl::int32).to_vector<std::int32_t>() == I(50, 7));
    auto full = gen.uniform({1000}, INT32_MIN, 2147483648.0, tl::int32).to_vector<std::int32_t>();
    int negative = 0;
    for (std::int32_t x : full) negative += x < 0;
    CHECK(negative > 400);
    CHECK(negative < 600);
  }
}

TEST_CASE("random/global: set_random_seed reproduces") {
  tl::set_random_seed(5);
  auto a = tl::random_uniform({4}).to_vector<float>();
  auto an = tl::random_normal({3}).to_vector<float>();
  tl::set_random_seed(5);
  CHECK(tl::random_uniform({4}).to_vector<float>() == a);
  CHECK(tl::random_normal({3}).to_vector<float>() == an);
  tl::set_random_seed(42);
  CHECK(tl::random_uniform({2}).to_vector<float>() == F{0.794731557f, 0.816926718f});
  CHECK(tl::random_uniform({2}, -5, 5, tl::int32).to_vector<std::int32_t>() == I{-2, 3});
  tl::set_random_seed(42);
  CHECK(tl::random_normal({2}).to_vector<float>() == F{0.517470241f, 0.556439042f});
  CHECK(&tl::global_generator() == &tl::global_generator());
}

TEST_CASE("random/generator: bad arguments") {
  tl::Generator gen(1);
  CHECK_THROWS_WITH_AS(gen.uniform({2}, 1, 1), Contains("random_uniform: need finite minval < maxval, got [1, 1)"),
                       tl::InvalidArgument);
  CHECK_THROWS_AS(gen.uniform({2}, 2, 1), tl::InvalidArgument);
  CHECK_THROWS_AS(gen.uniform({2}, NAN, 1), tl::InvalidArgument);
  CHECK_THROWS_AS(gen.uniform({2}, 0, INFINITY), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(gen.uniform({2}, 0, 1e39), Contains("not a non-empty float32 range"), tl::InvalidArgument);
  CHECK_THROWS_AS(gen.uniform({2}, 1, 1 + 1e-12), tl::InvalidArgument);  // equal once rounded to float32
  CHECK_THROWS_WITH_AS(gen.uniform({2}, 0.2, 0.8, tl::int32), Contains("no integer lies in [0.2, 0.8)"),
                       tl::InvalidArgument);
  CHECK_THROWS_AS(gen.uniform({2}, -3e9, 0, tl::int32), tl::InvalidArgument);
  CHECK_THROWS_AS(gen.uniform({2}, 0, 3e9, tl::int32), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(gen.uniform({2}, 0, 1, tl::bool_), Contains("random_uniform: dtype must be float32 or int32"),
                       tl::DTypeError);
  CHECK_THROWS_WITH_AS(gen.normal({2}, 0.f, -1.f), Contains("random_normal: need finite mean and stddev >= 0"),
                       tl::InvalidArgument);
  CHECK_THROWS_AS(gen.normal({2}, NAN, 1.f), tl::InvalidArgument);
  CHECK_THROWS_AS(gen.uniform({-1, 2}), tl::InvalidArgument);
  // A failed call does not advance the stream.
  tl::Generator fresh(42);
  CHECK_THROWS_AS(fresh.uniform({2}, 1, 0), tl::InvalidArgument);
  CHECK(fresh.uniform({1}).to_vector<float>() == F{0.794731557f});
}

}  // namespace random_test
