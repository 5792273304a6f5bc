// The call history of a tl::function: an opt-in, bounded recorder of what each call did — its trace key, whether
// it traced and why, the retracing warning it triggered, which concrete function ran, and how long tracing and
// running took. Off by default (FunctionOptions::call_history = 0); with a capacity N it keeps the last N
// records, dropping the oldest, so a function called a million times holds at most N of them.
//
//   auto f = tl::function(body, {.name = "f", .call_history = 10});
//   f(x);  f(y);
//   for (const tl::CallRecord& call : f.calls()) std::cout << call.index << ": " << call.reason << "\n";
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tracelab/function/trace_key.h"

namespace tl {

/// One call of a tl::function, for plots and tests.
struct CallRecord {
  std::size_t index = 0;           ///< 0-based call number (counting every call, recorded or not)
  bool traced = false;             ///< this call traced a new concrete function
  std::string key;                 ///< the call's trace key, TraceKey::str()
  std::string reason;              ///< why it traced (empty when it did not)
  std::string warning;             ///< the frequent-retracing warning this call triggered, if any
  std::size_t concrete_index = 0;  ///< which concrete function ran (index into concrete_functions())
  double trace_us = 0;             ///< tracing + optimization time
  double execute_us = 0;           ///< running the graph (0 when FunctionOptions::record_timings is off)
};

/// The records of the last `capacity()` calls, oldest first. Adding is amortized O(1) with no allocation once
/// warm: the records live in one vector of at most 2 × capacity slots, reused in turn, of which the newest
/// capacity are kept.
class CallHistory {
 public:
  /// A recorder keeping `capacity` records; 0 records nothing.
  explicit CallHistory(std::size_t capacity = 0) : capacity_(capacity) {}

  /// How many records are kept at most.
  std::size_t capacity() const noexcept { return capacity_; }
  /// Whether calls are recorded at all (capacity > 0).
  bool enabled() const noexcept { return capacity_ > 0; }

  /// Adds the record of a call with trace key `key` (filling record.key); drops the oldest when full.
  void add(const TraceKey& key, CallRecord record);
  /// The kept records, oldest first (valid until the next add or clear).
  std::span<const CallRecord> records() const noexcept;
  /// Forgets the records.
  void clear() noexcept { size_ = 0; }

 private:
  /// key.str(), remembered for the kMaxKeyTexts most recent distinct keys (rebuilding it per call is slow).
  const std::string& key_text(const TraceKey& key);

  static constexpr std::size_t kMaxKeyTexts = 32;
  std::size_t capacity_;
  std::vector<CallRecord> records_;  // slots; the first size_ are in use, the newest capacity_ of them the history
  std::size_t size_ = 0;
  std::vector<std::pair<TraceKey, std::string>> key_texts_;
};

}  // namespace tl
