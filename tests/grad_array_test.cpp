// Array-family gradients against hand-computed values (the numeric checker in gradient_test.cpp runs every
// sample too), plus the new ops' values and errors: identity, stop_gradient, broadcast_to, unsorted_segment_sum.
// Most cases feed a distinct upstream gradient u (1, 2, 3, ...) so that a misplaced element shows.
#include <doctest/doctest.h>

#include "test_util.h"

#include <cstdint>
#include <span>
#include <vector>

#include "tracelab/tracelab.h"

namespace grad_array_test {

namespace {
using tl::testing::infer;
using tl::testing::grads_of;
using tl::testing::grad_of;

using F = std::vector<float>;
using I = std::vector<std::int32_t>;
using tl::Ints;
using tl::Shape;

F fv(const tl::Tensor& t) { return t.to_vector<float>(); }
I iv(const tl::Tensor& t) { return t.to_vector<std::int32_t>(); }

/// 1, 2, 3, ... as float32 of the given shape (built by hand, not by an op under test).
tl::Tensor count(const Shape& shape, float from = 1) {
  F values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = from + static_cast<float>(i);
  return tl::constant(values, shape);
}



/// Runs op `name`'s gradient rule directly on one call with upstream gradient `g`; returns d (entries may be empty).
std::vector<tl::Tensor> rule(const char* name, const std::vector<tl::Tensor>& inputs, const tl::Attrs& attrs,
                             const tl::Tensor& g) {
  const tl::OpDef& op = tl::OpRegistry::global().get(name);
  std::vector<tl::Tensor> outputs(1);
  tl::execute(op, inputs, attrs, outputs);
  std::vector<tl::Tensor> grads{g}, d(inputs.size());
  op.backward(tl::GradContext{op, inputs, outputs, attrs, grads}, d);
  return d;
}


}  // namespace

TEST_CASE("grad/array: traits and rules of the array family") {
  auto& registry = tl::OpRegistry::global();
  for (const char* name : {"reshape", "transpose", "expand_dims", "squeeze", "concat", "stack", "slice", "gather",
                           "pad", "cast", "identity", "broadcast_to", "unsorted_segment_sum"}) {
    CAPTURE(name);
    CHECK_FALSE(registry.get(name).has(tl::trait::not_differentiable));
    CHECK(registry.get(name).has_gradient());
  }
  for (const char* name : {"stop_gradient", "one_hot", "zeros_like", "ones_like"}) {
    CAPTURE(name);
    CHECK(registry.get(name).has(tl::trait::not_differentiable));
    CHECK_FALSE(registry.get(name).has_gradient());
  }
}

TEST_CASE("grad/reshape: the upstream gradient reshaped back (also expand_dims, squeeze)") {
  auto x = count({2, 3});
  auto u = count({3, 2}, 10);
  auto dx = grad_of([](const tl::Tensor& t) { return tl::reshape(t, {3, -1}); }, x, u);
  CHECK(dx.shape() == Shape{2, 3});
  CHECK(fv(dx) == F{10, 11, 12, 13, 14, 15});
  SUBCASE("expand_dims with a negative axis") {
    auto g = grad_of([](const tl::Tensor& t) { return tl::expand_dims(t, -1); }, x, count({2, 3, 1}, 10));
    CHECK(g.shape() == Shape{2, 3});
    CHECK(fv(g) == F{10, 11, 12, 13, 14, 15});
  }
  SUBCASE("squeeze of every size-1 dim, and of a negative axis") {
    auto y = count({1, 3, 1});
    auto g = grad_of([](const tl::Tensor& t) { return tl::squeeze(t); }, y, count({3}, 7));
    CHECK(g.shape() == Shape{1, 3, 1});
    CHECK(fv(g) == F{7, 8, 9});
    g = grad_of([](const tl::Tensor& t) { return tl::squeeze(t, {-1}); }, y, count({1, 3}, 7));
    CHECK(g.shape() == Shape{1, 3, 1});
  }
  SUBCASE("rank 0 and zero-size") {
    auto s = tl::scalar(2.f);
    auto g = grad_of([](const tl::Tensor& t) { return tl::reshape(t, {1, 1}); }, s, count({1, 1}, 5));
    CHECK(g.shape() == Shape{});
    CHECK(fv(g) == F{5});
    auto e = tl::zeros({0, 3});
    g = grad_of([](const tl::Tensor& t) { return tl::reshape(t, {3, 0}); }, e, tl::zeros({3, 0}));
    CHECK(g.shape() == Shape{0, 3});
  }
}

TEST_CASE("grad/transpose: the inverse permutation") {
  SUBCASE("default perm: the transposed gradient") {
    auto dx = grad_of([](const tl::Tensor& t) { return tl::transpose(t); }, count({2, 3}), count({3, 2}));
    CHECK(dx.shape() == Shape{2, 3});
    CHECK(fv(dx) == F{1, 3, 5, 2, 4, 6});
  }
  SUBCASE("perm {2, 0, 1}: dx[i, j, k] = u[k, i, j]") {
    auto u = count({4, 2, 3});
    auto dx = grad_of([](const tl::Tensor& t) { return tl::transpose(t, {2, 0, 1}); }, count({2, 3, 4}), u);
    REQUIRE(dx.shape() == Shape{2, 3, 4});
    auto got = fv(dx), uv = fv(u);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k)
          CHECK(got[static_cast<std::size_t>(i * 12 + j * 4 + k)] == uv[static_cast<std::size_t>(k * 6 + i * 3 + j)]);
  }
}

