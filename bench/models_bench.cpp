// Compute-bound models: one SGD training step of an MLP 784-512-10 (batch 128) and of a CNN
// conv16-pool-conv32-pool-dense10 on 28x28x1 images (batch 32; 3x3 SAME convolutions, 2x2 max pooling), eager and
// traced, from the same initial weights on the same generated batch; then the kernels those steps spend their time
// in, each beside the matmul of the same GEMM size (conv2d and its two backprops are im2col/col2im around one GEMM).
// The ragged experiment's traced step is printed for reference. bench/js/models_bench.mjs runs this program natively
// and in WASM and its JavaScript twin in one process, and prints the ratios.
//
// FLOPs are counted from the shapes: 2*m*n*k for every matmul and convolution the step runs (forward, the weight
// gradients, and the input gradients of every layer but the first, which the tape does not compute); elementwise
// ops, pooling and the loss are left out. GFLOP/s = that count / the median step time.
//   build/native/bench/models_bench [--steps N] [--warmup N] [--models mlp,cnn,ragged] [--no-kernels] [--json FILE]
//   node build/wasm/bench/models_bench.js --steps 20
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <tracelab/tracelab.h>

namespace {

using tl::Tensor;
using Clock = tl::Clock;
using Json = nlohmann::json;

struct Timing {
  double median_ms = 0, p90_ms = 0, min_ms = 0;
};

Timing summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[static_cast<std::size_t>(std::lround(q * static_cast<double>(ms.size() - 1)))]; };
  return {at(0.5), at(0.9), ms.front()};
}

