// The ragged-input experiment: a toy model whose input length varies per example, trained in six modes with a
// time, a loss and a trace flag for every step — the playground's headline. The CLI (examples/ragged_model),
// the benchmark (bench/ragged_bench), the JS bridge and the page all run this one runner. docs/performance.md.
//
// Model (as in the TF 2.1 article it reproduces): x (batch, X, features) float32, X uniform in
// [min_length, max_length] per example, values U[0, 1); target y (batch,) U[0, 1).
// net = reduce_max(x, axis 1, keepdims); Dense+relu for each hidden width; Dense(1); mean squared error; Adam.
//
//   tl::experiments::RaggedConfig config;  config.steps = 1000;
//   auto result = tl::experiments::run_ragged(config);
//   std::cout << tl::experiments::summary_table(result);   // mode, total, steps/s, median/p99 µs, traces, speedup
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tracelab/graph/passes.h"

namespace tl::experiments {

/// How the train step runs.
enum class RaggedMode {
  eager,      ///< op by op, with a GradientTape
  function,   ///< tl::function without a signature: one graph per distinct X (retraces)
  signature,  ///< tl::function with input signature (-1, -1, features), (-1): one generic graph
  relaxed,    ///< tl::function with reduce_retracing: the second distinct shape traces a generic graph
  loop,       ///< the whole loop over the dataset traced into one function (one dataset_loop node)
  bucketed,   ///< x padded with -inf up to the next bucket size: one specialized graph per bucket
};

/// "eager", "function", ...
const char* mode_name(RaggedMode mode) noexcept;
/// The mode of that name; InvalidArgument listing the valid names otherwise.
RaggedMode parse_mode(std::string_view name);
/// All six, in the order above.
std::vector<RaggedMode> all_modes();
/// "eager,function" → the modes; InvalidArgument for an unknown or repeated name.
std::vector<RaggedMode> parse_modes(std::string_view comma_separated);

/// Everything a run depends on. validate() names the first bad field.
struct RaggedConfig {
  std::vector<RaggedMode> modes = all_modes();  ///< the modes to run, in order, each at most once
  std::int64_t steps = 1000;           ///< training steps per mode (1 .. 10,000,000)
  std::uint64_t seed = 42;             ///< data and initial weights (bit-identical natively and in WASM)
  std::int64_t min_length = 1;         ///< X range, inclusive
  std::int64_t max_length = 10;        ///< X range's upper end, inclusive (min_length .. 4096)
  std::int64_t features = 20;          ///< the last dim of x
  std::int64_t batch_size = 1;         ///< examples per step (one X per step)
  std::vector<std::int64_t> hidden_units = {10, 20, 40, 20, 10};  ///< one Dense+relu per entry (1 to 32 of them)
  double learning_rate = 0.01;         ///< the optimizer's constant rate, in (0, 10]
  std::string optimizer = "adam";      ///< adam | sgd | rmsprop
  /// Bucket sizes for `bucketed`, increasing, the last >= max_length. Empty: 2, 4, 8, ... below max_length,
  /// then max_length (2, 4, 8, 10 for 1..10).
  std::vector<std::int64_t> buckets = {};
  /// Distinct examples generated; the steps cycle through them. 0: one per step (the article's stream).
  std::int64_t examples = 0;
  /// Frequent-retracing warnings per function: -1 = no limit (TF 2.1, as in the article), 2 = current TF.
  int max_retracing_warnings = -1;
  /// Which optimization passes every traced graph gets.
  graph::OptimizeOptions optimize{};
  /// Whether generic graphs (signature, relaxed, loop) are planned per input shape when they run (Tracelab's
  /// executor; FunctionOptions::specialize_plans). false runs them as TensorFlow 2.1 ran its generic graphs —
  /// every shape rule on every step, fresh buffers — the source article's slower long run.
  bool specialize_plans = true;
  /// Steps of warm-up (0 .. 100,000; 0: none): before the measured modes, every selected mode runs this many
  /// steps on throwaway models with their own tl::functions, on the same data, in rounds of 100 steps that each
  /// start from a fresh model and function (so the warm-up traces too: ten traces a round for `function`). In
  /// WASM this lets V8 move the hot code, the tracing code included, from its baseline compiler to its optimizing
  /// one (background compile jobs that otherwise compete with the timed steps and traces, docs/performance.md)
  /// before anything is timed. Only its wall time is kept
  /// (RaggedResult::warmup_ms); the measured modes start from fresh models and functions, so each of their traces
  /// still happens and is timed.
  std::int64_t warmup_steps = 0;
  /// Keep each traced mode's trained step as a saved model (RaggedModeResult::saved_model), e.g. for the page's
  /// download. Off by default: saving serializes the graph and the variables after the mode's last step.
  bool save_models = false;

