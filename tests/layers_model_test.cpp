// Layers combined into models — Sequential, the subclassing pattern, recursive variables, summary() golden text —
// Dropout's masks (inference, statistics, per-call change, seeds, inside tl::function), gradients through layers,
// and eager == traced for forward passes and for a small training loop.
#include <doctest/doctest.h>

#include <cmath>

#include "test_util.h"
#include "tracelab/tracelab.h"

namespace layers_model_test {

using doctest::Approx;
using doctest::Contains;
using tl::Tensor;
using namespace tl::layers;
using F = std::vector<float>;

namespace {

/// The subclassing pattern: hidden Dense layers in a std::vector, looped over in call().
class MLP : public Layer {
 public:
  MLP(const std::vector<std::int64_t>& hidden, std::int64_t outputs, std::uint64_t seed, std::string name = "mlp")
      : Layer(name) {
    for (std::size_t i = 0; i < hidden.size(); ++i)
      hidden_.push_back(track(std::make_shared<Dense>(hidden[i], DenseOptions{.activation = "relu", .seed = seed + i})));
    out_ = track(std::make_shared<Dense>(outputs, DenseOptions{.seed = seed + 100}));
  }
  std::string type_name() const override { return "MLP"; }

 protected:
  Tensor call(const Tensor& x, bool training) override {
    Tensor h = x;
    for (const auto& layer : hidden_) h = (*layer)(h, training);
    return (*out_)(h, training);
  }

 private:
  std::vector<std::shared_ptr<Dense>> hidden_;
  std::shared_ptr<Dense> out_;
};

/// A layer with a trainable and a non-trainable weight (like BatchNormalization's moving statistics).
class Scale : public Layer {
 public:
  explicit Scale(std::string name) : Layer(name) {}
  std::string type_name() const override { return "Scale"; }

 protected:
  void build(const tl::Shape& input_shape) override {
    gamma_ = add_weight("gamma", {input_shape.dim(-1)}, tl::initializers::ones());
    offset_ = add_weight("offset", {input_shape.dim(-1)}, tl::initializers::constant(0.5f), /*trainable=*/false);
  }
  Tensor call(const Tensor& x, bool) override { return x * gamma_->read() + offset_->read(); }

