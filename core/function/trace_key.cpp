#include "tracelab/function/trace_key.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>

namespace tl {
namespace {

template <class... Fns>
struct Overloaded : Fns... {
  using Fns::operator()...;
};
template <class... Fns>
Overloaded(Fns...) -> Overloaded<Fns...>;

std::size_t mix(std::size_t seed, std::size_t value) noexcept {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

/// %g with the fewest digits (6 or more) that read back as `value`: "0.5", "1e-07", "0.1", and for the next double
/// after 0.1 "0.10000000000000002", so two different values never print alike in a retrace reason.
std::string shortest_real(double value) {
  char text[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (!std::isfinite(value) || std::strtod(text, nullptr) == value) break;
  }
  return text;
}

}  // namespace

std::string arg_key_str(const ArgKey& arg) {
  return std::visit(Overloaded{
                        [](const TensorSpec& spec) { return spec.str(); },
                        [](bool value) { return std::string(value ? "True" : "False"); },
                        [](std::int64_t value) { return std::to_string(value); },
                        [](double value) { return shortest_real(value); },
                        [](const std::string& value) { return "'" + value + "'"; },
                        [](const VariableKey& v) { return "<Variable " + std::to_string(v.id) + ">"; },
                    },
                    arg);
}

const char* arg_key_kind(const ArgKey& arg) noexcept {
  static const char* const kinds[] = {"tensor", "bool", "int", "float", "string", "variable"};
  return kinds[arg.index()];
}

bool same_arg_key(const ArgKey& a, const ArgKey& b) noexcept {
  const auto* x = std::get_if<double>(&a);
  const auto* y = std::get_if<double>(&b);
  if (x != nullptr && y != nullptr) return *x == *y || (std::isnan(*x) && std::isnan(*y));
  return a == b;
}

bool operator==(const TraceKey& a, const TraceKey& b) noexcept {
  return a.structure_.text == b.structure_.text &&
         std::equal(a.args_.begin(), a.args_.end(), b.args_.begin(), b.args_.end(), same_arg_key);
}

bool TraceKey::accepts(const TraceKey& call) const noexcept {
  if (args_.size() != call.args_.size() || structure_.text != call.structure_.text) return false;
  for (std::size_t i = 0; i < args_.size(); ++i) {
    const ArgKey &mine = args_[i], &theirs = call.args_[i];
    if (mine.index() != theirs.index()) return false;
    if (const auto* spec = std::get_if<TensorSpec>(&mine)) {
      const TensorSpec& other = std::get<TensorSpec>(theirs);
      if (spec->dtype() != other.dtype() || spec->shape().rank() != other.shape().rank()) return false;
      for (int d = 0; d < spec->shape().rank(); ++d) {  // an unknown dim here accepts any; a known one only itself
        auto want = spec->shape()[static_cast<std::size_t>(d)];
        if (want >= 0 && want != other.shape()[static_cast<std::size_t>(d)]) return false;
      }
    } else if (!same_arg_key(mine, theirs)) {
      return false;
    }
  }
  return true;
}

std::size_t TraceKey::hash() const noexcept {
  std::size_t seed = mix(args_.size(), std::hash<std::string>{}(structure_.text));
  for (const ArgKey& arg : args_) {
    seed = mix(seed, arg.index());
    std::visit(Overloaded{
                   [&](const TensorSpec& spec) {
                     seed = mix(seed, static_cast<std::size_t>(spec.dtype()));
                     for (auto d : spec.shape().dims()) seed = mix(seed, static_cast<std::size_t>(d));
                   },
                   [&](bool value) { seed = mix(seed, value); },
                   [&](std::int64_t value) { seed = mix(seed, std::hash<std::int64_t>{}(value)); },
                   [&](double value) {  // one hash for every NaN, as they are all equal here
                     seed = mix(seed, std::isnan(value) ? 0x7ff8u : std::hash<double>{}(value));
                   },
                   [&](const std::string& value) { seed = mix(seed, std::hash<std::string>{}(value)); },
                   [&](const VariableKey& v) { seed = mix(seed, std::hash<std::uint64_t>{}(v.id)); },
               },
               arg);
  }
  return seed;
}

namespace {

/// The structure's template with each leaf replaced by leaf(i); a flat call's "(leaf(0), leaf(1), ...)".
template <class Leaf>
std::string fill_structure(const std::string& text, std::size_t leaves, Leaf leaf) {
  std::string out;
  if (text.empty()) {
    out = "(";
    for (std::size_t i = 0; i < leaves; ++i) out += (i ? ", " : "") + leaf(i);
    return out + ")";
  }
  std::size_t i = 0;
  for (char c : text) {
    if (c == ArgStructure::kLeaf) out += leaf(i++);
    else out += c;
  }
  return out;
}

}  // namespace

std::string TraceKey::str() const {
  return fill_structure(structure_.text, args_.size(), [&](std::size_t i) {
    return i < args_.size() ? arg_key_str(args_[i]) : std::string("?");
  });
}

std::string TraceKey::structure_str() const {
  return fill_structure(structure_.text, args_.size(), [](std::size_t) { return std::string("*"); });
}

}  // namespace tl
