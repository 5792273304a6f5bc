#include "tracelab/tensor/tensor.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <utility>
#include <vector>
#include <ostream>

#include "tracelab/base/attrs.h"

namespace tl {
namespace detail {

namespace {
std::atomic<std::uint64_t> allocation_counter{0};

constexpr std::size_t kAlignment = 64;

#if defined(__has_feature)  // clang says __has_feature(address_sanitizer); g++ defines __SANITIZE_ADDRESS__
#if __has_feature(address_sanitizer)
#define TRACELAB_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(TRACELAB_ASAN)
constexpr bool kPoolBlocks = false;  // under AddressSanitizer every buffer is a fresh allocation: reuse would hide
                                     // a use-after-free from it
#else
constexpr bool kPoolBlocks = true;
#endif

/// Recycles small freed blocks by size class (multiples of 64 bytes up to 16 KiB, at most 64 blocks a class):
/// an eager step frees and allocates the same small sizes over and over, and aligned allocation is the slow
/// path of malloc (glibc and emscripten's dlmalloc alike). Never destroyed, so buffers that die during
/// static destruction still find it; one mutex (uncontended: ~20 ns natively, free in single-threaded WASM).
class BlockPool {
 public:
  static constexpr std::size_t kMaxBytes = 16384, kMaxBlocksPerClass = 64;

  static BlockPool& get() {
    static auto* pool = new BlockPool();
    return *pool;
  }
  /// A block of `rounded` bytes (a multiple of kAlignment), or nullptr when the allocator has none.
  void* take(std::size_t rounded) {
    if (kPoolBlocks && rounded <= kMaxBytes) {
      std::lock_guard lock(mutex_);
      auto& list = free_[rounded / kAlignment];
      if (!list.empty()) {
        void* block = list.back();
        list.pop_back();
        return block;
      }
    }
    return std::aligned_alloc(kAlignment, rounded);
  }
  void give(void* block, std::size_t rounded) noexcept {
    if (kPoolBlocks && rounded <= kMaxBytes) {
      std::lock_guard lock(mutex_);
      auto& list = free_[rounded / kAlignment];
      if (list.size() < kMaxBlocksPerClass) {
        list.push_back(block);  // capacity reserved up front: cannot throw
        return;
      }
    }
    std::free(block);
  }