 private:
  std::optional<tl::Variable> gamma_, offset_;
};

std::vector<std::string> names_of(const std::vector<tl::Variable>& variables) {
  std::vector<std::string> names;
  for (const auto& v : variables) names.push_back(v.name());
  return names;
}

std::shared_ptr<Sequential> small_model(const std::string& prefix, std::uint64_t seed) {
  return std::make_shared<Sequential>(
      LayerList{std::make_shared<Dense>(10, "relu", DenseOptions{.seed = seed, .name = prefix + "_dense"}),
                std::make_shared<Dropout>(
                    0.5, DropoutOptions{.seed = static_cast<std::int32_t>(seed), .name = prefix + "_dropout"}),
                std::make_shared<Dense>(1, DenseOptions{.seed = seed + 1, .name = prefix + "_out"})},
      prefix);
}

}  // namespace

TEST_CASE("layers/subclassing: a custom model's variables are collected recursively in creation order") {
  auto mlp = std::make_shared<MLP>(std::vector<std::int64_t>{8, 4}, 2, 7);
  CHECK(mlp->layers().size() == 3);
  CHECK(mlp->variables().empty());
  Tensor y = (*mlp)(tl::ones({3, 5}));
  CHECK(y.shape() == tl::Shape{3, 2});
  auto names = names_of(mlp->variables());
  REQUIRE(names.size() == 6);
  const auto& sub = mlp->layers();
  CHECK(names == std::vector<std::string>{sub[0]->name() + "/kernel", sub[0]->name() + "/bias",
                                          sub[1]->name() + "/kernel", sub[1]->name() + "/bias",
                                          sub[2]->name() + "/kernel", sub[2]->name() + "/bias"});
  CHECK(mlp->trainable_variables().size() == 6);
  CHECK(mlp->non_trainable_variables().empty());
  CHECK(mlp->count_params() == 5 * 8 + 8 + 8 * 4 + 4 + 4 * 2 + 2);
  SUBCASE("a layer tracked twice, or by two models, appears once") {
    auto shared = std::make_shared<Dense>(5, DenseOptions{.seed = 1});
    auto model = std::make_shared<Sequential>(LayerList{shared, shared});  // the same weights applied twice
    (*model)(tl::ones({2, 5}));
    CHECK(model->variables().size() == 2);
    CHECK(model->stack().size() == 2);
    CHECK(model->count_params() == 30);
    auto outer = std::make_shared<Sequential>(LayerList{model, shared});
    (*outer)(tl::ones({2, 5}));
    CHECK(outer->variables().size() == 2);
    CHECK_THROWS_WITH_AS(model->add(outer), Contains("would make a cycle"), tl::InvalidArgument);
  }
  SUBCASE("non-trainable weights") {
    auto scale = std::make_shared<Scale>("scale_nt");
    auto model = std::make_shared<Sequential>(LayerList{scale, std::make_shared<Dense>(2, DenseOptions{.seed = 2})});
    CHECK((*model)(tl::constant({1.f, 2.f, 3.f}, {1, 3})).shape() == tl::Shape{1, 2});
    CHECK(names_of(model->non_trainable_variables()) == std::vector<std::string>{"scale_nt/offset"});
    CHECK(model->trainable_variables().size() == 3);
    CHECK(model->count_params() == 3 + 3 + 8);
  }
}

TEST_CASE("layers/sequential: add, build on first call, errors name the layer") {
  auto model = std::make_shared<Sequential>();
  CHECK_THROWS_WITH_AS((*model)(tl::ones({1, 2})), Contains("has no layers"), tl::InvalidArgument);
  model->add(std::make_shared<Dense>(4, "tanh", DenseOptions{.seed = 1}));
  model->add(std::make_shared<Dense>(3, DenseOptions{.seed = 2}));
  CHECK_FALSE(model->built());
  CHECK((*model)(tl::ones({2, 6})).shape() == tl::Shape{2, 3});
  CHECK(model->built());
  CHECK(model->count_params() == 6 * 4 + 4 + 4 * 3 + 3);
  CHECK_THROWS_WITH_AS((*model)(tl::ones({2, 7})), Contains("was built for inputs with 6 on axis -1, got f32[2,7]"),
                       tl::ShapeError);
}

// No SUBCASEs in the summary tests: doctest re-runs a test case's body per subcase, and layers with default names
// would then get suffixed names ("dense_1").
TEST_CASE("layers/summary: Keras' table with None for the unknown batch dim of a traced call") {
  auto model = small_model("golden", 11);
  CHECK_THROWS_WITH_AS(model->summary(), Contains("not built"), tl::InvalidArgument);
  auto traced = tl::function([&](const Tensor& x) { return (*model)(x); },
                             {.input_signature = {tl::TensorSpec({-1, 20})}, .name = "forward"});
  traced(tl::ones({4, 20}));
  CHECK(model->summary() ==
        "Model: \"golden\"\n"
        "_________________________________________________________________\n"
        "Layer (type)                 Output Shape              Param #\n"
        "=================================================================\n"
        "golden_dense (Dense)         (None, 10)                210\n"
        "_________________________________________________________________\n"
        "golden_dropout (Dropout)     (None, 10)                0\n"
        "_________________________________________________________________\n"
        "golden_out (Dense)           (None, 1)                 11\n"
        "=================================================================\n"
        "Total params: 221\n"
        "Trainable params: 221\n"
        "Non-trainable params: 0\n"
        "_________________________________________________________________\n");
}

TEST_CASE("layers/summary: a CNN called eagerly: concrete shapes, thousands separators, a non-trainable weight") {
  {
    auto cnn = std::make_shared<Sequential>(
        LayerList{std::make_shared<Conv2D>(32, 3, Conv2DOptions{.activation = "relu", .seed = 1, .name = "cnn_conv"}),
                  std::make_shared<MaxPool2D>(2, Pool2DOptions{.name = "cnn_pool"}),
                  std::make_shared<Flatten>("cnn_flatten"), std::make_shared<Scale>("cnn_scale"),
                  std::make_shared<Dense>(10, DenseOptions{.activation = "softmax", .seed = 2, .name = "cnn_out"})},
        "cnn");
    (*cnn)(tl::ones({1, 28, 28, 1}));
    CHECK(cnn->summary() ==
          "Model: \"cnn\"\n"
          "_________________________________________________________________\n"
          "Layer (type)                 Output Shape              Param #\n"
          "=================================================================\n"
          "cnn_conv (Conv2D)            (1, 26, 26, 32)           320\n"
          "_________________________________________________________________\n"
          "cnn_pool (MaxPool2D)         (1, 13, 13, 32)           0\n"
          "_________________________________________________________________\n"
          "cnn_flatten (Flatten)        (1, 5408)                 0\n"
          "_________________________________________________________________\n"
          "cnn_scale (Scale)            (1, 5408)                 10816\n"
          "_________________________________________________________________\n"
          "cnn_out (Dense)              (1, 10)                   54090\n"
          "=================================================================\n"
          "Total params: 65,226\n"
          "Trainable params: 59,818\n"
          "Non-trainable params: 5,408\n"
          "_________________________________________________________________\n");
  }
}

TEST_CASE("layers/summary: a custom model lists its sub-layers; a plain layer lists itself; print_summary logs it") {
  {
    auto mlp = std::make_shared<MLP>(std::vector<std::int64_t>{3}, 1, 5, "summary_mlp");
    (*mlp)(tl::ones({2, 4}));
    std::string text = mlp->summary();
    CHECK(text.rfind("Model: \"summary_mlp\"\n", 0) == 0);
    CHECK(text.find(mlp->layers()[0]->name() + " (Dense)") != std::string::npos);
    CHECK(text.find("(2, 3)                    15\n") != std::string::npos);
    CHECK(text.find("Total params: 19\n") != std::string::npos);
    auto dense = std::make_shared<Dense>(2, DenseOptions{.seed = 1, .name = "summary_leaf_with_a_very_long_name"});
    (*dense)(tl::ones({1, 2}));
    CHECK(dense->summary().find("summary_leaf_with_a_very_long_name (Dense) (1, 2)") != std::string::npos);
    tl::ScopedLogCapture capture;
    mlp->print_summary();
    REQUIRE(capture.messages().size() == 1);
    CHECK(capture.messages()[0].first == tl::LogLevel::info);
    CHECK(capture.messages()[0].second + "\n" == text);
  }
}

TEST_CASE("layers/dropout: identity in inference, masks in training") {
  auto drop = std::make_shared<Dropout>(0.25, DropoutOptions{.seed = 3});
  Tensor x = tl::ones({100, 100});
  CHECK((*drop)(x).to_vector<float>() == x.to_vector<float>());
  CHECK(drop->counter().value().item<int>() == 0);
  auto first = (*drop)(x, true).to_vector<float>();
  CHECK(drop->counter().value().item<int>() == 1);
  int dropped = 0;
  for (float v : first) {
    CHECK((v == 0.f || v == Approx(1 / 0.75f)));
    dropped += v == 0.f;
  }
  CHECK(dropped == Approx(2500).epsilon(0.07));  // binomial(10000, 0.25): sd 43, so +-175 is 4 sd
  auto second = (*drop)(x, true).to_vector<float>();
  CHECK(second != first);
  CHECK(drop->count_params() == 0);
  CHECK(drop->weights().empty());
  CHECK(names_of(drop->non_trainable_variables()) == std::vector<std::string>{drop->name() + "/seed_counter"});
  SUBCASE("the same seed gives the same sequence of masks; another seed another") {
    auto again = std::make_shared<Dropout>(0.25, DropoutOptions{.seed = 3});
    CHECK((*again)(x, true).to_vector<float>() == first);
    CHECK((*again)(x, true).to_vector<float>() == second);
    auto other = std::make_shared<Dropout>(0.25, DropoutOptions{.seed = 4});
    CHECK((*other)(x, true).to_vector<float>() != first);
  }
  SUBCASE("inside tl::function the mask still changes per call, and matches the eager sequence") {
    auto traced_drop = std::make_shared<Dropout>(0.25, DropoutOptions{.seed = 3});
    auto f = tl::function([&](const Tensor& t) { return (*traced_drop)(t, true); }, {.name = "dropout"});
    CHECK(f(x).to_vector<float>() == first);
    CHECK(f(x).to_vector<float>() == second);
    CHECK(f.tracing_count() == 1);
    CHECK(traced_drop->counter().value().item<int>() == 2);
  }
  CHECK_THROWS_WITH_AS(Dropout(1.0), Contains("rate must be in [0, 1)"), tl::InvalidArgument);
}

TEST_CASE("layers/tape: gradients w.r.t. trainable_variables() are defined and match the hand formula") {
  auto mlp = std::make_shared<MLP>(std::vector<std::int64_t>{6}, 1, 21);
  auto cnn = std::make_shared<Sequential>(LayerList{std::make_shared<Conv2D>(2, 3, Conv2DOptions{.seed = 3}),
                                                    std::make_shared<AvgPool2D>(), std::make_shared<Flatten>(),
                                                    std::make_shared<Dense>(1, DenseOptions{.seed = 4})});
  for (auto model : std::vector<std::shared_ptr<Layer>>{mlp, cnn}) {
    Tensor x = model == cnn ? tl::Generator(1).uniform({2, 6, 6, 1}) : tl::Generator(1).uniform({4, 3});
    tl::GradientTape tape;
    Tensor loss = tl::reduce_sum(tl::square((*model)(x, true)));
    auto vars = model->trainable_variables();
    auto grads = tape.gradient(loss, vars);
    REQUIRE(grads.size() == vars.size());
    for (std::size_t i = 0; i < vars.size(); ++i) {
      CAPTURE(vars[i].name());
      REQUIRE(grads[i].defined());
      CHECK(grads[i].shape() == vars[i].shape());
    }
  }
  // d sum(x @ K + b) / dK = x^T 1, / db = batch size
  auto dense = std::make_shared<Dense>(2, DenseOptions{.seed = 5});
  Tensor x = tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {1, 2, 3});
  tl::GradientTape tape;
  Tensor total = tl::reduce_sum((*dense)(x));  // builds the layer: its variables exist from here
  auto grads = tape.gradient(total, dense->trainable_variables());
  REQUIRE(grads.size() == 2);
  CHECK(grads[0].to_vector<float>() == F{5, 5, 7, 7, 9, 9});
  CHECK(grads[1].to_vector<float>() == F{2, 2});
}

