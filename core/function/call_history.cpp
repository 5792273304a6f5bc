// CallHistory: the bounded recorder of a tl::function's calls.
#include "tracelab/function/call_history.h"

#include <algorithm>

namespace tl {

void CallHistory::add(const TraceKey& key, CallRecord record) {
  if (capacity_ == 0) return;
  record.key = key_text(key);
  // Once the vector holds 2 × capacity records, drop the older half in one move: amortized O(1) per call.
  if (records_.size() - std::min(records_.size(), capacity_) >= capacity_)
    records_.erase(records_.begin(), records_.begin() + static_cast<std::ptrdiff_t>(records_.size() - capacity_));
  records_.push_back(std::move(record));
}

std::span<const CallRecord> CallHistory::records() const noexcept {
  std::span<const CallRecord> all(records_);
  return all.last(std::min(all.size(), capacity_));
}

const std::string& CallHistory::key_text(const TraceKey& key) {
  for (const auto& [known, text] : key_texts_)
    if (known == key) return text;
  if (key_texts_.size() == kMaxKeyTexts) key_texts_.erase(key_texts_.begin());
  return key_texts_.emplace_back(key, key.str()).second;
}

}  // namespace tl
