// What the optimizer's fusions buy: a chain of elementwise ops on 10^6 float32 elements run op by op (one
// full-size temporary per op) against the one fused_elementwise node fuse_elementwise() makes of it (member
// kernels over 4096-element chunks that stay in cache), matmul + bias + relu against fused_matmul, and a traced
// while_loop whose body the optimizer leaves as traced against the same loop with its body optimized.
// Medians over repeats, in milliseconds, and the ratio.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tracelab/graph/passes.h"
#include "tracelab/tracelab.h"

namespace {

/// Median wall time of one call in milliseconds over `repeats` calls, after warm-up calls for at least 0.3 s:
/// on this 2-core VM a fresh process runs a 256x512 GEMM at ~5.6 ms for its first ~80 ms of such work and at
/// ~3.3 ms after, whatever ran before, so every column starts warm.
double median_ms(const std::function<void()>& fn, int repeats = 15) {
  const auto warm_until = tl::Clock::now() + std::chrono::milliseconds(300);
  do fn();
  while (tl::Clock::now() < warm_until);
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    auto start = tl::Clock::now();
    fn();
    std::chrono::duration<double, std::milli> elapsed = tl::Clock::now() - start;
    samples.push_back(elapsed.count());
  }
  std::nth_element(samples.begin(), samples.begin() + repeats / 2, samples.end());
  return samples[repeats / 2];
}

void compare(const char* what, double unfused, double fused) {
  std::printf("%-66s %9.3f %9.3f %7.2fx\n", what, unfused, fused, unfused / fused);
}

/// The fused node's body for y = relu(x * a + b) * 0.5 - x, as fuse_elementwise makes it.
std::shared_ptr<const tl::graph::Graph> fused_chain() {
  tl::graph::Graph g;
  auto x = g.add_input({tl::float32, {-1}}, "x");
  auto a = g.add_input({tl::float32, {-1}}, "a");
  auto b = g.add_input({tl::float32, {-1}}, "b");
  auto half = g.add_constant(tl::scalar(0.5f));
  auto r = g.add_op("relu", g.add_op("add", {g.add_op("mul", {x, a})[0], b}))[0];
  g.set_outputs({g.add_op("sub", {g.add_op("mul", {r, half})[0], x})[0]});
  tl::graph::Graph fused = tl::graph::fuse_elementwise(g);
  for (const auto& node : fused.nodes())
    if (!node.subgraphs.empty()) return node.subgraphs[0];
  return nullptr;
}

}  // namespace

int main() {
  std::printf("tracelab %s passes_bench (%s)\n", tl::version,
#ifdef __EMSCRIPTEN__
              "wasm"
#else
              "native"
#endif
  );
  std::printf("%-66s %9s %9s %8s\n", "median ms (us where a row says so)", "unfused", "fused", "ratio");
  tl::Generator gen(1);
  const std::int64_t n = 1000000;
  tl::Tensor x = gen.uniform({n}), a = gen.uniform({n}), b = gen.uniform({n}), half = tl::scalar(0.5f);
  const std::shared_ptr<const tl::graph::Graph> body = fused_chain();
  const tl::OpDef& fused_elementwise = tl::graph::fused_elementwise_op();
  compare("relu(x*a + b)*0.5 - x, f32[1000000] (5 ops)",
          median_ms([&] { tl::sub(tl::mul(tl::relu(tl::add(tl::mul(x, a), b)), half), x); }),
          median_ms([&] {
            tl::Tensor out;
            tl::Tensor in[] = {x, a, b, half};
            tl::execute(fused_elementwise, in, {}, std::span<tl::Tensor>(&out, 1), std::span(&body, 1));
          }));

  // The same chain on a small tensor under a tape, forward and gradient: a tape around an optimized tl::function
  // call replays its fused nodes, and each one's gradient replays its members and applies their rules.
  {
    const tl::Tensor xs = gen.uniform({1, 20}), as = gen.uniform({1, 20}), bs = gen.uniform({1, 20});
    auto gradient_of = [&](auto&& forward) {
      tl::GradientTape tape;
      tape.watch(xs);
      return tape.gradient(tl::reduce_sum(forward()), xs);
    };
    auto unfused = [&] { return tl::sub(tl::mul(tl::relu(tl::add(tl::mul(xs, as), bs)), half), xs); };
    auto fused = [&] {
      tl::Tensor out;
      tl::Tensor in[] = {xs, as, bs, half};
      tl::execute(fused_elementwise, in, {}, std::span<tl::Tensor>(&out, 1), std::span(&body, 1));
      return out;
    };
    compare("the same on f32[1,20] under a tape, with its gradient (us)",
            1000 * median_ms([&] { gradient_of(unfused); }, 2001), 1000 * median_ms([&] { gradient_of(fused); }, 2001));
  }

  const tl::OpDef& fused_matmul = tl::OpRegistry::global().get("fused_matmul");
  const tl::Attrs relu{{"activation", std::string("relu")}};
  for (std::int64_t rows : {256, 16384}) {
    const std::int64_t k = rows == 256 ? 512 : 32, cols = rows == 256 ? 512 : 64;
    tl::Tensor in = gen.uniform({rows, k}), w = gen.uniform({k, cols}), bias = gen.uniform({cols});
    std::string what = "relu(f32[" + std::to_string(rows) + "," + std::to_string(k) + "] @ f32[" + std::to_string(k) +
                       "," + std::to_string(cols) + "] + f32[" + std::to_string(cols) + "])";
    compare(what.c_str(), median_ms([&] { tl::relu(tl::add(tl::matmul(in, w), bias)); }),
            median_ms([&] { tl::execute(fused_matmul, {in, w, bias}, relu); }));
  }

  // A small dense layer iterated in a traced while_loop, forward and with its gradient (while_grad re-runs the
  // body under a tape): the columns are the loop body as traced (OptimizeOptions::subgraphs off) and optimized.
  tl::Variable kernel(gen.uniform({20, 20}) * 0.1f, "kernel"), bias(gen.uniform({20}) * 0.1f, "bias");
  const tl::Tensor h0 = gen.uniform({1, 20});
  auto iterate = [&](const tl::Tensor& h) {
    return tl::while_loop([](const auto& v) { return tl::less(v[0], 200); },
                          [&](const auto& v) {
                            tl::Tensor next = tl::tanh(tl::relu(tl::matmul(v[1], kernel.read()) + bias.read()) * 0.5f);
                            return std::vector<tl::Tensor>{v[0] + 1, next + 0.f};
                          },
                          {tl::scalar(0), h})[1];
  };
  auto loop_function = [&](bool subgraphs, bool gradient) {
    tl::FunctionOptions options;
    options.name = "loop";
    options.optimize.subgraphs = subgraphs;
    return tl::function([&, gradient](const tl::Tensor& h) {
      if (!gradient) return iterate(h);
      tl::GradientTape tape;
      tl::Tensor loss = tl::reduce_sum(iterate(h));
      return tape.gradient(loss, std::vector<tl::Variable>{kernel})[0];
    }, options);
  };
  for (bool gradient : {false, true}) {
    auto as_traced = loop_function(false, gradient), optimized = loop_function(true, gradient);
    compare(gradient ? "while_loop, 200 x tanh(relu(h @ W + b) * 0.5), with its gradient"
                     : "while_loop, 200 x tanh(relu(h @ W + b) * 0.5), f32[1,20]",
            median_ms([&] { as_traced(h0); }, 51), median_ms([&] { optimized(h0); }, 51));
  }
  return 0;
}
