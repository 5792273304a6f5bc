// The ragged-input experiment from the command line: the article's toy model trained in six modes, a table of
// the timings, the retracing warnings, and optionally every step as JSON. It checks the lesson's deterministic
// claims — each mode's trace count (0 / 10 / 1 / 2 / 1 / 4 on the default run) and every mode's losses equal,
// bit for bit — and exits 1 when one fails (a default run's timings are printed, never checked).
// --long-run is the article's 20000-step comparison: function, signature and loop, once with generic graphs
// planned per shape (Tracelab's default) and once without (as TF 2.1 ran them), beside the article's figures. It
// checks the trace counts and losses of both runs, the losses equal across them, and — a timing check, with a
// margin — that without plans signature's steady step is clearly slower than function's and function overtakes it
// within the run, while with plans the two are close. Built natively and to WASM:
//   build/native/examples/ragged_model --steps 1000
//   node build/wasm/examples/ragged_model.js --modes function,signature --steps 1000 --json out.json
//   build/native/examples/ragged_model --long-run
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <tracelab/tracelab.h>

namespace {

using tl::experiments::RaggedConfig;

constexpr const char* kUsage = R"(usage: ragged_model [options]
  --modes LIST        comma-separated: eager,function,signature,relaxed,loop,bucketed (default: all)
  --steps N           training steps per mode (default 1000)
  --seed S            data and initial weights (default 42)
  --min-length N      smallest X (default 1)
  --max-length N      largest X (default 10)
  --features N        the last dim of x (default 20)
  --batch-size N      examples per step (default 1)
  --hidden LIST       hidden Dense widths (default 10,20,40,20,10)
  --learning-rate R   (default 0.01)
  --optimizer NAME    adam | sgd | rmsprop (default adam)
  --buckets LIST      bucket sizes for bucketed (default 2,4,8,... then max-length)
  --examples N        distinct examples, cycled (default 0: a fresh one per step)
  --max-warnings N    retracing warnings per function, -1 = no limit as TF 2.1 (default -1)
  --warmup N          first run every mode N steps on throwaway models (a fresh one every 100 steps, so
                      tracing warms up too), untimed (default 0; 0..100000)
  --no-optimize       run the traced graphs without the optimization passes
  --no-plan-specialization
                      run generic graphs (signature, relaxed, loop) as TF 2.1 did: every shape rule on every
                      step, fresh buffers (default: planned once per input shape)
  --long-run          the article's long run: function, signature and loop, with and without plan
                      specialization, their totals beside the article's 11.8 s / 13.4 s / 8.01 s and the step
                      from which function overtakes signature (default --steps 20000 --warmup 1000; not with
                      --modes, --no-plan-specialization, --json or --graphs)
  --json FILE         write the whole result (every step) as JSON
  --graphs            include every concrete function's graph (text and JSON) in the JSON
  --quiet             print only the table
  -h, --help          this text
)";

