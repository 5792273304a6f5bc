// The ragged experiment against its limit: the same model's forward, backward and Adam written by hand with
// Eigen (bench/ragged_limit.h: no framework, no allocation per step), run in the same process on the same
// examples from the same initial weights, then every mode of the runner. Prints each mode's steady-state median
// step time (steps that did not trace) as a ratio to the limit's, the trace times, and the heap check. The
// limit runs again right before each mode and each ratio uses that run: the machine's speed drifts. --warmup N
// warms each mode up (N steps on a throwaway model, RaggedConfig::warmup_steps) right before it is measured.
// --phases N also prints the median of every N steps, per mode and for the limit: a long run's later phases of
// training can be slower than its start (e.g. denormal floats; docs/performance.md, "Denormals").
// --limit-steps N runs the limit for N steps instead of --steps (bench/count_instructions.sh keeps it fixed, so
// that the limit's work cancels out of the difference between two runs of different lengths).
// --rounds N measures every (limit, mode) pair N times in turn, in one process: each figure is then the median
// over the rounds, each ratio the median of the rounds' own ratios, printed with their range (min-max); the mean
// trace time is the median of the rounds' means, the longest trace the longest of all rounds. The heap figures and
// the loss check are the first round's.
//   build/native/bench/ragged_bench [--steps N] [--examples N] [--warmup N] [--specialize-plans 0|1]
//                                   [--modes eager,function,...] [--phases N] [--limit-steps N] [--rounds N]
//                                   [--json FILE]
//   node build/wasm/bench/ragged_bench.js --steps 20000
//   build/native/bench/ragged_bench --steps 120000 --modes signature --phases 10000
//   build/native/bench/ragged_bench --rounds 5 --warmup 1000      # the Targets table's figures (performance.md)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <tracelab/tracelab.h>

#include "ragged_limit.h"

namespace {

using namespace tl::experiments;
using Clock = tl::Clock;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

struct LimitRun {
  std::vector<double> step_us;
  std::vector<float> loss;
};

using StepFn = float (*)(tracelab_bench::RaggedLimit&, const RaggedExample&);

/// Called through a volatile function pointer (the compiler cannot inline it back into the loop): V8 may never
/// optimize a hot loop that sits in one long-running function, while it does optimize a function called often.
float limit_step(tracelab_bench::RaggedLimit& limit, const RaggedExample& e) {
  return limit.step(e.x.data(), static_cast<int>(e.length), e.y[0]);
}

LimitRun run_limit(const RaggedConfig& config, const std::vector<RaggedExample>& data, StepFn step_fn,
                   std::int64_t steps) {
  StepFn volatile step = step_fn;
  std::vector<int> widths{static_cast<int>(config.features)};
  for (auto units : config.hidden_units) widths.push_back(static_cast<int>(units));
  widths.push_back(1);
  tracelab_bench::RaggedLimit limit(initial_kernels(config), widths,
                                    {.learning_rate = static_cast<float>(config.learning_rate)});
  LimitRun run;
  run.step_us.reserve(static_cast<std::size_t>(steps));
  run.loss.reserve(static_cast<std::size_t>(steps));
  for (std::int64_t i = 0; i < steps; ++i) {
    const RaggedExample& e = data[static_cast<std::size_t>(i) % data.size()];
    auto before = Clock::now();
    float loss = step(limit, e);
    run.step_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - before).count());
    run.loss.push_back(loss);
  }
  return run;
}

/// The median of every `every` consecutive steps' times (the last group may be shorter).
std::vector<double> phase_medians(const std::vector<double>& step_us, std::int64_t every) {
  std::vector<double> medians;
  const auto size = static_cast<std::int64_t>(step_us.size());
  for (std::int64_t from = 0; from < size; from += every)
    medians.push_back(median(std::vector<double>(step_us.begin() + from, step_us.begin() + std::min(size, from + every))));
  return medians;
}

void print_phases(const char* name, const std::vector<double>& medians) {
  std::printf("%-10s", name);
  for (double us : medians) std::printf(" %6.2f", us);
  std::printf("\n");
}

