// The optimizer's fused ops against the unfused chains they replace — the chunked and the whole-tensor paths of
// fused_elementwise (core/graph/fused_elementwise.cpp: its members are a body sub-graph), every activation and
// transpose of fused_matmul (core/ops/fused_ops.cpp) — and their errors. fused_matmul's shape rule, eager runs and
// gradients are also covered by the registry walks (op_samples.cpp); fused_elementwise's gradient by the passes'
// tests (graph_passes_test.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"

namespace tl::fused_ops_test {
namespace {

using testing::f32;

/// Same meta and every element within tol + tol * |expected|.
bool close(const Tensor& got, const Tensor& expected, float tol = 1e-5f) {
  if (!(got.meta() == expected.meta())) return false;
  auto a = got.to_vector<float>(), b = expected.to_vector<float>();
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::fabs(a[i] - b[i]) <= tol + tol * std::fabs(b[i]))) return false;
  return true;
}

/// The body of sigmoid(a * b + c) - a over inputs of `metas`: the members as ordinary nodes.
std::shared_ptr<const graph::Graph> chain_body(const std::vector<TensorMeta>& metas) {
  auto g = std::make_shared<graph::Graph>();
  graph::ValueRef a = g->add_input(metas[0]), b = g->add_input(metas[1]), c = g->add_input(metas[2]);
  graph::ValueRef product = g->add_op("mul", {a, b})[0];
  graph::ValueRef sum = g->add_op("add", {product, c})[0];
  g->set_outputs({g->add_op("sub", {g->add_op("sigmoid", {sum})[0], a})[0]});
  return g;
}

using Body = std::shared_ptr<const graph::Graph>;

/// A fused_elementwise call with `body` (through the funnel, so tapes record it).
Tensor run_fused(const Body& body, const std::vector<Tensor>& inputs) {
  Tensor out;
  execute(graph::fused_elementwise_op(), inputs, {}, std::span<Tensor>(&out, 1), std::span(&body, 1));
  return out;
}

/// The fused op of the chain for these inputs.
Tensor run_chain(const std::vector<Tensor>& inputs) {
  std::vector<TensorMeta> metas;
  for (const Tensor& t : inputs) metas.push_back(t.meta());
  return run_fused(chain_body(metas), inputs);
}

/// The output meta of a fused_elementwise node with `body` for inputs of `metas`.
TensorMeta infer_with(const Body& body, const std::vector<TensorMeta>& metas) {
  std::vector<const TensorMeta*> pointers;
  for (const TensorMeta& m : metas) pointers.push_back(&m);
  TensorMeta out;
  graph::fused_elementwise_op().infer(pointers, {}, std::span<TensorMeta>(&out, 1), std::span(&body, 1));
  return out;
}

}  // namespace

TEST_CASE("graph/fused_elementwise: the same values as the unfused chain, chunked and whole") {
  auto unfused = [](const Tensor& a, const Tensor& b, const Tensor& c) { return sigmoid(a * b + c) - a; };
  Generator gen(21);
  SUBCASE("chunks: every input has the output's shape or one element") {
    for (std::int64_t n : {4096 * 3 + 5, 4096 * 2, 4097}) {
      CAPTURE(n);
      Tensor a = gen.uniform({n}), b = gen.uniform({1, 1}), c = gen.uniform({n});
      Tensor got = run_chain({a, b, c});
      CHECK(close(got, unfused(a, b, c)));
    }
    Tensor a = gen.uniform({3, 2000}), b = gen.uniform({3, 2000}), c = scalar(0.25f);
    CHECK(close(run_chain({a, b, c}), unfused(a, b, c)));
  }
  SUBCASE("whole tensors: broadcasting operands, small outputs") {
    Tensor a = gen.uniform({50, 100}), b = gen.uniform({100}), c = gen.uniform({50, 1});
    CHECK(close(run_chain({a, b, c}), unfused(a, b, c)));
    Tensor s = gen.uniform({3});
    CHECK(close(run_chain({s, s, s}), unfused(s, s, s)));
  }
  SUBCASE("the shape rule replays the members' rules on unknown dims") {
    Body body = chain_body({f32({-1, 3}), f32({3}), f32({-1, 1})});
    CHECK(infer_with(body, {f32({-1, 3}), f32({3}), f32({-1, 1})}) == f32({-1, 3}));
    CHECK(infer_with(body, {f32({4, 3}), f32({3}), f32({4, 1})}) == f32({4, 3}));
  }
}

