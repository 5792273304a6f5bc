// shuffle: TF's buffer algorithm. A pass fills a buffer with the first buffer_size elements, then repeatedly
// outputs a uniformly chosen buffered element and puts the next input element in its slot (at the end of the
// input the slot takes the last buffered element instead). Randomness comes from tl::Generator (PCG32), so a
// seed gives the same orders natively and in WASM. Pass k of a dataset (counted per shuffle node, shared by
// copies of the Dataset value — TF keeps a seed generator resource for the same purpose) uses a seed derived
// from (seed, k) when reshuffle_each_iteration is set, else every pass uses the seed itself.
#include <atomic>

#include "data/detail/dataset_node.h"
#include "tracelab/tensor/creation.h"

namespace tl::data {
namespace {

/// SplitMix64: spreads (seed, pass) into a well-mixed 64-bit seed.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t pass) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (pass + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// A uniform index in [0, bound) without modulo bias.
std::size_t uniform_index(Generator& generator, std::size_t bound) {
  auto b = static_cast<std::uint32_t>(bound);
  std::uint32_t threshold = static_cast<std::uint32_t>(-b) % b;
  for (;;) {
    std::uint32_t r = generator.next_u32();
    if (r >= threshold) return r % b;
  }
}

class ShuffleSource final : public detail::ElementSource {
 public:
  ShuffleSource(detail::SourcePtr input, std::size_t buffer_size, std::uint64_t seed)
      : input_(std::move(input)), buffer_size_(buffer_size), generator_(seed) {}

  std::optional<Element> next() override {
    while (!input_done_ && buffer_.size() < buffer_size_) {
      std::optional<Element> element = input_->next();
      if (!element) input_done_ = true;
      else buffer_.push_back(std::move(*element));
    }
    if (buffer_.empty()) return std::nullopt;
    std::size_t index = uniform_index(generator_, buffer_.size());
    Element out = std::move(buffer_[index]);
    std::optional<Element> incoming = input_done_ ? std::nullopt : input_->next();
    if (incoming) {
      buffer_[index] = std::move(*incoming);
    } else {
      input_done_ = true;
      buffer_[index] = std::move(buffer_.back());
      buffer_.pop_back();
    }
    return out;
  }

 private:
  detail::SourcePtr input_;
  std::size_t buffer_size_;
  Generator generator_;
  std::vector<Element> buffer_;
  bool input_done_ = false;
};

}  // namespace

Dataset Dataset::shuffle(std::int64_t buffer_size, std::uint64_t seed, bool reshuffle_each_iteration) const {
  TL_CHECK(buffer_size >= 1 && buffer_size <= (std::int64_t{1} << 31), InvalidArgument,
           "shuffle: buffer_size must be in [1, 2^31], got ", buffer_size);
  auto input = node_;
  auto passes = std::make_shared<std::atomic<std::uint64_t>>(0);
  return detail::make_dataset(
      "ShuffleDataset", element_spec(), cardinality(), [input, buffer_size, seed, reshuffle_each_iteration, passes] {
        std::uint64_t pass = passes->fetch_add(1);
        std::uint64_t pass_seed = mix_seed(seed, reshuffle_each_iteration ? pass : 0);
        return std::make_shared<ShuffleSource>(input->make_source(), static_cast<std::size_t>(buffer_size),
                                               pass_seed);
      });
}

}  // namespace tl::data
