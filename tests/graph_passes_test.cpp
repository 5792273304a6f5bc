// The graph optimizer: a golden before/after text per pass on a small hand-built graph, then the properties
// every pass must keep — the optimized graph computes the same values (checked with a small interpreter local
// to this file that calls OpDef::run node by node), effects survive in order, every result verifies. The
// fused ops themselves are tested in fused_ops_test.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "test_util.h"
#include "tracelab/graph/executor.h"
#include "tracelab/graph/graph.h"
#include "tracelab/graph/passes.h"

namespace tl::graph_passes_test {
namespace {

using graph::Graph;
using graph::NodeKind;
using graph::ValueRef;
using testing::f32;

std::vector<std::string>& recorded() {
  static std::vector<std::string> log;
  return log;
}

/// A side-effecting op outside the registry: appends its input's values to recorded(); no outputs.
const OpDef& record_op() {
  static const OpDef op = [] {
    OpDef def("test_record");
    def.inputs(1).outputs(0).traits(trait::side_effects).shape_fn([](ShapeContext&) {});
    def.kernel([](KernelContext& ctx) { recorded().push_back(ctx.input(0).values_str()); });
    return def;
  }();
  return op;
}

/// A stateful op outside the registry: x + (number of calls so far).
const OpDef& tick_op() {
  static const OpDef op = [] {
    OpDef def("test_tick");
    def.inputs(1).traits(trait::stateful).shape_fn([](ShapeContext& ctx) { ctx.output() = ctx.input(0); });
    def.kernel([](KernelContext& ctx) {
      static float calls = 0;
      auto x = ctx.input(0).to_vector<float>();
      for (std::size_t i = 0; i < x.size(); ++i) ctx.output().mutable_data<float>()[i] = x[i] + calls;
      ++calls;
    });
    return def;
  }();
  return op;
}

std::shared_ptr<tl::detail::VariableState> make_variable(const std::string& name, Tensor value) {
  auto state = std::make_shared<tl::detail::VariableState>();
  state->name = name;
  state->value = std::move(value);
  return state;
}

/// The test's own interpreter: walks the nodes in order, running each op with OpDef::infer + OpDef::run.
std::vector<Tensor> run_graph(const Graph& g, const std::vector<Tensor>& args) {
  std::vector<std::vector<Tensor>> values(g.num_nodes());
  std::size_t next_arg = 0;
  for (std::size_t i = 0; i < g.num_nodes(); ++i) {
    const graph::Node& node = g.node(i);
    std::vector<Tensor> in;
    for (const ValueRef& v : node.inputs) in.push_back(values[v.node][v.output]);
    switch (node.kind) {
      case NodeKind::input: values[i] = {args.at(next_arg++)}; break;
      case NodeKind::constant: values[i] = {node.value}; break;
      case NodeKind::variable: values[i] = {node.variable->value}; break;
      case NodeKind::assign: node.variable->value = in[0]; break;
      case NodeKind::op: {
        std::vector<const TensorMeta*> metas;
        for (const Tensor& t : in) metas.push_back(&t.meta());
        std::vector<TensorMeta> out(node.outputs.size());
        node.op->infer(metas, node.attrs, out, node.subgraphs);
        for (const TensorMeta& m : out) values[i].push_back(Tensor::empty(m.dtype, m.shape));
        node.op->run(in, node.attrs, values[i], node.subgraphs);
      }
    }
  }
  std::vector<Tensor> outputs;
  for (const ValueRef& v : g.outputs()) outputs.push_back(values[v.node][v.output]);
  return outputs;
}

/// Same meta and every element within atol + rtol * |expected| (NaNs must match NaNs).
bool close(const Tensor& got, const Tensor& expected, float tol = 1e-5f) {
  if (!(got.meta() == expected.meta())) return false;
  auto a = got.to_vector<float>(), b = expected.to_vector<float>();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      if (std::isnan(a[i]) != std::isnan(b[i])) return false;
      continue;
    }
    if (!(std::fabs(a[i] - b[i]) <= tol + tol * std::fabs(b[i]))) return false;
  }
  return true;
}

/// A model that gives every pass work: dense layers, foldable constants, duplicates, identities, a dead
/// branch, an elementwise tail, a variable read and an assign, and a recorded side effect.
struct Model {
  Graph graph;
  std::shared_ptr<tl::detail::VariableState> counter = make_variable("counter", constant({0.f, 0.f}));
};