TEST_CASE("grad/concat: one slice of the gradient per input") {
  auto a = count({2, 1}), b = count({2, 2}), c = tl::zeros({2, 0});
  auto u = count({2, 3});  // [[1, 2, 3], [4, 5, 6]]
  for (std::int64_t axis : {1, -1}) {
    CAPTURE(axis);
    auto d = grads_of([&](const std::vector<tl::Tensor>& s) { return tl::concat(s, axis); }, {a, b, c}, u);
    CHECK(fv(d[0]) == F{1, 4});
    CHECK(fv(d[1]) == F{2, 3, 5, 6});
    CHECK(d[2].shape() == Shape{2, 0});
  }
  SUBCASE("along axis 0") {
    auto d = grads_of([](const std::vector<tl::Tensor>& s) { return tl::concat(s, 0); }, {count({1, 2}), count({2, 2})},
                      count({3, 2}));
    CHECK(fv(d[0]) == F{1, 2});
    CHECK(fv(d[1]) == F{3, 4, 5, 6});
  }
  SUBCASE("the same tensor twice: its two slices add up") {
    auto x = count({2});
    auto dx = grad_of([](const tl::Tensor& t) { return tl::concat({t, t}, 0); }, x, count({4}));
    CHECK(fv(dx) == F{4, 6});
  }
}

TEST_CASE("grad/stack: one slice along the new axis per input, reshaped") {
  auto a = count({2}), b = count({2});
  auto u = count({2, 2});  // [[1, 2], [3, 4]]
  auto d = grads_of([](const std::vector<tl::Tensor>& s) { return tl::stack(s, 0); }, {a, b}, u);
  CHECK(fv(d[0]) == F{1, 2});
  CHECK(fv(d[1]) == F{3, 4});
  d = grads_of([](const std::vector<tl::Tensor>& s) { return tl::stack(s, -1); }, {a, b}, u);
  CHECK(fv(d[0]) == F{1, 3});
  CHECK(fv(d[1]) == F{2, 4});
  SUBCASE("scalars") {
    auto s = grads_of([](const std::vector<tl::Tensor>& v) { return tl::stack(v); },
                      {tl::scalar(1.f), tl::scalar(2.f), tl::scalar(3.f)}, count({3}, 7));
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(s[i].shape() == Shape{});
      CHECK(fv(s[i]) == F{7.f + static_cast<float>(i)});
    }
  }
}

TEST_CASE("grad/slice: zeros with the gradient pasted in at begin") {
  auto dx = grad_of([](const tl::Tensor& t) { return tl::slice(t, {1, 1}, {2, -1}); }, count({3, 4}), count({2, 3}));
  CHECK(dx.shape() == Shape{3, 4});
  CHECK(fv(dx) == F{0, 0, 0, 0, 0, 1, 2, 3, 0, 4, 5, 6});
  SUBCASE("an empty slice gives all zeros") {
    auto g = grad_of([](const tl::Tensor& t) { return tl::slice(t, {3}, {0}); }, count({3}), tl::zeros({0}));
    CHECK(fv(g) == F{0, 0, 0});
  }
}

