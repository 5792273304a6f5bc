// parse_file_json: the JSON part of a checkpoint or saved-model file (the index, the header), parsed with its
// nesting limited. nlohmann's parser, dump() and destructor recurse, so a crafted file nesting thousands of levels
// would exhaust the stack; the limit rejects it while parsing, before any of them runs.
//
//   Json index = detail::parse_file_json(bytes, 16, "checkpoint", "index");
//   // a corrupt file: InvalidArgument "checkpoint: the index is not valid JSON (the file is corrupt)"
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "tracelab/base/error.h"

namespace tl::detail {

/// `text` parsed; InvalidArgument "<format>: the <part> ..." when it is not JSON or nests deeper than `max_depth`.
inline nlohmann::json parse_file_json(std::span<const std::uint8_t> text, int max_depth, std::string_view format,
                                      std::string_view part) {
  auto limit_depth = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > max_depth)
      throw InvalidArgument(cat(format, ": the ", part, " nests deeper than ", max_depth, " levels (the file is corrupt)"));
    return true;
  };
  nlohmann::json json = nlohmann::json::parse(text.begin(), text.end(), limit_depth, false);
  if (json.is_discarded()) throw InvalidArgument(cat(format, ": the ", part, " is not valid JSON (the file is corrupt)"));
  return json;
}

}  // namespace tl::detail