TEST_CASE("graph/fused_elementwise: a node's kept metas and buffers follow its inputs from call to call") {
  // One node state across calls (a kernel state slot, as an executor's node has): the members' metas and the
  // small intermediates are kept for the last input metas, inferred again when they change.
  Body body = chain_body({f32({-1, -1}), f32({-1}), f32({-1, 1})});
  std::unique_ptr<KernelState> state;
  auto call = [&](const std::vector<Tensor>& inputs) {
    Tensor out = Tensor::empty(DType::float32, broadcast_shapes("test", broadcast_shapes("test", inputs[0].shape(),
                                                                                          inputs[1].shape()),
                                                                inputs[2].shape()));
    graph::fused_elementwise_op().run(inputs, {}, std::span<Tensor>(&out, 1), std::span(&body, 1), &state);
    return out;
  };
  auto unfused = [](const Tensor& a, const Tensor& b, const Tensor& c) { return sigmoid(a * b + c) - a; };
  Generator gen(5);
  std::vector<std::vector<Tensor>> calls = {
      {gen.uniform({2, 3}), gen.uniform({3}), gen.uniform({2, 1})},
      {gen.uniform({4, 5}), gen.uniform({5}), gen.uniform({4, 1})},   // new metas: inferred again
      {gen.uniform({2, 3}), gen.uniform({3}), gen.uniform({2, 1})},   // back: inferred again, not stale
      {gen.uniform({2, 3}), gen.uniform({3}), gen.uniform({2, 1})}};  // same metas: the kept buffers again
  std::vector<Tensor> outputs;
  for (const auto& inputs : calls) {
    outputs.push_back(call(inputs));
    CHECK(close(outputs.back(), unfused(inputs[0], inputs[1], inputs[2])));
  }
  for (std::size_t i = 0; i < calls.size(); ++i)  // earlier outputs are their own buffers, untouched by later calls
    CHECK(close(outputs[i], unfused(calls[i][0], calls[i][1], calls[i][2])));
  // Through a traced function whose generic graph is not planned per shape: one executor, one node state.
  FunctionOptions options;
  options.input_signature = {TensorSpec({-1}), TensorSpec({-1})};
  options.specialize_plans = false;
  auto f = function([](const Tensor& x, const Tensor& y) { return relu(x * y + 1.f) - x; }, options);
  for (std::int64_t n : {3, 7, 3, 3}) {
    Tensor x = gen.uniform({n}), y = gen.uniform({n});
    CHECK(close(f(x, y), relu(x * y + 1.f) - x));
  }
  // Planned per shape (the default), calls alternating between shapes: each plan keeps its own node states (the
  // fused node's metas, the reduction's plan).
  FunctionOptions planned;
  planned.input_signature = {TensorSpec({-1, -1})};
  auto g = function([](const Tensor& x) { return reduce_sum(relu(x * x + 1.f) - x, {1}); }, planned);
  for (const Shape& shape : {Shape{2, 3}, Shape{4, 5}, Shape{2, 3}, Shape{4, 5}, Shape{1, 9}}) {
    Tensor x = gen.uniform(shape);
    CHECK(close(g(x), reduce_sum(relu(x * x + 1.f) - x, {1})));
  }
}

TEST_CASE("graph/fused_elementwise: its gradient is the members' gradients chained, eagerly and traced") {
  Generator gen(5);
  Variable a(gen.uniform({2, 3})), b(gen.uniform({3})), c(gen.uniform({2, 3}));
  Body body = chain_body({a.value().meta(), b.value().meta(), c.value().meta()});
  auto grads = [&](bool fused) {
    GradientTape tape;
    Tensor y = fused ? run_fused(body, {a.read(), b.read(), c.read()})
                     : sigmoid(a.read() * b.read() + c.read()) - a.read();
    return tape.gradient(reduce_sum(y * y), std::vector<Variable>{a, b, c});
  };
  std::vector<Tensor> want = grads(false), got = grads(true);
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(close(got[i], want[i]));
  // Traced: the optimizer fuses the chain, and the traced gradient matches too.
  auto traced = function([&](const Tensor& x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = sigmoid(x * b.read() + c.read()) - x;
    return tape.gradient(reduce_sum(y * y), x);
  });
  Tensor x = a.value();
  GradientTape eager_tape;
  eager_tape.watch(x);
  Tensor y = sigmoid(x * b.value() + c.value()) - x;
  CHECK(close(traced(x), eager_tape.gradient(reduce_sum(y * y), x)));
  CHECK(traced.concrete_functions()[0]->graph().op_counts().count("fused_elementwise") == 1);
}

