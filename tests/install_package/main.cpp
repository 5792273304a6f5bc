#include <iostream>
#include <tracelab/tracelab.h>

int main() {
  auto a = tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2});
  auto b = tl::constant({5.f, 6.f, 7.f, 8.f}, {2, 2});
  std::cout << tl::matmul(a, b) << "\n";
}
