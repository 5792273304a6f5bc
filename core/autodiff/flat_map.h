// A small open-addressing map from pointers to indices: the tape's "is this tensor watched?" and
// "where is its gradient?" look-ups, without a heap node per entry (private to core/autodiff).
#pragma once

#include <cstdint>
#include <vector>

namespace tl::detail {

class PtrIndexMap {
 public:
  static constexpr std::uint32_t npos = 0xffffffffu;

  /// The index stored for `key`, or npos.
  std::uint32_t find(const void* key) const noexcept {
    if (slots_.empty()) return npos;
    for (std::size_t i = hash(key) & mask();; i = (i + 1) & mask()) {
      if (slots_[i].key == key) return slots_[i].value;
      if (slots_[i].key == nullptr) return npos;
    }
  }
  bool contains(const void* key) const noexcept { return find(key) != npos; }
  /// Stores `value` for `key` (replacing an earlier value).
  void insert(const void* key, std::uint32_t value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    for (std::size_t i = hash(key) & mask();; i = (i + 1) & mask()) {
      if (slots_[i].key == key) {
        slots_[i].value = value;
        return;
      }
      if (slots_[i].key == nullptr) {
        slots_[i] = {key, value};
        ++size_;
        return;
      }
    }
  }
  std::size_t size() const noexcept { return size_; }
  /// Room for `count` keys without growing.
  void reserve(std::size_t count) {
    std::size_t slots = slots_.empty() ? 64 : slots_.size();
    while (count * 4 > slots * 3) slots *= 2;
    if (slots != slots_.size()) rehash(slots);
  }
  void clear() noexcept {
    slots_.clear();
    size_ = 0;
  }

 private:
  struct Slot {
    const void* key = nullptr;
    std::uint32_t value = npos;
  };
  std::size_t mask() const noexcept { return slots_.size() - 1; }
  static std::size_t hash(const void* key) noexcept {
    auto x = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(key));
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return static_cast<std::size_t>(x);
  }
  void grow() { rehash(slots_.empty() ? 64 : slots_.size() * 2); }
  void rehash(std::size_t slots) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(slots, Slot{});
    size_ = 0;
    for (const Slot& slot : old)
      if (slot.key) insert(slot.key, slot.value);
  }
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace tl::detail