/// The largest |a - b| / max(|b|, 1e-3) over the first `count` steps.
double max_relative_difference(const std::vector<float>& a, const std::vector<float>& b, std::size_t count) {
  double worst = 0;
  for (std::size_t i = 0; i < std::min({count, a.size(), b.size()}); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]) / std::max(std::abs(static_cast<double>(b[i])), 1e-3));
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  RaggedConfig config;
  config.steps = 20000;
  config.examples = 1000;
  std::string json_path;
  std::int64_t phases = 0;  // steps per phase median; 0: none
  std::int64_t limit_steps = 0;  // the limit's steps per run; 0: --steps
  std::int64_t rounds = 1;  // how many times each (limit, mode) pair is measured
  auto usage = [] {
    std::fprintf(stderr, "usage: ragged_bench [--steps N] [--examples N] [--warmup N] [--specialize-plans 0|1] "
                         "[--modes eager,function,...] [--phases N] [--limit-steps N] [--rounds N] [--json FILE]\n");
    return 2;
  };
  try {
    for (int i = 1; i < argc; i += 2) {
      if (i + 1 >= argc) return usage();
      std::string flag = argv[i], value = argv[i + 1];
      if (flag == "--steps") config.steps = std::stoll(value);
      else if (flag == "--examples") config.examples = std::stoll(value);
      else if (flag == "--warmup") config.warmup_steps = std::stoll(value);
      else if (flag == "--json") json_path = value;
      else if (flag == "--phases") {
        phases = std::stoll(value);
        if (phases <= 0) return usage();
      }
      else if (flag == "--limit-steps") {
        limit_steps = std::stoll(value);
        if (limit_steps <= 0) return usage();
      }
      else if (flag == "--rounds") {
        rounds = std::stoll(value);
        if (rounds <= 0) return usage();
      }
      else if (flag == "--modes") config.modes = parse_modes(value);
      else if (flag == "--specialize-plans" && (value == "0" || value == "1")) config.specialize_plans = value == "1";
      else return usage();
    }
    config.examples = std::min(config.examples, config.steps);
    config.validate();
    if (limit_steps == 0) limit_steps = config.steps;
  } catch (const std::exception& e) {  // a number that does not parse, an unknown mode, a value out of range
    std::fprintf(stderr, "ragged_bench: %s\n", e.what());
    return usage();
  }
#if defined(__EMSCRIPTEN__)
  const char* build = "wasm";
#else
  const char* build = "native";
