// tl::TensorArray: writes, reads, stack and size eagerly; accumulation inside a traced tl::while_loop equal to an
// unrolled eager loop; gradients through write / read / stack (numeric check); each bad use an error naming it.
#include <doctest/doctest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tracelab/tracelab.h"

#include "test_util.h"

namespace tensor_array_test {

namespace {

using tl::Tensor;
using tl::TensorArray;
using F = std::vector<float>;

F values(const Tensor& t) { return t.to_vector<float>(); }

std::string message_of(const std::function<void()>& fn) { return tl::testing::error_message(fn); }

/// A small RNN over x (time, batch, features) with weights w (features + units, units): each step's state
/// tanh([x_t, h] w) is written to a TensorArray inside tl::while_loop; returns the stacked states (time, batch, units).
Tensor rnn_with_tensor_array(const Tensor& x, const Tensor& w, std::int64_t units) {
  auto step = [&](const Tensor& t, const Tensor& h) {
    return tl::tanh(tl::matmul(tl::concat({tl::gather(x, t, 0), h}, 1), w));
  };
  Tensor x0 = tl::gather(x, tl::scalar(0), 0);  // (batch, features): batch is known only when the graph runs
  Tensor h0 = tl::zeros_like(tl::matmul(x0, tl::slice(w, {0, 0}, {x.shape()[2], units})));
  Tensor first = step(tl::scalar(0), h0);
  TensorArray outputs = TensorArray(tl::float32, 0, {.dynamic_size = true}).write(0, first);
  Tensor time = tl::reduce_sum(tl::ones_like(tl::reduce_sum(x, {1, 2})));  // x's dim 0, known when the graph runs
  auto [t, h, out] = tl::while_loop(
      [&](const Tensor& t, const Tensor&, const TensorArray&) { return tl::cast(t, tl::float32) < time; },
      [&](const Tensor& t, const Tensor& h, const TensorArray& out) {
        Tensor next = step(t, h);
        return std::tuple{t + 1, next, out.write(t, next)};
      },
      std::tuple{tl::scalar(1), first, outputs});
  (void)t;
  (void)h;
  return out.stack();
}

/// The same recurrence unrolled in C++, stacked with tl::stack.
Tensor rnn_unrolled(const Tensor& x, const Tensor& w, std::int64_t units) {
  const std::int64_t time = x.shape()[0];
  Tensor h = tl::zeros({x.shape()[1], units});
  std::vector<Tensor> states;
  for (std::int64_t t = 0; t < time; ++t) {
    h = tl::tanh(tl::matmul(tl::concat({tl::gather(x, tl::scalar(static_cast<std::int32_t>(t)), 0), h}, 1), w));
    states.push_back(h);
  }
  return tl::stack(states, 0);
}

}  // namespace

TEST_CASE("tensor_array: write, read, stack and size eagerly") {
  TensorArray a(tl::float32, 3);
  CHECK(a.size().item<std::int32_t>() == 3);
  CHECK_FALSE(a.buffer().defined());  // no element shape yet: the first write decides it
  TensorArray b = a.write(2, tl::constant({1.f, 2.f})).write(0, tl::constant({3.f, 4.f}));
  CHECK_FALSE(a.buffer().defined());  // functional: `a` is unchanged
  CHECK(b.element_shape() == tl::Shape{2});
  CHECK(b.stack().shape() == tl::Shape{3, 2});
  CHECK(values(b.stack()) == F{3, 4, 0, 0, 1, 2});  // element 1 was never written: zeros
  CHECK(values(b.read(2)) == F{1, 2});
  CHECK(values(b.read(tl::scalar(0))) == F{3, 4});
  // Writing an index again replaces the element (TensorFlow 2; TF 1's TensorArrayV3 refused).
  CHECK(values(b.write(2, tl::constant({5.f, 6.f})).read(2)) == F{5, 6});
  SUBCASE("dynamic size: a write past the end grows the array, with zeros in the gap") {
    TensorArray d = TensorArray(tl::int32, 0, {.dynamic_size = true}).write(3, tl::constant({7}));
    CHECK(d.size().item<std::int32_t>() == 4);
    CHECK(d.stack().to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 0, 0, 7});
  }
  SUBCASE("a fully known element shape makes the zero buffer at once") {
    TensorArray z(tl::float32, 2, {.element_shape = tl::Shape{3}});
    CHECK(values(z.stack()) == F{0, 0, 0, 0, 0, 0});
    CHECK(values(z.read(1)) == F{0, 0, 0});
  }
}

