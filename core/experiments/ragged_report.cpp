// Reporting the ragged experiment: per-mode statistics (median, p99, steady-state median), the CLI's table and
// the JSON document (schema in docs/performance.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tracelab/base/error.h"
#include "tracelab/experiments/ragged.h"

namespace tl::experiments {
namespace {

/// The q-quantile (nearest rank) of `values`; 0 for none.
double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::size_t k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  k = std::clamp<std::size_t>(k, 1, values.size()) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

/// A JSON number, or null for NaN / infinity (JSON has neither).
nlohmann::json number(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

nlohmann::json config_json(const RaggedConfig& c) {
  nlohmann::json modes = nlohmann::json::array();
  for (RaggedMode m : c.modes) modes.push_back(mode_name(m));
  return {{"modes", modes},
          {"steps", c.steps},
          {"seed", c.seed},
          {"min_length", c.min_length},
          {"max_length", c.max_length},
          {"features", c.features},
          {"batch_size", c.batch_size},
          {"hidden_units", c.hidden_units},
          {"learning_rate", c.learning_rate},
          {"optimizer", c.optimizer},
          {"buckets", c.effective_buckets()},
          {"examples", c.examples},
          {"max_retracing_warnings", c.max_retracing_warnings},
          {"warmup_steps", c.warmup_steps},
          {"specialize_plans", c.specialize_plans}};
}

nlohmann::json concrete_json(const RaggedConcrete& c, bool include_graphs) {
  nlohmann::json passes = nlohmann::json::array();
  for (const auto& p : c.passes) passes.push_back({{"pass", p.pass}, {"before", p.nodes_before}, {"after", p.nodes_after}});
  nlohmann::json out = {{"signature", c.signature},
                        {"traced_nodes", c.traced_nodes},
                        {"optimized_nodes", c.optimized_nodes},
                        {"passes", passes}};
  if (include_graphs) {
    out["traced_graph"] = c.traced_graph;
    out["graph"] = c.graph;
    out["traced_graph_json"] = nlohmann::json::parse(c.traced_graph_json);
    out["graph_json"] = nlohmann::json::parse(c.graph_json);
  }
  return out;
}

nlohmann::json mode_json(const RaggedModeResult& r, bool include_graphs) {
  nlohmann::json retraces = nlohmann::json::array(), functions = nlohmann::json::array(), loss = nlohmann::json::array();
  for (const auto& t : r.retraces)
    retraces.push_back({{"step", t.step}, {"reason", t.reason}, {"trace_us", t.trace_us}, {"signature", t.signature}});
  for (const auto& f : r.concrete_functions) functions.push_back(concrete_json(f, include_graphs));
  for (float l : r.loss) loss.push_back(number(l));
  return {{"mode", mode_name(r.mode)},
          {"steps", r.steps},
          {"total_ms", r.total_ms},
          {"median_us", r.median_us()},
          {"p99_us", r.p99_us()},
          {"steady_median_us", r.steady_median_us()},
          {"trace_count", r.trace_count()},
          {"traced_steps", r.traced_steps},
          {"retraces", retraces},
          {"warnings", r.warnings},
          {"concrete_functions", functions},
          {"heap", {{"check_step", r.heap_check_step}, {"bytes_at_check", r.heap_bytes_at_check},
                    {"bytes_at_end", r.heap_bytes_at_end}}},
          {"step_us", r.step_us},
          {"loss", loss}};
}

}  // namespace

double RaggedModeResult::median_us() const { return quantile(step_us, 0.5); }
double RaggedModeResult::p99_us() const { return quantile(step_us, 0.99); }

double RaggedModeResult::steady_median_us() const {
  std::vector<double> steady;
  steady.reserve(step_us.size());
  std::size_t next_trace = 0;
  for (std::size_t i = 0; i < step_us.size(); ++i) {
    bool traced = next_trace < traced_steps.size() && traced_steps[next_trace] == static_cast<std::int64_t>(i);
    if (traced) ++next_trace;
    else steady.push_back(step_us[i]);
  }
  return quantile(std::move(steady), 0.5);
}

std::string summary_table(const RaggedResult& result) {
  const RaggedModeResult* eager = nullptr;
  for (const auto& r : result.modes)
    if (r.mode == RaggedMode::eager) eager = &r;
  char line[256];
  std::string out;
  std::snprintf(line, sizeof line, "%-10s %10s %10s %10s %10s %10s %7s %9s\n", "mode", "total ms", "steps/s",
                "median us", "p99 us", "steady us", "traces", "vs eager");
  out += line;
  for (const auto& r : result.modes) {
    double per_second = r.total_ms > 0 ? static_cast<double>(r.steps) / (r.total_ms / 1000) : 0;
    std::string speedup = eager != nullptr && r.total_ms > 0 && eager->steps == r.steps
                              ? fixed(eager->total_ms / r.total_ms, 2) + "x"
                              : "-";
    std::snprintf(line, sizeof line, "%-10s %10s %10s %10s %10s %10s %7d %9s\n", mode_name(r.mode),
                  fixed(r.total_ms, 1).c_str(), fixed(per_second, 0).c_str(), fixed(r.median_us(), 1).c_str(),
                  fixed(r.p99_us(), 1).c_str(), fixed(r.steady_median_us(), 1).c_str(), r.trace_count(),
                  speedup.c_str());
    out += line;
  }
  if (result.cancelled) out += "(cancelled: the last mode stopped early)\n";
  return out;
}

std::string to_json(const RaggedResult& result, bool include_graphs) {
  nlohmann::json modes = nlohmann::json::array();
  for (const auto& r : result.modes) modes.push_back(mode_json(r, include_graphs));
  nlohmann::json doc = {{"format", "tracelab.ragged/1"},
                        {"config", config_json(result.config)},
                        {"cancelled", result.cancelled},
                        {"warmup_ms", result.warmup_ms},
                        {"modes", modes}};
  return doc.dump(1);
}

}  // namespace tl::experiments
