// Optimizers: Keras' update formulas step by step (numbers worked out by hand in the comments), a double-
// precision reference over several steps, convergence on a quadratic, slot bookkeeping, missing gradients and
// errors, learning-rate schedules, and a traced train step that matches the eager one.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace optimizers_test {

namespace {

using tl::Tensor;
using tl::Variable;
namespace opt = tl::optimizers;

/// One step of minimizing var^2 / 2 (gradient: var itself), as in Keras' docstring examples.
void half_square_step(opt::Optimizer& optimizer, Variable& var) {
  tl::GradientTape tape;
  Tensor loss = tl::reduce_sum(tl::square(var.read())) / 2.f;
  optimizer.apply_gradients(tape.gradient(loss, std::vector<Variable>{var}), {var});
}

float scalar_of(const Variable& v) { return v.read().item<float>(); }
int step_of(const opt::Optimizer& o) { return o.iterations().read().item<int>(); }

std::vector<std::string> names_of(const std::vector<Variable>& vars) {
  std::vector<std::string> names;
  for (const auto& v : vars) names.push_back(v.name());
  return names;
}

}  // namespace

TEST_CASE("optimizers/sgd: plain, momentum and Nesterov steps (Keras' examples)") {
  SUBCASE("plain: 1 - 0.1 * 1 = 0.9") {
    Variable var(tl::scalar(1.f), "var");
    opt::SGD sgd(0.1);
    half_square_step(sgd, var);
    CHECK(scalar_of(var) == doctest::Approx(0.9));
    CHECK(sgd.variables().size() == 1);  // no momentum slot without momentum
  }
  SUBCASE("momentum 0.9: steps of 0.1 then 0.18 (TF's SGD docstring)") {
    Variable var(tl::scalar(1.f), "var");
    opt::SGD sgd(0.1, 0.9);
    half_square_step(sgd, var);  // m = -0.1, var = 0.9
    CHECK(scalar_of(var) == doctest::Approx(0.9));
    half_square_step(sgd, var);  // m = 0.9 * -0.1 - 0.1 * 0.9 = -0.18, var = 0.72
    CHECK(scalar_of(var) == doctest::Approx(0.72));
    CHECK(sgd.get_slot(var, "momentum").read().item<float>() == doctest::Approx(-0.18));
  }
  SUBCASE("nesterov: var + momentum m' - lr g") {
    Variable var(tl::scalar(1.f), "var");
    opt::SGD sgd(0.1, 0.9, true);
    half_square_step(sgd, var);  // m = -0.1; var = 1 + 0.9 * -0.1 - 0.1 = 0.81
    CHECK(scalar_of(var) == doctest::Approx(0.81));
    half_square_step(sgd, var);  // m = -0.09 - 0.081 = -0.171; var = 0.81 - 0.1539 - 0.081 = 0.5751
    CHECK(scalar_of(var) == doctest::Approx(0.5751));
  }
}

TEST_CASE("optimizers/adam: bias-corrected steps with epsilon hat (Keras 3 formulas)") {
  // var = 1, lr = 0.1, beta_1 = 0.9, beta_2 = 0.999, eps = 1e-7, g = var:
  // t = 1: m = 0.1, v = 0.001, alpha = 0.1 sqrt(0.001) / 0.1 = 0.0316228,
  //        var = 1 - 0.0316228 * 0.1 / (0.0316228 + 1e-7) = 0.9000003
  // t = 2: g = 0.9000003, m = 0.18, v = 0.001809, alpha = 0.1 sqrt(0.001999) / 0.19 = 0.0235317,
  //        var = 0.9000003 - 0.0235317 * 0.18 / (0.0425323 + 1e-7) = 0.8004128
  // t = 3: var = 0.7015870 (same formulas once more)
  Variable var(tl::scalar(1.f), "var");
  opt::Adam adam(0.1);
  half_square_step(adam, var);
  CHECK(scalar_of(var) == doctest::Approx(0.9000003).epsilon(1e-6));
  half_square_step(adam, var);
  CHECK(scalar_of(var) == doctest::Approx(0.8004128).epsilon(1e-6));
  half_square_step(adam, var);
  CHECK(scalar_of(var) == doctest::Approx(0.7015870).epsilon(1e-6));
  CHECK(adam.get_slot(var, "m").read().item<float>() == doctest::Approx(0.2420413).epsilon(1e-6));
  CHECK(adam.get_slot(var, "v").read().item<float>() == doctest::Approx(0.0024479).epsilon(1e-4));
  CHECK(step_of(adam) == 3);
}

