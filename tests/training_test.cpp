// End-to-end training with the Keras-style stack, eagerly and traced: XOR with Dense, a generated two-class
// image task with Conv2D + MaxPool + Dense, a whole epoch over a Dataset traced into one function, and
// compile/fit against the custom loop it stands for.
#include <doctest/doctest.h>

#include "tracelab/tracelab.h"

#include "test_util.h"

namespace training_test {

namespace {

using namespace tl;
using tl::layers::Dense;
using tl::layers::DenseOptions;

std::shared_ptr<layers::Sequential> xor_model(std::uint64_t seed) {
  return std::make_shared<layers::Sequential>(layers::LayerList{
      std::make_shared<Dense>(8, DenseOptions{.activation = "tanh", .seed = seed}),
      std::make_shared<Dense>(1, DenseOptions{.seed = seed + 1})});
}

/// One step: loss, tape, Adam; returns the loss. Used eagerly and inside tl::function alike.
Tensor train_step(layers::Layer& model, optimizers::Optimizer& opt, const losses::Loss& loss_fn, const Tensor& x,
                  const Tensor& y) {
  GradientTape tape;
  Tensor loss = loss_fn(y, model(x, true));
  auto vars = model.trainable_variables();
  opt.apply_gradients(tape.gradient(loss, vars), vars);
  return loss;
}

/// 8x8 one-channel images: class 1 has a bright vertical bar, class 0 a horizontal one, plus noise.
std::pair<Tensor, Tensor> bar_images(int n, std::uint64_t seed) {
  Generator gen(seed);
  std::vector<float> pixels = gen.uniform({n, 8, 8, 1}, 0, 0.3).to_vector<float>();
  std::vector<float> labels(static_cast<std::size_t>(n));
  std::vector<std::int32_t> where = gen.uniform({n}, 1, 7, int32).to_vector<std::int32_t>();
  for (int i = 0; i < n; ++i) {
    bool vertical = i % 2 == 1;
    labels[static_cast<std::size_t>(i)] = vertical ? 1.f : 0.f;
    for (int k = 0; k < 8; ++k) {
      int row = vertical ? k : where[static_cast<std::size_t>(i)], col = vertical ? where[static_cast<std::size_t>(i)] : k;
      pixels[static_cast<std::size_t>(i * 64 + row * 8 + col)] = 1.f;
    }
  }
  return {constant(pixels, {n, 8, 8, 1}), constant(labels, {n, 1})};
}

}  // namespace

TEST_CASE("training/xor: Dense learns XOR; eager and traced give the same losses") {
  Tensor x = constant({0.f, 0.f, 0.f, 1.f, 1.f, 0.f, 1.f, 1.f}, {4, 2});
  Tensor y = constant({0.f, 1.f, 1.f, 0.f}, {4, 1});
  losses::BinaryCrossentropy bce(/*from_logits=*/true);
  auto eager_model = xor_model(11), traced_model = xor_model(11);
  optimizers::Adam eager_opt(0.05), traced_opt(0.05);
  auto step = tl::function([&](const Tensor& a, const Tensor& b) { return train_step(*traced_model, traced_opt, bce, a, b); },
                           {.name = "xor_step"});
  float eager_loss = 0, traced_loss = 0;
  for (int i = 0; i < 300; ++i) {
    eager_loss = train_step(*eager_model, eager_opt, bce, x, y).item<float>();
    traced_loss = step(x, y).item<float>();
    CHECK(traced_loss == doctest::Approx(eager_loss).epsilon(1e-4));
  }
  CHECK(step.tracing_count() == 2);  // the first call traced twice: its trace created the optimizer slots
  CHECK(eager_loss < 0.05f);
  metrics::BinaryAccuracy accuracy(0.0);  // logits: threshold 0
  accuracy.update_state(y, (*traced_model)(x));
  CHECK(accuracy.result().item<float>() == 1.f);
}

TEST_CASE("training/images: Conv2D + MaxPool + Dense reach >= 95% on a generated two-class task, eager == traced") {
  auto train = bar_images(64, 1), test = bar_images(64, 2);
  auto make_model = [] {
    return std::make_shared<layers::Sequential>(layers::LayerList{
        std::make_shared<layers::Conv2D>(4, 3, layers::Conv2DOptions{.activation = "relu", .seed = 3}),
        std::make_shared<layers::MaxPool2D>(2), std::make_shared<layers::Flatten>(),
        std::make_shared<Dense>(1, DenseOptions{.seed = 4})});
  };
  auto eager_model = make_model(), model = make_model();
  losses::BinaryCrossentropy bce(true);
  optimizers::Adam eager_opt(0.02), opt(0.02);
  auto dataset = data::Dataset::from_tensor_slices({train.first, train.second}).shuffle(64, 5).batch(16);
  auto step = tl::function([&](const Tensor& a, const Tensor& b) { return train_step(*model, opt, bce, a, b); },
                           {.input_signature = {TensorSpec({-1, 8, 8, 1}), TensorSpec({-1, 1})}, .name = "step"});
  for (int epoch = 0; epoch < 25; ++epoch)
    for (const auto& batch : dataset) {  // 100 steps
      float traced_loss = step(batch[0], batch[1]).item<float>();
      float eager_loss = train_step(*eager_model, eager_opt, bce, batch[0], batch[1]).item<float>();
      CHECK(traced_loss == doctest::Approx(eager_loss).epsilon(1e-3));
    }
  metrics::BinaryAccuracy accuracy(0.0);
  accuracy.update_state(test.second, (*model)(test.first));
  CHECK(accuracy.result().item<float>() >= 0.95f);
  CHECK(step.tracing_count() == 2);  // the first call traced twice: its trace created the optimizer slots
}

TEST_CASE("training/loop: a whole epoch over a Dataset traced into one function equals the per-step loop") {
  Generator gen(9);
  std::vector<Tensor> xs, ys;
  auto factory = [] {
    auto g = std::make_shared<Generator>(21);
    auto count = std::make_shared<int>(0);
    return data::GeneratorFn([g, count]() -> std::optional<data::Element> {
      if ((*count)++ == 30) return std::nullopt;
      int len = 1 + *count % 10;
      return data::Element{g->uniform({1, len, 20}), g->uniform({1})};
    });
  };
  auto ds = data::Dataset::from_generator(factory, {TensorSpec({1, -1, 20}), TensorSpec({1})});
  auto make_model = [] {
    return std::make_shared<layers::Sequential>(layers::LayerList{
        std::make_shared<Dense>(10, DenseOptions{.activation = "relu", .seed = 1}), std::make_shared<Dense>(1, DenseOptions{.seed = 2})});
  };
  losses::MeanSquaredError mse;
  auto per_step_model = make_model(), loop_model = make_model();
  optimizers::Adam per_step_opt(0.01), loop_opt(0.01);
  auto forward = [](layers::Layer& m, const Tensor& x) { return tl::reshape(m(tl::reduce_max(x, {1})), {-1}); };
  auto step = tl::function([&](const Tensor& x, const Tensor& y) {
    GradientTape tape;
    Tensor loss = mse(y, forward(*per_step_model, x));
    auto vars = per_step_model->trainable_variables();
    per_step_opt.apply_gradients(tape.gradient(loss, vars), vars);
    return loss;
  }, {.input_signature = {TensorSpec({1, -1, 20}), TensorSpec({1})}, .name = "step"});
  auto epoch = tl::function([&] {
    data::for_each(ds, [&](const data::Element& e) {
      GradientTape tape;
      Tensor loss = mse(e[1], forward(*loop_model, e[0]));
      auto vars = loop_model->trainable_variables();
      loop_opt.apply_gradients(tape.gradient(loss, vars), vars);
    });
  }, {.name = "epoch"});
  for (int e = 0; e < 2; ++e) {
    for (const auto& element : ds) step(element[0], element[1]);
    epoch();
  }
  CHECK(epoch.tracing_count() == 2);  // the first call traced twice: its trace created the optimizer slots
  auto a = per_step_model->trainable_variables(), b = loop_model->trainable_variables();
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto va = a[i].read().to_vector<float>(), vb = b[i].read().to_vector<float>();
    for (std::size_t k = 0; k < va.size(); ++k) CHECK(vb[k] == doctest::Approx(va[k]).epsilon(1e-4));
  }
}

