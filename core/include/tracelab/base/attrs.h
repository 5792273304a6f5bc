// Op attributes: the non-tensor arguments of an op (axes, flags, dtypes, paddings), as a small map.
//
//   tl::Attrs attrs{{"axes", tl::Ints{1}}, {"keepdims", true}};
//   attrs.get_or("keepdims", false);        // true
//   attrs.get<tl::Ints>("axes");            // {1}
#pragma once

#include <cstdint>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <initializer_list>
#include <iosfwd>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tracelab/base/dtype.h"
#include "tracelab/base/error.h"

namespace tl {

/// A list of integers as an attribute value: axes, shapes, paddings.
using Ints = std::vector<std::int64_t>;
/// "[2, -1]": integers as written, for messages (Shape::str would print -1 as None).
std::string ints_str(const Ints& values);

/// One attribute value. Integers are int64, reals double; a list of ints covers axes, shapes and paddings.
using AttrValue = std::variant<bool, std::int64_t, double, std::string, Ints, DType>;

/// An attribute's name, held inline up to kInline characters (every op's attribute names fit), on the heap beyond.
/// Making and copying an Attrs then allocates nothing for its names, natively and in WebAssembly (whose
/// std::string keeps only 10 characters inline).
class AttrName {
 public:
  /// The longest name held without a heap allocation.
  static constexpr std::size_t kInline = 22;
  /** @{ */
  /// A name from text (implicit, so attribute names are written as string literals).
  AttrName(std::string_view name) { assign(name); }  // NOLINT(google-explicit-constructor): names are written as text
  AttrName(const char* name) : AttrName(std::string_view(name)) {}  // NOLINT(google-explicit-constructor)
  AttrName(const std::string& name) : AttrName(std::string_view(name)) {}  // NOLINT(google-explicit-constructor)
  /** @} */
  /** @{ */
  /// Copies and moves; a moved-from name is empty.
  AttrName(const AttrName& other) { assign(other.view()); }
  AttrName& operator=(const AttrName& other) {
    if (this != &other) assign(other.view());
    return *this;
  }
  AttrName(AttrName&& other) noexcept : size_(other.size_) {
    if (size_ > kInline) heap_ = other.heap_;
    else std::copy(other.inline_, other.inline_ + kInline + 1, inline_);
    other.size_ = 0;
    other.inline_[0] = '\0';
  }
  AttrName& operator=(AttrName&& other) noexcept {
    if (this != &other) {
      release();
      new (this) AttrName(std::move(other));
    }
    return *this;
  }
  /** @} */
  ~AttrName() { release(); }

  /// The name as a view of this object's characters (valid while it lives and is not assigned).
  std::string_view view() const noexcept { return {data(), size_}; }
  /// Same as view().
  operator std::string_view() const noexcept { return view(); }  // NOLINT(google-explicit-constructor)
  /// A copy of the name.
  std::string str() const { return std::string(view()); }
  /// The characters, NUL-terminated.
  const char* data() const noexcept { return size_ > kInline ? heap_ : inline_; }
  /// The length in characters.
  std::size_t size() const noexcept { return size_; }

  /// Equal names; compared inline, eight bytes at a time (names are short: a memcmp call costs more, in
  /// WebAssembly most of all, and every attribute look-up of an eager op compares a few).
  bool equals(std::string_view other) const noexcept {
    if (other.size() != size_) return false;
    const char *a = data(), *b = other.data();
    std::size_t n = size_;
    for (; n >= 8; n -= 8, a += 8, b += 8) {
      std::uint64_t x, y;
      std::memcpy(&x, a, 8);
      std::memcpy(&y, b, 8);
      if (x != y) return false;
    }
    for (; n > 0; --n, ++a, ++b)
      if (*a != *b) return false;
    return true;
  }
  /** @{ */
  /// Compare by characters, with another name or any string type (no conversion, no allocation).
  friend bool operator==(const AttrName& a, std::string_view b) noexcept { return a.equals(b); }
  friend bool operator==(std::string_view a, const AttrName& b) noexcept { return b.equals(a); }
  friend bool operator==(const AttrName& a, const AttrName& b) noexcept { return a.equals(b.view()); }
  friend bool operator==(const AttrName& a, const std::string& b) noexcept { return a.equals(b); }
  friend bool operator==(const std::string& a, const AttrName& b) noexcept { return b.equals(a); }
  friend bool operator==(const AttrName& a, const char* b) noexcept { return a.equals(b); }
  friend bool operator!=(const AttrName& a, std::string_view b) noexcept { return !a.equals(b); }
  friend bool operator!=(const AttrName& a, const std::string& b) noexcept { return !a.equals(b); }
  friend bool operator!=(const AttrName& a, const char* b) noexcept { return !a.equals(b); }
  friend bool operator!=(const AttrName& a, const AttrName& b) noexcept { return !a.equals(b.view()); }
  /** @} */
  /// Writes the name's characters.
  friend std::ostream& operator<<(std::ostream& out, const AttrName& name);