/// `text` read whole by `read` (std::stoll, std::stod); InvalidArgument naming the flag otherwise.
template <class Read>
auto parse_whole(std::string_view flag, const std::string& text, const char* expected, Read read) {
  std::size_t used = 0;
  decltype(read(text, &used)) value{};
  try {
    value = read(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw tl::InvalidArgument(tl::detail::cat(flag, ": expected ", expected, ", got '", text, "'"));
  return value;
}

std::int64_t parse_int(std::string_view flag, const std::string& text) {
  return parse_whole(flag, text, "an integer", [](const std::string& t, std::size_t* used) { return std::stoll(t, used); });
}

double parse_real(std::string_view flag, const std::string& text) {
  return parse_whole(flag, text, "a number", [](const std::string& t, std::size_t* used) { return std::stod(t, used); });
}

std::vector<std::int64_t> parse_list(std::string_view flag, const std::string& text) {
  std::vector<std::int64_t> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(parse_int(flag, item));
  return out;
}

/// "12.3 ms".
std::string format_ms(double ms) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << ms << " ms";
  return out.str();
}

struct Options {
  RaggedConfig config;
  std::string json_path;
  bool graphs = false;
  bool quiet = false;
  bool long_run = false;
};

/// The flags --long-run sets itself or cannot honour; InvalidArgument naming the first one given.
void apply_long_run(Options& o, const std::set<std::string>& given) {
  for (const char* flag : {"--modes", "--no-plan-specialization", "--json", "--graphs"})
    if (given.count(flag))
      throw tl::InvalidArgument(tl::detail::cat(flag, ": not with --long-run (it runs function, signature and loop, "
                                                      "with and without plan specialization, and prints a table)"));
  o.config.modes = {tl::experiments::RaggedMode::function, tl::experiments::RaggedMode::signature,
                    tl::experiments::RaggedMode::loop};
  if (!given.count("--steps")) o.config.steps = 20000;
  if (!given.count("--warmup")) o.config.warmup_steps = 1000;
}

Options parse(int argc, char** argv) {
  Options o;
  std::set<std::string> given;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    given.insert(flag);
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw tl::InvalidArgument(tl::detail::cat(flag, ": needs a value"));
      return argv[++i];
    };
    if (flag == "-h" || flag == "--help") { std::cout << kUsage; std::exit(0); }
    else if (flag == "--modes") o.config.modes = tl::experiments::parse_modes(value());
    else if (flag == "--steps") o.config.steps = parse_int(flag, value());
    else if (flag == "--seed") o.config.seed = static_cast<std::uint64_t>(parse_int(flag, value()));
    else if (flag == "--min-length") o.config.min_length = parse_int(flag, value());
    else if (flag == "--max-length") o.config.max_length = parse_int(flag, value());
    else if (flag == "--features") o.config.features = parse_int(flag, value());
    else if (flag == "--batch-size") o.config.batch_size = parse_int(flag, value());
    else if (flag == "--hidden") o.config.hidden_units = parse_list(flag, value());
    else if (flag == "--learning-rate") o.config.learning_rate = parse_real(flag, value());
    else if (flag == "--optimizer") o.config.optimizer = value();
    else if (flag == "--buckets") o.config.buckets = parse_list(flag, value());
    else if (flag == "--examples") o.config.examples = parse_int(flag, value());
    else if (flag == "--max-warnings") o.config.max_retracing_warnings = static_cast<int>(parse_int(flag, value()));
    else if (flag == "--warmup") o.config.warmup_steps = parse_int(flag, value());
    else if (flag == "--no-optimize") o.config.optimize = {false, false, false, false, false, false};
    else if (flag == "--no-plan-specialization") o.config.specialize_plans = false;
    else if (flag == "--json") o.json_path = value();
    else if (flag == "--graphs") o.graphs = true;
    else if (flag == "--quiet") o.quiet = true;
    else if (flag == "--long-run") o.long_run = true;
    else throw tl::InvalidArgument(tl::detail::cat("unknown option '", flag, "' (see --help)"));
  }
  if (o.long_run) apply_long_run(o, given);
  o.config.validate();
  return o;
}

/// Per mode that traced: the traced steps and the retracing warnings.
void print_traces(const tl::experiments::RaggedResult& result) {
  for (const auto& mode : result.modes) {
    if (mode.retraces.empty()) continue;
    std::cout << "\n" << tl::experiments::mode_name(mode.mode) << ": " << mode.trace_count() << " trace(s) at steps";
    for (auto step : mode.traced_steps) std::cout << ' ' << step;
    std::cout << "\n";
    for (const auto& warning : mode.warnings) std::cout << "  WARNING: " << warning << "\n";
  }
}

/// The distinct lengths X and buckets the run's steps saw (the steps cycle through the generated examples).
struct SeenShapes {
  int lengths = 0, buckets = 0;
};

SeenShapes seen_shapes(const RaggedConfig& config) {
  std::vector<tl::experiments::RaggedExample> data = tl::experiments::make_ragged_data(config);
  std::vector<std::int64_t> bucket_sizes = config.effective_buckets();
  std::set<std::int64_t> lengths, buckets;
  for (std::int64_t step = 0; step < config.steps; ++step) {
    std::int64_t length = data[static_cast<std::size_t>(step) % data.size()].length;
    lengths.insert(length);
    buckets.insert(*std::lower_bound(bucket_sizes.begin(), bucket_sizes.end(), length));
  }
  return {static_cast<int>(lengths.size()), static_cast<int>(buckets.size())};
}