TEST_CASE("grad/pad: the gradient with the padding cut off") {
  // x (2, 2) padded by one row before and one column after: u = [[1, 2, 3], [4, 5, 6], [7, 8, 9]].
  auto dx = grad_of([](const tl::Tensor& t) { return tl::pad(t, {1, 0, 0, 1}, 5); }, count({2, 2}), count({3, 3}));
  CHECK(dx.shape() == Shape{2, 2});
  CHECK(fv(dx) == F{4, 5, 7, 8});
}

TEST_CASE("grad/cast: g for float32 -> float32, none to or from other dtypes") {
  auto x = tl::constant({1.5f, -2.5f});
  auto g = tl::constant({3.f, 4.f});
  CHECK(fv(grad_of([](const tl::Tensor& t) { return tl::cast(t, tl::float32); }, x, g)) == F{3, 4});
  CHECK_FALSE(rule("cast", {x}, {{"dtype", tl::int32}}, tl::constant({1, 1}))[0].defined());
  CHECK_FALSE(rule("cast", {tl::constant({1, 2})}, {{"dtype", tl::float32}}, g)[0].defined());
  CHECK_FALSE(rule("cast", {x}, {{"dtype", tl::bool_}}, tl::constant({true, true}, {2}))[0].defined());
  SUBCASE("a round trip through int32 disconnects x") {
    tl::GradientTape tape;
    tape.watch(x);
    auto y = tl::reduce_sum(tl::cast(tl::cast(x, tl::int32), tl::float32));
    CHECK_FALSE(tape.gradient(y, x).defined());
  }
}

TEST_CASE("grad/gather: repeated indices add up, indices get none") {
  SUBCASE("axis 0") {
    // params (4, 2), indices {3, 0, 3}; u = [[1, 2], [3, 4], [5, 6]].
    auto dp = grad_of([](const tl::Tensor& t) { return tl::gather(t, tl::constant({3, 0, 3})); }, count({4, 2}),
                      count({3, 2}));
    CHECK(dp.shape() == Shape{4, 2});
    CHECK(fv(dp) == F{3, 4, 0, 0, 0, 0, 6, 8});
  }
  SUBCASE("axis 1") {
    // params (2, 3), indices {2, 2, 0}; u = [[1, 2, 3], [4, 5, 6]].
    auto dp = grad_of([](const tl::Tensor& t) { return tl::gather(t, tl::constant({2, 2, 0}), 1); }, count({2, 3}),
                      count({2, 3}));
    CHECK(fv(dp) == F{3, 0, 3, 6, 0, 9});
  }
  SUBCASE("axis -2 of a rank-3 params with 2-d indices") {
    I idx{0, 2, 2, 2};
    auto u = count({2, 2, 2, 2});  // [p, i, j, q]
    auto dp = grad_of([&](const tl::Tensor& t) { return tl::gather(t, tl::constant(idx, {2, 2}), -2); },
                      count({2, 3, 2}), u);
    REQUIRE(dp.shape() == Shape{2, 3, 2});
    F expected(12, 0.f);
    auto uv = fv(u);
    for (int p = 0; p < 2; ++p)
      for (int ij = 0; ij < 4; ++ij)
        for (int q = 0; q < 2; ++q)
          expected[static_cast<std::size_t>(p * 6 + idx[static_cast<std::size_t>(ij)] * 2 + q)] +=
              uv[static_cast<std::size_t>(p * 8 + ij * 2 + q)];
    CHECK(fv(dp) == expected);
  }
  SUBCASE("a scalar index") {
    auto dp = grad_of([](const tl::Tensor& t) { return tl::gather(t, tl::scalar(std::int32_t{1})); }, count({3, 2}),
                      tl::constant({5.f, 7.f}));
    CHECK(fv(dp) == F{0, 0, 5, 7, 0, 0});
  }
  SUBCASE("the rule leaves the indices empty") {
    auto d = rule("gather", {count({3}), tl::constant({1, 1})}, {}, tl::constant({1.f, 2.f}));
    CHECK(fv(d[0]) == F{0, 3, 0});
    CHECK_FALSE(d[1].defined());
  }
  SUBCASE("second order: the gradient itself is differentiable") {
    // y = sum(gather(x, {0, 0})^2) = 2 x0^2, dy/dx = (4 x0, 0), d(sum dy/dx)/dx = (4, 0).
    auto x = tl::constant({3.f, 1.f});
    tl::GradientTape outer;
    outer.watch(x);
    tl::Tensor first;
    {
      tl::GradientTape inner;
      inner.watch(x);
      first = inner.gradient(tl::reduce_sum(tl::square(tl::gather(x, tl::constant({0, 0})))), x);
    }
    CHECK(fv(first) == F{12, 0});
    CHECK(fv(outer.gradient(tl::reduce_sum(first), x)) == F{4, 0});
  }
}

