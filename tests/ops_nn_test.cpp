// nn ops against hand-computed values: softmax / log_softmax, conv2d, max_pool2d, avg_pool2d.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "tracelab/tracelab.h"

namespace ops_nn_test {

namespace {

const float inf = std::numeric_limits<float>::infinity();

void check_values(const tl::Tensor& t, const tl::Shape& shape, const std::vector<float>& expected) {
  CHECK(t.dtype() == tl::float32);
  REQUIRE(t.shape() == shape);
  std::vector<float> got = t.to_vector<float>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(1e-5));
  }
}

/// The output shape the op's shape rule infers for input metas (which may hold -1 dims).
tl::Shape infer(const char* name, const std::vector<tl::TensorMeta>& inputs, const tl::Attrs& attrs) {
  const tl::OpDef& op = tl::OpRegistry::global().get(name);
  std::vector<const tl::TensorMeta*> ptrs;
  for (const auto& m : inputs) ptrs.push_back(&m);
  tl::TensorMeta out;
  op.infer(ptrs, attrs, std::span<tl::TensorMeta>(&out, 1));
  CHECK(out.dtype == tl::float32);
  return out.shape;
}

tl::TensorMeta f32(tl::Shape shape) { return {tl::float32, std::move(shape)}; }

/// The 3x3 image [[1 2 3] [4 5 6] [7 8 9]] as a 1x3x3x1 NHWC tensor.
tl::Tensor image3x3() { return tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f}, {1, 3, 3, 1}); }

/// The 2x2 filter [[1 2] [3 4]], one channel in and out (HWIO 2x2x1x1).
tl::Tensor filter2x2() { return tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2, 1, 1}); }

const float ln2 = 0.69314718f, ln3 = 1.09861229f;

}  // namespace

// ---- softmax / log_softmax ----

TEST_CASE("ops/softmax: known values along the last axis") {
  SUBCASE("[0, ln 2] -> [1/3, 2/3]") {
    check_values(tl::softmax(tl::constant({0.f, ln2})), {2}, {1.f / 3, 2.f / 3});
  }
  SUBCASE("rows of a matrix are independent") {
    auto x = tl::constant({0.f, ln2, 1000.f, 1000.f, -3.f, -3.f + ln3}, {3, 2});
    check_values(tl::softmax(x), {3, 2}, {1.f / 3, 2.f / 3, 0.5f, 0.5f, 0.25f, 0.75f});
  }
  SUBCASE("large logits do not overflow") {
    check_values(tl::softmax(tl::constant({1000.f, 0.f})), {2}, {1.f, 0.f});
    check_values(tl::softmax(tl::constant({-1000.f, -1000.f, -1000.f, -1000.f})), {4}, {0.25f, 0.25f, 0.25f, 0.25f});
  }
  SUBCASE("a single element is 1, -inf gives 0") {
    check_values(tl::softmax(tl::constant({7.f})), {1}, {1.f});
    check_values(tl::softmax(tl::constant({-inf, 0.f})), {2}, {0.f, 1.f});
  }
  SUBCASE("rows sum to 1") {
    tl::Generator gen(7);
    auto y = tl::softmax(gen.normal({5, 11}, 0, 10)).to_vector<float>();
    for (int r = 0; r < 5; ++r) {
      float sum = 0;
      for (int c = 0; c < 11; ++c) sum += y[static_cast<std::size_t>(r * 11 + c)];
      CHECK(sum == doctest::Approx(1.f).epsilon(1e-5));
    }
  }
}

TEST_CASE("ops/softmax: any axis") {
  SUBCASE("axis 0 of a matrix") {  // columns [0, ln 2] and [0, ln 3]
    auto x = tl::constant({0.f, 0.f, ln2, ln3}, {2, 2});
    check_values(tl::softmax(x, 0), {2, 2}, {1.f / 3, 0.25f, 2.f / 3, 0.75f});
    check_values(tl::softmax(x, -2), {2, 2}, {1.f / 3, 0.25f, 2.f / 3, 0.75f});
  }
  SUBCASE("middle axis of a rank-3 tensor (outer and inner > 1)") {
    auto x = tl::constant({0.f, 0.f, ln2, ln3, ln3, 5.f, 0.f, 5.f}, {2, 2, 2});
    std::vector<float> expected{1.f / 3, 0.25f, 2.f / 3, 0.75f, 0.75f, 0.5f, 0.25f, 0.5f};
    check_values(tl::softmax(x, 1), {2, 2, 2}, expected);
    check_values(tl::softmax(x, -2), {2, 2, 2}, expected);
  }
}