Model make_model() {
  Model m;
  Graph& g = m.graph;
  Generator gen(3);
  auto x = g.add_input(f32({5, 4}), "x");
  auto w1 = g.add_constant(gen.uniform({4, 3}));
  auto b1 = g.add_constant(gen.uniform({3}));
  auto w2 = g.add_constant(gen.uniform({3, 2}));
  auto b2 = g.add_constant(gen.uniform({2}));
  auto zero = g.add_constant(scalar(0.f));
  auto two = g.add_constant(scalar(2.f));
  auto half = g.add_op("div", {g.add_constant(scalar(1.f)), g.add_constant(scalar(2.f))})[0];  // folds to 0.5
  auto z1 = g.add_op("add", {g.add_op("matmul", {x, w1})[0], b1})[0];
  auto h = g.add_op("relu", {z1})[0];
  auto e1 = g.add_op("exp", {g.add_op("add", {h, zero})[0]})[0];  // h + 0 -> h
  auto e2 = g.add_op("exp", {h})[0];                              // then the same as e1
  auto t = g.add_op("mul", {g.add_op("add", {e1, e2})[0], two})[0];
  auto y = g.add_op("sigmoid", g.add_op("sub", {g.add_op("mul", {e1, half})[0], t}))[0];
  g.add_op("neg", {g.add_op("exp", {y})[0]});  // dead
  auto total = g.add_op("reduce_sum", {y}, {{"axes", Ints{0}}})[0];
  auto v = g.add_variable(m.counter);
  g.add_assign(m.counter, g.add_op("add", {v, g.add_op("reduce_mean", {total}, {{"axes", Ints{0}}})[0]})[0]);
  g.add_op(record_op(), {g.add_op("neg", {g.add_op("neg", {total})[0]})[0]});
  auto out = g.add_op("tanh", g.add_op("add", {g.add_op("matmul", {y, w2})[0], b2}))[0];
  g.set_outputs({out, total});
  return m;
}

}  // namespace

TEST_CASE("graph/passes/prune: dead nodes go, outputs, effects and inputs stay") {
  Graph g;
  auto x = g.add_input(f32({2}), "x");
  auto a = g.add_op("mul", {x, g.add_constant(scalar(2.f))})[0];
  g.add_op("exp", g.add_op("neg", {x}));                 // dead
  g.add_op(record_op(), g.add_op("relu", {x}));           // an effect keeps relu alive
  g.add_op(tick_op(), {x});                               // stateful: kept though unused
  g.add_input(f32({}), "unused");                         // inputs are never removed
  g.set_outputs({a});
  Graph p = graph::prune(g);
  CHECK(p.str() ==
        "graph(%0: f32[2] {name=\"x\"}, %6: f32[] {name=\"unused\"}) {\n"
        "  %1: f32[] = const 2.0\n"
        "  %2: f32[2] = mul %0, %1\n"
        "  %3: f32[2] = relu %0\n"
        "  test_record %3\n"
        "  %5: f32[2] = test_tick %0\n"
        "  return %2\n"
        "}\n");
  p.verify();
  CHECK(graph::prune(p).str() == p.str());  // a fixed point
}

TEST_CASE("graph/passes/constant_folding: constant subtrees become constants, failing kernels and variables stay") {
  Graph g;
  auto x = g.add_input(f32({2}), "x");
  auto c = g.add_constant(constant({1.f, 2.f}));
  auto three = g.add_constant(scalar(3.f));
  auto folded = g.add_op("add", {g.add_op("mul", {c, three})[0], three})[0];  // chains: [3, 6] then [6, 9]
  auto sum = g.add_op("add", {x, folded})[0];
  auto bad = g.add_op("pow", {g.add_constant(scalar(2)), g.add_constant(scalar(-1))})[0];  // kernel throws
  auto read = g.add_op("mul", {g.add_variable(make_variable("v", constant({1.f, 1.f}))), three})[0];
  g.set_outputs({sum, bad, read});
  Graph f = graph::fold_constants(g);
  CHECK(f.str() ==
        "graph(%0: f32[2] {name=\"x\"}) {\n"
        "  %1: f32[2] = const [1.0, 2.0]\n"
        "  %2: f32[] = const 3.0\n"
        "  %3: f32[2] = const [3.0, 6.0]\n"
        "  %4: f32[2] = const [6.0, 9.0]\n"
        "  %5: f32[2] = add %0, %4\n"
        "  %6: i32[] = const 2\n"
        "  %7: i32[] = const -1\n"
        "  %8: i32[] = pow %6, %7\n"
        "  %9: f32[2] = variable \"v\"\n"
        "  %10: f32[2] = mul %9, %2\n"
        "  return %5, %8, %10\n"
        "}\n");
  f.verify();
  CHECK_THROWS_AS(run_graph(f, {constant({0.f, 0.f})}), InvalidArgument);  // the error surfaces at run time

  SUBCASE("outputs over 2^20 elements are not folded") {
    Graph h;
    auto one = h.add_constant(scalar(1.f));
    auto big = h.add_op("broadcast_to", {one}, {{"shape", Ints{1025, 1024}}})[0];
    auto ok = h.add_op("broadcast_to", {one}, {{"shape", Ints{1024, 1024}}})[0];
    h.set_outputs({big, ok});
    Graph hf = graph::fold_constants(h);
    CHECK(hf.op_counts() == std::map<std::string, std::size_t>{{"broadcast_to", 1}});
    CHECK(hf.node(hf.outputs()[0].node).kind == NodeKind::op);
    CHECK(hf.node(hf.outputs()[1].node).kind == NodeKind::constant);
  }
}