#endif
  std::printf("ragged_bench (%s): %lld steps per mode%s, %lld distinct examples cycled, X in [1, 10], Adam(0.01)%s\n\n",
              build, static_cast<long long>(config.steps), rounds > 1 ? " and round" : "",
              static_cast<long long>(config.examples),
              config.specialize_plans ? "" : ", generic graphs not specialized per shape");

  std::vector<RaggedExample> data = make_ragged_data(config);
  LimitRun limit = run_limit(config, data, &limit_step, limit_steps);
  RaggedResult result;  // the first round's runs
  result.config = config;
  const std::size_t mode_count = config.modes.size();
  // Per mode, one figure per round: the limit's median right before the mode, the mode's medians (all steps, and
  // the steps that did not trace).
  std::vector<std::vector<double>> limit_us(mode_count), median_us(mode_count), steady_us(mode_count);
  std::vector<std::vector<double>> trace_mean_us(mode_count), trace_max_us(mode_count);  // 0 without a trace
  // --phases, the first round: the limit's (run right before) and the mode's
  std::vector<std::vector<double>> limit_phases, mode_phases;
  for (std::int64_t round = 0; round < rounds; ++round) {
    for (std::size_t m = 0; m < mode_count; ++m) {
      LimitRun before = run_limit(config, data, &limit_step, limit_steps);
      limit_us[m].push_back(median(before.step_us));
      RaggedConfig one = config;
      one.modes = {config.modes[m]};
      RaggedResult run = run_ragged(one);
      const RaggedModeResult& measured = run.modes.front();
      median_us[m].push_back(measured.median_us());
      steady_us[m].push_back(measured.steady_median_us());
      double sum = 0, longest = 0;
      for (const auto& t : measured.retraces) {
        sum += t.trace_us;
        longest = std::max(longest, t.trace_us);
      }
      trace_mean_us[m].push_back(measured.retraces.empty() ? 0 : sum / static_cast<double>(measured.retraces.size()));
      trace_max_us[m].push_back(longest);
      result.warmup_ms += run.warmup_ms;
      if (round > 0) continue;
      if (phases > 0) {
        limit_phases.push_back(phase_medians(before.step_us, phases));
        mode_phases.push_back(phase_medians(measured.step_us, phases));
      }
      result.modes.push_back(std::move(run.modes.front()));
    }
  }
  std::vector<double> limit_medians;  // per mode, the median over the rounds of the limit's runs before it
  for (const auto& us : limit_us) limit_medians.push_back(median(us));
  double limit_median = median(limit_medians);

  if (rounds > 1)
    std::printf("%lld rounds: medians over the rounds; \"x limit\" is the median of the rounds' own ratios, "
                "\"x range\" their min-max\n", static_cast<long long>(rounds));
  std::printf("%-10s %12s %12s %10s %10s%s %8s %12s %12s %16s\n", "mode", "median us", "steady us", "limit us",
              "x limit", rounds > 1 ? "     x range" : "", "traces", "trace us avg", "trace us max",
              "heap@1000 -> end");
  nlohmann::json modes = nlohmann::json::array();
  for (std::size_t m = 0; m < result.modes.size(); ++m) {
    const RaggedModeResult& mode = result.modes[m];
    std::vector<double> ratios;
    for (std::size_t r = 0; r < steady_us[m].size(); ++r) ratios.push_back(steady_us[m][r] / limit_us[m][r]);
    const auto [fewest, most] = std::minmax_element(ratios.begin(), ratios.end());
    double steady = median(steady_us[m]), ratio = median(ratios), average = median(trace_mean_us[m]);
    double worst = *std::max_element(trace_max_us[m].begin(), trace_max_us[m].end());
    std::string heap = std::to_string(mode.heap_bytes_at_check / 1024) + "K -> " +
                       std::to_string(mode.heap_bytes_at_end / 1024) + "K";
    char range[32] = "";
    if (rounds > 1) std::snprintf(range, sizeof range, " %5.2f-%5.2f", *fewest, *most);
    std::printf("%-10s %12.2f %12.2f %10.2f %10.2f%s %8d %12.0f %12.0f %16s\n", mode_name(mode.mode),
                median(median_us[m]), steady, limit_medians[m], ratio, range, mode.trace_count(), average, worst,
                heap.c_str());
    modes.push_back({{"mode", mode_name(mode.mode)},
                     {"median_us", median(median_us[m])},
                     {"steady_median_us", steady},
                     {"limit_median_us", limit_medians[m]},
                     {"ratio_to_limit", ratio},
                     {"steady_median_us_rounds", steady_us[m]},
                     {"limit_median_us_rounds", limit_us[m]},
                     {"ratio_to_limit_rounds", ratios},
                     {"total_ms", mode.total_ms},
                     {"trace_count", mode.trace_count()},
                     {"trace_us_mean", average},
                     {"trace_us_max", worst},
                     {"trace_us_mean_rounds", trace_mean_us[m]},
                     {"heap_bytes_at_check", mode.heap_bytes_at_check},
                     {"heap_bytes_at_end", mode.heap_bytes_at_end},
                     {"max_relative_loss_difference_to_limit_first_100",
                      max_relative_difference(mode.loss, limit.loss, 100)}});
    if (phases > 0) {
      modes.back()["phase_median_us"] = mode_phases[m];
      modes.back()["limit_phase_median_us"] = limit_phases[m];
    }
  }
  std::printf("%-10s %12.2f   (median of the limit's runs before each mode%s)\n", "limit", limit_median,
              rounds > 1 ? ", over the rounds" : "");
  if (config.warmup_steps > 0)
    std::printf("warm-up: %lld steps before each mode, %.1f ms in all (untimed)\n",
                static_cast<long long>(config.warmup_steps), result.warmup_ms);
  if (phases > 0) {
    std::printf("\nmedian us per %lld steps (the limit: its run right before the mode%s)\n",
                static_cast<long long>(phases), rounds > 1 ? "; the first round" : "");
    for (std::size_t m = 0; m < result.modes.size(); ++m) {
      print_phases(mode_name(result.modes[m].mode), mode_phases[m]);
      print_phases("  limit", limit_phases[m]);
    }
  }
  auto ran = [&](RaggedMode m) {
    return std::any_of(result.modes.begin(), result.modes.end(), [m](const auto& r) { return r.mode == m; });
  };
  if (ran(RaggedMode::eager))
    std::printf("\nloss check: eager vs limit over the first 100 steps, max relative difference %.2e\n",
                max_relative_difference(result.mode(RaggedMode::eager).loss, limit.loss, 100));
  if (ran(RaggedMode::loop) && ran(RaggedMode::signature) && ran(RaggedMode::function)) {
    auto steady = [&](RaggedMode m) {  // over the rounds
      auto at = std::find(config.modes.begin(), config.modes.end(), m) - config.modes.begin();
      return median(steady_us[static_cast<std::size_t>(at)]);
    };
    double loop = steady(RaggedMode::loop), signature = steady(RaggedMode::signature);
    double function = steady(RaggedMode::function);
    std::printf("loop vs per-step calls (steady medians): loop %.2f us, signature %.2f us (%.2fx), function %.2f us "
                "(%.2fx)\n", loop, signature, signature / loop, function, function / loop);
  }

  if (!json_path.empty()) {
    nlohmann::json doc = {{"build", build},
                          {"steps", config.steps},
                          {"examples", config.examples},
                          {"warmup_steps", config.warmup_steps},
                          {"rounds", rounds},
                          {"warmup_ms", result.warmup_ms},
                          {"limit_median_us", limit_median},
                          {"phase_steps", phases},
                          {"modes", modes}};
    std::ofstream(json_path) << doc.dump(1) << "\n";
    std::printf("wrote %s\n", json_path.c_str());
  }
  return 0;
}