TEST_CASE("optimizers/adam: a double-precision reference over 5 steps on a vector") {
  tl::Generator gen(3);
  Tensor init = gen.uniform({7}, -2, 2);
  Tensor target = gen.uniform({7}, -1, 1);
  Variable w(init, "w");
  opt::Adam adam(0.05, 0.8, 0.95, 1e-3);
  std::vector<double> ref(init.to_vector<double>()), m(7, 0), v(7, 0);
  auto goal = target.to_vector<double>();
  for (int t = 1; t <= 5; ++t) {
    tl::GradientTape tape;
    Tensor loss = tl::reduce_sum(tl::square(w.read() - target));  // gradient 2 (w - target)
    adam.apply_gradients(tape.gradient(loss, std::vector<Variable>{w}), {w});
    double alpha = 0.05 * std::sqrt(1 - std::pow(0.95, t)) / (1 - std::pow(0.8, t));
    for (std::size_t i = 0; i < 7; ++i) {
      double g = 2 * (ref[i] - goal[i]);
      m[i] += (g - m[i]) * 0.2;
      v[i] += (g * g - v[i]) * 0.05;
      ref[i] -= alpha * m[i] / (std::sqrt(v[i]) + 1e-3);
    }
  }
  auto got = w.read().to_vector<float>();
  for (std::size_t i = 0; i < 7; ++i) CHECK(got[i] == doctest::Approx(ref[i]).epsilon(1e-5));
}

TEST_CASE("optimizers/adam: a moment whose decay would make a denormal is flushed (below FLT_MIN / (1 - beta))") {
  // A zero gradient decays m by beta_1 and v by beta_2 per step: m += (0 - m)(1 - beta_1). Once (1 - beta) of a
  // moment is below FLT_MIN that product is a denormal, many times slower to compute, so the moment is flushed.
  const tl::OpDef& update = tl::OpRegistry::global().get("adam_update");
  const tl::Attrs attrs{{"beta_1", 0.9}, {"beta_2", 0.999}, {"epsilon", 1e-7}};
  const float tiny = std::numeric_limits<float>::min();
  const float floor_m = tiny / (1.f - 0.9f), floor_v = tiny / (1.f - 0.999f);
  Tensor var = tl::constant({1.f, 1.f, 1.f});
  Tensor m = tl::constant({0.5f * floor_m, 2 * floor_m, 0.5f});
  Tensor v = tl::constant({0.5f * floor_v, 2 * floor_v, 0.25f});
  const Tensor g = tl::zeros({3}), lr = tl::scalar(0.01f), step = tl::scalar(10.f);
  std::vector<Tensor> out(3);
  tl::execute(update, std::vector<Tensor>{var, m, v, g, lr, step}, attrs, out);
  const std::vector<float> m1 = out[1].to_vector<float>(), v1 = out[2].to_vector<float>();
  CHECK(m1[0] == 0.f);  // its decay, 0.5 FLT_MIN, would be a denormal
  CHECK(m1[1] == doctest::Approx(1.8 * floor_m));
  CHECK(m1[2] == doctest::Approx(0.45));
  CHECK(v1[0] == 0.f);
  CHECK(v1[1] == doctest::Approx(1.998 * floor_v));
  CHECK(v1[2] == doctest::Approx(0.24975));
  // Decaying from above the floors: every step's moments are 0 or large enough that their decay is no denormal.
  v = tl::constant({10 * floor_v});
  m = tl::constant({10 * floor_m});
  var = tl::constant({1.f});
  for (int steps = 0; steps < 5000 && v.item<float>() != 0.f; ++steps) {
    tl::execute(update, std::vector<Tensor>{var, m, v, tl::zeros({1}), lr, step}, attrs, out);
    var = out[0], m = out[1], v = out[2];
    const float mi = m.item<float>(), vi = v.item<float>();
    CHECK((mi == 0.f || mi * (1 - 0.9f) >= tiny));
    CHECK((vi == 0.f || vi * (1 - 0.999f) >= tiny));
  }
  CHECK(v.item<float>() == 0.f);  // ln(10) / 0.001 ~ 2,300 steps
  CHECK(var.item<float>() == 1.f);
  // With an epsilon so small that flushing v could change sqrt(v) + epsilon, only denormals are flushed.
  const tl::Attrs small_epsilon{{"beta_1", 0.9}, {"beta_2", 0.999}, {"epsilon", 1e-12}};
  tl::execute(update, std::vector<Tensor>{tl::constant({1.f}), tl::constant({0.5f * floor_m}),
                                          tl::constant({0.5f * floor_v}), tl::zeros({1}), lr, step},
              small_epsilon, out);
  CHECK(out[1].item<float>() == doctest::Approx(0.45 * floor_m));
  CHECK(out[2].item<float>() == doctest::Approx(0.4995 * floor_v));
}

