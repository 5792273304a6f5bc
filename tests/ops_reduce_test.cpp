// Reductions and argmax against hand-computed values: axes, keepdims, int32, empty sets, NaN, errors,
// shape rules with unknown dims.
#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <limits>
#include <vector>

#include "tracelab/tracelab.h"

namespace ops_reduce_test {

namespace {

using F = std::vector<float>;
using I = std::vector<std::int32_t>;
constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::nanf("");

tl::TensorMeta infer(const char* name, tl::TensorMeta input, const tl::Attrs& attrs = {}) {
  const tl::OpDef& op = tl::OpRegistry::global().get(name);
  const tl::TensorMeta* inputs[] = {&input};
  std::vector<tl::TensorMeta> outputs(1);
  op.infer(inputs, attrs, outputs);
  return outputs[0];
}

tl::TensorMeta f32(tl::Shape shape) { return {tl::float32, std::move(shape)}; }
tl::TensorMeta i32(tl::Shape shape) { return {tl::int32, std::move(shape)}; }

/// [[1, 2, 3], [4, 5, 6]]
tl::Tensor matrix() { return tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3}); }

/// x[i][j][k] = 6i + 2j + k, shape (2, 3, 2): values 0..11.
tl::Tensor cube() {
  return tl::constant({0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f, 10.f, 11.f}, {2, 3, 2});
}

}  // namespace

TEST_CASE("ops/reduce_sum: axes") {
  auto x = matrix();
  SUBCASE("all") {
    auto y = tl::reduce_sum(x);
    CHECK(y.shape() == tl::Shape{});
    CHECK(y.item<float>() == 21.f);
  }
  SUBCASE("axis 0") { CHECK(tl::reduce_sum(x, {0}).to_vector<float>() == F{5, 7, 9}); }
  SUBCASE("axis 1") { CHECK(tl::reduce_sum(x, {1}).to_vector<float>() == F{6, 15}); }
  SUBCASE("axis -1") { CHECK(tl::reduce_sum(x, {-1}).to_vector<float>() == F{6, 15}); }
  SUBCASE("both, listed in any order") { CHECK(tl::reduce_sum(x, {1, 0}).item<float>() == 21.f); }
  SUBCASE("outer and inner axes of a 3-D tensor (two passes)") {
    // sum over i, k of 6i + 2j + k = 8j + 14
    CHECK(tl::reduce_sum(cube(), {0, 2}).to_vector<float>() == F{14, 22, 30});
    CHECK(tl::reduce_sum(cube(), {2, -3}).to_vector<float>() == F{14, 22, 30});
  }
  SUBCASE("middle axis (strided)") {
    // sum over j of 6i + 2j + k = 18i + 6 + 3k
    auto y = tl::reduce_sum(cube(), {1});
    CHECK(y.shape() == tl::Shape{2, 2});
    CHECK(y.to_vector<float>() == F{6, 9, 24, 27});
  }
  SUBCASE("first two axes, merged") {
    // sum over i, j of 6i + 2j + k = 18 + 12 + 6k
    CHECK(tl::reduce_sum(cube(), {0, 1}).to_vector<float>() == F{30, 36});
  }
  SUBCASE("size-1 axes") {
    auto y = tl::reduce_sum(tl::constant({1.f, 2.f, 3.f}, {1, 3, 1}), {0, 2});
    CHECK(y.shape() == tl::Shape{3});
    CHECK(y.to_vector<float>() == F{1, 2, 3});
  }
  SUBCASE("a long vector") { CHECK(tl::reduce_sum(tl::ones({10000})).item<float>() == 10000.f); }
}

TEST_CASE("ops/reduce_sum: keepdims") {
  auto x = matrix();
  auto rows = tl::reduce_sum(x, {1}, true);
  CHECK(rows.shape() == tl::Shape{2, 1});
  CHECK(rows.to_vector<float>() == F{6, 15});
  auto all = tl::reduce_sum(x, {}, true);
  CHECK(all.shape() == tl::Shape{1, 1});
  CHECK(all.item<float>() == 21.f);
  CHECK(tl::reduce_sum(cube(), {0, 2}, true).shape() == tl::Shape{1, 3, 1});
}