/// Runs `body` `warmup` times untimed, then `steps` times, each timed on its own.
Timing time_calls(int warmup, int steps, const std::function<void()>& body) {
  for (int i = 0; i < warmup; ++i) body();
  std::vector<double> ms;
  for (int i = 0; i < steps; ++i) {
    auto start = Clock::now();
    body();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return summarize(std::move(ms));
}

// ---- the models ----

struct ModelSpec {
  std::string name;      ///< "mlp" / "cnn"
  std::string title;
  tl::Shape input;       ///< one batch of x
  double flops = 0;      ///< matmul/conv FLOPs of one training step
  std::function<std::shared_ptr<tl::layers::Sequential>()> make;
};

/// 2*m*n*k for the forward matmul of Dense(in -> out) on a batch, once more for the kernel's gradient, once more
/// for the input's gradient unless it is the first layer.
double dense_flops(double batch, double in, double out, bool first) {
  return 2 * batch * in * out * (first ? 2 : 3);
}

/// The same for a SAME, stride-1 k x k convolution on an h x w image.
double conv_flops(double batch, double h, double w, double k, double in, double out, bool first) {
  return 2 * batch * h * w * k * k * in * out * (first ? 2 : 3);
}

ModelSpec mlp_spec() {
  using namespace tl::layers;
  return {"mlp", "MLP 784-512-10, batch 128", tl::Shape{128, 784},
          dense_flops(128, 784, 512, true) + dense_flops(128, 512, 10, false), [] {
            return std::make_shared<Sequential>(LayerList{
                std::make_shared<Dense>(512, DenseOptions{.activation = "relu", .seed = 1}),
                std::make_shared<Dense>(10, DenseOptions{.seed = 2})});
          }};
}

ModelSpec cnn_spec() {
  using namespace tl::layers;
  return {"cnn", "CNN conv16-pool-conv32-pool-dense10, batch 32", tl::Shape{32, 28, 28, 1},
          conv_flops(32, 28, 28, 3, 1, 16, true) + conv_flops(32, 14, 14, 3, 16, 32, false) +
              dense_flops(32, 7 * 7 * 32, 10, false),
          [] {
            auto conv = [](std::int64_t filters, std::uint64_t seed) {
              return std::make_shared<Conv2D>(filters, 3,
                                              Conv2DOptions{.padding = "same", .activation = "relu", .seed = seed});
            };
            return std::make_shared<Sequential>(
                LayerList{conv(16, 1), std::make_shared<MaxPool2D>(2), conv(32, 2), std::make_shared<MaxPool2D>(2),
                          std::make_shared<Flatten>(), std::make_shared<Dense>(10, DenseOptions{.seed = 3})});
          }};
}

/// A model with its loss and optimizer; step() is one SGD step on (x, y), returning the loss.
struct Trainer {
  explicit Trainer(const ModelSpec& spec) : model(spec.make()) {}
  std::shared_ptr<tl::layers::Sequential> model;
  tl::losses::SparseCategoricalCrossentropy loss_fn{/*from_logits=*/true};
  tl::optimizers::SGD optimizer{0.01};

  Tensor step(const Tensor& x, const Tensor& y) {
    tl::GradientTape tape;
    Tensor loss = loss_fn(y, (*model)(x, /*training=*/true));
    std::vector<tl::Variable> variables = model->trainable_variables();
    optimizer.apply_gradients(tape.gradient(loss, variables), variables);
    return loss;
  }
};

struct ModelResult {
  Timing eager, traced;
  std::vector<float> eager_losses, traced_losses;
};

ModelResult run_model(const ModelSpec& spec, int warmup, int steps) {
  Tensor x = tl::Generator(7).uniform(spec.input);
  Tensor y = tl::Generator(8).uniform(tl::Shape{spec.input[0]}, 0, 10, tl::int32);  // class labels
  ModelResult result;
  Trainer eager(spec), traced(spec);
  auto traced_step = tl::function([&](const Tensor& a, const Tensor& b) { return traced.step(a, b); },
                                  {.name = spec.name + "_step"});
  // The same step count both ways, so the losses can be compared step by step.
  result.eager = time_calls(warmup, steps, [&] { result.eager_losses.push_back(eager.step(x, y).item<float>()); });
  result.traced =
      time_calls(warmup, steps, [&] { result.traced_losses.push_back(traced_step(x, y).item<float>()); });
  return result;
}

// ---- the kernels ----

struct KernelRow {
  std::string name;
  double flops;
  Timing op, gemm;  ///< the op, and the matmul of the same GEMM size
};

/// conv2d, conv2d_backprop_input and conv2d_backprop_filter of a SAME stride-1 k x k convolution, each beside the
/// matmul its im2col form runs: forward (m x k*k*in)(k*k*in x out), input gradient (m x out)(out x k*k*in),
/// filter gradient (k*k*in x m)(m x out), with m = batch*h*w.
std::vector<KernelRow> conv_rows(const std::string& label, std::int64_t batch, std::int64_t hw, std::int64_t k,
                                 std::int64_t in, std::int64_t out, int warmup, int steps) {
  tl::Generator gen(11);
  Tensor x = gen.uniform({batch, hw, hw, in});
  Tensor f = gen.uniform({k, k, in, out});
  Tensor g = gen.uniform({batch, hw, hw, out});
  const std::int64_t m = batch * hw * hw, depth = k * k * in;
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(depth) * static_cast<double>(out);
  Tensor cols = gen.uniform({m, depth}), filters = gen.uniform({depth, out}), dy = gen.uniform({m, out});
  auto time = [&](const std::function<void()>& body) { return time_calls(warmup, steps, body); };
  return {
      {label + " conv2d", flops, time([&] { tl::conv2d(x, f, {1, 1}, "SAME"); }),
       time([&] { tl::matmul(cols, filters); })},
      {label + " conv2d_backprop_input", flops,
       time([&] { tl::conv2d_backprop_input(x.shape().dims(), f, g, {1, 1}, "SAME"); }),
       time([&] { tl::matmul(dy, filters, false, true); })},
      {label + " conv2d_backprop_filter", flops,
       time([&] { tl::conv2d_backprop_filter(x, f.shape().dims(), g, {1, 1}, "SAME"); }),
       time([&] { tl::matmul(cols, dy, true, false); })},
  };
}

/// The MLP's big matmul as its step runs it: forward, and the kernel's gradient (x^T g).
std::vector<KernelRow> matmul_rows(int warmup, int steps) {
  tl::Generator gen(12);
  Tensor x = gen.uniform({128, 784}), w = gen.uniform({784, 512}), g = gen.uniform({128, 512});
  const double flops = 2.0 * 128 * 784 * 512;
  auto time = [&](const std::function<void()>& body) { return time_calls(warmup, steps, body); };
  Timing forward = time([&] { tl::matmul(x, w); });
  return {{"MLP matmul (128,784)(784,512)", flops, forward, forward},
          {"MLP matmul x^T g (784,128)(128,512)", flops, time([&] { tl::matmul(x, g, true, false); }), forward}};
}

double gflops(double flops, double ms) { return ms > 0 ? flops / ms / 1e6 : 0; }

#ifdef __EMSCRIPTEN__
constexpr const char* kPlatform = "wasm";
#else
constexpr const char* kPlatform = "native";
#endif

Json timing_json(const Timing& t) { return {{"median_ms", t.median_ms}, {"p90_ms", t.p90_ms}, {"min_ms", t.min_ms}}; }

struct Options {
  int steps = 30;
  int warmup = 5;
  std::vector<std::string> models{"mlp", "cnn", "ragged"};
  bool kernels = true;
  std::string json;
};

Options parse(int argc, char** argv) {
  Options o;
  auto value = [&](int& i) -> std::string {
    TL_CHECK(i + 1 < argc, tl::InvalidArgument, "models_bench: ", argv[i], " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--steps") o.steps = std::stoi(value(i));
    else if (a == "--warmup") o.warmup = std::stoi(value(i));
    else if (a == "--no-kernels") o.kernels = false;
    else if (a == "--json") o.json = value(i);
    else if (a == "--models") {
      o.models.clear();
      std::string list = value(i);
      for (std::size_t at = 0; at <= list.size();) {
        std::size_t comma = std::min(list.find(',', at), list.size());
        o.models.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    } else {
      throw tl::InvalidArgument("models_bench: unknown argument " + a +
                                " (--steps N --warmup N --models mlp,cnn,ragged --no-kernels --json FILE)");
    }
  }
  TL_CHECK(o.steps >= 1 && o.warmup >= 0, tl::InvalidArgument, "models_bench: --steps must be >= 1, --warmup >= 0");
  for (const auto& m : o.models)
    TL_CHECK(m == "mlp" || m == "cnn" || m == "ragged", tl::InvalidArgument, "models_bench: unknown model \"", m,
             "\" (mlp, cnn, ragged)");
  return o;
}

bool selected(const Options& o, const char* name) {
  return std::find(o.models.begin(), o.models.end(), name) != o.models.end();
}

}  // namespace

int main(int argc, char** argv) try {
  Options options = parse(argc, argv);
  Json out = {{"platform", kPlatform}, {"steps", options.steps}, {"warmup", options.warmup}};
  bool losses_equal = true;
  std::printf("%-48s %9s %9s %9s %9s %8s %9s\n", "training step (SGD)", "eager ms", "p90", "traced ms", "p90",
              "e/t", "GFLOP/s");
  for (const ModelSpec& spec : {mlp_spec(), cnn_spec()}) {
    if (!selected(options, spec.name.c_str())) continue;
    ModelResult r = run_model(spec, options.warmup, options.steps);
    bool equal = true;
    for (std::size_t i = 0; i < r.eager_losses.size(); ++i)
      equal = equal && std::abs(r.eager_losses[i] - r.traced_losses[i]) <= 1e-5f * (1 + std::abs(r.eager_losses[i]));
    losses_equal = losses_equal && equal;
    std::printf("%-48s %9.3f %9.3f %9.3f %9.3f %7.2fx %9.1f  loss %.4f -> %.4f%s\n", spec.title.c_str(),
                r.eager.median_ms, r.eager.p90_ms, r.traced.median_ms, r.traced.p90_ms,
                r.eager.median_ms / r.traced.median_ms, gflops(spec.flops, r.traced.median_ms),
                r.traced_losses.front(), r.traced_losses.back(), equal ? "" : "  LOSSES DIFFER eager/traced");
    out["models"][spec.name] = {{"title", spec.title},
                                {"flops", spec.flops},
                                {"eager", timing_json(r.eager)},
                                {"traced", timing_json(r.traced)},
                                {"losses_equal", equal},
                                {"first_loss", r.traced_losses.front()},
                                {"last_loss", r.traced_losses.back()}};
  }
  if (selected(options, "ragged")) {
    tl::experiments::RaggedConfig config;
    config.modes = {tl::experiments::RaggedMode::function};
    config.steps = 2000;
    config.examples = 100;
    auto result = tl::experiments::run_ragged(config);
    double us = result.modes[0].steady_median_us();
    std::printf("%-48s %9s %9s %9.4f %9s  (ragged experiment, function mode, steady median)\n",
                "ragged step (1, X, 20), Adam", "", "", us / 1000, "");
    out["models"]["ragged"] = {{"title", "ragged step, function mode"}, {"traced", {{"median_ms", us / 1000}}}};
  }
  if (options.kernels) {
    std::printf("\n%-48s %9s %9s %9s %9s %9s\n", "kernel (same GEMM size)", "op ms", "GFLOP/s", "matmul ms",
                "GFLOP/s", "op/mm");
    std::vector<KernelRow> rows = matmul_rows(options.warmup, options.steps);
    for (auto& row : conv_rows("CNN conv1 (32,28,28,1)*(3,3,1,16)", 32, 28, 3, 1, 16, options.warmup, options.steps))
      rows.push_back(row);
    for (auto& row : conv_rows("CNN conv2 (32,14,14,16)*(3,3,16,32)", 32, 14, 3, 16, 32, options.warmup,
                               options.steps))
      rows.push_back(row);
    for (const KernelRow& row : rows) {
      double op = gflops(row.flops, row.op.median_ms), mm = gflops(row.flops, row.gemm.median_ms);
      std::printf("%-48s %9.3f %9.1f %9.3f %9.1f %8.2f\n", row.name.c_str(), row.op.median_ms, op,
                  row.gemm.median_ms, mm, op / mm);
      out["kernels"].push_back({{"name", row.name}, {"flops", row.flops}, {"op", timing_json(row.op)},
                                {"matmul", timing_json(row.gemm)}});
    }
  }
  out["losses_equal"] = losses_equal;
  if (!options.json.empty()) std::ofstream(options.json) << out.dump(1) << "\n";
  if (!losses_equal) {
    std::fprintf(stderr, "models_bench: eager and traced losses differ\n");
    return 1;
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "models_bench: %s\n", e.what());
  return 2;
}
