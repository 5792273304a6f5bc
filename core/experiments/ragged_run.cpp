// The ragged experiment's runner: one fresh model per mode (same initial weights), the same examples in the same
// order, and for every step its wall time, its loss and whether it traced. Timing covers exactly what a user's
// training loop would wait for: the call (tracing included when it traces) and reading the loss; progress
// reports happen between timed steps. `loop` times its steps inside the graph with record_timestamp. An optional
// warm-up runs every mode's code before the first timed step (on models and functions that are then dropped).
#include <algorithm>
#include <chrono>
#include <limits>

#include "experiments/detail/ragged_model.h"
#include "tracelab/base/clock.h"
#include "tracelab/base/log.h"
#include "tracelab/data/dataset.h"
#include "tracelab/function/function.h"
#include "tracelab/nn/saved_model.h"
#include "tracelab/ops/io.h"
#include "tracelab/tensor/creation.h"

namespace tl::experiments {
namespace {

double micros(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

std::int64_t count_nodes(const graph::Graph& g) {
  std::int64_t count = static_cast<std::int64_t>(g.num_nodes());
  for (const graph::Node& node : g.nodes())
    for (const auto& sub : node.subgraphs) count += count_nodes(*sub);
  return count;
}

/// The examples as tensors, shared by every mode.
struct Data {
  std::vector<Tensor> x, y;
  std::vector<std::int64_t> length;

  explicit Data(const RaggedConfig& config) {
    for (RaggedExample& e : make_ragged_data(config)) {
      x.push_back(constant(e.x, {config.batch_size, e.length, config.features}));
      y.push_back(constant(e.y, {config.batch_size}));
      length.push_back(e.length);
    }
  }
  std::size_t index(std::int64_t step) const { return static_cast<std::size_t>(step) % x.size(); }
};

/// One mode's run: the result being filled, the step loop, progress and cancellation.
class ModeRun {
 public:
  ModeRun(const RaggedConfig& config, RaggedMode mode, std::size_t mode_index, const RaggedProgressFn& progress,
          std::int64_t progress_every, double warmup_ms)
      : config_(config),
        mode_index_(mode_index),
        progress_(progress),
        progress_every_(progress_every),
        warmup_ms_(warmup_ms) {
    result_.mode = mode;
    result_.step_us.reserve(static_cast<std::size_t>(config.steps));
    result_.loss.reserve(static_cast<std::size_t>(config.steps));
    result_.heap_check_step = std::min<std::int64_t>(1000, config.steps);
  }

  /// Runs `step(i)` (returns the loss) for every step, timing each; after it, `after(i)` (untimed) reads
  /// tracing records. Returns false when the progress callback cancelled.
  template <class Step, class After>
  bool run_steps(Step&& step, After&& after) {
    Clock::time_point start = Clock::now();
    for (std::int64_t i = 0; i < config_.steps; ++i) {
      Clock::time_point before = Clock::now();
      float loss = step(i);
      Clock::time_point done = Clock::now();
      result_.step_us.push_back(micros(before, done));
      result_.loss.push_back(loss);
      result_.steps = i + 1;
      after(i);
      if (i + 1 == result_.heap_check_step) result_.heap_bytes_at_check = heap_bytes();
      if (i + 1 == config_.steps) result_.heap_bytes_at_end = heap_bytes();
      if (!report(i + 1 == config_.steps, [&] { return micros(start, Clock::now()) / 1000; })) return false;
    }
    return true;
  }

  /// Calls the progress callback every progress_every steps and at the end; false when it asks to stop.
  /// `elapsed_ms()` is read only when a report is due (no clock read per step otherwise).
  template <class Elapsed>
  bool report(bool last, Elapsed&& elapsed_ms) {
    if (!progress_ || (!last && result_.steps % progress_every_ != 0)) return true;
    return progress_(RaggedProgress{result_.mode, mode_index_, result_.steps, config_.steps, elapsed_ms(), &result_,
                                    warmup_ms_});
  }

  /// Reads the record of a tl::function's last call (its call history keeps one): traced steps, retraces, warnings.
  template <class Fn>
  void read_record(const Fn& fn, std::int64_t step) {
    const CallRecord& record = fn.calls().back();
    if (record.traced) {
      result_.traced_steps.push_back(step);
      result_.retraces.push_back(RaggedRetrace{step, record.reason, record.trace_us,
                                               fn.concrete_functions()[record.concrete_index]->pretty_signature()});
    }
    if (!record.warning.empty()) result_.warnings.push_back(record.warning);
  }

  template <class Fn>
  void describe_functions(const Fn& fn) {
    for (const ConcreteFunction* f : fn.concrete_functions()) {
      RaggedConcrete c;
      c.signature = f->pretty_signature();
      c.traced_nodes = count_nodes(f->traced_graph());
      c.optimized_nodes = count_nodes(f->graph());
      c.passes = f->pass_reports();
      c.traced_graph = f->traced_graph().str();
      c.graph = f->graph().str();
      c.traced_graph_json = f->traced_graph().to_json();
      c.graph_json = f->graph().to_json();
      result_.concrete_functions.push_back(std::move(c));
    }
  }

  /// Total = the sum of the step times (the untimed bookkeeping between steps is not the mode's cost).
  RaggedModeResult finish() {
    double total_us = 0;
    for (double us : result_.step_us) total_us += us;
    result_.total_ms = total_us / 1000;
    return std::move(result_);
  }

  RaggedModeResult& result() noexcept { return result_; }
  const RaggedConfig& config() const noexcept { return config_; }

 private:
  const RaggedConfig& config_;
  std::size_t mode_index_;
  const RaggedProgressFn& progress_;
  std::int64_t progress_every_;
  double warmup_ms_;
  RaggedModeResult result_;
};

FunctionOptions function_options(const RaggedConfig& config, RaggedMode mode) {
  FunctionOptions options;
  options.name = "train_step";
  options.arg_names = {"x", "y"};
  options.optimize = config.optimize;
  options.specialize_plans = config.specialize_plans;
  options.max_retracing_warnings = config.max_retracing_warnings;
  options.share_retracing_count = false;  // every mode (and the warm-up) is a run of its own, with its own count
  options.call_history = 1;        // each step reads its call's record: traced, reason, trace time, warning
  options.record_timings = false;  // every step is timed here
  if (mode == RaggedMode::signature)
    options.input_signature = {TensorSpec({-1, -1, config.features}, float32, "x"), TensorSpec({-1}, float32, "y")};
  options.reduce_retracing = mode == RaggedMode::relaxed;
  return options;
}

/// eager: the step op by op.
bool run_eager(ModeRun& run, const Data& data) {
  detail::RaggedTrainer trainer(run.config());
  return run.run_steps([&](std::int64_t i) { return trainer.step(data.x[data.index(i)], data.y[data.index(i)]).item<float>(); },
                       [](std::int64_t) {});
}

/// function / signature / relaxed: one tl::function; bucketed pads x with -inf to its bucket first (timed:
/// padding is part of what this mode costs).
bool run_traced(ModeRun& run, const Data& data, RaggedMode mode) {
  detail::RaggedTrainer trainer(run.config());
  auto step = tl::function([&](const Tensor& x, const Tensor& y) { return trainer.step(x, y); },
                           function_options(run.config(), mode));
  std::vector<std::int64_t> buckets = run.config().effective_buckets();
  auto bucket_of = [&](std::int64_t length) {
    return *std::lower_bound(buckets.begin(), buckets.end(), length);
  };
  bool completed = run.run_steps(
      [&](std::int64_t i) {
        const Tensor& x = data.x[data.index(i)];
        if (mode != RaggedMode::bucketed) return step(x, data.y[data.index(i)]).item<float>();
        std::int64_t length = data.length[data.index(i)];
        Tensor padded = pad(x, {0, 0, 0, bucket_of(length) - length, 0, 0}, -std::numeric_limits<double>::infinity());
        return step(padded, data.y[data.index(i)]).item<float>();
      },
      [&](std::int64_t i) { run.read_record(step, i); });
  run.describe_functions(step);
  if (run.config().save_models && !step.calls().empty())
    run.result().saved_model =
        saved_model::to_bytes({{"train_step", *step.concrete_functions().at(step.calls().back().concrete_index)}});
  return completed;
}

/// loop: the whole loop over the dataset as one traced function (one dataset_loop node). Each iteration ends
/// with record_timestamp(log, loss), so step i's time is the difference of two in-graph timestamps (step 0's
/// starts at the host's call, so it includes the trace, like every mode's first step).
bool run_loop(ModeRun& run, const Data& data) {
  const RaggedConfig& config = run.config();
  detail::RaggedTrainer trainer(config);
  RaggedModeResult& result = run.result();
  auto factory = [&] {
    auto next = std::make_shared<std::int64_t>(0);
    return data::GeneratorFn([&, next]() -> std::optional<data::Element> {
      // Both heap readings inside the loop, at the same point of a step, so they see the same live state.
      if (*next == result.heap_check_step) result.heap_bytes_at_check = heap_bytes();
      if (*next == config.steps) {
        result.heap_bytes_at_end = heap_bytes();
        return std::nullopt;
      }
      std::size_t i = data.index((*next)++);
      return data::Element{data.x[i], data.y[i]};
    });
  };
  auto dataset = data::Dataset::from_generator(
      factory, {TensorSpec({config.batch_size, -1, config.features}), TensorSpec({config.batch_size})});
  TimestampLog log;
  log.reserve(static_cast<std::size_t>(config.steps));
  FunctionOptions options = function_options(config, RaggedMode::loop);
  options.name = "train";
  options.arg_names = {};
  auto train = tl::function([&] {
    data::for_each(dataset, [&](const data::Element& e) { record_timestamp(log, trainer.step(e[0], e[1])); });
  }, options);
  std::int64_t start = TimestampLog::now();
  train();
  const CallRecord& record = train.calls().back();
  const auto& times = log.times();
  for (std::size_t i = 0; i < times.size(); ++i) {
    result.step_us.push_back(static_cast<double>(times[i] - (i == 0 ? start : times[i - 1])) / 1000.0);
    result.loss.push_back(log.values()[i]);
  }
  result.steps = static_cast<std::int64_t>(times.size());
  result.traced_steps.push_back(0);
  result.retraces.push_back(RaggedRetrace{0, record.reason, record.trace_us,
                                          train.concrete_functions()[0]->pretty_signature()});
  if (!record.warning.empty()) result.warnings.push_back(record.warning);
  run.describe_functions(train);
  return run.report(true, [&] { return static_cast<double>(TimestampLog::now() - start) / 1e6; });
}

/// Runs `mode` for the steps of `run`'s config; false when the progress callback cancelled.
bool run_mode(ModeRun& run, const Data& data, RaggedMode mode) {
  if (mode == RaggedMode::eager) return run_eager(run, data);
  if (mode == RaggedMode::loop) return run_loop(run, data);
  return run_traced(run, data, mode);
}

/// The warm-up: every selected mode for config.warmup_steps steps, on the same data, in rounds of at most
/// kWarmupRound steps, each round with its own throwaway model and tl::functions and without progress reports.
/// Starting afresh each round makes the warm-up trace as often as it steps (ten traces per round for `function`):
/// V8 moves a WebAssembly function to optimized code once it has run enough, and tracing code that ran only
/// for a mode's first ten steps would still be baseline code when the measured traces run. Its results
/// (warnings included) are dropped; returns its wall time in ms.
constexpr std::int64_t kWarmupRound = 100;

double warm_up(const RaggedConfig& config, const Data& data) {
  const RaggedProgressFn no_progress;
  Clock::time_point start = Clock::now();
  for (std::size_t m = 0; m < config.modes.size(); ++m) {
    for (std::int64_t done = 0; done < config.warmup_steps; done += kWarmupRound) {
      RaggedConfig warm = config;
      warm.steps = std::min(kWarmupRound, config.warmup_steps - done);
      ModeRun run(warm, warm.modes[m], m, no_progress, 1, 0);
      run_mode(run, data, warm.modes[m]);
    }
  }
  return micros(start, Clock::now()) / 1000;
}

}  // namespace

RaggedResult run_ragged(const RaggedConfig& config, const RaggedProgressFn& progress, std::int64_t progress_every) {
  config.validate();
  TL_CHECK(progress_every >= 1, InvalidArgument, "ragged experiment: progress_every must be >= 1, got ",
           progress_every);
  ScopedLogCapture warnings;  // retracing warnings are in each mode's result, in order; nothing goes to stderr
  RaggedResult out;
  out.config = config;
  Data data(config);
  if (config.warmup_steps > 0) out.warmup_ms = warm_up(config, data);
  for (std::size_t m = 0; m < config.modes.size() && !out.cancelled; ++m) {
    ModeRun run(config, config.modes[m], m, progress, progress_every, out.warmup_ms);
    out.cancelled = !run_mode(run, data, config.modes[m]);
    out.modes.push_back(run.finish());
  }
  return out;
}

}  // namespace tl::experiments
