// The ragged experiment's configuration, mode names and data: validation that names the bad field, the default
// buckets, and the examples every mode trains on (generated from the seed, bit-identical natively and in WASM).
#include <algorithm>
#include <cstdlib>

#include "experiments/detail/ragged_model.h"
#include "tracelab/base/error.h"
#include "tracelab/tensor/creation.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRACELAB_HEAP_FROM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TRACELAB_HEAP_FROM_ASAN 1
#endif
#if defined(TRACELAB_HEAP_FROM_ASAN)
#include <sanitizer/allocator_interface.h>
#elif defined(__EMSCRIPTEN__) || defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tl::experiments {
namespace {

constexpr RaggedMode kModes[] = {RaggedMode::eager, RaggedMode::function, RaggedMode::signature,
                                 RaggedMode::relaxed, RaggedMode::loop, RaggedMode::bucketed};

void check_range(const char* field, std::int64_t value, std::int64_t low, std::int64_t high) {
  TL_CHECK(value >= low && value <= high, InvalidArgument, "ragged experiment: ", field, " must be in [", low, ", ",
           high, "], got ", value);
}

}  // namespace

const char* mode_name(RaggedMode mode) noexcept {
  switch (mode) {
    case RaggedMode::eager: return "eager";
    case RaggedMode::function: return "function";
    case RaggedMode::signature: return "signature";
    case RaggedMode::relaxed: return "relaxed";
    case RaggedMode::loop: return "loop";
    case RaggedMode::bucketed: return "bucketed";
  }
  return "?";
}

RaggedMode parse_mode(std::string_view name) {
  for (RaggedMode mode : kModes)
    if (name == mode_name(mode)) return mode;
  throw InvalidArgument(tl::detail::cat("ragged experiment: unknown mode '", name,
                                       "' (expected eager, function, signature, relaxed, loop or bucketed)"));
}

std::vector<RaggedMode> all_modes() { return {std::begin(kModes), std::end(kModes)}; }

std::vector<RaggedMode> parse_modes(std::string_view text) {
  std::vector<RaggedMode> modes;
  while (true) {
    std::size_t comma = text.find(',');
    RaggedMode mode = parse_mode(text.substr(0, comma));
    TL_CHECK(std::find(modes.begin(), modes.end(), mode) == modes.end(), InvalidArgument,
             "ragged experiment: mode '", mode_name(mode), "' is listed twice");
    modes.push_back(mode);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return modes;
}

void RaggedConfig::validate() const {
  TL_CHECK(!modes.empty(), InvalidArgument, "ragged experiment: modes is empty (give at least one mode)");
  for (std::size_t i = 0; i < modes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      TL_CHECK(modes[i] != modes[j], InvalidArgument, "ragged experiment: mode '", mode_name(modes[i]),
               "' is listed twice");
  check_range("steps", steps, 1, 10'000'000);
  check_range("min_length", min_length, 1, 4096);
  check_range("max_length", max_length, 1, 4096);
  TL_CHECK(min_length <= max_length, InvalidArgument, "ragged experiment: the X range is reversed: min_length ",
           min_length, " > max_length ", max_length);
  check_range("features", features, 1, 4096);
  check_range("batch_size", batch_size, 1, 4096);
  TL_CHECK(!hidden_units.empty(), InvalidArgument, "ragged experiment: hidden_units is empty");
  TL_CHECK(hidden_units.size() <= 32, InvalidArgument, "ragged experiment: at most 32 hidden layers, got ",
           hidden_units.size());
  for (std::int64_t units : hidden_units) check_range("each of hidden_units", units, 1, 4096);
  TL_CHECK(learning_rate > 0 && learning_rate <= 10, InvalidArgument,
           "ragged experiment: learning_rate must be in (0, 10], got ", learning_rate);
  TL_CHECK(optimizer == "adam" || optimizer == "sgd" || optimizer == "rmsprop", InvalidArgument,
           "ragged experiment: optimizer must be adam, sgd or rmsprop, got '", optimizer, "'");
  check_range("examples", examples, 0, steps);
  check_range("warmup_steps", warmup_steps, 0, 100'000);
  std::int64_t elements = batch_size * max_length * features;
  check_range("batch_size * max_length * features", elements, 1, 1 << 22);
  check_range("examples held in memory * (max_length * features * batch_size)",
              (examples == 0 ? steps : examples) * elements, 1, std::int64_t{1} << 28);
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    check_range("each bucket", buckets[i], 1, 4096);
    TL_CHECK(i == 0 || buckets[i] > buckets[i - 1], InvalidArgument,
             "ragged experiment: buckets must increase, got ", buckets[i - 1], " then ", buckets[i]);
  }
  TL_CHECK(buckets.empty() || buckets.back() >= max_length, InvalidArgument,
           "ragged experiment: the largest bucket (", buckets.empty() ? 0 : buckets.back(),
           ") must be at least max_length (", max_length, ")");
}

std::vector<std::int64_t> RaggedConfig::effective_buckets() const {
  if (!buckets.empty()) return buckets;
  std::vector<std::int64_t> out;
  for (std::int64_t b = 2; b < max_length; b *= 2) out.push_back(b);
  out.push_back(max_length);
  return out;
}

const RaggedModeResult& RaggedResult::mode(RaggedMode m) const {
  for (const auto& r : modes)
    if (r.mode == m) return r;
  throw InvalidArgument(tl::detail::cat("ragged experiment: the run has no result for mode '", mode_name(m), "'"));
}

std::vector<RaggedExample> make_ragged_data(const RaggedConfig& config) {
  config.validate();
  std::int64_t count = config.examples == 0 ? config.steps : config.examples;
  Generator gen(config.seed);
  std::vector<RaggedExample> data(static_cast<std::size_t>(count));
  for (RaggedExample& example : data) {
    example.length = gen.uniform({}, static_cast<double>(config.min_length),
                                 static_cast<double>(config.max_length + 1), int32)
                         .item<std::int64_t>();
    example.x = gen.uniform({config.batch_size, example.length, config.features}).to_vector<float>();
    example.y = gen.uniform({config.batch_size}).to_vector<float>();
  }
  return data;
}

std::vector<std::vector<float>> initial_kernels(const RaggedConfig& config) {
  config.validate();
  auto model = detail::make_model(config);
  (*model)(zeros({config.batch_size, 1, config.features}));  // builds the weights
  std::vector<std::vector<float>> kernels;
  for (const auto& layer : model->stack())
    kernels.push_back(static_cast<const layers::Dense&>(*layer).kernel().read().to_vector<float>());
  return kernels;
}

std::size_t heap_bytes() noexcept {
#if defined(TRACELAB_HEAP_FROM_ASAN)
  return __sanitizer_get_current_allocated_bytes();  // ASan's allocator replaces malloc's
#elif defined(__EMSCRIPTEN__)
  return static_cast<std::size_t>(mallinfo().uordblks);  // dlmalloc: bytes in allocated chunks
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;  // allocated chunks in the arenas + mmap'ed chunks
#else
  return 0;
#endif
}

}  // namespace tl::experiments
