// The graph executor: every registry op run through a one-node graph equals the eager funnel bit for bit (with
// static and with unknown dims), buffer planning and reuse (no allocation per call in steady state, results the
// caller keeps never change), dynamic shapes, variable reads and in-place assignments, structured-op style
// kernels (dynamic outputs, replaced outputs), and errors that leave the executor usable.
#include <doctest/doctest.h>

#include <set>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "op_samples.h"
#include "test_util.h"
#include "tracelab/eager/execute.h"
#include "tracelab/graph/executor.h"

namespace tl::executor_test {
namespace {

using graph::Executor;
using graph::Graph;
using graph::ValueRef;
using testing::f32;
using testing::i32;

using testing::same_bits;

/// Runs `exec` on `inputs` and returns how many tensor buffers the call allocated.
std::uint64_t allocations_of_run(Executor& exec, const std::vector<Tensor>& inputs) {
  std::uint64_t before = tl::detail::buffer_allocations();
  exec.run(inputs);  // the outputs are dropped at once
  return tl::detail::buffer_allocations() - before;
}

/// A graph applying `op` to inputs with metas `metas`, returning every output.
std::shared_ptr<Graph> one_op_graph(const OpDef& op, const std::vector<TensorMeta>& metas, const Attrs& attrs,
                                    const std::vector<std::shared_ptr<const Graph>>& subgraphs = {}) {
  auto g = std::make_shared<Graph>();
  std::vector<ValueRef> refs;
  for (std::size_t i = 0; i < metas.size(); ++i) refs.push_back(g->add_input(metas[i], "in" + std::to_string(i)));
  g->set_outputs(g->add_op(op, refs, attrs, subgraphs));
  return g;
}

/// Every dim of `meta` made unknown, rank kept.
TensorMeta unknown_dims(const TensorMeta& meta) {
  return {meta.dtype, Shape(std::vector<std::int64_t>(static_cast<std::size_t>(meta.shape.rank()), -1))};
}

/// Runs the graph twice (the second run finds its slots holding the first run's data, which catches kernels
/// that assume zeroed outputs) and checks both runs against the eager outputs.
void check_against_eager(const std::shared_ptr<Graph>& g, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& expected, const std::string& what) {
  Executor exec(g);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<Tensor> got = exec.run(inputs);
    REQUIRE_MESSAGE(got.size() == expected.size(), what);
    for (std::size_t i = 0; i < got.size(); ++i)
      CHECK_MESSAGE(same_bits(got[i], expected[i]), what, " output ", i, " pass ", pass, ": got ",
                    got[i].defined() ? got[i].str() : "<empty>", ", eager gives ", expected[i].str());
  }
}

/// The ~10-op MLP of the planning tests: relu(relu(x w1 + b1) w2 + b2) w3 + b3, summed over features.
struct Mlp {
  Tensor w1 = Generator(1).uniform({8, 16}, -0.5, 0.5), b1 = Generator(2).uniform({16});
  Tensor w2 = Generator(3).uniform({16, 16}, -0.5, 0.5), b2 = Generator(4).uniform({16});
  Tensor w3 = Generator(5).uniform({16, 16}, -0.5, 0.5), b3 = Generator(6).uniform({16});

  std::shared_ptr<Graph> graph(std::int64_t rows) const {
    auto g = std::make_shared<Graph>();
    auto x = g->add_input(f32({rows, 8}), "x");
    auto layer = [&](ValueRef in, const Tensor& w, const Tensor& b) {
      auto h = g->add_op("matmul", {in, g->add_constant(w)})[0];
      return g->add_op("add", {h, g->add_constant(b)})[0];
    };
    auto h1 = g->add_op("relu", {layer(x, w1, b1)})[0];
    auto h2 = g->add_op("relu", {layer(h1, w2, b2)})[0];
    auto y = g->add_op("reduce_sum", {layer(h2, w3, b3)}, {{"axes", Ints{1}}})[0];
    g->set_outputs({y});
    return g;
  }
  Tensor eager(const Tensor& x) const {
    Tensor h1 = relu(matmul(x, w1) + b1);
    Tensor h2 = relu(matmul(h1, w2) + b2);
    return reduce_sum(matmul(h2, w3) + b3, {1});
  }
};

}  // namespace

