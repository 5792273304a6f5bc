// LocalArray: n elements (value-initialized, or each made by a function) for the duration of one call, inline up to
// N and on the heap beyond.
//
//   tl::detail::LocalArray<Tensor, 8> results(outputs.size());  // no heap block for up to 8 outputs
//   op.run(inputs, attrs, results.span(), ...);
//
// An op call, a backward step or a function call holds its few tensors and metas this way. Unlike a
// std::array<T, N> it constructs (and destroys) only the n elements in use: zero-filling eight shared pointers on
// every op call cost more than the call's own bookkeeping.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <span>

namespace tl::detail {

template <class T, std::size_t N>
class LocalArray {
 public:
  explicit LocalArray(std::size_t size)
      : size_(size), data_(size <= N ? reinterpret_cast<T*>(inline_) : static_cast<T*>(::operator new(size * sizeof(T)))) {
    std::uninitialized_value_construct_n(data_, size_);
  }
  /// `size` elements, element i constructed from make(i) (for types without a default constructor). When make
  /// throws, the elements made so far are destroyed and the exception propagates.
  template <class Make>
  LocalArray(std::size_t size, Make&& make)
      : size_(0), data_(size <= N ? reinterpret_cast<T*>(inline_) : static_cast<T*>(::operator new(size * sizeof(T)))) {
    try {
      for (; size_ < size; ++size_) ::new (static_cast<void*>(data_ + size_)) T(make(size_));
    } catch (...) {
      std::destroy_n(data_, size_);
      if (size > N) ::operator delete(data_);
      throw;
    }
  }
  ~LocalArray() {
    std::destroy_n(data_, size_);
    if (size_ > N) ::operator delete(data_);
  }
  LocalArray(const LocalArray&) = delete;
  LocalArray& operator=(const LocalArray&) = delete;

  std::size_t size() const noexcept { return size_; }
  T* data() noexcept { return data_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  std::span<T> span() noexcept { return {data_, size_}; }
  std::span<const T> span() const noexcept { return {data_, size_}; }

 private:
  std::size_t size_;
  T* data_;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace tl::detail