TEST_CASE("optimizers/minimize: tape.gradient + apply_gradients in one call; the tape's variables by default") {
  Variable a(tl::constant({1.f, -2.f}), "a"), b(tl::constant({0.5f, 3.f}), "b");
  Variable c(tl::constant({1.f, -2.f}), "c"), d(tl::constant({0.5f, 3.f}), "d");
  Variable e(tl::constant({1.f, -2.f}), "e"), f(tl::constant({0.5f, 3.f}), "f");
  opt::Adam by_hand(0.1), given(0.1), watched(0.1);
  const auto loss = [](const Variable& x, const Variable& y) { return tl::reduce_sum(tl::square(x.read() * y.read())); };
  for (int i = 0; i < 3; ++i) {
    {
      tl::GradientTape tape;
      Tensor l = loss(a, b);
      by_hand.apply_gradients(tape.gradient(l, std::vector<Variable>{a, b}), {a, b});
    }
    {
      tl::GradientTape tape;
      given.minimize(tape, loss(c, d), {c, d});
    }
    {
      tl::GradientTape tape;
      watched.minimize(tape, loss(e, f));  // the variables the loss read: e, f
    }
  }
  for (const auto& [x, y] : {std::pair{a, c}, std::pair{a, e}, std::pair{b, d}, std::pair{b, f}})
    CHECK(x.read().to_vector<float>() == y.read().to_vector<float>());
  CHECK(step_of(watched) == 3);
  tl::GradientTape tape;  // nothing watched: apply_gradients' error, nothing applied
  CHECK_THROWS_AS(watched.minimize(tape, tl::constant({1.f})), tl::InvalidArgument);
  CHECK(step_of(watched) == 3);
}

TEST_CASE("optimizers/rmsprop: Keras' docstring value, and with momentum") {
  // var = 10, lr = 0.1: rms = 0.1 * 100 = 10, var = 10 - 0.1 * 10 / sqrt(10 + 1e-7) = 9.683772
  Variable var(tl::scalar(10.f), "var");
  opt::RMSprop rmsprop(0.1);
  half_square_step(rmsprop, var);
  CHECK(scalar_of(var) == doctest::Approx(9.683772).epsilon(1e-6));
  // second step: g = 9.683772, rms = 9 + 0.1 * 93.775 = 18.3775, var = 9.683772 - 0.9683772 / 4.28690 = 9.457880
  half_square_step(rmsprop, var);
  CHECK(scalar_of(var) == doctest::Approx(9.457880).epsilon(1e-6));
  // momentum 0.5: the first step is the same; then mom = 0.5 * 0.316228 + 0.225892, var = 9.299766
  Variable var2(tl::scalar(10.f), "var2");
  opt::RMSprop with_momentum(0.1, 0.9, 0.5);
  half_square_step(with_momentum, var2);
  CHECK(scalar_of(var2) == doctest::Approx(9.683772).epsilon(1e-6));
  half_square_step(with_momentum, var2);
  CHECK(scalar_of(var2) == doctest::Approx(9.299766).epsilon(1e-6));
  CHECK(names_of(with_momentum.variables()) ==
        std::vector<std::string>{"RMSprop/iterations", "RMSprop/var2/rms", "RMSprop/var2/momentum"});
}

