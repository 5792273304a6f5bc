// tl::function: the documented tracing behaviour (docs/tracing.md), test by test — TF guide's double(a),
// ragged shapes with and without signature and relaxation, plain values in the key, print vs tl::print,
// variables created in the body, and a traced train step that matches the eager one.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "tracelab/tracelab.h"

namespace function_test {

namespace {

tl::Tensor ragged_input(int x) { return tl::ones({1, x, 20}); }

/// The source article's step in small: reduce_max over X, then one dense layer; returns the loss.
struct TinyModel {
  tl::Variable w{tl::constant(std::vector<float>(20, 0.05f), {20, 1}), "w"};
  tl::Variable b{tl::zeros({1}), "b"};
  tl::Tensor loss(const tl::Tensor& x, const tl::Tensor& y) const {
    tl::Tensor net = tl::reduce_max(x, {1});             // (1, 20)
    tl::Tensor out = tl::matmul(net, w) + b;             // (1, 1)
    return tl::reduce_mean(tl::square(tl::reshape(out, {-1}) - y));
  }
};

}  // namespace

TEST_CASE("function/double: one trace per dtype, none when the types repeat (TF guide)") {
  auto twice = tl::function([](const tl::Tensor& a) { return a + a; },
                            {.name = "double", .arg_names = {"a"}, .call_history = 10});
  CHECK(twice(tl::scalar(1)).item<int>() == 2);
  CHECK(twice(tl::scalar(1.5f)).item<float>() == 3.f);
  CHECK(twice(tl::constant({1.f, 2.f})).to_vector<float>() == std::vector<float>{2, 4});  // another shape
  CHECK(twice.tracing_count() == 3);
  twice(tl::scalar(7));
  twice(tl::scalar(2.5f));
  CHECK(twice.tracing_count() == 3);
  std::string signatures = twice.pretty_printed_concrete_signatures();
  CHECK(signatures ==
        "double(a)\n  Args:\n    a: int32 Tensor, shape=()\n  Returns:\n    int32 Tensor, shape=()\n\n"
        "double(a)\n  Args:\n    a: float32 Tensor, shape=()\n  Returns:\n    float32 Tensor, shape=()\n\n"
        "double(a)\n  Args:\n    a: float32 Tensor, shape=(2,)\n  Returns:\n    float32 Tensor, shape=(2,)\n");
  const auto& calls = twice.calls();
  REQUIRE(calls.size() == 5);
  CHECK(calls[0].traced);
  CHECK(calls[0].reason == "first call");
  CHECK(calls[1].reason.find("arg 0 (a): dtype changed int32 -> float32") != std::string::npos);
  CHECK_FALSE(calls[3].traced);
  CHECK(calls[3].reason.empty());
  CHECK(calls[3].concrete_index == 0);
}

TEST_CASE("function/ragged: X = 1..10 retraces 10 times and warns as TensorFlow does") {
  TinyModel model;
  tl::ScopedLogCapture log;
  auto step = tl::function([&](const tl::Tensor& x, const tl::Tensor& y) { return model.loss(x, y); },
                           {.name = "train_step", .call_history = 10});
  for (int x = 1; x <= 10; ++x) step(ragged_input(x), tl::constant({0.5f}));
  CHECK(step.tracing_count() == 10);
  auto warnings = log.texts(tl::LogLevel::warning);
  REQUIRE_FALSE(warnings.empty());
  CHECK(warnings.size() <= 2);  // current TensorFlow: at most 2 warnings per function
  CHECK(warnings[0].rfind("5 out of the last 5 calls to <train_step> triggered tl.function retracing. Tracing is "
                          "expensive",
                          0) == 0);
  CHECK(step.calls()[4].warning == warnings[0]);
  CHECK(step.calls()[3].reason.find("arg 0 (arg0): dim 1 changed") != std::string::npos);
}

namespace {
tl::Tensor times_two(const tl::Tensor& x) { return x * 2.f; }
tl::Tensor times_three(const tl::Tensor& x) { return x * 3.f; }
}  // namespace

TEST_CASE("function/retracing warning: counted per source, so a tl::function created in a loop warns (TF)") {
  tl::reset_retracing_detectors();  // this test's lambdas may have been counted by an earlier run in this process
  tl::ScopedLogCapture log;
  // TensorFlow keys its detector by the Python function's __code__: every tf.function made from one lambda
  // shares it. Here one lambda expression, wrapped anew on each of 7 iterations, each wrapper traced once.
  for (int i = 0; i < 7; ++i) {
    auto step = tl::function([](const tl::Tensor& x) { return x * 2.f; }, {.name = "made_in_loop"});
    step(tl::ones({2}));
    CHECK(step.tracing_count() == 1);
  }
  auto warnings = log.texts(tl::LogLevel::warning);
  REQUIRE(warnings.size() == 2);  // from the fifth trace on, at most 2 per detector
  CHECK(warnings[0].rfind("5 out of the last 5 calls to <made_in_loop> triggered tl.function retracing", 0) == 0);
  CHECK(warnings[1].rfind("6 out of the last 6 calls to <made_in_loop>", 0) == 0);

  // Two lambda expressions are two sources: 4 traces each, 8 in all, and no warning (each count stays below 5).
  log.clear();
  for (int i = 0; i < 4; ++i) {
    auto first = tl::function([](const tl::Tensor& x) { return x + 1.f; }, {.name = "first"});
    auto second = tl::function([](const tl::Tensor& x) { return x - 1.f; }, {.name = "second"});
    first(tl::ones({2}));
    second(tl::ones({2}));
  }
  CHECK(log.texts(tl::LogLevel::warning).empty());

  // A function pointer is keyed by its address: the same function shares, another one does not.
  for (int i = 0; i < 4; ++i) {
    tl::function(&times_two, {.name = "times_two"})(tl::ones({2}));
    tl::function(&times_three, {.name = "times_three"})(tl::ones({2}));
  }
  CHECK(log.texts(tl::LogLevel::warning).empty());
  tl::function(&times_two, {.name = "times_two"})(tl::ones({2}));  // the fifth trace of times_two
  REQUIRE(log.texts(tl::LogLevel::warning).size() == 1);
  CHECK(log.texts(tl::LogLevel::warning)[0].rfind("5 out of the last 5 calls to <times_two>", 0) == 0);

  // A std::function hides what it holds: each tl::function over one counts alone.
  log.clear();
  for (int i = 0; i < 6; ++i) {
    std::function<tl::Tensor(const tl::Tensor&)> body = [](const tl::Tensor& x) { return x * 5.f; };
    tl::function(body, {.name = "erased"})(tl::ones({2}));
  }
  CHECK(log.texts(tl::LogLevel::warning).empty());
}

TEST_CASE("function/nested gradients: through, across and inside traced functions equal the eager ones") {
  tl::Variable w(tl::constant({0.5f, -1.5f, 2.f}), "w");
  auto inner_body = [&](const tl::Tensor& x) { return tl::reduce_sum(tl::tanh(x * w) * x); };
  auto outer_body = [&](const tl::Tensor& x, auto&& inner) { return inner(x * 2.f) + tl::reduce_sum(x * x); };
  auto inner = tl::function(inner_body, {.name = "inner"});
  auto outer = tl::function([&](const tl::Tensor& x) { return outer_body(x, inner); }, {.name = "outer"});
  const tl::Tensor x = tl::constant({0.3f, -0.7f, 1.1f});

  // Eager references: the same bodies, no tl::function.
  tl::Tensor eager_value, eager_dx, eager_dw;
  {
    tl::GradientTape tape;
    tape.watch(x);
    eager_value = outer_body(x, inner_body);
    auto grads = tape.gradient(eager_value, std::vector<tl::Tensor>{x, w.read()});
    eager_dx = grads[0];
  }
  {
    tl::GradientTape tape;
    eager_dw = tape.gradient(outer_body(x, inner_body), w);
  }

  // A tl::function calling another: the inner one is traced into the outer graph (one trace each).
  CHECK(outer(x).to_vector<float>() == eager_value.to_vector<float>());
  CHECK(outer.tracing_count() == 1);
  CHECK(inner.tracing_count() == 1);

  // A tape outside differentiates through both: wrt the input and wrt the variable the inner one reads.
  {
    tl::GradientTape tape;
    tape.watch(x);
    tl::Tensor y = outer(x);
    CHECK(tape.gradient(y, x).to_vector<float>() == eager_dx.to_vector<float>());
  }
  {
    tl::GradientTape tape;
    CHECK(tape.gradient(outer(x), w).to_vector<float>() == eager_dw.to_vector<float>());
  }
  CHECK(outer.tracing_count() == 1);  // a tape outside does not retrace: the graph replays op by op

  // A traced function that computes the gradient of another traced function inside its graph.
  auto grad_of_inner = tl::function(
      [&](const tl::Tensor& v) {
        tl::GradientTape tape;
        tape.watch(v);
        tl::Tensor y = inner(v);
        return tape.gradient(y, v);
      },
      {.name = "grad_of_inner"});
  tl::Tensor eager_grad;
  {
    tl::GradientTape tape;
    tape.watch(x);
    eager_grad = tape.gradient(inner_body(x), x);
  }
  CHECK(grad_of_inner(x).to_vector<float>() == eager_grad.to_vector<float>());
  CHECK(grad_of_inner.tracing_count() == 1);

  // And a tape outside that one: the second derivative, d/dx sum(d inner/dx), through a traced gradient.
  tl::Tensor eager_second;
  {
    tl::GradientTape outer_tape;
    outer_tape.watch(x);
    tl::Tensor first;
    {
      tl::GradientTape tape;
      tape.watch(x);
      first = tape.gradient(inner_body(x), x);
    }
    eager_second = outer_tape.gradient(tl::reduce_sum(first), x);
  }
  tl::GradientTape outer_tape;
  outer_tape.watch(x);
  tl::Tensor traced_second = outer_tape.gradient(tl::reduce_sum(grad_of_inner(x)), x);
  CHECK(traced_second.to_vector<float>() == eager_second.to_vector<float>());
}

TEST_CASE("function/signature: one trace for every X with input signature (-1, -1, 20)") {
  TinyModel model;
  auto step = tl::function([&](const tl::Tensor& x, const tl::Tensor& y) { return model.loss(x, y); },
                           {.input_signature = {tl::TensorSpec({-1, -1, 20}, tl::float32, "x"),
                                                tl::TensorSpec({-1}, tl::float32, "y")},
                            .name = "train_step"});
  TinyModel eager;
  for (int x = 1; x <= 10; ++x) {
    tl::Tensor loss = step(ragged_input(x), tl::constant({0.5f}));
    CHECK(loss.item<float>() == doctest::Approx(eager.loss(ragged_input(x), tl::constant({0.5f})).item<float>()));
  }
  CHECK(step.tracing_count() == 1);
  CHECK(step.concrete_functions()[0]->input_specs()[0].shape() == tl::Shape{-1, -1, 20});
  auto one_arg = tl::function([](const tl::Tensor& x) { return x; },
                              {.input_signature = {tl::TensorSpec({-1}), tl::TensorSpec({-1})}, .name = "one"});
  CHECK_THROWS_WITH_AS(one_arg(tl::ones({2})), doctest::Contains("one: the input signature has 2 argument(s), the call passes 1"),
                       tl::InvalidArgument);
  SUBCASE("calls that do not fit are clear errors naming the argument") {
    CHECK_THROWS_WITH_AS(step(tl::ones({1, 3, 21}), tl::constant({0.5f})),
                         doctest::Contains("train_step: argument 0 (x) does not match the input signature: dim 2"),
                         tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(step(tl::ones({3, 20}), tl::constant({0.5f})),
                         doctest::Contains("argument 0 (x) does not match the input signature"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(step(tl::ones({1, 3, 20}, tl::int32), tl::constant({0.5f})),
                         doctest::Contains("argument 0 (x)"), tl::InvalidArgument);
    CHECK(step.tracing_count() == 1);
  }
}

TEST_CASE("function/reduce_retracing: the first shape traces as is, the second generalizes, then no more") {
  TinyModel model;
  auto step = tl::function([&](const tl::Tensor& x, const tl::Tensor& y) { return model.loss(x, y); },
                           {.reduce_retracing = true, .name = "train_step", .call_history = 16});
  for (int x = 1; x <= 10; ++x) step(ragged_input(x), tl::constant({0.5f}));
  CHECK(step.tracing_count() == 2);
  auto functions = step.concrete_functions();
  CHECK(functions[0]->input_specs()[0].shape() == tl::Shape{1, 1, 20});
  CHECK(functions[1]->input_specs()[0].shape() == tl::Shape{1, -1, 20});
  CHECK(step.calls()[1].reason.find("generalized") != std::string::npos);
  step(ragged_input(1), tl::constant({0.5f}));  // the exact first key still has its own function
  CHECK(step.calls().back().concrete_index == 0);
  step(ragged_input(7), tl::constant({0.5f}));  // served by the generalized one; the record keeps the call's key
  CHECK_FALSE(step.calls().back().traced);
  CHECK(step.calls().back().concrete_index == 1);
  CHECK(step.calls().back().key.find("shape=(1, 7, 20)") != std::string::npos);
  step(ragged_input(7), tl::constant({0.5f, 0.5f}));  // y of another shape: neither key accepts it
  CHECK(step.calls().back().traced);
  CHECK(step.tracing_count() == 3);
}

TEST_CASE("function/plain values: a C++ number retraces per value, a tensor does not") {
  auto scale = tl::function([](const tl::Tensor& x, float factor) { return x * factor; },
                            {.name = "scale", .call_history = 4});
  for (float f : {1.f, 2.f, 3.f, 2.f}) scale(tl::ones({2}), f);
  CHECK(scale.tracing_count() == 3);
  CHECK(scale.calls()[1].reason.find("value changed 1 -> 2") != std::string::npos);
  auto scale_t = tl::function([](const tl::Tensor& x, const tl::Tensor& f) { return x * f; }, {.name = "scale"});
  for (float f : {1.f, 2.f, 3.f, 2.f}) CHECK(scale_t(tl::ones({2}), tl::scalar(f)).to_vector<float>()[0] == f);
  CHECK(scale_t.tracing_count() == 1);
}

TEST_CASE("function/print: the C++ side effect runs while tracing, tl::print on every call") {
  int cpp_prints = 0;
  tl::ScopedLogCapture log;
  auto f = tl::function(
      [&](const tl::Tensor& x) {
        ++cpp_prints;  // like Python's print(): only while tracing
        tl::print("x is", x);
        return x + 1;
      },
      {.name = "f"});
  for (int i = 0; i < 5; ++i) f(tl::scalar(static_cast<float>(i)));
  CHECK(cpp_prints == 1);
  auto printed = log.texts(tl::LogLevel::print);
  CHECK(printed == std::vector<std::string>{"x is 0.", "x is 1.", "x is 2.", "x is 3.", "x is 4."});
  CHECK(f.concrete_functions()[0]->graph().op_counts().count("print") == 1);
}

TEST_CASE("function/variables: a body that creates a variable on every trace fails on its first call (TF's rule)") {
  std::vector<tl::Variable> created;
  auto f = tl::function(
      [&](const tl::Tensor& x) {
        tl::Variable v(tl::ones({1}), "v");
        created.push_back(v);
        return x * v;
      },
      {.name = "make_var"});
  // The first trace may create variables; because it did, the call traces again with creation forbidden.
  CHECK_THROWS_WITH_AS(f(tl::constant({2.f})),
                       doctest::Contains("make_var: a Variable ('v') was created on a trace where variable creation is "
                                         "not allowed"),
                       tl::InvalidArgument);
  CHECK(created.size() == 1);
  CHECK(f.tracing_count() == 1);              // the first trace finished, the check trace did not
  CHECK(f.concrete_functions().empty());      // nothing cached: every call fails the same way
  CHECK_THROWS_AS(f(tl::constant({2.f})), tl::InvalidArgument);
}

TEST_CASE("function/variables: created once on the first call, which traces twice; later traces may not create") {
  std::optional<tl::Variable> v;
  int host_runs = 0;
  tl::FunctionOptions options{.name = "create_once"};
  options.call_history = 8;
  auto f = tl::function(
      [&](const tl::Tensor& x) {
        ++host_runs;  // a host side effect: runs on every trace
        if (!v) v = tl::Variable(tl::fill({1}, 3.f), "v");
        return x * *v;
      },
      options);
  CHECK(f(tl::constant({2.f})).to_vector<float>() == std::vector<float>{6});
  CHECK(f.tracing_count() == 2);  // the first trace created v; the second checked that the body creates it once
  CHECK(host_runs == 2);
  CHECK(f.concrete_functions().size() == 1);
  REQUIRE(f.calls().size() == 1);
  CHECK(f.calls()[0].reason ==
        "first call; traced again with variable creation forbidden (the first trace created 1 variable)");
  v->assign(tl::fill({1}, 4.f));  // the kept graph reads the variable the first trace made
  CHECK(f(tl::constant({2.f})).to_vector<float>() == std::vector<float>{8});
  CHECK(f.tracing_count() == 2);
  CHECK(f(tl::constant({1.f, 2.f})).to_vector<float>() == std::vector<float>{4, 8});  // a retrace: once
  CHECK(f.tracing_count() == 3);
  CHECK(host_runs == 3);

  // A variable created by a later call's trace is an error naming the function; the cached keys keep working.
  std::optional<tl::Variable> late;
  auto g = tl::function(
      [&](const tl::Tensor& x) {
        if (x.shape().dim(0) == 2 && !late) late = tl::Variable(tl::ones({2}), "late");
        return late ? x * *late : x;
      },
      {.name = "late_var"});
  CHECK(g(tl::constant({5.f})).to_vector<float>() == std::vector<float>{5});
  CHECK(g.tracing_count() == 1);  // no variable created: one trace
  CHECK_THROWS_WITH_AS(g(tl::constant({1.f, 2.f})),
                       doctest::Contains("late_var: a Variable ('late') was created on a trace where variable "
                                         "creation is not allowed"),
                       tl::InvalidArgument);
  CHECK(!late.has_value());
  CHECK(g(tl::constant({7.f})).to_vector<float>() == std::vector<float>{7});
  CHECK(g.tracing_count() == 1);

  // get_concrete_function on a fresh function is its first trace as well.
  std::optional<tl::Variable> w;
  auto h = tl::function([&](const tl::Tensor& x) {
    if (!w) w = tl::Variable(tl::ones({1}), "w");
    return x + *w;
  });
  h.get_concrete_function(tl::TensorSpec({1}));
  CHECK(h.tracing_count() == 2);
  CHECK(h(tl::constant({1.f})).to_vector<float>() == std::vector<float>{2});
  CHECK(h.tracing_count() == 2);
}

TEST_CASE("function/symbolic values: if (t), item() and data() are clear errors while tracing") {
  auto branchy = tl::function([](const tl::Tensor& x) { return static_cast<bool>(tl::greater(x, 0.f)) ? x : -x; }, {.name = "b"});
  CHECK_THROWS_WITH_AS(branchy(tl::scalar(1.f)), doctest::Contains("use tl::cond(pred, true_fn, false_fn)"),
                       tl::OperatorNotAllowedInGraph);
  auto item = tl::function([](const tl::Tensor& x) { return x * x.item<float>(); }, {.name = "i"});
  CHECK_THROWS_AS(item(tl::scalar(1.f)), tl::OperatorNotAllowedInGraph);
  CHECK(branchy.tracing_count() == 0);
}

TEST_CASE("function/train step: tape + manual SGD traced gives the eager weights after 100 steps") {
  auto make = [] {
    tl::Generator gen(7);
    return std::pair<tl::Variable, tl::Variable>{tl::Variable(gen.uniform({20, 1}, -0.5, 0.5), "w"),
                                                 tl::Variable(tl::zeros({1}), "b")};
  };
  auto eager_vars = make(), graph_vars = make();  // no structured bindings: clang 14 cannot capture them
  tl::Variable &w_eager = eager_vars.first, &b_eager = eager_vars.second;
  tl::Variable &w_graph = graph_vars.first, &b_graph = graph_vars.second;
  auto step_body = [](tl::Variable& w, tl::Variable& b, const tl::Tensor& x, const tl::Tensor& y) {
    tl::GradientTape tape;
    tl::Tensor pred = tl::matmul(tl::reduce_max(x, {1}), w) + b;
    tl::Tensor loss = tl::reduce_mean(tl::square(tl::reshape(pred, {-1}) - y));
    auto grads = tape.gradient(loss, std::vector<tl::Variable>{w, b});
    w.assign_sub(0.1f * grads[0]);
    b.assign_sub(0.1f * grads[1]);
    return loss;
  };
  auto traced = tl::function([&](const tl::Tensor& x, const tl::Tensor& y) { return step_body(w_graph, b_graph, x, y); },
                             {.input_signature = {tl::TensorSpec({1, -1, 20}), tl::TensorSpec({1})}, .name = "step"});
  tl::Generator data(3);
  for (int i = 0; i < 100; ++i) {
    int x_len = 1 + i % 10;
    tl::Tensor x = data.uniform({1, x_len, 20});
    tl::Tensor y = data.uniform({1});
    tl::Tensor eager_loss = step_body(w_eager, b_eager, x, y);
    tl::Tensor graph_loss = traced(x, y);
    CHECK(graph_loss.item<float>() == doctest::Approx(eager_loss.item<float>()).epsilon(1e-5));
  }
  CHECK(traced.tracing_count() == 1);
  auto we = w_eager.read().to_vector<float>(), wg = w_graph.read().to_vector<float>();
  for (std::size_t i = 0; i < we.size(); ++i) CHECK(wg[i] == doctest::Approx(we[i]).epsilon(1e-5));
  CHECK(b_graph.read().item<float>() == doctest::Approx(b_eager.read().item<float>()).epsilon(1e-5));
  const auto& g = traced.concrete_functions()[0]->traced_graph();
  CHECK(g.count(tl::graph::NodeKind::assign) == 2);  // forward, backward and updates in one graph
  CHECK(g.count(tl::graph::NodeKind::variable) == 2);
}

TEST_CASE("function/reduce_mean gradient with an unknown batch dim") {
  auto grad = tl::function([](const tl::Tensor& x) {
    tl::GradientTape tape;
    tape.watch(x);
    return tape.gradient(tl::reduce_mean(tl::square(x)), x);
  }, {.input_signature = {tl::TensorSpec({-1, 2})}, .name = "g"});
  tl::Tensor x = tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2});
  CHECK(grad(x).to_vector<float>() == std::vector<float>{0.5f, 1.f, 1.5f, 2.f});
}

TEST_CASE("function/any: tl::AnyFunction traces a body over type-erased arguments") {
  // What an embedder whose arguments are only known at run time writes (the JS bridge does the same).
  tl::Variable bias(tl::constant({0.5f, 0.5f}), "bias");
  tl::AnyFunction affine(
      [](std::span<const tl::AnyArg> args) {
        tl::Tensor y = args[0].tensor() * static_cast<float>(args[1].get<double>()) + args[2].get<tl::Variable>();
        return std::vector<tl::Tensor>{args[3].get<bool>() ? tl::relu(y) : y};
      },
      {.name = "affine", .arg_names = {"x", "scale", "bias", "relu"}, .call_history = 8});
  CHECK(affine.last_call_concrete_index() == -1);
  CHECK(affine.last_traced_concrete_index() == -1);
  CHECK(affine({tl::constant({1.f, -2.f}), 2.0, bias, false})[0].to_vector<float>() == std::vector<float>{2.5f, -3.5f});
  std::vector<tl::AnyArg> args{tl::constant({-1.f, 3.f}), 2.0, bias, false};
  CHECK(affine(args)[0].to_vector<float>() == std::vector<float>{-1.5f, 6.5f});  // same key: no trace
  CHECK(affine({tl::constant({1.f, -2.f}), 2.0, bias, true})[0].to_vector<float>() == std::vector<float>{2.5f, 0.f});
  CHECK(affine({tl::constant({1.f, -2.f}), 3.0, bias, true})[0].to_vector<float>() == std::vector<float>{3.5f, 0.f});
  CHECK(affine.tracing_count() == 3);
  auto calls = affine.calls();
  REQUIRE(calls.size() == 4);
  CHECK(calls[0].reason == "first call");
  CHECK_FALSE(calls[1].traced);
  CHECK(calls[2].reason.find("arg 3 (relu): value changed False -> True") != std::string::npos);
  CHECK(calls[3].reason.find("arg 1 (scale): value changed 2 -> 3") != std::string::npos);
  CHECK(calls[3].key.find("TensorSpec(shape=(2,), dtype=tl.float32") != std::string::npos);
  // Which concrete function the last call ran and which was traced last (what the JS bridge reads to shape a
  // call's results as that concrete function's body returned them), with or without a call history.
  CHECK(affine.last_call_concrete_index() == 2);
  CHECK(affine.last_traced_concrete_index() == 2);
  affine(args);
  CHECK(affine.last_call_concrete_index() == 0);
  CHECK(affine.last_traced_concrete_index() == 2);

  SUBCASE("get_concrete_function traces for a spec, and a copy shares the cache") {
    tl::ConcreteFunction& f = affine.get_concrete_function({tl::TensorSpec({-1}), 2.0, bias, false});
    CHECK(f.input_specs()[0].shape() == tl::Shape{-1});
    CHECK(affine.last_traced_concrete_index() == 3);
    CHECK(affine.last_call_concrete_index() == 0);  // not a call
    tl::AnyFunction copy = affine;
    CHECK(copy.tracing_count() == 4);
    CHECK(copy.pretty_printed_concrete_signatures().find("affine(x, scale, bias, relu)") == 0);
  }
  SUBCASE("a call run eagerly ran no concrete function") {
    struct Restore {
      ~Restore() { tl::config::run_functions_eagerly(false); }
    } restore;
    tl::config::run_functions_eagerly(true);
    affine(args);
    CHECK(affine.last_call_concrete_index() == -1);
    CHECK(affine.last_traced_concrete_index() == 2);
  }
  SUBCASE("without a call history") {
    tl::AnyFunction plain([](std::span<const tl::AnyArg> args) { return std::vector<tl::Tensor>{args[0].tensor() * 2.f}; },
                          {.name = "plain"});
    plain({tl::constant({1.f})});
    plain({tl::constant({1.f, 2.f})});
    plain({tl::constant({3.f})});
    CHECK(plain.calls().empty());
    CHECK(plain.last_call_concrete_index() == 0);
    CHECK(plain.last_traced_concrete_index() == 1);
  }
  SUBCASE("a wrong argument kind is a clear error") {
    CHECK_THROWS_WITH_AS(affine({tl::constant({1.f, 2.f}), "two", bias, false}),
                         "AnyArg: expected a float, got a string", tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(affine({tl::Tensor(), 2.0, bias, false}), "tl::function: argument 0 is an empty Tensor handle",
                         tl::InvalidArgument);
  }
}

TEST_CASE("function/any: nested arguments are keyed by their leaves and their structure (TF's nest)") {
  // What the JS tl.function passes for f([a, b], {x}): the leaves flat, the structure with dict keys and lengths.
  tl::AnyFunction sum([](std::span<const tl::AnyArg> leaves) {
    tl::Tensor total = tl::reduce_sum(leaves[0].tensor());
    for (std::size_t i = 1; i < leaves.size(); ++i) total = total + tl::reduce_sum(leaves[i].tensor());
    return std::vector<tl::Tensor>{total};
  }, {.name = "sum", .call_history = 8});
  const char leaf = tl::ArgStructure::kLeaf;
  auto structure = [&](std::string text, std::vector<std::string> paths) {
    for (char& c : text) c = c == '#' ? leaf : c;
    return tl::ArgStructure{text, std::move(paths)};
  };
  const auto pair_and_x = structure("([#, #], {x: #})", {"args[0][0]", "args[0][1]", "args[1].x"});
  const auto triple = structure("([#, #, #])", {"args[0][0]", "args[0][1]", "args[0][2]"});
  const auto pair_and_y = structure("([#, #], {y: #})", {"args[0][0]", "args[0][1]", "args[1].y"});
  std::vector<tl::AnyArg> three{tl::ones({2}), tl::ones({2}), tl::ones({2})};
  CHECK(sum(three, pair_and_x)[0].item<float>() == 6.f);
  CHECK(sum(three, pair_and_x)[0].item<float>() == 6.f);  // same key: no trace
  CHECK(sum.tracing_count() == 1);
  sum(three, triple);      // the same leaves in another structure: a new key
  sum(three, pair_and_y);  // another dict key: a new key
  sum(three);              // flat: a new key
  CHECK(sum.tracing_count() == 4);
  std::vector<tl::AnyArg> wider{tl::ones({2}), tl::ones({2}), tl::ones({3})};
  CHECK(sum(wider, pair_and_x)[0].item<float>() == 7.f);
  CHECK(sum.tracing_count() == 5);
  auto calls = sum.calls();
  REQUIRE(calls.size() == 6);
  CHECK(calls[0].key == "([TensorSpec(shape=(2,), dtype=tl.float32, name=None), TensorSpec(shape=(2,), "
                        "dtype=tl.float32, name=None)], {x: TensorSpec(shape=(2,), dtype=tl.float32, name=None)})");
  CHECK(calls[2].reason.rfind("argument structure changed ([*, *], {x: *}) -> ([*, *, *])", 0) == 0);
  CHECK(calls[3].reason.rfind("argument structure changed ([*, *, *]) -> ([*, *], {y: *})", 0) == 0);  // the newest
  CHECK(calls[4].reason.rfind("argument structure changed", 0) == 0);
  CHECK(calls[5].reason.rfind("args[1].x: dim 0 changed 2 -> 3", 0) == 0);  // a leaf is named by its path
  CHECK(sum.concrete_functions()[0]->pretty_signature().rfind("sum(args[0][0], args[0][1], args[1].x)", 0) == 0);
}

TEST_CASE("function/nested arguments: a vector's length and a map's keys are part of the key (TF's lists, dicts)") {
  auto loss = tl::function(
      [](const std::map<std::string, tl::Tensor>& batch, const std::vector<tl::Tensor>& params, float scale) {
        tl::Tensor out = batch.at("x") * params.at(0);
        for (std::size_t k = 1; k < params.size(); ++k) out = out + params[k];
        return tl::reduce_sum(tl::square(out - batch.at("y"))) * scale;
      },
      {.name = "loss", .arg_names = {"batch"}, .call_history = 8});
  using Batch = std::map<std::string, tl::Tensor>;
  const std::vector<tl::Tensor> params{tl::scalar(2.f), tl::scalar(1.f)};
  auto batch = [](std::int64_t n) { return Batch{{"x", tl::ones({n})}, {"y", tl::zeros({n})}}; };
  CHECK(loss(batch(3), params, 1.f).item<float>() == 27.f);  // (1*2 + 1 - 0)^2 * 3
  CHECK(loss(batch(3), params, 1.f).item<float>() == 27.f);
  CHECK(loss.tracing_count() == 1);
  loss(batch(4), params, 1.f);                                                  // a leaf of another shape
  Batch masked = batch(3);
  masked.emplace("mask", tl::ones({3}));
  loss(masked, params, 1.f);                                                    // another key
  CHECK(loss(batch(3), std::vector<tl::Tensor>{tl::scalar(2.f)}, 1.f).item<float>() == 12.f);  // another length
  CHECK(loss.tracing_count() == 4);
  auto calls = loss.calls();
  REQUIRE(calls.size() == 5);
  CHECK(calls[0].key == "({x: TensorSpec(shape=(3,), dtype=tl.float32, name=None), y: TensorSpec(shape=(3,), "
                        "dtype=tl.float32, name=None)}, [TensorSpec(shape=(), dtype=tl.float32, name=None), "
                        "TensorSpec(shape=(), dtype=tl.float32, name=None)], 1)");
  CHECK(calls[2].reason.rfind("batch.x: dim 0 changed 3 -> 4, batch.y: dim 0 changed 3 -> 4", 0) == 0);
  CHECK(calls[3].reason.rfind("argument structure changed ({x: *, y: *}, [*, *], *) -> ({mask: *, x: *, y: *}, "
                              "[*, *], *)", 0) == 0);
  CHECK(calls[4].reason.rfind("argument structure changed ({mask: *, x: *, y: *}, [*, *], *) -> ({x: *, y: *}, [*], *)",
                              0) == 0);
  CHECK(loss.concrete_functions()[0]->pretty_signature().rfind("loss(batch.x, batch.y, args[1][0], args[1][1], args[2])",
                                                                0) == 0);

  // The same leaves under other keys: another structure, so another trace (the body may read the keys).
  auto first_key = tl::function([](const std::map<std::string, tl::Tensor>& named) {
    return named.begin()->first == "a" ? named.begin()->second * 2.f : named.begin()->second * 3.f;
  });
  CHECK(first_key(Batch{{"a", tl::ones({2})}}).to_vector<float>() == std::vector<float>{2, 2});
  CHECK(first_key(Batch{{"b", tl::ones({2})}}).to_vector<float>() == std::vector<float>{3, 3});
  CHECK(first_key.tracing_count() == 2);
}

TEST_CASE("function/call history: off by default, bounded when on, the oldest dropped") {
  auto off = tl::function([](const tl::Tensor& x) { return x + 1; }, {.name = "off"});
  for (int n = 1; n <= 3; ++n) off(tl::ones({n}));
  CHECK(off.tracing_count() == 3);
  CHECK(off.calls().empty());

  auto kept = tl::function([](const tl::Tensor& x) { return x + 1; }, {.name = "kept", .call_history = 3});
  for (int n = 1; n <= 10; ++n) kept(tl::ones({n % 4 + 1}));
  auto calls = kept.calls();
  REQUIRE(calls.size() == 3);
  CHECK(calls.front().index == 7);  // calls 7, 8, 9: the newest three
  CHECK(calls.back().index == 9);
  CHECK(calls.back().concrete_index == 1);  // shape (3,): the second trace
  CHECK(calls.back().key == "(TensorSpec(shape=(3,), dtype=tl.float32, name=None))");
  CHECK(calls[0].key == "(TensorSpec(shape=(1,), dtype=tl.float32, name=None))");
  for (const tl::CallRecord& call : calls) {  // the slots once held traced calls' records: nothing carries over
    CHECK_FALSE(call.traced);
    CHECK(call.reason.empty());
  }
  // Through many reuses of the slots the newest three stay in order.
  for (int n = 11; n <= 500; ++n) {
    kept(tl::ones({n % 4 + 1}));
    auto now = kept.calls();
    REQUIRE(now.size() == 3);
    CHECK(now[0].index + 2 == static_cast<std::size_t>(n - 1));
    CHECK(now[2].index == static_cast<std::size_t>(n - 1));
    CHECK(now[2].key == "(TensorSpec(shape=(" + std::to_string(n % 4 + 1) + ",), dtype=tl.float32, name=None))");
  }
  kept.clear_calls();
  CHECK(kept.calls().empty());
  kept(tl::ones({1}));
  CHECK(kept.calls().size() == 1);
  CHECK(kept.calls()[0].index == 500);
  CHECK(kept.tracing_count() == 4);
}

TEST_CASE("function/run_functions_eagerly: the callable runs on every call, nothing is traced (tf.config)") {
  int host_runs = 0;
  auto f = tl::function([&](const tl::Tensor& x, int k) {
    ++host_runs;  // host code: once per trace normally, once per call when run eagerly
    return x * static_cast<float>(k);
  }, {.input_signature = {}, .name = "f"});
  struct Restore {
    ~Restore() { tl::config::run_functions_eagerly(false); }
  } restore;
  CHECK_FALSE(tl::config::functions_run_eagerly());
  tl::config::run_functions_eagerly(true);
  CHECK(tl::config::functions_run_eagerly());
  for (int call = 0; call < 3; ++call) CHECK(f(tl::constant({1.f, 2.f}), 3).to_vector<float>() == std::vector<float>{3.f, 6.f});
  CHECK(host_runs == 3);
  CHECK(f.tracing_count() == 0);
  tl::config::run_functions_eagerly(false);
  f(tl::constant({1.f, 2.f}), 3);
  f(tl::constant({1.f, 2.f}), 3);
  CHECK(host_runs == 4);  // traced once, then the cached graph
  CHECK(f.tracing_count() == 1);
  // A signature still checks the call when run eagerly.
  auto g = tl::function([](const tl::Tensor& x) { return x + 1.f; }, {.input_signature = {tl::TensorSpec({-1})}});
  tl::config::run_functions_eagerly(true);
  CHECK_THROWS_AS(g(tl::constant({1.f, 2.f}, {1, 2})), tl::InvalidArgument);
  CHECK(g(tl::constant({1.f})).to_vector<float>() == std::vector<float>{2.f});
  CHECK(g.tracing_count() == 0);
}

}  // namespace function_test
