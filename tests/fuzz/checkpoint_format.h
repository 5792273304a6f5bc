// What fuzz_checkpoint and the seed generator share: the fixed variables a fuzzed checkpoint is restored into,
// and the one-byte mode that precedes the checkpoint bytes in a fuzz input.
//
//   auto& vars = tl::fuzz::checkpoint_variables();   // model/w f32[2,3], model/b f32[3], model/mask bool[4], ...
//   tl::Checkpoint ckpt = tl::fuzz::checkpoint_of(vars);
//
// Mode byte: bits 0-1 how to treat the bytes that follow (0 as they are; 1 fix the header's index CRC; 2 also
// recompute every tensor's crc32 in the index, so mutations get past the checksums to the validation behind
// them), bit 2: restore from a file instead of from_bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace tl::fuzz {

struct CheckpointVariables {
  std::vector<Variable> model;      ///< w f32[2,3], b f32[3], mask bool[4], step i32[]
  std::vector<Variable> optimizer;  ///< m f32[2,3], empty f32[0,4]
};

/// The variables every fuzz input is restored into, with their initial values.
inline CheckpointVariables make_checkpoint_variables() {
  CheckpointVariables v;
  v.model = {Variable(constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3}), "w"), Variable(constant({0.5f, -0.5f, 0.f}), "b"),
             Variable(constant({true, false, true, true}, {4}), "mask"), Variable(scalar(std::int32_t{7}), "step")};
  v.optimizer = {Variable(zeros({2, 3}), "m"), Variable(zeros({0, 4}), "empty")};
  return v;
}

inline Checkpoint checkpoint_of(const CheckpointVariables& v) {
  return Checkpoint({{"model", v.model}, {"optimizer", v.optimizer}});
}

inline constexpr std::uint8_t kCheckpointMagic[8] = {'T', 'L', 'C', 'K', 'P', 'T', 0, 1};

enum CheckpointMode : std::uint8_t { kRaw = 0, kFixIndexCrc = 1, kResign = 2, kFromFile = 4 };

/// A checkpoint file's bytes (core/nn/checkpoint.cpp's format): `magic`, the index length and CRC, the index, then
/// `data`, so a test or the fuzz target can sign bytes it changed.
inline std::vector<std::uint8_t> checkpoint_bytes(const std::string& index, std::span<const std::uint8_t> data,
                                                  std::span<const std::uint8_t> magic = kCheckpointMagic) {
  std::vector<std::uint8_t> out(magic.begin(), magic.end());
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(std::uint64_t{index.size()} >> (8 * i)));
  std::uint32_t crc = detail::checkpoint_crc32({reinterpret_cast<const std::uint8_t*>(index.data()), index.size()});
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(crc >> (8 * i)));
  out.insert(out.end(), index.begin(), index.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace tl::fuzz