TEST_CASE("graph/fused_elementwise: the shape rule and the gradient follow the body they get, body after body") {
  // The program of a body is compiled once and cached per body: a body that is gone must not stand for the next
  // one, which the allocator tends to place at its address (a body made with `new` frees its memory when its last
  // owner goes, whatever the cache holds). Each round makes a body, uses it and drops it.
  Generator gen(7);
  Tensor x = gen.uniform({2, 3}), y = gen.uniform({2, 3});
  const char* const ops[] = {"mul", "sub", "add", "div", "maximum"};
  for (int round = 0; round < 20; ++round) {
    const char* op = ops[round % 5];
    CAPTURE(op);
    std::shared_ptr<graph::Graph> g(new graph::Graph);
    graph::ValueRef a = g->add_input(x.meta()), b = g->add_input(y.meta());
    g->set_outputs({g->add_op("neg", {g->add_op(op, {a, b})[0]})[0]});
    Body body = g;
    g.reset();
    CHECK(infer_with(body, {x.meta(), y.meta()}) == x.meta());
    GradientTape fused_tape, plain_tape;
    fused_tape.watch(x);
    Tensor fused = run_fused(body, {x, y});
    plain_tape.watch(x);
    Tensor plain = neg(execute(op, {x, y}));
    CHECK(close(fused, plain));
    CHECK(close(fused_tape.gradient(reduce_sum(fused * fused), x), plain_tape.gradient(reduce_sum(plain * plain), x)));
  }
  // A malformed body is an error every time, not a cached success.
  auto bad = std::make_shared<graph::Graph>();
  bad->set_outputs({bad->add_input(x.meta())});
  for (int i = 0; i < 2; ++i) CHECK_THROWS_AS(infer_with(bad, {x.meta()}), InvalidArgument);
}

TEST_CASE("graph/fused_elementwise: a malformed body or call is a clear, typed error") {
  auto expect_error = [](auto&& call, const char* kind, const char* message) {
    try {
      call();
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(std::string(e.kind()) == kind);
      const std::string text = e.what();
      CAPTURE(text);
      CHECK(text.find(message) != std::string::npos);
    }
  };
  auto body_with = [](auto&& build) {
    auto g = std::make_shared<graph::Graph>();
    build(*g, g->add_input(f32({-1})), g->add_input(f32({-1})));
    return Body(g);
  };
  const std::vector<TensorMeta> two{f32({3}), f32({3})};
  expect_error([&] { infer_with(body_with([](graph::Graph& g, graph::ValueRef x, graph::ValueRef) {
                 g.set_outputs({x});
               }), two); }, "InvalidArgument", "fused_elementwise: the body has no member ops");
  expect_error([&] { infer_with(body_with([](graph::Graph& g, graph::ValueRef x, graph::ValueRef) {
                 auto r = g.add_op("reshape", {x}, {{"shape", Ints{-1, 1}}})[0];
                 g.set_outputs({g.add_op("matmul", {r, r}, {{"transpose_b", true}})[0]});
               }), two); }, "InvalidArgument", "body node %2 (reshape): 'reshape' is not a pure one-output elementwise op");
  expect_error([&] { infer_with(body_with([](graph::Graph& g, graph::ValueRef x, graph::ValueRef y) {
                 auto s = g.add_op("add", {x, y})[0];
                 g.add_op("neg", {s});
                 g.set_outputs({s});
               }), two); }, "InvalidArgument", "the body must return the result of its last node, and only that");
  expect_error([&] { infer_with(body_with([](graph::Graph& g, graph::ValueRef x, graph::ValueRef) {
                 g.set_outputs({g.add_op("add", {x, g.add_constant(scalar(1.f))})[0]});
               }), two); }, "InvalidArgument", "body node %2 (const): a fused body holds only inputs and registry ops");
  auto add_body = body_with([](graph::Graph& g, graph::ValueRef x, graph::ValueRef y) {
    g.set_outputs({g.add_op("add", {x, y})[0]});
  });
  auto add = add_body;
  expect_error([&] { infer_with(add, {f32({3}), f32({4})}); }, "ShapeError",
               "fused_elementwise: body %2 = add: add: shapes");
  expect_error([&] { infer_with(add, {f32({3}), testing::i32({3})}); }, "DTypeError",
               "fused_elementwise: input 1 must be float32, got i32[3]");
  expect_error([&] { infer_with(add, {f32({3}), f32({3}), f32({3})}); }, "InvalidArgument",
               "fused_elementwise: expected 2 input(s) (one per body input), got 3");
  auto less = body_with([](graph::Graph& g, graph::ValueRef x, graph::ValueRef y) {
    g.set_outputs({g.add_op("less", {x, y})[0]});
  });
  expect_error([&] { infer_with(less, {f32({3}), f32({3})}); }, "DTypeError",
               "body %2 = less gives bool[3]; only float32 results can be fused");
}

