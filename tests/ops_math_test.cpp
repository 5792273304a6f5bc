// Elementwise math ops against hand-computed values: every op of math_ops.cpp, broadcasting edge cases,
// int32 wrap-around, weak scalars, error messages and shape rules with unknown dims.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tracelab/tracelab.h"

namespace ops_math_test {

using doctest::Approx;
using doctest::Contains;
using F = std::vector<float>;
using I = std::vector<std::int32_t>;
using B = std::vector<bool>;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

F fv(const tl::Tensor& t) { return t.to_vector<float>(); }
I iv(const tl::Tensor& t) { return t.to_vector<std::int32_t>(); }
B bv(const tl::Tensor& t) { return t.to_vector<bool>(); }

/// Checks values with a relative tolerance (transcendental functions may differ in the last bits per platform).
void check_close(const tl::Tensor& t, const F& expected) {
  REQUIRE(t.dtype() == tl::float32);
  F got = fv(t);
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    if (std::isnan(expected[i])) CHECK(std::isnan(got[i]));
    else if (std::isinf(expected[i])) CHECK(got[i] == expected[i]);
    else CHECK(got[i] == Approx(expected[i]).epsilon(1e-6));
  }
}

/// 0, 1, 2, ... as float32 with the given shape.
tl::Tensor iota(const tl::Shape& shape, float scale = 1) {
  std::vector<float> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * scale;
  return tl::constant(v, shape);
}

/// Runs the op's shape rule on metas (dims may be -1) and returns the output meta.
tl::TensorMeta infer(const char* name, std::vector<tl::TensorMeta> inputs, const tl::Attrs& attrs = {}) {
  const tl::OpDef& op = tl::OpRegistry::global().get(name);
  std::vector<const tl::TensorMeta*> ptrs;
  for (const auto& m : inputs) ptrs.push_back(&m);
  tl::TensorMeta out;
  op.infer(ptrs, attrs, std::span<tl::TensorMeta>(&out, 1));
  return out;
}

}  // namespace

// ---------------------------------------------------------------- unary

TEST_CASE("ops/neg: float, int32 wrap, operator-") {
  auto x = tl::constant({-2.f, -0.5f, 0.f, 1.5f});
  CHECK(fv(tl::neg(x)) == F{2.f, 0.5f, 0.f, -1.5f});
  CHECK(fv(-x) == F{2.f, 0.5f, 0.f, -1.5f});
  CHECK(tl::neg(x).shape() == tl::Shape{4});
  auto i = tl::neg(tl::constant({5, -7, 0, INT32_MAX, INT32_MIN}));
  CHECK(i.dtype() == tl::int32);
  CHECK(iv(i) == I{-5, 7, 0, -INT32_MAX, INT32_MIN});  // -INT32_MIN wraps to itself, as in TensorFlow
  CHECK(fv(tl::neg(tl::scalar(3.f))) == F{-3.f});
  CHECK(tl::neg(tl::zeros({0, 3})).shape() == tl::Shape{0, 3});
  CHECK_THROWS_WITH_AS(tl::neg(tl::constant({true}, {1})), Contains("neg: input 0 must be float32 or int32, got bool"),
                       tl::DTypeError);
}

TEST_CASE("ops/abs: float and int32") {
  CHECK(fv(tl::abs(tl::constant({-2.f, 0.5f, -0.f, 3.f}))) == F{2.f, 0.5f, 0.f, 3.f});
  CHECK(iv(tl::abs(tl::constant({-5, 7, 0, INT32_MIN}))) == I{5, 7, 0, INT32_MIN});
  CHECK_THROWS_AS(tl::abs(tl::scalar(true)), tl::DTypeError);
}

TEST_CASE("ops/exp") {
  check_close(tl::exp(tl::constant({0.f, 1.f, -1.f, 2.f}, {2, 2})), F{1.f, 2.71828175f, 0.36787945f, 7.3890561f});
  check_close(tl::exp(tl::constant({-kInf, kInf, 100.f})), F{0.f, kInf, kInf});
  CHECK_THROWS_WITH_AS(tl::exp(tl::constant({1, 2})), Contains("exp: input 0 must be float32, got int32"),
                       tl::DTypeError);
}

TEST_CASE("ops/log: log(0) = -inf, log(<0) = nan") {
  check_close(tl::log(tl::constant({1.f, 2.71828183f, 0.f, -1.f, kInf})), F{0.f, 1.f, -kInf, NAN, kInf});
  check_close(tl::log(tl::scalar(100.f)), F{4.60517019f});
  CHECK_THROWS_AS(tl::log(tl::constant({1, 2})), tl::DTypeError);
}

TEST_CASE("ops/sqrt: sqrt(-1) is nan") {
  check_close(tl::sqrt(tl::constant({0.f, 4.f, 2.25f, -1.f})), F{0.f, 2.f, 1.5f, NAN});
  CHECK_THROWS_AS(tl::sqrt(tl::constant({4})), tl::DTypeError);
}

TEST_CASE("ops/square: float and int32 wrap") {
  CHECK(fv(tl::square(tl::constant({-3.f, 0.5f, 0.f}))) == F{9.f, 0.25f, 0.f});
  CHECK(iv(tl::square(tl::constant({-3, 46340, 46341}))) == I{9, 2147395600, -2147479015});
}

TEST_CASE("ops/relu: float, int32, nan propagates") {
  CHECK(fv(tl::relu(tl::constant({-1.f, 0.f, 2.5f, -0.001f}))) == F{0.f, 0.f, 2.5f, 0.f});
  CHECK(iv(tl::relu(tl::constant({-3, 0, 4}))) == I{0, 0, 4});
  CHECK(std::isnan(fv(tl::relu(tl::constant({NAN})))[0]));
  CHECK_THROWS_AS(tl::relu(tl::scalar(false)), tl::DTypeError);
}

