// What tl::function costs and saves: per-call overhead of a traced 1-op function vs the eager op, the trace
// time of a ~50-node function, the executor's buffer allocations per steady-state call, and a small MLP step
// eager vs traced (static shapes) vs traced (unknown dims). Medians of 9 repeats, after a warm-up.
// Run natively (build/native/bench/function_bench) and in WASM (node build/wasm/bench/function_bench.js).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "tracelab/tracelab.h"

namespace {

using Clock = tl::Clock;
constexpr int kRepeats = 9;

double median(std::vector<double> samples) {
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

/// Median over repeats of the mean time per iteration, in µs.
double time_us(int iterations, const std::function<void()>& body) {
  for (int i = 0; i < iterations; ++i) body();  // warm-up (lets a WASM engine tier up)
  std::vector<double> samples;
  for (int r = 0; r < kRepeats; ++r) {
    auto start = Clock::now();
    for (int i = 0; i < iterations; ++i) body();
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() / iterations);
  }
  return median(samples);
}

/// Buffers allocated per call, averaged over `iterations` steady-state calls.
double allocations_per_call(int iterations, const std::function<void()>& body) {
  body();
  body();
  auto before = tl::detail::buffer_allocations();
  for (int i = 0; i < iterations; ++i) body();
  return static_cast<double>(tl::detail::buffer_allocations() - before) / iterations;
}

/// 48 elementwise ops on x, alternating so no pass can remove them: ~50 nodes.
tl::Tensor fifty_nodes(const tl::Tensor& x) {
  tl::Tensor y = x;
  for (int i = 0; i < 16; ++i) y = tl::tanh(y * 1.01f + x);
  return y;
}

struct Mlp {
  tl::Variable w1{tl::Generator(1).uniform({20, 40}, -0.3, 0.3), "w1"};
  tl::Variable b1{tl::zeros({40}), "b1"};
  tl::Variable w2{tl::Generator(2).uniform({40, 1}, -0.3, 0.3), "w2"};
  tl::Tensor operator()(const tl::Tensor& x) const {
    return tl::reduce_sum(tl::matmul(tl::relu(tl::matmul(x, w1) + b1), w2));
  }
};

void row(const char* what, double eager, double traced, const char* unit) {
  std::printf("%-52s %10.2f %10.2f %8.2fx  %s\n", what, eager, traced, eager / traced, unit);
}

}  // namespace

int main() {
  std::printf("%-52s %10s %10s %9s\n", "", "eager", "traced", "ratio");
  tl::Tensor a = tl::constant({1.f, 2.f, 3.f, 4.f});
  auto add1 = tl::function([](const tl::Tensor& x) { return x + x; }, {.name = "add"});
  double eager_add = time_us(20000, [&] { tl::Tensor y = a + a; });
  double traced_add = time_us(20000, [&] { tl::Tensor y = add1(a); });
  row("1-op call (x + x, 4 floats), us per call", eager_add, traced_add, "(overhead of a traced call)");
  // What the call history adds per call (tl.function from JavaScript keeps 100 records with timings by default).
  auto recorded = tl::function([](const tl::Tensor& x) { return x + x; }, {.name = "add", .call_history = 100});
  auto untimed = tl::function([](const tl::Tensor& x) { return x + x; },
                              {.name = "add", .call_history = 100, .record_timings = false});
  double recorded_add = time_us(20000, [&] { tl::Tensor y = recorded(a); });
  double untimed_add = time_us(20000, [&] { tl::Tensor y = untimed(a); });
  std::printf("%-52s %10.2f %10.2f %9s  us per call: no history %.2f\n",
              "the same with call_history 100: timed / untimed", recorded_add, untimed_add, "", traced_add);

  tl::Tensor v = tl::ones({8, 16});
  double eager_50 = time_us(500, [&] { fifty_nodes(v); });
  std::vector<double> trace_times;
  for (int r = 0; r < kRepeats; ++r) {
    auto f = tl::function([](const tl::Tensor& x) { return fifty_nodes(x); }, {.name = "fifty", .call_history = 1});
    f(v);
    trace_times.push_back(f.calls()[0].trace_us);
  }
  auto f50 = tl::function([](const tl::Tensor& x) { return fifty_nodes(x); }, {.name = "fifty"});
  f50(v);
  double traced_50 = time_us(500, [&] { f50(v); });
  const auto* cf = f50.concrete_functions()[0];
  row("~50-node function, us per call", eager_50, traced_50, "");
  std::printf("  trace + optimize time of that function: %.1f us (median); %zu nodes traced, %zu after passes\n",
              median(trace_times), cf->traced_graph().num_nodes(), cf->graph().num_nodes());

  Mlp mlp;
  tl::Tensor x = tl::Generator(3).uniform({4, 20});
  auto static_step = tl::function([&](const tl::Tensor& in) { return mlp(in); }, {.name = "mlp"});
  auto dynamic_step = tl::function([&](const tl::Tensor& in) { return mlp(in); },
                                   {.input_signature = {tl::TensorSpec({-1, 20})}, .name = "mlp_dyn"});
  double eager_mlp = time_us(2000, [&] { mlp(x); });
  double static_mlp = time_us(2000, [&] { static_step(x); });
  double dynamic_mlp = time_us(2000, [&] { dynamic_step(x); });
  row("MLP 20-40-1 on (4, 20): traced, static shapes", eager_mlp, static_mlp, "us per call");
  row("MLP 20-40-1 on (4, 20): traced, signature (-1, 20)", eager_mlp, dynamic_mlp, "us per call");

  std::printf("\nbuffers allocated per steady-state call (outputs dropped):\n");
  std::printf("  MLP eager %.1f | traced static %.1f | traced unknown dims %.1f | 50-node traced %.1f\n",
              allocations_per_call(200, [&] { mlp(x); }), allocations_per_call(200, [&] { static_step(x); }),
              allocations_per_call(200, [&] { dynamic_step(x); }), allocations_per_call(200, [&] { f50(v); }));
  return 0;
}
