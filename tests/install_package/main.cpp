// A program outside the Tracelab tree, written as a TensorFlow user would: operators on tensors, tl::range with
// integers (int32, as tf.range), a traced function. It prints what run.cmake checks.
#include <iostream>
#include <tracelab/tracelab.h>

int main() {
  auto a = tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2});
  auto b = tl::constant({5.f, 6.f, 7.f, 8.f}, {2, 2});
  std::cout << tl::matmul(a, b) << "\n";
  tl::Tensor x = tl::cast(tl::range(6), tl::float32);  // [0 1 2 3 4 5]
  tl::Tensor inside = (x > 1.f) & (x <= 4.f);
  std::cout << "range " << tl::range(4) << "\n";
  std::cout << "inside " << inside.values_str() << " outside " << (~inside).values_str() << "\n";
  auto clip = tl::function([](const tl::Tensor& t) { return tl::where(t >= 3.f, t, tl::zeros_like(t)); });
  std::cout << "traced " << clip(x).values_str() << " traces " << clip.tracing_count() << "\n";
}