TEST_CASE("ops/sigmoid: saturates without nan") {
  F y = fv(tl::sigmoid(tl::constant({0.f, 2.f, -2.f, -100.f, 100.f})));
  CHECK(y[0] == Approx(0.5f));
  CHECK(y[1] == Approx(0.880797088f).epsilon(1e-6));
  CHECK(y[2] == Approx(0.119202922f).epsilon(1e-6));
  CHECK(y[3] >= 0.f);
  CHECK(y[3] < 1e-30f);
  CHECK(y[4] == Approx(1.f));
  CHECK(y[4] <= 1.f);
  CHECK_THROWS_AS(tl::sigmoid(tl::constant({1})), tl::DTypeError);
}

TEST_CASE("ops/tanh") {
  check_close(tl::tanh(tl::constant({0.f, 1.f, -1.f, 20.f, -20.f})), F{0.f, 0.761594176f, -0.761594176f, 1.f, -1.f});
  CHECK_THROWS_AS(tl::tanh(tl::constant({1})), tl::DTypeError);
}

// ---------------------------------------------------------------- binary arithmetic

TEST_CASE("ops/add: broadcasts") {
  SUBCASE("(2,1) + (3,)") {
    auto y = tl::add(tl::constant({1.f, 2.f}, {2, 1}), tl::constant({10.f, 20.f, 30.f}));
    CHECK(y.shape() == tl::Shape{2, 3});
    CHECK(fv(y) == F{11, 21, 31, 12, 22, 32});
  }
  SUBCASE("(1,3) + (2,1)") {
    auto y = tl::constant({1.f, 2.f, 3.f}, {1, 3}) + tl::constant({10.f, 20.f}, {2, 1});
    CHECK(y.shape() == tl::Shape{2, 3});
    CHECK(fv(y) == F{11, 12, 13, 21, 22, 23});
  }
  SUBCASE("as many elements on both sides, shapes differing in size-1 dims: (1,1,3) + (3,), (3,1) - (1,3,1)") {
    auto y = tl::add(tl::constant({1.f, 2.f, 3.f}, {1, 1, 3}), tl::constant({10.f, 20.f, 30.f}));
    CHECK(y.shape() == tl::Shape{1, 1, 3});
    CHECK(fv(y) == F{11, 22, 33});
    auto z = tl::sub(tl::constant({1.f, 2.f, 3.f}, {3, 1}), tl::constant({10.f, 20.f, 30.f}, {1, 3, 1}));
    CHECK(z.shape() == tl::Shape{1, 3, 1});
    CHECK(fv(z) == F{-9, -18, -27});
    auto w = tl::sub(tl::constant({1.f, 2.f, 3.f}, {1, 3}), tl::constant({10.f, 20.f, 30.f}, {3, 1}));  // (3, 3)
    CHECK(w.shape() == tl::Shape{3, 3});
    CHECK(fv(w) == F{-9, -8, -7, -19, -18, -17, -29, -28, -27});
  }
  SUBCASE("rank 0 with rank 3, either side") {
    auto x = iota({2, 2, 2});
    auto y = tl::add(tl::scalar(100.f), x);
    CHECK(y.shape() == tl::Shape{2, 2, 2});
    CHECK(fv(y) == F{100, 101, 102, 103, 104, 105, 106, 107});
    CHECK(fv(tl::add(x, tl::scalar(100.f))) == F{100, 101, 102, 103, 104, 105, 106, 107});
    CHECK(fv(tl::add(tl::scalar(1.f), tl::scalar(2.f))) == F{3});
    CHECK(tl::add(tl::scalar(1.f), tl::scalar(2.f)).shape() == tl::Shape{});
  }
  SUBCASE("zero-size dims") {
    auto y = tl::add(tl::zeros({0, 3}), tl::ones({1, 3}));
    CHECK(y.shape() == tl::Shape{0, 3});
    CHECK(y.num_elements() == 0);
    CHECK(tl::add(tl::zeros({2, 0}), tl::scalar(1.f)).shape() == tl::Shape{2, 0});
    CHECK(tl::add(tl::zeros({0}), tl::zeros({0})).shape() == tl::Shape{0});
    CHECK(tl::add(tl::zeros({3, 0, 2}), tl::zeros({1, 1, 2})).shape() == tl::Shape{3, 0, 2});
  }
  SUBCASE("(2,3,4) + (2,1,4)") {
    auto b = tl::constant({100.f, 200.f, 300.f, 400.f, 500.f, 600.f, 700.f, 800.f}, {2, 1, 4});
    auto y = iota({2, 3, 4}) + b;
    CHECK(y.shape() == tl::Shape{2, 3, 4});
    F expected;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k) expected.push_back(static_cast<float>(12 * i + 4 * j + k + 100 * (4 * i + k + 1)));
    CHECK(fv(y) == expected);
    CHECK(fv(y)[5] == 205.f);   // [0,1,1] = 5 + 200
    CHECK(fv(y)[23] == 823.f);  // [1,2,3] = 23 + 800
  }
  SUBCASE("(3,1,1) + (1,4,5)") {
    auto y = iota({3, 1, 1}, 100) + iota({1, 4, 5});
    CHECK(y.shape() == tl::Shape{3, 4, 5});
    F expected;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 5; ++k) expected.push_back(static_cast<float>(100 * i + 5 * j + k));
    CHECK(fv(y) == expected);
  }
  SUBCASE("(2,1,3) + (4,1): carries over several outer dims") {
    auto y = iota({2, 1, 3}) + iota({4, 1}, 10);
    CHECK(y.shape() == tl::Shape{2, 4, 3});
    F expected;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 3; ++k) expected.push_back(static_cast<float>(3 * i + k + 10 * j));
    CHECK(fv(y) == expected);
  }
  SUBCASE("(2,1,3,1) + (1,2,1,2): alternating broadcast dims") {
    auto y = iota({2, 1, 3, 1}, 10) + iota({1, 2, 1, 2}, 1000);
    CHECK(y.shape() == tl::Shape{2, 2, 3, 2});
    F expected;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 2; ++l) expected.push_back(static_cast<float>(10 * (3 * i + k) + 1000 * (2 * j + l)));
    CHECK(fv(y) == expected);
  }
  SUBCASE("(1,) + (5,)") {
    CHECK(fv(tl::constant({10.f}) + iota({5})) == F{10, 11, 12, 13, 14});
    CHECK(fv(iota({5}) + tl::constant({10.f})) == F{10, 11, 12, 13, 14});
  }
  SUBCASE("(4,1) + (4,1) and (4,1) + (1,)") {
    CHECK(fv(iota({4, 1}) + iota({4, 1})) == F{0, 2, 4, 6});
    CHECK(fv(iota({4, 1}) + tl::constant({0.5f})) == F{0.5f, 1.5f, 2.5f, 3.5f});
    CHECK(fv(iota({4, 1, 1}) + iota({1, 1}, 3)) == F{0, 1, 2, 3});
    CHECK((iota({4, 1, 1}) + iota({1, 1})).shape() == tl::Shape{4, 1, 1});
  }
  SUBCASE("a long row against a (n,1) column") {
    auto y = iota({3, 1}, 1000) + iota({1, 100});
    F got = fv(y);
    REQUIRE(got.size() == 300);
    CHECK(got[0] == 0.f);
    CHECK(got[99] == 99.f);
    CHECK(got[100] == 1000.f);
    CHECK(got[299] == 2099.f);
  }
  SUBCASE("shapes that cannot broadcast name the op and both shapes") {
    CHECK_THROWS_WITH_AS(tl::add(tl::zeros({2, 3}), tl::zeros({4})),
                         Contains("add: shapes (2, 3) and (4,) cannot be broadcast"), tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::zeros({0, 3}) + tl::zeros({2, 3}), Contains("add: shapes (0, 3) and (2, 3)"),
                         tl::ShapeError);
  }
}

