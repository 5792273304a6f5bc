// CallHistory: the bounded recorder of a tl::function's calls.
#include "tracelab/function/call_history.h"

#include <algorithm>

namespace tl {

void CallHistory::add(const TraceKey& key, CallRecord record) {
  if (capacity_ == 0) return;
  // The records live in 2 × capacity slots, of which the first size_ are in use. When they are all in use, the
  // newest capacity - 1 records swap to the front (strings trade buffers, nothing is freed), so a slot's string
  // buffers are reused by later records: once warm, adding allocates nothing.
  if (size_ == 2 * capacity_) {
    std::swap_ranges(records_.end() - static_cast<std::ptrdiff_t>(capacity_ - 1), records_.end(), records_.begin());
    size_ = capacity_ - 1;
  }
  if (size_ == records_.size()) records_.emplace_back();
  CallRecord& slot = records_[size_++];
  slot.index = record.index;
  slot.traced = record.traced;
  slot.key.assign(key_text(key));
  slot.reason.assign(record.reason);
  slot.warning.assign(record.warning);
  slot.concrete_index = record.concrete_index;
  slot.trace_us = record.trace_us;
  slot.execute_us = record.execute_us;
}

std::span<const CallRecord> CallHistory::records() const noexcept {
  std::span<const CallRecord> all(records_.data(), size_);
  return all.last(std::min(all.size(), capacity_));
}

const std::string& CallHistory::key_text(const TraceKey& key) {
  for (const auto& [known, text] : key_texts_)
    if (known == key) return text;
  if (key_texts_.size() == kMaxKeyTexts) key_texts_.erase(key_texts_.begin());
  return key_texts_.emplace_back(key, key.str()).second;
}

}  // namespace tl
