// The retracing machinery of tl::function, as value types: the cache of concrete functions by trace key,
// the shape-relaxation rule (reduce_retracing), the reason a call had to retrace, and TensorFlow's
// frequent-retracing warning.
//
//   tl::FunctionCache<int> cache;
//   cache.add(key, 1);
//   if (!cache.lookup(call)) std::puts(tl::explain_retrace(call, cache.keys()).c_str());
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tracelab/function/trace_key.h"

namespace tl {

/// Concrete functions (of type T) by trace key, in insertion order. A lookup finds an entry with an equal
/// key, or else the newest entry whose (generalized) key accepts the call — a relaxed function serves
/// every shape it accepts. (TensorFlow's function_cache, in small.)
template <class T>
class FunctionCache {
 public:
  /// The value for `call`, or nullptr.
  T* lookup(const TraceKey& call) {
    for (auto& entry : entries_)
      if (entry.first == call) return &entry.second;
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
      if (it->first.accepts(call)) return &it->second;
    return nullptr;
  }
  /// Adds (or replaces) the value traced for `key`.
  T& add(TraceKey key, T value) {
    for (auto& entry : entries_)
      if (entry.first == key) return entry.second = std::move(value);
    return entries_.emplace_back(std::move(key), std::move(value)).second;
  }
  /// Removes every entry.
  void clear() noexcept { entries_.clear(); }
  /// The number of entries.
  std::size_t size() const noexcept { return entries_.size(); }
  /// The keys, oldest first.
  std::vector<TraceKey> keys() const {
    std::vector<TraceKey> out;
    for (const auto& entry : entries_) out.push_back(entry.first);
    return out;
  }
  /// The (key, value) pairs, oldest first; a caller may change the values in place.
  std::vector<std::pair<TraceKey, T>>& entries() noexcept { return entries_; }
  /// The (key, value) pairs, oldest first.
  const std::vector<std::pair<TraceKey, T>>& entries() const noexcept { return entries_; }

 private:
  std::vector<std::pair<TraceKey, T>> entries_;
};

/// The key to trace for `call` under reduce_retracing (TensorFlow's experimental_relax_shapes rule): the
/// first call traces its exact shapes; a later call that misses the cache is compared with the cached keys,
/// newest first, and with the first one of the same structure (arity, kinds, dtypes, ranks, equal plain
/// values and variables) it is generalized — every tensor dim that differs becomes unknown (-1). That
/// function then serves every later shape it accepts. Without such a key, `call` is traced as it is.
TraceKey relax(const TraceKey& call, const std::vector<TraceKey>& cached);

/// A reason a person can act on for tracing `call`, e.g.
/// "arg 0 (x): dim 1 changed 3 -> 7; no cached function matches; cache holds 4 functions".
/// `arg_names` labels the arguments when given.
std::string explain_retrace(const TraceKey& call, const std::vector<TraceKey>& cached,
                            const std::vector<std::string>& arg_names = {});

/// TensorFlow's frequent-retracing detector: it keeps the last calls in a window of
/// FREQUENT_TRACING_WARNING_MAX_CALL_HISTORY = 10 calls (grouped by the trace that started them) and warns when
/// FREQUENT_TRACING_WARNING_THRESHOLD = 5 or more of them traced, at most `max_warnings` times
/// (FREQUENT_TRACING_WARNING_MAX_WARNING_PER_DETECTOR = 2 in current TensorFlow; the TF 2.1 of the source
/// article had no limit — pass -1 for that). TensorFlow keeps one detector per Python function (its `__code__`),
/// shared by every tf.function made from it; tl::function shares one per source (retracing_detector_for), so
/// record_call may come from several functions and threads: it takes a lock.
class RetracingDetector {
 public:
  /// Traces in the window that trigger a warning (FREQUENT_TRACING_WARNING_THRESHOLD).
  static constexpr int kThreshold = 5;
  /// The window: calls kept (FREQUENT_TRACING_WARNING_MAX_CALL_HISTORY).
  static constexpr int kMaxCallHistory = 10;

  /// A detector that warns at most `max_warnings` times (-1: no limit).
  explicit RetracingDetector(int max_warnings = 2) : max_warnings_(max_warnings) {}
  /// Records a call; returns the warning text when this call triggers one.
  std::optional<std::string> record_call(bool traced, std::string_view function_name);
  /// Traces among the calls in the window.
  int tracing_count() const noexcept { return static_cast<int>(calls_per_tracing_.size()); }
  /// Calls in the window.
  int call_count() const noexcept { return call_count_; }

 private:
  std::mutex mutex_;
  std::vector<int> calls_per_tracing_;  // calls that ran each traced function, oldest first
  int call_count_ = 0;
  int warnings_ = 0;
  int max_warnings_;
};

/// The detector shared by every tl::function made from `source` with the same `max_warnings`: so a function
/// created anew in a loop, each traced once, warns as TensorFlow's does. `source` names the code, e.g. a lambda's
/// type (tl::function's choice) or a JS function's text and place (tl.function's); an empty source gets a
/// detector of its own. Detectors live until reset_retracing_detectors (a program has finitely many sources).
std::shared_ptr<RetracingDetector> retracing_detector_for(const std::string& source, int max_warnings);

/// Forgets the shared detectors: functions made afterwards count afresh, functions made before keep counting
/// on theirs. For hosts that evaluate the same code anew, as Python compiles a re-run notebook cell into new
/// code objects (the tutorial pages' cell worker calls it before each cell).
void reset_retracing_detectors();

/// The warning text, in TensorFlow's words adapted to C++ ("5 out of the last 6 calls to <step> ...").
std::string retracing_warning(int traces, int calls, std::string_view function_name);

}  // namespace tl
