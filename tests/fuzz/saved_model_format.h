// What fuzz_saved_model and the seed generator share: the one-byte mode that precedes the saved-model bytes in a
// fuzz input, and the framing (core/nn/saved_model.cpp's format) so either can sign a header it made or changed.
//
//   std::vector<std::uint8_t> input{tl::fuzz::kSavedModelResign};   // then the bytes of tl::saved_model::to_bytes
//
// Mode byte: bit 0 re-signs the header (its length and CRC-32 recomputed) before loading.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace tl::fuzz {

inline constexpr std::size_t kSavedModelHeader = 20;  // magic (8), header length (8), header CRC (4)
inline constexpr std::uint8_t kSavedModelMagic[8] = {'T', 'L', 'S', 'A', 'V', 'E', 0, 1};

enum SavedModelMode : std::uint8_t { kSavedModelRaw = 0, kSavedModelResign = 1 };

/// A saved model's bytes: `magic`, the header's length and CRC, the header, then `data` (the variables'
/// checkpoint).
inline std::vector<std::uint8_t> saved_model_bytes(const std::string& header, std::span<const std::uint8_t> data,
                                                   std::span<const std::uint8_t> magic = kSavedModelMagic) {
  std::vector<std::uint8_t> out(magic.begin(), magic.end());
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(std::uint64_t{header.size()} >> (8 * i)));
  std::uint32_t crc = detail::checkpoint_crc32({reinterpret_cast<const std::uint8_t*>(header.data()), header.size()});
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(crc >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace tl::fuzz
