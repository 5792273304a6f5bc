// Op attributes: the non-tensor arguments of an op (axes, flags, dtypes, paddings), as a small map.
//
//   tl::Attrs attrs{{"axes", tl::Ints{1}}, {"keepdims", true}};
//   attrs.get_or("keepdims", false);        // true
//   attrs.get<tl::Ints>("axes");            // {1}
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tracelab/base/dtype.h"
#include "tracelab/base/error.h"

namespace tl {

using Ints = std::vector<std::int64_t>;
/// "[2, -1]": integers as written, for messages (Shape::str would print -1 as None).
std::string ints_str(const Ints& values);

/// One attribute value. Integers are int64, reals double; a list of ints covers axes, shapes and paddings.
using AttrValue = std::variant<bool, std::int64_t, double, std::string, Ints, DType>;

/// A small ordered map from attribute name to value (ops have a handful, so a flat list beats a hash map).
class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<std::string, AttrValue>> entries);

  /// Sets (or replaces) an attribute. Plain `int` values are stored as int64.
  Attrs& set(std::string_view name, AttrValue value);
  /// True when the attribute is present.
  bool has(std::string_view name) const noexcept { return find(name) != nullptr; }
  /// The attribute as T; throws InvalidArgument when missing or of another type.
  template <class T> const T& get(std::string_view name) const;
  /// The attribute as T, or `fallback` when missing; throws InvalidArgument when of another type.
  template <class T> T get_or(std::string_view name, T fallback) const;

  const std::vector<std::pair<std::string, AttrValue>>& entries() const noexcept { return entries_; }
  bool empty() const noexcept { return entries_.empty(); }
  friend bool operator==(const Attrs& a, const Attrs& b) { return a.entries_ == b.entries_; }

  /// "axes=[1], keepdims=true"
  std::string str() const;

 private:
  const AttrValue* find(std::string_view name) const noexcept;
  std::vector<std::pair<std::string, AttrValue>> entries_;
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