/// The traces a mode must make: eager none; `function` one per distinct length X; `signature` and `loop` one;
/// `relaxed` one for the first shape and one relaxed to (batch, None, features) at the first new length; `bucketed`
/// one per bucket the lengths fall into.
int expected_traces(tl::experiments::RaggedMode mode, const SeenShapes& seen) {
  using tl::experiments::RaggedMode;
  switch (mode) {
    case RaggedMode::eager: return 0;
    case RaggedMode::function: return seen.lengths;
    case RaggedMode::signature: return 1;
    case RaggedMode::relaxed: return std::min(2, seen.lengths);
    case RaggedMode::loop: return 1;
    case RaggedMode::bucketed: return seen.buckets;
  }
  return -1;
}

/// Whether two modes' losses are the same, step for step, bit for bit.
bool same_losses(const tl::experiments::RaggedModeResult& a, const tl::experiments::RaggedModeResult& b) {
  return a.loss.size() == b.loss.size() && std::memcmp(a.loss.data(), b.loss.data(), a.loss.size() * sizeof(float)) == 0;
}

/// The lesson's checks on a finished run: each mode traced as often as its rule says, and every mode's loss
/// equals the first mode's at every step, bit for bit (one model, one data stream, the same kernels). Prints a
/// line per check, each after `label`; false when one fails.
bool check_run(const tl::experiments::RaggedResult& result, std::string_view label = "") {
  bool ok = true;
  SeenShapes seen = seen_shapes(result.config);
  for (const auto& mode : result.modes) {
    int expected = expected_traces(mode.mode, seen);
    bool holds = mode.trace_count() == expected;
    std::cout << "check: " << label << tl::experiments::mode_name(mode.mode) << " traced " << mode.trace_count()
              << " time(s), expected " << expected << ": " << (holds ? "ok" : "FAILED") << "\n";
    ok = ok && holds;
  }
  const auto& first = result.modes.front();
  for (std::size_t m = 1; m < result.modes.size(); ++m) {
    const auto& mode = result.modes[m];
    std::cout << "check: " << label << tl::experiments::mode_name(mode.mode) << "'s " << mode.loss.size()
              << " losses equal " << tl::experiments::mode_name(first.mode) << "'s, bit for bit: "
              << (same_losses(mode, first) ? "ok" : "FAILED") << "\n";
    ok = ok && same_losses(mode, first);
  }
  return ok;
}

// ---- --long-run: the article's 20000-step comparison ----

/// The article's long run (TF 2.1, 20000 steps, the wall times of its `%%time` cells).
struct ArticleRow {
  tl::experiments::RaggedMode mode;
  double wall_s;
};
constexpr ArticleRow kArticle[] = {{tl::experiments::RaggedMode::function, 11.8},
                                   {tl::experiments::RaggedMode::signature, 13.4},
                                   {tl::experiments::RaggedMode::loop, 8.01}};

/// The first step from which `ahead`'s running total of step times stays below `behind`'s; -1 when it is not below
/// at the last step. (The page's long-run cell computes it the same way.)
std::int64_t crossover_step(const std::vector<double>& ahead, const std::vector<double>& behind) {
  std::size_t steps = std::min(ahead.size(), behind.size());
  double ahead_total = 0, behind_total = 0;
  std::int64_t last_behind = -1;
  for (std::size_t s = 0; s < steps; ++s) {
    ahead_total += ahead[s] / 1000;
    behind_total += behind[s] / 1000;
    if (ahead_total >= behind_total) last_behind = static_cast<std::int64_t>(s);
  }
  return last_behind + 1 < static_cast<std::int64_t>(steps) ? last_behind + 1 : -1;
}

/// snprintf of one or two numbers, as a string.
std::string printf_string(const char* format, double a, double b = 0) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, a, b);
  return buffer;
}

/// A cell of the long-run table: total and steady median, "   113.9 ms   4.7 us/step".
std::string total_cell(const tl::experiments::RaggedModeResult& mode) {
  return printf_string("%8.1f ms %5.1f us/step", mode.total_ms, mode.steady_median_us());
}

