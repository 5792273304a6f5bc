// The ragged-input experiment from the command line: the article's toy model trained in six modes, a table of
// the timings, the retracing warnings, and optionally every step as JSON. It checks the lesson's deterministic
// claims — each mode's trace count (0 / 10 / 1 / 2 / 1 / 4 on the default run) and every mode's losses equal,
// bit for bit — and exits 1 when one fails (timings are printed, never checked). Built natively and to WASM:
//   build/native/examples/ragged_model --steps 1000
//   node build/wasm/examples/ragged_model.js --modes function,signature --steps 1000 --json out.json
#include <algorithm>
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
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
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
    else throw tl::InvalidArgument(tl::detail::cat("unknown option '", flag, "' (see --help)"));
  }
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

/// The lesson's checks on a finished run: each mode traced as often as its rule says, and every mode's loss
/// equals the first mode's at every step, bit for bit (one model, one data stream, the same kernels). Prints a
/// line per check; false when one fails.
bool check_run(const tl::experiments::RaggedResult& result) {
  bool ok = true;
  std::cout << "\n";
  SeenShapes seen = seen_shapes(result.config);
  for (const auto& mode : result.modes) {
    int expected = expected_traces(mode.mode, seen);
    bool holds = mode.trace_count() == expected;
    std::cout << "check: " << tl::experiments::mode_name(mode.mode) << " traced " << mode.trace_count()
              << " time(s), expected " << expected << ": " << (holds ? "ok" : "FAILED") << "\n";
    ok = ok && holds;
  }
  const auto& first = result.modes.front();
  for (std::size_t m = 1; m < result.modes.size(); ++m) {
    const auto& mode = result.modes[m];
    bool same = mode.loss.size() == first.loss.size() &&
                std::memcmp(mode.loss.data(), first.loss.data(), first.loss.size() * sizeof(float)) == 0;
    std::cout << "check: " << tl::experiments::mode_name(mode.mode) << "'s " << mode.loss.size()
              << " losses equal " << tl::experiments::mode_name(first.mode) << "'s, bit for bit: "
              << (same ? "ok" : "FAILED") << "\n";
    ok = ok && same;
  }
  return ok;
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