TEST_CASE("graph/passes/constant_folding: zeros_like/ones_like of values of known shape fold, of unknown shape stay") {
  Graph g;
  auto x = g.add_input(f32({2, 3}), "x");
  auto y = g.add_input(f32({-1, 3}), "y");
  auto ones = g.add_op("ones_like", {g.add_op("square", {x})[0]})[0];  // x's values are not needed, its shape is
  auto zeros = g.add_op("zeros_like", {y})[0];                         // shape unknown until run time
  auto seed = g.add_op("add", {ones, g.add_constant(scalar(1.f))})[0];  // and the folds chain
  g.set_outputs({seed, zeros});
  Graph f = graph::fold_constants(g);
  f.verify();
  CHECK(f.node(f.outputs()[0].node).kind == NodeKind::constant);
  CHECK(f.node(f.outputs()[0].node).value.to_vector<float>() == std::vector<float>(6, 2.f));
  CHECK(f.node(f.outputs()[1].node).kind == NodeKind::op);
  CHECK(OpRegistry::global().get("ones_like").has(trait::reads_only_metas));
  CHECK_FALSE(OpRegistry::global().get("square").has(trait::reads_only_metas));
}

TEST_CASE("graph/passes/cse: equal ops and constants merge; reads, stateful ops and swapped sub do not") {
  Graph g;
  auto x = g.add_input(f32({3}), "x");
  auto y = g.add_input(f32({3}), "y");
  auto s1 = g.add_op("add", {x, y})[0];
  auto s2 = g.add_op("add", {y, x})[0];  // commutative: the same as s1
  auto d1 = g.add_op("sub", {x, y})[0];
  auto d2 = g.add_op("sub", {y, x})[0];  // not commutative
  auto m1 = g.add_op("mul", {s1, g.add_constant(scalar(2.f))})[0];
  auto m2 = g.add_op("mul", {s2, g.add_constant(scalar(2.f))})[0];  // equal once its inputs merged
  auto r1 = g.add_op("reduce_sum", {m1}, {{"axes", Ints{0}}, {"keepdims", true}})[0];
  auto r2 = g.add_op("reduce_sum", {m2}, {{"keepdims", true}, {"axes", Ints{0}}})[0];  // attrs in another order
  auto v = make_variable("v", constant({1.f, 2.f, 3.f}));
  auto v1 = g.add_variable(v);
  auto v2 = g.add_variable(v);
  auto t1 = g.add_op(tick_op(), {x})[0];
  auto t2 = g.add_op(tick_op(), {x})[0];
  g.set_outputs({s2, d2, m2, r2, v2, t2, d1, v1, t1, r1});
  Graph c = graph::eliminate_common_subexpressions(g);
  CHECK(c.str() ==
        "graph(%0: f32[3] {name=\"x\"}, %1: f32[3] {name=\"y\"}) {\n"
        "  %2: f32[3] = add %0, %1\n"
        "  %3: f32[3] = sub %0, %1\n"
        "  %4: f32[3] = sub %1, %0\n"
        "  %5: f32[] = const 2.0\n"
        "  %6: f32[3] = mul %2, %5\n"
        "  %7: f32[1] = reduce_sum %6 {axes=[0], keepdims=true}\n"
        "  %8: f32[3] = variable \"v\"\n"
        "  %9: f32[3] = variable \"v\"\n"
        "  %10: f32[3] = test_tick %0\n"
        "  %11: f32[3] = test_tick %0\n"
        "  return %2, %4, %6, %7, %9, %11, %3, %8, %10, %7\n"
        "}\n");
  c.verify();
}