TEST_CASE("ops/reduce_sum: int32 wraps") {
  auto x = tl::constant({1, 2, 3, 4}, {2, 2});
  auto y = tl::reduce_sum(x, {0});
  CHECK(y.dtype() == tl::int32);
  CHECK(y.to_vector<std::int32_t>() == I{4, 6});
  CHECK(tl::reduce_sum(tl::constant({INT32_MAX, 1})).item<std::int32_t>() == INT32_MIN);
  CHECK(tl::reduce_sum(tl::constant({INT32_MIN, -1})).item<std::int32_t>() == INT32_MAX);
  // strided and two-pass int32 sums wrap the same way: 2 * INT32_MAX + 2 == 0 (mod 2^32)
  auto big = tl::constant({INT32_MAX, 1, 1, INT32_MAX}, {2, 2});
  CHECK(tl::reduce_sum(big, {0}).to_vector<std::int32_t>() == I{INT32_MIN, INT32_MIN});
  CHECK(tl::reduce_sum(big).item<std::int32_t>() == 0);
}

TEST_CASE("ops/reduce_sum: scalars and zero-size dims") {
  SUBCASE("rank 0") {
    auto y = tl::reduce_sum(tl::scalar(5.f));
    CHECK(y.shape() == tl::Shape{});
    CHECK(y.item<float>() == 5.f);
    CHECK(tl::reduce_sum(tl::scalar(5.f), {}, true).shape() == tl::Shape{});
  }
  SUBCASE("empty sum is 0") {
    CHECK(tl::reduce_sum(tl::zeros({0})).item<float>() == 0.f);
    CHECK(tl::reduce_sum(tl::zeros({0}, tl::int32)).item<std::int32_t>() == 0);
    auto y = tl::reduce_sum(tl::ones({2, 0}), {1});
    CHECK(y.shape() == tl::Shape{2});
    CHECK(y.to_vector<float>() == F{0, 0});
  }
  SUBCASE("kept zero-size axis") { CHECK(tl::reduce_sum(tl::ones({2, 0}), {0}).shape() == tl::Shape{0}); }
}

TEST_CASE("ops/reduce_mean: values") {
  SUBCASE("float32") {
    CHECK(tl::reduce_mean(matrix()).item<float>() == 3.5f);
    CHECK(tl::reduce_mean(matrix(), {0}).to_vector<float>() == F{2.5f, 3.5f, 4.5f});
    CHECK(tl::reduce_mean(matrix(), {1}, true).to_vector<float>() == F{2, 5});
    CHECK(tl::reduce_mean(cube(), {0, 2}).to_vector<float>() == F{3.5f, 5.5f, 7.5f});
    CHECK(tl::reduce_mean(tl::constant({0.1f, 0.2f, 0.3f})).item<float>() == doctest::Approx(0.2));
  }
  SUBCASE("int32 truncates toward zero") {
    CHECK(tl::reduce_mean(tl::constant({-7, 0})).item<std::int32_t>() == -3);
    CHECK(tl::reduce_mean(tl::constant({7, 0})).item<std::int32_t>() == 3);
    CHECK(tl::reduce_mean(tl::constant({-5, -4})).item<std::int32_t>() == -4);
    CHECK(tl::reduce_mean(tl::constant({1, 2, 3, 5}, {2, 2}), {1}).to_vector<std::int32_t>() == I{1, 4});
  }
  SUBCASE("int32 mean does not overflow") {
    CHECK(tl::reduce_mean(tl::constant({INT32_MAX, INT32_MAX})).item<std::int32_t>() == INT32_MAX);
    CHECK(tl::reduce_mean(tl::constant({INT32_MIN, INT32_MIN, INT32_MIN})).item<std::int32_t>() == INT32_MIN);
  }
  SUBCASE("rank 0") { CHECK(tl::reduce_mean(tl::scalar(7)).item<std::int32_t>() == 7); }
  SUBCASE("int32, two passes") {
    // x[i][j][k] = 6i + 2j + k; sums over i, k are 8j + 14 = [14, 22, 30], divided by 4 and truncated
    auto x = tl::constant({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 3, 2});
    CHECK(tl::reduce_mean(x, {0, 2}).to_vector<std::int32_t>() == I{3, 5, 7});
    CHECK(tl::reduce_sum(x, {0, 2}).to_vector<std::int32_t>() == I{14, 22, 30});
    CHECK(tl::reduce_max(x, {0, 2}).to_vector<std::int32_t>() == I{7, 9, 11});
  }
}

