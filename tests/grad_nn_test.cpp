// nn-family gradients against hand-computed values (the numeric checker in gradient_test.cpp runs every sample
// too): softmax / log_softmax, conv2d (VALID and SAME, strides), max pooling (overlap, ties, NaN, padding, second
// order) and avg pooling (edge windows with fewer cells); plus the backprop ops' own values, shapes, errors and
// the adjoint identity <conv2d(x, f), dy> == <x, conv2d_backprop_input(dy)> == <f, conv2d_backprop_filter(x, dy)>.
#include <doctest/doctest.h>

#include "test_util.h"

#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace grad_nn_test {

namespace {
using tl::testing::infer;
using tl::testing::f32;
using tl::testing::grads_of;
using tl::testing::grad_of;

using F = std::vector<float>;
using tl::Ints;
using tl::Shape;

const float ln2 = 0.69314718f;
const float not_a_number = std::numeric_limits<float>::quiet_NaN();

void check_values(const tl::Tensor& t, const Shape& shape, const F& expected) {
  REQUIRE(t.defined());
  CHECK(t.dtype() == tl::float32);
  REQUIRE(t.shape() == shape);
  F got = t.to_vector<float>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(1e-5));
  }
}





/// A 2-D matrix as a 1 x h x w x 1 NHWC image.
tl::Tensor image(const F& values, std::int64_t h, std::int64_t w) { return tl::constant(values, {1, h, w, 1}); }

/// [[1 2 3] [4 5 6] [7 8 9]] as 1x3x3x1, and the 2x2 filter [[1 2] [3 4]] as HWIO 2x2x1x1.
tl::Tensor image3x3() { return image({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3); }
tl::Tensor filter2x2() { return tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2, 1, 1}); }

double dot(const tl::Tensor& a, const tl::Tensor& b) {
  F x = a.to_vector<float>(), y = b.to_vector<float>();
  REQUIRE(x.size() == y.size());
  double total = 0;
  for (std::size_t i = 0; i < x.size(); ++i) total += static_cast<double>(x[i]) * y[i];
  return total;
}

}  // namespace

// ---- softmax / log_softmax ----

TEST_CASE("grad/softmax: y * (g - sum(g * y)) along the axis") {
  SUBCASE("[0, ln 2] -> y = [1/3, 2/3]; upstream [1, 0] gives [2/9, -2/9]") {
    auto dx = grad_of([](const tl::Tensor& x) { return tl::softmax(x); }, tl::constant({0.f, ln2}),
                      tl::constant({1.f, 0.f}));
    check_values(dx, {2}, {2.f / 9, -2.f / 9});
  }
  SUBCASE("a constant upstream gives exactly nothing (softmax sums to 1)") {
    auto dx = grad_of([](const tl::Tensor& x) { return tl::softmax(x); }, tl::constant({0.5f, -1.f, 2.f}),
                      tl::constant({3.f, 3.f, 3.f}));
    for (float v : dx.to_vector<float>()) CHECK(v == doctest::Approx(0.f));
  }
  SUBCASE("axis 0 and axis -2 of a matrix: the columns are independent") {
    // column 0: [0, ln 2] with upstream [1, 0]; column 1: [0, 0] with upstream [0, 1]: y = [1/2, 1/2], dx = [-1/4, 1/4]
    auto x = tl::constant({0.f, 0.f, ln2, 0.f}, {2, 2});
    auto u = tl::constant({1.f, 0.f, 0.f, 1.f}, {2, 2});
    for (std::int64_t axis : {0, -2}) {
      CAPTURE(axis);
      auto dx = grad_of([axis](const tl::Tensor& t) { return tl::softmax(t, axis); }, x, u);
      check_values(dx, {2, 2}, {2.f / 9, -0.25f, -2.f / 9, 0.25f});
    }
  }
  SUBCASE("zero-size dims keep their shape") {
    for (Shape shape : {Shape{0, 3}, Shape{2, 0}}) {
      auto x = tl::zeros(shape);
      auto dx = grad_of([](const tl::Tensor& t) { return tl::softmax(t); }, x, tl::zeros(shape));
      CHECK(dx.shape() == shape);
    }
  }
}