TEST_CASE("graph/passes/simplify: identities become their operand only when the meta is unchanged") {
  Graph g;
  auto x = g.add_input(f32({2, 3}), "x");
  auto zero = g.add_constant(scalar(0.f));
  auto ones = g.add_constant(constant({1.f, 1.f, 1.f}));
  auto a = g.add_op("add", {x, zero})[0];
  auto b = g.add_op("mul", {ones, a})[0];  // 1 * x: f32[3] broadcasts into x's own shape
  auto c = g.add_op("neg", g.add_op("neg", {b}))[0];
  auto d = g.add_op("identity", {c})[0];
  auto e = g.add_op("reshape", {d}, {{"shape", Ints{2, 3}}})[0];
  auto f = g.add_op("transpose", {e}, {{"perm", Ints{0, 1}}})[0];
  auto h = g.add_op("cast", {f}, {{"dtype", float32}})[0];
  auto i = g.add_op("div", {g.add_op("sub", {h, zero})[0], ones})[0];
  auto times_zero = g.add_op("mul", {i, zero})[0];  // x * 0 stays (nan * 0 is nan)
  auto y = g.add_input(f32({3}), "y");
  auto widened = g.add_op("add", {y, g.add_constant(zeros({2, 3}))})[0];  // y + 0 changes y's shape: stays
  auto swapped = g.add_op("transpose", {i}, {{"perm", Ints{1, 0}}})[0];
  auto reshaped = g.add_op("reshape", {i}, {{"shape", Ints{3, 2}}})[0];
  g.set_outputs({i, times_zero, widened, swapped, reshaped});
  Graph s = graph::simplify(g);
  CHECK(s.str() ==
        "graph(%0: f32[2,3] {name=\"x\"}, %5: f32[3] {name=\"y\"}) {\n"
        "  %1: f32[] = const 0.0\n"
        "  %2: f32[3] = const [1.0, 1.0, 1.0]\n"
        "  %3: f32[2,3] = neg %0\n"
        "  %4: f32[2,3] = mul %0, %1\n"
        "  %6: f32[2,3] = const [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]\n"
        "  %7: f32[2,3] = add %5, %6\n"
        "  %8: f32[3,2] = transpose %0 {perm=[1, 0]}\n"
        "  %9: f32[3,2] = reshape %0 {shape=[3, 2]}\n"
        "  return %0, %4, %7, %8, %9\n"
        "}\n");
  s.verify();
  SUBCASE("a constant that is not all one value, and unknown dims that broadcasting may change") {
    Graph h;
    auto u = h.add_input(f32({-1, -1}), "u");
    auto mixed = h.add_op("mul", {u, h.add_constant(constant({1.f, 2.f}))})[0];
    auto maybe_wider = h.add_op("add", {u, h.add_constant(zeros({1, 3}))})[0];  // f32[?,3], not u's f32[?,?]
    auto same = h.add_op("add", {u, h.add_constant(zeros({1, 1}))})[0];         // f32[?,?]: simplified
    h.set_outputs({mixed, maybe_wider, same});
    Graph hs = graph::simplify(h);
    CHECK(hs.op_counts() == std::map<std::string, std::size_t>{{"add", 1}, {"mul", 1}});
    CHECK(hs.outputs()[2] == ValueRef{0, 0});
  }
}

TEST_CASE("graph/passes/simplify: reductions over size-1 axes and reshape chains (what the backward pass leaves)") {
  Graph g;
  auto x = g.add_input(f32({-1, 1, 10}), "x");
  auto kept = g.add_op("reduce_sum", {x}, {{"axes", Ints{1}}, {"keepdims", true}})[0];          // -> x
  auto dropped = g.add_op("reduce_max", {x}, {{"axes", Ints{-2}}})[0];                         // -> reshape [-1, 10]
  auto batch = g.add_op("reduce_sum", {x}, {{"axes", Ints{0, 1}}, {"keepdims", true}})[0];      // dim 0 unknown: stays
  auto twice = g.add_op("reshape", {g.add_op("reshape", {x}, {{"shape", Ints{-1, 10}}})[0]}, {{"shape", Ints{-1}}})[0];
  auto back = g.add_op("reshape", {g.add_op("reshape", {x}, {{"shape", Ints{-1}}})[0]}, {{"shape", Ints{-1, 1, 10}}})[0];
  auto mean = g.add_op("reduce_mean", {g.add_input(f32({1, 1}), "y")})[0];                     // all axes, size 1
  g.set_outputs({kept, dropped, batch, twice, back, mean});
  Graph s = graph::prune(graph::simplify(g));
  s.verify();
  CHECK(s.str() ==
        "graph(%0: f32[?,1,10] {name=\"x\"}, %4: f32[1,1] {name=\"y\"}) {\n"
        "  %1: f32[?,10] = reshape %0 {shape=[-1, 10]}\n"
        "  %2: f32[1,1,10] = reduce_sum %0 {axes=[0, 1], keepdims=true}\n"
        "  %3: f32[?] = reshape %0 {shape=[-1]}\n"
        "  %5: f32[] = reshape %4 {shape=[]}\n"
        "  return %0, %1, %2, %3, %0, %5\n"
        "}\n");
  // The same values as before the pass.
  Tensor in = Generator(3).uniform({4, 1, 10}), y = constant({2.5f}, {1, 1});
  auto before = run_graph(g, {in, y}), after = run_graph(s, {in, y});
  for (std::size_t i = 0; i < before.size(); ++i) CHECK(after[i].to_vector<float>() == before[i].to_vector<float>());
}

