// Losses: values against hand computations and Keras' documented examples, numerics at extreme logits,
// gradients, eager == traced (static and unknown batch), and errors that name the loss.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace losses_test {

namespace {

using tl::Tensor;
namespace losses = tl::losses;

float value(const Tensor& t) { return t.item<float>(); }

void check_all_finite(const Tensor& t) {
  for (float x : t.to_vector<float>()) CHECK(std::isfinite(x));
}

/// The loss traced with an input signature whose batch dim is unknown, called on the same tensors.
template <class L>
Tensor traced_loss(const L& loss, const Tensor& y_true, const Tensor& y_pred) {
  tl::Shape t_shape = y_true.shape(), p_shape = y_pred.shape();
  t_shape.dims()[0] = -1;
  p_shape.dims()[0] = -1;
  tl::InputSignature signature{tl::TensorSpec(t_shape, y_true.dtype()), tl::TensorSpec(p_shape, y_pred.dtype())};
  auto f = tl::function([&](const Tensor& t, const Tensor& p) { return loss(t, p); },
                        {.input_signature = signature, .name = "loss"});
  return f(y_true, y_pred);
}

}  // namespace

TEST_CASE("losses/mse: Keras' example, per-sample values, (batch,) against (batch, 1)") {
  // Keras docs: y_true [[0, 1], [0, 0]], y_pred [[1, 1], [1, 0]] -> per sample [0.5, 0.5], mean 0.5
  Tensor y_true = tl::constant({0.f, 1.f, 0.f, 0.f}, {2, 2}), y_pred = tl::constant({1.f, 1.f, 1.f, 0.f}, {2, 2});
  CHECK(value(losses::MeanSquaredError()(y_true, y_pred)) == doctest::Approx(0.5));
  CHECK(losses::mean_squared_error(y_true, y_pred).to_vector<float>() == std::vector<float>{0.5f, 0.5f});
  // ((1 - 0.5)^2 + (2 - 4)^2 + (3 - 3)^2) / 3 = 4.25 / 3, with y_pred (3, 1) squeezed to (3,)
  Tensor labels = tl::constant({1.f, 2.f, 3.f}), column = tl::constant({0.5f, 4.f, 3.f}, {3, 1});
  CHECK(value(losses::MeanSquaredError()(labels, column)) == doctest::Approx(4.25 / 3));
  // int32 targets are cast: (1 - 0.5)^2 = 0.25
  CHECK(value(losses::MeanSquaredError()(tl::constant({1}), tl::constant({0.5f}))) == doctest::Approx(0.25));
  CHECK(losses::MeanSquaredError().name() == "mean_squared_error");
}

TEST_CASE("losses/binary_crossentropy: probabilities, logits, Keras 3's clipping at 1e-7") {
  // Keras docs: y_true [[0, 1], [0, 0]], y_pred [[0.6, 0.4], [0.4, 0.6]]:
  // (-(ln 0.4 + ln 0.4) / 2 - (ln 0.6 + ln 0.4) / 2) / 2 = 0.8149245
  Tensor y_true = tl::constant({0.f, 1.f, 0.f, 0.f}, {2, 2});
  CHECK(value(losses::BinaryCrossentropy()(y_true, tl::constant({0.6f, 0.4f, 0.4f, 0.6f}, {2, 2}))) ==
        doctest::Approx(0.8149245).epsilon(1e-5));
  // Keras docs, from logits: y_true [0, 1, 0, 0], logits [-18.6, 0.51, 2.94, -12.8]: the mean of
  // softplus(x) - x z = (8e-9 + 0.470353 + 2.991477 + 2.8e-6) / 4 = 0.8654579
  Tensor logits = tl::constant({-18.6f, 0.51f, 2.94f, -12.8f});
  CHECK(value(losses::BinaryCrossentropy(true)(tl::constant({0.f, 1.f, 0.f, 0.f}), logits)) ==
        doctest::Approx(0.8654579).epsilon(1e-5));
  // Saturated probabilities are clipped to [1e-7, 1 - 1e-7] (Keras 3 takes log(p) with no extra epsilon):
  // y [0, 0, 1, 1], p [1, 1, 1, 0]: (2 * -ln(1.1920929e-7) - ln(1e-7) - ln(1 - 1.19e-7)) / 4 = 12.000716.
  // (tf.keras 2 added epsilon inside the logs as well and gave 11.522857.)
  Tensor hard = losses::BinaryCrossentropy()(tl::constant({0.f, 0.f, 1.f, 1.f}), tl::constant({1.f, 1.f, 1.f, 0.f}));
  CHECK(value(hard) == doctest::Approx(12.000716).epsilon(1e-5));
}

