// The error hierarchy and the funnel's checks: every failure is a typed tl::Error naming what went wrong, and
// the engine keeps working afterwards.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace errors_test {

using doctest::Contains;

namespace {

template <class E>
void check_error_class(const char* kind) {
  CAPTURE(kind);
  try {
    throw E("op: something went wrong");
  } catch (const tl::Error& e) {
    CHECK(std::string(e.kind()) == kind);
    CHECK(std::string(e.what()) == "op: something went wrong");
    CHECK(dynamic_cast<const E*>(&e) != nullptr);
  }
  CHECK_THROWS_AS(throw E("x"), std::runtime_error);
  CHECK_THROWS_AS(throw E("x"), E);
}

/// An op with attributes, built locally so the attribute checks are tested independently of the op families.
const tl::OpDef& attr_test_op() {
  static const tl::OpDef op = [] {
    tl::OpDef def("attr_test");
    def.doc("x, with some attributes").inputs(1)
        .attr<std::int64_t>("axis", true)
        .attr<bool>("keepdims")
        .attr<tl::Ints>("perm")
        .shape_fn([](tl::ShapeContext& ctx) { ctx.output() = ctx.input(0); })
        .kernel([](tl::KernelContext& ctx) {
          auto n = static_cast<std::size_t>(ctx.input(0).num_elements());
          const float* x = ctx.input(0).data<float>();
          float* y = ctx.output().mutable_data<float>();
          for (std::size_t i = 0; i < n; ++i) y[i] = x[i] + static_cast<float>(ctx.attrs.get<std::int64_t>("axis"));
        });
    return def;
  }();
  return op;
}

}  // namespace

TEST_CASE("errors: every class is a tl::Error with its kind") {
  check_error_class<tl::Error>("Error");
  check_error_class<tl::ShapeError>("ShapeError");
  check_error_class<tl::DTypeError>("DTypeError");
  check_error_class<tl::InvalidArgument>("InvalidArgument");
  check_error_class<tl::OutOfMemory>("OutOfMemory");
}

TEST_CASE("errors: TL_CHECK builds the message from its parts") {
  auto fail = [] { TL_CHECK(1 + 1 == 3, tl::ShapeError, "matmul: got ", tl::Shape{2, 3}, " and ", 4); };
  CHECK_THROWS_WITH_AS(fail(), "matmul: got (2, 3) and 4", tl::ShapeError);
  CHECK_NOTHROW(TL_CHECK(true, tl::ShapeError, "never"));
}

TEST_CASE("errors: errors from ops are catchable as tl::Error") {
  try {
    tl::add(tl::zeros({2, 3}), tl::zeros({4}));
    FAIL("expected an error");
  } catch (const tl::Error& e) {
    CHECK(std::string(e.kind()) == "ShapeError");
    CHECK(std::string(e.what()).find("add: shapes (2, 3) and (4,)") == 0);
  }
}

TEST_CASE("errors: absurd allocations are OutOfMemory and the engine keeps working") {
  CHECK_THROWS_WITH_AS(tl::zeros({1 << 20, 1 << 20}), Contains("(1048576, 1048576)"), tl::OutOfMemory);
  CHECK_THROWS_AS(tl::zeros({1LL << 62, 16}), tl::OutOfMemory);
  CHECK_THROWS_AS(tl::ones({1LL << 40, 1LL << 40}, tl::int32), tl::OutOfMemory);
  CHECK_THROWS_AS(tl::fill({1LL << 31, 1LL << 31}, 1.f), tl::OutOfMemory);
  CHECK_THROWS_AS(tl::Generator(1).uniform({1LL << 40, 1LL << 20}), tl::OutOfMemory);
  CHECK_THROWS_AS(tl::add(tl::zeros({1 << 20, 1}), tl::zeros({1, 1 << 20})), tl::OutOfMemory);
  try {
    tl::zeros({1LL << 62, 16});
  } catch (const tl::Error& e) {
    CHECK(std::string(e.kind()) == "OutOfMemory");
  }

  auto y = tl::constant({1.f, 2.f, 3.f}) * 2 + tl::constant({0.5f});
  CHECK(y.to_vector<float>() == std::vector<float>{2.5f, 4.5f, 6.5f});
  CHECK(tl::zeros({1000, 10}).num_elements() == 10000);
}