/// Function, signature and loop beside the article's: totals (traces included), steady step, the ratios the
/// article's claims rest on, and the step from which function's running total stays below signature's.
void print_long_run(const tl::experiments::RaggedResult& planned, const tl::experiments::RaggedResult& unplanned) {
  using tl::experiments::RaggedMode;
  const auto& c = planned.config;
  std::cout << "\nlong run: " << c.steps << " steps per mode (the article's 20000), after " << c.warmup_steps
            << " untimed warm-up steps per mode; totals are wall time, traces included\n\n";
  auto row = [](const std::string& name, const std::string& article, const std::string& a, const std::string& b) {
    std::cout << name << std::string(name.size() < 28 ? 28 - name.size() : 1, ' ') << article
              << std::string(article.size() < 18 ? 18 - article.size() : 1, ' ') << a
              << std::string(a.size() < 28 ? 28 - a.size() : 1, ' ') << b << "\n";
  };
  row("mode", "TF 2.1 (article)", "plans per shape (default)", "no plans (as TF 2.1)");
  for (const ArticleRow& article : kArticle)
    row(tl::experiments::mode_name(article.mode), printf_string("%6.2f s", article.wall_s),
        total_cell(planned.mode(article.mode)), total_cell(unplanned.mode(article.mode)));
  auto ratio = [](const tl::experiments::RaggedResult& r, RaggedMode m) {
    return printf_string("%8.2fx", r.mode(m).total_ms / r.mode(RaggedMode::function).total_ms);
  };
  row("signature / function", printf_string("%6.2fx", 13.4 / 11.8), ratio(planned, RaggedMode::signature),
      ratio(unplanned, RaggedMode::signature));
  row("loop / function", printf_string("%6.2fx", 8.01 / 11.8), ratio(planned, RaggedMode::loop),
      ratio(unplanned, RaggedMode::loop));
  auto crossover = [](const tl::experiments::RaggedResult& r) {
    std::int64_t step = crossover_step(r.mode(RaggedMode::function).step_us, r.mode(RaggedMode::signature).step_us);
    return step < 0 ? std::string("   never") : printf_string("%8.0f", static_cast<double>(step));
  };
  row("function ahead of signature", "not given", crossover(planned), crossover(unplanned));
  std::cout << "(the article's figures are the wall times of its %%time cells; the last row is the step from which\n"
               " function's running total of step times stays below signature's)\n";
}

/// The long run's deterministic checks: both runs' trace counts and losses (check_run), and the losses equal with
/// and without plans, bit for bit (plans change how a graph runs, never what it computes).
bool check_long_run(const tl::experiments::RaggedResult& planned, const tl::experiments::RaggedResult& unplanned) {
  bool ok = check_run(planned, "[plans per shape] ");
  ok = check_run(unplanned, "[no plans] ") && ok;
  for (std::size_t m = 0; m < planned.modes.size(); ++m) {
    bool same = same_losses(planned.modes[m], unplanned.modes[m]);
    std::cout << "check: " << tl::experiments::mode_name(planned.modes[m].mode) << "'s " << planned.modes[m].loss.size()
              << " losses with plans equal those without, bit for bit: " << (same ? "ok" : "FAILED") << "\n";
    ok = ok && same;
  }
  return ok;
}