TEST_CASE("tensor_array: bad uses are errors naming the array, the index and the shapes") {
  TensorArray a = TensorArray(tl::float32, 2).write(0, tl::constant({1.f, 2.f}));
  CHECK(message_of([&] { a.write(2, tl::constant({1.f, 2.f})); }) ==
        "TensorArray.write: index 2 is out of range for an array of size 2 (dynamic_size is false)");
  CHECK(message_of([&] { a.write(-1, tl::constant({1.f, 2.f})); }) == "TensorArray.write: index -1 is negative");
  CHECK(message_of([&] { a.read(5); }) == "TensorArray.read: index 5 is out of range for an array of size 2");
  CHECK(message_of([&] { a.write(1, tl::constant({1.f, 2.f, 3.f})); }) ==
        "TensorArray.write: the array's elements have shape (2,), got a value of shape (3,)");
  CHECK(message_of([&] { a.write(1, tl::constant({1, 2})); }) ==
        "TensorArray.write: the array holds float32 elements, the value is i32[2]");
  CHECK(message_of([] { TensorArray(tl::float32, 2).stack(); }) ==
        "TensorArray.stack: nothing has been written and the element shape is unknown: give element_shape with every "
        "dim known to stack an unwritten array");
  CHECK(message_of([] {
          tl::while_loop([](const Tensor& t, const TensorArray&) { return t < 2; },
                         [](const Tensor& t, const TensorArray& out) { return std::tuple{t + 1, out.write(t, t)}; },
                         std::tuple{tl::scalar(0), TensorArray(tl::int32, 2)});
        }) == "while_loop: a TensorArray enters the loop before its buffer exists (element shape unknown): give "
              "element_shape with every dim known, or write one element before the loop");
  SUBCASE("traced, the index and unknown dims are checked when the graph runs") {
    auto write_at = tl::function(
        [](const Tensor& index, const Tensor& value) {
          return TensorArray(tl::float32, 2).write(0, tl::constant({0.f, 0.f})).write(index, value).stack();
        },
        {.input_signature = {tl::TensorSpec({}, tl::int32), tl::TensorSpec({-1})}, .name = "write_at"});
    CHECK(values(write_at(tl::scalar(1), tl::constant({5.f, 6.f}))) == F{0, 0, 5, 6});
    CHECK(message_of([&] { write_at(tl::scalar(3), tl::constant({5.f, 6.f})); }) ==
          "tensor_array_write: index 3 is out of range for an array of size 2 (dynamic_size is false)");
    auto read_at = tl::function(
        [](const Tensor& index) { return TensorArray(tl::float32, 2).write(1, tl::constant({1.f, 2.f})).read(index); },
        {.input_signature = {tl::TensorSpec({}, tl::int32)}, .name = "read_at"});
    CHECK(values(read_at(tl::scalar(1))) == F{1, 2});
    CHECK(message_of([&] { read_at(tl::scalar(4)); }) == "tensor_array_read: index 4 is out of range for an array of size 2");
    CHECK(message_of([&] { write_at(tl::scalar(1), tl::constant({5.f, 6.f, 7.f})); }) ==
          "tensor_array_write: the array's elements have shape (2,), the value is f32[3]");
  }
}

TEST_CASE("tensor_array: accumulating in a traced while_loop equals the unrolled eager loop; one trace") {
  const std::int64_t units = 3;
  Tensor w = tl::Generator(4).uniform({2 + units, units}, -0.8, 0.8);
  auto traced = tl::function([&](const Tensor& x) { return rnn_with_tensor_array(x, w, units); },
                             {.input_signature = {tl::TensorSpec({-1, -1, 2})}, .name = "rnn"});
  for (std::int64_t time : {1, 4, 7}) {
    CAPTURE(time);
    Tensor x = tl::Generator(static_cast<std::uint64_t>(time)).uniform({time, 2, 2}, -1, 1);
    Tensor got = traced(x), want = rnn_unrolled(x, w, units);
    REQUIRE(got.shape() == tl::Shape{time, 2, units});
    CHECK(tl::reduce_max(tl::abs(got - want)).item<float>() <= 1e-6f);
    CHECK(values(rnn_with_tensor_array(x, w, units)) == values(got));  // eagerly: the same ops, the same bits
  }
  CHECK(traced.tracing_count() == 1);
  const tl::graph::Graph& graph = traced.concrete_functions()[0]->graph();
  REQUIRE(graph.op_counts()["while_loop"] == 1);
  for (const tl::graph::Node& node : graph.nodes())
    if (node.op != nullptr && node.op->name() == "while_loop")
      CHECK(node.subgraphs.at(1)->op_counts()["tensor_array_write"] == 1);  // the write is in the loop's body
}