TEST_CASE("ops/unsorted_segment_sum: sums rows by segment id") {
  auto data = count({4, 2});  // rows [1, 2], [3, 4], [5, 6], [7, 8]
  auto y = tl::unsorted_segment_sum(data, tl::constant({1, 0, 1, 3}), 5);
  CHECK(y.shape() == Shape{5, 2});
  CHECK(fv(y) == F{3, 4, 6, 8, 0, 0, 7, 8, 0, 0});
  SUBCASE("segment_ids of rank 2 and of rank 0") {
    auto z = tl::unsorted_segment_sum(count({2, 2, 3}), tl::constant({1, 1, 0, 1}, {2, 2}), 2);
    CHECK(z.shape() == Shape{2, 3});
    CHECK(fv(z) == F{7, 8, 9, 1 + 4 + 10, 2 + 5 + 11, 3 + 6 + 12});
    auto s = tl::unsorted_segment_sum(tl::scalar(2.f), tl::scalar(std::int32_t{1}), 3);
    CHECK(fv(s) == F{0, 2, 0});
  }
  SUBCASE("int32 data, zero-size data, zero segments") {
    CHECK(iv(tl::unsorted_segment_sum(tl::constant({5, 6, 7}), tl::constant({0, 0, 1}), 2)) == I{11, 7});
    auto e = tl::unsorted_segment_sum(tl::zeros({0, 3}), tl::constant(I{}, {0}), 2);
    CHECK(e.shape() == Shape{2, 3});
    CHECK(fv(e) == F(6, 0.f));
    CHECK(tl::unsorted_segment_sum(tl::zeros({0}), tl::constant(I{}, {0}), 0).shape() == Shape{0});
  }
  SUBCASE("shape rule with unknown dims") {
    auto m = infer("unsorted_segment_sum", {{tl::float32, Shape{-1, 3}}, {tl::int32, Shape{4}}},
                   {{"num_segments", std::int64_t{6}}});
    CHECK(m.shape == Shape{6, 3});
  }
}

