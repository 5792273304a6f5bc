// DimVector: a shape's dims, stored inline up to kInline dims and on the heap beyond.
//
//   tl::DimVector dims{2, 3};
//   dims.push_back(4);                       // still inline: no heap block for ranks up to kInline
//   std::vector<std::int64_t> v = dims;      // converts where an Ints is expected
//
// Every tensor carries a Shape, and eager ops, shape inference and graph rewriting copy shapes all the time; with
// the dims inline a copy is a memcpy instead of a heap allocation. The interface is the part of std::vector that
// shapes use (pointer iterators, push_back, insert, erase, resize).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <vector>

namespace tl {

/// A vector of int64 dims with std::vector's interface, inline (no heap block) up to kInline elements.
class DimVector {
 public:
  /** @{ */
  /// The std::vector member types; iterators are plain pointers.
  using value_type = std::int64_t;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = std::int64_t&;
  using const_reference = const std::int64_t&;
  using pointer = std::int64_t*;
  using const_pointer = const std::int64_t*;
  using iterator = std::int64_t*;
  using const_iterator = const std::int64_t*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;
  /** @} */

  /// The most dims held without a heap block.
  static constexpr std::size_t kInline = 6;

  /// No dims.
  DimVector() noexcept = default;
  /** @{ */
  /// As std::vector's constructors: `count` copies of `value`, a list, a std::vector (implicit), a range.
  DimVector(std::size_t count, std::int64_t value) { assign(count, value); }
  DimVector(std::initializer_list<std::int64_t> values) { assign(values.begin(), values.end()); }
  DimVector(const std::vector<std::int64_t>& values) { assign(values.data(), values.data() + values.size()); }  // NOLINT
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  DimVector(It first, It last) { assign(first, last); }
  /** @} */
  /** @{ */
  /// Copies and moves; a moved-from DimVector is empty.
  DimVector(const DimVector& other) { copy_from(other); }
  DimVector(DimVector&& other) noexcept { steal(other); }
  DimVector& operator=(const DimVector& other) {
    if (this != &other) copy_from(other);
    return *this;
  }
  DimVector& operator=(DimVector&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  /** @} */
  ~DimVector() { release(); }

  /// A std::vector copy, for APIs that take Ints.
  operator std::vector<std::int64_t>() const { return std::vector<std::int64_t>(begin(), end()); }  // NOLINT
  /// The same copy, by name.
  std::vector<std::int64_t> vec() const { return *this; }

  /** @{ */
  /// As in std::vector: size, capacity, data, iterators and element access (unchecked).
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t capacity() const noexcept { return capacity_; }
  std::int64_t* data() noexcept { return data_; }
  const std::int64_t* data() const noexcept { return data_; }
  iterator begin() noexcept { return data_; }
  iterator end() noexcept { return data_ + size_; }
  const_iterator begin() const noexcept { return data_; }
  const_iterator end() const noexcept { return data_ + size_; }
  const_iterator cbegin() const noexcept { return data_; }
  const_iterator cend() const noexcept { return data_ + size_; }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }
  std::int64_t& operator[](std::size_t i) noexcept { return data_[i]; }
  const std::int64_t& operator[](std::size_t i) const noexcept { return data_[i]; }
  std::int64_t& front() noexcept { return data_[0]; }
  const std::int64_t& front() const noexcept { return data_[0]; }
  std::int64_t& back() noexcept { return data_[size_ - 1]; }
  const std::int64_t& back() const noexcept { return data_[size_ - 1]; }
  /** @} */

