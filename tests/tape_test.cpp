// Variables and the GradientTape: semantics (watching, persistence, unconnected sources, summed targets,
// higher order), bad inputs, and a tiny end-to-end fit.
#include <doctest/doctest.h>

#include "tracelab/tracelab.h"

namespace tape_test {

namespace {
std::vector<float> values(const tl::Tensor& t) { return t.to_vector<float>(); }
}  // namespace

TEST_CASE("autodiff/variable: name, id, trainable, reads and assignments") {
  tl::Variable w(tl::constant({1.f, 2.f}), "w");
  tl::Variable frozen(tl::zeros({2}), "frozen", /*trainable=*/false);
  CHECK(w.name() == "w");
  CHECK(w.trainable());
  CHECK_FALSE(frozen.trainable());
  CHECK(w.id() != frozen.id());
  tl::Variable alias = w;  // copies share the variable
  CHECK(alias.id() == w.id());
  tl::Tensor before = w.read();
  w.assign(tl::constant({5.f, 6.f}));
  CHECK(values(alias) == std::vector<float>{5, 6});
  CHECK(values(before) == std::vector<float>{1, 2});  // a value read earlier is a snapshot
  w.assign_add(tl::constant({1.f, 1.f}));
  w.assign_sub(0.5);
  CHECK(values(w) == std::vector<float>{5.5f, 6.5f});
  CHECK(w.str() == "<tl.Variable 'w' shape=(2,) dtype=float32, values=[5.5 6.5]>");
  tl::Variable step(0, "step");  // a C++ number makes an int32 scalar variable
  step.assign_add(1);
  CHECK(step.dtype() == tl::int32);
  CHECK(step.read().item<int>() == 1);
}

TEST_CASE("autodiff/variable: wrong assignments are clear errors and leave the value intact") {
  tl::Variable w(tl::constant({1.f, 2.f}), "w");
  CHECK_THROWS_WITH_AS(w.assign(tl::zeros({3})), doctest::Contains("assign: variable 'w' has shape (2,), got (3,)"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(w.assign(tl::zeros({2}, tl::int32)),
                       doctest::Contains("assign: variable 'w' has dtype float32, got int32"), tl::DTypeError);
  CHECK_THROWS_WITH_AS(w.assign_add(tl::zeros({2, 2})), doctest::Contains("assign_add: variable 'w' has shape (2,)"),
                       tl::ShapeError);
  CHECK_THROWS_AS(w.assign(tl::Tensor()), tl::InvalidArgument);
  CHECK(values(w) == std::vector<float>{1, 2});
}

TEST_CASE("autodiff/tape: gradient of a watched constant and of trainable variables") {
  auto x = tl::constant({1.f, 2.f, 3.f});
  tl::GradientTape tape;
  tape.watch(x);
  auto y = tl::reduce_sum(x * x);  // dy/dx = 2x
  CHECK(values(tape.gradient(y, x)) == std::vector<float>{2, 4, 6});

  tl::Variable w(tl::constant({2.f}), "w"), b(tl::constant({1.f}), "b");
  tl::GradientTape tape2;
  auto z = w * 3 + b * b;  // dz/dw = 3, dz/db = 2b
  auto grads = tape2.gradient(z, std::vector<tl::Variable>{w, b});
  CHECK(values(grads[0]) == std::vector<float>{3});
  CHECK(values(grads[1]) == std::vector<float>{2});
  CHECK(tape2.watched_variables().size() == 2);
}

TEST_CASE("autodiff/tape: a non-scalar target is summed, as in TensorFlow") {
  auto x = tl::constant({1.f, 2.f});
  tl::GradientTape tape;
  tape.watch(x);
  auto y = x * tl::constant({3.f, 4.f});
  CHECK(values(tape.gradient(y, x)) == std::vector<float>{3, 4});
}

TEST_CASE("autodiff/tape: persistent tapes compute many gradients, others one") {
  auto x = tl::constant({3.f});
  tl::GradientTape persistent(/*persistent=*/true);
  persistent.watch(x);
  auto y = x * x, z = y * x;
  CHECK(values(persistent.gradient(y, x)) == std::vector<float>{6});
  CHECK(values(persistent.gradient(z, x)) == std::vector<float>{27});

  tl::GradientTape once;
  once.watch(x);
  auto w = x * x;
  CHECK(values(once.gradient(w, x)) == std::vector<float>{6});
  CHECK_THROWS_WITH_AS(once.gradient(w, x), doctest::Contains("non-persistent tape computes one gradient"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(once.watch(x), doctest::Contains("the tape is closed"), tl::InvalidArgument);
  CHECK_FALSE(once.recording());
}

TEST_CASE("autodiff/tape: unconnected sources give an empty result or zeros") {
  auto x = tl::constant({1.f, 2.f}), unused = tl::constant({5.f});
  tl::GradientTape tape(true);
  tape.watch(x);
  tape.watch(unused);
  auto y = tl::reduce_sum(x);
  CHECK_FALSE(tape.gradient(y, unused).defined());
  CHECK(values(tape.gradient(y, unused, tl::UnconnectedGradients::zero)) == std::vector<float>{0});
  tl::Variable never_read(tl::constant({1.f}), "never_read");
  CHECK_FALSE(tape.gradient(y, never_read).defined());
}

TEST_CASE("autodiff/tape: ops on unwatched tensors are not recorded; stop_recording ends recording") {
  auto a = tl::constant({1.f}), b = tl::constant({2.f});
  tl::GradientTape tape;
  auto c = a * b + 1;
  CHECK(tape.size() == 0);
  tape.watch(a);
  auto d = a * b;
  CHECK(tape.size() == 1);
  tape.stop_recording();
  auto e = d * 2;  // after stop_recording: not on the tape
  CHECK(tape.size() == 1);
  CHECK_FALSE(tape.gradient(e, a).defined());
  (void)c;
}

TEST_CASE("autodiff/tape: a rule skips the gradients of inputs the tape does not watch") {
  // TensorFlow's skip_input_indices: matmul, add, sub, mul and div compute only the gradients the tape will use.
  // Traced, the backward pass shows it: d(sum(x @ c - d))/dx needs one product (g c^T), not a second for c, and
  // no negation for d.
  const tl::Tensor c = tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {3, 2}), d = tl::constant({0.5f, -1.f});
  auto body = [&](const tl::Tensor& x) {
    tl::GradientTape tape;
    tape.watch(x);
    tl::Tensor y = tl::reduce_sum(tl::matmul(x, c) - d);
    return tape.gradient(y, x);
  };
  const tl::Tensor x = tl::constant({1.f, 0.f, -1.f, 2.f, 1.f, 0.f}, {2, 3});
  // dy/dx = ones(2, 2) @ c^T: each row is c's row sums (3, 7, 11).
  CHECK(values(body(x)) == std::vector<float>{3, 7, 11, 3, 7, 11});
  auto f = tl::function(body);
  CHECK(values(f(x)) == std::vector<float>{3, 7, 11, 3, 7, 11});
  const std::string traced = f.concrete_functions().at(0)->traced_graph().str();
  std::size_t products = 0;
  for (std::size_t at = traced.find("= matmul "); at != std::string::npos; at = traced.find("= matmul ", at + 1))
    ++products;
  CHECK(products == 2);  // the forward product and dx
  CHECK(traced.find("= neg ") == std::string::npos);
  // A watched second operand gets its gradient as before.
  tl::GradientTape tape;
  tl::Tensor w = tl::constant({2.f, -1.f});
  tape.watch(w);
  tl::Tensor z = tl::reduce_sum(tl::constant({3.f, 4.f}) - w * tl::constant({1.f, 5.f}) / tl::constant({2.f, 4.f}));
  CHECK(values(tape.gradient(z, w)) == std::vector<float>{-0.5f, -1.25f});
}

TEST_CASE("autodiff/tape: nested tapes give second-order gradients") {
  auto x = tl::constant({2.f});
  tl::GradientTape outer;
  outer.watch(x);
  tl::GradientTape inner;
  inner.watch(x);
  auto y = x * x * x;                  // y = x^3
  auto dy = inner.gradient(y, x);      // 3x^2 = 12, recorded by the outer tape
  CHECK(values(dy) == std::vector<float>{12});
  CHECK(values(outer.gradient(dy, x)) == std::vector<float>{12});  // 6x

  // Through matmul: f(W) = sum((x W)^2), df/dW = 2 x^T x W, d(sum df/dW)/dW = 2 x^T x 1 (a constant in W).
  auto xs = tl::constant({1.f, 2.f}, {1, 2});
  tl::Variable w(tl::constant({0.5f, -1.f}, {2, 1}), "w");
  tl::GradientTape outer2;
  tl::GradientTape inner2;
  auto f = tl::reduce_sum(tl::square(tl::matmul(xs, w)));
  auto df = inner2.gradient(f, w);                     // 2 x^T (x w) = 2 * [1,2]^T * (-1.5) = [-3, -6]
  CHECK(values(df) == std::vector<float>{-3, -6});
  auto d2 = outer2.gradient(tl::reduce_sum(df), w);    // 2 x^T x [1,1]^T = 2 * [[1,2],[2,4]] [1,1] = [6, 12]
  CHECK(values(d2) == std::vector<float>{6, 12});
}

TEST_CASE("autodiff/tape: a variable assigned while recording contributes through every value it had") {
  tl::Variable w(tl::constant({1.f}), "w");
  tl::GradientTape tape;
  auto first = w * 2;
  w.assign(tl::constant({4.f}));
  auto second = w * 3;
  CHECK(values(tape.gradient(first + second, w)) == std::vector<float>{5});
}

TEST_CASE("autodiff/tape: bad inputs are clear errors and the tape stays usable") {
  auto x = tl::constant({1.f, 2.f});
  tl::GradientTape tape(true);
  tape.watch(x);
  auto y = tl::reduce_sum(x * x);
  auto ints = tl::constant({1, 2});
  CHECK_THROWS_WITH_AS(tape.gradient(tl::cast(y, tl::int32), x), doctest::Contains("target must be float32"),
                       tl::DTypeError);
  auto stranger = tl::constant({7.f});
  CHECK_THROWS_WITH_AS(tape.gradient(y, stranger), doctest::Contains("source 0 (float32 (1,)) is not watched"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tape.watch(ints), doctest::Contains("only float32 tensors carry gradients"), tl::DTypeError);
  tl::Variable frozen(tl::constant({1.f}), "frozen", false);
  CHECK_THROWS_WITH_AS(tape.gradient(y, frozen), doctest::Contains("variable 'frozen' is not watched"),
                       tl::InvalidArgument);
  CHECK(values(tape.gradient(y, x)) == std::vector<float>{2, 4});  // still usable

  tl::GradientTape no_auto(false, /*watch_accessed_variables=*/false);
  tl::Variable w(tl::constant({1.f}), "w");
  auto z = w * 2;
  CHECK_THROWS_AS(no_auto.gradient(z, w), tl::InvalidArgument);
}

TEST_CASE("autodiff/tape: fits y = 3x + 2 with hand-written SGD") {
  tl::Generator gen(3);
  auto x = gen.uniform({64, 1}, -1, 1);
  auto y = x * 3 + 2;
  tl::Variable w(tl::zeros({1, 1}), "w"), b(tl::zeros({1}), "b");
  float loss_value = 0;
  for (int step = 0; step < 300; ++step) {
    tl::GradientTape tape;
    auto prediction = tl::matmul(x, w) + b;
    auto loss = tl::reduce_mean(tl::square(prediction - y));
    auto grads = tape.gradient(loss, std::vector<tl::Variable>{w, b});
    w.assign_sub(grads[0] * 0.2f);
    b.assign_sub(grads[1] * 0.2f);
    loss_value = loss.item<float>();
  }
  CHECK(w.read().item<float>() == doctest::Approx(3).epsilon(1e-3));
  CHECK(b.read().item<float>() == doctest::Approx(2).epsilon(1e-3));
  CHECK(loss_value < 1e-5f);
}

}  // namespace tape_test