 private:
  void assign(std::string_view name);
  void release() noexcept {
    if (size_ > kInline) delete[] heap_;
    size_ = 0;
  }
  union {
    char inline_[kInline + 1];
    char* heap_;
  };
  std::size_t size_ = 0;
};

/// A small ordered map from attribute name to value (ops have a handful, so a flat list beats a hash map).
class Attrs {
 public:
  /// No attributes.
  Attrs() = default;
  /// The given attributes in order, as if each were set(); a later duplicate name replaces an earlier one.
  Attrs(std::initializer_list<std::pair<AttrName, AttrValue>> entries);
  /** @{ */
  /// Copies and moves carry checked_by() along; a moved-from Attrs is empty and unchecked.
  Attrs(const Attrs& other) : entries_(other.entries_), checked_by_(other.checked_by()) {}
  Attrs(Attrs&& other) noexcept : entries_(std::move(other.entries_)), checked_by_(other.checked_by()) {
    other.checked_by_.store(0, std::memory_order_relaxed);
  }
  Attrs& operator=(const Attrs& other) {
    if (this != &other) {
      entries_ = other.entries_;
      checked_by_.store(other.checked_by(), std::memory_order_relaxed);
    }
    return *this;
  }
  Attrs& operator=(Attrs&& other) noexcept {
    if (this != &other) {
      entries_ = std::move(other.entries_);
      checked_by_.store(other.checked_by(), std::memory_order_relaxed);
      other.checked_by_.store(0, std::memory_order_relaxed);
    }
    return *this;
  }
  /** @} */

  /// Sets (or replaces) an attribute. Plain `int` values are stored as int64.
  Attrs& set(std::string_view name, AttrValue value);
  /// True when the attribute is present.
  bool has(std::string_view name) const noexcept { return find(name) != nullptr; }
  /// The attribute as T; throws InvalidArgument when missing or of another type.
  template <class T> const T& get(std::string_view name) const;
  /// The attribute as T, or `fallback` when missing; throws InvalidArgument when of another type.
  template <class T> T get_or(std::string_view name, T fallback) const;

  /// The (name, value) pairs in the order they were first set.
  const std::vector<std::pair<AttrName, AttrValue>>& entries() const noexcept { return entries_; }
  /// True when there are no attributes.
  bool empty() const noexcept { return entries_.empty(); }
  /// Same names with equal values in the same order (checked_by() is ignored).
  friend bool operator==(const Attrs& a, const Attrs& b) { return a.entries_ == b.entries_; }

  /// "axes=[1], keepdims=true"
  std::string str() const;

  /// The check id of the op (OpDef::check_id) whose attribute check these exact attributes passed last, or 0:
  /// OpDef::check_attrs does not check them again for that op (an eager op called with attributes made once,
  /// such as matmul's, is checked on its first call only). set() forgets it; a copy keeps it, having the same
  /// attributes.
  std::uint64_t checked_by() const noexcept { return checked_by_.load(std::memory_order_relaxed); }
  /// Records that these attributes passed the attribute check of the op with check id `op` (const: a cache).
  void set_checked_by(std::uint64_t op) const noexcept { checked_by_.store(op, std::memory_order_relaxed); }

 private:
  const AttrValue* find(std::string_view name) const noexcept;
  std::vector<std::pair<AttrName, AttrValue>> entries_;
  mutable std::atomic<std::uint64_t> checked_by_{0};  // atomic: attributes made once are shared by threads
};

/// Name of the type an attribute value holds ("bool", "int", "float", "string", "ints", "dtype").
const char* attr_type_name(const AttrValue& value) noexcept;
/// Name of the AttrValue alternative at `index`.
const char* attr_type_name(std::size_t index) noexcept;

template <class T>
const T& Attrs::get(std::string_view name) const {
  const AttrValue* value = find(name);
  TL_CHECK(value != nullptr, InvalidArgument, "missing attribute '", name, "'");
  const T* typed = std::get_if<T>(value);
  TL_CHECK(typed != nullptr, InvalidArgument, "attribute '", name, "' has type ", attr_type_name(*value),
           ", expected ", attr_type_name(AttrValue(T{})));
  return *typed;
}

template <class T>
T Attrs::get_or(std::string_view name, T fallback) const {
  return has(name) ? get<T>(name) : fallback;
}

}  // namespace tl