TEST_CASE("graph/passes/simplify: a keepdims reduction whose only user drops the kept dims reduces without them") {
  Graph g;
  auto x = g.add_input(f32({-1, -1, 10}), "x");
  auto bias_grad = g.add_op("reduce_sum", {x}, {{"axes", Ints{0, 1}}, {"keepdims", true}})[0];  // f32[1,1,10]
  auto flat = g.add_op("reshape", {bias_grad}, {{"shape", Ints{10}}})[0];                        // -> reduce_sum, no keepdims
  auto shared = g.add_op("reduce_max", {x}, {{"axes", Ints{1}}, {"keepdims", true}})[0];         // two users: stays
  auto shared_flat = g.add_op("reshape", {shared}, {{"shape", Ints{-1, 10}}})[0];
  auto other = g.add_op("reduce_sum", {x}, {{"axes", Ints{0}}, {"keepdims", true}})[0];          // reshaped elsewhere: stays
  auto other_flat = g.add_op("reshape", {other}, {{"shape", Ints{-1, 1, 10}}})[0];
  g.set_outputs({flat, shared, shared_flat, other_flat});
  Graph s = graph::prune(graph::simplify(g));
  s.verify();
  CHECK(s.str() ==
        "graph(%0: f32[?,?,10] {name=\"x\"}) {\n"
        "  %1: f32[10] = reduce_sum %0 {axes=[0, 1], keepdims=false}\n"
        "  %2: f32[?,1,10] = reduce_max %0 {axes=[1], keepdims=true}\n"
        "  %3: f32[?,10] = reshape %2 {shape=[-1, 10]}\n"
        "  %4: f32[1,?,10] = reduce_sum %0 {axes=[0], keepdims=true}\n"
        "  %5: f32[?,1,10] = reshape %4 {shape=[-1, 1, 10]}\n"
        "  return %1, %2, %3, %5\n"
        "}\n");
  Tensor in = Generator(4).uniform({3, 1, 10});
  auto before = run_graph(g, {in}), after = run_graph(s, {in});
  for (std::size_t i = 0; i < before.size(); ++i) CHECK(after[i].to_vector<float>() == before[i].to_vector<float>());
}

TEST_CASE("graph/passes/fuse_matmul: matmul + bias + activation chains become fused_matmul") {
  Graph g;
  auto x = g.add_input(f32({-1, 4}), "x");
  auto w1 = g.add_constant(Generator(5).uniform({4, 3}));
  auto b1 = g.add_constant(constant({0.5f, -0.5f, 0.25f}));
  auto h = g.add_op("relu", g.add_op("add", {g.add_op("matmul", {x, w1}, {{"transpose_b", false}})[0], b1}))[0];
  auto w2 = g.add_constant(constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3}));
  auto b2 = g.add_constant(constant({1.f, -1.f}));
  auto z = g.add_op("add", {b2, g.add_op("matmul", {h, w2}, {{"transpose_b", true}})[0]})[0];  // bias first
  auto out = g.add_op("tanh", {z})[0];  // z is also returned: the tanh stays outside
  auto p = g.add_op("matmul", {x, w1})[0];
  auto q = g.add_op("add", {p, b1})[0];  // p is returned: nothing fuses
  auto wide = g.add_op("add", {g.add_op("matmul", {x, g.add_constant(ones({4, 1}))})[0], b1})[0];  // widens
  g.set_outputs({out, z, p, q, wide});
  Graph f = graph::fuse_matmul_bias_activation(g);
  CHECK(f.str() ==
        "graph(%0: f32[?,4] {name=\"x\"}) {\n"
        "  %1: f32[4,3] = const f32[4,3]\n"
        "  %2: f32[3] = const [0.5, -0.5, 0.25]\n"
        "  %3: f32[?,3] = fused_matmul %0, %1, %2 {transpose_b=false, activation=\"relu\"}\n"
        "  %4: f32[2,3] = const [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]\n"
        "  %5: f32[2] = const [1.0, -1.0]\n"
        "  %6: f32[?,2] = fused_matmul %3, %4, %5 {transpose_b=true, activation=\"none\"}\n"
        "  %7: f32[?,2] = tanh %6\n"
        "  %8: f32[?,3] = matmul %0, %1\n"
        "  %9: f32[?,3] = add %8, %2\n"
        "  %10: f32[4,1] = const [[1.0], [1.0], [1.0], [1.0]]\n"
        "  %11: f32[?,1] = matmul %0, %10\n"
        "  %12: f32[?,3] = add %11, %2\n"
        "  return %7, %6, %8, %9, %12\n"
        "}\n");
  f.verify();
  CHECK(Graph::from_json(f.to_json()).str() == f.str());
  Tensor input = Generator(6).uniform({5, 4});
  auto before = run_graph(g, {input}), after = run_graph(f, {input});
  for (std::size_t i = 0; i < before.size(); ++i) CHECK(close(after[i], before[i]));
}

