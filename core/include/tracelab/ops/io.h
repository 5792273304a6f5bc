// tl::print: TensorFlow's tf.print. Writes its arguments, separated by spaces, through the log sink
// (base/log.h) — eagerly at once, and inside a traced function every time the graph runs, because it is a
// graph op. A std::cout in the traced callable, by contrast, runs only while tracing.
//
//   tl::print("step", step, "loss:", loss);     // "step 3 loss: 0.25"
#pragma once

#include <cstdint>
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

/// x itself if it has no NaN or Inf values; otherwise throws InvalidArgument "check_numerics: <message>: found N NaN
/// and M Inf values in f32[...] (first at flat index K)" (tf.debugging.check_numerics). float32 only; d = g.
Tensor check_numerics(const Tensor& x, const std::string& message);

/// Prints tensors (their values) and plain values, separated by spaces, through the log sink.
template <class... Args>
void print(const Args&... args) {
  detail::PrintBuilder builder;
  (builder.add(args), ...);
  builder.run();
}

}  // namespace tl

namespace tl {

/// A host-side list of timestamps that the `record_timestamp` op appends to — the way to time steps *inside* a
/// graph (e.g. each element of a traced dataset loop), where no C++ code of the caller runs. Each record may
/// carry one scalar value too (e.g. the step's loss), so a loop that runs as one graph node can still report a
/// value per iteration. Times are tl::Clock nanoseconds (base/clock.h), the clock TimestampLog::now() reads on
/// the host, so host and in-graph times can be subtracted. A log must outlive the graphs that record into it: a
/// graph that runs after its log is gone gets an InvalidArgument naming the log's id.
///
///   tl::TimestampLog log;  log.reserve(1000);
///   auto loop = tl::function([&] { tl::data::for_each(ds, [&](const auto& e) { tl::record_timestamp(log, step(e)); }); });
///   loop();  log.times();  log.values();   // per element: a tl::Clock time (ns) and the loss
class TimestampLog {
 public:
  TimestampLog();
  ~TimestampLog();
  TimestampLog(const TimestampLog&) = delete;
  TimestampLog& operator=(const TimestampLog&) = delete;

  /// The id the op's `log` attribute refers to (process-unique, never reused).
  std::int64_t id() const noexcept { return id_; }
  /// The recorded times, oldest first (tl::Clock nanoseconds).
  const std::vector<std::int64_t>& times() const noexcept { return times_; }
  /// One value per record: the scalar the op was given, as float, or NaN when it was given none.
  const std::vector<float>& values() const noexcept { return values_; }
  /// Reserves room for `count` records, so recording does not allocate.
  void reserve(std::size_t count);
  /// Forgets the records (keeps the capacity).
  void clear() noexcept;
  /// Appends the current time and `value` (what the op's kernel calls).
  void record(float value);
  /// tl::Clock now, in nanoseconds.
  static std::int64_t now() noexcept;

 private:
  std::int64_t id_;
  std::vector<std::int64_t> times_;
  std::vector<float> values_;
};

/// Appends the current time to `log` each time it runs: eagerly at once, in a graph every time the graph runs
/// (an op with side effects, kept where it was traced relative to other side effects and assignments).
void record_timestamp(const TimestampLog& log);
/// The same, recording `value` (a one-element tensor of any dtype, stored as float) with the time.
void record_timestamp(const TimestampLog& log, const Tensor& value);

}  // namespace tl
