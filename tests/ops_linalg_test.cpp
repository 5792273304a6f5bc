// matmul against hand-computed products: transposes, batch broadcasting, zero-size dims, errors, unknown dims.
#include <doctest/doctest.h>

#include "test_util.h"

#include <vector>

#include "tracelab/tracelab.h"

namespace ops_linalg_test {

namespace {
using tl::testing::infer;
using tl::testing::f32;

using F = std::vector<float>;



// a = [[1, 2, 3], [4, 5, 6]], b = [[7, 8], [9, 10], [11, 12]]; a @ b = [[58, 64], [139, 154]].
const F kProduct{58, 64, 139, 154};

}  // namespace

TEST_CASE("ops/matmul: 2-D product and transposes") {
  auto a = tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  auto b = tl::constant({7.f, 8.f, 9.f, 10.f, 11.f, 12.f}, {3, 2});
  auto at = tl::constant({1.f, 4.f, 2.f, 5.f, 3.f, 6.f}, {3, 2});      // a^T
  auto bt = tl::constant({7.f, 9.f, 11.f, 8.f, 10.f, 12.f}, {2, 3});   // b^T
  SUBCASE("plain") {
    auto c = tl::matmul(a, b);
    CHECK(c.shape() == tl::Shape{2, 2});
    CHECK(c.dtype() == tl::float32);
    CHECK(c.to_vector<float>() == kProduct);
  }
  SUBCASE("transpose_a") { CHECK(tl::matmul(at, b, true).to_vector<float>() == kProduct); }
  SUBCASE("transpose_b") { CHECK(tl::matmul(a, bt, false, true).to_vector<float>() == kProduct); }
  SUBCASE("both") { CHECK(tl::matmul(at, bt, true, true).to_vector<float>() == kProduct); }
  SUBCASE("b @ a is (3, 3)") {
    // rows of b times columns of a: [7*1+8*4, 7*2+8*5, 7*3+8*6], ...
    auto c = tl::matmul(b, a);
    CHECK(c.shape() == tl::Shape{3, 3});
    CHECK(c.to_vector<float>() == F{39, 54, 69, 49, 68, 87, 59, 82, 105});
  }
  SUBCASE("vector-shaped matrices") {
    auto row = tl::constant({1.f, 2.f, 3.f}, {1, 3});
    auto col = tl::constant({4.f, 5.f, 6.f}, {3, 1});
    CHECK(tl::matmul(row, col).to_vector<float>() == F{32});
    CHECK(tl::matmul(col, row).to_vector<float>() == F{4, 8, 12, 5, 10, 15, 6, 12, 18});
  }
  SUBCASE("outer products (inner dim 1) in every transpose case, batched too") {
    const F outer{4, 8, 12, 5, 10, 15, 6, 12, 18};
    auto col = tl::constant({4.f, 5.f, 6.f}, {3, 1});
    auto row = tl::constant({1.f, 2.f, 3.f}, {1, 3});
    CHECK(tl::matmul(tl::reshape(col, {1, 3}), row, true, false).to_vector<float>() == outer);
    CHECK(tl::matmul(col, tl::reshape(row, {3, 1}), false, true).to_vector<float>() == outer);
    CHECK(tl::matmul(tl::reshape(col, {1, 3}), tl::reshape(row, {3, 1}), true, true).to_vector<float>() == outer);
    auto batch_col = tl::constant({4.f, 5.f, 6.f, 1.f, 1.f, 1.f}, {2, 3, 1});
    auto batch_row = tl::constant({1.f, 2.f, 3.f, 2.f, 0.f, -1.f}, {2, 1, 3});
    CHECK(tl::matmul(batch_col, batch_row).to_vector<float>() ==
          F{4, 8, 12, 5, 10, 15, 6, 12, 18, 2, 0, -1, 2, 0, -1, 2, 0, -1});
  }
}

TEST_CASE("ops/matmul: batches broadcast") {
  SUBCASE("(2, 1, 1, 2) x (3, 2, 1) -> (2, 3, 1, 1)") {
    auto a = tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 1, 1, 2});           // [1, 2] and [3, 4]
    auto b = tl::constant({1.f, 0.f, 0.f, 1.f, 1.f, 1.f}, {3, 2, 1});   // e0, e1, e0 + e1
    auto c = tl::matmul(a, b);
    CHECK(c.shape() == tl::Shape{2, 3, 1, 1});
    CHECK(c.to_vector<float>() == F{1, 2, 3, 3, 4, 7});
  }
  SUBCASE("(2, 1, 3, 4) x (5, 4, 6) -> (2, 5, 3, 6)") {
    auto c = tl::matmul(tl::ones({2, 1, 3, 4}), tl::ones({5, 4, 6}));
    CHECK(c.shape() == tl::Shape{2, 5, 3, 6});
    CHECK(c.to_vector<float>() == F(180, 4.f));
  }
  SUBCASE("a matrix times a batch") {
    auto swap = tl::constant({0.f, 1.f, 1.f, 0.f}, {2, 2});
    auto b = tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f}, {2, 2, 2});
    auto c = tl::matmul(swap, b);  // swaps the rows of each batch matrix
    CHECK(c.shape() == tl::Shape{2, 2, 2});
    CHECK(c.to_vector<float>() == F{3, 4, 1, 2, 7, 8, 5, 6});
  }
  SUBCASE("batched transposes") {
    auto a = tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f}, {2, 2, 2});
    auto c = tl::matmul(a, a, true, false);  // a_i^T a_i
    // [[1,3],[2,4]] @ [[1,2],[3,4]] = [[10,14],[14,20]]; [[5,7],[6,8]] @ [[5,6],[7,8]] = [[74,86],[86,100]]
    CHECK(c.to_vector<float>() == F{10, 14, 14, 20, 74, 86, 86, 100});
  }
}