namespace {

/// Checks one sample of `op` against the eager funnel with exact metas and with every dim unknown; returns
/// false when the shape rule needed known dims (the unknown-dims run then keeps them known), which only the
/// samples listed in testing::samples_needing_known_dims() may.
bool check_sample(const OpDef& op, const testing::OpSample& sample, std::size_t index) {
  std::vector<Tensor> expected(testing::num_outputs(op, sample));
  execute(op, sample.inputs, sample.attrs, expected, sample.subgraphs);
  std::vector<TensorMeta> metas, unknown;
  for (const auto& t : sample.inputs) {
    metas.push_back(t.meta());
    unknown.push_back(unknown_dims(t.meta()));
  }
  auto exact = one_op_graph(op, metas, sample.attrs, sample.subgraphs);
  // Only an op whose kernel sizes its outputs may leave a dim unknown with known inputs (a dynamic
  // tensor_array_write's dim 0 depends on the index's value); such a graph is planned per run.
  bool known = true;
  for (const auto& out : exact->outputs()) known = known && exact->meta(out).shape.is_fully_defined();
  CHECK_MESSAGE((known || op.has(trait::dynamic_outputs)), op.name());
  CHECK_MESSAGE(Executor(exact).is_static() == known, op.name());
  check_against_eager(exact, sample.inputs, expected, op.name() + " (static dims)");
  std::shared_ptr<Graph> relaxed;
  try {
    relaxed = one_op_graph(op, unknown, sample.attrs, sample.subgraphs);
  } catch (const Error& e) {  // the shape rule needs some dims (squeeze without axes): keep them known
    CHECK_MESSAGE(testing::rejected_as_listed(op.name(), index, e.what()), op.name(), " sample ", index,
                  " rejected, not as samples_needing_known_dims lists: ", std::string(e.what()));
    check_against_eager(exact, sample.inputs, expected, op.name() + " (known dims kept)");
    return false;
  }
  CHECK_MESSAGE(!testing::needs_known_dims(op.name(), index), op.name(), " sample ", index,
                " is listed in samples_needing_known_dims, yet ran unknown");
  bool all_scalars = std::all_of(metas.begin(), metas.end(), [](const TensorMeta& m) { return m.shape.rank() == 0; });
  CHECK_MESSAGE(Executor(relaxed).is_static() == all_scalars, op.name());  // an unknown dim makes it dynamic
  check_against_eager(relaxed, sample.inputs, expected, op.name() + " (unknown dims)");
  return true;
}

}  // namespace

TEST_CASE("executor/registry walk: every op equals the eager funnel, with static and with unknown dims") {
  std::size_t ops = 0, unknown_ops = 0, weak_skipped = 0, samples = 0, kept_known = 0;
  std::string fell_back;
  for (const auto& entry : testing::op_samples()) {  // no structured bindings: clang 14 cannot capture them
    const std::string& name = entry.first;
    const auto& calls = entry.second;
    const OpDef& op = OpRegistry::global().get(name);
    if (op.has(trait::side_effects)) continue;
    bool all_unknown = true;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      bool weak = false;
      for (const auto& t : calls[i].inputs) weak = weak || t.is_weak();
      if (weak) {  // a graph input has a fixed dtype: aligning weak scalars is the tracer's job
        ++weak_skipped;
        continue;
      }
      ++samples;
      if (!check_sample(op, calls[i], i)) {
        all_unknown = false;
        ++kept_known;
      }
    }
    ++ops;
    if (all_unknown) ++unknown_ops;
    else fell_back += " " + name;
  }
  MESSAGE("executor registry walk: ", samples, " samples of ", ops, " ops, all run with static dims; ", unknown_ops,
          " ops ran every sample with every dim unknown; known dims kept for some sample of:", fell_back, "; ",
          weak_skipped, " weak-scalar samples skipped");
  std::size_t expected_ops = 0;
  for (const OpDef* op : OpRegistry::global().all())
    if (!op->has(trait::side_effects) && testing::op_samples().count(op->name())) ++expected_ops;
  CHECK(ops == expected_ops);
  CHECK(kept_known == testing::samples_needing_known_dims().size());  // every listed sample, and only those
}