TEST_CASE("ops/log_softmax: known values") {
  SUBCASE("[0, ln 2] -> [ln 1/3, ln 2/3]") {
    check_values(tl::log_softmax(tl::constant({0.f, ln2})), {2}, {-1.0986123f, -0.4054651f});
  }
  SUBCASE("large logits stay finite") {
    check_values(tl::log_softmax(tl::constant({1000.f, 0.f, 1000.f, 1000.f}, {2, 2})), {2, 2},
                 {0.f, -1000.f, -ln2, -ln2});
  }
  SUBCASE("axis 0, and -inf stays -inf") {
    check_values(tl::log_softmax(tl::constant({0.f, 0.f, ln2, ln3}, {2, 2}), 0), {2, 2},
                 {-1.0986123f, -1.3862944f, -0.4054651f, -0.2876821f});
    auto y = tl::log_softmax(tl::constant({-inf, 0.f})).to_vector<float>();
    CHECK(y[0] == -inf);
    CHECK(y[1] == 0.f);
  }
}

TEST_CASE("ops/softmax: zero-size dims, errors and unknown dims") {
  for (const char* name : {"softmax", "log_softmax"}) {
    std::string op_name = name;
    CAPTURE(op_name);
    const tl::OpDef& op = tl::OpRegistry::global().get(name);
    SUBCASE("zero-size axis or other dim gives an empty result") {
      CHECK(tl::execute(op, {tl::zeros({2, 0})}).shape() == tl::Shape{2, 0});
      CHECK(tl::execute(op, {tl::zeros({0, 3})}, {{"axis", 0}}).shape() == tl::Shape{0, 3});
    }
    SUBCASE("errors name the op") {
      std::string prefix = std::string(name) + ": ";
      CHECK_THROWS_WITH_AS(tl::execute(op, {tl::zeros({2}, tl::int32)}), doctest::Contains((prefix + "input 0 must be float32").c_str()),
                           tl::DTypeError);
      CHECK_THROWS_WITH_AS(tl::execute(op, {tl::scalar(1.f)}), doctest::Contains((prefix + "logits must have rank >= 1").c_str()),
                           tl::ShapeError);
      CHECK_THROWS_WITH_AS(tl::execute(op, {tl::zeros({2, 3})}, {{"axis", 2}}),
                           doctest::Contains((prefix + "axis 2 is out of range").c_str()), tl::InvalidArgument);
      CHECK_THROWS_WITH_AS(tl::execute(op, {tl::zeros({2, 3})}, {{"axis", -3}}), doctest::Contains((prefix + "axis -3").c_str()),
                           tl::InvalidArgument);
      CHECK_THROWS_AS(tl::execute(op, {tl::zeros({2, 3})}, {{"axis", 1.0}}), tl::InvalidArgument);
    }
    SUBCASE("unknown dims pass through") {
      CHECK(infer(name, {f32({-1, 10})}, {}) == tl::Shape{-1, 10});
      CHECK(infer(name, {f32({-1, -1, 4})}, {{"axis", 1}}) == tl::Shape{-1, -1, 4});
    }
  }
}

// ---- conv2d ----

