#include "tracelab/function/retracing.h"

#include <algorithm>
#include <map>

namespace tl {
namespace {

/// True when `a` and `b` have the same structure: arity, kinds, dtypes and ranks, equal plain values.
bool same_structure(const TraceKey& a, const TraceKey& b) {
  if (a.size() != b.size() || a.structure().text != b.structure().text) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const ArgKey &x = a.args()[i], &y = b.args()[i];
    if (x.index() != y.index()) return false;
    if (const auto* spec = std::get_if<TensorSpec>(&x)) {
      if (!spec->most_specific_common(std::get<TensorSpec>(y))) return false;
    } else if (!same_arg_key(x, y)) {
      return false;
    }
  }
  return true;
}

std::string arg_label(std::size_t i, const std::vector<std::string>& names) {
  std::string label = "arg " + std::to_string(i);
  return i < names.size() && !names[i].empty() ? label + " (" + names[i] + ")" : label;
}

/// The differences between one argument of a cached key and of the call, as phrases.
void describe_arg(const ArgKey& cached, const ArgKey& call, const std::string& label, std::vector<std::string>& out) {
  if (cached.index() != call.index()) {
    out.push_back(label + ": was a " + arg_key_kind(cached) + ", now a " + arg_key_kind(call));
    return;
  }
  if (const auto* was = std::get_if<TensorSpec>(&cached)) {
    const auto& now = std::get<TensorSpec>(call);
    if (was->dtype() != now.dtype()) {
      out.push_back(label + ": dtype changed " + std::string(dtype_name(was->dtype())) + " -> " +
                    std::string(dtype_name(now.dtype())));
    } else if (was->shape().rank() != now.shape().rank()) {
      out.push_back(label + ": shape changed " + was->shape().str() + " -> " + now.shape().str());
    } else {
      for (int d = 0; d < now.shape().rank(); ++d) {
        auto a = was->shape()[static_cast<std::size_t>(d)], b = now.shape()[static_cast<std::size_t>(d)];
        if (a >= 0 && a != b)
          out.push_back(label + ": dim " + std::to_string(d) + " changed " + std::to_string(a) + " -> " +
                        std::to_string(b));
      }
    }
  } else if (std::holds_alternative<VariableKey>(cached)) {
    if (!same_arg_key(cached, call)) out.push_back(label + ": a different Variable (" + arg_key_str(cached) + " -> " +
                                         arg_key_str(call) + ")");
  } else if (!same_arg_key(cached, call)) {
    out.push_back(label + ": value changed " + arg_key_str(cached) + " -> " + arg_key_str(call) +
                  " (a C++ " + arg_key_kind(call) + " is part of the trace key; pass a tensor to avoid retracing)");
  }
}

/// Differences between a cached key and the call; arity changes are one phrase.
std::vector<std::string> differences(const TraceKey& cached, const TraceKey& call,
                                     const std::vector<std::string>& names) {
  if (cached.structure().text != call.structure().text)
    return {"argument structure changed " + cached.structure_str() + " -> " + call.structure_str()};
  if (cached.size() != call.size())
    return {"argument count changed " + std::to_string(cached.size()) + " -> " + std::to_string(call.size())};
  // A structured call's leaves are labelled by their paths ("args[0].x"), a flat call's as "arg 0 (x)".
  const auto& paths = call.structure().paths;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < call.size(); ++i)
    describe_arg(cached.args()[i], call.args()[i], i < paths.size() ? paths[i] : arg_label(i, names), out);
  return out;
}

}  // namespace

TraceKey relax(const TraceKey& call, const std::vector<TraceKey>& cached) {
  for (auto it = cached.rbegin(); it != cached.rend(); ++it) {
    if (!same_structure(*it, call)) continue;
    std::vector<ArgKey> args = call.args();
    for (std::size_t i = 0; i < args.size(); ++i)
      if (auto* spec = std::get_if<TensorSpec>(&args[i]))
        *spec = *spec->most_specific_common(std::get<TensorSpec>(it->args()[i]));
    return TraceKey(std::move(args), call.structure());
  }
  return call;
}

std::string explain_retrace(const TraceKey& call, const std::vector<TraceKey>& cached,
                            const std::vector<std::string>& arg_names) {
  if (cached.empty()) return "first call: no function traced yet";
  // Compare with the cached key that differs least (ties: the newest); one of the call's structure first.
  std::vector<std::string> best;
  std::size_t best_score = 0;
  bool found = false;
  for (auto it = cached.rbegin(); it != cached.rend(); ++it) {
    auto diff = differences(*it, call, arg_names);
    std::size_t score = diff.size() + (it->structure().text == call.structure().text ? 0 : call.size() + 1);
    if (!found || score < best_score) {
      best = std::move(diff);
      best_score = score;
      found = true;
    }
  }
  std::string out;
  for (const auto& phrase : best) out += (out.empty() ? "" : ", ") + phrase;
  if (out.empty()) out = "same key as a cached function";
  return out + "; no cached function matches; cache holds " + std::to_string(cached.size()) +
         (cached.size() == 1 ? " function" : " functions");
}

std::optional<std::string> RetracingDetector::record_call(bool traced, std::string_view function_name) {
  std::lock_guard lock(mutex_);
  ++call_count_;
  if (!traced) {
    if (calls_per_tracing_.empty()) calls_per_tracing_.push_back(0);  // a concrete function fetched beforehand
    ++calls_per_tracing_.back();
    return std::nullopt;
  }
  calls_per_tracing_.push_back(1);
  while (!calls_per_tracing_.empty() && call_count_ - calls_per_tracing_.front() > kMaxCallHistory) {
    call_count_ -= calls_per_tracing_.front();
    calls_per_tracing_.erase(calls_per_tracing_.begin());
  }
  if (max_warnings_ >= 0 && warnings_ >= max_warnings_) return std::nullopt;
  if (tracing_count() < kThreshold) return std::nullopt;
  ++warnings_;
  return retracing_warning(tracing_count(), call_count_, function_name);
}

namespace {

struct DetectorRegistry {
  std::mutex mutex;
  std::map<std::pair<std::string, int>, std::shared_ptr<RetracingDetector>> detectors;
};

DetectorRegistry& registry() {
  static DetectorRegistry shared;
  return shared;
}

}  // namespace

std::shared_ptr<RetracingDetector> retracing_detector_for(const std::string& source, int max_warnings) {
  if (source.empty()) return std::make_shared<RetracingDetector>(max_warnings);
  DetectorRegistry& all = registry();
  std::lock_guard lock(all.mutex);
  auto& detector = all.detectors[{source, max_warnings}];
  if (!detector) detector = std::make_shared<RetracingDetector>(max_warnings);
  return detector;
}

void reset_retracing_detectors() {
  DetectorRegistry& all = registry();
  std::lock_guard lock(all.mutex);
  all.detectors.clear();
}

std::string retracing_warning(int traces, int calls, std::string_view function_name) {
  return std::to_string(traces) + " out of the last " + std::to_string(calls) + " calls to " +
         std::string(function_name) +
         " triggered tl.function retracing. Tracing is expensive and the excessive number of tracings could be "
         "due to (1) creating a tl::function repeatedly in a loop, (2) passing tensors with different shapes, "
         "(3) passing C++ numbers instead of tensors. For (1), define the tl::function once, outside of the loop. "
         "For (2), tl::function has the reduce_retracing option (TensorFlow's experimental_relax_shapes) that "
         "can avoid unnecessary retracing. For (3), see docs/tracing.md (tracing rules).";
}

}  // namespace tl