TEST_CASE("executor/static plan: slots reused by liveness, no allocation per call, kept results unchanged") {
  Mlp mlp;
  Executor exec(mlp.graph(4));
  CHECK(exec.is_static());
  CHECK(exec.num_values() == 9);  // 3 matmul, 3 add, 2 relu, 1 reduce_sum
  CHECK(exec.num_slots() < exec.num_values());
  CHECK(exec.num_slots() == 3);   // two f32[4,16] in flight at once, plus the f32[4] result

  Tensor x1 = Generator(10).uniform({4, 8}), x2 = Generator(11).uniform({4, 8});
  Tensor y1 = mlp.eager(x1), y2 = mlp.eager(x2);
  std::vector<Tensor> in1{x1}, in2{x2};

  SUBCASE("steady state, outputs dropped: the first call allocates the slots, later calls nothing") {
    std::uint64_t first = allocations_of_run(exec, in1), second = allocations_of_run(exec, in2);
    MESSAGE("mlp: ", exec.num_values(), " values in ", exec.num_slots(), " slots; buffers allocated by call 1: ",
            first, ", by call 2: ", second);
    CHECK(first == exec.num_slots());
    CHECK(second == 0);
    CHECK(allocations_of_run(exec, in1) == 0);
    std::uint64_t before = tl::detail::buffer_allocations();
    CHECK(same_bits(exec.run(in2)[0], y2));
    CHECK(same_bits(exec.run(in1)[0], y1));
    CHECK(tl::detail::buffer_allocations() - before == 0);
  }
  SUBCASE("a result the caller keeps is not overwritten by the next call (copy-on-shared)") {
    Tensor kept = exec.run(in1)[0];
    std::uint64_t before = tl::detail::buffer_allocations();
    Tensor next = exec.run(in2)[0];
    CHECK(tl::detail::buffer_allocations() - before == 1);  // only the held output's slot is renewed
    CHECK(same_bits(kept, y1));
    CHECK(same_bits(next, y2));
    CHECK(kept.impl().buffer != next.impl().buffer);
    kept = Tensor();
    CHECK(allocations_of_run(exec, in1) == 1);  // `next` is still held
    next = Tensor();
    CHECK(allocations_of_run(exec, in1) == 0);
  }
  SUBCASE("inputs the caller passes are never written") {
    Tensor copy = x1 + 0;
    exec.run(in1);
    exec.run(in1);
    CHECK(same_bits(x1, copy));
  }
}

TEST_CASE("executor/planned views: a reshape whose input dies there keeps the input's slot and runs no kernel") {
  // relu(x W) reshaped to [-1] (its input dies at the reshape: forwarded), and x W reshaped again while relu still
  // reads it (not forwarded: a copy into its own slot). Static, and with an unknown batch dim (specialized plans).
  Tensor w = Generator(30).uniform({8, 6}, -0.5, 0.5);
  for (bool unknown : {false, true}) {
    CAPTURE(unknown);
    auto g = std::make_shared<Graph>();
    auto x = g->add_input(f32({unknown ? -1 : 4, 8}), "x");
    auto h = g->add_op("matmul", {x, g->add_constant(w)})[0];
    auto copied = g->add_op("reshape", {h}, {{"shape", Ints{-1, 3}}})[0];
    auto r = g->add_op("relu", {h})[0];
    auto flat = g->add_op("reshape", {r}, {{"shape", Ints{-1}}})[0];
    auto sum = g->add_op("reduce_sum", {g->add_op("reshape", {copied}, {{"shape", Ints{-1}}})[0]})[0];
    g->set_outputs({flat, sum});
    Executor exec(g);
    Tensor x1 = Generator(31).uniform({4, 8}), x2 = Generator(32).uniform({4, 8});
    const auto expected = [&](const Tensor& in) {
      Tensor hh = matmul(in, w);
      return std::vector<Tensor>{reshape(relu(hh), {-1}), reduce_sum(reshape(hh, {-1}))};
    };
    std::vector<Tensor> out1 = exec.run(std::vector<Tensor>{x1});
    // h, the copy (and its own reshape), relu's output (and the flat result), the sum: without forwarding the two
    // reshapes whose inputs die would each need a slot of their own (5).
    CHECK(exec.num_slots() == 4);
    CHECK(exec.num_forwarded() == 2);  // the flat reshape of relu's output, the copy's reshape
    CHECK(exec.num_copied() == 1);     // the reshape of h: its bytes copied into its slot, without the kernel
    CHECK(same_bits(out1[0], expected(x1)[0]));
    CHECK(same_bits(out1[1], expected(x1)[1]));
    CHECK(out1[0].shape() == Shape{24});
    // The kept results stay as they were; dropped, the next calls allocate nothing.
    std::vector<Tensor> out2 = exec.run(std::vector<Tensor>{x2});
    CHECK(same_bits(out1[0], expected(x1)[0]));
    CHECK(same_bits(out2[0], expected(x2)[0]));
    CHECK(same_bits(out2[1], expected(x2)[1]));
    out1.clear();
    out2.clear();
    exec.run(std::vector<Tensor>{x1});
    CHECK(allocations_of_run(exec, {x2}) == 0);
    CHECK(same_bits(exec.run(std::vector<Tensor>{x1})[0], expected(x1)[0]));
  }
}

