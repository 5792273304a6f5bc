// Shape, Tensor handles, creation functions and printing, against hand-written expectations.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tracelab/base/local_array.h"
#include "tracelab/tracelab.h"

namespace tensor_test {

using doctest::Contains;
using F = std::vector<float>;
using I = std::vector<std::int32_t>;

namespace {
bool truth(const tl::Tensor& t) { return static_cast<bool>(t); }

/// Counts live instances; has no default constructor (as tl::AnyArg has none).
struct Counted {
  explicit Counted(int v) : value(v) { ++live; }
  Counted(const Counted& other) : value(other.value) { ++live; }
  Counted& operator=(const Counted&) = delete;
  ~Counted() { --live; }
  int value;
  static inline int live = 0;
};
}  // namespace

TEST_CASE("tensor/shape: num_elements, rank, dim, strides") {
  CHECK(tl::Shape{2, 3}.num_elements() == 6);
  CHECK(tl::Shape{}.num_elements() == 1);
  CHECK(tl::Shape{0, 3}.num_elements() == 0);
  CHECK(tl::Shape{4}.num_elements() == 4);
  CHECK(tl::Shape{2, 3, 4}.rank() == 3);
  CHECK(tl::Shape{}.rank() == 0);
  CHECK(tl::Shape{2, 3, 4}.dim(-1) == 4);
  CHECK(tl::Shape{2, 3, 4}.dim(0) == 2);
  CHECK_THROWS_WITH_AS(tl::Shape({2, 3}).dim(2), Contains("dim index 2 out of range for shape (2, 3)"),
                       tl::InvalidArgument);
  CHECK_THROWS_AS(tl::Shape({2, 3}).dim(-3), tl::InvalidArgument);
  CHECK(tl::Shape{2, 3, 4}.strides() == std::vector<std::int64_t>{12, 4, 1});
  CHECK(tl::Shape{}.strides().empty());

  SUBCASE("unknown dims have no element count") {
    CHECK_THROWS_WITH_AS(tl::Shape({-1, 3}).num_elements(), Contains("(None, 3) has unknown dims"),
                         tl::InvalidArgument);
    CHECK_FALSE(tl::Shape{-1, 3}.is_fully_defined());
    CHECK(tl::Shape{2, 3}.is_fully_defined());
  }
  SUBCASE("overflowing counts are OutOfMemory, zero-size shapes are not") {
    CHECK_THROWS_AS(tl::Shape({1LL << 40, 1LL << 40}).num_elements(), tl::OutOfMemory);
    CHECK_THROWS_AS(tl::Shape({1LL << 62, 16}).num_elements(), tl::OutOfMemory);
    CHECK(tl::Shape{1LL << 40, 1LL << 40, 0}.num_elements() == 0);
    CHECK(tl::Shape{0, 1LL << 62, 1LL << 62}.num_elements() == 0);
  }
  SUBCASE("compatibility and equality") {
    CHECK(tl::Shape{-1, 3}.is_compatible_with(tl::Shape{5, 3}));
    CHECK_FALSE(tl::Shape{-1, 3}.is_compatible_with(tl::Shape{5, 4}));
    CHECK_FALSE(tl::Shape{3}.is_compatible_with(tl::Shape{1, 3}));
    CHECK(tl::Shape{2, 3} == tl::Shape{2, 3});
    CHECK(tl::Shape{2, 3} != tl::Shape{3, 2});
  }
}

TEST_CASE("tensor/shape: DimVector inline and on the heap") {
  using V = std::vector<std::int64_t>;
  tl::DimVector d{2, 3};
  CHECK(d.size() == 2);
  CHECK(d.capacity() == tl::DimVector::kInline);
  for (std::int64_t i = 0; i < 8; ++i) d.push_back(10 + i);  // grows past the inline dims onto the heap
  CHECK(d.size() == 10);
  CHECK(d.vec() == V{2, 3, 10, 11, 12, 13, 14, 15, 16, 17});
  tl::DimVector copy = d;  // heap copy is independent
  copy[0] = 99;
  CHECK(d[0] == 2);
  tl::DimVector moved = std::move(copy);
  CHECK(moved[0] == 99);
  CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from DimVector is empty and usable
  copy.push_back(1);
  CHECK(copy.vec() == V{1});

  tl::DimVector e{1, 2, 3};
  e.insert(e.begin() + 1, 7);
  CHECK(e.vec() == V{1, 7, 2, 3});
  e.insert(e.end(), e.begin(), e.end());  // a range from the vector itself
  CHECK(e.vec() == V{1, 7, 2, 3, 1, 7, 2, 3});
  e.erase(e.begin(), e.begin() + 5);
  CHECK(e.vec() == V{7, 2, 3});
  e.erase(e.begin() + 1);
  CHECK(e.vec() == V{7, 3});
  e.assign(e.begin() + 1, e.end());  // assign from itself
  CHECK(e.vec() == V{3});
  e.resize(3, 5);
  CHECK(e.vec() == V{3, 5, 5});
  CHECK(e == V{3, 5, 5});
  CHECK(tl::Shape(e) == tl::Shape{3, 5, 5});
  tl::Shape big(V{1, 2, 3, 4, 5, 6, 7, 8});  // rank above the inline dims
  CHECK(big.num_elements() == 40320);
  CHECK(big.str() == "(1, 2, 3, 4, 5, 6, 7, 8)");
}

TEST_CASE("tensor/local array: elements made by a function, inline and on the heap; a throwing maker cleans up") {
  for (std::size_t size : {std::size_t{0}, std::size_t{3}, std::size_t{9}}) {  // inline (N = 4) and on the heap
    {
      const tl::detail::LocalArray<Counted, 4> made(size, [](std::size_t i) { return Counted(static_cast<int>(10 * i)); });
      CHECK(made.size() == size);
      CHECK(Counted::live == static_cast<int>(size));
      for (std::size_t i = 0; i < size; ++i) CHECK(made.span()[i].value == static_cast<int>(10 * i));
    }
    CHECK(Counted::live == 0);
    auto failing = [&] {
      tl::detail::LocalArray<Counted, 4> made(size, [](std::size_t i) {
        if (i == 2) throw tl::InvalidArgument("element 2");
        return Counted(1);
      });
    };
    if (size > 2) CHECK_THROWS_WITH_AS(failing(), "element 2", tl::InvalidArgument);
    CHECK(Counted::live == 0);  // the two made before the throw are gone (ASan reports a leaked heap block)
  }
}

TEST_CASE("tensor/shape: str like TensorFlow") {
  CHECK(tl::Shape{2, 3}.str() == "(2, 3)");
  CHECK(tl::Shape{}.str() == "()");
  CHECK(tl::Shape{3}.str() == "(3,)");
  CHECK(tl::Shape{-1, 3}.str() == "(None, 3)");
  CHECK(tl::Shape{0}.str() == "(0,)");
  std::ostringstream out;
  out << tl::Shape{4, 5};
  CHECK(out.str() == "(4, 5)");
}

TEST_CASE("tensor/shape: broadcast_shapes") {
  using S = tl::Shape;
  CHECK(tl::broadcast_shapes("add", S{2, 1}, S{3}) == S{2, 3});
  CHECK(tl::broadcast_shapes("add", S{1, 3}, S{2, 1}) == S{2, 3});
  CHECK(tl::broadcast_shapes("add", S{}, S{2, 3, 4}) == S{2, 3, 4});
  CHECK(tl::broadcast_shapes("add", S{2, 3, 4}, S{}) == S{2, 3, 4});
  CHECK(tl::broadcast_shapes("add", S{0, 3}, S{1, 3}) == S{0, 3});
  CHECK(tl::broadcast_shapes("add", S{0}, S{1}) == S{0});
  CHECK(tl::broadcast_shapes("add", S{3, 1, 1}, S{1, 4, 5}) == S{3, 4, 5});

  SUBCASE("unknown dims") {
    CHECK(tl::broadcast_shapes("add", S{-1, 3}, S{3}) == S{-1, 3});
    CHECK(tl::broadcast_shapes("add", S{-1, 1}, S{1, 4}) == S{-1, 4});
    CHECK(tl::broadcast_shapes("add", S{-1}, S{5}) == S{5});
    CHECK(tl::broadcast_shapes("add", S{5}, S{-1}) == S{5});
    CHECK(tl::broadcast_shapes("add", S{-1}, S{-1}) == S{-1});
    CHECK(tl::broadcast_shapes("add", S{-1}, S{1}) == S{-1});
    CHECK(tl::broadcast_shapes("add", S{1}, S{-1, -1}) == S{-1, -1});
    CHECK_THROWS_AS(tl::broadcast_shapes("add", S{-1, 2}, S{-1, 3}), tl::ShapeError);
  }
  SUBCASE("incompatible shapes name the op and both shapes") {
    CHECK_THROWS_WITH_AS(tl::broadcast_shapes("mul", S{2, 3}, S{4}),
                         Contains("mul: shapes (2, 3) and (4,) cannot be broadcast"), tl::ShapeError);
    CHECK_THROWS_AS(tl::broadcast_shapes("add", S{0}, S{3}), tl::ShapeError);
  }
}

TEST_CASE("tensor/shape: normalize_axis") {
  CHECK(tl::normalize_axis("reduce_sum", -1, 3) == 2);
  CHECK(tl::normalize_axis("reduce_sum", -3, 3) == 0);
  CHECK(tl::normalize_axis("reduce_sum", 2, 3) == 2);
  CHECK_THROWS_WITH_AS(tl::normalize_axis("reduce_sum", 3, 3),
                       Contains("reduce_sum: axis 3 is out of range for rank 3"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::normalize_axis("softmax", -4, 3), Contains("softmax: axis -4"), tl::InvalidArgument);
  CHECK_THROWS_AS(tl::normalize_axis("argmax", 0, 0), tl::InvalidArgument);
}

TEST_CASE("tensor/tensor: empty handles") {
  tl::Tensor t;
  CHECK_FALSE(t.defined());
  CHECK(t.str() == "tl.Tensor(<empty handle>)");
  CHECK_THROWS_WITH_AS(t.dtype(), Contains("empty Tensor handle"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(t.shape(), Contains("empty Tensor handle"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(t.data<float>(), Contains("empty Tensor handle"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(t.to_vector<float>(), Contains("empty Tensor handle"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(t.item<float>(), Contains("empty handle"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(truth(t), Contains("empty Tensor handle"), tl::InvalidArgument);
}

TEST_CASE("tensor/tensor: typed access") {
  auto t = tl::constant({1.5f, -2.f, 3.f, 4.f}, {2, 2});
  CHECK(t.defined());
  CHECK(t.dtype() == tl::float32);
  CHECK(t.shape() == tl::Shape{2, 2});
  CHECK(t.rank() == 2);
  CHECK(t.num_elements() == 4);
  CHECK_FALSE(t.is_symbolic());
  CHECK_FALSE(t.is_weak());
  CHECK(t.data<float>()[0] == 1.5f);
  CHECK(t.data<float>()[3] == 4.f);
  CHECK_THROWS_WITH_AS(t.data<std::int32_t>(), Contains("data: tensor has dtype float32, requested int32"),
                       tl::DTypeError);
  CHECK_THROWS_AS(t.data<bool>(), tl::DTypeError);
  CHECK_THROWS_AS(t.mutable_data<std::int32_t>(), tl::DTypeError);

  SUBCASE("to_vector converts") {
    CHECK(t.to_vector<float>() == F{1.5f, -2.f, 3.f, 4.f});
    CHECK(t.to_vector<std::int32_t>() == I{1, -2, 3, 4});
    CHECK(t.to_vector<bool>() == std::vector<bool>{true, true, true, true});
    CHECK(tl::constant({7, -1}).to_vector<float>() == F{7.f, -1.f});
    CHECK(tl::zeros({0, 3}).to_vector<float>().empty());
  }
  SUBCASE("to_vector<int32> of non-finite or huge floats saturates, never UB") {
    float inf = std::numeric_limits<float>::infinity();
    auto v = tl::constant({std::nanf(""), inf, -inf, 3e9f, -3e9f, -2.7f}).to_vector<std::int32_t>();
    CHECK(v == I{0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, -2});
  }
  SUBCASE("item") {
    CHECK(tl::scalar(3.5f).item<float>() == 3.5f);
    CHECK(tl::scalar(7).item<std::int32_t>() == 7);
    CHECK(tl::scalar(true).item<bool>());
    CHECK(tl::constant({9.f}, {1, 1}).item<float>() == 9.f);
    CHECK_THROWS_WITH_AS(tl::constant({1.f, 2.f}).item<float>(), Contains("got (2,)"), tl::InvalidArgument);
  }
  SUBCASE("operator bool") {
    CHECK(static_cast<bool>(tl::scalar(true)));
    CHECK_FALSE(static_cast<bool>(tl::scalar(false)));
    CHECK_FALSE(static_cast<bool>(tl::scalar(0.f)));
    CHECK(static_cast<bool>(tl::scalar(-0.5f)));
    CHECK(static_cast<bool>(tl::scalar(3)));
    CHECK(static_cast<bool>(tl::constant({1.f}, {1})));
    CHECK_THROWS_WITH_AS(truth(tl::constant({1.f, 2.f})), Contains("(2,) is ambiguous"),
                         tl::InvalidArgument);
  }
  SUBCASE("weak scalars from C++ numbers") {
    tl::Tensor f = 2.5, i = 3, b = true;
    CHECK(f.is_weak());
    CHECK(f.dtype() == tl::float32);
    CHECK(f.rank() == 0);
    CHECK(i.dtype() == tl::int32);
    CHECK(i.item<std::int32_t>() == 3);
    CHECK(b.dtype() == tl::bool_);
    CHECK(tl::Tensor(std::int64_t{INT32_MIN}).item<std::int32_t>() == INT32_MIN);
    CHECK_THROWS_WITH_AS(tl::Tensor(std::int64_t{1} << 40), Contains("does not fit in int32"), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::Tensor(4000000000u), tl::InvalidArgument);
  }
}

TEST_CASE("tensor/creation: constant and scalar") {
  auto a = tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  CHECK(a.shape() == tl::Shape{2, 3});
  CHECK(a.to_vector<float>() == F{1, 2, 3, 4, 5, 6});
  auto i = tl::constant({1, 2, 3});
  CHECK(i.dtype() == tl::int32);
  CHECK(i.shape() == tl::Shape{3});
  auto b = tl::constant({true, false}, {2});
  CHECK(b.dtype() == tl::bool_);
  CHECK(b.to_vector<bool>() == std::vector<bool>{true, false});
  CHECK(tl::constant(std::vector<bool>{false, true, true}, {3}).to_vector<bool>() ==
        std::vector<bool>{false, true, true});
  CHECK(tl::constant(std::vector<float>{}, {0, 2}).shape() == tl::Shape{0, 2});
  CHECK(tl::constant(std::vector<std::int32_t>{5}, {}).item<std::int32_t>() == 5);
  CHECK(tl::scalar(2.f).shape() == tl::Shape{});
  CHECK_FALSE(tl::scalar(2.f).is_weak());

  SUBCASE("count mismatch") {
    CHECK_THROWS_WITH_AS(tl::constant({1.f, 2.f, 3.f}, {2, 2}),
                         Contains("constant: 3 values do not fill shape (2, 2) (4 elements)"), tl::ShapeError);
    CHECK_THROWS_AS(tl::constant(std::vector<bool>{true}, {2}), tl::ShapeError);
    CHECK_THROWS_AS(tl::constant({1, 2}, {3}), tl::ShapeError);
    CHECK_THROWS_AS(tl::constant({1.f}, {-1}), tl::ShapeError);
  }
}

TEST_CASE("tensor/creation: zeros, ones, fill") {
  auto z = tl::zeros({2, 2});
  CHECK(z.dtype() == tl::float32);
  CHECK(z.to_vector<float>() == F{0, 0, 0, 0});
  CHECK(tl::zeros({3}, tl::int32).to_vector<std::int32_t>() == I{0, 0, 0});
  CHECK(tl::zeros({0, 5}).num_elements() == 0);
  CHECK(tl::zeros({}).shape() == tl::Shape{});
  CHECK(tl::ones({2}, tl::bool_).to_vector<bool>() == std::vector<bool>{true, true});
  CHECK(tl::ones({1, 3}).to_vector<float>() == F{1, 1, 1});
  CHECK(tl::ones({2}, tl::int32).to_vector<std::int32_t>() == I{1, 1});

  auto f = tl::fill({2, 3}, 7);
  CHECK(f.dtype() == tl::int32);
  CHECK_FALSE(f.is_weak());
  CHECK(f.to_vector<std::int32_t>() == I{7, 7, 7, 7, 7, 7});
  CHECK(tl::fill({2}, 0.25).to_vector<float>() == F{0.25f, 0.25f});
  CHECK(tl::fill({2}, tl::scalar(true)).to_vector<bool>() == std::vector<bool>{true, true});
  CHECK(tl::fill({0}, 1.f).num_elements() == 0);
  CHECK_THROWS_WITH_AS(tl::fill({2}, tl::constant({1.f, 2.f})),
                       Contains("fill: value must be a scalar, got shape (2,)"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::fill({2}, tl::Tensor()), Contains("fill: value is an empty Tensor handle"),
                       tl::InvalidArgument);
  CHECK_THROWS_AS(tl::zeros({-1, 2}), tl::InvalidArgument);
}

TEST_CASE("tensor/creation: range") {
  // Integer arguments give int32, as tf.range infers; a real argument anywhere gives float32.
  CHECK(tl::range(0, 5).to_vector<std::int32_t>() == I{0, 1, 2, 3, 4});
  CHECK(tl::range(0, 5).dtype() == tl::int32);
  CHECK(tl::range(4).to_vector<std::int32_t>() == I{0, 1, 2, 3});
  CHECK(tl::range(std::int64_t{7}, 1, -3).to_vector<std::int32_t>() == I{7, 4});
  CHECK(tl::range(0., 5.).to_vector<float>() == F{0, 1, 2, 3, 4});
  CHECK(tl::range(0, 5.).dtype() == tl::float32);
  CHECK(tl::range(1, 2, 0.25).to_vector<float>() == F{1, 1.25f, 1.5f, 1.75f});
  CHECK(tl::range(0, 1, 0.3).num_elements() == 4);  // 0, .3, .6, .9
  CHECK(tl::range(5., 0., -2.).to_vector<float>() == F{5, 3, 1});
  CHECK(tl::range(-1, -4, -1, tl::int32).to_vector<std::int32_t>() == I{-1, -2, -3});
  CHECK(tl::range(2, 8, 3, tl::int32).to_vector<std::int32_t>() == I{2, 5});
  CHECK(tl::range(2, 8, 3, tl::int32).dtype() == tl::int32);

  SUBCASE("empty ranges") {
    CHECK(tl::range(3, 3).shape() == tl::Shape{0});
    CHECK(tl::range(3, 0).shape() == tl::Shape{0});
    CHECK(tl::range(0, 3, -1).shape() == tl::Shape{0});
  }
  SUBCASE("bad arguments") {
    CHECK_THROWS_WITH_AS(tl::range(0, 1, 0), Contains("range: delta must be finite and non-zero"),
                         tl::InvalidArgument);
    CHECK_THROWS_AS(tl::range(2'147'483'640, 2'147'483'650LL), tl::InvalidArgument);  // beyond int32
    CHECK_THROWS_AS(tl::range(0, INFINITY), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::range(0, 3, 1, tl::bool_), tl::DTypeError);
    CHECK_THROWS_WITH_AS(tl::range(0.5, 3, 1, tl::int32), Contains("range: int32"), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::range(0, 1e10, 1e9, tl::int32), tl::InvalidArgument);
    CHECK_THROWS_AS(tl::range(0, 1e12), tl::OutOfMemory);
  }
}

TEST_CASE("tensor/printing: like TensorFlow and NumPy") {
  CHECK(tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2}).str() ==
        "tl.Tensor(shape=(2, 2), dtype=float32, values=[[1. 2.] [3. 4.]])");
  CHECK(tl::constant({1.5f, -0.25f, 100.f}).str() == "tl.Tensor(shape=(3,), dtype=float32, values=[1.5 -0.25 100.])");
  CHECK(tl::constant({1, -2, 3, 4, 5, 6}, {2, 1, 3}).str() ==
        "tl.Tensor(shape=(2, 1, 3), dtype=int32, values=[[[1 -2 3]] [[4 5 6]]])");
  CHECK(tl::constant({true, false}, {2}).str() == "tl.Tensor(shape=(2,), dtype=bool, values=[True False])");
  CHECK(tl::constant({0.1f}).values_str() == "[0.1]");

  SUBCASE("scalars") {
    CHECK(tl::scalar(2.5f).str() == "tl.Tensor(shape=(), dtype=float32, values=2.5)");
    CHECK(tl::scalar(3.f).str() == "tl.Tensor(shape=(), dtype=float32, values=3.)");
    CHECK(tl::scalar(-7).str() == "tl.Tensor(shape=(), dtype=int32, values=-7)");
    CHECK(tl::scalar(true).str() == "tl.Tensor(shape=(), dtype=bool, values=True)");
  }
  SUBCASE("nan and inf") {
    float inf = std::numeric_limits<float>::infinity();
    CHECK(tl::constant({std::nanf(""), inf, -inf, 0.f}).values_str() == "[nan inf -inf 0.]");
  }
  SUBCASE("empty tensors print [] like TensorFlow") {
    CHECK(tl::zeros({0}).str() == "tl.Tensor(shape=(0,), dtype=float32, values=[])");
    CHECK(tl::zeros({2, 0}).values_str() == "[]");
  }
  SUBCASE("operator<<") {
    std::ostringstream out;
    out << tl::constant({1, 2});
    CHECK(out.str() == "tl.Tensor(shape=(2,), dtype=int32, values=[1 2])");
  }
  SUBCASE("more than 1000 elements are elided with ...") {
    CHECK(tl::range(0., 1001.).values_str() == "[0. 1. 2. ... 998. 999. 1000.]");
    CHECK(tl::range(0, 1002, 1, tl::int32).str() ==
          "tl.Tensor(shape=(1002,), dtype=int32, values=[0 1 2 ... 999 1000 1001])");
    std::vector<float> v(1002);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
    CHECK(tl::constant(v, {2, 501}).values_str() ==
          "[[0. 1. 2. ... 498. 499. 500.] [501. 502. 503. ... 999. 1000. 1001.]]");
    std::vector<float> w(7 * 200, 1.f);
    CHECK(tl::constant(w, {7, 200}).values_str() ==
          "[[1. 1. 1. ... 1. 1. 1.] [1. 1. 1. ... 1. 1. 1.] [1. 1. 1. ... 1. 1. 1.] ... "
          "[1. 1. 1. ... 1. 1. 1.] [1. 1. 1. ... 1. 1. 1.] [1. 1. 1. ... 1. 1. 1.]]");
  }
  SUBCASE("exactly 1000 elements are printed in full") {
    std::string s = tl::range(0., 1000.).values_str();
    CHECK(s.find("...") == std::string::npos);
    CHECK(s.rfind("998. 999.]") == s.size() - 10);
  }
}

}  // namespace tensor_test
