// tl::cond and tl::while_loop, eagerly and traced; gradients through them; tapes and traces around
// Function calls; traced graphs in text and JSON.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>


#include "tracelab/tracelab.h"

namespace control_flow_test {

namespace {

/// |x| with a data-dependent branch: the sign of sum(x) picks x or -x.
tl::Tensor signed_sum_branch(const tl::Tensor& x) {
  return tl::cond(tl::greater(tl::reduce_sum(x), 0.f), [&] { return x * 2.f; }, [&] { return -x; });
}

/// sum of x * 2^k for k < n, via a loop: (i, acc) -> (i + 1, acc + x * 2^i).
std::vector<tl::Tensor> doubling_loop(const tl::Tensor& x, int n) {
  return tl::while_loop([n](const std::vector<tl::Tensor>& v) { return tl::less(v[0], n); },
                        [&x](const std::vector<tl::Tensor>& v) {
                          return std::vector<tl::Tensor>{v[0] + 1, v[1] * 2.f + x};
                        },
                        {tl::scalar(0), tl::zeros_like(x)});
}

std::vector<float> values(const tl::Tensor& t) { return t.to_vector<float>(); }

}  // namespace

TEST_CASE("control_flow/cond: eager runs one branch, traced decides at every call") {
  tl::Tensor pos = tl::constant({1.f, 2.f}), neg = tl::constant({-1.f, -2.f});
  CHECK(values(signed_sum_branch(pos)) == std::vector<float>{2, 4});
  CHECK(values(signed_sum_branch(neg)) == std::vector<float>{1, 2});
  auto f = tl::function([](const tl::Tensor& x) { return signed_sum_branch(x); }, {.name = "f"});
  CHECK(values(f(pos)) == std::vector<float>{2, 4});
  CHECK(values(f(neg)) == std::vector<float>{1, 2});
  CHECK(f.tracing_count() == 1);  // one graph, both branches inside
  const auto& g = f.concrete_functions()[0]->graph();
  CHECK(g.op_counts().at("cond") == 1);
  CHECK(g.str().find("{0} graph(") != std::string::npos);  // sub-graphs print under the node
}

TEST_CASE("control_flow/cond: branches must agree; the predicate must be a bool scalar") {
  auto mismatch = tl::function(
      [](const tl::Tensor& x) {
        return tl::cond(tl::greater(tl::reduce_sum(x), 0.f), [&] { return x; }, [&] { return tl::concat({x, x}, 0); });
      },
      {.name = "m"});
  CHECK_THROWS_WITH_AS(mismatch(tl::ones({2})), doctest::Contains("cond: output 0 of the true and false branch: shapes are incompatible"),
                       tl::ShapeError);
  auto dtypes = tl::function(
      [](const tl::Tensor& x) {
        return tl::cond(tl::greater(tl::reduce_sum(x), 0.f), [&] { return x; }, [&] { return tl::cast(x, tl::int32); });
      },
      {.name = "d"});
  CHECK_THROWS_AS(dtypes(tl::ones({2})), tl::DTypeError);
  CHECK_THROWS_WITH_AS(tl::cond(tl::ones({2}), [] { return tl::scalar(1.f); }, [] { return tl::scalar(2.f); }),
                       doctest::Contains("cond: the predicate must be a bool scalar, got f32[2]"), tl::InvalidArgument);
}

TEST_CASE("control_flow/cond: gradients through the branch that ran, eager and traced") {
  for (tl::Tensor x : {tl::constant({1.f, 2.f}), tl::constant({-1.f, -2.f})}) {
    auto grad_of = [](const tl::Tensor& v) {
      tl::GradientTape tape;
      tape.watch(v);
      tl::Tensor y = tl::reduce_sum(tl::square(signed_sum_branch(v)));
      return tape.gradient(y, v);
    };
    tl::Tensor eager = grad_of(x);
    auto traced = tl::function(grad_of, {.name = "grad"});
    CHECK(values(traced(x)) == values(eager));
  }
}

TEST_CASE("control_flow/while_loop: eager and traced agree; the trip count is decided when the graph runs") {
  tl::Tensor x = tl::constant({1.f, 3.f});
  auto eager = doubling_loop(x, 3);
  CHECK(eager[0].item<int>() == 3);
  CHECK(values(eager[1]) == std::vector<float>{7, 21});
  auto f = tl::function([](const tl::Tensor& x, const tl::Tensor& n) {
    return tl::while_loop([&n](const std::vector<tl::Tensor>& v) { return tl::less(v[0], n); },
                          [&x](const std::vector<tl::Tensor>& v) { return std::vector<tl::Tensor>{v[0] + 1, v[1] * 2.f + x}; },
                          {tl::scalar(0), tl::zeros_like(x)})[1];
  }, {.name = "loop"});
  CHECK(values(f(x, tl::scalar(3))) == std::vector<float>{7, 21});
  CHECK(values(f(x, tl::scalar(1))) == std::vector<float>{1, 3});
  CHECK(f.tracing_count() == 1);
  CHECK(f.concrete_functions()[0]->graph().op_counts().at("while_loop") == 1);
  // The optimizer ran on the loop's body too: v * 2 + x became one fused_elementwise node.
  const tl::ConcreteFunction& c = *f.concrete_functions()[0];
  auto body_of = [](const tl::graph::Graph& g) {
    for (const tl::graph::Node& node : g.nodes())
      if (node.op != nullptr && node.op->name() == "while_loop") return node.subgraphs.at(1);
    return std::shared_ptr<const tl::graph::Graph>();
  };
  REQUIRE(body_of(c.traced_graph()) != nullptr);
  REQUIRE(body_of(c.graph()) != nullptr);
  CHECK(body_of(c.traced_graph())->op_counts() == std::map<std::string, std::size_t>{{"add", 2}, {"mul", 1}});
  CHECK(body_of(c.graph())->op_counts() == std::map<std::string, std::size_t>{{"add", 1}, {"fused_elementwise", 1}});
  CHECK(c.pass_reports().back().pass == "subgraphs");
  CHECK(c.pass_reports().back().nodes_after < c.pass_reports().back().nodes_before);
}

TEST_CASE("control_flow/while_loop: a loop variable whose shape changes becomes unknown") {
  auto grow = tl::function([](const tl::Tensor& x) {
    return tl::while_loop([](const std::vector<tl::Tensor>& v) { return tl::less(tl::reduce_sum(v[0]), 20.f); },
                          [](const std::vector<tl::Tensor>& v) { return std::vector<tl::Tensor>{tl::concat({v[0], v[0]}, 0)}; },
                          {x})[0];
  }, {.name = "grow"});
  tl::Tensor out = grow(tl::ones({3}));
  CHECK(out.shape() == tl::Shape{24});
  CHECK(grow.concrete_functions()[0]->output_specs()[0].shape() == tl::Shape{-1});
}

TEST_CASE("control_flow/while_loop: gradients, eager and traced") {
  tl::Tensor x = tl::constant({1.f, 3.f});
  auto grad_of = [](const tl::Tensor& v) {
    tl::GradientTape tape;
    tape.watch(v);
    tl::Tensor y = tl::reduce_sum(tl::square(doubling_loop(v, 3)[1]));
    return tape.gradient(y, v);
  };
  tl::Tensor eager = grad_of(x);  // y = sum((7x)^2) -> dy/dx = 98 x
  CHECK(values(eager) == std::vector<float>{98, 294});
  auto traced = tl::function(grad_of, {.name = "grad"});
  CHECK(values(traced(x)) == std::vector<float>{98, 294});
  CHECK(traced.concrete_functions()[0]->graph().op_counts().count("while_grad") == 1);
}

TEST_CASE("control_flow/while_loop: traced gradient when a loop variable starts as a tensor the body also captures") {
  // v starts as x and the body multiplies by x: v = x^3 after two trips, dv/dx = 3 x^2 = 6.75 at 1.5. The graph
  // hands the while node the same tensor as loop variable and as capture; each is a source of its own.
  auto grad_of = [](const tl::Tensor& x) {
    tl::GradientTape tape;
    tape.watch(x);
    auto out = tl::while_loop([](const std::vector<tl::Tensor>& v) { return tl::less(v[0], 2); },
                              [&x](const std::vector<tl::Tensor>& v) { return std::vector<tl::Tensor>{v[0] + 1, v[1] * x}; },
                              {tl::scalar(0), x});
    return tape.gradient(out[1], x);
  };
  tl::Tensor x = tl::scalar(1.5f);
  CHECK(grad_of(x).item<float>() == doctest::Approx(6.75f));
  auto traced = tl::function(grad_of, {.name = "cube_grad"});
  CHECK(traced(x).item<float>() == doctest::Approx(6.75f));
}

TEST_CASE("function/tapes and traces around a Function call") {
  auto square_sum = tl::function([](const tl::Tensor& x) { return tl::reduce_sum(x * x); }, {.name = "sq"});
  tl::Tensor x = tl::constant({1.f, 2.f});
  SUBCASE("a tape outside differentiates through the call") {
    tl::GradientTape tape;
    tape.watch(x);
    tl::Tensor y = square_sum(x);
    CHECK(values(tape.gradient(y, x)) == std::vector<float>{2, 4});
  }
  SUBCASE("a Function called while tracing another is inlined") {
    auto outer = tl::function([&](const tl::Tensor& v) { return square_sum(v) + 1.f; }, {.name = "outer"});
    CHECK(outer(x).item<float>() == 6.f);
    CHECK(outer.concrete_functions()[0]->graph().op_counts().count("mul") + 
          outer.concrete_functions()[0]->graph().op_counts().count("fused_elementwise") >= 1);
  }
  SUBCASE("variables captured by handle: a traced step updates them in place") {
    tl::Variable counter(tl::scalar(0.f), "counter");
    auto bump = tl::function([&] { counter.assign_add(1.f); return counter.read(); }, {.name = "bump"});
    for (int i = 0; i < 3; ++i) bump();
    CHECK(counter.read().item<float>() == 3.f);
    CHECK(bump.tracing_count() == 1);
    CHECK(bump.concrete_functions()[0]->captured_variables() == std::vector<std::string>{"counter"});
  }
}

TEST_CASE("function/graphs: text and JSON of a traced function, including control flow and variables") {
  tl::Variable w(tl::constant({0.5f, -1.f}), "w");
  auto f = tl::function([&](const tl::Tensor& x) {
    tl::Tensor y = tl::cond(tl::greater(tl::reduce_sum(x), 0.f), [&] { return x * w; }, [&] { return x; });
    w.assign(y);
    return y;
  }, {.name = "f"});
  f(tl::constant({1.f, 2.f}));
  const tl::graph::Graph& g = f.concrete_functions()[0]->traced_graph();
  std::string json = g.to_json();
  tl::graph::Graph loaded = tl::graph::Graph::from_json(json);
  CHECK(loaded.str() == g.str());
  CHECK(loaded.to_json() == json);
  CHECK(g.str().find("= variable \"w\"") != std::string::npos);
  CHECK(g.str().find("assign \"w\"") != std::string::npos);
}

TEST_CASE("control_flow/while_loop: a variable assigned in the body is re-read every iteration") {
  tl::Variable w(tl::scalar(0.f), "w");
  auto body = [&](const std::vector<tl::Tensor>& v) {
    tl::Tensor acc = v[1] + w.read();
    w.assign_add(1.f);
    return std::vector<tl::Tensor>{v[0] + 1, acc};
  };
  auto cond = [](const std::vector<tl::Tensor>& v) { return tl::less(v[0], 3); };
  auto eager = tl::while_loop(cond, body, {tl::scalar(0), tl::scalar(0.f)});
  CHECK(eager[1].item<float>() == 3.f);  // 0 + 1 + 2
  CHECK(w.read().item<float>() == 3.f);
  w.assign(tl::scalar(0.f));
  auto traced = tl::function([&] { return tl::while_loop(cond, body, {tl::scalar(0), tl::scalar(0.f)})[1]; }, {.name = "loop"});
  CHECK(traced().item<float>() == 3.f);
  CHECK(w.read().item<float>() == 3.f);
  CHECK(traced().item<float>() == 12.f);  // 3 + 4 + 5
}

// ctest runs this case alone too (graph_json_fresh_process): in a process that never traced a cond or a while_loop,
// a saved graph holding them must load and run: loading does not depend on a trace having run first.
TEST_CASE("graph JSON in a fresh process: a saved cond + while_loop graph loads and runs") {
  std::ifstream in(std::string(TRACELAB_TESTS_DIR) + "/graphs/control_flow.json");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  // f(a) = 3 * (sum(a) > 0 ? 2a : -a), traced and saved by another process.
  auto graph = std::make_shared<const tl::graph::Graph>(tl::graph::Graph::from_json(text.str()));
  tl::graph::Executor exec(graph);
  CHECK(exec.run(std::vector<tl::Tensor>{tl::constant({1.f, 2.f})})[0].to_vector<float>() == std::vector<float>{6.f, 12.f});
  CHECK(exec.run(std::vector<tl::Tensor>{tl::constant({-1.f, -2.f})})[0].to_vector<float>() == std::vector<float>{3.f, 6.f});
}

TEST_CASE("structured ops are registry entries: one OpDef per op, sub-graphs on the node, state per node") {
  // A traced cond and while_loop point at the registry's entries; the node holds the sub-graphs.
  auto f = tl::function([](const tl::Tensor& x) { return doubling_loop(signed_sum_branch(x), 3)[1]; });
  f(tl::constant({1.f, 2.f}));
  const tl::graph::Graph& g = f.concrete_functions()[0]->traced_graph();
  std::size_t structured = 0;
  for (const tl::graph::Node& node : g.nodes()) {
    if (node.kind != tl::graph::NodeKind::op || node.subgraphs.empty()) continue;
    ++structured;
    CHECK(node.op == &tl::OpRegistry::global().get(node.op->name()));
    CHECK(node.subgraphs.size() == static_cast<std::size_t>(node.op->num_subgraphs()));
  }
  CHECK(structured == 2);
  // Without its sub-graphs a structured op is a clear error, eagerly and when added to a graph.
  const tl::OpDef& cond_op = tl::OpRegistry::global().get("cond");
  CHECK_THROWS_WITH_AS(tl::execute(cond_op, {tl::constant({true}, tl::Shape{}), tl::scalar(1.f)}),
                       "cond: expected 2 sub-graph(s), got 0", tl::InvalidArgument);
  tl::graph::Graph bare;
  auto pred = bare.add_input({tl::DType::bool_, {}});
  CHECK_THROWS_WITH_AS(bare.add_op(cond_op, {pred}), "cond: expected 2 sub-graph(s), got 0", tl::InvalidArgument);
  CHECK(bare.num_nodes() == 1);

  // KernelContext::state: the executor keeps one state per node across runs; an eager call gets a fresh one.
  struct Runs final : tl::KernelState {
    float count = 0;
  };
  static tl::OpDef counting("test_counting");
  counting.inputs(1).subgraphs(1).traits(tl::trait::stateful)
      .shape_fn([](tl::ShapeContext& c) { c.output() = {tl::DType::float32, {}}; })
      .kernel([](tl::KernelContext& c) {
        CHECK(c.subgraphs.size() == 1);
        *c.outputs[0].mutable_data<float>() = ++c.state<Runs>().count;
      });
  auto body = std::make_shared<tl::graph::Graph>();
  body->set_outputs({body->add_input({tl::DType::float32, {}})});
  auto two = std::make_shared<tl::graph::Graph>();
  auto x = two->add_input({tl::DType::float32, {}});
  two->set_outputs({two->add_op(counting, {x}, {}, {body})[0], two->add_op(counting, {x}, {}, {body})[0]});
  tl::graph::Executor exec(two);
  std::vector<tl::Tensor> in{tl::scalar(0.f)};
  for (float call = 1; call <= 3; ++call) {
    std::vector<tl::Tensor> out = exec.run(in);
    CHECK(out[0].item<float>() == call);  // each node counts its own runs
    CHECK(out[1].item<float>() == call);
  }
  const std::shared_ptr<const tl::graph::Graph> subgraphs[] = {body};
  for (int call = 0; call < 2; ++call) {
    tl::Tensor out, arg[] = {tl::scalar(0.f)};
    tl::execute(counting, arg, {}, std::span<tl::Tensor>(&out, 1), subgraphs);
    CHECK(out.item<float>() == 1.f);
  }
}

}  // namespace control_flow_test