 private:
  BlockPool() {
    for (auto& list : free_) list.reserve(kMaxBlocksPerClass);
  }
  std::mutex mutex_;
  std::vector<void*> free_[kMaxBytes / kAlignment + 1];
};

/// A per-thread free list of same-size blocks for the two small heap blocks every tensor has: its TensorImpl and
/// its Buffer (each with the shared_ptr count, through std::allocate_shared). An eager step makes and drops dozens
/// of tensors, and malloc's own per-thread cache holds too few blocks of a size for that burst. No lock: a block
/// freed on another thread joins that thread's list. The list is plain data, never destroyed; `Drain`, made when
/// a thread first keeps a block, empties it when the thread ends and marks it closed, after which blocks go back
/// to the heap.
template <std::size_t Size>
struct ThreadBlocks {
  static constexpr std::size_t kMaxBlocks = 512;
  static constexpr std::size_t kClosed = ~std::size_t{0};
  struct Node {
    Node* next;
  };
  struct List {
    Node* head;
    std::size_t count;
  };
  struct Drain {
    ~Drain() {
      List& l = list();
      while (l.head) ::operator delete(std::exchange(l.head, l.head->next));
      l.count = kClosed;
    }
  };
  static List& list() noexcept {
    thread_local List blocks{nullptr, 0};
    return blocks;
  }
  static void* take() {
    List& l = list();
    if (kPoolBlocks && l.head) {
      --l.count;
      return std::exchange(l.head, l.head->next);
    }
    return ::operator new(Size);
  }
  static void give(void* block) noexcept {
    List& l = list();
    if (kPoolBlocks && l.count < kMaxBlocks) {
      if (l.count == 0) {
        thread_local Drain drain;  // made with the first block this thread keeps
        (void)drain;
      }
      l.head = new (block) Node{l.head};
      ++l.count;
      return;
    }
    ::operator delete(block);
  }
};

/// std::allocate_shared's allocator over ThreadBlocks (one block per allocation; arrays go to the heap).
template <class T>
struct PooledAllocator {
  using value_type = T;
  PooledAllocator() = default;
  template <class U>
  PooledAllocator(const PooledAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): rebinding
  static_assert(alignof(T) <= alignof(std::max_align_t));
  static constexpr std::size_t kSize = (sizeof(T) + 15) / 16 * 16;
  T* allocate(std::size_t n) {
    return static_cast<T*>(n == 1 ? ThreadBlocks<kSize>::take() : ::operator new(n * sizeof(T)));
  }
  void deallocate(T* block, std::size_t n) noexcept {
    if (n == 1) ThreadBlocks<kSize>::give(block);
    else ::operator delete(block);
  }
  friend bool operator==(const PooledAllocator&, const PooledAllocator&) noexcept { return true; }
  friend bool operator!=(const PooledAllocator&, const PooledAllocator&) noexcept { return false; }
};

std::size_t rounded_size(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

std::uint64_t buffer_allocations() noexcept { return allocation_counter.load(std::memory_order_relaxed); }

std::shared_ptr<Buffer> Buffer::allocate(std::size_t bytes) {
  allocation_counter.fetch_add(1, std::memory_order_relaxed);
  TL_CHECK(bytes <= std::numeric_limits<std::size_t>::max() - kAlignment, OutOfMemory, "cannot allocate ", bytes,
           " bytes");
  std::size_t rounded = rounded_size(bytes);
  void* data = rounded == 0 ? nullptr : BlockPool::get().take(rounded);
  TL_CHECK(rounded == 0 || data != nullptr, OutOfMemory, "out of memory: cannot allocate a buffer of ", bytes,
           " bytes");
  if (data) std::memset(data, 0, rounded);
  try {
    return std::allocate_shared<Buffer>(PooledAllocator<Buffer>{}, Key{}, data, bytes);
  } catch (...) {
    if (data) BlockPool::get().give(data, rounded);
    throw;
  }
}

Buffer::~Buffer() {
  if (data_) BlockPool::get().give(data_, rounded_size(bytes_));
}

Tensor make_weak_scalar_f32(float value) {
  Tensor t = Tensor::empty(DType::float32, {});
  *t.mutable_data<float>() = value;
  const_cast<TensorImpl&>(t.impl()).weak = true;
  return t;
}

Tensor make_weak_scalar_i32(std::int32_t value) {
  Tensor t = Tensor::empty(DType::int32, {});
  *t.mutable_data<std::int32_t>() = value;
  const_cast<TensorImpl&>(t.impl()).weak = true;
  return t;
}

Tensor make_weak_scalar_bool(bool value) {
  Tensor t = Tensor::empty(DType::bool_, {});
  *t.mutable_data<bool>() = value;
  const_cast<TensorImpl&>(t.impl()).weak = true;
  return t;
}

}  // namespace detail

Tensor Tensor::empty(DType dtype, const Shape& shape) {
  TL_CHECK(shape.is_fully_defined(), InvalidArgument, "cannot allocate a tensor with a negative size in dims ",
           ints_str(shape.dims()), " (sizes must be >= 0; -1 marks an unknown dim, only in TensorSpecs)");
  std::int64_t count = shape.num_elements();
  auto size = static_cast<std::uint64_t>(count);
  std::uint64_t limit = std::numeric_limits<std::size_t>::max() / dtype_size(dtype);
  TL_CHECK(size <= limit, OutOfMemory, "out of memory: a ", dtype_name(dtype), " tensor of shape ", shape.str(),
           " needs ", count, " elements, more than this platform can address");
  auto impl = std::allocate_shared<detail::TensorImpl>(detail::PooledAllocator<detail::TensorImpl>{});
  impl->meta.dtype = dtype;
  impl->meta.shape = shape;
  try {
    impl->buffer = detail::Buffer::allocate(static_cast<std::size_t>(size) * dtype_size(dtype));
  } catch (const OutOfMemory&) {
    throw OutOfMemory(detail::cat("out of memory: cannot allocate a ", dtype_name(dtype), " tensor of shape ",
                                  shape.str(), " (", size * dtype_size(dtype), " bytes)"));
  }
  return Tensor(std::move(impl));
}

Tensor detail::view(const Tensor& source, TensorMeta&& meta) {
  auto impl = std::allocate_shared<TensorImpl>(PooledAllocator<TensorImpl>{});
  impl->meta = std::move(meta);
  impl->buffer = source.impl().buffer;
  return Tensor(std::move(impl));
}

void Tensor::empty_handle_error() {
  throw InvalidArgument("use of an empty Tensor handle (default-constructed)");
}

void Tensor::raw_data_error(DType expected, const char* what) const {
  const auto& self = impl();
  TL_CHECK(self.symbol == nullptr, OperatorNotAllowedInGraph, what, ": a symbolic tensor ", meta_str(self.meta),
           " has no values while a function is being traced; compute with ops (use tl::cond / tl::while_loop for "
           "decisions and tl::print to see values when the graph runs)");
  TL_CHECK(self.meta.dtype == expected, DTypeError, what, ": tensor has dtype ", dtype_name(self.meta.dtype),
           ", requested ", dtype_name(expected));
  throw InvalidArgument(detail::cat(what, ": tensor has no buffer"));
}

Tensor::operator bool() const {
  TL_CHECK(defined(), InvalidArgument,
           "the truth value of an empty Tensor handle (default-constructed) is not defined");
  TL_CHECK(!is_symbolic(), OperatorNotAllowedInGraph, "using a symbolic tensor ", meta_str(meta()),
           " as a C++ bool is not allowed while a function is being traced: its value is only known when the graph "
           "runs; use tl::cond(pred, true_fn, false_fn) or tl::while_loop(cond_fn, body_fn, loop_vars) instead of "
           "if / while");
  TL_CHECK(num_elements() == 1, InvalidArgument, "the truth value of a tensor with shape ", shape().str(),
           " is ambiguous; reduce it first");
  return item<float>() != 0;
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) { return out << tensor.str(); }

}  // namespace tl