TEST_CASE("ops/reduce_mean: zero elements") {
  CHECK(std::isnan(tl::reduce_mean(tl::zeros({0})).item<float>()));
  auto y = tl::reduce_mean(tl::zeros({0, 3}), {0});
  CHECK(y.shape() == tl::Shape{3});
  for (float v : y.to_vector<float>()) CHECK(std::isnan(v));
  CHECK(tl::reduce_mean(tl::zeros({0, 3}, tl::int32), {1}).shape() == tl::Shape{0});  // nothing to divide
  CHECK_THROWS_WITH_AS(tl::reduce_mean(tl::zeros({0, 3}, tl::int32), {0}),
                       "reduce_mean: the mean of zero int32 elements is undefined (input i32[0,3], axes [0])",
                       tl::InvalidArgument);
  CHECK_THROWS_AS(tl::reduce_mean(tl::zeros({0}, tl::int32)), tl::InvalidArgument);
}

TEST_CASE("ops/reduce_max: values") {
  CHECK(tl::reduce_max(matrix()).item<float>() == 6.f);
  CHECK(tl::reduce_max(matrix(), {0}).to_vector<float>() == F{4, 5, 6});
  CHECK(tl::reduce_max(matrix(), {1}, true).to_vector<float>() == F{3, 6});
  CHECK(tl::reduce_max(cube(), {0, 2}).to_vector<float>() == F{7, 9, 11});
  CHECK(tl::reduce_max(cube(), {1}).to_vector<float>() == F{4, 5, 10, 11});
  CHECK(tl::reduce_max(tl::constant({-3.f, -1.f, -2.f})).item<float>() == -1.f);
  CHECK(tl::reduce_max(tl::constant({3, -9, 7, 1}, {2, 2}), {0}).to_vector<std::int32_t>() == I{7, 1});
  CHECK(tl::reduce_max(tl::scalar(-2.f)).item<float>() == -2.f);
}

TEST_CASE("ops/reduce_max: the training model's shape (1, X, 20) over axis 1") {
  const int rows = 1000;
  std::vector<float> values;
  for (int j = 0; j < rows; ++j)  // (7j mod 1000) runs through 0..999 once, so the max over j is 999 - k
    for (int k = 0; k < 20; ++k) values.push_back(static_cast<float>((j * 7) % rows - k));
  auto y = tl::reduce_max(tl::constant(values, {1, rows, 20}), {1});
  CHECK(y.shape() == tl::Shape{1, 20});
  F expected;
  for (int k = 0; k < 20; ++k) expected.push_back(static_cast<float>(999 - k));
  CHECK(y.to_vector<float>() == expected);
  values[5 * 20 + 3] = kNaN;  // one NaN in column 3
  auto z = tl::reduce_max(tl::constant(values, {1, rows, 20}), {1}, true).to_vector<float>();
  CHECK(std::isnan(z[3]));
  CHECK(z[4] == 995.f);
}

TEST_CASE("ops/reduce_max: empty sets give the identity") {
  CHECK(tl::reduce_max(tl::zeros({0})).item<float>() == -kInf);
  CHECK(tl::reduce_max(tl::zeros({0}, tl::int32)).item<std::int32_t>() == INT32_MIN);
  CHECK(tl::reduce_max(tl::zeros({2, 0}), {1}).to_vector<float>() == F{-kInf, -kInf});
  CHECK(tl::reduce_min(tl::zeros({0})).item<float>() == kInf);
  CHECK(tl::reduce_min(tl::zeros({0, 2}, tl::int32), {0}).to_vector<std::int32_t>() == I{INT32_MAX, INT32_MAX});
}

