// tl::debugging: TensorFlow's tf.debugging.assert_* and tf.Assert as graph ops. Each assertion is a registry op
// with trait::side_effects and no outputs: eagerly it checks at once; inside a tl::function it becomes a node
// that no pass prunes or reorders against other side effects, so the check runs on every call of the graph, on
// that call's values, and a failing call throws InvalidArgument naming the op, the message, the condition and
// the first `summarize` values of each tensor. A failing call leaves the function as it was: the next call runs.
// What the shape rule can decide from dtypes and shapes alone (assert_rank; shapes that cannot broadcast) fails
// while tracing, as TensorFlow's static checks do.
//
//   auto f = tl::function([](const tl::Tensor& x) {
//     tl::debugging::assert_positive(x, "x must be positive");   // traced once, checked on every call
//     return tl::log(x); });
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tracelab/tensor/tensor.h"

/// Runtime assertions on tensor values (tf.debugging): each checks eagerly at once and, traced, on every call.
namespace tl::debugging {

/// How many elements of each tensor an assertion's error shows by default (TensorFlow's summarize default).
inline constexpr std::int64_t default_summarize = 3;
/// assert_near's default rtol and atol for float32: 10 * machine epsilon (tf.debugging.assert_near's defaults).
inline constexpr float default_tolerance = 10 * 1.1920929e-7f;

/// Checks x == y elementwise (NumPy broadcasting; float32, int32 or bool) (tf.debugging.assert_equal).
void assert_equal(const Tensor& x, const Tensor& y, const std::string& message = "",
                  std::int64_t summarize = default_summarize);
/// Checks x < y elementwise (float32 or int32) (tf.debugging.assert_less).
void assert_less(const Tensor& x, const Tensor& y, const std::string& message = "",
                 std::int64_t summarize = default_summarize);
/// Checks x <= y elementwise (tf.debugging.assert_less_equal).
void assert_less_equal(const Tensor& x, const Tensor& y, const std::string& message = "",
                       std::int64_t summarize = default_summarize);
/// Checks x > y elementwise (tf.debugging.assert_greater).
void assert_greater(const Tensor& x, const Tensor& y, const std::string& message = "",
                    std::int64_t summarize = default_summarize);
/// Checks x >= y elementwise (tf.debugging.assert_greater_equal).
void assert_greater_equal(const Tensor& x, const Tensor& y, const std::string& message = "",
                          std::int64_t summarize = default_summarize);
/// Checks x > 0 elementwise (float32 or int32) (tf.debugging.assert_positive).
void assert_positive(const Tensor& x, const std::string& message = "", std::int64_t summarize = default_summarize);
/// Checks x >= 0 elementwise (tf.debugging.assert_non_negative).
void assert_non_negative(const Tensor& x, const std::string& message = "",
                         std::int64_t summarize = default_summarize);
/// Checks |x - y| <= atol + rtol * |y| elementwise, float32 (tf.debugging.assert_near); NaN never passes.
void assert_near(const Tensor& x, const Tensor& y, float rtol = default_tolerance, float atol = default_tolerance,
                 const std::string& message = "", std::int64_t summarize = default_summarize);
/// Checks that x has rank `rank`. Ranks are known while tracing, so a traced assert_rank fails at trace time
/// (tf.debugging.assert_rank's static check); eagerly it fails at once.
void assert_rank(const Tensor& x, std::int64_t rank, const std::string& message = "");
/// Checks that every element of the bool `condition` is true; when one is not, the error shows `message` and the
/// first `summarize` values of each `data` tensor (tf.Assert, which takes a scalar condition: here any shape).
void Assert(const Tensor& condition, const std::string& message, const std::vector<Tensor>& data = {},
            std::int64_t summarize = default_summarize);

}  // namespace tl::debugging
