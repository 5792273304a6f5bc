// The graph IR: building by hand, the text form (golden strings), unknown dims, errors that leave the graph
// unchanged, the verifier, and the JSON form (exact round trips, a table of malformed documents).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "test_util.h"
#include "tracelab/graph/graph.h"

namespace tl::graph_test {
namespace {

using graph::Graph;
using graph::NodeKind;
using graph::ValueRef;
using testing::f32;

/// The ragged-input model's forward pass, relu(matmul(reduce_max(x, axis 1), w) + b) with x: f32[batch,?,20],
/// returning the activations and the pooled features.
Graph ragged_model(std::int64_t batch) {
  Graph g;
  auto x = g.add_input(f32({batch, -1, 20}), "x");
  auto w = g.add_constant(Generator(7).uniform({20, 10}, -0.5, 0.5));
  auto b = g.add_constant(range(-0.5, 0.5, 0.1));
  auto pooled = g.add_op("reduce_max", {x}, {{"axes", Ints{1}}, {"keepdims", true}})[0];
  auto hidden = g.add_op("matmul", {pooled, w}, {{"transpose_b", false}})[0];
  auto y = g.add_op("relu", g.add_op("add", {hidden, b}))[0];
  g.set_outputs({y, pooled});
  return g;
}

/// The bits of a float, so NaN payloads and -0 compare exactly.
std::uint32_t bits(float value) {
  std::uint32_t out;
  std::memcpy(&out, &value, sizeof out);
  return out;
}

float from_bits(std::uint32_t value) {
  float out;
  std::memcpy(&out, &value, sizeof out);
  return out;
}

using testing::same_bits;

/// A two-output op that is not in the registry: splits the last dim into its first element and the rest.
const OpDef& head_tail_op() {
  static const OpDef op = [] {
    OpDef def("head_tail");
    def.inputs(1).outputs(2).shape_fn([](ShapeContext& ctx) {
      Shape head = ctx.input(0).shape, tail = head;
      std::int64_t last = head.dims().back();
      head.dims().back() = 1;
      tail.dims().back() = last < 0 ? -1 : last - 1;
      ctx.output(0) = {ctx.input(0).dtype, head};
      ctx.output(1) = {ctx.input(0).dtype, tail};
    });
    return def;
  }();
  return op;
}

}  // namespace

TEST_CASE("graph/text form of the ragged-input model") {
  Graph g = ragged_model(1);
  CHECK(g.str() ==
        "graph(%0: f32[1,?,20] {name=\"x\"}) {\n"
        "  %1: f32[20,10] = const f32[20,10]\n"
        "  %2: f32[10] = const f32[10]\n"
        "  %3: f32[1,1,20] = reduce_max %0 {axes=[1], keepdims=true}\n"
        "  %4: f32[1,1,10] = matmul %3, %1 {transpose_b=false}\n"
        "  %5: f32[1,1,10] = add %4, %2\n"
        "  %6: f32[1,1,10] = relu %5\n"
        "  return %6, %3\n"
        "}\n");
  CHECK(g.num_nodes() == 7);
  CHECK(g.count(NodeKind::input) == 1);
  CHECK(g.count(NodeKind::constant) == 2);
  CHECK(g.op_counts() == std::map<std::string, std::size_t>{
                             {"add", 1}, {"matmul", 1}, {"reduce_max", 1}, {"relu", 1}});
  CHECK(g.inputs() == std::vector<ValueRef>{{0, 0}});
  CHECK(g.node(4).op == &OpRegistry::global().get("matmul"));
  CHECK(g.node(4).label() == "matmul");
  g.verify();
}

TEST_CASE("graph/unknown dims propagate") {
  Graph g = ragged_model(-1);
  CHECK(g.meta({3, 0}) == f32({-1, 1, 20}));
  CHECK(g.meta({4, 0}) == f32({-1, 1, 10}));
  CHECK(g.meta({6, 0}) == f32({-1, 1, 10}));
  CHECK(g.str().find("%6: f32[?,1,10] = relu %5") != std::string::npos);
  g.verify();
  SUBCASE("fully unknown shapes stay unknown through elementwise ops") {
    Graph h;
    auto a = h.add_input(f32({-1, -1}));
    auto c = h.add_constant(scalar(2.f));
    auto y = h.add_op("mul", {a, c})[0];
    CHECK(h.meta(y) == f32({-1, -1}));
    CHECK(h.str() == "graph(%0: f32[?,?]) {\n  %1: f32[] = const 2.0\n  %2: f32[?,?] = mul %0, %1\n  return\n}\n");
  }
}

TEST_CASE("graph/add_op errors leave the graph unchanged") {
  Graph g = ragged_model(1);
  const std::string before = g.str();
  ValueRef x{0, 0}, w{1, 0}, b{2, 0};
  CHECK_THROWS_AS(g.add_op("matmul", {x, b}), ShapeError);                           // rank-1 operand
  CHECK_THROWS_AS(g.add_op("matmul", {w, w}), ShapeError);                           // [20,10] x [20,10]
  CHECK_THROWS_AS(g.add_op("relu", {x}, {{"alpha", 0.5}}), InvalidArgument);        // unknown attribute
  CHECK_THROWS_AS(g.add_op("reduce_max", {x}, {{"axes", 1}}), InvalidArgument);      // int, not ints
  CHECK_THROWS_AS(g.add_op("add", {x}), InvalidArgument);                            // input count
  CHECK_THROWS_AS(g.add_op("add", {x, {99, 0}}), InvalidArgument);                   // no such node
  CHECK_THROWS_AS(g.add_op("add", {x, {1, 1}}), InvalidArgument);                    // no such output
  CHECK_THROWS_AS(g.add_op("no_such_op", {x}), InvalidArgument);
  CHECK_THROWS_AS(g.add_op("add", {x, g.add_constant(scalar(1))}), DTypeError);      // f32 + i32
  CHECK_THROWS_AS(g.add_constant(Tensor()), InvalidArgument);
  CHECK_THROWS_AS(g.set_outputs({{42, 0}}), InvalidArgument);
  CHECK_THROWS_AS(g.add_input(f32({-2})), InvalidArgument);
  CHECK_THROWS_WITH_AS(g.add_op("add", {x, {99, 0}}),
                       "add: input 1 refers to %99, which is not in the graph (8 nodes)", InvalidArgument);
  CHECK(g.num_nodes() == 8);  // only the int32 constant was added
  CHECK(g.outputs() == std::vector<ValueRef>{{6, 0}, {3, 0}});
  CHECK(g.str() == before.substr(0, before.find("  return")) + "  %7: i32[] = const 1\n  return %6, %3\n}\n");
}

TEST_CASE("graph/constants print their values up to 8 elements") {
  Graph g;
  g.add_constant(constant({1.f, NAN, -INFINITY, -0.f, 1e20f, 0.1f}, {2, 3}));
  g.add_constant(constant({1, -2, 3}, {3}));
  g.add_constant(constant({true, false}, {2}));
  g.add_constant(zeros({0, 2}));
  g.add_constant(zeros({9}, int32));
  g.add_constant(Tensor(3));  // a weak scalar becomes a plain int32 constant
  CHECK(g.str() ==
        "graph() {\n"
        "  %0: f32[2,3] = const [[1.0, nan, -inf], [-0.0, 1e+20, 0.1]]\n"
        "  %1: i32[3] = const [1, -2, 3]\n"
        "  %2: bool[2] = const [true, false]\n"
        "  %3: f32[0,2] = const []\n"
        "  %4: i32[9] = const i32[9]\n"
        "  %5: i32[] = const 3\n"
        "  return\n"
        "}\n");
  CHECK_FALSE(g.node(5).value.is_weak());
}

TEST_CASE("graph/multi-output nodes print as %n#k") {
  Graph g;
  auto x = g.add_input(f32({-1, 5}), "x");
  auto parts = g.add_op(head_tail_op(), {x});
  REQUIRE(parts.size() == 2);
  CHECK(parts[1] == ValueRef{1, 1});
  auto y = g.add_op("neg", {parts[1]})[0];
  g.set_outputs({parts[0], y});
  CHECK(g.str() ==
        "graph(%0: f32[?,5] {name=\"x\"}) {\n"
        "  %1#0: f32[?,1], %1#1: f32[?,4] = head_tail %0\n"
        "  %2: f32[?,4] = neg %1#1\n"
        "  return %1, %2\n"
        "}\n");
  g.verify();
  // An op outside the registry cannot be loaded back.
  CHECK_THROWS_WITH_AS(Graph::from_json(g.to_json()), "graph JSON: unknown op 'head_tail' at node 1",
                       InvalidArgument);
}

TEST_CASE("graph/attributes of every type print and round-trip through JSON") {
  Graph g;
  auto ids = g.add_input({int32, {-1}}, "ids \"quoted\"\n");
  auto hot = g.add_op("one_hot", {ids}, {{"depth", 4}, {"on_value", 0.1}, {"off_value", -INFINITY},
                                         {"axis", -1}, {"dtype", float32}})[0];
  auto image = g.add_op("reshape", {hot}, {{"shape", Ints{1, -1, 4, 1}}})[0];
  auto filter = g.add_constant(ones({3, 3, 1, 2}));
  auto conv = g.add_op("conv2d", {image, filter}, {{"strides", Ints{1, 1}}, {"padding", std::string("SAME")}})[0];
  auto padded = g.add_op("pad", {conv}, {{"paddings", Ints{0, 0, 1, 1, 0, 0, 0, 0}}, {"constant_value", 1e-300}})[0];
  g.set_outputs({g.add_op("cast", {padded}, {{"dtype", int32}})[0]});
  std::string text = g.str();
  CHECK(text.find("one_hot %0 {depth=4, on_value=0.1, off_value=-inf, axis=-1, dtype=f32}") != std::string::npos);
  CHECK(text.find("{strides=[1, 1], padding=\"SAME\"}") != std::string::npos);
  CHECK(text.find("constant_value=1e-300}") != std::string::npos);
  CHECK(text.find("{name=\"ids \\\"quoted\\\"\\n\"}") != std::string::npos);
  Graph back = Graph::from_json(g.to_json());
  CHECK(back.str() == text);
  for (std::size_t i = 0; i < g.num_nodes(); ++i) CHECK(back.node(i).attrs == g.node(i).attrs);
  CHECK(back.node(0).name == "ids \"quoted\"\n");
}

TEST_CASE("graph/JSON round trip keeps the text form and the exact constant bits") {
  Graph g = ragged_model(-1);
  std::vector<float> specials = {NAN, -NAN, from_bits(0x7fc00001), INFINITY, -INFINITY, -0.f, 0.1f, 1e-45f,
                                 std::numeric_limits<float>::max(), -std::numeric_limits<float>::min(), 16777216.f,
                                 1.f / 3};
  auto c = g.add_constant(constant(specials, {3, 4}));
  g.add_constant(constant({true, false, true}, {3}));
  g.add_constant(constant({std::numeric_limits<std::int32_t>::min(), 0, std::numeric_limits<std::int32_t>::max()}, {3}));
  g.add_constant(zeros({0}));
  g.set_outputs({c, {6, 0}});
  std::string json = g.to_json();
  Graph back = Graph::from_json(json);
  CHECK(back.str() == g.str());
  CHECK(back.to_json() == json);
  REQUIRE(back.num_nodes() == g.num_nodes());
  for (std::size_t i = 0; i < g.num_nodes(); ++i)
    if (g.node(i).kind == NodeKind::constant) CHECK(same_bits(back.node(i).value, g.node(i).value));
  const float* values = back.node(c.node).value.data<float>();
  CHECK(bits(values[1]) == bits(-NAN));
  CHECK(bits(values[2]) == 0x7fc00001u);
  CHECK(json.find("\"nan\"") != std::string::npos);
  CHECK(json.find("0.1,") != std::string::npos);  // shortest digits, not 0.10000000149011612
  back.verify();
}

TEST_CASE("graph/JSON loader rejects malformed documents with a clear message") {
  const std::string head = R"({"format": "tracelab.graph", "version": 1, "nodes": [)";
  const std::string x = R"({"kind": "input", "name": "x", "dtype": "float32", "shape": [2, 3]})";
  const std::string w = R"({"kind": "const", "dtype": "float32", "shape": [3, 1], "values": [1, 2, 3]})";
  auto doc = [&](const std::string& nodes, const std::string& outputs = "[]") {
    return head + nodes + R"(], "outputs": )" + outputs + "}";
  };
  auto matmul = [](const std::string& inputs, const std::string& out = "[2, 1]") {
    return R"({"kind": "op", "op": "matmul", "inputs": )" + inputs +
           R"(, "attrs": {}, "outputs": [{"dtype": "float32", "shape": )" + out + "}]}";
  };
  struct Case { std::string text, message; };
  const Case cases[] = {
      {"", "graph JSON: parse error at byte 1: "},
      {R"({"format": "tracelab.graph", "version": 1, "nodes": [}], "outputs": []})", "parse error at byte 54: "},
      {"[1, 2]", "graph JSON: the document must be an object, got array"},
      {std::string(100, '['), "graph JSON: nesting deeper than 32 levels at byte 32"},
      {R"({"format": "onnx", "version": 1, "nodes": [], "outputs": []})", "format is 'onnx'"},
      {R"({"format": "tracelab.graph", "version": 2, "nodes": [], "outputs": []})", "unsupported version 2"},
      {R"({"format": "tracelab.graph", "version": 1, "outputs": []})", "graph JSON: missing key 'nodes'"},
      {doc(x + R"(, {"kind": "op", "op": "foo", "inputs": [], "outputs": []})"), "graph JSON: unknown op 'foo' at node 1"},
      {doc(x + ", " + w + ", " + matmul("[[0, 0], [3, 0]]")),
       "graph JSON: node 2 (matmul): input 1 refers to node 3, which comes later"},
      {doc(x + ", " + w + ", " + matmul("[[0, 0], [2, 0]]")), "node 2 (matmul): input 1 refers to node 2, which is the node itself"},
      {doc(x + ", " + w + ", " + matmul("[[0, 0], [1, 1]]")), "input 1 refers to output 1 of node 1, which has 1 output(s)"},
      {doc(x + ", " + w + ", " + matmul("[[0, 0], [1]]")), "node 2 (matmul): input 1 must be [node, output], got [1]"},
      {doc(x + ", " + w + ", " + matmul("[[0, 0], [1, 0]]", "[2, 2]")),
       "node 2 (matmul): stored output 0 is f32[2,2] but the shape rule gives f32[2,1]"},
      {doc(x + ", " + matmul("[[0, 0], [0, 0]]")), "node 1 (matmul): shape rule: matmul: inner dimensions must agree"},
      {doc(R"({"kind": "const", "dtype": "float32", "shape": [3, 2], "values": [1, 2, 3]})"),
       "graph JSON: node 0: values must be an array of 6 element(s) for shape (3, 2), got [1,2,3]"},
      {doc(R"({"kind": "const", "dtype": "float32", "shape": [3.0], "values": [1, 2, 3]})"),
       "graph JSON: node 0: constant shape dim must be an integer, got 3.0"},
      {doc(R"({"kind": "const", "dtype": "float32", "shape": [1], "values": ["nope"]})"),
       "node 0: value 0 must be a number, \"nan\", \"inf\", \"-inf\" or 0x-bits, got \"nope\""},
      {doc(R"({"kind": "const", "dtype": "float32", "shape": [1], "values": [1e300]})"), "node 0: value 0 1e+300 is out of range"},
      {doc(R"({"kind": "const", "dtype": "int32", "shape": [1], "values": [4294967296]})"),
       "node 0: value 0 is 4294967296, expected -2147483648..2147483647"},
      {doc(R"({"kind": "const", "dtype": "float32", "shape": [4294967296, 4294967296], "values": []})"),
       "node 0: shape (4294967296, 4294967296) has too many elements"},
      {doc(R"({"kind": "input", "dtype": "float64", "shape": [2]})"), "node 0: input dtype 'float64' is not a dtype"},
      {doc(R"({"kind": "input", "dtype": "float32", "shape": [-2]})"), "node 0: input shape dim is -2, expected -1.."},
      {doc(R"({"kind": "input", "dtype": "float32", "shape": [2.5]})"), "node 0: input shape dim must be an integer, got 2.5"},
      {doc(R"({"kind": "input", "dtype": "float32", "shape": [2], "shpe": 1})"), "node 0: unknown key 'shpe' in an input node"},
      {doc(R"({"kind": "placeholder"})"), "graph JSON: node 0: unknown kind 'placeholder' (input, const, op, variable, assign)"},
      {doc(R"({"kind": "variable"})"), "graph JSON: node 0: missing key 'name'"},
      {doc(x + R"(, {"kind": "op", "op": "relu", "inputs": [[0, 0]], "attrs": {"alpha": {"float": 1}}, "outputs": []})"),
       "node 1 (relu): shape rule: relu: unknown attribute 'alpha'"},
      {doc(x + R"(, {"kind": "op", "op": "reduce_max", "inputs": [[0, 0]], "attrs": {"axes": [1]}, "outputs": []})"),
       "node 1 (reduce_max): attribute 'axes' must be an object with one type key like {\"int\": 3}, got [1]"},
      {doc(x + R"(, {"kind": "op", "op": "reduce_max", "inputs": [[0, 0]], "attrs": {"axes": {"list": [1]}}, "outputs": []})"),
       "attribute 'axes' has unknown type 'list'"},
      {doc(x, "[[0, 1]]"), "graph JSON: output 0 refers to %0#1, which is not in the graph (1 nodes)"},
      {doc(x, "[[5, 0]]"), "graph JSON: output 0 refers to %5, which is not in the graph (1 nodes)"},
  };
  for (const Case& c : cases) {  // not a structured binding: CAPTURE's lambda cannot capture one in clang 14
    CAPTURE(c.text);
    std::string error;
    try {
      Graph::from_json(c.text);
    } catch (const InvalidArgument& e) {
      error = e.what();
    } catch (const std::exception& e) {
      error = std::string("wrong exception type: ") + e.what();
    }
    CHECK_MESSAGE(error.find(c.message) != std::string::npos, "got: ", error);
  }
}

TEST_CASE("graph/verify catches a corrupted graph") {
  Graph g = ragged_model(1);
  g.verify();
  auto check_fails = [&](const char* fragment) {
    std::string error;
    try {
      g.verify();
    } catch (const InvalidArgument& e) {
      error = e.what();
    }
    CHECK_MESSAGE(error.find(fragment) != std::string::npos, "got: ", error);
    g = ragged_model(1);
  };
  g.mutable_node(4).inputs[0] = {5, 0};
  check_fails("graph: node 4 (matmul): input 0 refers to %5, which does not come before it");
  g.mutable_node(4).inputs[1] = {1, 3};
  check_fails("node 4 (matmul): input 1 refers to %1#3, but node 1 has 1 output(s)");
  g.mutable_node(4).outputs[0] = f32({1, 1, 11});
  check_fails("node 4 (matmul): output 0 is recorded as f32[1,1,11] but the shape rule gives f32[1,1,10]");
  g.mutable_node(4).inputs = {{1, 0}, {1, 0}};
  check_fails("node 4 (matmul): shape rule fails: matmul: inner dimensions must agree");
  g.mutable_node(5).attrs.set("axis", 1);
  check_fails("node 5 (add): shape rule fails: add: unknown attribute 'axis'");
  g.mutable_node(1).outputs[0] = f32({20, 11});
  check_fails("node 1 (const): stored meta f32[20,11] differs from the value's f32[20,10]");
  g.mutable_node(6).op = nullptr;
  check_fails("node 6 (<no op>): an op node must have an op");
  g.mutable_node(6).outputs.clear();
  check_fails("graph: node 6 (relu): has 0 output meta(s), the op has 1 output(s)");
  g.mutable_node(0).inputs.push_back({0, 0});
  check_fails("node 0 (input): an input node must have no op, inputs or attributes");
  g.mutable_node(3).outputs.push_back(f32({1}));
  check_fails("node 3 (reduce_max): has 2 output meta(s), the op has 1 output(s)");
}

TEST_CASE("graph/to_json rejects names that are not UTF-8") {
  Graph g;
  g.add_input(f32({1}), std::string("bad\xff"));
  CHECK_THROWS_AS(g.to_json(), InvalidArgument);
}

}  // namespace tl::graph_test