TEST_CASE("grad/log_softmax: g - exp(y) * sum(g) along the axis") {
  auto x = tl::constant({0.f, ln2});
  auto f = [](const tl::Tensor& t) { return tl::log_softmax(t); };
  check_values(grad_of(f, x, tl::constant({1.f, 0.f})), {2}, {2.f / 3, -2.f / 3});
  check_values(grad_of(f, x, tl::constant({1.f, 1.f})), {2}, {1.f / 3, -1.f / 3});
  SUBCASE("axis 1 of a rank-3 tensor") {  // [0, ln 2] along the middle axis, upstream [1, 0]
    auto x3 = tl::constant({0.f, ln2}, {1, 2, 1});
    auto dx = grad_of([](const tl::Tensor& t) { return tl::log_softmax(t, 1); }, x3, tl::constant({1.f, 0.f}, {1, 2, 1}));
    check_values(dx, {1, 2, 1}, {2.f / 3, -2.f / 3});
  }
}

// ---- conv2d ----

TEST_CASE("grad/conv2d: 3x3 image, 2x2 filter, VALID stride 1") {
  auto conv = [](const std::vector<tl::Tensor>& s) { return tl::conv2d(s[0], s[1]); };
  SUBCASE("upstream ones: dx counts each filter tap, df sums each 2x2 block of x") {
    auto d = grads_of(conv, {image3x3(), filter2x2()}, tl::ones({1, 2, 2, 1}));
    check_values(d[0], {1, 3, 3, 1}, {1, 3, 2, 4, 10, 6, 3, 7, 4});
    check_values(d[1], {2, 2, 1, 1}, {12, 16, 24, 28});
  }
  SUBCASE("upstream [[1 0] [0 2]]: f pasted at (0,0) plus 2f at (1,1); df = x[0:2,0:2] + 2 x[1:3,1:3]") {
    auto d = grads_of(conv, {image3x3(), filter2x2()}, image({1, 0, 0, 2}, 2, 2));
    check_values(d[0], {1, 3, 3, 1}, {1, 2, 0, 3, 6, 4, 0, 6, 8});
    check_values(d[1], {2, 2, 1, 1}, {11, 14, 20, 23});
  }
}

TEST_CASE("grad/conv2d: 3x3 image, 2x2 filter, SAME stride 2 (one padding row and column after)") {
  auto conv = [](const std::vector<tl::Tensor>& s) { return tl::conv2d(s[0], s[1], {2, 2}, "SAME"); };
  SUBCASE("upstream ones: each cell is in one window") {
    auto d = grads_of(conv, {image3x3(), filter2x2()}, tl::ones({1, 2, 2, 1}));
    check_values(d[0], {1, 3, 3, 1}, {1, 2, 1, 3, 4, 3, 1, 2, 1});
    check_values(d[1], {2, 2, 1, 1}, {1 + 3 + 7 + 9, 2 + 8, 4 + 6, 5});
  }
  SUBCASE("upstream [[1 2] [3 4]]") {
    auto d = grads_of(conv, {image3x3(), filter2x2()}, image({1, 2, 3, 4}, 2, 2));
    check_values(d[0], {1, 3, 3, 1}, {1, 2, 2, 3, 4, 6, 3, 6, 4});
    check_values(d[1], {2, 2, 1, 1}, {1 * 1 + 2 * 3 + 3 * 7 + 4 * 9, 1 * 2 + 3 * 8, 1 * 4 + 2 * 6, 1 * 5});
  }
}

