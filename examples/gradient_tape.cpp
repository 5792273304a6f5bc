// Fitting y = 3x + 2 with a GradientTape and hand-written gradient descent.
// Run: build/native/examples/gradient_tape
#include <cstdio>

#include "tracelab/tracelab.h"

int main() {
  // Data made in code: 64 points on the line, no noise.
  tl::Generator gen(3);
  auto x = gen.uniform({64, 1}, -1, 1);
  auto y = x * 3 + 2;

  // The model's state: two trainable Variables, watched automatically by any tape that reads them.
  tl::Variable w(tl::zeros({1, 1}), "w"), b(tl::zeros({1}), "b");
  for (int step = 0; step <= 300; ++step) {
    tl::GradientTape tape;                                          // records the forward pass
    auto loss = tl::reduce_mean(tl::square(tl::matmul(x, w) + b - y));
    auto grads = tape.gradient(loss, std::vector<tl::Variable>{w, b});  // walks it backwards
    w.assign_sub(grads[0] * 0.2f);
    b.assign_sub(grads[1] * 0.2f);
    if (step % 50 == 0)
      std::printf("step %3d  loss %.6f  w %.4f  b %.4f\n", step, loss.item<float>(), w.read().item<float>(),
                  b.read().item<float>());
  }
  return 0;
}
