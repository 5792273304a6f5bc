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

enum CheckpointMode : std::uint8_t { kRaw = 0, kFixIndexCrc = 1, kResign = 2, kFromFile = 4 };

}  // namespace tl::fuzz
