// Checkpoints: save and restore named variables (a model's, an optimizer's) to a file or a byte buffer — one
// file holding a JSON index (nlohmann/json) and the raw little-endian tensor data, each tensor with a CRC-32.
// Writes are atomic (a temporary file renamed over the old one); restore validates everything — names, dtypes,
// shapes, sizes, checksums — before it assigns anything, so a bad file never leaves variables half restored.
//
//   tl::Checkpoint ckpt({{"model", model.variables()}, {"optimizer", optimizer.variables()}});
//   ckpt.save("run/ckpt.tlc");         // ... later, or in another process with the same model:
//   ckpt.restore("run/ckpt.tlc");      // throws tl::InvalidArgument naming the problem, variables untouched
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tracelab/autodiff/variable.h"

namespace tl {

/// Named groups of variables saved to and restored from one file or byte buffer (tf.train.Checkpoint). Holds the
/// Variable handles, so it saves and restores the variables themselves, not copies.
class Checkpoint {
 public:
  /// A group name and its variables, e.g. {"model", model.variables()}.
  using Group = std::pair<std::string, std::vector<Variable>>;

  /// A checkpoint of no variables; add groups with add().
  Checkpoint() = default;
  /// Groups of variables by name (tf.train.Checkpoint(model=..., optimizer=...)).
  Checkpoint(std::initializer_list<Group> groups);
  /// Adds a group; its variables are stored under "<group>/<variable name>".
  Checkpoint& add(std::string group, std::vector<Variable> variables);

  /// The keys, in order. Throws InvalidArgument when two variables would share a key.
  std::vector<std::string> keys() const;

  /// Writes every variable to `path` atomically (temp file, fsync, rename, fsync of the folder); the old file stays
  /// until the new one is complete. Throws InvalidArgument on an I/O error (the old file is left as it was).
  void save(const std::string& path) const;
  /// Reads `path`, validates it against the variables, then assigns them all; on any problem throws
  /// InvalidArgument naming it and changes no variable.
  void restore(const std::string& path) const;

  /// The checkpoint as bytes (the same format as the file; for the browser).
  std::vector<std::uint8_t> to_bytes() const;
  /// Restores from bytes, with restore()'s validation.
  void from_bytes(std::span<const std::uint8_t> bytes) const;

 private:
  std::vector<std::pair<std::string, Variable>> entries() const;
  std::vector<Group> groups_;
};

/// Saves a checkpoint when a validation metric improves (a keep-best helper for custom loops).
class KeepBest {
 public:
  /// Which way is better.
  enum class Mode {
    max,  ///< a higher metric is better (accuracy)
    min,  ///< a lower metric is better (loss)
  };
  /// Saves `checkpoint` to `path` whenever update() sees a better metric.
  KeepBest(Checkpoint checkpoint, std::string path, Mode mode = Mode::max);
  /// Saves and returns true when `metric` beats the best so far (the first value always does); a NaN never does.
  bool update(double metric);
  /// The best metric so far (NaN before the first update).
  double best() const noexcept { return best_; }
  /// The file it saves to.
  const std::string& path() const noexcept { return path_; }

 private:
  Checkpoint checkpoint_;
  std::string path_;
  Mode mode_;
  double best_;
  bool has_best_ = false;
};

namespace detail {
/// Test hook: the next checkpoint (or saved model) write throws after writing `bytes` bytes of the temporary
/// file, as a crash mid-write would stop it (-1 disables). Never used outside tests.
void fail_next_checkpoint_write_after(std::int64_t bytes);
/// The CRC-32 (IEEE, as zlib's crc32) the checkpoint format stores for its index and each tensor; exposed for
/// tools and the fuzz target that re-sign mutated checkpoints.
std::uint32_t checkpoint_crc32(std::span<const std::uint8_t> bytes);
/// Writes `bytes` to `path` atomically (temp file, fsync, rename, fsync of the folder), as Checkpoint::save does;
/// errors are InvalidArgument starting "<what>: ". Shared by checkpoints and saved models.
void write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes, std::string_view what);
/// The whole file at `path`; errors are InvalidArgument starting "<what>: ".
std::vector<std::uint8_t> read_file(const std::string& path, std::string_view what);
}  // namespace detail

}  // namespace tl