TEST_CASE("graph/passes/fuse_elementwise: single-use float32 elementwise trees become one node") {
  Graph g;
  auto x = g.add_input(f32({4}), "x");
  auto y = g.add_input(f32({4}), "y");
  auto z = g.add_input(f32({4}), "z");
  auto two = g.add_constant(scalar(2.f));
  auto r = g.add_op("mul", {g.add_op("relu", g.add_op("add", {g.add_op("mul", {x, y})[0], z}))[0], two})[0];
  auto e = g.add_op("exp", {x})[0];  // used twice: an operand of the tree, not a member
  auto d = g.add_op("sub", {g.add_op("mul", {e, e})[0], r})[0];
  auto mask = g.add_op("less", {d, x})[0];  // bool result: not fused
  g.set_outputs({d, mask});
  Graph f = graph::fuse_elementwise(g);
  CHECK(f.str() ==
        "graph(%0: f32[4] {name=\"x\"}, %1: f32[4] {name=\"y\"}, %2: f32[4] {name=\"z\"}) {\n"
        "  %3: f32[] = const 2.0\n"
        "  %4: f32[4] = exp %0\n"
        "  %5: f32[4] = fused_elementwise %0, %1, %2, %3, %4\n"
        "    {0} graph(%0: f32[4], %1: f32[4], %2: f32[4], %3: f32[], %4: f32[4]) {\n"
        "      %5: f32[4] = mul %0, %1\n"
        "      %6: f32[4] = add %5, %2\n"
        "      %7: f32[4] = relu %6\n"
        "      %8: f32[4] = mul %7, %3\n"
        "      %9: f32[4] = mul %4, %4\n"
        "      %10: f32[4] = sub %9, %8\n"
        "      return %10\n"
        "    }\n"
        "  %6: bool[4] = less %5, %0\n"
        "  return %5, %6\n"
        "}\n");
  f.verify();
  CHECK(Graph::from_json(f.to_json()).str() == f.str());  // fused graphs save and load like any other
  std::vector<Tensor> args{constant({-1.f, 0.5f, 2.f, 0.f}), constant({3.f, -2.f, 1.f, 4.f}),
                           constant({0.5f, 1.5f, -4.f, 2.f})};
  auto before = run_graph(g, args), after = run_graph(f, args);
  CHECK(close(after[0], before[0]));
  CHECK(after[1].to_vector<bool>() == before[1].to_vector<bool>());
}

TEST_CASE("graph/passes/fuse_elementwise: what follows from metas and constants stays out, for the plan to fold") {
  // d mean(x) / dx for an unknown batch, as the backward pass writes it, times an upstream gradient:
  // ((zeros_like(x) + 1) / sum(ones_like(x)) * 2) * exp(x). Only exp and the last mul depend on x's values.
  auto g = std::make_shared<Graph>();
  auto x = g->add_input(f32({-1}), "x");
  auto scale = g->add_op("mul", {testing::mean_gradient_seed(*g, x).first, g->add_constant(scalar(2.f))})[0];
  g->set_outputs({g->add_op("mul", {scale, g->add_op("exp", {x})[0]})[0]});
  auto f = std::make_shared<Graph>(graph::fuse_elementwise(*g));
  f->verify();
  std::vector<std::string> fused_members;
  for (const graph::Node& node : f->nodes())
    if (node.kind == NodeKind::op && node.op->name() == "fused_elementwise")
      for (const graph::Node& member : node.subgraphs[0]->nodes())
        if (member.kind == NodeKind::op) fused_members.push_back(member.op->name());
  CHECK(fused_members == std::vector<std::string>{"exp", "mul"});  // add, div and mul by 2 stay plain nodes
  // A plan folds them (with zeros_like, ones_like and the count): the call runs the fused exp * scale alone.
  graph::Executor exec(f);
  for (std::int64_t n : {5, 3}) {
    Tensor input = Generator(70 + n).uniform({n});
    std::vector<Tensor> out = exec.run(std::vector<Tensor>{input});
    CHECK(exec.num_folded() == 6);
    CHECK(testing::same_bits(out[0], run_graph(*g, {input})[0]));  // the same ops in the same order: the same bits
  }
}

