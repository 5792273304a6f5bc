// How a tl::function (or a tl::AnyFunction) traces, runs and records its calls: the options of tf.function, spelled
// as C++, plus the opt-in call history.
//
//   tl::FunctionOptions options{.input_signature = {tl::TensorSpec({-1, 20}, tl::float32, "x")}, .name = "step"};
//   options.call_history = 100;   // keep the records of the last 100 calls (off by default)
//   auto step = tl::function(body, options);
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "tracelab/graph/passes.h"
#include "tracelab/tensor/tensor_spec.h"

namespace tl {

/// An input signature: one TensorSpec per argument (TensorFlow's input_signature). Absent unless given.
class InputSignature {
 public:
  /// No signature: each call is keyed by its own arguments.
  InputSignature() = default;
  /// A signature of these specs, in argument order: `{tl::TensorSpec({-1, 20}, tl::float32, "x")}`.
  InputSignature(std::initializer_list<TensorSpec> specs) : specs_(specs), present_(true) {}  // NOLINT
  /// A signature of these specs, in argument order.
  InputSignature(std::vector<TensorSpec> specs) : specs_(std::move(specs)), present_(true) {}  // NOLINT
  /// Whether a signature was given (an empty one, for a function of no tensors, is present too).
  bool present() const noexcept { return present_; }
  /// One spec per argument.
  const std::vector<TensorSpec>& specs() const noexcept { return specs_; }

 private:
  std::vector<TensorSpec> specs_;
  bool present_ = false;
};

/// How a tl::function traces and runs (names mirror tf.function).
struct FunctionOptions {
  /// Fixes the accepted arguments: every call must fit (an error otherwise), and one graph serves all of them.
  InputSignature input_signature{};
  /// TensorFlow's reduce_retracing (formerly experimental_relax_shapes): on a miss, trace with the dims that
  /// differ from a cached call made unknown, so one generalized graph serves later shapes.
  bool reduce_retracing = false;
  /// The function's name in signatures, warnings and records.
  std::string name = "function";
  /// Argument names for messages and signatures (default: the signature's spec names, else "arg0", ...).
  std::vector<std::string> arg_names{};
  /// Which graph optimization passes run on each new concrete function.
  graph::OptimizeOptions optimize{};
  /// Frequent-retracing warnings per count: 2 as in current TensorFlow, -1 for no limit (TF 2.1).
  int max_retracing_warnings = 2;
  /// Whether the frequent-retracing warning counts this function's calls together with those of every function
  /// made from the same source — for tl::function the same lambda expression, functor type or function pointer —
  /// as TensorFlow counts per Python function, so that a function created anew in a loop warns; false counts this
  /// function alone (a run that stands for a fresh program, like the ragged experiment's modes).
  bool share_retracing_count = true;
  /// How many of the latest calls keep a tl::CallRecord (key, retrace reason, warning, times) in calls():
  /// 0, the default, records nothing, so a call builds no strings; N keeps the last N, dropping the oldest.
  std::size_t call_history = 0;
  /// With a call history: time each call's graph execution into CallRecord::execute_us (two clock reads per call,
  /// ~0.1-0.3 µs; a caller that times its calls itself, like the ragged experiment, turns this off).
  bool record_timings = true;
  /// Whether a graph with unknown dims (an input signature's, a relaxed one's) is planned per input shapes when it
  /// runs: the first call with new shapes runs every shape rule once and plans buffers, later calls with those
  /// shapes reuse the plan, so a generic graph runs like shape-specialized ones. Off, such a graph runs as
  /// TensorFlow runs a generic graph — every op's shape rule on every call, fresh output buffers — slower per
  /// step; for comparing the two (docs/performance.md). Graphs with static shapes are planned either way.
  bool specialize_plans = true;
};

}  // namespace tl
