// Number and string formatting shared by the graph's text and JSON forms (private to core/graph).
//
//   shortest_float(0.1f);        // "0.1": the fewest digits that read back as the same float
//   shortest_double(1.0 / 3);    // "0.3333333333333333"
//   quoted("a\"b");              // "\"a\\\"b\"" (JSON escaping)
#pragma once

#include <cstring>
#include <string>
#include <string_view>

namespace tl::graph::detail {

/// The fewest significant digits (%g style) that strtof reads back as exactly `value`; value must be finite.
std::string shortest_float(float value);
/// The same for doubles (strtod).
std::string shortest_double(double value);
/// The object representation of `value` as a `To` of the same size (std::bit_cast, which em++'s libc++ lacks).
template <class To, class From>
To bit_copy(From value) noexcept {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  std::memcpy(&out, &value, sizeof out);
  return out;
}
/// `text` in double quotes with JSON escapes (\" \\ \n \t and \u00XX for other control characters).
std::string quoted(std::string_view text);

}  // namespace tl::graph::detail