TEST_CASE("layers/function: a model traced gives the eager outputs, building on the first trace") {
  auto model = std::make_shared<Sequential>(
      LayerList{std::make_shared<Conv2D>(4, 3, Conv2DOptions{.padding = "same", .activation = "relu", .seed = 1}),
                std::make_shared<MaxPool2D>(), std::make_shared<Flatten>(),
                std::make_shared<Dense>(8, "sigmoid", DenseOptions{.seed = 2}),
                std::make_shared<Dropout>(0.5, DropoutOptions{.seed = 9}),
                std::make_shared<Dense>(3, "softmax", DenseOptions{.seed = 3})});
  auto forward = tl::function([&](const Tensor& x) { return (*model)(x); },
                              {.input_signature = {tl::TensorSpec({-1, 6, 6, 2})}, .name = "forward"});
  tl::Generator data(5);
  Tensor x = data.uniform({3, 6, 6, 2});
  Tensor traced = forward(x);  // builds every layer while tracing
  CHECK(model->built());
  CHECK(model->variables().size() == 7);  // 3 kernels, 3 biases, the dropout counter
  Tensor eager = (*model)(x);
  REQUIRE(traced.shape() == eager.shape());
  auto t = traced.to_vector<float>(), e = eager.to_vector<float>();
  for (std::size_t i = 0; i < t.size(); ++i) CHECK(t[i] == Approx(e[i]).epsilon(1e-6));
  CHECK(forward(data.uniform({5, 6, 6, 2})).shape() == tl::Shape{5, 3});
  CHECK(forward.tracing_count() == 2);  // the first call traced twice: the model built on the first trace
}

