// Array ops against hand-computed values: reshape, transpose, expand_dims, squeeze, concat, stack, slice,
// gather, one_hot, cast, pad, zeros_like, ones_like. Shape rules with unknown dims are checked via OpDef::infer.
#include <doctest/doctest.h>

#include "test_util.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tracelab/tracelab.h"

namespace ops_array_test {

namespace {
using tl::testing::infer;
using tl::testing::f32;
using tl::testing::i32;

using F = std::vector<float>;
using I = std::vector<std::int32_t>;
using B = std::vector<bool>;
using tl::Ints;
using tl::Shape;

F fv(const tl::Tensor& t) { return t.to_vector<float>(); }
I iv(const tl::Tensor& t) { return t.to_vector<std::int32_t>(); }
B bv(const tl::Tensor& t) { return t.to_vector<bool>(); }

/// 0, 1, 2, ... as float32 of the given shape (built by hand, not by an op under test).
tl::Tensor iota(const Shape& shape) {
  F values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  return tl::constant(values, shape);
}



}  // namespace

TEST_CASE("ops/array: registered with the expected traits") {
  auto& registry = tl::OpRegistry::global();
  for (const char* name : {"reshape", "transpose", "expand_dims", "squeeze", "concat", "stack", "slice", "gather",
                           "pad", "cast"})
    CHECK_MESSAGE(!registry.get(name).has(tl::trait::not_differentiable), name);
  for (const char* name : {"one_hot", "zeros_like", "ones_like"})
    CHECK_MESSAGE(registry.get(name).has(tl::trait::not_differentiable), name);
}

TEST_CASE("ops/reshape: values keep their order") {
  SUBCASE("explicit and inferred sizes") {
    auto y = tl::reshape(iota({6}), {2, 3});
    CHECK(y.shape() == Shape{2, 3});
    CHECK(fv(y) == F{0, 1, 2, 3, 4, 5});
    CHECK(tl::reshape(iota({2, 3}), {3, -1}).shape() == Shape{3, 2});
    CHECK(tl::reshape(iota({2, 3}), {-1}).shape() == Shape{6});
    CHECK(fv(tl::reshape(iota({2, 3}), {-1, 2, 1})) == F{0, 1, 2, 3, 4, 5});
    CHECK(tl::reshape(iota({2, 3}), {-1, 2, 1}).shape() == Shape{3, 2, 1});
  }
  SUBCASE("scalars") {
    auto s = tl::reshape(tl::scalar(7.f), {1, 1});
    CHECK(s.shape() == Shape{1, 1});
    auto back = tl::reshape(s, {});
    CHECK(back.shape() == Shape{});
    CHECK(fv(back) == F{7});
    CHECK(tl::reshape(tl::scalar(7.f), {-1}).shape() == Shape{1});
  }
  SUBCASE("int32 and bool") {
    CHECK(iv(tl::reshape(tl::constant({1, 2, 3, 4}, {4}), {2, 2})) == I{1, 2, 3, 4});
    auto b = tl::reshape(tl::constant({true, false, false, true}, {2, 2}), {4});
    CHECK(b.dtype() == tl::bool_);
    CHECK(bv(b) == B{true, false, false, true});
  }
  SUBCASE("zero-size: -1 next to a 0 follows TensorFlow") {
    CHECK(tl::reshape(tl::zeros({0, 4}), {0, -1}).shape() == Shape{0, 4});
    CHECK(tl::reshape(tl::zeros({0, 4}), {-1, 0}).shape() == Shape{4, 0});
    CHECK(tl::reshape(tl::zeros({0, 4}), {-1, 2}).shape() == Shape{0, 2});
    CHECK(tl::reshape(tl::zeros({0, 4}), {3, 0, 5}).shape() == Shape{3, 0, 5});
  }
  SUBCASE("errors") {
    auto x = iota({2, 3});
    CHECK_THROWS_WITH_AS(tl::reshape(x, {-1, -1}), doctest::Contains("reshape: only one size may be -1"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::reshape(x, {2, -2}), doctest::Contains("reshape: sizes must be >= -1"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::reshape(x, {4, 2}),
                         "reshape: cannot reshape a tensor of shape (2, 3) (6 elements) into shape [4, 2]",
                         tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::reshape(x, {4, -1}), doctest::Contains("into shape [4, -1]"), tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::reshape(x, {0, -1}), doctest::Contains("reshape: cannot reshape"), tl::ShapeError);
    CHECK_THROWS_AS(tl::reshape(x, {1LL << 40, 1LL << 40, 1LL << 40}), tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::execute("reshape", {x}), doctest::Contains("reshape: missing required attribute"),
                         tl::InvalidArgument);
  }
  SUBCASE("unknown dims") {
    CHECK(infer("reshape", {f32({-1, 3})}, {{"shape", Ints{-1}}}).shape == Shape{-1});
    CHECK(infer("reshape", {f32({-1, 3})}, {{"shape", Ints{2, -1}}}).shape == Shape{2, -1});
    CHECK(infer("reshape", {f32({-1, 3})}, {{"shape", Ints{6, 2}}}).shape == Shape{6, 2});
    CHECK(infer("reshape", {f32({-1, 0})}, {{"shape", Ints{5, -1}}}).shape == Shape{5, 0});
    CHECK(infer("reshape", {i32({-1, 3})}, {{"shape", Ints{-1}}}).dtype == tl::int32);
    CHECK_THROWS_WITH_AS(infer("reshape", {f32({-1, 3})}, {{"shape", Ints{4, 2}}}),
                         "reshape: cannot reshape a tensor of shape (None, 3) into shape [4, 2]", tl::ShapeError);
  }
}

TEST_CASE("ops/views: eager reshape, expand_dims, squeeze, identity and stop_gradient share x's buffer") {
  auto& registry = tl::OpRegistry::global();
  for (const char* name : {"reshape", "expand_dims", "squeeze", "identity", "stop_gradient"})
    CHECK_MESSAGE(registry.get(name).has(tl::trait::view), name);
  for (const char* name : {"transpose", "broadcast_to", "slice", "cast"})
    CHECK_MESSAGE(!registry.get(name).has(tl::trait::view), name);
  for (const tl::OpDef* op : registry.all())  // what the funnel's view path assumes
    if (op->has(tl::trait::view))
      CHECK_MESSAGE((op->num_inputs() == 1 && op->num_outputs() == 1 && !op->has(tl::trait::dynamic_outputs) &&
                     !op->has(tl::trait::updates_variables)), op->name());

  tl::Tensor x = iota({1, 2, 3});
  const float* values = x.data<float>();
  for (const tl::Tensor& v : {tl::reshape(x, {3, 2}), tl::expand_dims(x, 0), tl::squeeze(x), tl::identity(x),
                              tl::stop_gradient(x)}) {
    CHECK(v.data<float>() == values);
    CHECK(fv(v) == F{0, 1, 2, 3, 4, 5});
    CHECK_FALSE(tl::detail::exclusively_owned(v));  // never written in place while x holds the buffer
  }
  CHECK(tl::reshape(x, {6}).shape() == Shape{6});
  CHECK(tl::squeeze(x).shape() == Shape{2, 3});
  // A bad shape is the shape rule's error, as before.
  CHECK_THROWS_AS(tl::reshape(x, {4}), tl::ShapeError);

  SUBCASE("a view of a variable's value keeps its values when an optimizer updates the variable in place") {
    tl::Variable var(tl::reshape(iota({4}), {2, 2}), "w");
    tl::Tensor before = tl::reshape(var.read(), {4});
    tl::optimizers::SGD sgd(0.5);  // its sgd_apply kernel updates the variable in place when nobody shares it
    sgd.apply_gradients({tl::ones({2, 2})}, {var});
    CHECK(fv(before) == F{0, 1, 2, 3});
    CHECK(fv(var.read()) == F{-0.5f, 0.5f, 1.5f, 2.5f});
  }
  SUBCASE("traced, the view ops copy into the graph's slots and give the same values") {
    auto f = tl::function(
        [](const tl::Tensor& t) { return tl::identity(tl::squeeze(tl::expand_dims(tl::reshape(t, {3, 2}), 0))); });
    tl::Tensor y = f(x);
    CHECK(y.shape() == Shape{3, 2});
    CHECK(fv(y) == F{0, 1, 2, 3, 4, 5});
  }
}

TEST_CASE("ops/transpose: permutes dims") {
  SUBCASE("default reverses") {
    auto y = tl::transpose(iota({2, 3}));
    CHECK(y.shape() == Shape{3, 2});
    CHECK(fv(y) == F{0, 3, 1, 4, 2, 5});
  }
  SUBCASE("rank 3 with perm {2, 0, 1}: y[k, i, j] = x[i, j, k]") {
    auto y = tl::transpose(iota({2, 3, 4}), {2, 0, 1});
    CHECK(y.shape() == Shape{4, 2, 3});
    CHECK(fv(y) == F{0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
  }
  SUBCASE("rank 3 with perm {0, 2, 1}") {
    auto y = tl::transpose(iota({2, 2, 3}), {0, 2, 1});
    CHECK(y.shape() == Shape{2, 3, 2});
    CHECK(fv(y) == F{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11});
  }
  SUBCASE("identity, scalars, zero-size") {
    CHECK(fv(tl::transpose(iota({2, 3}), {0, 1})) == F{0, 1, 2, 3, 4, 5});
    CHECK(fv(tl::transpose(tl::scalar(3.f))) == F{3});
    CHECK(tl::transpose(tl::zeros({0, 3})).shape() == Shape{3, 0});
  }
  SUBCASE("int32 and bool") {
    CHECK(iv(tl::transpose(tl::constant({1, 2, 3, 4, 5, 6}, {3, 2}))) == I{1, 3, 5, 2, 4, 6});
    CHECK(bv(tl::transpose(tl::constant({true, true, false, false}, {2, 2}))) == B{true, false, true, false});
  }
  SUBCASE("errors") {
    auto x = iota({2, 3});
    CHECK_THROWS_WITH_AS(tl::transpose(x, {0, 0}),
                         "transpose: perm [0, 0] is not a permutation of 0..1 for input of shape (2, 3)",
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::transpose(x, {0}), doctest::Contains("transpose: perm [0]"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::transpose(x, {0, 2}), doctest::Contains("transpose: perm"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::transpose(x, {-1, 0}), doctest::Contains("transpose: perm"), tl::InvalidArgument);
  }
  SUBCASE("unknown dims") {
    CHECK(infer("transpose", {f32({-1, 3})}).shape == Shape{3, -1});
    CHECK(infer("transpose", {f32({-1, 3, 4})}, {{"perm", Ints{1, 2, 0}}}).shape == Shape{3, 4, -1});
  }
}

TEST_CASE("ops/expand_dims: inserts a size-1 dim") {
  auto x = tl::constant({1.f, 2.f});
  CHECK(tl::expand_dims(x, 0).shape() == Shape{1, 2});
  CHECK(tl::expand_dims(x, 1).shape() == Shape{2, 1});
  CHECK(tl::expand_dims(x, -1).shape() == Shape{2, 1});
  CHECK(tl::expand_dims(x, -2).shape() == Shape{1, 2});
  CHECK(fv(tl::expand_dims(x, 1)) == F{1, 2});
  CHECK(tl::expand_dims(tl::scalar(5), 0).shape() == Shape{1});
  CHECK(iv(tl::expand_dims(tl::scalar(5), -1)) == I{5});
  CHECK(bv(tl::expand_dims(tl::constant({true}, {1}), 0)) == B{true});
  CHECK(tl::expand_dims(tl::zeros({0, 2}), 1).shape() == Shape{0, 1, 2});
  CHECK_THROWS_WITH_AS(tl::expand_dims(x, 2),
                       "expand_dims: axis 2 is out of range for f32[2] (expected -2 <= axis <= 1)",
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::expand_dims(x, -3), doctest::Contains("expand_dims: axis -3"), tl::InvalidArgument);
  CHECK(infer("expand_dims", {f32({-1, 3})}, {{"axis", std::int64_t{-1}}}).shape == Shape{-1, 3, 1});
}

TEST_CASE("ops/squeeze: removes size-1 dims") {
  auto x = iota({1, 3, 1});
  SUBCASE("all, listed, negative axes") {
    CHECK(tl::squeeze(x).shape() == Shape{3});
    CHECK(fv(tl::squeeze(x)) == F{0, 1, 2});
    CHECK(tl::squeeze(x, {0}).shape() == Shape{3, 1});
    CHECK(tl::squeeze(x, {-1}).shape() == Shape{1, 3});
    CHECK(tl::squeeze(x, {0, 2}).shape() == Shape{3});
    CHECK(tl::squeeze(tl::ones({1, 1})).shape() == Shape{});
    CHECK(tl::squeeze(tl::scalar(2.f)).shape() == Shape{});
    CHECK(tl::squeeze(tl::zeros({0, 1})).shape() == Shape{0});
  }
  SUBCASE("int32 and bool") {
    CHECK(iv(tl::squeeze(tl::constant({4, 5}, {1, 2}))) == I{4, 5});
    CHECK(bv(tl::squeeze(tl::constant({false, true}, {2, 1}), {1})) == B{false, true});
  }
  SUBCASE("errors") {
    CHECK_THROWS_WITH_AS(tl::squeeze(x, {1}), "squeeze: cannot squeeze axis 1 of f32[1,3,1]: its size is 3, not 1",
                         tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::squeeze(x, {3}), doctest::Contains("squeeze: axis 3 is out of range"),
                         tl::InvalidArgument);
  }
  SUBCASE("unknown dims") {
    CHECK(infer("squeeze", {f32({-1, 1, 3})}, {{"axes", Ints{1}}}).shape == Shape{-1, 3});
    CHECK(infer("squeeze", {f32({1, -1})}, {{"axes", Ints{1}}}).shape == Shape{1});  // assumed to be 1, as TF
    CHECK_THROWS_WITH_AS(infer("squeeze", {f32({-1, 3})}), doctest::Contains("squeeze: cannot squeeze every"),
                         tl::ShapeError);
  }
}

TEST_CASE("ops/concat: joins along an existing axis") {
  SUBCASE("axis 0 and 1") {
    auto a = tl::constant({1.f, 2.f}, {1, 2});
    auto b = tl::constant({3.f, 4.f, 5.f, 6.f}, {2, 2});
    auto y = tl::concat({a, b}, 0);
    CHECK(y.shape() == Shape{3, 2});
    CHECK(fv(y) == F{1, 2, 3, 4, 5, 6});
    auto c = tl::constant({7.f, 8.f}, {2, 1});
    auto z = tl::concat({b, c}, 1);
    CHECK(z.shape() == Shape{2, 3});
    CHECK(fv(z) == F{3, 4, 7, 5, 6, 8});
    CHECK(fv(tl::concat({c, b}, -1)) == F{7, 3, 4, 8, 5, 6});
  }
  SUBCASE("one value, int32, bool, zero-size") {
    CHECK(fv(tl::concat({iota({2})}, 0)) == F{0, 1});
    CHECK(iv(tl::concat({tl::constant({1, 2}), tl::constant({3})}, 0)) == I{1, 2, 3});
    CHECK(bv(tl::concat({tl::constant({true}, {1}), tl::constant({false}, {1})}, 0)) == B{true, false});
    auto e = tl::concat({tl::zeros({2, 0}), tl::ones({2, 3})}, 1);
    CHECK(e.shape() == Shape{2, 3});
    CHECK(fv(e) == F{1, 1, 1, 1, 1, 1});
    CHECK(tl::concat({tl::zeros({0, 2}), tl::zeros({0, 3})}, 1).shape() == Shape{0, 5});
  }
  SUBCASE("more values than the funnel keeps inline") {
    std::vector<tl::Tensor> values;
    for (int i = 0; i < 10; ++i) values.push_back(tl::constant({i}));
    CHECK(iv(tl::concat(values, 0)) == I{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  }
  SUBCASE("errors") {
    CHECK_THROWS_WITH_AS(tl::concat({tl::scalar(1.f), tl::scalar(2.f)}, 0),
                         doctest::Contains("concat: cannot concatenate scalars"), tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::concat({tl::ones({2, 3}), tl::ones({2, 3, 1})}, 0),
                         doctest::Contains("concat: value 1 f32[2,3,1] does not match value 0 f32[2,3]"),
                         tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::concat({tl::ones({2, 3}), tl::ones({3, 3})}, 1),
                         "concat: value 1 f32[3,3] does not match value 0 f32[2,3] in rank or in a dim other than "
                         "axis 1",
                         tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::concat({tl::ones({2}), tl::ones({2}, tl::int32)}, 0), doctest::Contains("concat:"),
                         tl::DTypeError);
    CHECK_THROWS_WITH_AS(tl::concat({tl::ones({2})}, 1), doctest::Contains("concat: axis 1 is out of range"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::concat({}, 0), doctest::Contains("concat: expected at least 1 inputs"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(infer("concat", {f32({2}), i32({2})}, {{"axis", std::int64_t{0}}}),
                         "concat: all values must have one dtype, got f32[2] and i32[2] (value 1)", tl::DTypeError);
  }
  SUBCASE("unknown dims") {
    CHECK(infer("concat", {f32({-1, 2}), f32({3, 2})}, {{"axis", std::int64_t{0}}}).shape == Shape{-1, 2});
    CHECK(infer("concat", {f32({-1, 2}), f32({3, -1})}, {{"axis", std::int64_t{1}}}).shape == Shape{3, -1});
    CHECK(infer("concat", {f32({-1, 2}), f32({-1, 1})}, {{"axis", std::int64_t{1}}}).shape == Shape{-1, 3});
    CHECK_THROWS_AS(infer("concat", {f32({-1, 2}), f32({-1, 3})}, {{"axis", std::int64_t{0}}}), tl::ShapeError);
  }
}

TEST_CASE("ops/stack: joins along a new axis") {
  auto a = tl::constant({1.f, 2.f});
  auto b = tl::constant({3.f, 4.f});
  SUBCASE("axes") {
    CHECK(tl::stack({a, b}).shape() == Shape{2, 2});
    CHECK(fv(tl::stack({a, b})) == F{1, 2, 3, 4});
    CHECK(fv(tl::stack({a, b}, 1)) == F{1, 3, 2, 4});
    CHECK(fv(tl::stack({a, b}, -1)) == F{1, 3, 2, 4});
    CHECK(fv(tl::stack({a, b}, -2)) == F{1, 2, 3, 4});
    auto y = tl::stack({iota({2, 2}), tl::ones({2, 2})}, 1);
    CHECK(y.shape() == Shape{2, 2, 2});
    CHECK(fv(y) == F{0, 1, 1, 1, 2, 3, 1, 1});
  }
  SUBCASE("scalars, weak scalars, int32, bool, zero-size") {
    auto s = tl::stack({tl::scalar(1.f), tl::scalar(2.f), tl::scalar(3.f)});
    CHECK(s.shape() == Shape{3});
    CHECK(fv(s) == F{1, 2, 3});
    auto w = tl::stack({tl::scalar(1.5f), 2});
    CHECK(w.dtype() == tl::float32);
    CHECK(fv(w) == F{1.5f, 2});
    CHECK(iv(tl::stack({tl::constant({1, 2}), tl::constant({3, 4})}, 1)) == I{1, 3, 2, 4});
    CHECK(bv(tl::stack({tl::scalar(true), tl::scalar(false)})) == B{true, false});
    CHECK(tl::stack({tl::zeros({0}), tl::zeros({0})}, 1).shape() == Shape{0, 2});
  }
  SUBCASE("errors") {
    CHECK_THROWS_WITH_AS(tl::stack({a, tl::ones({3})}),
                         "stack: all values must have one shape, got f32[2] and f32[3] (value 1)", tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::stack({a, b}, 2),
                         "stack: axis 2 is out of range for values of rank 1 (expected -2 <= axis <= 1)",
                         tl::InvalidArgument);
    CHECK_THROWS_AS(tl::stack({a, b}, -3), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::stack({a, tl::constant({1, 2})}), doctest::Contains("stack:"), tl::DTypeError);
  }
  SUBCASE("unknown dims") {
    CHECK(infer("stack", {f32({-1, 2}), f32({3, -1})}).shape == Shape{2, 3, 2});
    CHECK(infer("stack", {f32({-1}), f32({-1})}, {{"axis", std::int64_t{1}}}).shape == Shape{-1, 2});
  }
}

TEST_CASE("ops/slice: a box of the input") {
  auto x = iota({3, 4});
  SUBCASE("sizes and -1") {
    auto y = tl::slice(x, {1, 1}, {2, 2});
    CHECK(y.shape() == Shape{2, 2});
    CHECK(fv(y) == F{5, 6, 9, 10});
    CHECK(fv(tl::slice(x, {1, 2}, {-1, 2})) == F{6, 7, 10, 11});
    CHECK(fv(tl::slice(x, {0, 3}, {-1, -1})) == F{3, 7, 11});
    CHECK(fv(tl::slice(x, {2, 0}, {1, -1})) == F{8, 9, 10, 11});
    CHECK(fv(tl::slice(iota({2, 2, 2}), {0, 1, 0}, {2, 1, 2})) == F{2, 3, 6, 7});
  }
  SUBCASE("empty boxes, scalars, int32, bool") {
    CHECK(tl::slice(x, {0, 0}, {0, 4}).shape() == Shape{0, 4});
    CHECK(tl::slice(x, {3, 4}, {-1, -1}).shape() == Shape{0, 0});
    CHECK(fv(tl::slice(tl::scalar(4.f), {}, {})) == F{4});
    CHECK(iv(tl::slice(tl::constant({1, 2, 3, 4}), {1}, {2})) == I{2, 3});
    CHECK(bv(tl::slice(tl::constant({true, false, true}, {3}), {1}, {-1})) == B{false, true});
  }
  SUBCASE("errors") {
    CHECK_THROWS_WITH_AS(tl::slice(x, {1, 3}, {1, 2}),
                         "slice: begin [1, 3] with size [1, 2] is out of bounds for f32[3,4] (dim 1)",
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::slice(x, {4, 0}, {-1, -1}), doctest::Contains("slice: begin [4, 0]"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::slice(x, {-1, 0}, {1, 1}), doctest::Contains("out of bounds"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::slice(x, {0, 0}, {1, -2}), doctest::Contains("out of bounds"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::slice(x, {0}, {1}), doctest::Contains("slice: begin [0] and size [1] must both"),
                         tl::InvalidArgument);
  }
  SUBCASE("unknown dims") {
    tl::Attrs attrs{{"begin", Ints{1, 1}}, {"size", Ints{-1, 2}}};
    CHECK(infer("slice", {f32({-1, 4})}, attrs).shape == Shape{-1, 2});
    CHECK(infer("slice", {f32({-1, 4})}, {{"begin", Ints{5, 1}}, {"size", Ints{2, -1}}}).shape == Shape{2, 3});
    CHECK_THROWS_AS(infer("slice", {f32({-1, 4})}, {{"begin", Ints{0, 1}}, {"size", Ints{1, 4}}}),
                    tl::InvalidArgument);
  }
}

TEST_CASE("ops/gather: picks slices by index") {
  auto params = tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {3, 2});
  SUBCASE("axis 0 and 1, repeated and scalar indices") {
    auto y = tl::gather(params, tl::constant({2, 0, 2}));
    CHECK(y.shape() == Shape{3, 2});
    CHECK(fv(y) == F{5, 6, 1, 2, 5, 6});
    auto z = tl::gather(params, tl::constant({1}), 1);
    CHECK(z.shape() == Shape{3, 1});
    CHECK(fv(z) == F{2, 4, 6});
    CHECK(fv(tl::gather(params, tl::constant({1, 0}), -1)) == F{2, 1, 4, 3, 6, 5});
    auto s = tl::gather(params, 1);
    CHECK(s.shape() == Shape{2});
    CHECK(fv(s) == F{3, 4});
  }
  SUBCASE("2-D indices") {
    auto y = tl::gather(tl::constant({10.f, 20.f, 30.f}), tl::constant({0, 1, 2, 2}, {2, 2}));
    CHECK(y.shape() == Shape{2, 2});
    CHECK(fv(y) == F{10, 20, 30, 30});
    auto z = tl::gather(params, tl::constant({1, 0}, {1, 2}), 1);
    CHECK(z.shape() == Shape{3, 1, 2});
    CHECK(fv(z) == F{2, 1, 4, 3, 6, 5});
  }
  SUBCASE("int32, bool, empty indices") {
    CHECK(iv(tl::gather(tl::constant({7, 8, 9}), tl::constant({2, 2, 0}))) == I{9, 9, 7});
    CHECK(bv(tl::gather(tl::constant({true, false}, {2}), tl::constant({1, 0}))) == B{false, true});
    auto e = tl::gather(params, tl::constant(std::vector<std::int32_t>{}, {0}));
    CHECK(e.shape() == Shape{0, 2});
  }
  SUBCASE("errors") {
    CHECK_THROWS_WITH_AS(tl::gather(params, tl::constant({0, 3})),
                         doctest::Contains("gather: indices[1] = 3 is not in [0, 3)"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::gather(params, tl::constant({-1})),
                         doctest::Contains("gather: indices[0] = -1 is not in [0, 3)"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::gather(params, tl::constant({0, 2}), 1),
                         doctest::Contains("gather: indices[1] = 2 is not in [0, 2)"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::gather(params, tl::constant({1.f})), doctest::Contains("gather: input 1 must be int32"),
                         tl::DTypeError);
    CHECK_THROWS_WITH_AS(tl::gather(tl::scalar(1.f), 0), doctest::Contains("gather: params must have rank >= 1"),
                         tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::gather(params, 0, 2), doctest::Contains("gather: axis 2 is out of range"),
                         tl::InvalidArgument);
  }
  SUBCASE("unknown dims") {
    CHECK(infer("gather", {f32({-1, 4}), i32({-1})}, {{"axis", std::int64_t{1}}}).shape == Shape{-1, -1});
    CHECK(infer("gather", {f32({-1, 4}), i32({2, 3})}).shape == Shape{2, 3, 4});
  }
}

TEST_CASE("ops/one_hot: rows with on_value at the index") {
  SUBCASE("default float32, last axis") {
    auto y = tl::one_hot(tl::constant({0, 2, 1}), 3);
    CHECK(y.shape() == Shape{3, 3});
    CHECK(y.dtype() == tl::float32);
    CHECK(fv(y) == F{1, 0, 0, 0, 0, 1, 0, 1, 0});
  }
  SUBCASE("indices outside [0, depth) give all-off rows") {
    CHECK(fv(tl::one_hot(tl::constant({-1, 3, 1}), 3)) == F{0, 0, 0, 0, 0, 0, 0, 1, 0});
  }
  SUBCASE("on/off values and dtypes") {
    CHECK(fv(tl::one_hot(tl::constant({1, 0}), 2, 5, -1)) == F{-1, 5, 5, -1});
    auto i = tl::one_hot(tl::constant({1}), 3, 7, 2, -1, tl::int32);
    CHECK(i.dtype() == tl::int32);
    CHECK(iv(i) == I{2, 7, 2});
    CHECK(bv(tl::one_hot(tl::constant({2}), 3, 1, 0, -1, tl::bool_)) == B{false, false, true});
  }
  SUBCASE("axis 0 and a middle axis") {
    auto y = tl::one_hot(tl::constant({0, 2}), 3, 1, 0, 0);
    CHECK(y.shape() == Shape{3, 2});
    CHECK(fv(y) == F{1, 0, 0, 0, 0, 1});
    auto z = tl::one_hot(tl::constant({0, 1, 1, 0}, {2, 2}), 2, 1, 0, 1);
    CHECK(z.shape() == Shape{2, 2, 2});
    CHECK(fv(z) == F{1, 0, 0, 1, 0, 1, 1, 0});
  }
  SUBCASE("scalars and zero sizes") {
    auto s = tl::one_hot(tl::scalar(1), 3);
    CHECK(s.shape() == Shape{3});
    CHECK(fv(s) == F{0, 1, 0});
    CHECK(tl::one_hot(tl::constant({0, 1}), 0).shape() == Shape{2, 0});
    CHECK(tl::one_hot(tl::constant(std::vector<std::int32_t>{}, {0}), 4).shape() == Shape{0, 4});
  }
  SUBCASE("errors") {
    auto idx = tl::constant({0, 1});
    CHECK_THROWS_WITH_AS(tl::one_hot(idx, -1), "one_hot: depth must be non-negative, got -1", tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::one_hot(idx, 3, 1, 0, 2),
                         "one_hot: axis 2 is out of range for indices i32[2] (expected -1 or 0 <= axis <= 1)",
                         tl::InvalidArgument);
    CHECK_THROWS_AS(tl::one_hot(idx, 3, 1, 0, -2), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::one_hot(tl::constant({0.f}), 3), doctest::Contains("one_hot: input 0 must be int32"),
                         tl::DTypeError);
    CHECK_THROWS_WITH_AS(tl::one_hot(idx, 3, 0.5, 0, -1, tl::int32),
                         doctest::Contains("one_hot: on_value 0.5 is not a whole number"), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::one_hot(idx, 3, 1, 3e9, -1, tl::int32), tl::InvalidArgument);
  }
  SUBCASE("unknown dims") {
    CHECK(infer("one_hot", {i32({-1})}, {{"depth", std::int64_t{4}}}).shape == Shape{-1, 4});
    auto meta = infer("one_hot", {i32({-1, 2})}, {{"depth", std::int64_t{4}}, {"axis", std::int64_t{1}},
                                                  {"dtype", tl::bool_}});
    CHECK(meta.shape == Shape{-1, 4, 2});
    CHECK(meta.dtype == tl::bool_);
  }
}

TEST_CASE("ops/cast: converts dtypes") {
  constexpr float inf = std::numeric_limits<float>::infinity();
  constexpr std::int32_t imax = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t imin = std::numeric_limits<std::int32_t>::min();
  SUBCASE("float32 -> int32 truncates toward zero and saturates, NaN -> 0") {
    auto x = tl::constant({1.7f, -1.7f, 0.5f, -0.f, 2.5f, std::nanf(""), inf, -inf, 3e9f, -3e9f, 2147483520.f,
                           2147483648.f, -2147483648.f},
                          {13});
    auto y = tl::cast(x, tl::int32);
    CHECK(y.dtype() == tl::int32);
    CHECK(iv(y) == I{1, -1, 0, 0, 2, 0, imax, imin, imax, imin, 2147483520, imax, imin});
  }
  SUBCASE("to bool is != 0 (NaN is true)") {
    CHECK(bv(tl::cast(tl::constant({0.f, -0.f, 0.5f, std::nanf("")}, {4}), tl::bool_)) ==
          B{false, false, true, true});
    CHECK(bv(tl::cast(tl::constant({0, 3, -1}), tl::bool_)) == B{false, true, true});
  }
  SUBCASE("from bool and int32") {
    CHECK(fv(tl::cast(tl::constant({true, false}, {2}), tl::float32)) == F{1, 0});
    CHECK(iv(tl::cast(tl::constant({true, false}, {2}), tl::int32)) == I{1, 0});
    CHECK(fv(tl::cast(tl::constant({-3, 16777217}), tl::float32)) == F{-3, 16777216});
  }
  SUBCASE("same dtype, scalars, zero-size") {
    CHECK(fv(tl::cast(tl::constant({1.5f, 2.5f}), tl::float32)) == F{1.5f, 2.5f});
    CHECK(bv(tl::cast(tl::scalar(true), tl::bool_)) == B{true});
    CHECK(iv(tl::cast(tl::scalar(-2.9f), tl::int32)) == I{-2});
    auto e = tl::cast(tl::zeros({0, 3}), tl::int32);
    CHECK(e.shape() == Shape{0, 3});
    CHECK(e.dtype() == tl::int32);
  }
  SUBCASE("errors and unknown dims") {
    CHECK_THROWS_WITH_AS(tl::execute("cast", {tl::scalar(1.f)}),
                         doctest::Contains("cast: missing required attribute 'dtype'"), tl::InvalidArgument);
    auto meta = infer("cast", {f32({-1, 2})}, {{"dtype", tl::int32}});
    CHECK(meta.shape == Shape{-1, 2});
    CHECK(meta.dtype == tl::int32);
  }
}

TEST_CASE("ops/pad: surrounds with a constant") {
  SUBCASE("rank 2 and rank 1") {
    auto y = tl::pad(tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2}), {1, 0, 0, 1});
    CHECK(y.shape() == Shape{3, 3});
    CHECK(fv(y) == F{0, 0, 0, 1, 2, 0, 3, 4, 0});
    CHECK(fv(tl::pad(tl::constant({1.f, 2.f}), {2, 1}, 9)) == F{9, 9, 1, 2, 9});
    CHECK(fv(tl::pad(tl::constant({1.f, 2.f}, {1, 2}), {0, 1, 1, 0}, -1)) == F{-1, 1, 2, -1, -1, -1});
  }
  SUBCASE("int32, bool, scalars, zero-size") {
    CHECK(iv(tl::pad(tl::constant({5}), {1, 1}, 7)) == I{7, 5, 7});
    CHECK(bv(tl::pad(tl::constant({false}, {1}), {0, 2}, 1)) == B{false, true, true});
    CHECK(fv(tl::pad(tl::scalar(3.f), {})) == F{3});
    auto e = tl::pad(tl::zeros({0, 2}), {1, 1, 0, 0}, 4);
    CHECK(e.shape() == Shape{2, 2});
    CHECK(fv(e) == F{4, 4, 4, 4});
    CHECK(tl::pad(tl::zeros({2, 0}), {0, 0, 0, 0}).shape() == Shape{2, 0});
  }
  SUBCASE("errors") {
    auto x = tl::ones({2, 2});
    CHECK_THROWS_WITH_AS(tl::pad(x, {1, 1}),
                         "pad: paddings [1, 1] must have 2 * rank = 4 entries (before, after per dim) for f32[2,2]",
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::pad(x, {0, 0, -1, 0}), doctest::Contains("pad: paddings must be non-negative"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::pad(tl::constant({1}), {1, 1}, 0.5),
                         doctest::Contains("pad: constant_value 0.5 is not a whole number"), tl::InvalidArgument);
  }
  SUBCASE("unknown dims") {
    CHECK(infer("pad", {f32({-1, 2})}, {{"paddings", Ints{1, 1, 1, 1}}}).shape == Shape{-1, 4});
  }
}

TEST_CASE("ops/zeros_like: zeros of the same dtype and shape") {
  auto z = tl::zeros_like(tl::constant({1.f, 2.f, 3.f}));
  CHECK(z.shape() == Shape{3});
  CHECK(fv(z) == F{0, 0, 0});
  CHECK(iv(tl::zeros_like(tl::constant({4, 5}, {1, 2}))) == I{0, 0});
  CHECK(bv(tl::zeros_like(tl::scalar(true))) == B{false});
  CHECK(tl::zeros_like(tl::ones({0, 3}, tl::int32)).shape() == Shape{0, 3});
  CHECK(infer("zeros_like", {i32({-1, 3})}) == i32({-1, 3}));
}

TEST_CASE("ops/ones_like: ones of the same dtype and shape") {
  auto o = tl::ones_like(tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2}));
  CHECK(o.shape() == Shape{2, 2});
  CHECK(fv(o) == F{1, 1, 1, 1});
  CHECK(o.dtype() == tl::float32);
  CHECK(iv(tl::ones_like(tl::scalar(9))) == I{1});
  CHECK(bv(tl::ones_like(tl::constant({false, false}, {2}))) == B{true, true});
  CHECK(tl::ones_like(tl::zeros({2, 0})).shape() == Shape{2, 0});
  CHECK(infer("ones_like", {f32({-1})}) == f32({-1}));
}

}  // namespace ops_array_test
