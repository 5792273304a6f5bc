// The gradient tape's own cost: nanoseconds added per recorded op, and per op of the backward pass, on
// one-element tensors (so kernels cost almost nothing and the bookkeeping shows). Medians of 9 repeats.
// Run natively (build/native/bench/tape_bench) and in WASM (node build/wasm/bench/tape_bench.js).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "tracelab/tracelab.h"

namespace {

using Clock = tl::Clock;
constexpr int kChain = 2000;  // ops per measurement
constexpr int kRepeats = 9;

double ns_since(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

double median(std::vector<double> samples) {
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

/// A chain of kChain multiplications starting from x; returns the last value.
tl::Tensor chain(const tl::Tensor& x, const tl::Tensor& factor) {
  tl::Tensor y = x;
  for (int i = 0; i < kChain; ++i) y = y * factor;
  return y;
}

}  // namespace

int main() {
  auto x = tl::constant({1.f}), factor = tl::constant({1.0001f});
  std::vector<double> eager, recorded, backward, dense_forward, dense_recorded;
  for (int r = 0; r < 3; ++r) {  // warm-up: lets a WASM engine tier up the hot code before timing
    tl::GradientTape tape;
    tape.watch(x);
    tape.gradient(chain(x, factor), x);
  }
  for (int r = 0; r < kRepeats; ++r) {
    auto start = Clock::now();
    chain(x, factor);
    eager.push_back(ns_since(start) / kChain);

    tl::GradientTape tape;
    tape.watch(x);
    start = Clock::now();
    auto y = chain(x, factor);
    recorded.push_back(ns_since(start) / kChain);
    start = Clock::now();
    tape.gradient(y, x);
    backward.push_back(ns_since(start) / kChain);
  }
  // A Dense + relu layer on the ragged model's sizes, forward only vs recorded.
  tl::Generator gen(1);
  tl::Variable w(gen.uniform({20, 10}), "w"), b(tl::zeros({10}), "b");
  auto input = gen.uniform({1, 20});
  for (int i = 0; i < 2000; ++i) tl::relu(tl::matmul(input, w) + b);  // warm-up
  for (int r = 0; r < kRepeats; ++r) {
    auto start = Clock::now();
    for (int i = 0; i < 500; ++i) tl::relu(tl::matmul(input, w) + b);
    dense_forward.push_back(ns_since(start) / 500);
    tl::GradientTape tape;
    start = Clock::now();
    for (int i = 0; i < 500; ++i) tl::relu(tl::matmul(input, w) + b);
    dense_recorded.push_back(ns_since(start) / 500);
  }
  double e = median(eager), rec = median(recorded), back = median(backward);
  std::printf("tracelab %s tape_bench (%s)\n", tl::version,
#ifdef __EMSCRIPTEN__
              "wasm"
#else
              "native"
#endif
  );
  std::printf("%-52s %10.0f ns\n", "eager mul f32[1] (no tape)", e);
  std::printf("%-52s %10.0f ns\n", "same op recorded on a tape", rec);
  std::printf("%-52s %10.0f ns\n", "  recording cost per op", rec - e);
  std::printf("%-52s %10.0f ns\n", "backward per recorded op (mul: 2 rule ops + accumulate)", back);
  std::printf("%-52s %10.0f ns\n", "Dense(20->10)+relu forward, no tape", median(dense_forward));
  std::printf("%-52s %10.0f ns\n", "Dense(20->10)+relu forward, recorded", median(dense_recorded));
  return 0;
}