  /** @{ */
  /// As in std::vector: reserve, clear, push_back, emplace_back, pop_back, resize, assign. Growing past
  /// capacity() moves the dims to a new heap block; pointers and iterators into the vector are then invalid.
  void reserve(std::size_t count) {
    if (count <= capacity_) return;
    std::size_t grown = std::max(count, 2 * capacity_);
    auto* heap = new std::int64_t[grown];
    std::copy(begin(), end(), heap);
    std::size_t count_before = size_;
    release();
    data_ = heap;
    size_ = count_before;
    capacity_ = grown;
  }
  void clear() noexcept { size_ = 0; }
  void push_back(std::int64_t value) {
    if (size_ == capacity_) reserve(size_ + 1);
    data_[size_++] = value;
  }
  std::int64_t& emplace_back(std::int64_t value) {
    push_back(value);
    return back();
  }
  void pop_back() noexcept { --size_; }
  void resize(std::size_t count, std::int64_t value = 0) {
    reserve(count);
    for (std::size_t i = size_; i < count; ++i) data_[i] = value;
    size_ = count;
  }
  void assign(std::size_t count, std::int64_t value) {
    size_ = 0;
    resize(count, value);
  }
  template <class It> void assign(It first, It last) {
    auto count = static_cast<std::size_t>(std::distance(first, last));
    if (count > capacity_) {  // a fresh block: `first` may point into this vector
      DimVector grown;
      grown.reserve(count);
      std::copy(first, last, grown.data_);
      grown.size_ = count;
      *this = std::move(grown);
      return;
    }
    std::copy(first, last, data_);
    size_ = count;
  }
  void assign(std::initializer_list<std::int64_t> values) { assign(values.begin(), values.end()); }
  /** @} */

  /** @{ */
  /// As in std::vector: insert before `pos`, erase at `pos` or `[first, last)`; returns an iterator to the first
  /// inserted element or to the element after the erased ones. The inserted range may alias this vector.
  iterator insert(const_iterator pos, std::int64_t value) { return insert(pos, &value, &value + 1); }
  iterator insert(const_iterator pos, std::size_t count, std::int64_t value) {
    DimVector fill(count, value);
    return insert(pos, fill.begin(), fill.end());
  }
  iterator insert(const_iterator pos, std::initializer_list<std::int64_t> values) {
    return insert(pos, values.begin(), values.end());
  }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  iterator insert(const_iterator pos, It first, It last) {
    auto at = static_cast<std::size_t>(pos - data_);
    DimVector values(first, last);  // a copy: the range may alias this vector
    reserve(size_ + values.size());
    std::move_backward(data_ + at, data_ + size_, data_ + size_ + values.size());
    std::copy(values.begin(), values.end(), data_ + at);
    size_ += values.size();
    return data_ + at;
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    auto at = static_cast<std::size_t>(first - data_);
    auto count = static_cast<std::size_t>(last - first);
    std::copy(data_ + at + count, data_ + size_, data_ + at);
    size_ -= count;
    return data_ + at;
  }
  /** @} */

  /** @{ */
  /// Element-wise comparison with another DimVector or a std::vector; `<` is lexicographic.
  friend bool operator==(const DimVector& a, const DimVector& b) noexcept {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const DimVector& a, const DimVector& b) noexcept { return !(a == b); }
  friend bool operator==(const DimVector& a, const std::vector<std::int64_t>& b) noexcept {
    return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const std::vector<std::int64_t>& a, const DimVector& b) noexcept { return b == a; }
  friend bool operator!=(const DimVector& a, const std::vector<std::int64_t>& b) noexcept { return !(a == b); }
  friend bool operator!=(const std::vector<std::int64_t>& a, const DimVector& b) noexcept { return !(b == a); }
  friend bool operator<(const DimVector& a, const DimVector& b) noexcept {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }
  /** @} */

 private:
  bool on_heap() const noexcept { return data_ != inline_; }
  /// The common case without a loop or a library call: dims that fit inline are copied as one fixed-size block
  /// (an inline source has kInline slots; a heap one has more).
  void copy_from(const DimVector& other) {
    if (other.size_ <= kInline && !on_heap()) {
      std::memcpy(inline_, other.data_, sizeof(inline_));
      size_ = other.size_;
      return;
    }
    assign(other.begin(), other.end());
  }
  void release() noexcept {
    if (on_heap()) delete[] data_;
    data_ = inline_;
    size_ = 0;
    capacity_ = kInline;
  }
  void steal(DimVector& other) noexcept {
    if (other.on_heap()) {
      data_ = other.data_;
      capacity_ = other.capacity_;
    } else {
      data_ = inline_;
      capacity_ = kInline;
      std::memcpy(inline_, other.inline_, other.size_ * sizeof(std::int64_t));
    }
    size_ = other.size_;
    other.data_ = other.inline_;
    other.size_ = 0;
    other.capacity_ = kInline;
  }

  std::int64_t* data_ = inline_;
  std::size_t size_ = 0;
  std::size_t capacity_ = kInline;
  std::int64_t inline_[kInline];
};

}  // namespace tl
