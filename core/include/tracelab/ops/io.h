// tl::print: TensorFlow's tf.print. Writes its arguments, separated by spaces, through the log sink
// (base/log.h) — eagerly at once, and inside a traced function every time the graph runs, because it is a
// graph op. A std::cout in the traced callable, by contrast, runs only while tracing.
//
//   tl::print("step", step, "loss:", loss);     // "step 3 loss: 0.25"
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tracelab/tensor/tensor.h"

namespace tl {

namespace detail {
/// Builds the print op's template ("{}" per tensor, literal text escaped) and runs it.
class PrintBuilder {
 public:
  void add(const Tensor& tensor);
  void add(std::string_view text);
  void add(const char* text) { add(std::string_view(text)); }
  void add(const std::string& text) { add(std::string_view(text)); }
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  void add(T value) {
    if constexpr (std::is_same_v<T, bool>) add(std::string_view(value ? "True" : "False"));
    else add(std::string_view(std::to_string(value)));
  }
  void run() const;

 private:
  void separate();
  std::string template_;
  std::vector<Tensor> tensors_;
  bool first_ = true;
};
}  // namespace detail

/// Prints tensors (their values) and plain values, separated by spaces, through the log sink.
template <class... Args>
void print(const Args&... args) {
  detail::PrintBuilder builder;
  (builder.add(args), ...);
  builder.run();
}

}  // namespace tl