TEST_CASE("losses/categorical_crossentropy: probabilities (normalized) and logits") {
  // Keras docs: -(ln 0.95 + ln 0.1) / 2 = 1.1769392
  Tensor one_hot = tl::constant({0.f, 1.f, 0.f, 0.f, 0.f, 1.f}, {2, 3});
  Tensor probs = tl::constant({0.05f, 0.95f, 0.f, 0.1f, 0.8f, 0.1f}, {2, 3});
  CHECK(value(losses::CategoricalCrossentropy()(one_hot, probs)) == doctest::Approx(1.1769392).epsilon(1e-5));
  // Unnormalized rows are divided by their sum first: [1, 3] -> [0.25, 0.75], -ln 0.75 = 0.2876821
  CHECK(value(losses::CategoricalCrossentropy()(tl::constant({0.f, 1.f}, {1, 2}), tl::constant({1.f, 3.f}, {1, 2}))) ==
        doctest::Approx(0.2876821).epsilon(1e-5));
  // logits [1, 2, 3], class 1: logsumexp = 3.4076060, loss 3.4076060 - 2 = 1.4076060
  Tensor logits = tl::constant({1.f, 2.f, 3.f}, {1, 3});
  CHECK(value(losses::CategoricalCrossentropy(true)(tl::constant({0.f, 1.f, 0.f}, {1, 3}), logits)) ==
        doctest::Approx(1.4076060).epsilon(1e-5));
}

TEST_CASE("losses/sparse_categorical_crossentropy: labels (batch,) and (batch, 1), probabilities and logits") {
  // Keras docs: labels [1, 2] on the probabilities above: the same 1.1769392
  Tensor probs = tl::constant({0.05f, 0.95f, 0.f, 0.1f, 0.8f, 0.1f}, {2, 3});
  CHECK(value(losses::SparseCategoricalCrossentropy()(tl::constant({1, 2}), probs)) ==
        doctest::Approx(1.1769392).epsilon(1e-5));
  CHECK(value(losses::SparseCategoricalCrossentropy()(tl::constant({1, 2}, {2, 1}), probs)) ==
        doctest::Approx(1.1769392).epsilon(1e-5));
  // logits [1, 2, 3] twice, labels 2 and 0: logsumexp - x = 0.4076060 and 2.4076060, mean 1.4076060
  Tensor logits = tl::constant({1.f, 2.f, 3.f, 1.f, 2.f, 3.f}, {2, 3});
  auto per_sample = losses::sparse_categorical_crossentropy(tl::constant({2, 0}), logits, true).to_vector<float>();
  CHECK(per_sample[0] == doctest::Approx(0.4076060).epsilon(1e-5));
  CHECK(per_sample[1] == doctest::Approx(2.4076060).epsilon(1e-5));
  // float32 labels holding integers work too
  CHECK(value(losses::SparseCategoricalCrossentropy(true)(tl::constant({2.f, 0.f}), logits)) ==
        doctest::Approx(1.4076060).epsilon(1e-5));
}

TEST_CASE("losses/extreme logits: +-100 give finite losses and gradients with the right values") {
  // BCE from logits: x = 100, z = 0 -> 100; x = -100, z = 1 -> 100; x = 100, z = 1 -> 0; x = -100, z = 0 -> 0
  Tensor x = tl::constant({100.f, -100.f, 100.f, -100.f});
  Tensor z = tl::constant({0.f, 1.f, 1.f, 0.f});
  {
    tl::GradientTape tape;
    tape.watch(x);
    Tensor loss = losses::BinaryCrossentropy(true)(z, x);
    CHECK(value(loss) == doctest::Approx(50.0));
    // d/dx mean = (sigmoid(x) - z) / 4 = [0.25, -0.25, 0, 0]
    auto g = tape.gradient(loss, x).to_vector<float>();
    std::vector<float> expected{0.25f, -0.25f, 0.f, 0.f};
    for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == doctest::Approx(expected[i]));
  }
  // CCE / sparse CCE from logits: logits [100, -100, 0], class 1: loss = 100 - (-100) = 200, gradient softmax - y
  Tensor logits = tl::constant({100.f, -100.f, 0.f}, {1, 3});
  for (bool sparse : {false, true}) {
    CAPTURE(sparse);
    tl::GradientTape tape;
    tape.watch(logits);
    Tensor loss = sparse ? losses::SparseCategoricalCrossentropy(true)(tl::constant({1}), logits)
                         : losses::CategoricalCrossentropy(true)(tl::constant({0.f, 1.f, 0.f}, {1, 3}), logits);
    CHECK(value(loss) == doctest::Approx(200.0));
    auto g = tape.gradient(loss, logits).to_vector<float>();
    CHECK(g[0] == doctest::Approx(1.0));
    CHECK(g[1] == doctest::Approx(-1.0));
    CHECK(g[2] == doctest::Approx(0.0));
  }
  // Probabilities of exactly 0 and 1 are clipped: finite loss and finite gradients
  Tensor p = tl::constant({0.f, 1.f, 0.5f, 1.f}, {2, 2});
  tl::GradientTape tape;
  tape.watch(p);
  Tensor loss = losses::BinaryCrossentropy()(tl::constant({1.f, 0.f, 1.f, 1.f}, {2, 2}), p) +
                losses::CategoricalCrossentropy()(tl::constant({1.f, 0.f, 0.f, 1.f}, {2, 2}), p);
  CHECK(std::isfinite(value(loss)));
  check_all_finite(tape.gradient(loss, p));
}

