// The ragged experiment and the log sink for JavaScript. The runner is the core's (the CLI and the benchmark run
// the same one); progress reaches a JS callback with the steps since the last report as typed-array copies and
// the retraces since then as objects, and the callback returning false stops the run.
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "adapters.h"
#include "handles.h"

namespace tl::wasm {
namespace {

using experiments::RaggedConfig;

std::int64_t int_field(const val& js, const char* name, std::int64_t fallback) {
  val v = js[name];
  if (v.isUndefined() || v.isNull()) return fallback;
  TL_CHECK(v.typeOf().as<std::string>() == "number" && is_integer(v), InvalidArgument, "ragged experiment: ", name,
           " must be an integer, got ", v.typeOf().as<std::string>() == "number" ? "a fraction" : "a non-number");
  return static_cast<std::int64_t>(v.as<double>());
}

RaggedConfig to_config(const val& js) {
  RaggedConfig c;
  if (js.isUndefined() || js.isNull()) return c;
  val modes = js["modes"];
  if (!modes.isUndefined()) {
    c.modes.clear();
    TL_CHECK(is_array(modes), InvalidArgument, "ragged experiment: modes must be an array of mode names");
    for (unsigned i = 0, n = length_of(modes); i < n; ++i) c.modes.push_back(experiments::parse_mode(modes[i].as<std::string>()));
  }
  c.steps = int_field(js, "steps", c.steps);
  c.seed = static_cast<std::uint64_t>(int_field(js, "seed", static_cast<std::int64_t>(c.seed)));
  c.min_length = int_field(js, "minLength", c.min_length);
  c.max_length = int_field(js, "maxLength", c.max_length);
  c.features = int_field(js, "features", c.features);
  c.batch_size = int_field(js, "batchSize", c.batch_size);
  c.examples = int_field(js, "examples", c.examples);
  c.max_retracing_warnings = static_cast<int>(int_field(js, "maxRetracingWarnings", c.max_retracing_warnings));
  c.warmup_steps = int_field(js, "warmupSteps", c.warmup_steps);
  if (!js["saveModels"].isUndefined()) c.save_models = js["saveModels"].as<bool>();
  if (!js["hiddenUnits"].isUndefined()) c.hidden_units = to_ints(js["hiddenUnits"], "ragged experiment: hiddenUnits");
  if (!js["buckets"].isUndefined()) c.buckets = to_ints(js["buckets"], "ragged experiment: buckets");
  if (!js["learningRate"].isUndefined()) {
    TL_CHECK(js["learningRate"].typeOf().as<std::string>() == "number", InvalidArgument,
             "ragged experiment: learningRate must be a number");
    c.learning_rate = js["learningRate"].as<double>();
  }
  if (!js["optimizer"].isUndefined()) c.optimizer = js["optimizer"].as<std::string>();
  if (!js["optimize"].isUndefined() && !js["optimize"].as<bool>()) c.optimize = {false, false, false, false, false, false};
  if (!js["specializePlans"].isUndefined()) {
    TL_CHECK(js["specializePlans"].typeOf().as<std::string>() == "boolean", InvalidArgument,
             "ragged experiment: specializePlans must be a boolean, got a ", js["specializePlans"].typeOf().as<std::string>());
    c.specialize_plans = js["specializePlans"].as<bool>();
  }
  c.validate();
  return c;
}

template <class T>
val slice_of(const std::vector<T>& v, std::size_t from, const char* array_type) {
  std::size_t n = v.size() > from ? v.size() - from : 0;
  return val::global(array_type).new_(emscripten::typed_memory_view(n, v.data() + from));
}

/// The retraces from index `from` on: [{step, traceUs, signature, reason}].
val retraces_from(const std::vector<experiments::RaggedRetrace>& retraces, std::size_t from) {
  val out = val::array();
  for (std::size_t i = from; i < retraces.size(); ++i) {
    val t = val::object();
    t.set("step", static_cast<double>(retraces[i].step));
    t.set("traceUs", retraces[i].trace_us);
    t.set("signature", retraces[i].signature);
    t.set("reason", retraces[i].reason);
    out.call<void>("push", t);
  }
  return out;
}

/// How much of the current mode earlier progress reports covered.
struct Reported {
  std::size_t mode = static_cast<std::size_t>(-1);  ///< the mode index of the last report (none yet)
  std::size_t steps = 0, traced_steps = 0, retraces = 0;
};

/// The JS report for `p`: the steps, traced steps and retraces since the previous report of the same mode.
val progress_info(const experiments::RaggedProgress& p, Reported& seen) {
  if (p.mode_index != seen.mode) seen = Reported{p.mode_index};  // a new mode: its steps start at 0
  const auto& r = *p.partial;
  val info = val::object();
  info.set("mode", std::string(experiments::mode_name(p.mode)));
  info.set("modeIndex", static_cast<double>(p.mode_index));
  info.set("stepsDone", static_cast<double>(p.steps_done));
  info.set("stepsTotal", static_cast<double>(p.steps_total));
  info.set("elapsedMs", p.elapsed_ms);
  info.set("warmupMs", p.warmup_ms);
  info.set("firstStep", static_cast<double>(seen.steps));
  info.set("stepUs", slice_of(r.step_us, seen.steps, "Float64Array"));
  info.set("loss", slice_of(r.loss, seen.steps, "Float32Array"));
  val traced = val::array();
  for (std::size_t i = seen.traced_steps; i < r.traced_steps.size(); ++i)
    traced.call<void>("push", val(static_cast<double>(r.traced_steps[i])));
  info.set("tracedSteps", traced);
  info.set("retraces", retraces_from(r.retraces, seen.retraces));
  seen.steps = r.step_us.size();
  seen.traced_steps = r.traced_steps.size();
  seen.retraces = r.retraces.size();
  return info;
}

}  // namespace

/// Runs the experiment; `progress(report)` gets {mode, modeIndex, stepsDone, stepsTotal, elapsedMs, warmupMs,
/// firstStep, stepUs, loss, tracedSteps, retraces} every `every` steps (stepUs, loss, tracedSteps, retraces: those
/// since the previous report) and may return false to stop. Returns {json: the JSON text of
/// tl::experiments::to_json (graphs included when asked), savedModels: one Uint8Array per mode (empty unless
/// config.saveModels and the mode traced a step)}.
val ragged_run(const val& config_js, const val& progress, double every, bool include_graphs) {
  return guarded([&] {
    RaggedConfig config = to_config(config_js);
    TL_CHECK(every >= 1, InvalidArgument, "ragged experiment: progressEvery must be >= 1");
    Reported seen;
    experiments::RaggedProgressFn report;
    if (!progress.isUndefined() && !progress.isNull())
      report = [&](const experiments::RaggedProgress& p) { return !progress(progress_info(p, seen)).isFalse(); };
    auto result = experiments::run_ragged(config, report, static_cast<std::int64_t>(every));
    val out = val::object();
    out.set("json", experiments::to_json(result, include_graphs));
    val saved = val::array();
    for (const auto& mode : result.modes)
      saved.call<void>("push", val::global("Uint8Array").new_(emscripten::typed_memory_view(mode.saved_model.size(),
                                                                                           mode.saved_model.data())));
    out.set("savedModels", saved);
    return out;
  });
}

/// The examples run_ragged trains on: [{length, x: Float32Array, y: Float32Array}] (for benchmarks that train the
/// same model elsewhere, e.g. TF.js, on the same data).
val ragged_data(const val& config_js) {
  return guarded([&] {
    val out = val::array();
    for (const auto& e : experiments::make_ragged_data(to_config(config_js))) {
      val o = val::object();
      o.set("length", static_cast<double>(e.length));
      o.set("x", val::global("Float32Array").new_(emscripten::typed_memory_view(e.x.size(), e.x.data())));
      o.set("y", val::global("Float32Array").new_(emscripten::typed_memory_view(e.y.size(), e.y.data())));
      out.call<void>("push", o);
    }
    return out;
  });
}

/// The model's initial kernels (one Float32Array per Dense layer, (in, out) row-major); biases start at zero.
val ragged_kernels(const val& config_js) {
  return guarded([&] {
    val out = val::array();
    for (const auto& k : experiments::initial_kernels(to_config(config_js)))
      out.call<void>("push", val::global("Float32Array").new_(emscripten::typed_memory_view(k.size(), k.data())));
    return out;
  });
}

/// Sends every log message (tl.print output, retracing warnings) to `sink(level, text)`; null restores the
/// default (prints to stdout, warnings to stderr: the console).
void set_log_sink(const val& sink) {
  if (sink.isUndefined() || sink.isNull()) {
    tl::set_log_sink(nullptr);
    return;
  }
  tl::set_log_sink([sink](LogLevel level, std::string_view text) {
    sink(std::string(log_level_name(level)), std::string(text));
  });
}

}  // namespace tl::wasm