TEST_CASE("executor/planned copies: a reduction over axes of size 1 copies its input, bit for bit") {
  // A bias gradient over an unknown batch: reduce_sum over axes 0 and 1 of f32[?,1,3], while the input lives on
  // into a reshape; and int32 max / float mean over the size-1 axis. With one row every reduction reduces one
  // element per output (a copy); with two, reduce_sum sums.
  auto g = std::make_shared<Graph>();
  auto x = g->add_input(f32({-1, 1, 3}), "x");
  auto n = g->add_input(i32({-1, 1}), "n");
  auto sum = g->add_op("reduce_sum", {x}, {{"axes", Ints{0, 1}}})[0];
  auto mean = g->add_op("reduce_mean", {x}, {{"axes", Ints{1}}, {"keepdims", true}})[0];
  auto top = g->add_op("reduce_max", {n}, {{"axes", Ints{-1}}})[0];
  auto flat = g->add_op("reshape", {x}, {{"shape", Ints{-1}}})[0];
  g->set_outputs({sum, mean, top, flat});
  Executor exec(g);
  REQUIRE(exec.specializes());
  for (std::int64_t rows : {1, 2, 1}) {
    CAPTURE(rows);
    Tensor xs = Generator(80 + rows).uniform({rows, 1, 3});
    xs.mutable_data<float>()[1] = -0.f;  // a sum over one element keeps its sign: -0, as TensorFlow's copy does
    Tensor ns = constant(rows == 1 ? std::vector<std::int32_t>{-7} : std::vector<std::int32_t>{-7, 5}, {rows, 1});
    std::vector<Tensor> out = exec.run(std::vector<Tensor>{xs, ns});
    // One row: the three reductions copy, and so does the reshape (its input is a graph input, which has no slot
    // to hand on). Two rows: reduce_sum reduces; the mean and the max over the size-1 axis still copy.
    CHECK(exec.num_copied() == (rows == 1 ? 4u : 3u));
    CHECK(same_bits(out[0], reduce_sum(xs, {0, 1})));
    CHECK(same_bits(out[1], reduce_mean(xs, {1}, true)));
    CHECK(same_bits(out[2], reduce_max(ns, {-1})));
    CHECK(same_bits(out[3], reshape(xs, {-1})));
    if (rows == 1) CHECK(std::signbit(out[0].to_vector<float>()[1]));
    out.clear();
    CHECK(allocations_of_run(exec, {xs, ns}) == 0);
  }
}

TEST_CASE("executor/dynamic plan: f32[?,20] with 3 and then 7 rows") {
  auto g = std::make_shared<Graph>();
  Tensor w = Generator(20).uniform({20, 5}, -0.5, 0.5), b = Generator(21).uniform({5});
  auto x = g->add_input(f32({-1, 20}), "x");
  auto h = g->add_op("add", {g->add_op("matmul", {x, g->add_constant(w)})[0], g->add_constant(b)})[0];
  auto y = g->add_op("relu", {h})[0];
  g->set_outputs({y, g->add_op("reduce_max", {y}, {{"axes", Ints{1}}})[0]});
  Executor exec(g);
  CHECK_FALSE(exec.is_static());
  CHECK(exec.num_slots() == 0);
  CHECK(exec.num_values() == 4);
  for (std::int64_t rows : {3, 7, 3}) {
    CAPTURE(rows);
    Tensor xs = Generator(static_cast<std::uint64_t>(rows)).uniform({rows, 20});
    std::vector<Tensor> out = exec.run(std::vector<Tensor>{xs});
    Tensor expected = relu(matmul(xs, w) + b);
    REQUIRE(out.size() == 2);
    CHECK(out[0].shape() == Shape{rows, 5});
    CHECK(same_bits(out[0], expected));
    CHECK(same_bits(out[1], reduce_max(expected, {1})));
  }
}