TEST_CASE("ops/add: broadcasting agrees with a naive index loop on every small shape pair") {
  // Output shapes (d0, d1, d2) with d in {0, 1, 2, 3}; each input keeps or sets to 1 each dim and may drop
  // leading dims. Expected values come from explicit index arithmetic, not from the op.
  int checked = 0, wrong = 0;
  auto input_shape = [](const std::int64_t* out, int mask, int drop) {
    std::vector<std::int64_t> dims;
    for (int i = drop; i < 3; ++i) dims.push_back(mask >> i & 1 ? 1 : out[i]);
    return tl::Shape(dims);
  };
  auto value_at = [](const tl::Shape& in, const F& data, const std::int64_t* index) {
    std::int64_t flat = 0;
    for (int i = 0; i < in.rank(); ++i) {
      auto d = in[static_cast<std::size_t>(i)];
      flat = flat * d + (d == 1 ? 0 : index[3 - in.rank() + i]);
    }
    return data[static_cast<std::size_t>(flat)];
  };
  for (int code = 0; code < 64; ++code) {
    const std::int64_t out[3] = {code % 4, code / 4 % 4, code / 16};
    for (int ma = 0; ma < 8; ++ma)
      for (int mb = 0; mb < 8; ++mb)
        for (int drop = 0; drop < 4; ++drop) {
          tl::Shape sa = input_shape(out, ma, drop), sb = input_shape(out, mb, (ma + mb + drop) % 2);
          tl::Shape so = tl::broadcast_shapes("add", sa, sb);
          F a = fv(iota(sa, 1)), b = fv(iota(sb, 100));
          F y = fv(tl::constant(a, sa) + tl::constant(b, sb));
          std::int64_t n = so.num_elements(), index[3] = {0, 0, 0};
          wrong += static_cast<std::int64_t>(y.size()) != n;
          for (std::int64_t f = 0; f < n && static_cast<std::int64_t>(y.size()) == n; ++f) {
            std::int64_t rest = f;
            for (int i = 2; i >= 0; --i) {
              std::int64_t d = i >= 3 - so.rank() ? so[static_cast<std::size_t>(i - (3 - so.rank()))] : 1;
              index[i] = rest % d;
              rest /= d;
            }
            wrong += y[static_cast<std::size_t>(f)] != value_at(sa, a, index) + value_at(sb, b, index);
          }
          ++checked;
        }
  }
  CHECK(checked == 64 * 8 * 8 * 4);
  CHECK(wrong == 0);
}

TEST_CASE("ops/add: int32 wraps around") {
  CHECK(iv(tl::constant({INT32_MAX}) + 1) == I{INT32_MIN});
  CHECK(iv(tl::constant({INT32_MAX, INT32_MIN, 5}) + tl::constant({INT32_MAX, INT32_MIN, -7})) == I{-2, 0, -2});
  CHECK(iv(tl::constant({1, 2}, {2, 1}) + tl::constant({10, 20, 30})) == I{11, 21, 31, 12, 22, 32});
}