namespace {

using Pass = Graph (*)(const Graph&);

/// The labels of the nodes with effects, in order ("assign counter", "test_record").
std::vector<std::string> effects_of(const Graph& g) {
  std::vector<std::string> labels;
  for (const graph::Node& node : g.nodes()) {
    if (node.kind == NodeKind::assign) labels.push_back("assign " + node.name);
    else if (node.kind == NodeKind::op && (node.op->has(trait::side_effects) || node.op->has(trait::stateful)))
      labels.emplace_back(node.label());
  }
  return labels;
}

/// Runs `g` on the model's input with the counter reset; returns the outputs, then the counter, then the log.
std::vector<Tensor> run_model(const Model& m, const Graph& g, std::vector<std::string>& log) {
  m.counter->value = constant({0.f, 0.f});
  recorded().clear();
  auto outputs = run_graph(g, {Generator(9).uniform({5, 4}, -1, 1)});
  outputs.push_back(m.counter->value);
  log = recorded();
  return outputs;
}

}  // namespace

TEST_CASE("graph/passes: each pass and optimize() keep values, effects (in order) and a verifiable graph") {
  const Model m = make_model();
  std::vector<std::string> expected_log;
  const auto expected = run_model(m, m.graph, expected_log);
  REQUIRE(expected_log.size() == 1);
  const std::pair<const char*, Pass> passes[] = {
      {"prune", graph::prune},
      {"constant_folding", graph::fold_constants},
      {"cse", graph::eliminate_common_subexpressions},
      {"simplify", graph::simplify},
      {"fuse_elementwise", graph::fuse_elementwise},
      {"fuse_matmul", graph::fuse_matmul_bias_activation},
      {"optimize", [](const Graph& g) { return graph::optimize(g); }},
  };
  for (const auto& entry : passes) {  // no structured bindings: clang 14 cannot capture them in CAPTURE
    const auto& name = entry.first;
    const auto& pass = entry.second;
    CAPTURE(name);
    Graph out = pass(m.graph);
    CHECK_NOTHROW(out.verify());
    CHECK(out.count(NodeKind::input) == 1);
    CHECK(effects_of(out) == effects_of(m.graph));
    std::vector<std::string> log;
    auto got = run_model(m, out, log);
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(close(got[i], expected[i]));
    CHECK(log == expected_log);
  }
}

TEST_CASE("graph/passes/optimize: the pipeline on the model, with one report per pass") {
  const Model m = make_model();
  std::vector<graph::PassReport> reports;
  Graph out = graph::optimize(m.graph, {}, &reports);
  CHECK(out.str() ==
        "graph(%0: f32[5,4] {name=\"x\"}) {\n"
        "  %1: f32[4,3] = const f32[4,3]\n"
        "  %2: f32[3] = const [0.58097744, 0.20654202, 0.25841993]\n"
        "  %3: f32[3,2] = const [[0.30575204, 0.059558272], [0.037528634, 0.30680007], [0.14713532, 0.5392294]]\n"
        "  %4: f32[2] = const [0.44890803, 0.14778507]\n"
        "  %5: f32[] = const 2.0\n"
        "  %6: f32[] = const 0.5\n"
        "  %7: f32[5,3] = fused_matmul %0, %1, %2 {activation=\"relu\"}\n"
        "  %8: f32[5,3] = exp %7\n"
        "  %9: f32[5,3] = fused_elementwise %8, %5, %6\n"
        "    {0} graph(%0: f32[5,3], %1: f32[], %2: f32[]) {\n"
        "      %3: f32[5,3] = add %0, %0\n"
        "      %4: f32[5,3] = mul %3, %1\n"
        "      %5: f32[5,3] = mul %0, %2\n"
        "      %6: f32[5,3] = sub %5, %4\n"
        "      %7: f32[5,3] = sigmoid %6\n"
        "      return %7\n"
        "    }\n"
        "  %10: f32[3] = reduce_sum %9 {axes=[0]}\n"
        "  %11: f32[2] = variable \"counter\"\n"
        "  %12: f32[] = reduce_mean %10 {axes=[0]}\n"
        "  %13: f32[2] = add %11, %12\n"
        "  assign \"counter\", %13\n"
        "  test_record %10\n"
        "  %16: f32[5,2] = fused_matmul %9, %3, %4 {activation=\"tanh\"}\n"
        "  return %16, %10\n"
        "}\n");
  std::vector<std::string> names;
  for (const auto& r : reports) names.push_back(r.pass);
  CHECK(names == std::vector<std::string>{"simplify", "constant_folding", "cse", "prune", "fuse_matmul",
                                          "fuse_elementwise", "prune"});
  REQUIRE(reports.size() == 7);
  CHECK(reports.front().nodes_before == m.graph.num_nodes());
  CHECK(reports.back().nodes_after == out.num_nodes());
  for (std::size_t i = 1; i < reports.size(); ++i) CHECK(reports[i].nodes_before == reports[i - 1].nodes_after);
  CHECK(out.num_nodes() < m.graph.num_nodes());
  CHECK(graph::optimize(out).str() == out.str());  // a fixed point: fused nodes are not fused again

  SUBCASE("disabled passes do not run") {
    std::vector<graph::PassReport> only;
    graph::OptimizeOptions options;
    options.simplify = options.constant_folding = options.cse = options.fuse_matmul = options.fuse_elementwise = false;
    Graph pruned = graph::optimize(m.graph, options, &only);
    REQUIRE(only.size() == 2);
    CHECK(only[0].pass == "prune");
    CHECK(only[0].nodes_after == only[0].nodes_before - 2);  // the dead exp and neg
    CHECK(only[1].nodes_after == only[1].nodes_before);
    CHECK(pruned.str() == graph::prune(m.graph).str());
  }
}