TEST_CASE("ops/unsorted_segment_sum: errors name the op and the id") {
  auto data = count({3, 2});
  CHECK_THROWS_WITH_AS(tl::unsorted_segment_sum(data, tl::constant({0, 5, 1}), 4),
                       doctest::Contains("unsorted_segment_sum: segment_ids[1] = 5 is not in [0, 4)"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::unsorted_segment_sum(data, tl::constant({0, 1, -1}), 4),
                       doctest::Contains("segment_ids[2] = -1"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::unsorted_segment_sum(data, tl::constant({0, 1}), 4),
                       doctest::Contains("must be a prefix of the shape of data"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::unsorted_segment_sum(data, tl::constant({0, 1, 0, 1}, {2, 2}), 4),
                       doctest::Contains("unsorted_segment_sum"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::unsorted_segment_sum(data, tl::constant({0, 1, 0}), -1),
                       doctest::Contains("num_segments must be non-negative"), tl::InvalidArgument);
  CHECK_THROWS_AS(tl::unsorted_segment_sum(data, tl::constant({0.f, 1.f, 0.f}), 2), tl::DTypeError);
  CHECK_THROWS_AS(tl::unsorted_segment_sum(tl::constant({true, false}, {2}), tl::constant({0, 1}), 2),
                  tl::DTypeError);
}

TEST_CASE("grad/unsorted_segment_sum: each element gets its segment's gradient") {
  auto dx = grad_of([](const tl::Tensor& t) { return tl::unsorted_segment_sum(t, tl::constant({1, 1, 0}), 3); },
                    count({3, 2}), count({3, 2}, 10));  // u = [[10, 11], [12, 13], [14, 15]]
  CHECK(dx.shape() == Shape{3, 2});
  CHECK(fv(dx) == F{12, 13, 12, 13, 10, 11});
  CHECK_FALSE(rule("unsorted_segment_sum", {count({2}), tl::constant({0, 0})}, {{"num_segments", std::int64_t{1}}},
                   tl::constant({1.f}))[1]
                  .defined());
}

TEST_CASE("ops/broadcast_to: NumPy broadcasting to a given shape") {
  auto y = tl::broadcast_to(tl::constant({1.f, 2.f, 3.f}, {3, 1}), {2, 3, 2});
  CHECK(y.shape() == Shape{2, 3, 2});
  CHECK(fv(y) == F{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
  CHECK(iv(tl::broadcast_to(tl::constant({4, 5}), {2, 2})) == I{4, 5, 4, 5});
  CHECK(tl::broadcast_to(tl::scalar(true), {3}).to_vector<bool>() == std::vector<bool>{true, true, true});
  CHECK(fv(tl::broadcast_to(count({2}), {2})) == F{1, 2});
  CHECK(tl::broadcast_to(count({1, 3}), {0, 3}).shape() == Shape{0, 3});
  CHECK(infer("broadcast_to", {{tl::float32, Shape{-1, 1}}}, {{"shape", Ints{4, 2, 3}}}).shape == Shape{4, 2, 3});
  CHECK_THROWS_WITH_AS(tl::broadcast_to(count({2}), {3}), doctest::Contains("broadcast_to: cannot broadcast f32[2]"),
                       tl::ShapeError);
  CHECK_THROWS_AS(tl::broadcast_to(count({2, 1}), {2}), tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::broadcast_to(count({1}), {-1}), doctest::Contains("sizes must be non-negative"),
                       tl::InvalidArgument);
}

TEST_CASE("grad/broadcast_to: the gradient summed over the broadcast dims") {
  // x (3, 1) -> (2, 3, 2); u = 1..12, u[a, i, k] = 6a + 2i + k + 1: dx[i] = sum over a, k.
  auto dx = grad_of([](const tl::Tensor& t) { return tl::broadcast_to(t, {2, 3, 2}); }, count({3, 1}),
                    count({2, 3, 2}));
  CHECK(dx.shape() == Shape{3, 1});
  CHECK(fv(dx) == F{18, 26, 34});
  auto ds = grad_of([](const tl::Tensor& t) { return tl::broadcast_to(t, {2, 2}); }, tl::scalar(1.f), count({2, 2}));
  CHECK(ds.shape() == Shape{});
  CHECK(fv(ds) == F{10});
}

TEST_CASE("grad/identity: values and gradient pass through") {
  CHECK(iv(tl::identity(tl::constant({1, 2}))) == I{1, 2});
  auto dx = grad_of([](const tl::Tensor& t) { return tl::identity(t); }, count({2, 2}), count({2, 2}, 3));
  CHECK(fv(dx) == F{3, 4, 5, 6});
}

TEST_CASE("grad/stop_gradient: the tape does not see it") {
  auto x = tl::constant({1.f, -2.f, 3.f});
  CHECK(fv(tl::stop_gradient(x)) == F{1, -2, 3});
  SUBCASE("sum(stop_gradient(x) * x) has gradient x, not 2x") {
    tl::GradientTape tape;
    tape.watch(x);
    auto y = tl::reduce_sum(tl::stop_gradient(x) * x);
    CHECK(fv(tape.gradient(y, x)) == F{1, -2, 3});
  }
  SUBCASE("nothing else connects: no gradient (or zeros on request), nothing recorded") {
    tl::GradientTape tape(/*persistent=*/true);
    tape.watch(x);
    auto y = tl::reduce_sum(tl::stop_gradient(x));
    CHECK(tape.size() == 0);
    CHECK_FALSE(tape.gradient(y, x).defined());
    CHECK(fv(tape.gradient(y, x, tl::UnconnectedGradients::zero)) == F{0, 0, 0});
  }
}

}  // namespace grad_array_test