TEST_CASE("grad/conv2d: the backprop ops are conv2d's adjoints (multi-channel, batches, strides, padding)") {
  struct Case {
    Shape x, f;
    Ints strides;
    const char* padding;
  };
  tl::Generator gen(3);
  for (const Case& c : {Case{{2, 5, 7, 3}, {3, 2, 3, 4}, {2, 2}, "SAME"}, Case{{1, 6, 5, 2}, {2, 3, 2, 3}, {2, 1}, "VALID"},
                        Case{{3, 4, 4, 2}, {1, 1, 2, 5}, {1, 1}, "SAME"}, Case{{1, 3, 3, 1}, {5, 5, 1, 2}, {1, 1}, "SAME"},
                        Case{{2, 7, 7, 2}, {3, 3, 2, 2}, {3, 3}, "SAME"}}) {
    CAPTURE(c.x.str());
    CAPTURE(c.padding);
    auto x = gen.uniform(c.x, -1, 1), f = gen.uniform(c.f, -1, 1);
    auto y = tl::conv2d(x, f, c.strides, c.padding);
    auto dy = gen.uniform(y.shape(), -1, 1);
    auto dx = tl::conv2d_backprop_input(c.x.dims(), f, dy, c.strides, c.padding);
    auto df = tl::conv2d_backprop_filter(x, c.f.dims(), dy, c.strides, c.padding);
    CHECK(dx.shape() == c.x);
    CHECK(df.shape() == c.f);
    double reference = dot(y, dy);
    CHECK(dot(x, dx) == doctest::Approx(reference).epsilon(1e-4));
    CHECK(dot(f, df) == doctest::Approx(reference).epsilon(1e-4));
  }
}

TEST_CASE("grad/conv2d: zero-size dims and second order") {
  SUBCASE("an empty batch or no output channels: gradients of the right shape, zeros") {
    auto d = grads_of([](const std::vector<tl::Tensor>& s) { return tl::conv2d(s[0], s[1], {1, 1}, "SAME"); },
                      {tl::zeros({0, 3, 3, 1}), filter2x2()}, tl::zeros({0, 3, 3, 1}));
    CHECK(d[0].shape() == Shape{0, 3, 3, 1});
    check_values(d[1], {2, 2, 1, 1}, {0, 0, 0, 0});
    auto dx = tl::conv2d_backprop_input({1, 3, 3, 1}, tl::zeros({2, 2, 1, 0}), tl::zeros({1, 2, 2, 0}));
    check_values(dx, {1, 3, 3, 1}, F(9, 0.f));
  }
  SUBCASE("a window larger than a VALID image: no output cell, zero gradients") {
    check_values(tl::conv2d_backprop_input({1, 1, 1, 1}, filter2x2(), tl::zeros({1, 0, 0, 1})), {1, 1, 1, 1}, {0});
    check_values(tl::conv2d_backprop_filter(image({5}, 1, 1), {2, 2, 1, 1}, tl::zeros({1, 0, 0, 1})), {2, 2, 1, 1},
                 {0, 0, 0, 0});
  }
  SUBCASE("d/df sum(d/dx sum(conv2d(x, f))) = 4: each tap meets 4 windows (VALID 3x3, 2x2)") {
    auto x = image3x3(), f = filter2x2();
    tl::GradientTape outer;
    outer.watch(f);
    tl::Tensor dx;
    {
      tl::GradientTape inner;
      inner.watch(x);
      dx = inner.gradient(tl::reduce_sum(tl::conv2d(x, f)), x);
    }
    check_values(outer.gradient(tl::reduce_sum(dx), f), {2, 2, 1, 1}, {4, 4, 4, 4});
  }
}