TEST_CASE("ops/matmul: zero-size dims") {
  SUBCASE("k = 0 gives zeros") {
    auto c = tl::matmul(tl::ones({2, 0}), tl::ones({0, 3}));
    CHECK(c.shape() == tl::Shape{2, 3});
    CHECK(c.to_vector<float>() == F(6, 0.f));
  }
  SUBCASE("m = 0") { CHECK(tl::matmul(tl::ones({0, 3}), tl::ones({3, 2})).shape() == tl::Shape{0, 2}); }
  SUBCASE("n = 0") { CHECK(tl::matmul(tl::ones({2, 3}), tl::ones({3, 0})).shape() == tl::Shape{2, 0}); }
  SUBCASE("empty batch") {
    CHECK(tl::matmul(tl::ones({0, 2, 2}), tl::ones({2, 2})).shape() == tl::Shape{0, 2, 2});
  }
}

TEST_CASE("ops/matmul: errors") {
  SUBCASE("inner dimensions") {
    CHECK_THROWS_WITH_AS(tl::matmul(tl::ones({2, 3}), tl::ones({4, 5})),
                         "matmul: inner dimensions must agree, got (2, 3) and (4, 5)", tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::matmul(tl::ones({7, 2, 3}), tl::ones({4, 5})),
                         "matmul: inner dimensions must agree, got (7, 2, 3) and (4, 5)", tl::ShapeError);
  }
  SUBCASE("inner dimensions after transposes") {
    CHECK_THROWS_WITH_AS(tl::matmul(tl::ones({3, 2}), tl::ones({4, 5}), true),
                         "matmul: inner dimensions must agree, got (3, 2) and (4, 5) with transpose_a (inner dims "
                         "3 vs 4)",
                         tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::matmul(tl::ones({2, 3}), tl::ones({3, 4}), false, true),
                         doctest::Contains("with transpose_b (inner dims 3 vs 4)"), tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::matmul(tl::ones({2, 3}), tl::ones({4, 3}), true, true),
                         doctest::Contains("with transpose_a and transpose_b (inner dims 2 vs 3)"), tl::ShapeError);
    // the same shapes that fail untransposed agree after a transpose
    CHECK(tl::matmul(tl::ones({2, 3}), tl::ones({2, 3}), true).to_vector<float>() == F(9, 2.f));
  }
  SUBCASE("dtype") {
    auto i = tl::constant({1, 2, 3, 4}, {2, 2});
    CHECK_THROWS_WITH_AS(tl::matmul(i, tl::ones({2, 2})), doctest::Contains("matmul: input 0 must be float32"),
                         tl::DTypeError);
    CHECK_THROWS_WITH_AS(tl::matmul(tl::ones({2, 2}), i), doctest::Contains("cast it first"), tl::DTypeError);
  }
  SUBCASE("rank") {
    CHECK_THROWS_WITH_AS(tl::matmul(tl::ones({2, 2}), tl::ones({2})),
                         "matmul: input 1 must have rank >= 2 (a matrix or a batch of matrices), got shape (2,)",
                         tl::ShapeError);
    CHECK_THROWS_WITH_AS(tl::matmul(2.f, tl::ones({2, 2})), doctest::Contains("matmul: input 0 must have rank"),
                         tl::ShapeError);
  }
  SUBCASE("batch dims") {
    CHECK_THROWS_WITH_AS(tl::matmul(tl::ones({2, 2, 3}), tl::ones({3, 3, 4})),
                         "matmul: batch dims (2,) of (2, 2, 3) and (3,) of (3, 3, 4) cannot be broadcast",
                         tl::ShapeError);
  }
  SUBCASE("attribute type") {
    const tl::OpDef& op = tl::OpRegistry::global().get("matmul");
    CHECK_THROWS_WITH_AS(tl::execute(op, {tl::ones({2, 2}), tl::ones({2, 2})}, {{"transpose_a", 1}}),
                         doctest::Contains("matmul: attribute 'transpose_a' must be of type bool"),
                         tl::InvalidArgument);
  }
}

TEST_CASE("ops/matmul: shape rule with unknown dims") {
  CHECK(infer("matmul", {f32({-1, 3}), f32({3, -1})}).shape == tl::Shape{-1, -1});
  CHECK(infer("matmul", {f32({-1, 3}), f32({3, 10})}).shape == tl::Shape{-1, 10});
  CHECK(infer("matmul", {f32({2, -1}), f32({4, 5})}).shape == tl::Shape{2, 5});       // k unknown: not checked
  CHECK(infer("matmul", {f32({-1, 2, 3}), f32({5, 3, 4})}).shape == tl::Shape{5, 2, 4});
  CHECK(infer("matmul", {f32({-1, 2, 3}), f32({3, 4})}).shape == tl::Shape{-1, 2, 4});
  CHECK(infer("matmul", {f32({3, -1}), f32({3, 4})}, {{"transpose_a", true}}).shape == tl::Shape{-1, 4});
  CHECK_THROWS_WITH_AS(infer("matmul", {f32({-1, 3}), f32({4, -1})}), doctest::Contains("matmul: inner"),
                       tl::ShapeError);
  CHECK_THROWS_AS(infer("matmul", {f32({2, -1, 3}), f32({3, 3, 4})}), tl::ShapeError);
}

}  // namespace ops_linalg_test