TEST_CASE("graph/passes: structured ops are never merged; optimize() optimizes their sub-graphs, shared ones once") {
  auto body = std::make_shared<Graph>();
  auto bx = body->add_input(f32({2}), "bx");
  body->set_outputs({body->add_op("add", {bx, body->add_constant(scalar(0.f))})[0]});  // x + 0: simplified to x
  auto effects = std::make_shared<Graph>();
  auto v = make_variable("v", constant({0.f, 0.f}));
  effects->add_assign(v, effects->add_input(f32({2}), "ex"));
  static OpDef structured("test_structured");
  structured.inputs(1).subgraphs(1).shape_fn([](ShapeContext& ctx) { ctx.output() = ctx.input(0); });
  static OpDef as_is("test_structured_as_is");
  as_is.inputs(1).subgraphs(1).traits(trait::subgraphs_as_is).shape_fn([](ShapeContext& ctx) { ctx.output() = ctx.input(0); });
  Graph g;
  auto x = g.add_input(f32({2}), "x");
  auto kept = g.add_op(structured, {x}, {}, {body})[0];
  g.add_op(structured, {x}, {}, {body});     // unused, no effects inside: pruned
  g.add_op(structured, {x}, {}, {effects});  // unused, assigns inside: kept
  auto fixed = g.add_op(as_is, {x}, {}, {body})[0];
  g.set_outputs({kept, g.add_op(structured, {x}, {}, {body})[0], fixed});  // the same as `kept`, never merged
  std::vector<graph::PassReport> reports;
  Graph out = graph::optimize(g, {}, &reports);
  CHECK(out.op_counts() == std::map<std::string, std::size_t>{{"test_structured", 3}, {"test_structured_as_is", 1}});
  std::set<const Graph*> optimized_bodies;
  for (const graph::Node& node : out.nodes()) {
    if (node.kind != NodeKind::op) continue;
    REQUIRE(node.subgraphs.size() == 1);
    const Graph& sub = *node.subgraphs[0];
    if (node.op == &as_is) {
      CHECK(node.subgraphs[0] == body);  // as it was
    } else if (sub.count(NodeKind::assign) == 1) {
      CHECK(sub.str() == effects->str());  // nothing to optimize; the assign stays
    } else {
      CHECK(sub.num_nodes() == 1);  // x + 0 -> x: the input alone, returned
      CHECK(sub.outputs() == sub.inputs());
      optimized_bodies.insert(&sub);
    }
  }
  CHECK(optimized_bodies.size() == 1);  // the body two nodes hold: optimized once, still shared
  CHECK(body->op_counts() == std::map<std::string, std::size_t>{{"add", 1}});  // the input graph's own is untouched
  REQUIRE(!reports.empty());
  CHECK(reports.back().pass == "subgraphs");
  CHECK(reports.back().nodes_before == graph::nodes_within(graph::optimize(g, {.subgraphs = false})));
  CHECK(reports.back().nodes_after == graph::nodes_within(out));
  CHECK(reports.back().nodes_after + 4 == reports.back().nodes_before);  // two bodies lose the constant and the add

  SUBCASE("off, the sub-graphs stay as they are, and no report") {
    std::vector<graph::PassReport> off;
    Graph same = graph::optimize(g, {.subgraphs = false}, &off);
    CHECK(off.back().pass == "prune");
    for (const graph::Node& node : same.nodes())
      for (const auto& sub : node.subgraphs) CHECK((sub == body || sub == effects));
  }
  SUBCASE("a graph without structured ops reports no subgraphs pass") {
    std::vector<graph::PassReport> plain;
    graph::optimize(make_model().graph, {}, &plain);
    CHECK(plain.back().pass == "prune");
  }
}

}  // namespace tl::graph_passes_test