TEST_CASE("optimizers/convergence: every optimizer minimizes a quadratic") {
  using Factory = std::function<std::unique_ptr<opt::Optimizer>()>;
  std::vector<std::pair<std::string, Factory>> cases = {
      {"sgd", [] { return std::make_unique<opt::SGD>(0.1); }},
      {"sgd momentum", [] { return std::make_unique<opt::SGD>(0.05, 0.9); }},
      {"sgd nesterov", [] { return std::make_unique<opt::SGD>(0.05, 0.9, true); }},
      {"adam", [] { return std::make_unique<opt::Adam>(0.1); }},
      {"rmsprop", [] { return std::make_unique<opt::RMSprop>(0.05); }},
      {"rmsprop momentum", [] { return std::make_unique<opt::RMSprop>(0.01, 0.9, 0.5); }},
  };
  Tensor target = tl::constant({1.f, -2.f, 3.f}, {3, 1});
  for (const auto& entry : cases) {  // no structured bindings: clang 14 cannot capture them (CAPTURE)
    const std::string& label = entry.first;
    CAPTURE(label);
    auto optimizer = entry.second();
    Variable w(tl::zeros({3, 1}), "w");
    float first = 0, last = 0;
    for (int step = 0; step < 300; ++step) {
      tl::GradientTape tape;
      Tensor loss = tl::reduce_mean(tl::square(w.read() - target));
      (step == 0 ? first : last) = loss.item<float>();
      optimizer->apply_gradients(tape.gradient(loss, std::vector<Variable>{w}), {w});
    }
    CHECK(last < 1e-3f * first);
    CHECK(step_of(*optimizer) == 300);
  }
}

TEST_CASE("optimizers/slots: created once on the first apply, named, listed by variables(); build() and copies") {
  Variable kernel(tl::ones({2, 2}), "dense/kernel"), bias(tl::zeros({2}), "dense/bias");
  opt::Adam adam(0.01);
  CHECK(names_of(adam.variables()) == std::vector<std::string>{"Adam/iterations"});
  CHECK(adam.iterations().dtype() == tl::int32);
  CHECK_FALSE(adam.iterations().trainable());
  for (int i = 0; i < 3; ++i) adam.apply_gradients({tl::ones({2, 2}), tl::ones({2})}, {kernel, bias});
  auto vars = adam.variables();
  CHECK(names_of(vars) == std::vector<std::string>{"Adam/iterations", "Adam/dense/kernel/m", "Adam/dense/kernel/v",
                                                   "Adam/dense/bias/m", "Adam/dense/bias/v"});
  CHECK(vars[1].shape() == tl::Shape{2, 2});
  CHECK_FALSE(vars[1].trainable());
  CHECK(step_of(adam) == 3);
  // the same slot Variable every time (no new slots on later steps)
  CHECK(adam.get_slot(kernel, "m") == vars[1]);
  // a copy shares the state; pairs work too
  opt::Adam copy = adam;
  copy.apply_gradients(std::vector<std::pair<Tensor, Variable>>{{tl::ones({2}), bias}});
  CHECK(step_of(adam) == 4);
  CHECK(adam.variables().size() == 5);
  // build() creates slots ahead of the first step (e.g. before restoring a checkpoint); a repeated variable
  // name gets a suffix so slot names stay unique
  opt::SGD sgd(0.1, 0.5);
  Variable other_kernel(tl::ones({3}), "dense/kernel");
  sgd.build({kernel, other_kernel});
  CHECK(names_of(sgd.variables()) ==
        std::vector<std::string>{"SGD/iterations", "SGD/dense/kernel/momentum", "SGD/dense/kernel_1/momentum"});
  CHECK(step_of(sgd) == 0);
  CHECK_THROWS_WITH_AS(adam.get_slot(kernel, "velocity"), doctest::Contains("Adam: no slot 'velocity'"),
                       tl::InvalidArgument);
}

