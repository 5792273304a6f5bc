#include "tracelab/base/attrs.h"

#include <cstring>
#include <ostream>
#include <sstream>

namespace tl {

std::string ints_str(const Ints& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

void AttrName::assign(std::string_view name) {
  release();
  char* out = inline_;
  if (name.size() > kInline) {
    heap_ = new char[name.size() + 1];
    out = heap_;
  }
  std::memcpy(out, name.data(), name.size());
  out[name.size()] = '\0';
  size_ = name.size();
}

std::ostream& operator<<(std::ostream& out, const AttrName& name) { return out << name.view(); }

Attrs::Attrs(std::initializer_list<std::pair<AttrName, AttrValue>> entries) {
  entries_.reserve(entries.size());
  for (const auto& [name, value] : entries) set(name, value);
}

Attrs& Attrs::set(std::string_view name, AttrValue value) {
  checked_by_.store(0, std::memory_order_relaxed);
  for (auto& entry : entries_) {
    if (entry.first == name) {
      entry.second = std::move(value);
      return *this;
    }
  }
  entries_.emplace_back(AttrName(name), std::move(value));
  return *this;
}

const AttrValue* Attrs::find(std::string_view name) const noexcept {
  for (const auto& entry : entries_)
    if (entry.first == name) return &entry.second;
  return nullptr;
}

const char* attr_type_name(std::size_t index) noexcept {
  static const char* const names[] = {"bool", "int", "float", "string", "ints", "dtype"};
  return index < std::variant_size_v<AttrValue> ? names[index] : "invalid";
}

const char* attr_type_name(const AttrValue& value) noexcept { return attr_type_name(value.index()); }

namespace {
struct AttrPrinter {
  std::ostream& out;
  void operator()(bool v) const { out << (v ? "true" : "false"); }
  void operator()(std::int64_t v) const { out << v; }
  void operator()(double v) const { out << v; }
  void operator()(const std::string& v) const { out << '"' << v << '"'; }
  void operator()(DType v) const { out << dtype_name(v); }
  void operator()(const Ints& v) const {
    out << '[';
    for (std::size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
    out << ']';
  }
};
}  // namespace

std::string Attrs::str() const {
  std::ostringstream out;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    out << (i ? ", " : "") << entries_[i].first << '=';
    std::visit(AttrPrinter{out}, entries_[i].second);
  }
  return out.str();
}

}  // namespace tl