TEST_CASE("ops/fused_matmul: malformed calls are clear, typed errors") {
  struct Case {
    const char* activation;
    std::vector<TensorMeta> inputs;
    const char* kind;
    const char* message;
  };
  const std::vector<TensorMeta> mm{f32({2, 3}), f32({3, 4}), f32({4})};
  const Case cases[] = {
      {"none", {f32({2, 3}), f32({3, 4}), f32({3})}, "ShapeError",
       "fused_matmul: bias f32[3] must be a scalar or a vector of size 1 or 4 to broadcast along the last dim of "
       "f32[2,4]"},
      {"none", {f32({2, 3}), f32({2, 4}), f32({4})}, "ShapeError", "fused_matmul: matmul: inner dimensions must agree"},
      {"gelu", mm, "InvalidArgument", "activation must be none, relu, sigmoid or tanh, got 'gelu'"},
  };
  for (const Case& c : cases) {
    const std::string activation = c.activation;
    CAPTURE(activation);
    try {
      testing::infer("fused_matmul", c.inputs, {{"activation", activation}});
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(std::string(e.kind()) == c.kind);
      const std::string message = e.what();
      CAPTURE(message);
      CHECK(message.find(c.message) != std::string::npos);
    }
  }
}

TEST_CASE("ops/fused_matmul: the same values as matmul + bias + activation") {
  const OpDef& fused = OpRegistry::global().get("fused_matmul");
  Generator gen(33);
  Tensor a = gen.uniform({2, 3, 4}), b = gen.uniform({5, 4}), bias = gen.uniform({5});
  const std::pair<const char*, Tensor (*)(const Tensor&)> activations[] = {
      {"none", [](const Tensor& z) { return z; }}, {"relu", relu}, {"sigmoid", sigmoid}, {"tanh", tanh}};
  for (const auto& activation : activations) {
    const char* name = activation.first;  // (clang 14 cannot capture structured bindings in CAPTURE's lambda)
    auto act = activation.second;
    CAPTURE(name);
    Attrs attrs{{"transpose_b", true}, {"activation", std::string(name)}};
    CHECK(close(execute(fused, {a, b, bias}, attrs), act(matmul(a, b, false, true) + bias)));
  }
  Tensor at = gen.uniform({4, 2}), bt = gen.uniform({4, 3});
  CHECK(close(execute(fused, {at, bt, scalar(0.5f)}, {{"transpose_a", true}}), matmul(at, bt, true, false) + 0.5f));
  Tensor empty_k = execute(fused, {zeros({2, 0}), zeros({0, 3}), constant({-1.f, 0.f, 2.f})},
                           {{"activation", std::string("relu")}});
  CHECK(empty_k.to_vector<float>() == std::vector<float>{0, 0, 2, 0, 0, 2});  // a zero inner dim: act(bias)
}

}  // namespace tl::fused_ops_test