TEST_CASE("errors: attributes are checked by the funnel") {
  auto x = tl::constant({1.f, 2.f});
  SUBCASE("an op without attributes rejects any") {
    CHECK_THROWS_WITH_AS(tl::execute("add", {x, x}, {{"axis", 1}}), Contains("add: unknown attribute 'axis'"),
                         tl::InvalidArgument);
    CHECK(tl::execute("add", {x, x}).to_vector<float>() == std::vector<float>{2, 4});
  }
  SUBCASE("declared attributes: type, presence, unknown names") {
    const tl::OpDef& op = attr_test_op();
    CHECK(tl::execute(op, {x}, {{"axis", 1}}).to_vector<float>() == std::vector<float>{2, 3});
    CHECK(tl::execute(op, {x}, {{"axis", 1}, {"keepdims", true}, {"perm", tl::Ints{0}}}).num_elements() == 2);
    CHECK_THROWS_WITH_AS(tl::execute(op, {x}, {{"axis", 1.5}}),
                         Contains("attr_test: attribute 'axis' must be of type int, got float"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::execute(op, {x}, {{"axis", 1}, {"keepdims", 1}}),
                         Contains("attr_test: attribute 'keepdims' must be of type bool, got int"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::execute(op, {x}, {{"axis", 1}, {"perm", std::string("x")}}),
                         Contains("must be of type ints, got string"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::execute(op, {x}, {{"keepdims", true}}),
                         Contains("attr_test: missing required attribute 'axis'"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(tl::execute(op, {x}, {{"axis", 1}, {"axes", 1}}),
                         Contains("attr_test: unknown attribute 'axes'"), tl::InvalidArgument);
    const std::string long_name(40, 'k');  // longer than AttrName keeps inline
    CHECK_THROWS_WITH_AS(tl::execute(op, {x}, {{"axis", 1}, {long_name, 1}}),
                         Contains(("attr_test: unknown attribute '" + long_name + "'").c_str()), tl::InvalidArgument);
  }
  SUBCASE("attributes that passed an op's check are not checked again for it, until they change") {
    const tl::OpDef& op = attr_test_op();
    tl::Attrs attrs{{"axis", 1}};
    CHECK(attrs.checked_by() == 0);
    CHECK(tl::execute(op, {x}, attrs).num_elements() == 2);
    const std::uint64_t checked = attrs.checked_by();
    CHECK(checked != 0);
    tl::Attrs copy = attrs;  // the same attributes: still checked
    CHECK(copy.checked_by() == checked);
    copy.set("axis", 1.5);  // changed: checked again, and rejected
    CHECK(copy.checked_by() == 0);
    CHECK_THROWS_WITH_AS(tl::execute(op, {x}, copy), Contains("attribute 'axis' must be of type int, got float"),
                         tl::InvalidArgument);
    // Another op checks them itself: add takes no attributes.
    CHECK_THROWS_WITH_AS(tl::execute("add", {x, x}, attrs), Contains("add: unknown attribute 'axis'"),
                         tl::InvalidArgument);
    CHECK(attrs.checked_by() == checked);
    // An op that gains an attribute spec checks attributes it accepted before again.
    tl::OpDef grown("grown_attr_test");
    grown.inputs(1).attr<std::int64_t>("axis")
        .shape_fn([](tl::ShapeContext& ctx) { ctx.output() = ctx.input(0); })
        .kernel([](tl::KernelContext&) {});
    CHECK(tl::execute(grown, {x}, attrs).num_elements() == 2);
    const std::uint64_t before_growth = attrs.checked_by();
    CHECK(before_growth != checked);
    grown.attr<bool>("flag", /*required=*/true);
    CHECK_THROWS_WITH_AS(tl::execute(grown, {x}, attrs), Contains("missing required attribute 'flag'"),
                         tl::InvalidArgument);
    CHECK(attrs.checked_by() == before_growth);
  }
  SUBCASE("attribute names inline and on the heap, copied and moved") {
    const std::string long_name = "a_name_longer_than_twenty_two_characters";
    tl::Attrs attrs{{"short", 1}, {long_name, 2}};
    attrs.set("another_long_attribute_name_here", 3).set(long_name, 4);
    tl::Attrs copy = attrs;
    tl::Attrs moved = std::move(copy);
    CHECK(moved.get<std::int64_t>(long_name) == 4);
    CHECK(moved.get<std::int64_t>("another_long_attribute_name_here") == 3);
    CHECK(moved.str() == "short=1, " + long_name + "=4, another_long_attribute_name_here=3");
    CHECK(moved == attrs);
    tl::AttrName name = long_name;
    name = tl::AttrName("x");
    CHECK(name == "x");
    name = tl::AttrName(long_name);
    CHECK(name.view() == long_name);
  }
  SUBCASE("names compared whole: same length, different last or first character; repeated names") {
    CHECK(tl::Attrs{{"a", 1}, {"a", 2}}.str() == "a=2");  // a repeated name keeps the last value
    CHECK(!(tl::Attrs{{"transpose_a", true}} == tl::Attrs{{"transpose_b", true}}));
    CHECK(tl::Attrs{{"transpose_a", true}}.has("transpose_a"));
    CHECK(!tl::Attrs{{"transpose_a", true}}.has("transpose_b"));
    CHECK(!tl::Attrs{{"transpose_a", true}}.has("transpose"));
    CHECK(tl::Attrs{{"", 1}}.has(""));
    // Compared eight bytes at a time, then byte by byte: a difference at every place of every length up to 40 is
    // seen, and a name equals itself.
    for (std::size_t length = 0; length <= 40; ++length) {
      std::string name;
      for (std::size_t i = 0; i < length; ++i) name += static_cast<char>('a' + i % 26);
      const tl::AttrName held(name);
      CHECK(held == name);
      for (std::size_t i = 0; i < length; ++i) {
        std::string other = name;
        other[i] = '_';
        CHECK_MESSAGE(!(held == other), "length ", length, ", differing at ", i);
      }
      CHECK(!(held == name + "x"));
    }
    // Names held on the heap, and differences in the first word and the tail.
    CHECK(!tl::Attrs{{"abcdefgh_x", 1}}.has("abcdefgX_x"));
    CHECK(!tl::Attrs{{"abcdefgh_x", 1}}.has("abcdefgh_y"));
    CHECK(tl::Attrs{{"abcdefgh_x", 1}}.has("abcdefgh_x"));
    const std::string long_name(40, 'n'), other = long_name.substr(0, 39) + "m";
    CHECK(tl::Attrs{{long_name, 1}}.has(long_name));
    CHECK(!tl::Attrs{{long_name, 1}}.has(other));
    CHECK(!tl::Attrs{{long_name, 1}}.has(long_name.substr(0, 39)));
  }
  SUBCASE("Attrs itself") {
    tl::Attrs attrs{{"axes", tl::Ints{1, 2}}, {"keepdims", true}, {"n", 3}, {"dtype", tl::int32}};
    CHECK(attrs.get<tl::Ints>("axes") == tl::Ints{1, 2});
    CHECK(attrs.get<std::int64_t>("n") == 3);
    CHECK(attrs.get_or("keepdims", false));
    CHECK(attrs.get_or<std::int64_t>("missing", 7) == 7);
    CHECK(attrs.str() == "axes=[1, 2], keepdims=true, n=3, dtype=int32");
    CHECK_THROWS_WITH_AS(attrs.get<bool>("n"), Contains("attribute 'n' has type int, expected bool"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(attrs.get<bool>("nope"), Contains("missing attribute 'nope'"), tl::InvalidArgument);
  }
}

TEST_CASE("errors: input counts, unknown ops, empty handles") {
  auto x = tl::constant({1.f, 2.f});
  CHECK_THROWS_WITH_AS(tl::execute("add", {x}), Contains("add: expected 2 inputs, got 1"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::execute("neg", {x, x}), Contains("neg: expected 1 inputs, got 2"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::execute("where", {}), Contains("where: expected 3 inputs, got 0"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::OpRegistry::global().get("nope"), Contains("unknown op 'nope'"), tl::InvalidArgument);
  CHECK(tl::OpRegistry::global().find("nope") == nullptr);
  CHECK_THROWS_WITH_AS(tl::execute("nope", {x}), Contains("unknown op 'nope'"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::add(tl::Tensor(), x), Contains("add: input 0 is an empty Tensor handle"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::mul(x, tl::Tensor()), Contains("mul: input 1 is an empty Tensor handle"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::relu(tl::Tensor()), Contains("relu: input 0 is an empty Tensor handle"),
                       tl::InvalidArgument);
  CHECK_THROWS_AS(tl::where(tl::Tensor(), x, x), tl::InvalidArgument);
}

TEST_CASE("errors: a kernel error leaves the engine usable") {
  CHECK_THROWS_AS(tl::pow(tl::constant({2, 2}), tl::constant({1, -1})), tl::InvalidArgument);
  CHECK(tl::pow(tl::constant({2, 2}), tl::constant({1, 2})).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{2, 4});
}

TEST_CASE("errors: the registry rejects duplicate names") {
  CHECK_THROWS_WITH_AS(tl::OpRegistry::global().op("add"), Contains("op 'add' is registered twice"),
                       tl::InvalidArgument);
  CHECK(tl::OpRegistry::global().get("add").num_inputs() == 2);
}

}  // namespace errors_test
