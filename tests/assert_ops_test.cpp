// tl::debugging's assertions (core/ops/assert_ops.cpp): eagerly they fail at once; traced, the trace succeeds
// and each call checks its own values — a bad call throws the op's message with the values, the next good call
// runs as before, no pass prunes an assertion whose result nothing uses, and it runs in traced order with the
// other side effects. What dtypes and shapes decide (assert_rank, shapes that cannot broadcast) fails at trace time.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

#include "test_util.h"

namespace assert_ops_test {

using tl::Tensor;
namespace debugging = tl::debugging;

/// The message of the InvalidArgument that fn throws ("" when it throws none).
template <class Fn>
std::string invalid_argument(Fn&& fn) {
  return tl::testing::error_message<tl::InvalidArgument>(fn);
}

TEST_CASE("debugging/eager: each assertion passes on good values and fails at once on bad ones, naming them") {
  const Tensor x = tl::constant({1.f, 2.f, 3.f});
  debugging::assert_less(x, 4.f, "x below 4");
  debugging::assert_positive(x);
  debugging::assert_equal(x, tl::constant({1.f, 2.f, 3.f}));
  CHECK(invalid_argument([&] { debugging::assert_less(x, 2.f, "x must be below 2"); }) ==
        "assert_less: x must be below 2: condition x < y did not hold element-wise at 2 of 3 elements, the first "
        "at index [1] (x = 2, y = 2); x = f32[3] [1 2 3], y = f32[] [2]");
  CHECK(invalid_argument([&] {
          debugging::assert_positive(tl::constant({2, 0, -1, 4}, {2, 2}));
        }) ==
        "assert_positive: condition x > 0 did not hold element-wise at 2 of 4 elements, the first at index [0, 1] "
        "(x = 0); x = i32[2,2] [2 0 -1 ...]");
  CHECK(invalid_argument([] { debugging::assert_non_negative(tl::scalar(-0.5f), "a variance"); }) ==
        "assert_non_negative: a variance: condition x >= 0 did not hold element-wise at 1 of 1 element, the first "
        "at index [] (x = -0.5); x = f32[] [-0.5]");
  // Broadcasting: the failing element's x and y are the ones broadcasting paired.
  CHECK(invalid_argument([] {
          debugging::assert_greater_equal(tl::constant({1.f, 5.f}, {2, 1}), tl::constant({0.f, 4.f, 6.f}));
        }).find("at 3 of 6 elements, the first at index [0, 1] (x = 1, y = 4)") != std::string::npos);
  CHECK(
      invalid_argument([] {
        debugging::assert_greater(tl::constant({3, 1}), tl::constant({2, 2}));
      }).find("condition x > y did not hold element-wise at 1 of 2 elements, the first at index [1] (x = 1, y = 2)") !=
      std::string::npos);
  CHECK(invalid_argument([] {
          debugging::assert_less_equal(tl::constant({3}), tl::constant({2}));
        }).find("assert_less_equal: condition x <= y") == 0);
  CHECK(invalid_argument([] {
          debugging::assert_equal(tl::constant({true, false}, {2}), tl::constant({true, true}, {2}));
        }) ==
        "assert_equal: condition x == y did not hold element-wise at 1 of 2 elements, the first at index [1] "
        "(x = False, y = True); x = bool[2] [True False], y = bool[2] [True True]");
}

TEST_CASE("debugging/eager: summarize, assert_near's tolerance and NaN, tf.Assert's data, wrong dtypes") {
  const Tensor five = tl::constant({-1.f, -2.f, -3.f, -4.f, -5.f});
  CHECK(invalid_argument([&] { debugging::assert_positive(five, "", 2); }).find("x = f32[5] [-1 -2 ...]") !=
        std::string::npos);
  CHECK(invalid_argument([&] { debugging::assert_positive(five, "", -1); }).find("x = f32[5] [-1 -2 -3 -4 -5]") !=
        std::string::npos);
  CHECK(invalid_argument([&] { debugging::assert_positive(five, "", 0); }).find("x = f32[5] [...]") !=
        std::string::npos);

  debugging::assert_near(tl::constant({1.f, 2.f}), tl::constant({1.f + 1e-7f, 2.f}));  // within 10 eps
  debugging::assert_near(tl::constant({1.f}), tl::constant({1.1f}), 0.f, 0.2f);
  CHECK(invalid_argument([] {
          debugging::assert_near(tl::constant({1.f, 2.f}), tl::constant({1.f, 2.1f}), 0.f, 0.05f);
        })
            .find("assert_near: condition |x - y| <= 0.05 + 0 * |y| did not hold element-wise at 1 of 2 elements, the "
                  "first at index [1] (x = 2, y = 2.1)") == 0);
  CHECK(invalid_argument([] {
          debugging::assert_near(tl::constant({NAN}), tl::constant({NAN}), 1.f, 1.f);
        }).find("(x = nan, y = nan)") != std::string::npos);

  const Tensor w = tl::constant({0.5f, 1.5f});
  debugging::Assert(tl::reduce_max(w) <= 2.f, "weights at most 2", {w});
  CHECK(invalid_argument([&] {
          debugging::Assert(tl::reduce_max(w) <= 1.f, "weights at most 1", {w, tl::constant({7})});
        }) ==
        "assert: weights at most 1: the condition bool[] is false at 1 of 1, the first at index []; data: f32[2] [0.5 "
        "1.5], "
        "i32[1] [7]");
  CHECK(invalid_argument([&] { debugging::Assert(w > 1.f, "all above 1"); }) ==
        "assert: all above 1: the condition bool[2] is false at 1 of 2, the first at index [0]");

  CHECK_THROWS_WITH_AS(debugging::assert_less(tl::constant({true}, {1}), tl::constant({false}, {1})),
                       doctest::Contains("assert_less: input 0 must be float32 or int32, got bool"), tl::DTypeError);
  CHECK_THROWS_WITH_AS(debugging::assert_near(tl::constant({1}), tl::constant({1})),
                       doctest::Contains("assert_near: input 0 must be float32, got int32"), tl::DTypeError);
  CHECK_THROWS_WITH_AS(debugging::Assert(w, "not a bool"),
                       doctest::Contains("assert: input 0 must be bool, got float32"), tl::DTypeError);
  CHECK_THROWS_WITH_AS(debugging::assert_equal(w, tl::constant({1, 2})),
                       doctest::Contains("inputs must have the same dtype"), tl::DTypeError);
  CHECK_THROWS_WITH_AS(debugging::assert_positive(Tensor()),
                       doctest::Contains("assert_positive: an input is an empty Tensor handle"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(debugging::Assert(Tensor(), "m"),
                       doctest::Contains("assert: the condition is an empty Tensor handle"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(debugging::Assert(w > 0.f, "m", {Tensor()}),
                       doctest::Contains("assert: a data tensor is an empty Tensor handle"), tl::InvalidArgument);
}

TEST_CASE("debugging/traced: the trace succeeds, a bad call fails with its values, the next good call runs") {
  auto safe_log = tl::function(
      [](const Tensor& x) {
        debugging::assert_positive(x, "log needs x > 0");
        return tl::log(x);
      },
      {.name = "safe_log"});
  CHECK(safe_log(tl::constant({1.f, 1.f})).to_vector<float>() == std::vector<float>{0.f, 0.f});
  CHECK(invalid_argument([&] {
          safe_log(tl::constant({2.f, -3.f}));
        }) ==
        "assert_positive: log needs x > 0: condition x > 0 did not hold element-wise at 1 of 2 elements, the first "
        "at index [1] (x = -3); x = f32[2] [2 -3]");
  CHECK(safe_log(tl::constant({1.f, 1.f})).to_vector<float>() == std::vector<float>{0.f, 0.f});  // state intact
  CHECK(safe_log.tracing_count() == 1);  // the bad call ran the same graph: it failed at run time, not in a trace
  CHECK(safe_log.concrete_functions()[0]->graph().op_counts().count("assert_positive") == 1);

  // The same through an unknown-dims signature (a dynamic plan) and under a tape, whose gradient is unchanged.
  auto relaxed = tl::function(
      [](const Tensor& x) {
        debugging::assert_less(x, 10.f, "x below 10");
        return x * x;
      },
      {.input_signature = tl::InputSignature({tl::TensorSpec(tl::Shape{-1}, tl::float32)}), .name = "relaxed"});
  CHECK(relaxed(tl::constant({1.f, 2.f, 3.f})).to_vector<float>() == std::vector<float>{1.f, 4.f, 9.f});
  CHECK(invalid_argument([&] { relaxed(tl::constant({11.f})); }).find("x below 10: condition x < y") !=
        std::string::npos);
  tl::Variable v(tl::constant({3.f}), "v");
  tl::GradientTape tape;
  Tensor y = relaxed(v.read());
  CHECK(tape.gradient(y, v).to_vector<float>() == std::vector<float>{6.f});
  CHECK(relaxed.tracing_count() == 1);
}

TEST_CASE("debugging/traced: an assertion nothing uses is not pruned, and it runs in order with tl::print") {
  tl::ScopedLogCapture log;
  auto f = tl::function(
      [](const Tensor& x) {
        tl::print("before", x);
        debugging::assert_less(tl::reduce_max(x), 10.f, "max below 10");  // reduce_max feeds only the assertion
        tl::print("after", x);
        return x * 2.f;
      },
      {.name = "f"});
  CHECK(f(tl::constant({1.f, 2.f})).to_vector<float>() == std::vector<float>{2.f, 4.f});
  const auto counts = f.concrete_functions()[0]->graph().op_counts();
  CHECK(counts.count("assert_less") == 1);
  CHECK(counts.count("reduce_max") == 1);
  CHECK(invalid_argument([&] { f(tl::constant({20.f, 2.f})); }).find("max below 10") != std::string::npos);
  // The failing call printed "before" and stopped at the assertion: "after" ran only for the good call.
  CHECK(log.texts(tl::LogLevel::print) ==
        std::vector<std::string>{"before [1. 2.]", "after [1. 2.]", "before [20. 2.]"});
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("debugging/traced: what shapes decide fails while tracing — assert_rank, shapes that cannot broadcast") {
  auto matrix_only = tl::function(
      [](const Tensor& x) {
        debugging::assert_rank(x, 2, "x must be a matrix");
        return x + 1.f;
      },
      {.name = "matrix_only"});
  CHECK(matrix_only(tl::ones({2, 2})).to_vector<float>() == std::vector<float>(4, 2.f));
  CHECK_THROWS_WITH_AS(matrix_only(tl::ones({3})),
                       doctest::Contains("assert_rank: x must be a matrix: x must have rank 2, got f32[3] (rank 1)"),
                       tl::InvalidArgument);
  CHECK(matrix_only.tracing_count() == 1);  // the rank-1 trace failed: no concrete function was added for it
  CHECK(matrix_only.concrete_functions().size() == 1);
  CHECK_THROWS_WITH_AS(debugging::assert_rank(tl::ones({3}), 0), doctest::Contains("got f32[3] (rank 1)"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(debugging::assert_rank(tl::ones({3}), -1), doctest::Contains("the rank must be >= 0, got -1"),
                       tl::InvalidArgument);

  auto pairs = tl::function([](const Tensor& x, const Tensor& y) {
    debugging::assert_equal(x, y);
    return x;
  });
  CHECK_THROWS_AS(pairs(tl::ones({2}), tl::ones({3})), tl::ShapeError);
  CHECK(pairs.tracing_count() == 0);
}

TEST_CASE(
    "debugging/tape and cond: a recorded assertion leaves gradients as they were; in a branch it checks when taken") {
  tl::Variable v(tl::constant({2.f, 3.f}), "v");
  {
    tl::GradientTape tape;
    Tensor x = v.read();
    debugging::assert_positive(x, "recorded eagerly");
    CHECK(tape.gradient(tl::reduce_sum(x * x), v).to_vector<float>() == std::vector<float>{4.f, 6.f});
  }
  auto f = tl::function(
      [](const Tensor& x, const Tensor& checked) {
        return tl::cond(
            checked,
            [&] {
              debugging::assert_less(x, 1.f, "only when checked");
              return x + 1.f;
            },
            [&] { return x; });
      },
      {.name = "f"});
  CHECK(f(tl::constant({5.f}), tl::scalar(false)).to_vector<float>() == std::vector<float>{5.f});  // branch not taken
  CHECK(invalid_argument([&] { f(tl::constant({5.f}), tl::scalar(true)); }).find("only when checked") !=
        std::string::npos);
  CHECK(f(tl::constant({0.f}), tl::scalar(true)).to_vector<float>() == std::vector<float>{1.f});
  CHECK(f.tracing_count() == 1);
}

}  // namespace assert_ops_test