TEST_CASE("ops/add: dtypes and weak scalars") {
  auto xf = tl::constant({1.f, 2.f});
  auto xi = tl::constant({1, 2});
  SUBCASE("float32 + int32 is a DTypeError") {
    CHECK_THROWS_WITH_AS(xf + xi, Contains("add: inputs must have the same dtype, got float32 and int32"),
                         tl::DTypeError);
    CHECK_THROWS_AS(tl::scalar(2) * xf, tl::DTypeError);  // tl::scalar is not weak
  }
  SUBCASE("bool is not arithmetic") {
    auto b = tl::constant({true, false}, {2});
    CHECK_THROWS_WITH_AS(b + b, Contains("add: input 0 must be float32 or int32, got bool"), tl::DTypeError);
    CHECK_THROWS_AS(xf + true, tl::DTypeError);
    CHECK_THROWS_AS(xi + true, tl::DTypeError);
  }
  SUBCASE("weak scalars adopt the tensor's dtype") {
    auto a = xf * 2;
    CHECK(a.dtype() == tl::float32);
    CHECK(fv(a) == F{2, 4});
    CHECK_FALSE(a.is_weak());
    auto b = xi + 2;
    CHECK(b.dtype() == tl::int32);
    CHECK(iv(b) == I{3, 4});
    CHECK(iv(xi * 3.0) == I{3, 6});  // an integral float keeps its value in int32
    CHECK(iv(tl::constant({0, 1}) + -2147483648.0) == I{INT32_MIN, INT32_MIN + 1});
    CHECK(fv(2 - xf) == F{1, 0});
    CHECK(fv(xf + 0.5) == F{1.5f, 2.5f});
  }
  SUBCASE("a fractional weak scalar cannot become int32") {
    CHECK_THROWS_WITH_AS(xi * 0.5, Contains("mul: the number 0.5 cannot be used with int32 tensors"), tl::DTypeError);
    CHECK_THROWS_AS(xi + NAN, tl::DTypeError);
    CHECK_THROWS_AS(xi + 3e9, tl::DTypeError);
  }
  SUBCASE("two weak scalars: the wider kind wins") {
    auto y = tl::add(1, 2.5);
    CHECK(y.dtype() == tl::float32);
    CHECK(y.shape() == tl::Shape{});
    CHECK(y.item<float>() == 3.5f);
    auto z = tl::add(1, 2);
    CHECK(z.dtype() == tl::int32);
    CHECK(z.item<std::int32_t>() == 3);
  }
}

TEST_CASE("ops/sub: broadcasting and int32 wrap") {
  CHECK(fv(tl::sub(tl::constant({5.f, 7.f}, {2, 1}), tl::constant({1.f, 2.f, 3.f}))) == F{4, 3, 2, 6, 5, 4});
  CHECK(fv(tl::constant({1.f, 2.f}) - 3) == F{-2, -1});
  CHECK(iv(tl::constant({INT32_MIN, 0}) - 1) == I{INT32_MAX, -1});
  CHECK(iv(1 - tl::constant({3, -4})) == I{-2, 5});
}

TEST_CASE("ops/mul: broadcasting and int32 wrap") {
  CHECK(fv(tl::mul(tl::constant({1.f, 2.f, 3.f}, {1, 3}), tl::constant({2.f, -1.f}, {2, 1}))) ==
        F{2, 4, 6, -1, -2, -3});
  CHECK(fv(tl::constant({1.5f, -2.f}) * tl::constant({2.f, 0.25f})) == F{3.f, -0.5f});
  CHECK(iv(tl::constant({65536, 65537, -3}) * tl::constant({65536, 65537, 4})) == I{0, 131073, -12});
  CHECK(iv(tl::constant({INT32_MIN}) * -1) == I{INT32_MIN});
}

TEST_CASE("ops/div: float32 only, IEEE division by zero") {
  check_close(tl::div(tl::constant({1.f, -3.f, 1.f, -1.f, 0.f}), tl::constant({4.f, 2.f, 0.f, 0.f, 0.f})),
              F{0.25f, -1.5f, kInf, -kInf, NAN});
  CHECK(fv(tl::constant({3.f, 6.f}, {2, 1}) / tl::constant({1.f, 3.f})) == F{3, 1, 6, 2});
  CHECK(fv(1 / tl::constant({4.f, 0.5f})) == F{0.25f, 2.f});
  CHECK(fv(tl::constant({3.f}) / 2) == F{1.5f});
  CHECK_THROWS_WITH_AS(tl::constant({4, 2}) / tl::constant({2, 1}), Contains("div: input 0 must be float32, got int32"),
                       tl::DTypeError);
  CHECK_THROWS_AS(tl::constant({4, 2}) / 2, tl::DTypeError);
}

TEST_CASE("ops/pow: float and int32") {
  check_close(tl::pow(tl::constant({2.f, 4.f, 9.f, 2.f, 0.f}), tl::constant({3.f, 0.5f, 0.5f, -1.f, 0.f})),
              F{8.f, 2.f, 3.f, 0.5f, 1.f});
  check_close(tl::pow(tl::constant({-8.f}), tl::constant({1.f / 3.f})), F{NAN});
  check_close(tl::pow(tl::constant({1.f, 2.f, 3.f}), 2), F{1.f, 4.f, 9.f});
  SUBCASE("int32") {
    CHECK(iv(tl::pow(tl::constant({2, 3, -2, 0, 7}), tl::constant({10, 3, 3, 0, 1}))) == I{1024, 27, -8, 1, 7});
    CHECK(iv(tl::pow(tl::constant({2, -2}), 31)) == I{INT32_MIN, INT32_MIN});  // wraps
    CHECK(iv(tl::pow(tl::constant({2}, {1, 1}), tl::constant({0, 1, 2}))) == I{1, 2, 4});
  }
  SUBCASE("int32 to a negative power is InvalidArgument") {
    CHECK_THROWS_WITH_AS(tl::pow(tl::constant({2, 3}), tl::constant({1, -1})),
                         Contains("pow: integers to negative integer powers are not allowed"), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::pow(tl::constant({1}), -2), tl::InvalidArgument);
  }
}