TEST_CASE("losses/gradients: BCE's gradient at logit 0 is sigmoid(0) - z; MSE's is 2 (p - y) / n") {
  Tensor x = tl::constant({0.f, 0.f});
  tl::GradientTape tape(true);
  tape.watch(x);
  Tensor bce = losses::BinaryCrossentropy(true)(tl::constant({1.f, 0.f}), x);
  auto g = tape.gradient(bce, x).to_vector<float>();
  CHECK(g[0] == doctest::Approx(-0.25));  // (0.5 - 1) / 2
  CHECK(g[1] == doctest::Approx(0.25));   // (0.5 - 0) / 2
  Tensor mse = losses::MeanSquaredError()(tl::constant({1.f, -1.f}), x);
  auto gm = tape.gradient(mse, x).to_vector<float>();
  CHECK(gm[0] == doctest::Approx(-1.0));  // 2 (0 - 1) / 2
  CHECK(gm[1] == doctest::Approx(1.0));
}

TEST_CASE("losses/traced: eager == traced with an unknown batch dim, and an empty batch gives 0") {
  tl::Generator gen(5);
  Tensor logits = gen.normal({6, 4}, 0, 3);
  Tensor labels = gen.uniform({6}, 0, 4, tl::int32);
  Tensor one_hot = tl::one_hot(labels, 4);
  Tensor probs = tl::softmax(logits);
  Tensor targets = tl::cast(tl::greater(gen.uniform({6, 4}), 0.5), tl::float32);
  auto same = [](const Tensor& eager, const Tensor& traced) {
    CHECK(value(traced) == doctest::Approx(value(eager)).epsilon(1e-6));
  };
  same(losses::MeanSquaredError()(targets, probs), traced_loss(losses::MeanSquaredError(), targets, probs));
  for (bool from_logits : {false, true}) {
    CAPTURE(from_logits);
    const Tensor& pred = from_logits ? logits : probs;
    same(losses::BinaryCrossentropy(from_logits)(targets, pred),
         traced_loss(losses::BinaryCrossentropy(from_logits), targets, pred));
    same(losses::CategoricalCrossentropy(from_logits)(one_hot, pred),
         traced_loss(losses::CategoricalCrossentropy(from_logits), one_hot, pred));
    same(losses::SparseCategoricalCrossentropy(from_logits)(labels, pred),
         traced_loss(losses::SparseCategoricalCrossentropy(from_logits), labels, pred));
  }
  // Empty batch: Keras divides with divide_no_nan, so the loss is 0, not NaN (eagerly and traced)
  Tensor no_labels = tl::zeros({0}, tl::int32), no_logits = tl::zeros({0, 4});
  CHECK(value(losses::SparseCategoricalCrossentropy(true)(no_labels, no_logits)) == 0.f);
  CHECK(value(traced_loss(losses::SparseCategoricalCrossentropy(true), no_labels, no_logits)) == 0.f);
}

TEST_CASE("losses/errors: shapes, dtypes and labels are checked, naming the loss") {
  Tensor a = tl::zeros({4, 2}), b = tl::zeros({4, 3});
  CHECK_THROWS_WITH_AS(
      losses::MeanSquaredError()(a, b),
      doctest::Contains("MeanSquaredError: y_true f32[4,2] and y_pred f32[4,3] must have the same shape"),
      tl::ShapeError);
  CHECK_THROWS_WITH_AS(losses::BinaryCrossentropy()(tl::zeros({4}), tl::zeros({4}, tl::int32)),
                       doctest::Contains("BinaryCrossentropy: y_pred must be float32, got i32[4]"), tl::DTypeError);
  CHECK_THROWS_WITH_AS(losses::CategoricalCrossentropy(true)(tl::zeros({2, 3}), tl::zeros({3, 3})),
                       doctest::Contains("CategoricalCrossentropy"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(losses::SparseCategoricalCrossentropy(true)(tl::constant({0, 3}), tl::zeros({2, 3})),
                       doctest::Contains("SparseCategoricalCrossentropy: label 3 is outside [0, 3)"),
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(losses::SparseCategoricalCrossentropy(true)(tl::constant({0, 1, 2}), tl::zeros({2, 3})),
                       doctest::Contains("labels i32[3] and y_pred f32[2,3] do not match"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(losses::sparse_categorical_crossentropy(tl::zeros({2, 3}), tl::zeros({2, 3})),
                       doctest::Contains("sparse_categorical_crossentropy"), tl::ShapeError);
  // the errors also fire while tracing (shapes are static facts)
  auto f = tl::function([](const Tensor& t, const Tensor& p) { return losses::MeanSquaredError()(t, p); },
                        {.name = "bad_loss"});
  CHECK_THROWS_AS(f(a, b), tl::ShapeError);
}

}  // namespace losses_test