TEST_CASE("optimizers/gradients: undefined ones are skipped with a warning; errors leave everything unchanged") {
  Variable a(tl::ones({2}), "a"), b(tl::ones({2}), "b");
  opt::SGD sgd(0.5);
  {
    tl::ScopedLogCapture log;
    sgd.apply_gradients({tl::ones({2}), Tensor()}, {a, b});
    auto warnings = log.texts(tl::LogLevel::warning);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("SGD: gradients do not exist for variables ['b']") != std::string::npos);
  }
  CHECK(a.read().to_vector<float>() == std::vector<float>{0.5f, 0.5f});
  CHECK(b.read().to_vector<float>() == std::vector<float>{1.f, 1.f});
  CHECK_THROWS_WITH_AS(sgd.apply_gradients({Tensor(), Tensor()}, {a, b}),
                       doctest::Contains("SGD: no gradients provided for any variable: ['a', 'b']"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(sgd.apply_gradients({tl::ones({2}), tl::ones({3})}, {a, b}),
                       doctest::Contains("SGD: the gradient for variable 'b' is f32[3], the variable is f32[2]"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(sgd.apply_gradients({tl::ones({2})}, {a, b}),
                       doctest::Contains("SGD: apply_gradients got 1 gradients for 2 variables"), tl::InvalidArgument);
  Variable counter(tl::zeros({2}, tl::int32), "counter");
  CHECK_THROWS_WITH_AS(sgd.apply_gradients({tl::ones({2})}, {counter}),
                       doctest::Contains("variable 'counter' is i32[2]; only float32 variables"), tl::DTypeError);
  CHECK(a.read().to_vector<float>() == std::vector<float>{0.5f, 0.5f});  // the failed calls changed nothing
  CHECK(step_of(sgd) == 1);
  CHECK_THROWS_AS(opt::SGD(0.1, 1.5), tl::InvalidArgument);
  CHECK_THROWS_AS(opt::Adam(0.1, 1.0), tl::InvalidArgument);
  CHECK_THROWS_AS(opt::RMSprop(-0.1), tl::InvalidArgument);
}

TEST_CASE("optimizers/schedules: values at given steps, eagerly and traced, and in an optimizer") {
  // 0.1 * 0.5^(step / 10)
  opt::ExponentialDecay smooth(0.1, 10, 0.5), stairs(0.1, 10, 0.5, true);
  CHECK(smooth(tl::scalar(0)).item<float>() == doctest::Approx(0.1));
  CHECK(smooth(tl::scalar(5)).item<float>() == doctest::Approx(0.0707107));
  CHECK(smooth(tl::scalar(10)).item<float>() == doctest::Approx(0.05));
  CHECK(stairs(tl::scalar(5)).item<float>() == doctest::Approx(0.1));
  CHECK(stairs(tl::scalar(19)).item<float>() == doctest::Approx(0.05));
  CHECK(stairs(tl::scalar(20)).item<float>() == doctest::Approx(0.025));
  // [1.0 while step <= 10, 0.5 while step <= 20, 0.1 after]
  opt::PiecewiseConstantDecay piecewise({10, 20}, {1.0, 0.5, 0.1});
  std::vector<std::pair<int, float>> expected{{0, 1.f}, {10, 1.f}, {11, 0.5f}, {20, 0.5f}, {21, 0.1f}, {1000, 0.1f}};
  auto traced = tl::function([&](const Tensor& s) { return std::vector<Tensor>{piecewise(s), stairs(s)}; },
                             {.name = "schedules"});
  for (const auto& entry : expected) {
    const int step = entry.first;
    const float rate = entry.second;
    CAPTURE(step);
    CHECK(piecewise(tl::scalar(step)).item<float>() == rate);
    auto both = traced(tl::scalar(step));
    CHECK(both[0].item<float>() == rate);
    CHECK(both[1].item<float>() == doctest::Approx(stairs(tl::scalar(step)).item<float>()));
  }
  CHECK(traced.tracing_count() == 1);
  CHECK_THROWS_AS(opt::PiecewiseConstantDecay({10, 5}, {1, 2, 3}), tl::InvalidArgument);
  CHECK_THROWS_AS(opt::PiecewiseConstantDecay({10}, {1}), tl::InvalidArgument);
  CHECK_THROWS_AS(opt::ExponentialDecay(0.1, 0, 0.5), tl::InvalidArgument);
  // SGD on var^2 / 2 from 1 with rate 0.5 at steps 0 and 1, 0.25 afterwards: 1 -> 0.5 -> 0.25 -> 0.1875
  opt::SGD sgd(opt::PiecewiseConstantDecay({1}, {0.5, 0.25}));
  Variable var(tl::scalar(1.f), "var");
  CHECK(sgd.learning_rate().item<float>() == 0.5f);
  half_square_step(sgd, var);
  half_square_step(sgd, var);
  CHECK(scalar_of(var) == doctest::Approx(0.25));
  CHECK(sgd.learning_rate().item<float>() == 0.25f);
  half_square_step(sgd, var);
  CHECK(scalar_of(var) == doctest::Approx(0.1875));
}

TEST_CASE("optimizers/traced: a tl::function train step gives the eager weights, slots made on the first trace") {
  struct Model {
    Variable w, b;
    Tensor loss(const Tensor& x, const Tensor& y) const {
      return tl::losses::MeanSquaredError()(y, tl::matmul(x, w) + b);
    }
  };
  auto make_model = [] {
    tl::Generator gen(11);
    return Model{Variable(gen.uniform({4, 1}, -0.5, 0.5), "w"), Variable(tl::zeros({1}), "b")};
  };
  using Factory = std::function<std::unique_ptr<opt::Optimizer>()>;
  std::vector<std::pair<std::string, Factory>> cases = {
      {"sgd nesterov", [] { return std::make_unique<opt::SGD>(0.05, 0.9, true); }},
      {"adam + exponential decay", [] { return std::make_unique<opt::Adam>(opt::ExponentialDecay(0.05, 5, 0.7)); }},
      {"rmsprop momentum", [] { return std::make_unique<opt::RMSprop>(0.01, 0.9, 0.5); }},
  };
  for (const auto& entry : cases) {
    const std::string& label = entry.first;
    CAPTURE(label);
    Model eager_model = make_model(), graph_model = make_model();
    auto eager_opt = entry.second(), graph_opt = entry.second();
    auto step = [](Model& model, opt::Optimizer& optimizer, const Tensor& x, const Tensor& y) {
      tl::GradientTape tape;
      Tensor loss = model.loss(x, y);
      optimizer.apply_gradients(tape.gradient(loss, std::vector<Variable>{model.w, model.b}), {model.w, model.b});
      return loss;
    };
    auto traced = tl::function([&](const Tensor& x, const Tensor& y) { return step(graph_model, *graph_opt, x, y); },
                               {.input_signature = {tl::TensorSpec({-1, 4}), tl::TensorSpec({-1, 1})},
                                .name = "train_step"});
    tl::Generator data(4);
    for (int i = 0; i < 20; ++i) {
      Tensor x = data.uniform({2 + i % 3, 4}), y = data.uniform({2 + i % 3, 1});
      float eager_loss = step(eager_model, *eager_opt, x, y).item<float>();
      CHECK(traced(x, y).item<float>() == doctest::Approx(eager_loss).epsilon(1e-5));
    }
    CHECK(traced.tracing_count() == 2);  // the first trace created the slots: the first call traced twice
    auto we = eager_model.w.read().to_vector<float>(), wg = graph_model.w.read().to_vector<float>();
    for (std::size_t i = 0; i < we.size(); ++i) CHECK(wg[i] == doctest::Approx(we[i]).epsilon(1e-5));
    CHECK(step_of(*graph_opt) == 20);
    CHECK(names_of(graph_opt->variables()).size() == names_of(eager_opt->variables()).size());
    // one update node for both variables and their slots, updated in place: no reads or assigns of the slots
    REQUIRE(traced.concrete_functions().size() == 1);
    const tl::graph::Graph& optimized = traced.concrete_functions()[0]->graph();
    const auto& counts = optimized.op_counts();
    int fused = 0;
    for (const char* op : {"sgd_momentum_apply", "adam_apply", "rmsprop_momentum_apply"})
      fused += counts.count(op) ? static_cast<int>(counts.at(op)) : 0;
    CHECK(fused == 1);
    CHECK(optimized.count(tl::graph::NodeKind::assign) == 1);  // the iterations counter
    CHECK(optimized.count(tl::graph::NodeKind::variable) == 3);  // w, b (the model reads them) and iterations
  }
}

TEST_CASE("optimizers/traced: eager steps then traced ones continue the same state; a retrace makes no new slots") {
  Variable w(tl::ones({3}), "w");
  opt::Adam adam(0.1);
  auto grad_step = [&](const Tensor& target) {
    tl::GradientTape tape;
    Tensor loss = tl::reduce_sum(tl::square(w.read() - target));
    adam.apply_gradients(tape.gradient(loss, std::vector<Variable>{w}), {w});
  };
  Tensor target = tl::constant({0.f, 1.f, 2.f});
  grad_step(target);  // eager: slots made here
  auto traced = tl::function([&](const Tensor& t) { grad_step(t); }, {.name = "step"});
  traced(target);
  Tensor other = tl::constant({1.f});  // a (1,) target (broadcast): a second trace, which must create nothing
  traced(other);
  CHECK(traced.tracing_count() == 2);
  CHECK(step_of(adam) == 3);
  CHECK(adam.variables().size() == 3);
  // the reference: the same three steps eagerly
  Variable w2(tl::ones({3}), "w");
  opt::Adam ref(0.1);
  for (const Tensor& t : {target, target, other}) {
    tl::GradientTape tape;
    Tensor loss = tl::reduce_sum(tl::square(w2.read() - t));
    ref.apply_gradients(tape.gradient(loss, std::vector<Variable>{w2}), {w2});
  }
  auto a = w.read().to_vector<float>(), b = w2.read().to_vector<float>();
  for (std::size_t i = 0; i < 3; ++i) CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-6));
}

TEST_CASE("optimizers/apply ops: one node updates every variable in place, bit-identical to the per-variable ops") {
  const tl::OpDef& apply = tl::OpRegistry::global().get("adam_apply");
  const tl::OpDef& update = tl::OpRegistry::global().get("adam_update");
  const tl::Attrs attrs{{"beta_1", 0.9}, {"beta_2", 0.999}, {"epsilon", 1e-7}};
  tl::Generator gen(3);
  Variable w(gen.uniform({4, 3}), "w"), b(gen.uniform({3}), "b");
  Variable mw(gen.uniform({4, 3}), "mw"), mb(gen.uniform({3}), "mb");
  Variable vw(gen.uniform({4, 3}, 0, 1), "vw"), vb(gen.uniform({3}, 0, 1), "vb");
  Tensor gw = gen.uniform({4, 3}), gb = gen.uniform({3}), lr = tl::scalar(0.01f), step = tl::scalar(2.f);
  // The expected values from adam_update, one variable at a time.
  std::vector<Tensor> want_w(3), want_b(3);
  tl::execute(update, std::vector<Tensor>{w.value(), mw.value(), vw.value(), gw, lr, step}, attrs, want_w);
  tl::execute(update, std::vector<Tensor>{b.value(), mb.value(), vb.value(), gb, lr, step}, attrs, want_b);
  const void* w_buffer = w.value().data<float>();
  Tensor held_b = b.value();  // someone still holds b's value: b gets a fresh buffer, the held tensor stays
  const std::vector<float> held_before = held_b.to_vector<float>();
  std::vector<std::shared_ptr<tl::detail::VariableState>> vars{w.state(), b.state(), mw.state(), mb.state(),
                                                               vw.state(), vb.state()};
  tl::execute(apply, std::vector<Tensor>{gw, gb, lr, step}, attrs, {}, {}, vars);
  CHECK(w.value().data<float>() == w_buffer);  // in place
  CHECK(held_b.to_vector<float>() == held_before);
  CHECK(b.value().data<float>() != held_b.data<float>());
  const Variable* updated[2][3] = {{&w, &mw, &vw}, {&b, &mb, &vb}};
  for (int k = 0; k < 3; ++k) {
    CHECK(updated[0][k]->value().to_vector<float>() == want_w[static_cast<std::size_t>(k)].to_vector<float>());
    CHECK(updated[1][k]->value().to_vector<float>() == want_b[static_cast<std::size_t>(k)].to_vector<float>());
  }
  // Bad calls: clear errors, nothing updated.
  const std::vector<float> w_now = w.value().to_vector<float>();
  CHECK_THROWS_WITH_AS(tl::execute(apply, std::vector<Tensor>{gw, gb, lr, step}, attrs, {}, {},
                                   tl::VariableHandles(vars.data(), 4)),
                       "adam_apply: 2 gradient(s) need 6 variables (each variable, then each of its 2 slot(s)), got 4",
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::execute(apply, std::vector<Tensor>{gb, gw, lr, step}, attrs, {}, {}, vars),
                       "adam_apply: gradient 0 f32[3] does not match variable 'w' f32[4,3]", tl::ShapeError);
  std::vector<Tensor> three(3);
  CHECK_THROWS_WITH_AS(tl::execute(update, std::vector<Tensor>{w.value(), mw.value(), vw.value(), gw, lr, step}, attrs,
                                   three, {}, vars),
                       "adam_update: got 6 variable handle(s), but the op updates no variables", tl::InvalidArgument);
  CHECK(w.value().to_vector<float>() == w_now);
}

TEST_CASE("optimizers/apply ops traced: reads before the update keep their values; reads after see the update") {
  Variable w(tl::constant({1.f, 2.f}), "w");
  opt::SGD sgd(0.5);
  auto f = tl::function([&](const Tensor& g) {
    Tensor before = w.read();
    sgd.apply_gradients({g}, {w});
    Tensor after = w.read();
    return std::vector<Tensor>{before, after};
  });
  std::vector<Tensor> out = f(tl::constant({1.f, 1.f}));
  CHECK(out[0].to_vector<float>() == std::vector<float>{1.f, 2.f});
  CHECK(out[1].to_vector<float>() == std::vector<float>{0.5f, 1.5f});
  out = f(tl::constant({1.f, 1.f}));  // the executor's run: the returned read is not overwritten in place
  CHECK(out[0].to_vector<float>() == std::vector<float>{0.5f, 1.5f});
  CHECK(out[1].to_vector<float>() == std::vector<float>{0.f, 1.f});
  // In a cond branch: the branch's later read sees its own update.
  Variable v(tl::constant({4.f}), "v");
  auto g = tl::function([&](const Tensor& pred) {
    return tl::cond(pred, [&] {
      sgd.apply_gradients({tl::constant({2.f})}, {v});
      return v.read() * 1.f;
    }, [&] { return v.read() * 1.f; });
  });
  CHECK(g(tl::constant({true}, tl::Shape{})).item<float>() == 3.f);
  CHECK(g(tl::constant({false}, tl::Shape{})).item<float>() == 3.f);
  CHECK(g(tl::constant({true}, tl::Shape{})).item<float>() == 2.f);
  // The text and JSON forms name the updated variables; a reloaded graph has the same node.
  const tl::graph::Graph& graph = f.concrete_functions()[0]->traced_graph();
  CHECK(graph.str().find("  sgd_apply %0, %5 updates(\"w\")\n") != std::string::npos);
  CHECK(tl::graph::Graph::from_json(graph.to_json()).str() == graph.str());
}

}  // namespace optimizers_test