TEST_CASE("ops/maximum and ops/minimum") {
  auto a = tl::constant({1.f, 5.f, -2.f}, {3, 1});
  auto b = tl::constant({0.f, 3.f});
  CHECK(fv(tl::maximum(a, b)) == F{1, 3, 5, 5, 0, 3});
  CHECK(fv(tl::minimum(a, b)) == F{0, 1, 0, 3, -2, -2});
  CHECK(iv(tl::maximum(tl::constant({INT32_MIN, 4, 9}), 5)) == I{5, 5, 9});
  CHECK(iv(tl::minimum(tl::constant({INT32_MIN, 4, 9}), 5)) == I{INT32_MIN, 4, 5});
  SUBCASE("nan propagates on both sides") {
    F mx = fv(tl::maximum(tl::constant({NAN, 1.f, NAN}), tl::constant({0.f, NAN, NAN})));
    F mn = fv(tl::minimum(tl::constant({NAN, 1.f}), tl::constant({0.f, NAN})));
    for (float v : mx) CHECK(std::isnan(v));
    for (float v : mn) CHECK(std::isnan(v));
  }
  CHECK_THROWS_AS(tl::maximum(tl::constant({1.f}), tl::constant({1})), tl::DTypeError);
  CHECK_THROWS_WITH_AS(tl::minimum(tl::zeros({2}), tl::zeros({3})), Contains("minimum: shapes (2,) and (3,)"),
                       tl::ShapeError);
}

// ---------------------------------------------------------------- comparisons

TEST_CASE("ops/equal: float, int32, bool") {
  auto y = tl::equal(tl::constant({1.f, 2.f, 3.f}), tl::constant({1.f, 0.f, 3.f}));
  CHECK(y.dtype() == tl::bool_);
  CHECK(bv(y) == B{true, false, true});
  CHECK(bv(tl::equal(tl::constant({1, 2}, {2, 1}), tl::constant({1, 2, 3}))) ==
        B{true, false, false, false, true, false});
  CHECK(bv(tl::equal(tl::constant({true, false}, {2}), true)) == B{true, false});
  CHECK(bv(tl::equal(tl::constant({2.f, 2.5f}), 2)) == B{true, false});
  CHECK_FALSE(tl::equal(tl::constant({NAN}), tl::constant({NAN})).item<bool>());
  CHECK_THROWS_AS(tl::equal(tl::constant({1.f}), tl::constant({1})), tl::DTypeError);
}

TEST_CASE("ops/less and ops/greater") {
  auto a = tl::constant({1.f, 2.f, 3.f});
  CHECK(bv(tl::less(a, 2)) == B{true, false, false});
  CHECK(bv(tl::greater(a, 2)) == B{false, false, true});
  CHECK(bv(tl::greater(tl::constant({0.f, 5.f}, {2, 1}), tl::constant({1.f, 4.f}))) == B{false, false, true, true});
  CHECK(bv(tl::less(tl::constant({INT32_MIN, 0}), tl::constant({0, INT32_MIN}))) == B{true, false});
  CHECK(bv(tl::less(tl::constant({NAN}), 1.f)) == B{false});
  CHECK(tl::less(tl::zeros({0, 2}), tl::zeros({2})).shape() == tl::Shape{0, 2});
  CHECK_THROWS_WITH_AS(tl::less(tl::constant({true}, {1}), tl::constant({false}, {1})),
                       Contains("less: input 0 must be float32 or int32, got bool"), tl::DTypeError);
  CHECK_THROWS_AS(tl::greater(tl::constant({true}, {1}), true), tl::DTypeError);
  CHECK_THROWS_AS(tl::greater(tl::constant({1}), 0.5), tl::DTypeError);
}

// ---------------------------------------------------------------- selection

TEST_CASE("ops/where: broadcasting selection") {
  auto cond = tl::constant({true, false}, {2, 1});
  auto x = tl::constant({1.f, 2.f, 3.f}, {1, 3});
  auto y = tl::where(cond, x, 0);
  CHECK(y.dtype() == tl::float32);
  CHECK(y.shape() == tl::Shape{2, 3});
  CHECK(fv(y) == F{1, 2, 3, 0, 0, 0});
  CHECK(fv(tl::where(tl::constant({true, false, true}, {3}), tl::constant({1.f, 2.f, 3.f}),
                     tl::constant({-1.f, -2.f, -3.f}))) == F{1, -2, 3});
  CHECK(iv(tl::where(tl::constant({false, true}, {2}), tl::constant({1, 2}), tl::constant({10, 20}))) == I{10, 2});
  CHECK(bv(tl::where(tl::scalar(true), tl::constant({false, false}, {2}), true)) == B{false, false});
  CHECK(fv(tl::where(true, 1.5, 2.5)) == F{1.5f});
  CHECK(tl::where(tl::zeros({0, 2}, tl::bool_), 1.f, 2.f).shape() == tl::Shape{0, 2});
  SUBCASE("errors") {
    CHECK_THROWS_WITH_AS(tl::where(tl::constant({1.f}), x, x), Contains("where: condition must be bool, got f32[1]"),
                         tl::DTypeError);
    CHECK_THROWS_AS(tl::where(cond, x, tl::constant({1, 2, 3})), tl::DTypeError);
    CHECK_THROWS_AS(tl::where(cond, tl::constant({1, 2, 3}), 0.5), tl::DTypeError);
    CHECK_THROWS_WITH_AS(tl::where(tl::constant({true, false, true}, {3}), x, tl::zeros({2})),
                         Contains("where: shapes"), tl::ShapeError);
  }
}

