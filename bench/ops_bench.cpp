// Eager op timings: the median of several repeats of each op, in microseconds, plus the cost of the funnel
// itself (a 1-element add). Run natively and as WASM under Node to compare the two builds on one machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace {

/// Median wall time of one call in microseconds, over `repeats` timed batches of `inner` calls.
double median_us(const std::function<void()>& fn, int inner, int repeats = 9) {
  fn();  // warm-up
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    auto start = tl::Clock::now();
    for (int i = 0; i < inner; ++i) fn();
    std::chrono::duration<double, std::micro> elapsed = tl::Clock::now() - start;
    samples.push_back(elapsed.count() / inner);
  }
  std::nth_element(samples.begin(), samples.begin() + repeats / 2, samples.end());
  return samples[repeats / 2];
}

void row(const std::string& name, double us) { std::printf("%-44s %12.2f\n", name.c_str(), us); }

}  // namespace

int main() {
  tl::Generator gen(1);
  std::printf("tracelab %s ops_bench (%s)\n", tl::version,
#ifdef __EMSCRIPTEN__
              "wasm"
#else
              "native"
#endif
  );
  std::printf("%-44s %12s\n", "op", "median us");
  auto one = gen.uniform({1}), x20 = gen.uniform({1, 7, 20});
  row("add f32[1] + f32[1] (funnel overhead)", median_us([&] { tl::add(one, one); }, 20000));
  auto a = gen.uniform({1000, 100}), bias = gen.uniform({100});
  row("add f32[1000,100] + f32[100] (broadcast)", median_us([&] { tl::add(a, bias); }, 200));
  row("mul f32[1000,100] * 2 (weak scalar)", median_us([&] { tl::mul(a, 2); }, 200));
  row("relu f32[1000,100]", median_us([&] { tl::relu(a); }, 200));
  row("reduce_max f32[1,7,20] axis 1", median_us([&] { tl::reduce_max(x20, {1}, true); }, 20000));
  row("reduce_sum f32[1000,100] axis 0", median_us([&] { tl::reduce_sum(a, {0}); }, 200));
  for (int n : {16, 64, 256}) {
    auto m = gen.uniform({n, n});
    row("matmul f32[" + std::to_string(n) + "," + std::to_string(n) + "] x same",
        median_us([&] { tl::matmul(m, m); }, n >= 256 ? 5 : 200));
  }
  auto image = gen.uniform({8, 32, 32, 16}), filters = gen.uniform({3, 3, 16, 32});
  row("conv2d f32[8,32,32,16] * [3,3,16,32] SAME", median_us([&] { tl::conv2d(image, filters, {1, 1}, "SAME"); }, 3));
  row("max_pool2d f32[8,32,32,16] 2x2/2", median_us([&] { tl::max_pool2d(image, {2, 2}, {2, 2}); }, 20));
  auto logits = gen.uniform({256, 10});
  row("softmax f32[256,10]", median_us([&] { tl::softmax(logits); }, 2000));
  return 0;
}