TEST_CASE("executor/specialized plans: unknown dims get a cached plan per input shape, no allocation on a repeat") {
  auto g = std::make_shared<Graph>();
  Tensor w = Generator(22).uniform({20, 5}, -0.5, 0.5);
  auto x = g->add_input(f32({-1, 20}), "x");
  g->set_outputs({g->add_op("reduce_sum", {g->add_op("relu", {g->add_op("matmul", {x, g->add_constant(w)})[0]})[0]})[0]});
  Executor exec(g);
  REQUIRE(exec.specializes());
  CHECK(exec.num_plans() == 0);
  Tensor three = Generator(1).uniform({3, 20}), seven = Generator(2).uniform({7, 20});
  std::uint64_t first = allocations_of_run(exec, {three});
  CHECK(first == exec.num_slots());
  std::uint64_t second = allocations_of_run(exec, {seven});
  CHECK(second == exec.num_slots());
  CHECK(exec.num_plans() == 2);
  CHECK(allocations_of_run(exec, {three}) == 0);  // its plan's buffers are reused
  CHECK(allocations_of_run(exec, {seven}) == 0);
  CHECK(same_bits(exec.run(std::vector<Tensor>{seven})[0], reduce_sum(relu(matmul(seven, w)))));
  for (std::int64_t rows = 1; rows <= 20; ++rows) exec.run(std::vector<Tensor>{Generator(3).uniform({rows, 20})});
  CHECK(exec.num_plans() == Executor::max_plans);  // the oldest plans were evicted
  // A shape rule that rejects the inputs fails before any node runs and leaves the executor usable.
  auto h = std::make_shared<Graph>();
  auto a = h->add_input(f32({-1, 3}), "a"), b = h->add_input(f32({-1, 3}), "b");
  h->set_outputs({h->add_op("add", {a, b})[0]});
  Executor adder(h);
  CHECK_THROWS_AS(adder.run(std::vector<Tensor>{Generator(4).uniform({2, 3}), Generator(5).uniform({4, 3})}), ShapeError);
  CHECK(adder.num_plans() == 0);
  CHECK(adder.run(std::vector<Tensor>{ones({2, 3}), ones({2, 3})})[0].to_vector<float>() == std::vector<float>(6, 2.f));
}

TEST_CASE("executor/plans fold what depends on metas alone: a mean's gradient seed, counted once per shape") {
  // d mean(x) / dx as the backward pass writes it for an unknown batch: (zeros_like(x) + 1) / sum(ones_like(x)).
  auto g = std::make_shared<Graph>();
  auto x = g->add_input(f32({-1}), "x");
  auto [grad, count] = testing::mean_gradient_seed(*g, x);
  g->set_outputs({g->add_op("mul", {grad, x})[0], count});
  Executor exec(g);
  REQUIRE(exec.specializes());
  for (std::int64_t n : {4, 2, 4}) {
    Tensor input = Generator(40 + n).uniform({n});
    std::vector<Tensor> out = exec.run(std::vector<Tensor>{input});
    // zeros_like, ones_like; then add, reduce_sum and div, whose inputs are known values and constants
    CHECK(exec.num_folded() == 5);
    Tensor expected = (zeros_like(input) + constant({1.f}, {1})) / reduce_sum(ones_like(input), {-1}, true) * input;
    CHECK(same_bits(out[0], expected));
    CHECK(out[1].to_vector<float>() == std::vector<float>{static_cast<float>(n)});
    out.clear();  // (a result still held makes the next call write a fresh buffer)
    CHECK(allocations_of_run(exec, {input}) == 0);
  }
  // A returned folded value is the plan's: later calls leave it as it was.
  std::vector<Tensor> first = exec.run(std::vector<Tensor>{ones({3})});
  exec.run(std::vector<Tensor>{ones({3})});
  CHECK(first[1].to_vector<float>() == std::vector<float>{3});
}

TEST_CASE("executor/plans fold nothing whose kernel throws: the call fails with the kernel's own message") {
  auto g = std::make_shared<Graph>();
  auto params = g->add_constant(constant({1.f, 2.f, 3.f}, {3}));
  auto indices = g->add_constant(constant({5}, {1}));
  g->set_outputs({g->add_op("gather", {params, indices}, Attrs().set("axis", std::int64_t{0}))[0]});
  Executor exec(g);  // the plan is made here: the fold is tried and left
  CHECK(exec.num_folded() == 0);
  CHECK_THROWS_WITH_AS(exec.run({}), doctest::Contains("gather: indices[0] = 5"), InvalidArgument);
}

TEST_CASE("executor/specialization off: a generic graph runs dynamically, allocating every call, same bits") {
  auto g = std::make_shared<Graph>();
  Tensor w = Generator(22).uniform({20, 5}, -0.5, 0.5);
  auto x = g->add_input(f32({-1, 20}), "x");
  g->set_outputs({g->add_op("reduce_sum", {g->add_op("relu", {g->add_op("matmul", {x, g->add_constant(w)})[0]})[0]})[0]});
  Executor generic(g, /*specialize=*/false), specialized(g);
  CHECK_FALSE(generic.specializes());
  CHECK_FALSE(generic.is_static());
  Tensor three = Generator(1).uniform({3, 20});
  for (int i = 0; i < 3; ++i) {
    CHECK(allocations_of_run(generic, {three}) == 3);  // matmul, relu, reduce_sum: fresh outputs every call
    CHECK(same_bits(generic.run(std::vector<Tensor>{three})[0], specialized.run(std::vector<Tensor>{three})[0]));
  }
  CHECK(generic.num_plans() == 0);
  CHECK(allocations_of_run(specialized, {three}) == 0);
  // A static graph is planned either way.
  auto s = std::make_shared<Graph>();
  auto y = s->add_input(f32({3, 20}), "y");
  s->set_outputs({s->add_op("relu", {y})[0]});
  Executor planned(s, /*specialize=*/false);
  CHECK(planned.is_static());
  CHECK(planned.num_plans() == 1);
}