namespace {

/// The image task's model for the fit tests: Conv2D, MaxPool, Dropout, Dense softmax over two classes.
std::shared_ptr<layers::Sequential> fit_model() {
  return std::make_shared<layers::Sequential>(layers::LayerList{
      std::make_shared<layers::Conv2D>(4, 3, layers::Conv2DOptions{.activation = "relu", .seed = 3}),
      std::make_shared<layers::MaxPool2D>(2), std::make_shared<layers::Dropout>(0.25, layers::DropoutOptions{.seed = 5}),
      std::make_shared<layers::Flatten>(), std::make_shared<Dense>(2, DenseOptions{.activation = "softmax", .seed = 4})});
}

/// (images, int32 labels) batches of bar_images: shuffled training batches of 16 (the last one 8), validation of 24.
std::pair<data::Dataset, data::Dataset> fit_data() {
  auto train = bar_images(56, 1), test = bar_images(48, 2);
  auto labels = [](const Tensor& y) { return tl::cast(tl::reshape(y, {-1}), int32); };
  return {data::Dataset::from_tensor_slices({train.first, labels(train.second)}).shuffle(56, 5).batch(16),
          data::Dataset::from_tensor_slices({test.first, labels(test.second)}).batch(24)};
}

layers::CompileOptions fit_options(double learning_rate, bool run_eagerly = false) {
  return {.optimizer = std::make_shared<optimizers::Adam>(learning_rate),
          .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(),
          .metrics = {"accuracy"},
          .run_eagerly = run_eagerly};
}

/// Every variable's values, in order.
std::vector<std::vector<float>> values_of(const layers::Layer& model) {
  std::vector<std::vector<float>> out;
  for (const Variable& v : model.variables()) out.push_back(v.read().to_vector<float>());
  return out;
}

}  // namespace

