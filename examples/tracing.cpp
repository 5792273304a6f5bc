// Tracing in one page: what tl::function does on each call, why it retraces, and the three ways to tame
// retracing on ragged inputs — an input signature, reduce_retracing, or nothing (one graph per shape).
// Build: cmake --build --preset native; run: build/native/examples/tracing
#include <iostream>

#include <tracelab/tracelab.h>

int main() {
  // 1. A traced function: the C++ body runs once per new trace key; tl::print runs on every call.
  auto f = tl::function(
      [](const tl::Tensor& x) {
        std::cout << "  (tracing f for " << x.shape() << ")\n";  // runs only while tracing
        tl::print("  f runs with x =", x);                          // a graph op: runs every call
        return x * x;
      },
      {.name = "f", .arg_names = {"x"}, .call_history = 10});  // keep the last 10 calls' records (off by default)
  std::cout << "calling f three times with shape (2,), once with (3,):\n";
  f(tl::constant({1.f, 2.f}));
  f(tl::constant({3.f, 4.f}));
  f(tl::constant({5.f, 6.f}));
  f(tl::constant({1.f, 2.f, 3.f}));
  std::cout << "tracing_count = " << f.tracing_count() << "; the last call retraced because: " << f.calls().back().reason
            << "\n\n" << f.pretty_printed_concrete_signatures() << "\n";

  // 2. Ragged inputs (1, X, 20): one trace per X, one for all with a signature, two with reduce_retracing.
  tl::Variable w(tl::Generator(0).uniform({20, 1}, -0.3, 0.3), "w");
  auto body = [&](const tl::Tensor& x) { return tl::reduce_sum(tl::matmul(tl::reduce_max(x, {1}), w)); };
  auto plain = tl::function(body, {.name = "plain"});
  auto signature = tl::function(body, {.input_signature = {tl::TensorSpec({-1, -1, 20})}, .name = "signature"});
  auto relaxed = tl::function(body, {.reduce_retracing = true, .name = "relaxed"});
  for (int x = 1; x <= 10; ++x) {
    tl::Tensor input = tl::ones({1, x, 20});
    plain(input);
    signature(input);
    relaxed(input);
  }
  std::cout << "X = 1..10 -> traces: plain " << plain.tracing_count() << ", signature " << signature.tracing_count()
            << ", reduce_retracing " << relaxed.tracing_count() << "\n\n";

  // 3. Control flow decided when the graph runs, and the graph itself.
  auto abs_sum = tl::function(
      [](const tl::Tensor& x) {
        tl::Tensor s = tl::reduce_sum(x);
        return tl::cond(s > 0.f, [&] { return s; }, [&] { return -s; });
      },
      {.name = "abs_sum"});
  std::cout << "abs_sum([1, 2]) = " << abs_sum(tl::constant({1.f, 2.f})).item<float>()
            << ", abs_sum([-1, -2]) = " << abs_sum(tl::constant({-1.f, -2.f})).item<float>() << " (one trace: "
            << abs_sum.tracing_count() << ")\n" << abs_sum.concrete_functions()[0]->graph().str();
  return 0;
}
