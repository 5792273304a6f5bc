// Single layers: initializers, the stateless random op, and each built-in layer on small hand-computed cases —
// output shapes and values, parameter counts, building on the first call, input checks with layer-named errors.
// Layers combined into models (subclassing, summary, Dropout, tapes, tl::function) are in layers_model_test.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "test_util.h"
#include "tracelab/tracelab.h"

namespace layers_test {

using doctest::Approx;
using doctest::Contains;
using tl::Tensor;
using namespace tl::layers;
using F = std::vector<float>;

namespace {

/// An initializer that returns `values` (hand-computed cases).
tl::initializers::Initializer values_init(F values) {
  return [values](const tl::Shape& shape, tl::Generator&) { return tl::constant(values, shape); };
}

void check_close(const Tensor& got, const F& expected, double eps = 1e-6) {
  auto v = got.to_vector<float>();
  REQUIRE(v.size() == expected.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    CAPTURE(i);
    CHECK(v[i] == Approx(expected[i]).epsilon(eps));
  }
}

}  // namespace

TEST_CASE("layers/initializers: fans, bounds, statistics and seeded values") {
  using namespace tl::initializers;
  CHECK(compute_fans({20, 10}).fan_in == 20);
  CHECK(compute_fans({3, 3, 4, 8}).fan_in == 36);
  CHECK(compute_fans({3, 3, 4, 8}).fan_out == 72);
  CHECK(compute_fans({5}).fan_out == 5);
  tl::Generator gen(1);
  CHECK(zeros()({2, 2}, gen).to_vector<float>() == F(4, 0.f));
  CHECK(ones()({3}, gen).to_vector<float>() == F(3, 1.f));
  CHECK(constant(0.5f)({2}, gen).to_vector<float>() == F(2, 0.5f));
  SUBCASE("glorot_uniform stays inside sqrt(6 / (fan_in + fan_out)) and is the generator's uniform stream") {
    double limit = std::sqrt(6.0 / 30);
    auto w = glorot_uniform()({20, 10}, gen).to_vector<float>();
    for (float v : w) CHECK(std::fabs(v) < limit);
    tl::Generator five(5);
    CHECK(glorot_uniform()({20, 10}, five).to_vector<float>() ==
          tl::Generator(5).uniform({20, 10}, -limit, limit).to_vector<float>());
  }
  SUBCASE("he_normal is truncated at two stddevs, with stddev sqrt(2 / fan_in) overall") {
    auto w = he_normal()({400, 50}, gen).to_vector<float>();
    double stddev = std::sqrt(2.0 / 400), sum = 0, sum_sq = 0;
    for (float v : w) {
      CHECK(std::fabs(v) <= 2 * stddev / 0.87962566103423978 + 1e-6);
      sum += v;
      sum_sq += double(v) * v;
    }
    double n = static_cast<double>(w.size()), mean = sum / n;
    CHECK(std::fabs(mean) < 4 * stddev / std::sqrt(n));
    CHECK(std::sqrt(sum_sq / n - mean * mean) == Approx(stddev).epsilon(0.02));
  }
  SUBCASE("random_uniform bounds and a bad range") {
    for (float v : random_uniform(-0.1, 0.1)({100}, gen).to_vector<float>()) CHECK(std::fabs(v) <= 0.1f);
    CHECK_THROWS_AS(random_uniform(1, 1), tl::InvalidArgument);
  }
}

TEST_CASE("layers/random_uniform_like: golden values, a pure function of [seed, counter]") {
  // Expected values from an independent Python SplitMix64; exact multiples of 2^-24, the same in WASM.
  auto u = tl::random_uniform_like(tl::zeros({2, 3}), tl::constant({7, 1}));
  CHECK(u.meta() == tl::testing::f32({2, 3}));
  std::vector<std::int32_t> k{15580795, 11541188, 1347526, 15820596, 11630990, 16212989};
  for (std::size_t i = 0; i < k.size(); ++i) CHECK(u.to_vector<float>()[i] == static_cast<float>(k[i]) / 16777216.f);
  auto v = tl::random_uniform_like(tl::zeros({3}, tl::int32), tl::constant({-3, 2}));
  CHECK(v.to_vector<float>() == F{2482428 / 16777216.f, 5693693 / 16777216.f, 14975560 / 16777216.f});
  CHECK(tl::random_uniform_like(tl::ones({2, 3}), tl::constant({7, 1})).to_vector<float>() == u.to_vector<float>());
  CHECK(tl::random_uniform_like(tl::ones({2, 3}), tl::constant({7, 2})).to_vector<float>() != u.to_vector<float>());
  auto traced = tl::function([](const Tensor& t, const Tensor& seed) { return tl::random_uniform_like(t, seed); },
                             {.input_signature = {tl::TensorSpec({-1, -1}), tl::TensorSpec({-1}, tl::int32)}});
  Tensor from_graph = traced(tl::ones({2, 3}), tl::constant({7, 1}));
  CHECK(from_graph.meta() == u.meta());
  CHECK(from_graph.to_vector<float>() == u.to_vector<float>());
  const tl::OpDef& op = tl::OpRegistry::global().get("random_uniform_like");
  CHECK(op.has(tl::trait::not_differentiable));
  CHECK_FALSE(op.has(tl::trait::stateful));
  CHECK_THROWS_WITH_AS(tl::random_uniform_like(u, tl::constant({1, 2, 3})), Contains("seed must be an int32 vector of 2"),
                       tl::ShapeError);
  SUBCASE("uniform over [0, 1)") {
    auto big = tl::random_uniform_like(tl::zeros({100000}), tl::constant({1, 0})).to_vector<float>();
    double sum = 0;
    int below_quarter = 0;
    for (float x : big) {
      CHECK((x >= 0.f && x < 1.f));
      sum += x;
      below_quarter += x < 0.25f;
    }
    CHECK(sum / 100000 == Approx(0.5).epsilon(0.01));
    CHECK(below_quarter == doctest::Approx(25000).epsilon(0.02));
  }
}

TEST_CASE("layers/dense: hand-computed values, any rank >= 2, 210 parameters for 20 -> 10") {
  auto dense = std::make_shared<Dense>(
      2, DenseOptions{.kernel_initializer = values_init({1, 2, 3, 4, 5, 6}), .bias_initializer = values_init({0.5f, -1})});
  CHECK_FALSE(dense->built());
  CHECK(dense->variables().empty());
  Tensor x = tl::constant({1.f, 0.f, -1.f, 2.f, 1.f, 0.f}, {2, 3});
  // [1 0 -1] @ [[1 2] [3 4] [5 6]] = [-4 -4], + bias -> [-3.5 -5]; [2 1 0] -> [5 8] + bias -> [5.5 7]
  check_close((*dense)(x), {-3.5f, -5.f, 5.5f, 7.f});
  CHECK(dense->built());
  CHECK(*dense->output_shape() == tl::Shape{2, 2});
  REQUIRE(dense->variables().size() == 2);
  CHECK(dense->variables()[0].name() == dense->name() + "/kernel");
  CHECK(dense->variables()[1].name() == dense->name() + "/bias");
  CHECK(dense->kernel().shape() == tl::Shape{3, 2});
  SUBCASE("rank 3 and keepdims inputs: matmul over the last dim") {
    CHECK((*dense)(tl::reshape(x, {1, 2, 3})).shape() == tl::Shape{1, 2, 2});
    check_close((*dense)(tl::reshape(x, {2, 1, 3})), {-3.5f, -5.f, 5.5f, 7.f});
    Tensor pooled = tl::reduce_max(tl::ones({1, 7, 3}), {1}, true);  // (1, 1, 3)
    CHECK((*dense)(pooled).shape() == tl::Shape{1, 1, 2});
  }
  SUBCASE("activations") {
    auto relu = std::make_shared<Dense>(2, "relu", DenseOptions{.kernel_initializer = values_init({1, 2, 3, 4, 5, 6}),
                                                               .bias_initializer = values_init({0.5f, -1})});
    check_close((*relu)(x), {0, 0, 5.5f, 7});
    auto soft = std::make_shared<Dense>(2, DenseOptions{.activation = "softmax", .use_bias = false,
                                                       .kernel_initializer = values_init({1, 2, 3, 4, 5, 6})});
    check_close((*soft)(x), {0.5f, 0.5f, 1 / (1 + std::exp(3.f)), 1 / (1 + std::exp(-3.f))});
    CHECK(soft->count_params() == 6);
    CHECK_THROWS_WITH_AS(soft->bias(), Contains("no bias"), tl::InvalidArgument);
    CHECK_THROWS_WITH_AS(Dense(3, "gelu"), Contains("unknown activation 'gelu'"), tl::InvalidArgument);
  }
  SUBCASE("parameter count, and a clear error for another feature count that leaves the layer usable") {
    auto d = std::make_shared<Dense>(10, DenseOptions{.seed = 3});
    CHECK_THROWS_WITH_AS(d->count_params(), Contains("not built"), tl::InvalidArgument);
    (*d)(tl::ones({4, 20}));
    CHECK(d->count_params() == 210);
    std::string expected = "Dense '" + d->name() + "': was built for inputs with 20 on axis -1, got f32[4,21]";
    CHECK_THROWS_WITH_AS((*d)(tl::ones({4, 21})), Contains(expected.c_str()), tl::ShapeError);
    CHECK_THROWS_WITH_AS((*d)(tl::ones({20})), Contains("expects an input of rank >= 2, got f32[20]"), tl::ShapeError);
    CHECK_THROWS_WITH_AS((*d)(tl::ones({2, 20}, tl::int32)), Contains("expects float32 inputs"), tl::DTypeError);
    CHECK(d->variables().size() == 2);
    CHECK((*d)(tl::ones({1, 20})).shape() == tl::Shape{1, 10});
  }
}

TEST_CASE("layers/dense: eagerly one fused_matmul op, bit for bit the unfused chain's values and gradients") {
  // With a bias and a linear or relu activation, on inputs of rank 2, a batch of sequences (rank 3) and a batch
  // of one (the ragged model's (1, 1, n)): the layer's output and the gradients of its kernel, bias and input
  // equal, bit for bit, those of matmul + bias + activation written out under the same tape. sigmoid and tanh
  // run unfused (three ops) and agree too.
  for (const std::string activation : {"linear", "relu", "sigmoid", "tanh"}) {
    for (const tl::Shape& shape : {tl::Shape{4, 3}, tl::Shape{2, 5, 3}, tl::Shape{1, 1, 3}}) {
      CAPTURE(activation);
      CAPTURE(shape.str());
      auto dense = std::make_shared<Dense>(2, activation, DenseOptions{.bias_initializer = values_init({0.25f, -0.5f}),
                                                                    .seed = 11});
      Tensor x = tl::Generator(5).normal(shape);
      tl::GradientTape tape(/*persistent=*/true);
      tape.watch(x);
      Tensor fused = (*dense)(x);
      CHECK(tape.size() == (activation == "linear" || activation == "relu" ? 1u : 3u));  // the layer's ops
      Tensor z = tl::matmul(x, dense->kernel().read()) + dense->bias().read();
      Tensor unfused = tl::layers::apply_activation(activation, z);
      REQUIRE(fused.shape() == unfused.shape());
      CHECK(fused.to_vector<float>() == unfused.to_vector<float>());
      Tensor weights = tl::Generator(6).normal(fused.shape());  // a loss that weighs every output differently
      // Each variable was read twice on the tape (once per chain): the gradient of one chain's loss comes through
      // that chain's read only.
      const std::vector<tl::Variable> variables{dense->kernel(), dense->bias()};
      auto from_fused = tape.gradient(tl::reduce_sum(fused * weights), variables);
      auto from_unfused = tape.gradient(tl::reduce_sum(unfused * weights), variables);
      REQUIRE(from_fused.size() == 2);
      for (std::size_t i = 0; i < 2; ++i) {
        CAPTURE(i);
        CHECK(from_fused[i].to_vector<float>() == from_unfused[i].to_vector<float>());
      }
      CHECK(tape.gradient(tl::reduce_sum(fused * weights), x).to_vector<float>() ==
            tape.gradient(tl::reduce_sum(unfused * weights), x).to_vector<float>());
    }
  }
  SUBCASE("softmax and a layer without a bias run the unfused ops; a trace records matmul, add and relu") {
    auto soft = std::make_shared<Dense>(2, "softmax", DenseOptions{.seed = 1});
    auto no_bias = std::make_shared<Dense>(2, "relu", DenseOptions{.use_bias = false, .seed = 1});
    Tensor x = tl::ones({2, 3});
    tl::GradientTape tape;
    tape.watch(x);
    (*soft)(x);
    const std::size_t softmax_ops = tape.size();
    CHECK(softmax_ops > 1);
    (*no_bias)(x);
    CHECK(tape.size() == softmax_ops + 2);  // matmul, relu
    auto relu = std::make_shared<Dense>(2, "relu", DenseOptions{.seed = 1});
    auto f = tl::function([&](const Tensor& in) { return (*relu)(in); });
    Tensor traced = f(x);
    CHECK(traced.to_vector<float>() == (*relu)(x).to_vector<float>());
    std::string graph = f.concrete_functions().at(0)->traced_graph().str();
    CHECK(graph.find("= matmul ") != std::string::npos);
    CHECK(graph.find("= add ") != std::string::npos);
    CHECK(graph.find("= relu ") != std::string::npos);
    CHECK(graph.find("fused_matmul") == std::string::npos);
    CHECK(f.concrete_functions().at(0)->graph().str().find("fused_matmul") != std::string::npos);  // the optimizer's
  }
}

TEST_CASE("layers/dense: a seed gives the same weights every time (golden values hold in WASM too)") {
  auto a = std::make_shared<Dense>(3, DenseOptions{.seed = 42});
  auto b = std::make_shared<Dense>(3, DenseOptions{.seed = 42});
  (*a)(tl::ones({1, 2}));
  (*b)(tl::ones({5, 2}));
  auto w = a->kernel().value().to_vector<float>();
  CHECK(w == b->kernel().value().to_vector<float>());
  double limit = std::sqrt(6.0 / 5);
  CHECK(w == tl::Generator(42).uniform({2, 3}, -limit, limit).to_vector<float>());
  // Printed once natively with %.9g; PCG32 integer arithmetic makes them exact on every platform.
  CHECK(w[0] == 0.645724535f);
  CHECK(w[5] == -0.0899059772f);
  CHECK(a->bias().value().to_vector<float>() == F(3, 0.f));
}

TEST_CASE("layers/conv2d: hand-computed valid and same convolutions, 224 parameters for Conv2D(8, 3) on RGB") {
  Tensor x = tl::reshape(tl::range(1., 10.), {1, 3, 3, 1});  // [[1 2 3] [4 5 6] [7 8 9]]
  auto conv = std::make_shared<Conv2D>(
      1, 2, Conv2DOptions{.kernel_initializer = tl::initializers::ones(), .bias_initializer = values_init({1})});
  Tensor y = (*conv)(x);  // 2x2 window sums + 1
  CHECK(y.shape() == tl::Shape{1, 2, 2, 1});
  check_close(y, {13, 17, 25, 29});
  auto same = std::make_shared<Conv2D>(2, Size2{3, 3}, Conv2DOptions{.strides = 2, .padding = "same",
                                                                    .activation = "relu", .use_bias = false,
                                                                    .kernel_initializer = tl::initializers::ones()});
  Tensor z = (*same)(x);  // SAME with stride 2 on 3x3: windows centred at (0,0), (0,2), (2,0), (2,2)
  CHECK(z.shape() == tl::Shape{1, 2, 2, 2});
  check_close(z, {12, 12, 16, 16, 24, 24, 28, 28});
  auto rgb = std::make_shared<Conv2D>(8, 3, Conv2DOptions{.seed = 1});
  CHECK((*rgb)(tl::ones({2, 5, 5, 3})).shape() == tl::Shape{2, 3, 3, 8});
  CHECK(rgb->count_params() == 224);
  CHECK(rgb->kernel().shape() == tl::Shape{3, 3, 3, 8});
  CHECK_THROWS_WITH_AS((*rgb)(tl::ones({2, 5, 5, 4})), Contains("was built for inputs with 3 on axis -1"), tl::ShapeError);
  CHECK_THROWS_WITH_AS((*rgb)(tl::ones({5, 5, 3})), Contains("expects an input of rank 4"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(Conv2D(4, 3, Conv2DOptions{.padding = "full"}), Contains("padding must be"), tl::InvalidArgument);
}

TEST_CASE("layers/pooling and flatten: hand-computed values, strides default to the pool size") {
  Tensor x = tl::reshape(tl::range(0., 16.), {1, 4, 4, 1});
  auto max_pool = std::make_shared<MaxPool2D>();
  check_close((*max_pool)(x), {5, 7, 13, 15});
  auto avg_pool = std::make_shared<AvgPool2D>(2, Pool2DOptions{.strides = 1});
  Tensor a = (*avg_pool)(x);
  CHECK(a.shape() == tl::Shape{1, 3, 3, 1});
  check_close(a, {2.5f, 3.5f, 4.5f, 6.5f, 7.5f, 8.5f, 10.5f, 11.5f, 12.5f});
  auto same = std::make_shared<MaxPool2D>(Size2{3, 3}, Pool2DOptions{.strides = Size2{2, 2}, .padding = "SAME"});
  CHECK((*same)(x).shape() == tl::Shape{1, 2, 2, 1});
  CHECK(max_pool->count_params() == 0);
  CHECK_THROWS_WITH_AS(MaxPool2D(0), Contains("MaxPool2D: pool_size must be positive, got (0, 0)"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(AvgPool2D(2, Pool2DOptions{.padding = "full"}), Contains("AvgPool2D: padding must be"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS((*max_pool)(tl::ones({4, 4, 1})), Contains("expects an input of rank 4, got f32[4,4,1]"),
                       tl::ShapeError);
  auto flatten = std::make_shared<Flatten>();
  Tensor f = (*flatten)(tl::reshape(tl::range(0, 24), {2, 3, 4}));
  CHECK(f.shape() == tl::Shape{2, 12});
  CHECK(f.to_vector<float>() == tl::range(0, 24).to_vector<float>());
  CHECK((*flatten)(tl::ones({0, 2, 2})).shape() == tl::Shape{0, 4});
  SUBCASE("Flatten with an unknown batch dim inside a traced function") {
    auto traced = tl::function([&](const Tensor& t) { return (*flatten)(t); },
                               {.input_signature = {tl::TensorSpec({-1, 3, 4})}, .name = "flatten"});
    CHECK(traced(tl::ones({5, 3, 4})).shape() == tl::Shape{5, 12});
    CHECK(*flatten->output_shape() == tl::Shape{-1, 12});
    CHECK(flatten->output_shape()->str() == "(None, 12)");
  }
}

TEST_CASE("layers/rnn: SimpleRNNCell and SimpleRNN against a hand-written loop") {
  SimpleRNNOptions options{.kernel_initializer = values_init({0.5f, -0.5f, 0.25f, 1.f}),  // (2 features, 2 units)
                           .recurrent_initializer = values_init({1.f, 0.f, 0.5f, -1.f}),
                           .bias_initializer = values_init({0.1f, 0.2f})};
  auto cell = std::make_shared<SimpleRNNCell>(2, options);
  Tensor x = tl::constant({1.f, 2.f}, {1, 2});
  // from the zero state: tanh([1 2] @ K + b) = tanh([1, 1.5] + [0.1, 0.2])
  Tensor h1 = (*cell)(x);
  check_close(h1, {std::tanh(1.1f), std::tanh(1.7f)});
  // h2 = tanh(x K + h1 U + b)
  float a = std::tanh(1.1f), b = std::tanh(1.7f);
  Tensor h2 = (*cell)(x, h1);
  check_close(h2, {std::tanh(1.f + a + 0.5f * b + 0.1f), std::tanh(1.5f - b + 0.2f)}, 1e-5);
  CHECK(cell->count_params() == 2 * 2 + 2 * 2 + 2);
  CHECK_THROWS_WITH_AS((*cell)(x, tl::ones({1, 3})), Contains("the state must be f32[batch, 2]"), tl::ShapeError);

  auto rnn = std::make_shared<SimpleRNN>(2, options);
  Tensor seq = tl::constant({1.f, 2.f, 1.f, 2.f, 0.f, -1.f}, {1, 3, 2});
  Tensor last = (*rnn)(seq);
  CHECK(last.shape() == tl::Shape{1, 2});
  float c = std::tanh(0.f * 0.5f + -1.f * 0.25f + h2.to_vector<float>()[0] + 0.5f * h2.to_vector<float>()[1] + 0.1f);
  float d = std::tanh(0.f * -0.5f + -1.f * 1.f - h2.to_vector<float>()[1] + 0.2f);
  check_close(last, {c, d}, 1e-5);
  CHECK(rnn->count_params() == 10);
  CHECK(rnn->layers().size() == 1);
  CHECK(rnn->variables()[1].name() == rnn->cell()->name() + "/recurrent_kernel");
  options.return_sequences = true;
  auto all = std::make_shared<SimpleRNN>(2, options);
  Tensor states = (*all)(seq);
  CHECK(states.shape() == tl::Shape{1, 3, 2});
  check_close(tl::slice(states, {0, 2, 0}, {1, 1, 2}), last.to_vector<float>(), 1e-6);
  auto traced = tl::function([&](const Tensor& t) { return (*rnn)(t); },
                             {.input_signature = {tl::TensorSpec({-1, -1, 2})}, .name = "rnn"});
  CHECK_THROWS_WITH_AS(traced(seq), Contains("the time dim (axis 1) must be known"), tl::ShapeError);
}

TEST_CASE("layers/names: default names unique per process, explicit names kept (Keras); weights are <layer>/<weight>") {
  auto first = std::make_shared<Flatten>("names_test");
  auto second = std::make_shared<Flatten>("names_test");
  CHECK(first->name() == "names_test");
  CHECK(second->name() == "names_test");   // explicit: kept, so a fresh model restores an old one's checkpoint
  CHECK_THROWS_WITH_AS(Sequential({first, second}, "twins"), Contains("two layers are named 'names_test'"),
                       tl::InvalidArgument);
  auto d1 = std::make_shared<Dense>(1);
  auto d2 = std::make_shared<Dense>(1);
  CHECK(d1->name().rfind("dense", 0) == 0);
  CHECK(d1->name() != d2->name());
  CHECK_THROWS_AS(Flatten("a/b"), tl::InvalidArgument);
  std::set<std::string> names;
  for (auto& d : {d1, d2}) {
    (*d)(tl::ones({1, 2}));
    for (const auto& v : d->variables()) names.insert(v.name());
  }
  CHECK(names.size() == 4);
}

}  // namespace layers_test
