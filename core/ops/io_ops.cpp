// Ops with side effects on the outside world. `print` writes its inputs through the log sink (base/log.h)
// every time it runs — eagerly at once, inside a traced function on every call of the graph (unlike a C++
// std::cout in the traced callable, which runs only while tracing). TensorFlow's tf.print.
#include <string>

#include "ops/detail/register.h"
#include "tracelab/base/log.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/io.h"

namespace tl::detail {
namespace {

/// Placeholders in a print template: "{}" stands for the next input, "{{" for a literal "{".
std::size_t count_placeholders(const std::string& text) {
  std::size_t count = 0;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != '{') continue;
    if (text[i + 1] == '}') ++count;
    ++i;  // skip the second character of "{}" or "{{"
  }
  return count;
}

std::string format_print(const std::string& text, std::span<const Tensor> inputs) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{' && i + 1 < text.size() && (text[i + 1] == '}' || text[i + 1] == '{')) {
      out += text[i + 1] == '}' ? inputs[next++].values_str() : std::string("{");
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

void register_io_ops(OpRegistry& registry) {
  // print(x...): writes template with each "{}" replaced by the next input's values; no outputs.
  registry.op("print")
      .doc("writes a message with tensor values through the log sink each time it runs (tf.print)")
      .variadic_inputs(0)
      .outputs(0)
      .traits(trait::side_effects | trait::not_differentiable)
      .attr<std::string>("template", true)
      .shape_fn([](ShapeContext& c) {
        const auto& text = c.attrs.get<std::string>("template");
        std::size_t holes = count_placeholders(text);
        TL_CHECK(holes == c.inputs.size(), InvalidArgument, "print: the template has ", holes,
                 " placeholder(s) {} but ", c.inputs.size(), " tensor(s) were given");
      })
      .kernel([](KernelContext& c) {
        log_message(LogLevel::print, format_print(c.attrs.get<std::string>("template"), c.inputs));
      });
}


void PrintBuilder::separate() {
  if (!first_) template_ += ' ';
  first_ = false;
}

void PrintBuilder::add(const Tensor& tensor) {
  TL_CHECK(tensor.defined(), InvalidArgument, "print: argument ", tensors_.size(), " is an empty Tensor handle");
  separate();
  template_ += "{}";
  tensors_.push_back(tensor);
}

void PrintBuilder::add(std::string_view text) {
  separate();
  for (char c : text) template_ += c == '{' ? std::string("{{") : std::string(1, c);
}

void PrintBuilder::run() const {
  static const OpDef& op = OpRegistry::global().get("print");
  tl::execute(op, tensors_, Attrs{{"template", template_}}, std::span<Tensor>());
}

}  // namespace tl::detail