TEST_CASE("executor/variables: read, v - 0.1 * g, assign in place; earlier reads keep their values") {
  Variable v(Generator(30).uniform({4, 3}), "v");
  auto g = std::make_shared<Graph>();
  auto grad = g->add_input(f32({4, 3}), "g");
  auto read = g->add_variable(v.state());
  auto step = g->add_op("mul", {g->add_constant(scalar(0.1f)), grad})[0];
  g->add_assign(v.state(), g->add_op("sub", {read, step})[0]);
  Executor exec(g);
  REQUIRE(exec.is_static());

  Tensor gradient = Generator(31).uniform({4, 3});
  std::vector<Tensor> in{gradient};
  Tensor before = v.value();
  Tensor before_copy = before + 0;
  Tensor expected = before - scalar(0.1f) * gradient;
  exec.run(in);
  CHECK(same_bits(v.value(), expected));
  CHECK(same_bits(before, before_copy));  // value semantics: the assignment went to a fresh buffer
  CHECK(v.value().impl_ptr() != before.impl_ptr());
  before = Tensor();
  before_copy = Tensor();

  // Steady state: nobody holds the variable's value, and the new value is a planned slot that dies at the
  // assign, so the variable and the slot trade buffers: no copy, no allocation, two buffers taking turns.
  std::set<const void*> buffers{v.value().impl().buffer->data()};
  const auto* impl = &v.value().impl();
  for (int i = 0; i < 4; ++i) {
    expected = expected - scalar(0.1f) * gradient;
    CHECK(allocations_of_run(exec, in) == 0);
    CHECK(same_bits(v.value(), expected));
    buffers.insert(v.value().impl().buffer->data());
  }
  CHECK(buffers.size() == 2);
  CHECK(&v.value().impl() == impl);  // the variable's tensor stays the same object
}

TEST_CASE("executor/variables: assigning a graph constant or a graph input copies; neither trades its buffer") {
  SUBCASE("a constant, assigned on every call") {
    Variable v(constant({1.f, 2.f}, {2}), "v");
    auto g = std::make_shared<Graph>();
    g->add_assign(v.state(), g->add_constant(constant({5.f, 6.f}, {2})));
    Executor exec(g);
    REQUIRE(exec.is_static());
    exec.run({});
    CHECK(v.value().to_vector<float>() == std::vector<float>{5, 6});
    v.assign(constant({7.f, 8.f}, {2}));
    exec.run({});  // the constant is still 5, 6
    CHECK(v.value().to_vector<float>() == std::vector<float>{5, 6});
  }
  SUBCASE("the caller's input") {
    Variable v(constant({1.f, 2.f}, {2}), "v");
    auto g = std::make_shared<Graph>();
    g->add_assign(v.state(), g->add_input(f32({2}), "x"));
    Executor exec(g);
    std::vector<Tensor> in{constant({5.f, 6.f}, {2})};
    exec.run(in);
    CHECK(in[0].to_vector<float>() == std::vector<float>{5, 6});  // the caller's tensor is unchanged
    CHECK(v.value().to_vector<float>() == std::vector<float>{5, 6});
    in[0] = constant({3.f, 4.f}, {2});
    exec.run(in);
    CHECK(in[0].to_vector<float>() == std::vector<float>{3, 4});
    CHECK(v.value().to_vector<float>() == std::vector<float>{3, 4});
  }
}

TEST_CASE("executor/variables: a read returned as an output keeps the value from before the assign") {
  Variable v(constant({1.f, 2.f}, {2}), "v");
  auto g = std::make_shared<Graph>();
  auto read = g->add_variable(v.state());
  g->add_assign(v.state(), g->add_op("add", {read, g->add_constant(constant({10.f, 20.f}, {2}))})[0]);
  g->set_outputs({read, g->add_variable(v.state())});
  Executor exec(g);
  std::vector<Tensor> out = exec.run({});
  CHECK(out[0].to_vector<float>() == std::vector<float>{1, 2});
  CHECK(out[1].to_vector<float>() == std::vector<float>{11, 22});
  CHECK(v.value().to_vector<float>() == std::vector<float>{11, 22});
  out = exec.run({});
  CHECK(out[0].to_vector<float>() == std::vector<float>{11, 22});
  CHECK(out[1].to_vector<float>() == std::vector<float>{21, 42});
}