TEST_CASE("ops/conv2d: one channel, VALID and SAME, stride 1 and 2") {
  // VALID windows: 1*1+2*2+4*3+5*4 = 37, 47, 67, 77. SAME with k=2 pads one cell after (bottom / right).
  SUBCASE("VALID, stride 1") { check_values(tl::conv2d(image3x3(), filter2x2()), {1, 2, 2, 1}, {37, 47, 67, 77}); }
  SUBCASE("VALID, stride 2") {
    check_values(tl::conv2d(image3x3(), filter2x2(), {2, 2}), {1, 1, 1, 1}, {37});
    check_values(tl::conv2d(image3x3(), filter2x2(), {1, 2, 2, 1}), {1, 1, 1, 1}, {37});
    check_values(tl::conv2d(image3x3(), filter2x2(), {2}), {1, 1, 1, 1}, {37});
  }
  SUBCASE("VALID, different strides for height and width") {
    check_values(tl::conv2d(image3x3(), filter2x2(), {1, 2}), {1, 2, 1, 1}, {37, 67});
  }
  SUBCASE("SAME, stride 1") {
    check_values(tl::conv2d(image3x3(), filter2x2(), {1, 1}, "SAME"), {1, 3, 3, 1},
                 {37, 47, 3 + 18, 67, 77, 6 + 27, 7 + 16, 8 + 18, 9});
  }
  SUBCASE("SAME, stride 2") {
    check_values(tl::conv2d(image3x3(), filter2x2(), {2, 2}, "SAME"), {1, 2, 2, 1}, {37, 21, 23, 9});
  }
  SUBCASE("SAME with a 3x3 filter pads one cell on each side") {  // sums of 3x3 neighbourhoods
    check_values(tl::conv2d(image3x3(), tl::ones({3, 3, 1, 1}), {1, 1}, "SAME"), {1, 3, 3, 1},
                 {12, 21, 16, 27, 45, 33, 24, 39, 28});
    check_values(tl::conv2d(image3x3(), tl::ones({3, 3, 1, 1}), {2, 2}, "SAME"), {1, 2, 2, 1}, {12, 16, 24, 28});
  }
  SUBCASE("a batch of two images") {
    auto x = tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f},
                          {2, 3, 3, 1});
    check_values(tl::conv2d(x, filter2x2()), {2, 2, 2, 1}, {37, 47, 67, 77, 10, 10, 10, 10});
  }
}

TEST_CASE("ops/conv2d: several channels in and out") {
  SUBCASE("1x1 filter mixes channels: pixel [a, b] -> [a, b, a + b]") {
    auto x = tl::constant({1.f, 2.f, 3.f, 4.f}, {1, 1, 2, 2});
    auto f = tl::constant({1.f, 0.f, 1.f, 0.f, 1.f, 1.f}, {1, 1, 2, 3});
    check_values(tl::conv2d(x, f), {1, 1, 2, 3}, {1, 2, 3, 3, 4, 7});
    check_values(tl::conv2d(x, f, {1, 1}, "SAME"), {1, 1, 2, 3}, {1, 2, 3, 3, 4, 7});
    check_values(tl::conv2d(x, f, {1, 2}), {1, 1, 1, 3}, {1, 2, 3});
  }
  SUBCASE("1x2 filter over two channels: 1*1 + 2*2 + 3*3 + 4*4") {
    auto x = tl::constant({1.f, 2.f, 3.f, 4.f}, {1, 1, 2, 2});
    check_values(tl::conv2d(x, tl::constant({1.f, 2.f, 3.f, 4.f}, {1, 2, 2, 1})), {1, 1, 1, 1}, {30});
  }
  SUBCASE("2x2 filter, two channels in, two out, SAME") {
    // image 2x2, channels (c0, c1) = (1,10) (2,20) / (3,30) (4,40); out 0 sums c0 of the window, out 1 sums c1
    auto x = tl::constant({1.f, 10.f, 2.f, 20.f, 3.f, 30.f, 4.f, 40.f}, {1, 2, 2, 2});
    auto f = tl::constant({1.f, 0.f, 0.f, 1.f, 1.f, 0.f, 0.f, 1.f, 1.f, 0.f, 0.f, 1.f, 1.f, 0.f, 0.f, 1.f},
                          {2, 2, 2, 2});
    check_values(tl::conv2d(x, f, {1, 1}, "SAME"), {1, 2, 2, 2}, {10, 100, 6, 60, 7, 70, 4, 40});
  }
}

TEST_CASE("ops/conv2d: zero-size dims") {
  SUBCASE("empty batch") {
    CHECK(tl::conv2d(tl::zeros({0, 3, 3, 1}), filter2x2()).shape() == tl::Shape{0, 2, 2, 1});
  }
  SUBCASE("window larger than the input (VALID) gives size 0") {
    CHECK(tl::conv2d(tl::ones({1, 1, 1, 1}), filter2x2()).shape() == tl::Shape{1, 0, 0, 1});
    CHECK(tl::conv2d(tl::ones({1, 3, 1, 1}), filter2x2()).shape() == tl::Shape{1, 2, 0, 1});
  }
  SUBCASE("SAME on a zero-size image") {
    CHECK(tl::conv2d(tl::zeros({1, 0, 3, 1}), filter2x2(), {1, 1}, "SAME").shape() == tl::Shape{1, 0, 3, 1});
  }
  SUBCASE("no input channels: sums are empty, so zeros") {
    check_values(tl::conv2d(tl::zeros({1, 2, 2, 0}), tl::zeros({2, 2, 0, 2}), {1, 1}, "SAME"), {1, 2, 2, 2},
                 {0, 0, 0, 0, 0, 0, 0, 0});
  }
  SUBCASE("no output channels") {
    CHECK(tl::conv2d(image3x3(), tl::zeros({2, 2, 1, 0})).shape() == tl::Shape{1, 2, 2, 0});
  }
}