/// The long run's timing checks, each with a margin well inside what this machine measures (a busy machine can
/// still fail them): without plans signature's steady step is at least 1.5x function's (measured 1.9-2.5x natively
/// and in WASM, 1.8x under the sanitizers) and function's running total stays below signature's from some step of
/// the run on — the article's effect; with plans signature's steady step is within 1.2x of function's (measured
/// 0.96-1.06x).
bool check_long_run_timing(const tl::experiments::RaggedResult& planned, const tl::experiments::RaggedResult& unplanned) {
  using tl::experiments::RaggedMode;
  auto steady_ratio = [](const tl::experiments::RaggedResult& r) {
    return r.mode(RaggedMode::signature).steady_median_us() / r.mode(RaggedMode::function).steady_median_us();
  };
  double without = steady_ratio(unplanned), with = steady_ratio(planned);
  std::int64_t step = crossover_step(unplanned.mode(RaggedMode::function).step_us,
                                     unplanned.mode(RaggedMode::signature).step_us);
  bool slower = without >= 1.5 && step >= 0, close = with <= 1.2;
  std::cout << "timing check: [no plans] signature's steady step is " << printf_string("%.2fx", without)
            << " function's (needs >= 1.5x) and function is ahead from "
            << (step < 0 ? std::string("no step of the run") : "step " + std::to_string(step))
            << ": " << (slower ? "ok" : "FAILED") << "\n"
            << "timing check: [plans per shape] signature's steady step is " << printf_string("%.2fx", with)
            << " function's (needs <= 1.2x): " << (close ? "ok" : "FAILED") << "\n";
  return slower && close;
}

/// --long-run: both runs, the table, the checks. False when a check fails.
bool long_run(const Options& options) {
  RaggedConfig planned_config = options.config, unplanned_config = options.config;
  unplanned_config.specialize_plans = false;
  auto progress = [&](const tl::experiments::RaggedProgress& p) {
    if (!options.quiet && p.steps_done == p.steps_total)
      std::cerr << "  " << tl::experiments::mode_name(p.mode) << ": " << p.steps_done << " steps done\n";
    return true;
  };
  auto planned = tl::experiments::run_ragged(planned_config, progress, 1000);
  auto unplanned = tl::experiments::run_ragged(unplanned_config, progress, 1000);
  if (!options.quiet)
    std::cout << "generic graphs planned per shape (the default):\n" << tl::experiments::summary_table(planned)
              << "\ngeneric graphs not planned (--no-plan-specialization, as TF 2.1 ran them):\n"
              << tl::experiments::summary_table(unplanned);
  print_long_run(planned, unplanned);
  std::cout << "\n";
  bool ok = check_long_run(planned, unplanned);
  bool timed = check_long_run_timing(planned, unplanned);
  if (!ok) std::cout << "SOME CHECKS FAILED\n";
  if (!timed) std::cout << "A TIMING CHECK FAILED (timings on a busy machine vary: run it again on an idle one)\n";
  return ok && timed;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse(argc, argv);
  } catch (const tl::Error& e) {
    std::cerr << "ragged_model: " << e.what() << "\n\n" << kUsage;
    return 2;
  }
  try {
    tl::ScopedLogCapture quiet;  // warnings are printed from the result below, in order per mode
    if (options.long_run) return long_run(options) ? 0 : 1;
    const RaggedConfig& c = options.config;
    if (!options.quiet)
      std::cout << "ragged experiment: " << c.steps << " steps per mode, X in [" << c.min_length << ", "
                << c.max_length << "], x (" << c.batch_size << ", X, " << c.features << "), seed " << c.seed
                << ", " << c.optimizer << "(" << c.learning_rate << ")\n\n";
    auto result = tl::experiments::run_ragged(c, [&](const tl::experiments::RaggedProgress& p) {
      if (!options.quiet && p.steps_done == p.steps_total)
        std::cerr << "  " << tl::experiments::mode_name(p.mode) << ": " << p.steps_done << " steps done\n";
      return true;
    }, 1000);
    if (!options.quiet && c.warmup_steps > 0)
      std::cout << "warm-up: " << c.warmup_steps << " steps per mode in " << format_ms(result.warmup_ms)
                << " (not in the table)\n\n";
    std::cout << tl::experiments::summary_table(result);
    if (!options.quiet) print_traces(result);
    if (!options.json_path.empty()) {
      std::ofstream out(options.json_path);
      out << tl::experiments::to_json(result, options.graphs) << "\n";
      if (!out) throw tl::InvalidArgument(tl::detail::cat("cannot write ", options.json_path));
      if (!options.quiet) std::cout << "\nwrote " << options.json_path << "\n";
    }
    std::cout << "\n";
    if (!check_run(result)) {
      std::cout << "SOME CHECKS FAILED\n";
      return 1;
    }
  } catch (const tl::Error& e) {
    std::cerr << "ragged_model: " << e.kind() << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
