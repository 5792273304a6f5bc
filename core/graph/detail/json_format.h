// The pieces of the graph JSON format shared by the writer and the reader (private to core/graph).
//
//   {"format": "tracelab.graph", "version": 1, "nodes": [...], "outputs": [[3, 0]]}
//   attribute values are tagged with their type: {"ints": [1]}, {"bool": true}, {"float": 0.5}
//   non-finite reals are strings: "nan", "inf", "-inf", or raw bits "0x7fc00001" (NaN payloads)
#pragma once

#include <nlohmann/json.hpp>

namespace tl::graph::detail {

/// Ordered, so attributes and keys keep the order they were written in.
using Json = nlohmann::ordered_json;

inline constexpr const char* kFormatName = "tracelab.graph";
inline constexpr int kFormatVersion = 1;
/// Deeper nesting than this is rejected before parsing (the format needs 5 levels).
inline constexpr int kMaxDepth = 32;

}  // namespace tl::graph::detail