TEST_CASE("training/fit: the History of a compiled model equals the custom loop it stands for, bit for bit") {
  auto fitted = fit_model(), looped = fit_model();
  layers::CompiledModel compiled = layers::compile(fitted, fit_options(0.02));
  auto [fit_train, fit_validation] = fit_data();
  layers::History history = compiled.fit(fit_train, {.epochs = 3, .validation_data = fit_validation, .verbose = false});
  auto [train, validation] = fit_data();  // the same batches: a dataset's k-th pass reshuffles from (seed, k)

  // The same loop by hand: a traced train step, metrics reset every epoch, a validation pass after each.
  losses::SparseCategoricalCrossentropy loss_fn;
  optimizers::Adam optimizer(0.02);
  metrics::Mean train_loss, validation_loss;
  metrics::SparseCategoricalAccuracy train_accuracy, validation_accuracy;
  InputSignature signature{TensorSpec({-1, 8, 8, 1}), TensorSpec({-1}, int32)};
  auto step = tl::function([&](const Tensor& x, const Tensor& y) {
    GradientTape tape;
    Tensor probabilities = (*looped)(x, true);
    Tensor loss = loss_fn(y, probabilities);
    auto vars = looped->trainable_variables();
    optimizer.apply_gradients(tape.gradient(loss, vars), vars);
    train_loss.update_state(loss_fn.call(y, probabilities));
    train_accuracy.update_state(y, probabilities);
    return loss;
  }, {.input_signature = signature, .name = "step"});
  auto validate = tl::function([&](const Tensor& x, const Tensor& y) {
    Tensor probabilities = (*looped)(x, false);
    validation_loss.update_state(loss_fn.call(y, probabilities));
    validation_accuracy.update_state(y, probabilities);
    return probabilities;
  }, {.input_signature = signature, .name = "validate"});
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (metrics::Metric* m : std::initializer_list<metrics::Metric*>{&train_loss, &train_accuracy, &validation_loss,
                                                                      &validation_accuracy})
      m->reset_state();
    for (const auto& batch : train) step(batch[0], batch[1]);
    for (const auto& batch : validation) validate(batch[0], batch[1]);
    CAPTURE(epoch);
    CHECK(history.history.at("loss")[epoch] == train_loss.result().item<float>());
    CHECK(history.history.at("accuracy")[epoch] == train_accuracy.result().item<float>());
    CHECK(history.history.at("val_loss")[epoch] == validation_loss.result().item<float>());
    CHECK(history.history.at("val_accuracy")[epoch] == validation_accuracy.result().item<float>());
  }
  CHECK(values_of(*fitted) == values_of(*looped));  // weights, and Dropout's counter, bit for bit
  CHECK(history.epoch == std::vector<std::int64_t>{0, 1, 2});
  CHECK(history.seconds.size() == 3);
  std::vector<std::string> keys;
  for (const auto& [key, values] : history.history) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"accuracy", "loss", "val_accuracy", "val_loss"});
  CHECK(history.history.at("loss")[2] < history.history.at("loss")[0]);
  CHECK(compiled.train_tracing_count() == 2);  // the first call created Adam's slots, then traced again
  CHECK(compiled.test_tracing_count() == 1);
  compiled.fit(train, {.epochs = 8, .verbose = false});  // a second fit reuses the traced step
  CHECK(compiled.train_tracing_count() == 2);
  std::map<std::string, double> evaluated = compiled.evaluate(validation);
  CHECK(evaluated.size() == 2);
  CHECK(evaluated.at("accuracy") >= 0.9);
}