TEST_CASE("executor/variables: an assignment of the wrong shape fails at run time, naming the variable") {
  Variable v(constant({1.f, 2.f, 3.f}, {3}), "w");
  auto g = std::make_shared<Graph>();
  g->add_assign(v.state(), g->add_input(f32({-1}), "x"));
  Executor exec(g);
  CHECK_THROWS_WITH_AS(exec.run(std::vector<Tensor>{constant({1.f, 2.f, 3.f, 4.f}, {4})}),
                       "assign: variable 'w' is f32[3], cannot assign f32[4]", ShapeError);
  CHECK(v.value().to_vector<float>() == std::vector<float>{1, 2, 3});
  exec.run(std::vector<Tensor>{constant({7.f, 8.f, 9.f}, {3})});
  CHECK(v.value().to_vector<float>() == std::vector<float>{7, 8, 9});
}

TEST_CASE("executor/errors: bad inputs name the input and both metas") {
  auto g = std::make_shared<Graph>();
  auto x = g->add_input(f32({-1, 20}), "x");
  g->set_outputs(g->add_op("relu", {x}));
  Executor exec(g);
  auto run = [&](std::vector<Tensor> inputs) { return exec.run(inputs); };
  CHECK_THROWS_WITH_AS(run({}), "executor: expected 1 input(s) (x), got 0", InvalidArgument);
  CHECK_THROWS_WITH_AS(run({zeros({3, 21})}), "executor: input 0 (x): expected f32[?,20], got f32[3,21]",
                       ShapeError);
  CHECK_THROWS_WITH_AS(run({zeros({3, 20}, int32)}), "executor: input 0 (x): expected f32[?,20], got i32[3,20]",
                       DTypeError);
  CHECK_THROWS_WITH_AS(run({zeros({20})}), "executor: input 0 (x): expected f32[?,20], got f32[20]", ShapeError);
  CHECK_THROWS_WITH_AS(run({Tensor()}), "executor: input 0 (x): expected f32[?,20], got an empty Tensor handle",
                       InvalidArgument);
  CHECK_THROWS_AS(run({zeros({2, 20}), zeros({2, 20})}), InvalidArgument);
  CHECK(run({ones({2, 20})})[0].to_vector<float>() == std::vector<float>(40, 1.f));
}

TEST_CASE("executor/errors: a kernel error mid-run leaves the executor usable") {
  auto g = std::make_shared<Graph>();
  auto params = g->add_input(f32({5, 3}), "params");
  auto indices = g->add_input(i32({3}), "indices");
  auto h = g->add_op("relu", {params})[0];
  auto y = g->add_op("gather", {h, indices})[0];
  g->set_outputs({g->add_op("neg", {y})[0]});
  Executor exec(g);
  REQUIRE(exec.is_static());
  Tensor p = Generator(40).uniform({5, 3}), good = constant({4, 0, 2});
  Tensor expected = neg(gather(relu(p), good));
  std::vector<Tensor> ok{p, good}, bad{p, constant({4, 7, 2})};
  CHECK(allocations_of_run(exec, ok) == exec.num_slots());
  CHECK_THROWS_AS(exec.run(bad), Error);
  CHECK(same_bits(exec.run(ok)[0], expected));
  CHECK(allocations_of_run(exec, ok) == 0);  // the failed call released everything it held
  CHECK_THROWS_AS(exec.run(bad), Error);
  CHECK(allocations_of_run(exec, ok) == 0);
}

TEST_CASE("executor/errors: calling run() again from inside one of its kernels is refused") {
  static Executor* target = nullptr;
  static bool reenter = true;
  static const OpDef op = [] {
    OpDef def("reenter");
    def.inputs(1).shape_fn([](ShapeContext& c) { c.output() = c.input(0); }).kernel([](KernelContext& c) {
      if (reenter) target->run(c.inputs.to_vector());
      std::memcpy(c.output().impl().buffer->data(), c.input(0).impl().buffer->data(), 4 * sizeof(float));
    });
    return def;
  }();
  auto g = std::make_shared<Graph>();
  g->set_outputs(g->add_op(op, {g->add_input(f32({4}), "x")}));
  Executor exec(g);
  target = &exec;
  std::vector<Tensor> in{constant({1.f, 2.f, 3.f, 4.f}, {4})};
  CHECK_THROWS_WITH_AS(exec.run(in),
                       doctest::Contains("executor: run() was called while this executor is already running"),
                       InvalidArgument);
  reenter = false;
  CHECK(exec.run(in)[0].to_vector<float>() == std::vector<float>{1, 2, 3, 4});
  target = nullptr;
}

