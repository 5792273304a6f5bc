// Eager basics: tensors, broadcasting, a matmul, reductions, and what an error looks like.
// Run: build/native/examples/eager_basics
#include <iostream>

#include "tracelab/tracelab.h"

int main() {
  // Tensors are values: create them from numbers and a shape; ops run immediately (eager execution).
  auto x = tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  std::cout << "x = " << x << "\n";

  // C++ numbers mix in as scalars that take the tensor's dtype; shapes broadcast like NumPy's.
  auto row = tl::constant({10.f, 20.f, 30.f});
  std::cout << "x * 2 + row = " << x * 2 + row << "\n";

  // A matmul and a reduction: the building blocks of a Dense layer and of the ragged model's reduce_max.
  auto w = tl::ones({3, 2});
  std::cout << "matmul(x, w) = " << tl::matmul(x, w) << "\n";
  std::cout << "reduce_max(x, axis 1) = " << tl::reduce_max(x, {1}) << "\n";

  // Seeded random numbers: the same stream natively and in the browser.
  tl::Generator gen(42);
  std::cout << "uniform = " << gen.uniform({3}) << "\n";

  // Bad input is a typed error that names the op and the shapes, never a crash.
  try {
    tl::matmul(x, x);
  } catch (const tl::ShapeError& error) {
    std::cout << error.kind() << ": " << error.what() << "\n";
  }
  return 0;
}