TEST_CASE("layers/function: a training loop with dropout gives the same losses eagerly and traced") {
  auto eager_model = small_model("train_eager", 31), graph_model = small_model("train_graph", 31);
  auto step = [](Layer& model, const Tensor& x, const Tensor& y) {
    tl::GradientTape tape;
    // A sum, not reduce_mean: reduce_mean's gradient needs the element count, unknown while tracing (-1 batch).
    Tensor loss = tl::reduce_sum(tl::square(model(x, /*training=*/true) - y)) * 0.2f;
    auto vars = model.trainable_variables();
    auto grads = tape.gradient(loss, vars);
    for (std::size_t i = 0; i < vars.size(); ++i) vars[i].assign_sub(0.05f * grads[i]);
    return loss;
  };
  auto traced = tl::function([&](const Tensor& x, const Tensor& y) { return step(*graph_model, x, y); },
                             {.input_signature = {tl::TensorSpec({-1, 20}), tl::TensorSpec({-1, 1})}, .name = "train"});
  tl::Generator data(8);
  std::vector<float> losses;
  for (int i = 0; i < 20; ++i) {
    Tensor x = data.uniform({4 + i % 3, 20});
    Tensor y = tl::reduce_sum(x, {1}, true) * 0.1f;
    float eager_loss = step(*eager_model, x, y).item<float>();
    float graph_loss = traced(x, y).item<float>();
    CHECK(graph_loss == Approx(eager_loss).epsilon(1e-5));
    losses.push_back(eager_loss);
  }
  CHECK(traced.tracing_count() == 2);  // the first call traced twice: its trace created the optimizer slots
  CHECK(losses.back() < losses.front());
  auto ev = eager_model->variables(), gv = graph_model->variables();
  for (std::size_t i = 0; i < ev.size(); ++i) {
    auto a = ev[i].value().to_vector<float>(), b = gv[i].value().to_vector<float>();
    for (std::size_t k = 0; k < a.size(); ++k) CHECK(b[k] == Approx(a[k]).epsilon(1e-5));
  }
}

}  // namespace layers_model_test
