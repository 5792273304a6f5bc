// Metrics: Keras' documented values, running means over several batches, reset, 0 (not NaN) before any update,
// and the same results from update_state/result inside a traced function (static and unknown batch).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace metrics_test {

namespace {

using tl::Tensor;
namespace metrics = tl::metrics;

float result_of(const metrics::Metric& m) { return m.result().item<float>(); }

}  // namespace

TEST_CASE("metrics/mean: running mean over batches, 0 before any value, reset_state") {
  metrics::Mean mean;
  CHECK(result_of(mean) == 0.f);  // count 0: divide_no_nan gives 0, not NaN
  mean.update_state(tl::constant({1.f, 2.f, 3.f}));
  CHECK(result_of(mean) == doctest::Approx(2.0));
  mean.update_state(tl::constant({4}));  // int32 values are cast
  CHECK(result_of(mean) == doctest::Approx(2.5));
  mean.update_state(tl::scalar(10.f));  // a scalar is one sample: (1 + 2 + 3 + 4 + 10) / 5
  CHECK(result_of(mean) == doctest::Approx(4.0));
  auto vars = mean.variables();
  REQUIRE(vars.size() == 2);
  CHECK(vars[0].name() == "mean/total");
  CHECK(vars[1].name() == "mean/count");
  CHECK_FALSE(vars[0].trainable());
  CHECK(vars[1].read().item<float>() == 5.f);
  mean.reset_state();
  CHECK(result_of(mean) == 0.f);
  CHECK(vars[0].read().item<float>() == 0.f);
}

TEST_CASE("metrics/keras examples: MeanSquaredError, BinaryAccuracy, SparseCategoricalAccuracy") {
  // Keras docs: MSE of [[0, 1], [0, 0]] vs [[1, 1], [0, 0]] = (0.5 + 0) / 2 = 0.25
  metrics::MeanSquaredError mse;
  mse.update_state(tl::constant({0.f, 1.f, 0.f, 0.f}, {2, 2}), tl::constant({1.f, 1.f, 0.f, 0.f}, {2, 2}));
  CHECK(result_of(mse) == doctest::Approx(0.25));
  // Keras docs: [[1], [1], [0], [0]] vs [[0.98], [1], [0], [0.6]] -> 3 of 4 right
  metrics::BinaryAccuracy binary;
  binary.update_state(tl::constant({1.f, 1.f, 0.f, 0.f}, {4, 1}), tl::constant({0.98f, 1.f, 0.f, 0.6f}, {4, 1}));
  CHECK(result_of(binary) == doctest::Approx(0.75));
  // threshold 0.99 with (batch,) against (batch, 1): only 1.0 > 0.99 -> predictions [0, 1, 0, 0]: 3 of 4 right
  metrics::BinaryAccuracy strict(0.99);
  strict.update_state(tl::constant({1.f, 1.f, 0.f, 0.f}), tl::constant({0.98f, 1.f, 0.f, 0.6f}, {4, 1}));
  CHECK(result_of(strict) == doctest::Approx(0.75));
  // Keras docs: labels [[2], [1]] vs [[0.1, 0.6, 0.3], [0.05, 0.95, 0]] -> argmax [1, 1]: 1 of 2 right
  metrics::SparseCategoricalAccuracy accuracy;
  Tensor probs = tl::constant({0.1f, 0.6f, 0.3f, 0.05f, 0.95f, 0.f}, {2, 3});
  accuracy.update_state(tl::constant({2, 1}, {2, 1}), probs);
  CHECK(result_of(accuracy) == doctest::Approx(0.5));
  accuracy.update_state(tl::constant({1.f, 1.f}), probs);  // float labels, (batch,): 2 more right -> 3 / 4
  CHECK(result_of(accuracy) == doctest::Approx(0.75));
  CHECK(accuracy.name() == "sparse_categorical_accuracy");
}

TEST_CASE("metrics/errors name the metric") {
  metrics::SparseCategoricalAccuracy accuracy;
  CHECK_THROWS_WITH_AS(accuracy.update_state(tl::constant({1, 2, 0}), tl::zeros({2, 3})),
                       doctest::Contains("SparseCategoricalAccuracy: labels i32[3] and y_pred f32[2,3] do not match"),
                       tl::ShapeError);
  metrics::BinaryAccuracy binary;
  CHECK_THROWS_WITH_AS(binary.update_state(tl::zeros({3}), tl::zeros({4})),
                       doctest::Contains("BinaryAccuracy: y_true f32[3] and y_pred f32[4]"), tl::ShapeError);
  CHECK(result_of(accuracy) == 0.f);  // failed updates changed nothing
}

TEST_CASE("metrics/traced: update_state and result inside a tl::function match the eager metric") {
  metrics::SparseCategoricalAccuracy eager_acc, graph_acc;
  metrics::Mean eager_loss, graph_loss;
  tl::losses::SparseCategoricalCrossentropy loss_fn(true);
  auto step = tl::function(
      [&](const Tensor& labels, const Tensor& logits) {
        graph_acc.update_state(labels, logits);
        graph_loss.update_state(loss_fn(labels, logits));
        return std::vector<Tensor>{graph_acc.result(), graph_loss.result()};
      },
      {.input_signature = {tl::TensorSpec({-1}, tl::int32), tl::TensorSpec({-1, 5})}, .name = "eval_step"});
  auto reset = tl::function([&] { graph_acc.reset_state(); }, {.name = "reset"});
  tl::Generator gen(9);
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (int batch = 0; batch < 4; ++batch) {
      int n = 3 + batch;
      Tensor labels = gen.uniform({n}, 0, 5, tl::int32), logits = gen.normal({n, 5});
      eager_acc.update_state(labels, logits);
      eager_loss.update_state(loss_fn(labels, logits));
      auto results = step(labels, logits);
      CHECK(results[0].item<float>() == doctest::Approx(result_of(eager_acc)).epsilon(1e-6));
      CHECK(results[1].item<float>() == doctest::Approx(result_of(eager_loss)).epsilon(1e-6));
    }
    CHECK(graph_acc.variables()[1].read().item<float>() == 3 + 4 + 5 + 6);  // counted by the graph
    eager_acc.reset_state();
    reset();
    CHECK(result_of(graph_acc) == 0.f);
  }
  CHECK(step.tracing_count() == 1);
  CHECK(reset.tracing_count() == 1);
  // result() traced before any update: 0, not NaN
  metrics::Mean fresh;
  auto read = tl::function([&] { return fresh.result(); }, {.name = "read"});
  CHECK(read().item<float>() == 0.f);
}

}  // namespace metrics_test