  /// InvalidArgument naming the field and the accepted range.
  void validate() const;
  /// The buckets actually used (the default filled in).
  std::vector<std::int64_t> effective_buckets() const;
};

/// One trace of a mode's function.
struct RaggedRetrace {
  std::int64_t step = 0;     ///< the step whose call traced
  std::string reason;        ///< why (tl::CallRecord::reason)
  double trace_us = 0;       ///< tracing + optimization + planning
  std::string signature;     ///< the new concrete function's pretty signature
};

/// One concrete function of a mode.
struct RaggedConcrete {
  std::string signature;                    ///< TensorFlow's pretty-printed signature
  std::int64_t traced_nodes = 0;            ///< nodes as traced (sub-graphs included)
  std::int64_t optimized_nodes = 0;         ///< nodes after the passes (sub-graphs included)
  std::vector<graph::PassReport> passes;    ///< node counts before/after each pass
  std::string traced_graph;                 ///< text form before optimization
  std::string graph;                        ///< text form after optimization (what runs)
  std::string graph_json;                   ///< the optimized graph as JSON (graph::to_json)
  std::string traced_graph_json;            ///< the traced graph as JSON
};

/// What one mode did.
struct RaggedModeResult {
  RaggedMode mode = RaggedMode::eager;      ///< which mode this is
  std::int64_t steps = 0;                   ///< steps completed (fewer than asked when cancelled)
  double total_ms = 0;                      ///< wall time of all steps, tracing included
  std::vector<double> step_us;              ///< one time per step (loop: taken inside the graph)
  std::vector<float> loss;                  ///< one loss per step
  std::vector<std::int64_t> traced_steps;   ///< steps whose call traced
  std::vector<RaggedRetrace> retraces;      ///< one per trace, in order
  std::vector<std::string> warnings;        ///< frequent-retracing warnings, as logged
  std::vector<RaggedConcrete> concrete_functions;  ///< the mode's concrete functions, in tracing order
  /// With RaggedConfig::save_models: the concrete function of the mode's last step as a tl::saved_model file, named
  /// "train_step", with the model's and the optimizer's variables as the steps left them. Empty otherwise, for
  /// eager (no graph) and for loop (its dataset_loop node holds a C++ pipeline, which a file cannot hold).
  std::vector<std::uint8_t> saved_model;
  /// Bytes in use on the heap (heap_bytes()) after step heap_check_step (1000, or the last step of a shorter
  /// run) and after the last step: equal means the mode's steady state keeps nothing it allocates, to the byte.
  std::int64_t heap_check_step = 0;
  std::size_t heap_bytes_at_check = 0;  ///< heap_bytes() after step heap_check_step
  std::size_t heap_bytes_at_end = 0;    ///< heap_bytes() after the last step

  /// How many times the mode's function traced (0 for eager).
  int trace_count() const noexcept { return static_cast<int>(retraces.size()); }
  /// The median step time over all steps, in µs.
  double median_us() const;
  /// The 99th-percentile step time over all steps, in µs.
  double p99_us() const;
  /// The median step time over the steps that did not trace ("steady state"), in µs.
  double steady_median_us() const;
};

/// What run_ragged returns: the configuration it ran and one result per mode, in the order run.
struct RaggedResult {
  RaggedConfig config;                  ///< the configuration of the run
  std::vector<RaggedModeResult> modes;  ///< one per mode run, in config.modes order
  bool cancelled = false;               ///< the progress callback stopped the run; the last mode is partial
  double warmup_ms = 0;  ///< wall time of the warm-up (config.warmup_steps), 0 without one
  /// The mode's result; InvalidArgument when the run did not include it.
  const RaggedModeResult& mode(RaggedMode m) const;
};

/// Reported while a mode runs (every `progress_every` steps and when it ends), outside the timed region.
struct RaggedProgress {
  RaggedMode mode;                      ///< the mode running
  std::size_t mode_index;               ///< position in config.modes
  std::int64_t steps_done;              ///< steps of this mode completed
  std::int64_t steps_total;             ///< config.steps
  double elapsed_ms;                    ///< wall time of this mode so far
  const RaggedModeResult* partial;      ///< step_us, loss, traced_steps, retraces so far
  double warmup_ms;                     ///< wall time of the warm-up before the modes (0 without one)
};
/// Return false to stop the run (the current mode ends with the steps done so far).
using RaggedProgressFn = std::function<bool(const RaggedProgress&)>;

/// Generates the data, warms up when config.warmup_steps > 0 (no progress reports during it), then trains a
/// fresh model (same initial weights) in each mode. The `loop` mode runs as one call, so it reports progress and
/// checks for cancellation only when done. Retracing warnings are
/// collected into each mode's result instead of the log sink.
RaggedResult run_ragged(const RaggedConfig& config, const RaggedProgressFn& progress = {},
                        std::int64_t progress_every = 100);

/// The table the CLI prints: mode, total, steps/s, median and p99 step µs, steady median, traces, speedup.
std::string summary_table(const RaggedResult& result);
/// The result as JSON (schema in docs/performance.md); graphs (text and JSON) only with include_graphs.
std::string to_json(const RaggedResult& result, bool include_graphs = false);

/// One example the runner trains on: x (batch, X, features) and y (batch,), row-major floats.
struct RaggedExample {
  std::int64_t length = 0;  ///< X, the example's length
  std::vector<float> x;     ///< batch_size * X * features values in [0, 1)
  std::vector<float> y;     ///< batch_size targets in [0, 1)
};
/// The examples the runner trains on, for benchmarks that need the same ones: config.examples of them (one per
/// step when 0), drawn from config.seed. Validates the config first (InvalidArgument).
std::vector<RaggedExample> make_ragged_data(const RaggedConfig& config);
/// The bytes malloc has handed out and not taken back: glibc's mallinfo2 (uordblks + hblkhd) natively, dlmalloc's
/// mallinfo in WASM, ASan's allocator count under the sanitizers; 0 where none of these exists. See
/// RaggedModeResult::heap_bytes_at_check.
std::size_t heap_bytes() noexcept;
/// The initial kernels of the model (one per Dense layer, (in, out) row-major), as every mode starts with them.
std::vector<std::vector<float>> initial_kernels(const RaggedConfig& config);

}  // namespace tl::experiments
