// Ops with side effects on the outside world. `print` writes its inputs through the log sink (base/log.h)
// every time it runs — eagerly at once, inside a traced function on every call of the graph (unlike a C++
// std::cout in the traced callable, which runs only while tracing). TensorFlow's tf.print. `record_timestamp`
// appends tl::Clock's time to a host-side TimestampLog, so a graph can time its own loop iterations.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <string>
#include <unordered_map>

#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "tracelab/base/clock.h"
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

std::string format_print(const std::string& text, TensorRefs inputs) {
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

/// The live TimestampLogs by id: the op's attribute holds an id, not a pointer, so a graph that outlives its
/// log gets a clear error instead of a dangling write.
struct TimestampLogTable {
  std::mutex mutex;
  std::unordered_map<std::int64_t, TimestampLog*> logs;
  std::int64_t next_id = 1;

  static TimestampLogTable& get() {
    static auto* table = new TimestampLogTable();  // never destroyed: logs may be static objects too
    return *table;
  }
};

}  // namespace

void register_io_ops(OpRegistry& registry) {
  // check_numerics(x): x unchanged (a copy) if it holds no NaN or Inf, else InvalidArgument with the counts and the
  // first bad index (tf.debugging.check_numerics). side_effects keeps it in graphs even when its output is unused.
  registry.op("check_numerics")
      .doc("x itself if it has no NaN or Inf values, else an InvalidArgument naming the message and the counts; d = g")
      .inputs(1)
      .traits(trait::side_effects)
      .attr<std::string>("message", true)
      .shape_fn([](ShapeContext& c) {
        expect_dtype(c, 0, {DType::float32});
        same_as_input(c);
      })
      .kernel([](KernelContext& c) {
        const Tensor& x = c.input(0);
        const float* in = x.data<float>();
        const std::int64_t n = x.num_elements();
        std::int64_t nans = 0, infs = 0, first = -1;
        for (std::int64_t k = 0; k < n; ++k) {
          const bool nan = std::isnan(in[k]), inf = std::isinf(in[k]);
          nans += nan;
          infs += inf;
          if ((nan || inf) && first < 0) first = k;
        }
        TL_CHECK(first < 0, InvalidArgument, "check_numerics: ", c.attrs.get<std::string>("message"), ": found ", nans,
                 " NaN and ", infs, " Inf values in ", meta_str(x.meta()), " (first at flat index ", first, ")");
        std::copy_n(in, n, c.output().mutable_data<float>());
      })
      .gradient([](const GradContext& c, std::span<Tensor> d) { d[0] = c.grad(); });

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

  // record_timestamp(value?): appends tl::Clock's now (ns) and the optional one-element value (as float, NaN
  // without one) to the TimestampLog with id `log`; no outputs.
  registry.op("record_timestamp")
      .doc("appends the current tl::Clock time in ns (and an optional one-element value, e.g. a loss) to a host-side "
           "TimestampLog each time it runs: times a graph's own loop iterations (cf. tf.timestamp)")
      .variadic_inputs(0)
      .outputs(0)
      .traits(trait::side_effects | trait::stateful | trait::not_differentiable)
      .attr<std::int64_t>("log", true)
      .shape_fn([](ShapeContext& c) {
        TL_CHECK(c.inputs.size() <= 1, InvalidArgument, "record_timestamp: takes at most one value, got ",
                 c.inputs.size(), " inputs");
        if (c.inputs.empty()) return;
        const Shape& shape = c.input(0).shape;
        bool one = true;
        for (std::int64_t d : shape.dims()) one = one && (d == 1 || d == -1);
        TL_CHECK(one, ShapeError, "record_timestamp: the value must have one element, got ", meta_str(c.input(0)));
      })
      .kernel([](KernelContext& c) {
        std::int64_t id = c.attrs.get<std::int64_t>("log");
        float value = std::numeric_limits<float>::quiet_NaN();
        if (!c.inputs.empty()) {
          const Tensor& v = c.input(0);
          TL_CHECK(v.num_elements() == 1, ShapeError, "record_timestamp: the value must have one element, got ",
                   meta_str(v.meta()));
          value = v.item<float>();
        }
        auto& table = TimestampLogTable::get();
        std::lock_guard lock(table.mutex);
        auto it = table.logs.find(id);
        TL_CHECK(it != table.logs.end(), InvalidArgument, "record_timestamp: TimestampLog ", id,
                 " no longer exists (a log must outlive the graphs that record into it)");
        it->second->record(value);
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

namespace tl {

TimestampLog::TimestampLog() {
  auto& table = detail::TimestampLogTable::get();
  std::lock_guard lock(table.mutex);
  id_ = table.next_id++;
  table.logs.emplace(id_, this);
}

TimestampLog::~TimestampLog() {
  auto& table = detail::TimestampLogTable::get();
  std::lock_guard lock(table.mutex);
  table.logs.erase(id_);
}

void TimestampLog::reserve(std::size_t count) {
  times_.reserve(count);
  values_.reserve(count);
}

void TimestampLog::clear() noexcept {
  times_.clear();
  values_.clear();
}

void TimestampLog::record(float value) {
  times_.push_back(now());
  values_.push_back(value);
}

std::int64_t TimestampLog::now() noexcept {
  return Clock::now().time_since_epoch().count();
}

void record_timestamp(const TimestampLog& log) {
  static const OpDef& op = OpRegistry::global().get("record_timestamp");
  tl::execute(op, {}, Attrs{{"log", log.id()}}, std::span<Tensor>());
}

void record_timestamp(const TimestampLog& log, const Tensor& value) {
  static const OpDef& op = OpRegistry::global().get("record_timestamp");
  TL_CHECK(value.defined(), InvalidArgument, "record_timestamp: the value is an empty Tensor handle");
  tl::execute(op, std::span<const Tensor>(&value, 1), Attrs{{"log", log.id()}}, std::span<Tensor>());
}

Tensor check_numerics(const Tensor& x, const std::string& message) {
  static const OpDef& op = OpRegistry::global().get("check_numerics");
  return execute(op, {x}, {{"message", message}});
}

}  // namespace tl