TEST_CASE("tensor_array: gradients flow through write, read and stack, eagerly and through a traced loop") {
  const std::int64_t units = 3;
  Tensor x = tl::Generator(9).uniform({5, 2, 2}, -1, 1);
  Tensor probe = tl::Generator(10).uniform({units, 2}, -1, 1);  // mixes the units; the square weighs each element
  auto project = [&](const Tensor& stacked) {
    return tl::reduce_sum(tl::square(tl::matmul(tl::reshape(stacked, {-1, units}), probe)));
  };
  auto loss = [&](const Tensor& w) { return project(rnn_with_tensor_array(x, w, units)); };
  auto grad_of = [&](const Tensor& w) {
    tl::GradientTape tape;
    tape.watch(w);
    return tape.gradient(loss(w), w);
  };
  Tensor w = tl::Generator(4).uniform({2 + units, units}, -0.8, 0.8);
  Tensor traced = tl::function(grad_of, {.name = "rnn_grad"})(w);
  tl::GradientTape tape;
  tape.watch(w);
  Tensor reference = tape.gradient(project(rnn_unrolled(x, w, units)), w);
  CHECK(tl::reduce_max(tl::abs(traced - reference)).item<float>() <= 1e-5f);
  CHECK(tl::reduce_max(tl::abs(grad_of(w) - reference)).item<float>() <= 1e-5f);
  // Central differences on every weight (as tests/grad_check.h does for one op).
  F w_values = values(w), analytic = values(traced);
  const float epsilon = 1e-2f;
  for (std::size_t i = 0; i < w_values.size(); ++i) {
    F up = w_values, down = w_values;
    up[i] += epsilon;
    down[i] -= epsilon;
    float numeric = (loss(tl::constant(up, w.shape())).item<float>() - loss(tl::constant(down, w.shape())).item<float>()) /
                    (2 * epsilon);
    CAPTURE(i);
    CHECK(analytic[i] == doctest::Approx(numeric).epsilon(2e-2).scale(0.25));
  }
  SUBCASE("traced, reading the last element of a dynamic array (dim 0 unknown) is differentiable") {
    auto last_grad = tl::function([&](const Tensor& w) {
      tl::GradientTape tape;
      tape.watch(w);
      Tensor stacked = rnn_with_tensor_array(x, w, units);
      TensorArray again = TensorArray(tl::float32, 0, {.dynamic_size = true});
      Tensor last = TensorArray::with_buffer(again, stacked).read(TensorArray::with_buffer(again, stacked).size() - 1);
      return tape.gradient(tl::reduce_sum(last * last), w);
    }, {.name = "last_grad"});
    tl::GradientTape tape;
    tape.watch(w);
    Tensor last = tl::gather(rnn_unrolled(x, w, units), tl::scalar(4), 0);
    Tensor want = tape.gradient(tl::reduce_sum(last * last), w);
    CHECK(tl::reduce_max(tl::abs(last_grad(w) - want)).item<float>() <= 1e-5f);
  }
  SUBCASE("read: the gradient reaches the written value; an overwritten value gets none") {
    Tensor v = tl::constant({1.f, 2.f}), u = tl::constant({3.f, 4.f});
    tl::GradientTape t2(/*persistent=*/true);
    t2.watch(v);
    t2.watch(u);
    TensorArray a = TensorArray(tl::float32, 2).write(0, v).write(0, u).write(1, v * 3.f);
    Tensor y = tl::reduce_sum(a.read(0) * 2.f) + tl::reduce_sum(a.read(1));
    CHECK(values(t2.gradient(y, u)) == F{2, 2});
    CHECK(values(t2.gradient(y, v)) == F{3, 3});  // only through element 1: element 0's v was replaced
  }
}

}  // namespace tensor_array_test