TEST_CASE("ops/reduce_max: NaN wins") {
  CHECK(std::isnan(tl::reduce_max(tl::constant({1.f, kNaN, 3.f})).item<float>()));
  CHECK(std::isnan(tl::reduce_min(tl::constant({1.f, kNaN, 3.f})).item<float>()));
  // strided: columns [1, nan] and [nan, 2]; [nan, 2] and [1, 3]
  auto y = tl::reduce_max(tl::constant({1.f, kNaN, kNaN, 2.f}, {2, 2}), {0}).to_vector<float>();
  CHECK((std::isnan(y[0]) && std::isnan(y[1])));
  auto z = tl::reduce_min(tl::constant({kNaN, 2.f, 1.f, 3.f}, {2, 2}), {0}).to_vector<float>();
  CHECK(std::isnan(z[0]));
  CHECK(z[1] == 2.f);
}

TEST_CASE("ops/reduce_min: values") {
  CHECK(tl::reduce_min(matrix()).item<float>() == 1.f);
  CHECK(tl::reduce_min(matrix(), {0}).to_vector<float>() == F{1, 2, 3});
  CHECK(tl::reduce_min(cube(), {0, 2}).to_vector<float>() == F{0, 2, 4});
  CHECK(tl::reduce_min(cube(), {-2}, true).to_vector<float>() == F{0, 1, 6, 7});
  CHECK(tl::reduce_min(tl::constant({3, -9, 7, 1}, {2, 2}), {1}).to_vector<std::int32_t>() == I{-9, 1});
}

TEST_CASE("ops/reductions: over size-1 axes only, every kind copies its input (NaN, -0 and int32 extremes kept)") {
  // A gradient summed over a batch of one reduces nothing: each output value is its one input value.
  auto x = tl::constant({-0.f, kNaN, 2.5f, -kInf}, {1, 4, 1});
  for (auto reduce : {tl::reduce_sum, tl::reduce_mean, tl::reduce_max, tl::reduce_min}) {
    auto y = reduce(x, {0, 2}, false);
    CHECK(y.shape() == tl::Shape{4});
    auto v = y.to_vector<float>();
    CHECK((v[0] == 0.f && std::signbit(v[0])));
    CHECK(std::isnan(v[1]));
    CHECK(v[2] == 2.5f);
    CHECK(v[3] == -kInf);
    CHECK(reduce(x, {0}, true).shape() == tl::Shape{1, 4, 1});
  }
  auto n = tl::constant({INT32_MIN, -1, INT32_MAX}, {3, 1});
  for (auto reduce : {tl::reduce_sum, tl::reduce_mean, tl::reduce_max, tl::reduce_min})
    CHECK(reduce(n, {1}, false).to_vector<std::int32_t>() == I{INT32_MIN, -1, INT32_MAX});
  // Every dim of size 1: one value.
  CHECK(tl::reduce_sum(tl::constant({-7.f}, {1, 1}), {}, false).item<float>() == -7.f);
}