TEST_CASE("grad/conv2d_backprop_input and _filter: shapes, -1 sizes and errors") {
  SUBCASE("batch and channels of input_sizes may be -1") {
    auto dx = tl::conv2d_backprop_input({-1, 3, 3, -1}, filter2x2(), tl::ones({2, 2, 2, 1}));
    CHECK(dx.shape() == Shape{2, 3, 3, 1});
    CHECK(infer("conv2d_backprop_input", {f32({2, 2, 1, 4}), f32({-1, 2, 2, 4})}, {{"input_sizes", Ints{-1, 3, 3, 1}}})
              .shape == Shape{-1, 3, 3, 1});
    CHECK(infer("conv2d_backprop_filter", {f32({-1, 5, 5, 2}), f32({-1, 3, 3, -1})},
                {{"filter_sizes", Ints{2, 2, 2, 3}}, {"strides", Ints{2, 2}}, {"padding", std::string("SAME")}})
              .shape == Shape{2, 2, 2, 3});
  }
  SUBCASE("a mismatched out_backprop is a ShapeError naming both shapes") {
    CHECK_THROWS_WITH_AS(tl::conv2d_backprop_input({1, 3, 3, 1}, filter2x2(), tl::ones({1, 3, 3, 1})),
                         doctest::Contains("conv2d_backprop_input: out_backprop must have shape (1, 2, 2, 1) (the output "
                                           "of conv2d of (1, 3, 3, 1) with filters (2, 2, 1, 1), strides [1, 1], VALID), "
                                           "got f32[1,3,3,1]"),
                         tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::conv2d_backprop_filter(image3x3(), {2, 2, 1, 1}, tl::ones({1, 3, 3, 1}), {2, 2}, "SAME"),
                         doctest::Contains("conv2d_backprop_filter: out_backprop must have shape (1, 2, 2, 1)"),
                         tl::ShapeError);
    CHECK_THROWS_AS(tl::conv2d_backprop_filter(image3x3(), {2, 2, 1, 3}, tl::ones({1, 2, 2, 1})), tl::ShapeError);
  }
  SUBCASE("channels that disagree with the filters") {
    CHECK_THROWS_WITH_AS(tl::conv2d_backprop_input({1, 3, 3, 2}, filter2x2(), tl::ones({1, 2, 2, 1})),
                         doctest::Contains("conv2d_backprop_input: input channels must equal the filters'"),
                         tl::ShapeError);
    CHECK_THROWS_AS(tl::conv2d_backprop_filter(image3x3(), {2, 2, 2, 1}, tl::ones({1, 2, 2, 1})), tl::ShapeError);
  }
  SUBCASE("bad sizes, dtypes, ranks, windows and attributes") {
    CHECK_THROWS_WITH_AS(tl::conv2d_backprop_input({3, 3, 1}, filter2x2(), tl::ones({1, 2, 2, 1})),
                         doctest::Contains("conv2d_backprop_input: input_sizes must be 4 ints"), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::conv2d_backprop_input({1, -1, 3, 1}, filter2x2(), tl::ones({1, 2, 2, 1})), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::conv2d_backprop_filter(image3x3(), {2, 2, 1, -1}, tl::ones({1, 2, 2, 1})),
                         doctest::Contains("conv2d_backprop_filter: filter_sizes must be 4 non-negative ints"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::conv2d_backprop_filter(image3x3(), {0, 2, 1, 1}, tl::ones({1, 4, 2, 1})),
                         doctest::Contains("the filter window must not be empty"), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::conv2d_backprop_input({1, 3, 3, 1}, filter2x2(), tl::ones({1, 2, 2, 1}, tl::int32)),
                    tl::DTypeError);
    CHECK_THROWS_AS(tl::conv2d_backprop_input({1, 3, 3, 1}, filter2x2(), tl::ones({2, 2, 1})), tl::ShapeError);
    CHECK_THROWS_AS(tl::conv2d_backprop_input({1, 3, 3, 1}, filter2x2(), tl::ones({1, 2, 2, 1}), {0, 1}),
                    tl::InvalidArgument);
    CHECK_THROWS_AS(tl::conv2d_backprop_input({1, 3, 3, 1}, filter2x2(), tl::ones({1, 2, 2, 1}), {1, 1}, "FULL"),
                    tl::InvalidArgument);
    CHECK_THROWS_AS(tl::execute("conv2d_backprop_input", {filter2x2(), tl::ones({1, 2, 2, 1})}), tl::InvalidArgument);
  }
}

// ---- pooling ----

TEST_CASE("grad/max_pool2d: overlapping windows accumulate, ties go to the first max") {
  // [[1 5 5] [2 5 0] [3 1 4]], 2x2 windows, stride 1: windows (0,0) and (0,1) both pick the 5 at (0,1), the first
  // of their tied 5s in row-major order; (1,0) and (1,1) pick the 5 at (1,1).
  auto x = image({1, 5, 5, 2, 5, 0, 3, 1, 4}, 3, 3);
  auto pool = [](const tl::Tensor& t) { return tl::max_pool2d(t, {2, 2}, {1, 1}); };
  check_values(grad_of(pool, x, image({1, 2, 3, 4}, 2, 2)), {1, 3, 3, 1}, {0, 3, 0, 0, 7, 0, 0, 0, 0});
  SUBCASE("the same through max_pool2d_grad, which only checks the shape of `output`") {
    auto dx = tl::max_pool2d_grad(x, tl::zeros({1, 2, 2, 1}), image({1, 2, 3, 4}, 2, 2), {2, 2}, {1, 1});
    check_values(dx, {1, 3, 3, 1}, {0, 3, 0, 0, 7, 0, 0, 0, 0});
  }
  SUBCASE("SAME: padding cells get nothing even when every real cell is negative") {
    // 2x2 image, 3x3 windows, stride 1, one padding cell before: every window holds all four cells, max -1 at (0,0).
    auto dx = grad_of([](const tl::Tensor& t) { return tl::max_pool2d(t, {3, 3}, {1, 1}, "SAME"); },
                      image({-1, -2, -3, -4}, 2, 2), image({1, 2, 3, 4}, 2, 2));
    check_values(dx, {1, 2, 2, 1}, {10, 0, 0, 0});
  }
  SUBCASE("a NaN is the max: the first NaN gets the gradient") {
    auto dx = tl::max_pool2d_grad(image({1, not_a_number, not_a_number, 2}, 2, 2), tl::zeros({1, 1, 1, 1}), image({5}, 1, 1), {2, 2},
                                  {2, 2});
    check_values(dx, {1, 2, 2, 1}, {0, 5, 0, 0});
  }
  SUBCASE("channels and batch entries pick their own max") {
    auto x2 = tl::constant({1.f, 9.f, 3.f, 4.f, 5.f, 2.f, 0.f, 8.f, /* image 2 */ 7.f, 0.f, 7.f, 1.f, 6.f, 1.f, 0.f, 1.f},
                           {2, 2, 2, 2});
    auto dx = grad_of([](const tl::Tensor& t) { return tl::max_pool2d(t, {2, 2}, {2, 2}); }, x2,
                      tl::constant({10.f, 20.f, 30.f, 40.f}, {2, 1, 1, 2}));
    check_values(dx, {2, 2, 2, 2}, {0, 20, 0, 0, 10, 0, 0, 0, /* image 2 */ 30, 0, 0, 40, 0, 0, 0, 0});
  }
}

TEST_CASE("grad/avg_pool2d: g / (number of real cells) spread over each window") {
  SUBCASE("SAME 2x2 stride 2 on 3x3: edge windows hold 2 cells, the corner one 1") {
    auto dx = grad_of([](const tl::Tensor& t) { return tl::avg_pool2d(t, {2, 2}, {2, 2}, "SAME"); }, image3x3(),
                      image({4, 2, 6, 5}, 2, 2));
    check_values(dx, {1, 3, 3, 1}, {1, 1, 1, 1, 1, 1, 3, 3, 5});
  }
  SUBCASE("VALID 2x2 stride 1: overlapping windows accumulate quarters") {
    auto dx = grad_of([](const tl::Tensor& t) { return tl::avg_pool2d(t, {2, 2}, {1, 1}); }, image3x3(),
                      tl::ones({1, 2, 2, 1}));
    check_values(dx, {1, 3, 3, 1}, {0.25f, 0.5f, 0.25f, 0.5f, 1, 0.5f, 0.25f, 0.5f, 0.25f});
  }
  SUBCASE("avg_pool2d_grad is avg_pool2d's adjoint, and its own gradient is avg_pool2d") {
    tl::Generator gen(5);
    auto x = gen.uniform({2, 5, 7, 3}, -1, 1);
    auto y = tl::avg_pool2d(x, {3, 3}, {2, 2}, "SAME");
    auto dy = gen.uniform(y.shape(), -1, 1);
    auto dx = tl::avg_pool2d_grad(dy, {2, 5, 7, 3}, {3, 3}, {2, 2}, "SAME");
    CHECK(dot(x, dx) == doctest::Approx(dot(y, dy)).epsilon(1e-4));
    auto d = grad_of([](const tl::Tensor& t) { return tl::avg_pool2d_grad(t, {-1, 5, 7, -1}, {3, 3}, {2, 2}, "SAME"); },
                     dy, x);
    check_values(d, y.shape(), y.to_vector<float>());
  }
}

TEST_CASE("grad/max_pool2d: second order through max_pool2d_grad and max_pool2d_grad_grad") {
  auto x = image({1, 5, 5, 2, 5, 0, 3, 1, 4}, 3, 3);  // windows pick (0,1), (0,1), (1,1), (1,1), as above
  SUBCASE("max_pool2d_grad_grad reads grad at each window's first max") {
    auto z = tl::max_pool2d_grad_grad(x, tl::zeros({1, 2, 2, 1}), image({10, 20, 30, 40, 50, 60, 70, 80, 90}, 3, 3),
                                      {2, 2}, {1, 1});
    check_values(z, {1, 2, 2, 1}, {20, 20, 50, 50});
  }
  SUBCASE("d/dx sum(d/dx sum(max_pool2d(x)^2)) = 2 * (number of windows whose max a cell is)") {
    tl::GradientTape outer;
    outer.watch(x);
    tl::Tensor dx;
    {
      tl::GradientTape inner;
      inner.watch(x);
      dx = inner.gradient(tl::reduce_sum(tl::square(tl::max_pool2d(x, {2, 2}, {1, 1}))), x);
    }
    check_values(dx, {1, 3, 3, 1}, {0, 20, 0, 0, 20, 0, 0, 0, 0});  // 2 * 5 from each of two windows
    check_values(outer.gradient(tl::reduce_sum(dx), x), {1, 3, 3, 1}, {0, 4, 0, 0, 4, 0, 0, 0, 0});
  }
}

TEST_CASE("grad/max_pool2d_grad, _grad_grad and avg_pool2d_grad: shapes and errors") {
  for (const char* name : {"max_pool2d_grad", "max_pool2d_grad_grad", "avg_pool2d_grad"}) {
    CAPTURE(name);
    CHECK(tl::OpRegistry::global().get(name).has_gradient());
  }
  tl::Attrs pool{{"ksize", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"padding", std::string("SAME")}};
  SUBCASE("shape rules, also with unknown dims") {
    CHECK(infer("max_pool2d_grad", {f32({-1, 5, 5, 3}), f32({-1, 3, 3, 3}), f32({2, 3, 3, -1})}, pool).shape ==
          Shape{-1, 5, 5, 3});
    CHECK(infer("max_pool2d_grad_grad", {f32({-1, 5, 5, 3}), f32({-1, 3, 3, 3}), f32({2, -1, 5, 3})}, pool).shape ==
          Shape{-1, 3, 3, 3});
    tl::Attrs avg = pool;
    avg.set("input_sizes", Ints{-1, 5, 5, -1});
    CHECK(infer("avg_pool2d_grad", {f32({4, 3, 3, 2})}, avg).shape == Shape{4, 5, 5, 2});
    CHECK(infer("avg_pool2d_grad", {f32({-1, 3, 3, 2})}, avg).shape == Shape{-1, 5, 5, 2});
  }
  SUBCASE("mismatched output or out_backprop") {
    auto x = tl::zeros({1, 5, 5, 1});
    CHECK_THROWS_WITH_AS(tl::max_pool2d_grad(x, tl::zeros({1, 2, 2, 1}), tl::zeros({1, 3, 3, 1}), {2, 2}, {2, 2}, "SAME"),
                         doctest::Contains("max_pool2d_grad: output must have shape (1, 3, 3, 1) (the output of "
                                           "max_pool2d of (1, 5, 5, 1) with ksize [2, 2], strides [2, 2], SAME), got "
                                           "f32[1,2,2,1]"),
                         tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::max_pool2d_grad(x, tl::zeros({1, 3, 3, 1}), tl::zeros({1, 3, 3, 2}), {2, 2}, {2, 2}, "SAME"),
                         doctest::Contains("max_pool2d_grad: out_backprop must have shape (1, 3, 3, 1)"), tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::max_pool2d_grad_grad(x, tl::zeros({1, 3, 3, 1}), tl::zeros({1, 3, 3, 1}), {2, 2}, {2, 2},
                                                  "SAME"),
                         doctest::Contains("max_pool2d_grad_grad: grad must have the input's shape (1, 5, 5, 1), got "
                                           "f32[1,3,3,1]"),
                         tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::max_pool2d_grad_grad(x, tl::zeros({1, 2, 3, 1}), x, {2, 2}, {2, 2}, "SAME"),
                         doctest::Contains("max_pool2d_grad_grad: output must have shape (1, 3, 3, 1)"), tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::avg_pool2d_grad(tl::zeros({1, 2, 2, 1}), {1, 5, 5, 1}, {2, 2}, {2, 2}, "SAME"),
                         doctest::Contains("avg_pool2d_grad: out_backprop must have shape (1, 3, 3, 1)"), tl::ShapeError);
  }
  SUBCASE("bad attributes, dtypes and ranks") {
    auto dy = tl::zeros({1, 3, 3, 1});
    CHECK_THROWS_WITH_AS(tl::avg_pool2d_grad(dy, {1, 5, 5}, {2, 2}, {2, 2}, "SAME"),
                         doctest::Contains("avg_pool2d_grad: input_sizes must be 4 ints"), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::avg_pool2d_grad(dy, {1, 5, 5, 1}, {2, 2}, {2, 2}, "same"), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::avg_pool2d_grad(dy, {1, 5, 5, 1}, {0, 2}, {2, 2}, "SAME"), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::avg_pool2d_grad(tl::zeros({1, 3, 3, 1}, tl::int32), {1, 5, 5, 1}, {2, 2}, {2, 2}, "SAME"),
                    tl::DTypeError);
    CHECK_THROWS_AS(tl::execute("avg_pool2d_grad", {dy}, {{"input_sizes", Ints{1, 5, 5, 1}}}), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::max_pool2d_grad(tl::zeros({5, 5, 1}), dy, dy, {2, 2}, {2, 2}, "SAME"), tl::ShapeError);
  }
  SUBCASE("zero-size dims") {
    auto dx = tl::avg_pool2d_grad(tl::zeros({0, 3, 3, 2}), {0, 5, 5, 2}, {2, 2}, {2, 2}, "SAME");
    CHECK(dx.shape() == Shape{0, 5, 5, 2});
    auto x = tl::zeros({1, 1, 1, 2});
    check_values(tl::max_pool2d_grad(x, tl::zeros({1, 0, 0, 2}), tl::zeros({1, 0, 0, 2}), {2, 2}, {1, 1}), {1, 1, 1, 2},
                 {0, 0});
  }
}

}  // namespace grad_nn_test