TEST_CASE("ops/conv2d: errors") {
  CHECK_THROWS_WITH_AS(tl::conv2d(tl::zeros({1, 3, 3, 1}, tl::int32), filter2x2()),
                       doctest::Contains("conv2d: input 0 must be float32"), tl::DTypeError);
  CHECK_THROWS_WITH_AS(tl::conv2d(image3x3(), tl::zeros({2, 2, 1, 1}, tl::int32)),
                       doctest::Contains("conv2d: input 1 must be float32"), tl::DTypeError);
  CHECK_THROWS_WITH_AS(tl::conv2d(tl::zeros({3, 3, 1}), filter2x2()), doctest::Contains("conv2d: input 0 must have rank 4"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::conv2d(image3x3(), tl::zeros({2, 2, 1})), doctest::Contains("conv2d: input 1 must have rank 4"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::conv2d(tl::zeros({1, 3, 3, 2}), filter2x2()),
                       doctest::Contains("conv2d: input channels must equal the filters' in_channels, got input "
                                         "(1, 3, 3, 2) (NHWC) and filters (2, 2, 1, 1) (HWIO)"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::conv2d(image3x3(), tl::zeros({0, 2, 1, 1})),
                       doctest::Contains("conv2d: the filter window must not be empty"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::conv2d(image3x3(), filter2x2(), {1, 2, 3}),
                       doctest::Contains("conv2d: strides must have 1, 2 or 4 elements, got [1, 2, 3]"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::conv2d(image3x3(), filter2x2(), {2, 1, 1, 1}),
                       doctest::Contains("conv2d: strides must be 1 in the batch and channel dims"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::conv2d(image3x3(), filter2x2(), {0, 1}),
                       doctest::Contains("conv2d: strides must be positive, got [0, 1]"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::conv2d(image3x3(), filter2x2(), {1, 1}, "same"),
                       doctest::Contains("conv2d: padding must be \"VALID\" or \"SAME\", got \"same\""),
                       tl::InvalidArgument);
  CHECK_THROWS_AS(tl::execute("conv2d", {image3x3(), filter2x2()}, {{"dilations", tl::Ints{1, 1}}}),
                  tl::InvalidArgument);
}

TEST_CASE("ops/conv2d: shape rule with unknown dims") {
  tl::Attrs valid{{"strides", tl::Ints{1, 1}}, {"padding", std::string("VALID")}};
  tl::Attrs same2{{"strides", tl::Ints{2, 2}}, {"padding", std::string("SAME")}};
  CHECK(infer("conv2d", {f32({-1, -1, 5, 3}), f32({2, 2, 3, 4})}, valid) == tl::Shape{-1, -1, 4, 4});
  CHECK(infer("conv2d", {f32({-1, 7, -1, 3}), f32({3, 3, 3, 8})}, same2) == tl::Shape{-1, 4, -1, 8});
  SUBCASE("unknown channels are not checked") {
    CHECK(infer("conv2d", {f32({2, 5, 5, -1}), f32({2, 2, 3, 4})}, valid) == tl::Shape{2, 4, 4, 4});
    CHECK(infer("conv2d", {f32({2, 5, 5, 3}), f32({2, 2, -1, 4})}, valid) == tl::Shape{2, 4, 4, 4});
  }
  SUBCASE("unknown filter dims give unknown output dims") {
    CHECK(infer("conv2d", {f32({2, 5, 5, 3}), f32({2, -1, 3, -1})}, valid) == tl::Shape{2, 4, -1, -1});
  }
  SUBCASE("known channels that differ are still an error") {
    CHECK_THROWS_AS(infer("conv2d", {f32({-1, -1, -1, 3}), f32({2, 2, 4, 4})}, valid), tl::ShapeError);
  }
}

// ---- pooling ----

TEST_CASE("ops/max_pool2d: known values") {
  SUBCASE("VALID, stride 1 and 2") {
    check_values(tl::max_pool2d(image3x3(), {2, 2}, {1, 1}), {1, 2, 2, 1}, {5, 6, 8, 9});
    check_values(tl::max_pool2d(image3x3(), {2, 2}, {2, 2}), {1, 1, 1, 1}, {5});
    check_values(tl::max_pool2d(image3x3(), {1, 2, 2, 1}, {1, 2, 2, 1}), {1, 1, 1, 1}, {5});
    check_values(tl::max_pool2d(image3x3(), {3, 1}, {1, 1}), {1, 1, 3, 1}, {7, 8, 9});
  }
  SUBCASE("SAME, stride 1 and 2") {
    check_values(tl::max_pool2d(image3x3(), {2, 2}, {1, 1}, "SAME"), {1, 3, 3, 1}, {5, 6, 6, 8, 9, 9, 8, 9, 9});
    check_values(tl::max_pool2d(image3x3(), {2}, {2}, "SAME"), {1, 2, 2, 1}, {5, 6, 8, 9});
  }
  SUBCASE("padding cells are ignored, not zeros") {
    auto x = tl::constant({-1.f, -2.f, -3.f, -4.f, -5.f, -6.f, -7.f, -8.f, -9.f}, {1, 3, 3, 1});
    check_values(tl::max_pool2d(x, {2, 2}, {1, 1}, "SAME"), {1, 3, 3, 1}, {-1, -2, -3, -4, -5, -6, -7, -8, -9});
    check_values(tl::max_pool2d(x, {3, 3}, {2, 2}, "SAME"), {1, 2, 2, 1}, {-1, -2, -4, -5});
  }
  SUBCASE("channels pool separately, batches too") {
    auto x = tl::constant({1.f, 10.f, 2.f, -20.f, 3.f, 30.f, 4.f, -40.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 5.f},
                          {2, 2, 2, 2});
    check_values(tl::max_pool2d(x, {2, 2}, {2, 2}), {2, 1, 1, 2}, {4, 30, 0, 5});
  }
  SUBCASE("NaN propagates") {
    auto y = tl::max_pool2d(tl::constant({1.f, NAN, 3.f, 4.f}, {1, 2, 2, 1}), {2, 2}, {1, 1});
    CHECK(std::isnan(y.to_vector<float>()[0]));
  }
}

TEST_CASE("ops/avg_pool2d: known values") {
  SUBCASE("VALID, stride 1 and 2") {
    check_values(tl::avg_pool2d(image3x3(), {2, 2}, {1, 1}), {1, 2, 2, 1}, {3, 4, 6, 7});
    check_values(tl::avg_pool2d(image3x3(), {2, 2}, {2, 2}), {1, 1, 1, 1}, {3});
    check_values(tl::avg_pool2d(image3x3(), {1, 3}, {1, 1}), {1, 3, 1, 1}, {2, 5, 8});
  }
  SUBCASE("SAME divides by the number of non-padding cells") {
    check_values(tl::avg_pool2d(image3x3(), {2, 2}, {1, 1}, "SAME"), {1, 3, 3, 1},
                 {3, 4, 4.5f, 6, 7, 7.5f, 7.5f, 8.5f, 9});
    check_values(tl::avg_pool2d(image3x3(), {2, 2}, {2, 2}, "SAME"), {1, 2, 2, 1}, {3, 4.5f, 7.5f, 9});
    check_values(tl::avg_pool2d(image3x3(), {3, 3}, {1, 1}, "SAME"), {1, 3, 3, 1},
                 {3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f, 7});
  }
  SUBCASE("channels pool separately") {
    auto x = tl::constant({1.f, 10.f, 2.f, -20.f, 3.f, 30.f, 4.f, -40.f}, {1, 2, 2, 2});
    check_values(tl::avg_pool2d(x, {2, 2}, {1, 1}), {1, 1, 1, 2}, {2.5f, -5});
  }
}

TEST_CASE("ops/max_pool2d: window larger than the input, zero-size dims, errors, unknown dims") {
  for (const char* name : {"max_pool2d", "avg_pool2d"}) {
    std::string op_name = name;
    CAPTURE(op_name);
    const tl::OpDef& op = tl::OpRegistry::global().get(name);
    auto attrs = [](tl::Ints k, tl::Ints s, const char* padding) {
      return tl::Attrs{{"ksize", std::move(k)}, {"strides", std::move(s)}, {"padding", std::string(padding)}};
    };
    auto x = tl::constant({1.f, 2.f, 3.f, 4.f}, {1, 2, 2, 1});
    SUBCASE("window larger than the input: VALID gives size 0, SAME covers the whole image") {
      CHECK(tl::execute(op, {x}, attrs({3, 3}, {1, 1}, "VALID")).shape() == tl::Shape{1, 0, 0, 1});
      float whole = std::string(name) == "max_pool2d" ? 4.f : 2.5f;
      check_values(tl::execute(op, {x}, attrs({3, 3}, {1, 1}, "SAME")), {1, 2, 2, 1}, {whole, whole, whole, whole});
    }
    SUBCASE("zero-size batch, image and channels") {
      CHECK(tl::execute(op, {tl::zeros({0, 4, 4, 3})}, attrs({2, 2}, {2, 2}, "VALID")).shape() ==
            tl::Shape{0, 2, 2, 3});
      CHECK(tl::execute(op, {tl::zeros({1, 0, 4, 3})}, attrs({2, 2}, {2, 2}, "SAME")).shape() ==
            tl::Shape{1, 0, 2, 3});
      CHECK(tl::execute(op, {tl::zeros({1, 4, 4, 0})}, attrs({2, 2}, {2, 2}, "SAME")).shape() ==
            tl::Shape{1, 2, 2, 0});
    }
    SUBCASE("errors name the op") {
      std::string prefix = std::string(name) + ": ";
      CHECK_THROWS_WITH_AS(tl::execute(op, {tl::zeros({1, 2, 2, 1}, tl::int32)}, attrs({2, 2}, {1, 1}, "VALID")),
                           doctest::Contains((prefix + "input 0 must be float32").c_str()), tl::DTypeError);
      CHECK_THROWS_WITH_AS(tl::execute(op, {tl::zeros({2, 2, 1})}, attrs({2, 2}, {1, 1}, "VALID")),
                           doctest::Contains((prefix + "input 0 must have rank 4").c_str()), tl::ShapeError);
      CHECK_THROWS_WITH_AS(tl::execute(op, {x}, attrs({1, 2, 2, 2}, {1, 1}, "VALID")),
                           doctest::Contains((prefix + "ksize must be 1 in the batch and channel dims").c_str()),
                           tl::InvalidArgument);
      CHECK_THROWS_WITH_AS(tl::execute(op, {x}, attrs({2, 0}, {1, 1}, "VALID")),
                           doctest::Contains((prefix + "ksize must be positive").c_str()), tl::InvalidArgument);
      CHECK_THROWS_WITH_AS(tl::execute(op, {x}, attrs({2, 2}, {}, "VALID")),
                           doctest::Contains((prefix + "strides must have 1, 2 or 4 elements").c_str()), tl::InvalidArgument);
      CHECK_THROWS_WITH_AS(tl::execute(op, {x}, attrs({2, 2}, {1, -1}, "VALID")),
                           doctest::Contains((prefix + "strides must be positive").c_str()), tl::InvalidArgument);
      CHECK_THROWS_WITH_AS(tl::execute(op, {x}, attrs({2, 2}, {1, 1}, "FULL")),
                           doctest::Contains((prefix + "padding must be \"VALID\" or \"SAME\"").c_str()), tl::InvalidArgument);
      CHECK_THROWS_WITH_AS(tl::execute(op, {x}, {{"strides", tl::Ints{1, 1}}}),
                           doctest::Contains((prefix + "missing required attribute 'ksize'").c_str()), tl::InvalidArgument);
    }
    SUBCASE("unknown dims propagate") {
      CHECK(infer(name, {f32({-1, 5, -1, -1})}, attrs({2, 2}, {2, 2}, "SAME")) == tl::Shape{-1, 3, -1, -1});
      CHECK(infer(name, {f32({8, -1, 6, 3})}, attrs({3, 3}, {1, 1}, "VALID")) == tl::Shape{8, -1, 4, 3});
    }
  }
}

}  // namespace ops_nn_test
