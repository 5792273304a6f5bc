// The ragged experiment's runner: trace counts and trace steps per mode (the article's story), the same loss
// trajectory in every mode, the warm-up (which changes no trace, loss or warning), the record_timestamp op that
// times the in-graph loop, progress and cancellation, the JSON document, and configuration errors. Small step
// counts: timings are benchmarks, not tests.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "tracelab/tracelab.h"

namespace ragged_experiment_test {

namespace {

using namespace tl;
using namespace tl::experiments;

RaggedConfig small_config(std::int64_t steps) {
  RaggedConfig config;
  config.steps = steps;
  config.seed = 7;
  return config;
}

/// The steps at which a new key first appears in `keys` (a trace per new key).
std::vector<std::int64_t> first_occurrences(const std::vector<std::int64_t>& keys) {
  std::set<std::int64_t> seen;
  std::vector<std::int64_t> steps;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (seen.insert(keys[i]).second) steps.push_back(static_cast<std::int64_t>(i));
  return steps;
}

}  // namespace

TEST_CASE("ragged/modes: 10 traces without a signature, 1 with, 2 relaxed, 1 loop, one per bucket, 0 eager") {
  RaggedConfig config = small_config(300);
  RaggedResult result = run_ragged(config);
  REQUIRE(result.modes.size() == 6);
  CHECK_FALSE(result.cancelled);

  std::vector<std::int64_t> lengths, buckets;
  for (const auto& e : make_ragged_data(config)) {
    lengths.push_back(e.length);
    buckets.push_back(e.length <= 2 ? 2 : e.length <= 4 ? 4 : e.length <= 8 ? 8 : 10);
  }
  CHECK(std::set<std::int64_t>(lengths.begin(), lengths.end()).size() == 10);  // every X in 1..10 occurs

  CHECK(result.mode(RaggedMode::eager).trace_count() == 0);
  CHECK(result.mode(RaggedMode::function).trace_count() == 10);
  CHECK(result.mode(RaggedMode::function).traced_steps == first_occurrences(lengths));
  CHECK(result.mode(RaggedMode::signature).trace_count() == 1);
  CHECK(result.mode(RaggedMode::relaxed).trace_count() == 2);
  CHECK(result.mode(RaggedMode::relaxed).traced_steps == std::vector<std::int64_t>{0, first_occurrences(lengths)[1]});
  CHECK(result.mode(RaggedMode::loop).trace_count() == 1);
  CHECK(result.mode(RaggedMode::bucketed).trace_count() == 4);
  CHECK(result.mode(RaggedMode::bucketed).traced_steps == first_occurrences(buckets));
  CHECK(config.effective_buckets() == std::vector<std::int64_t>{2, 4, 8, 10});

  for (const auto& mode : result.modes) {
    INFO("mode ", std::string(mode_name(mode.mode)));
    CHECK(mode.steps == 300);
    CHECK(mode.step_us.size() == 300);
    CHECK(mode.loss.size() == 300);
    CHECK(std::all_of(mode.step_us.begin(), mode.step_us.end(), [](double us) { return us > 0; }));
    CHECK(mode.total_ms > 0);
    CHECK(mode.concrete_functions.size() == static_cast<std::size_t>(mode.trace_count()));
    for (const auto& f : mode.concrete_functions) {
      CHECK(f.optimized_nodes > 0);
      CHECK(f.optimized_nodes <= f.traced_nodes);
      CHECK(f.graph.find("adam_apply") != std::string::npos);
    }
  }
  // The relaxed function's second trace generalizes X; the signature's is generic from the start.
  CHECK(result.mode(RaggedMode::relaxed).retraces[1].signature.find("shape=(1, None, 20)") != std::string::npos);
  CHECK(result.mode(RaggedMode::signature).retraces[0].signature.find("shape=(None, None, 20)") != std::string::npos);
  CHECK(result.mode(RaggedMode::function).retraces[1].reason.find("x") != std::string::npos);
  // TF 2.1's warning (no limit on warnings by default): issued from the fifth trace in a window of calls.
  CHECK_FALSE(result.mode(RaggedMode::function).warnings.empty());
  CHECK(result.mode(RaggedMode::signature).warnings.empty());
}

TEST_CASE("ragged/losses: every mode gives the eager loss trajectory, bit for bit") {
  RaggedConfig config = small_config(400);
  RaggedResult result = run_ragged(config);
  const auto& eager = result.mode(RaggedMode::eager).loss;
  // The fused kernels (fused_matmul, fused_elementwise) run the members' own arithmetic in the same order as
  // the eager ops, and -inf padding leaves reduce_max exact, so every mode computes the same floats.
  for (const auto& mode : result.modes) {
    INFO("mode ", std::string(mode_name(mode.mode)));
    CHECK(mode.loss == eager);
  }
  double first = 0, last = 0;
  for (std::size_t i = 0; i < 100; ++i) {
    first += eager[i];
    last += eager[eager.size() - 100 + i];
  }
  CHECK(last < first);  // it learns: the mean loss of the last 100 steps is below that of the first 100
}

TEST_CASE("ragged/plan specialization off: generic graphs run dynamically, same losses and traces") {
  RaggedConfig config = small_config(120);
  config.modes = {RaggedMode::eager, RaggedMode::signature, RaggedMode::relaxed, RaggedMode::loop};
  RaggedResult on = run_ragged(config);
  config.specialize_plans = false;
  RaggedResult off = run_ragged(config);
  for (std::size_t m = 0; m < config.modes.size(); ++m) {
    INFO("mode ", std::string(mode_name(config.modes[m])));
    CHECK(off.modes[m].loss == on.modes[m].loss);
    CHECK(off.modes[m].traced_steps == on.modes[m].traced_steps);
  }
  CHECK(nlohmann::json::parse(to_json(off))["config"]["specialize_plans"] == false);
  CHECK(nlohmann::json::parse(to_json(on))["config"]["specialize_plans"] == true);
}

TEST_CASE("ragged/warm-up: untimed, dropped; the measured modes trace, learn and warn exactly as without it") {
  RaggedConfig config;  // the default: 1000 steps, seed 42, all six modes
  RaggedResult cold = run_ragged(config);
  config.warmup_steps = 100;
  std::vector<double> reported_warmup;
  std::int64_t reports = 0;
  RaggedResult warm = run_ragged(config, [&](const RaggedProgress& p) {
    reported_warmup.push_back(p.warmup_ms);
    reports += p.steps_total == config.steps ? 1 : 0;  // no report comes from the warm-up's shorter runs
    return true;
  }, 100);
  CHECK(cold.warmup_ms == 0);
  CHECK(warm.warmup_ms > 0);
  CHECK(reports == static_cast<std::int64_t>(reported_warmup.size()));
  CHECK(reports == 5 * 10 + 1);  // every 100 steps in five modes, once at the end for loop
  CHECK(std::all_of(reported_warmup.begin(), reported_warmup.end(), [&](double ms) { return ms == warm.warmup_ms; }));

  const std::vector<int> expected_traces = {0, 10, 1, 2, 1, 4};  // eager, function, signature, relaxed, loop, bucketed
  REQUIRE(warm.modes.size() == 6);
  for (std::size_t m = 0; m < warm.modes.size(); ++m) {
    const RaggedModeResult &with = warm.modes[m], &without = cold.modes[m];
    INFO("mode ", std::string(mode_name(with.mode)));
    CHECK(with.steps == 1000);
    CHECK(with.trace_count() == expected_traces[m]);
    CHECK(without.trace_count() == expected_traces[m]);
    CHECK(with.traced_steps == without.traced_steps);
    CHECK(with.warnings == without.warnings);  // the warm-up's own warnings are dropped
    CHECK(with.loss == without.loss);          // bit for bit: fresh models from the same weights
    CHECK(with.concrete_functions.size() == without.concrete_functions.size());
    if (!with.retraces.empty())  // the first trace creates the optimizer slots: TF traces that call again
      CHECK(with.retraces[0].reason ==
            "first call; traced again with variable creation forbidden (the first trace created 36 variables)");
  }
  auto doc = nlohmann::json::parse(to_json(warm));
  CHECK(doc["format"] == "tracelab.ragged/1");
  CHECK(doc["config"]["warmup_steps"] == 100);
  CHECK(doc["warmup_ms"].get<double>() == warm.warmup_ms);
}

TEST_CASE("ragged/warm-up: longer than the run, and for a single mode") {
  RaggedConfig config = small_config(20);
  config.modes = {RaggedMode::loop};
  config.warmup_steps = 50;  // more than the 20 examples: the warm-up cycles through them
  RaggedResult result = run_ragged(config);
  REQUIRE(result.modes.size() == 1);
  CHECK(result.warmup_ms > 0);
  CHECK(result.modes[0].steps == 20);
  CHECK(result.modes[0].trace_count() == 1);
  CHECK(result.modes[0].heap_check_step == 20);
}

TEST_CASE("ragged/optimizers and sizes: sgd and rmsprop, batch 3, other hidden widths") {
  for (const char* optimizer : {"sgd", "rmsprop"}) {
    RaggedConfig config = small_config(40);
    config.optimizer = optimizer;
    config.batch_size = 3;
    config.hidden_units = {8, 4};
    config.min_length = 2;
    config.max_length = 5;
    config.features = 6;
    RaggedResult result = run_ragged(config);
    const auto& eager = result.mode(RaggedMode::eager).loss;
    for (const auto& mode : result.modes) CHECK(mode.loss == eager);
    CHECK(result.mode(RaggedMode::signature).trace_count() == 1);
    CHECK(config.effective_buckets() == std::vector<std::int64_t>{2, 4, 5});
  }
}

TEST_CASE("ragged/progress: reported outside the timed steps; returning false stops the run") {
  RaggedConfig config = small_config(50);
  config.modes = {RaggedMode::function, RaggedMode::eager};
  std::vector<std::int64_t> seen;
  RaggedResult result = run_ragged(config, [&](const RaggedProgress& p) {
    seen.push_back(p.steps_done);
    CHECK(p.partial->step_us.size() == static_cast<std::size_t>(p.steps_done));
    return !(p.mode == RaggedMode::function && p.steps_done == 20);
  }, 10);
  CHECK(seen == std::vector<std::int64_t>{10, 20});
  CHECK(result.cancelled);
  REQUIRE(result.modes.size() == 1);
  CHECK(result.modes[0].steps == 20);
  CHECK(result.modes[0].loss.size() == 20);
}

TEST_CASE("ragged/json: config, one object per mode, per-step arrays; graphs on request") {
  RaggedConfig config = small_config(30);
  config.modes = {RaggedMode::signature, RaggedMode::loop};
  RaggedResult result = run_ragged(config);
  auto doc = nlohmann::json::parse(to_json(result));
  CHECK(doc["format"] == "tracelab.ragged/1");
  CHECK(doc["config"]["steps"] == 30);
  CHECK(doc["config"]["buckets"] == nlohmann::json({2, 4, 8, 10}));
  CHECK(doc["config"]["warmup_steps"] == 0);
  CHECK(doc["warmup_ms"] == 0);
  REQUIRE(doc["modes"].size() == 2);
  for (const auto& mode : doc["modes"]) {
    CHECK(mode["step_us"].size() == 30);
    CHECK(mode["loss"].size() == 30);
    CHECK(mode["trace_count"] == 1);
    CHECK(mode["traced_steps"] == nlohmann::json::array({0}));
    CHECK(mode["retraces"][0]["reason"].get<std::string>().starts_with("first call; traced again"));
    CHECK(mode["retraces"][0]["trace_us"].get<double>() > 0);
    CHECK_FALSE(mode["concrete_functions"][0].contains("graph"));
  }
  auto with_graphs = nlohmann::json::parse(to_json(result, true));
  const auto& loop_function = with_graphs["modes"][1]["concrete_functions"][0];
  CHECK(loop_function["graph"].get<std::string>().find("dataset_loop") != std::string::npos);
  CHECK(loop_function["graph_json"].is_object());
  std::string table = summary_table(result);
  CHECK(table.find("signature") != std::string::npos);
  CHECK(table.find("loop") != std::string::npos);
}

TEST_CASE("ragged/config: bad values are clear errors naming the field") {
  auto rejects = [](auto change, const char* message) {
    RaggedConfig config;
    change(config);
    CHECK_THROWS_WITH_AS(run_ragged(config), doctest::Contains(message), InvalidArgument);
  };
  rejects([](RaggedConfig& c) { c.steps = 0; }, "steps must be in [1, 10000000], got 0");
  rejects([](RaggedConfig& c) { c.min_length = 5; c.max_length = 2; }, "the X range is reversed");
  rejects([](RaggedConfig& c) { c.modes = {}; }, "modes is empty");
  rejects([](RaggedConfig& c) { c.modes = {RaggedMode::loop, RaggedMode::loop}; }, "'loop' is listed twice");
  rejects([](RaggedConfig& c) { c.optimizer = "adagrad"; }, "optimizer must be adam, sgd or rmsprop");
  rejects([](RaggedConfig& c) { c.buckets = {2, 4}; }, "the largest bucket (4) must be at least max_length (10)");
  rejects([](RaggedConfig& c) { c.buckets = {4, 2, 10}; }, "buckets must increase");
  rejects([](RaggedConfig& c) { c.learning_rate = std::nan(""); }, "learning_rate must be in (0, 10]");
  rejects([](RaggedConfig& c) { c.hidden_units = {}; }, "hidden_units is empty");
  rejects([](RaggedConfig& c) { c.features = -3; }, "features must be in [1, 4096], got -3");
  rejects([](RaggedConfig& c) { c.warmup_steps = -1; }, "ragged experiment: warmup_steps must be in [0, 100000], got -1");
  rejects([](RaggedConfig& c) { c.warmup_steps = 100001; }, "warmup_steps must be in [0, 100000], got 100001");
  CHECK_THROWS_WITH_AS(parse_modes("eager,graph"), doctest::Contains("unknown mode 'graph'"), InvalidArgument);
  CHECK(parse_modes("loop,eager") == std::vector<RaggedMode>{RaggedMode::loop, RaggedMode::eager});
}

TEST_CASE("ragged/data: the same seed gives the same examples and weights; another seed does not") {
  RaggedConfig a = small_config(20), b = small_config(20);
  CHECK(make_ragged_data(a)[5].x == make_ragged_data(b)[5].x);
  CHECK(initial_kernels(a) == initial_kernels(b));
  b.seed = 8;
  CHECK(make_ragged_data(a)[5].x != make_ragged_data(b)[5].x);
  CHECK(initial_kernels(a) != initial_kernels(b));
  // Golden values: the generator is bit-identical natively and in WASM, so the data is too.
  auto data = make_ragged_data(a);
  CHECK(data[0].length >= 1);
  CHECK(data[0].length <= 10);
  a.examples = 5;
  CHECK(make_ragged_data(a).size() == 5);
}

TEST_CASE("ragged/heap: the steady state keeps nothing (malloc's bytes in use at step 1000 == at the end, to the byte)") {
  RaggedConfig config = small_config(2500);
  config.examples = 200;
  config.modes = {RaggedMode::function, RaggedMode::signature, RaggedMode::loop};
  RaggedResult result = run_ragged(config);
  for (const auto& mode : result.modes) {
    INFO("mode ", std::string(mode_name(mode.mode)));
    CHECK(mode.heap_check_step == 1000);
    CHECK(mode.heap_bytes_at_end == mode.heap_bytes_at_check);
  }
}

TEST_CASE("ops/record_timestamp: eagerly at once, traced on every call, with a value; a dead log is an error") {
  TimestampLog log;
  std::int64_t before = TimestampLog::now();
  record_timestamp(log);
  REQUIRE(log.times().size() == 1);
  CHECK(log.times()[0] >= before);
  CHECK(std::isnan(log.values()[0]));
  auto f = tl::function([&](const Tensor& x) {
    Tensor y = x * 2.f;
    record_timestamp(log, reduce_sum(y));
    return y;
  });
  f(constant({1.f, 2.f}));
  f(constant({3.f, 4.f}));
  CHECK(f.tracing_count() == 1);
  REQUIRE(log.times().size() == 3);
  CHECK(log.values()[1] == 6.f);
  CHECK(log.values()[2] == 14.f);
  CHECK(log.times()[2] >= log.times()[1]);
  CHECK_THROWS_WITH_AS(record_timestamp(log, constant({1.f, 2.f})), doctest::Contains("must have one element"),
                       ShapeError);
  log.clear();
  CHECK(log.times().empty());

  std::optional<TimestampLog> short_lived(std::in_place);
  auto g = tl::function([&](const Tensor& x) {
    record_timestamp(*short_lived);
    return x + 1.f;
  });
  g(constant({1.f}));
  std::int64_t id = short_lived->id();
  short_lived.reset();
  std::string message = "TimestampLog " + std::to_string(id) + " no longer exists";
  CHECK_THROWS_WITH_AS(g(constant({2.f})), doctest::Contains(message.c_str()), InvalidArgument);
  TimestampLog again;
  CHECK(again.id() != id);
}

}  // namespace ragged_experiment_test