TEST_CASE("executor/kernels that set their outputs: dynamic_outputs ops and replaced outputs") {
  // positives(x): the elements > 0, a length known only when the kernel runs (dynamic_outputs).
  static const OpDef positives = [] {
    OpDef def("positives");
    def.inputs(1).traits(trait::dynamic_outputs).shape_fn([](ShapeContext& c) {
      c.output() = TensorMeta{c.input(0).dtype, Shape{-1}};
    });
    def.kernel([](KernelContext& c) {
      std::vector<float> kept;
      for (float value : c.input(0).to_vector<float>())
        if (value > 0) kept.push_back(value);
      auto n = static_cast<std::int64_t>(kept.size());
      if (n == 5) c.outputs[0] = zeros({n}, int32);  // a wrong dtype for exactly 5 positives
      else if (n != 3) c.outputs[0] = constant(kept, {n});  // and no output at all for exactly 3
    });
    return def;
  }();
  // doubled(x): replaces its preallocated output with a tensor of its own instead of writing into it.
  static const OpDef doubled = [] {
    OpDef def("doubled");
    def.inputs(1).shape_fn([](ShapeContext& c) { c.output() = c.input(0); });
    def.kernel([](KernelContext& c) { c.outputs[0] = constant(c.input(0).to_vector<float>(), c.input(0).shape()) * 2; });
    return def;
  }();
  auto g = std::make_shared<Graph>();
  auto x = g->add_input(f32({5}), "x");
  auto p = g->add_op(positives, {g->add_op(doubled, {x})[0]})[0];
  g->set_outputs({g->add_op("neg", {p})[0]});
  Executor exec(g);
  CHECK_FALSE(exec.is_static());
  CHECK(exec.num_values() == 2);  // doubled and neg; positives allocates its own output
  auto run = [&](std::vector<float> values) { return exec.run(std::vector<Tensor>{constant(values, {5})})[0]; };
  CHECK(run({1, -2, 3, 0, -1}).to_vector<float>() == std::vector<float>{-2, -6});
  CHECK(run({1, 2, 3, 4, -1}).to_vector<float>() == std::vector<float>{-2, -4, -6, -8});
  CHECK_THROWS_WITH_AS(run({1, 2, 3, -4, -1}),
                       "executor: %2 = positives: the kernel left output 0 without a concrete value (expected f32[?])",
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(run({1, 2, 3, 4, 5}),
                       "executor: %2 = positives: the kernel produced i32[5] for output 0, expected f32[?]",
                       DTypeError);
  CHECK(run({-1, -2, -3, -4, 5}).to_vector<float>() == std::vector<float>{-10});
}

TEST_CASE("executor/static plan with kernels that set their own outputs of known shape") {
  // copy(x): a fresh tensor set as the output; declared dynamic_outputs or not (then it replaces its slot).
  auto copy_op = [](const char* name, std::uint32_t traits) {
    OpDef def(name);
    def.inputs(1).traits(traits).shape_fn([](ShapeContext& c) { c.output() = c.input(0); });
    def.kernel([](KernelContext& c) { c.outputs[0] = constant(c.input(0).to_vector<float>(), c.input(0).shape()); });
    return def;
  };
  static const OpDef copy_out = copy_op("copy_out", trait::dynamic_outputs), replace = copy_op("replace", 0);
  auto g = std::make_shared<Graph>();
  auto x = g->add_input(f32({2, 2}), "x");
  auto y = g->add_op(replace, {g->add_op(copy_out, {g->add_op("neg", {x})[0]})[0]})[0];
  g->set_outputs({g->add_op("relu", {y})[0]});
  Executor exec(g);
  CHECK(exec.is_static());
  CHECK(exec.num_values() == 3);  // neg, replace and relu; copy_out allocates its own output
  std::vector<Tensor> in{constant({1.f, -2.f, 3.f, -4.f}, {2, 2})};
  CHECK(exec.run(in)[0].to_vector<float>() == std::vector<float>{0, 2, 0, 4});
  CHECK(allocations_of_run(exec, in) == 2);  // the kernels' own tensors; the planned slots are reused
  in = {constant({-1.f, 2.f, -3.f, 4.f}, {2, 2})};
  CHECK(exec.run(in)[0].to_vector<float>() == std::vector<float>{1, 0, 3, 0});
}

}  // namespace tl::executor_test