TEST_CASE("ops/clip_by_value: scalar and tensor bounds") {
  CHECK(fv(tl::clip_by_value(tl::constant({-2.f, 0.5f, 3.f}), 0, 1)) == F{0.f, 0.5f, 1.f});
  CHECK(iv(tl::clip_by_value(tl::constant({-5, 3, 12}), 0, 10)) == I{0, 3, 10});
  auto x = tl::constant({-3.f, 0.f, 3.f, -3.f, 0.f, 3.f}, {2, 3});
  auto lo = tl::constant({-1.f, 1.f, -2.f});
  auto hi = tl::constant({2.f, 0.f}, {2, 1});
  CHECK(fv(tl::clip_by_value(x, lo, hi)) == F{-1.f, 1.f, 2.f, -1.f, 0.f, 0.f});
  CHECK(tl::clip_by_value(x, lo, hi).shape() == tl::Shape{2, 3});
  CHECK(std::isnan(fv(tl::clip_by_value(tl::constant({NAN}), 0, 1))[0]));
  CHECK(tl::clip_by_value(tl::zeros({0, 3}), 0, 1).shape() == tl::Shape{0, 3});
  SUBCASE("errors") {
    CHECK_THROWS_WITH_AS(tl::clip_by_value(tl::zeros({3}), tl::zeros({2, 3}), 1),
                         Contains("clip_by_value: bound lo (2, 3) must broadcast to the shape of x (3,)"),
                         tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::clip_by_value(tl::zeros({3}), 0, tl::zeros({2})), Contains("clip_by_value: shapes"),
                         tl::ShapeError);
    CHECK_THROWS_AS(tl::clip_by_value(tl::constant({1, 2}), 0.5, 2), tl::DTypeError);
    CHECK_THROWS_AS(tl::clip_by_value(tl::constant({1.f}), tl::constant({0}), 1), tl::DTypeError);
    CHECK_THROWS_AS(tl::clip_by_value(tl::constant({true}, {1}), false, true), tl::DTypeError);
  }
}

TEST_CASE("ops/math: operators") {
  auto a = tl::constant({1.f, 2.f});
  auto b = tl::constant({4.f, 8.f});
  CHECK(fv(a + b) == F{5, 10});
  CHECK(fv(a - b) == F{-3, -6});
  CHECK(fv(a * b) == F{4, 16});
  CHECK(fv(a / b) == F{0.25f, 0.25f});
  CHECK(fv(-a) == F{-1, -2});
  CHECK(fv(-(a * 2 + 1)) == F{-3, -5});
  CHECK(fv(3 * a) == F{3, 6});
}

// ---------------------------------------------------------------- shape rules with unknown dims

// ---------------------------------------------------------------- TF's math module: unary, binary, predicates

TEST_CASE("ops/sin, cos, tan and their inverses: values, domains, edges") {
  const float pi = 3.14159265f;
  check_close(tl::sin(tl::constant({0.f, pi / 2, -pi / 6, kInf})), F{0.f, 1.f, -0.5f, NAN});
  check_close(tl::cos(tl::constant({0.f, pi, pi / 3})), F{1.f, -1.f, 0.5f});
  check_close(tl::tan(tl::constant({0.f, pi / 4, -pi / 4})), F{0.f, 1.f, -1.f});
  check_close(tl::asin(tl::constant({0.f, 1.f, -0.5f, 1.5f})), F{0.f, pi / 2, -pi / 6, NAN});
  check_close(tl::acos(tl::constant({1.f, 0.f, -1.f, -2.f})), F{0.f, pi / 2, pi, NAN});
  check_close(tl::atan(tl::constant({0.f, 1.f, kInf, -kInf})), F{0.f, pi / 4, pi / 2, -pi / 2});
  CHECK_THROWS_WITH_AS(tl::sin(tl::constant({1, 2})), Contains("sin: input 0 must be float32, got int32"),
                       tl::DTypeError);
}

TEST_CASE("ops/sinh, cosh, asinh, acosh, atanh: values and edges") {
  check_close(tl::sinh(tl::constant({0.f, 1.f, -kInf})), F{0.f, 1.17520119f, -kInf});
  check_close(tl::cosh(tl::constant({0.f, 1.f, -kInf})), F{1.f, 1.54308063f, kInf});
  check_close(tl::asinh(tl::constant({0.f, 1.17520119f, -kInf})), F{0.f, 1.f, -kInf});
  check_close(tl::acosh(tl::constant({1.f, 1.54308063f, 0.5f, kInf})), F{0.f, 1.f, NAN, kInf});
  check_close(tl::atanh(tl::constant({0.f, 0.5f, 1.f, -1.f, 2.f})), F{0.f, 0.549306144f, kInf, -kInf, NAN});
}