TEST_CASE("training/fit: run_eagerly trains the same weights without tracing") {
  auto traced_model = fit_model(), eager_model = fit_model();
  layers::CompiledModel traced = layers::compile(traced_model, fit_options(0.02));
  layers::CompiledModel eager = layers::compile(eager_model, fit_options(0.02, /*run_eagerly=*/true));
  auto [train, validation] = fit_data();
  auto [train_again, validation_again] = fit_data();  // a second pipeline: the same shuffles, pass for pass
  layers::History a = traced.fit(train, {.epochs = 2, .validation_data = validation, .verbose = false});
  layers::History b = eager.fit(train_again, {.epochs = 2, .validation_data = validation_again, .verbose = false});
  CHECK(eager.train_tracing_count() == 0);
  CHECK(eager.test_tracing_count() == 0);
  auto wa = values_of(*traced_model), wb = values_of(*eager_model);
  REQUIRE(wa.size() == wb.size());
  for (std::size_t i = 0; i < wa.size(); ++i)
    for (std::size_t k = 0; k < wa[i].size(); ++k) CHECK(wb[i][k] == doctest::Approx(wa[i][k]).epsilon(1e-4));
  CHECK(b.history.at("val_loss")[1] == doctest::Approx(a.history.at("val_loss")[1]).epsilon(1e-4));
}

TEST_CASE("training/fit: bad options and data are errors naming compile or fit") {
  data::Dataset train = fit_data().first;  // a plain variable: the lambdas below capture it
  auto model = fit_model();
  auto message = [](auto&& fn) { return testing::error_message<InvalidArgument>(fn); };
  CHECK(message([&] { layers::compile(model, {.loss = std::make_shared<losses::MeanSquaredError>()}); }) ==
        "compile: an optimizer is required (options.optimizer)");
  auto options = fit_options(0.01);
  options.metrics = {"f1"};
  CHECK(message([&] { layers::compile(model, options); }).find("compile: unknown metric 'f1'; expected one of") == 0);
  options.metrics = {"accuracy"};
  options.loss = std::make_shared<losses::MeanSquaredError>();
  CHECK(message([&] { layers::compile(model, options); }).find("got 'mean_squared_error'") != std::string::npos);
  layers::CompiledModel compiled = layers::compile(model, fit_options(0.01));
  CHECK(message([&] { compiled.fit(train, {.epochs = 0}); }) == "fit: epochs must be at least 1, got 0");
  auto triples = data::Dataset::from_tensor_slices({tl::ones({4, 8, 8, 1}), tl::zeros({4}, int32), tl::ones({4})});
  CHECK(message([&] { compiled.fit(triples.batch(2)); }).find("fit: each element must be (x, y), got 3 components") == 0);
  CHECK(message([&] { compiled.fit(train, {.validation_data = triples, .verbose = false}); })
            .find("fit: validation_data: each element must be (x, y), got 3 components") == 0);
  CHECK(compiled.train_tracing_count() == 0);  // nothing ran: the validation data was checked before training
}

}  // namespace training_test