TEST_CASE("ops/reduce_sum: errors") {
  SUBCASE("dtype") {
    CHECK_THROWS_WITH_AS(tl::reduce_sum(tl::constant({true, false}, {2})),
                         "reduce_sum: input 0 must be float32 or int32, got bool (bool[2])", tl::DTypeError);
  }
  SUBCASE("axis out of range") {
    CHECK_THROWS_WITH_AS(tl::reduce_max(matrix(), {2}), doctest::Contains("reduce_max: axis 2 is out of range"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::reduce_min(matrix(), {-3}), doctest::Contains("reduce_min: axis -3"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::reduce_sum(tl::scalar(1.f), {0}), doctest::Contains("reduce_sum: axis 0"),
                         tl::InvalidArgument);
  }
  SUBCASE("duplicate axes") {
    CHECK_THROWS_WITH_AS(tl::reduce_sum(matrix(), {1, -1}),
                         "reduce_sum: axis -1 is named twice in axes [1, -1] (rank 2)", tl::InvalidArgument);
    CHECK_THROWS_AS(tl::reduce_mean(matrix(), {0, 0}), tl::InvalidArgument);
  }
  SUBCASE("attribute types") {
    const tl::OpDef& op = tl::OpRegistry::global().get("reduce_sum");
    CHECK_THROWS_WITH_AS(tl::execute(op, {matrix()}, {{"axes", 1}}),
                         doctest::Contains("reduce_sum: attribute 'axes' must be of type ints"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::execute(op, {matrix()}, {{"axis", tl::Ints{1}}}),
                         doctest::Contains("reduce_sum: unknown attribute 'axis'"), tl::InvalidArgument);
  }
  SUBCASE("attributes may be omitted") {
    const tl::OpDef& op = tl::OpRegistry::global().get("reduce_sum");
    CHECK(tl::execute(op, {matrix()}).item<float>() == 21.f);
  }
}

TEST_CASE("ops/reduce_sum: shape rule with unknown dims") {
  CHECK(infer("reduce_sum", f32({-1, 3}), {{"axes", tl::Ints{0}}}).shape == tl::Shape{3});
  CHECK(infer("reduce_sum", f32({-1, 3}), {{"axes", tl::Ints{1}}}).shape == tl::Shape{-1});
  CHECK(infer("reduce_max", f32({-1, 3}), {{"axes", tl::Ints{1}}, {"keepdims", true}}).shape == tl::Shape{-1, 1});
  CHECK(infer("reduce_min", f32({-1, -1}), {}).shape == tl::Shape{});
  CHECK(infer("reduce_mean", i32({-1, 4}), {{"axes", tl::Ints{0}}}).shape == tl::Shape{4});
  CHECK(infer("reduce_mean", i32({-1, 4}), {{"axes", tl::Ints{0}}}).dtype == tl::int32);
  CHECK_THROWS_AS(infer("reduce_mean", i32({-1, 0}), {{"axes", tl::Ints{1}}}), tl::InvalidArgument);
  CHECK_THROWS_AS(infer("reduce_sum", f32({-1, 3}), {{"axes", tl::Ints{2}}}), tl::InvalidArgument);
}

TEST_CASE("ops/argmax: in a graph, into a reused buffer that is not zero") {
  // The executor hands argmax's output the slot of a dead int32 value of its size (the expanded r, holding
  // 3 2 0 1 4): a strided argmax whose answer is index 0 must write that 0, not keep what the slot held.
  auto r = tl::constant({3, 2, 0, 1, 4}, {1, 5});
  auto positions = [](const tl::Tensor& r) {
    auto one_hot = tl::cast(tl::equal(tl::expand_dims(r, -1), tl::range(5)), tl::float32);  // [0, j, k] = r_j == k
    return tl::argmax(one_hot, 1);                                                         // where each k is in r
  };
  auto traced = tl::function(positions);
  CHECK(positions(r).to_vector<std::int32_t>() == I{2, 3, 1, 0, 4});
  CHECK(traced(r).to_vector<std::int32_t>() == I{2, 3, 1, 0, 4});
  CHECK(traced(r).to_vector<std::int32_t>() == I{2, 3, 1, 0, 4});
}

TEST_CASE("ops/argmax: values") {
  auto x = tl::constant({1.f, 5.f, 3.f, 7.f, 2.f, 7.f}, {2, 3});
  SUBCASE("last axis, first index among ties") {
    auto y = tl::argmax(x, 1);
    CHECK(y.dtype() == tl::int32);
    CHECK(y.shape() == tl::Shape{2});
    CHECK(y.to_vector<std::int32_t>() == I{1, 0});
    CHECK(tl::argmax(x, -1).to_vector<std::int32_t>() == I{1, 0});
  }
  SUBCASE("axis 0 (strided)") { CHECK(tl::argmax(x).to_vector<std::int32_t>() == I{1, 0, 1}); }
  SUBCASE("strided ties") {
    auto t = tl::constant({4.f, 1.f, 4.f, 1.f, 2.f, 9.f}, {3, 2});  // columns [4, 4, 2] and [1, 1, 9]
    CHECK(tl::argmax(t, 0).to_vector<std::int32_t>() == I{0, 2});
  }
  SUBCASE("middle axis of a 3-D tensor") {
    CHECK(tl::argmax(cube(), 1).to_vector<std::int32_t>() == I{2, 2, 2, 2});
    CHECK(tl::argmax(cube(), 2).to_vector<std::int32_t>() == I{1, 1, 1, 1, 1, 1});
  }
  SUBCASE("int32") {
    CHECK(tl::argmax(tl::constant({3, 9, 9, 1})).item<std::int32_t>() == 1);
    CHECK(tl::argmax(tl::constant({3, -9, 7, 1, 0, 7}, {3, 2}), 0).to_vector<std::int32_t>() == I{1, 2});
  }
  SUBCASE("all -inf") { CHECK(tl::argmax(tl::constant({-kInf, -kInf})).item<std::int32_t>() == 0); }
  SUBCASE("the first NaN wins") {
    CHECK(tl::argmax(tl::constant({1.f, kNaN, 5.f, kNaN})).item<std::int32_t>() == 1);
    auto t = tl::constant({1.f, 2.f, kNaN, 5.f, kNaN, kNaN}, {3, 2});  // columns [1, nan, nan], [2, 5, nan]
    CHECK(tl::argmax(t, 0).to_vector<std::int32_t>() == I{1, 2});
  }
  SUBCASE("zero-size outer dim") { CHECK(tl::argmax(tl::zeros({0, 3}), 1).shape() == tl::Shape{0}); }
  SUBCASE("not differentiable") {
    CHECK(tl::OpRegistry::global().get("argmax").has(tl::trait::not_differentiable));
  }
}

TEST_CASE("ops/argmax: errors") {
  CHECK_THROWS_WITH_AS(tl::argmax(tl::zeros({0, 3})),
                       "argmax: axis 0 of f32[0,3] has size 0, so it has no largest value", tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::argmax(tl::scalar(1.f)), doctest::Contains("argmax: axis 0 is out of range for rank 0"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::argmax(matrix(), 2), doctest::Contains("argmax: axis 2 is out of range"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::argmax(tl::constant({true, false}, {2})),
                       doctest::Contains("argmax: input 0 must be float32 or int32"), tl::DTypeError);
}

TEST_CASE("ops/argmax: shape rule with unknown dims") {
  CHECK(infer("argmax", f32({-1, 5}), {{"axis", 1}}).shape == tl::Shape{-1});
  CHECK(infer("argmax", f32({-1, 5}), {{"axis", 0}}).shape == tl::Shape{5});
  CHECK(infer("argmax", f32({-1})).shape == tl::Shape{});
  CHECK(infer("argmax", f32({-1})).dtype == tl::int32);
  CHECK_THROWS_AS(infer("argmax", f32({-1, 0}), {{"axis", 1}}), tl::InvalidArgument);
}

using tl::Tensor;

TEST_CASE("ops/reductions: gradients traced with several unknown dims equal the eager ones") {
  tl::Generator gen(3);
  const Tensor x = gen.normal({2, 3, 4});

  for (const char* name : {"reduce_sum", "reduce_mean", "reduce_max"}) {
    const tl::OpDef& op = tl::OpRegistry::global().get(name);
    for (const tl::Ints& axes : {tl::Ints{-1}, tl::Ints{1}, tl::Ints{0, 2}, tl::Ints{}}) {
      for (bool keepdims : {false, true}) {
        CAPTURE(name);
        CAPTURE(tl::ints_str(axes));
        CAPTURE(keepdims);
        const tl::Attrs attrs{{"axes", axes}, {"keepdims", keepdims}};
        auto grad = [&](const Tensor& in) {
          tl::GradientTape tape;
          tape.watch(in);
          Tensor y = tl::execute(op, {in}, attrs);
          return tape.gradient(tl::reduce_sum(tl::square(y)), in);
        };
        auto traced = tl::function(grad, {.input_signature = {tl::TensorSpec({-1, -1, -1})}, .name = "grad"});
        const auto want = grad(x).to_vector<float>(), got = traced(x).to_vector<float>();
        REQUIRE(got.size() == want.size());
        for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-6));
      }
    }
  }
}

}  // namespace ops_reduce_test