TEST_CASE("ops/erf, expm1, log1p: exact near 0") {
  check_close(tl::erf(tl::constant({0.f, 0.5f, -1.f, 3.f, kInf, -kInf})),
              F{0.f, 0.520499878f, -0.842700793f, 0.999977910f, 1.f, -1.f});
  check_close(tl::expm1(tl::constant({1e-7f, 0.f, 1.f, -kInf})), F{1.00000005e-7f, 0.f, 1.71828183f, -1.f});
  check_close(tl::log1p(tl::constant({1e-7f, 0.f, -1.f, -2.f, kInf})), F{9.99999950e-8f, 0.f, -kInf, NAN, kInf});
}

TEST_CASE("ops/reciprocal, rsqrt: signed zeros and infinities") {
  check_close(tl::reciprocal(tl::constant({4.f, -0.5f, 0.f, -0.f, kInf})), F{0.25f, -2.f, kInf, -kInf, 0.f});
  check_close(tl::rsqrt(tl::constant({4.f, 0.25f, 0.f, -0.f, -1.f, kInf})), F{0.5f, 2.f, kInf, -kInf, NAN, 0.f});
}

TEST_CASE("ops/softplus: no overflow, exact tails") {
  check_close(tl::softplus(tl::constant({0.f, 1.f, -1.f, 100.f, -100.f, kInf, -kInf, NAN})),
              F{0.693147181f, 1.31326169f, 0.313261687f, 100.f, 3.72007598e-44f, kInf, 0.f, NAN});
}

TEST_CASE("ops/floor, ceil, round, sign: float32 and int32, edges") {
  const auto x = tl::constant({2.5f, -2.5f, 1.5f, -0.5f, 0.49999997f, 3.7f, -kInf, NAN});
  check_close(tl::floor(x), F{2.f, -3.f, 1.f, -1.f, 0.f, 3.f, -kInf, NAN});
  check_close(tl::ceil(x), F{3.f, -2.f, 2.f, -0.f, 1.f, 4.f, -kInf, NAN});
  check_close(tl::round(x), F{2.f, -2.f, 2.f, -0.f, 0.f, 4.f, -kInf, NAN});  // half to even
  check_close(tl::round(tl::constant({16777215.f, 8388609.f, 0.5f})), F{16777215.f, 8388609.f, 0.f});
  check_close(tl::sign(tl::constant({3.f, -0.1f, 0.f, -0.f, kInf, NAN})), F{1.f, -1.f, 0.f, 0.f, 1.f, NAN});
  CHECK(iv(tl::sign(tl::constant({-7, 0, 5, INT32_MIN}))) == I{-1, 0, 1, -1});
  CHECK(iv(tl::round(tl::constant({-7, 0, 5}))) == I{-7, 0, 5});
  CHECK_THROWS_AS(tl::floor(tl::constant({1})), tl::DTypeError);
  tl::GradientTape tape;
  auto v = tl::constant({0.3f, -1.7f});
  tape.watch(v);
  auto y = tl::floor(v) + tl::ceil(v) + tl::round(v) + tl::sign(v);
  CHECK(fv(tape.gradient(y, v)) == F{0.f, 0.f});
}

TEST_CASE("ops/is_nan, is_inf, is_finite: bool results, int32 accepted") {
  const auto x = tl::constant({1.f, NAN, kInf, -kInf, 0.f}, {5});
  CHECK(bv(tl::is_nan(x)) == B{false, true, false, false, false});
  CHECK(bv(tl::is_inf(x)) == B{false, false, true, true, false});
  CHECK(bv(tl::is_finite(x)) == B{true, false, false, false, true});
  CHECK(tl::is_nan(x).dtype() == tl::bool_);
  CHECK(bv(tl::is_finite(tl::constant({INT32_MIN, 0}))) == B{true, true});
  CHECK(bv(tl::is_inf(tl::constant({INT32_MAX}))) == B{false});
  CHECK_THROWS_AS(tl::is_nan(tl::scalar(true)), tl::DTypeError);
}

TEST_CASE("ops/atan2: quadrants, zeros, infinities, broadcasting") {
  const float pi = 3.14159265f;
  check_close(tl::atan2(tl::constant({1.f, 1.f, -1.f, -1.f, 0.f, 0.f, kInf}), tl::constant({1.f, -1.f, -1.f, 1.f, -1.f, 0.f, kInf})),
              F{pi / 4, 3 * pi / 4, -3 * pi / 4, -pi / 4, pi, 0.f, pi / 4});
  CHECK(tl::atan2(tl::constant({1.f, 2.f}, {2, 1}), tl::constant({1.f, 2.f, 3.f})).shape() == tl::Shape{2, 3});
}

TEST_CASE("ops/mod and ops/floor_div: the sign of the divisor, int32 edges") {
  const auto x = tl::constant({7.f, -7.f, 7.f, -7.f, 5.5f, 5.f, kInf, 1.f});
  const auto y = tl::constant({3.f, 3.f, -3.f, -3.f, 2.f, 0.f, 2.f, kInf});
  check_close(tl::mod(x, y), F{1.f, 2.f, -2.f, -1.f, 1.5f, NAN, NAN, 1.f});
  check_close(tl::floor_div(x, y), F{2.f, -3.f, -3.f, 2.f, 2.f, kInf, kInf, 0.f});
  const auto xi = tl::constant({7, -7, 7, -7, 6, INT32_MIN, INT32_MIN});
  const auto yi = tl::constant({3, 3, -3, -3, -3, -1, 2});
  CHECK(iv(tl::mod(xi, yi)) == I{1, 2, -2, -1, 0, 0, 0});
  CHECK(iv(tl::floor_div(xi, yi)) == I{2, -3, -3, 2, -2, INT32_MIN, -1073741824});  // INT32_MIN / -1 wraps
  CHECK_THROWS_WITH_AS(tl::floor_div(tl::constant({4, 5}), tl::constant({1, 0})),
                       Contains("floor_div: integer division by zero (5 / 0)"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::mod(tl::constant({4}), tl::constant({0})), Contains("mod: integer division by zero"),
                       tl::InvalidArgument);
  CHECK(tl::OpRegistry::global().get("floor_div").has(tl::trait::not_differentiable));
}

TEST_CASE("ops/squared_difference and ops/div_no_nan") {
  check_close(tl::squared_difference(tl::constant({1.f, -2.f, kInf}), tl::constant({3.f, 1.f, 0.f})), F{4.f, 9.f, kInf});
  CHECK(iv(tl::squared_difference(tl::constant({1, -2}, {2, 1}), tl::constant({3, 1}))) == I{4, 0, 25, 9});
  check_close(tl::div_no_nan(tl::constant({1.f, 0.f, NAN, kInf, 1.f, 3.f}), tl::constant({0.f, 0.f, 0.f, -0.f, NAN, 2.f})),
              F{0.f, 0.f, 0.f, 0.f, NAN, 1.5f});
  CHECK_THROWS_AS(tl::div_no_nan(tl::constant({1}), tl::constant({2})), tl::DTypeError);
  tl::GradientTape tape;
  auto a = tl::constant({2.f, 3.f}), b = tl::constant({0.f, 2.f});
  tape.watch(a);
  tape.watch(b);
  auto grads = tape.gradient(tl::div_no_nan(a, b), {a, b});
  CHECK(fv(grads[0]) == F{0.f, 0.5f});   // 0 where b == 0, else 1 / b
  CHECK(fv(grads[1]) == F{0.f, -0.75f});  // 0 where b == 0, else -a / b^2
}

TEST_CASE("ops/math: shape rules with unknown dims") {
  using M = tl::TensorMeta;
  const auto f32 = tl::float32;
  const auto i32 = tl::int32;
  CHECK(infer("neg", {M{f32, {-1, 3}}}) == M{f32, {-1, 3}});
  CHECK(infer("exp", {M{f32, {-1}}}) == M{f32, {-1}});
  CHECK(infer("add", {M{f32, {-1, 3}}, M{f32, {3}}}) == M{f32, {-1, 3}});
  CHECK(infer("add", {M{f32, {-1, 1}}, M{f32, {1, 4}}}) == M{f32, {-1, 4}});
  CHECK(infer("mul", {M{i32, {-1}}, M{i32, {}}}) == M{i32, {-1}});
  CHECK(infer("sub", {M{f32, {-1, -1}}, M{f32, {5, 1}}}) == M{f32, {5, -1}});
  CHECK(infer("less", {M{f32, {-1, 3}}, M{f32, {2, 1}}}) == M{tl::bool_, {2, 3}});
  CHECK(infer("equal", {M{tl::bool_, {-1}}, M{tl::bool_, {-1}}}) == M{tl::bool_, {-1}});
  CHECK(infer("where", {M{tl::bool_, {-1, 1}}, M{i32, {3}}, M{i32, {}}}) == M{i32, {-1, 3}});
  CHECK(infer("clip_by_value", {M{f32, {-1, 3}}, M{f32, {}}, M{f32, {3}}}) == M{f32, {-1, 3}});
  CHECK_THROWS_AS(infer("add", {M{f32, {-1, 2}}, M{f32, {3}}}), tl::ShapeError);
  CHECK_THROWS_WITH_AS(infer("add", {M{f32, {-1}}, M{i32, {-1}}}),
                       Contains("add: inputs must have the same dtype, got float32 and int32"), tl::DTypeError);
  CHECK_THROWS_AS(infer("where", {M{tl::bool_, {-1}}, M{f32, {-1}}, M{i32, {-1}}}), tl::DTypeError);
  CHECK_THROWS_AS(infer("clip_by_value", {M{f32, {-1}}, M{f32, {2, 3}}, M{f32, {}}}), tl::ShapeError);
  CHECK_THROWS_AS(infer("div", {M{i32, {-1}}, M{i32, {-1}}}), tl::DTypeError);
  CHECK(infer("is_nan", {M{f32, {-1, 3}}}) == M{tl::bool_, {-1, 3}});
  CHECK(infer("mod", {M{i32, {-1, 1}}, M{i32, {4}}}) == M{i32, {-1, 4}});
  CHECK(infer("atan2", {M{f32, {-1}}, M{f32, {}}}) == M{f32, {-1}});
}

TEST_CASE("ops/math: registry entries") {
  const auto& reg = tl::OpRegistry::global();
  for (const char* name : {"neg", "abs", "exp", "log", "sqrt", "square", "relu", "sigmoid", "tanh"}) {
    CAPTURE(name);
    CHECK(reg.get(name).num_inputs() == 1);
    CHECK(reg.get(name).has(tl::trait::elementwise));
    CHECK_FALSE(reg.get(name).doc().empty());
  }
  for (const char* name : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "equal", "less", "greater"}) {
    CAPTURE(name);
    CHECK(reg.get(name).num_inputs() == 2);
    CHECK(reg.get(name).has(tl::trait::elementwise));
  }
  CHECK(reg.get("add").has(tl::trait::commutative));
  CHECK(reg.get("mul").has(tl::trait::commutative));
  CHECK_FALSE(reg.get("sub").has(tl::trait::commutative));
  CHECK(reg.get("less").has(tl::trait::not_differentiable));
  CHECK(reg.get("where").num_inputs() == 3);
  CHECK(reg.get("clip_by_value").num_inputs() == 3);
}

}  // namespace ops_math_test
