// tl::function: turns a C++ callable into a TensorFlow-style polymorphic function. Each call computes a trace
// key from its arguments (tensors by dtype and shape, C++ numbers, bools and strings by value, Variables by
// identity); on a miss the callable runs once with symbolic tensors and its ops become a graph — a
// ConcreteFunction, optimized and then run by the executor; on a hit only the graph runs. docs/tracing.md.
//
//   auto step = tl::function([](const tl::Tensor& x) { return tl::reduce_sum(x * x); }, {.name = "step"});
//   step(tl::ones({3}));  step(tl::ones({3}));   // traced once, executed twice
//   step.tracing_count();                        // 1
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tracelab/autodiff/variable.h"
#include "tracelab/function/concrete_function.h"
#include "tracelab/function/trace_key.h"

namespace tl {

/// An input signature: one TensorSpec per argument (TensorFlow's input_signature). Absent unless given.
class InputSignature {
 public:
  InputSignature() = default;
  InputSignature(std::initializer_list<TensorSpec> specs) : specs_(specs), present_(true) {}  // NOLINT
  InputSignature(std::vector<TensorSpec> specs) : specs_(std::move(specs)), present_(true) {}  // NOLINT
  bool present() const noexcept { return present_; }
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
  /// Frequent-retracing warnings per function: 2 as in current TensorFlow, -1 for no limit (TF 2.1).
  int max_retracing_warnings = 2;
  /// Time each call's graph execution into CallRecord::execute_us (two clock reads per call, ~0.1-0.3 µs; a
  /// caller that times its calls itself, like the ragged experiment, turns this off).
  bool record_timings = true;
};

/// One call of a tl::function, for plots and tests.
struct CallRecord {
  std::size_t index = 0;        ///< 0-based call number
  bool traced = false;          ///< this call traced a new concrete function
  std::string key;              ///< the call's trace key, TraceKey::str()
  std::string reason;           ///< why it traced (empty when it did not)
  std::string warning;          ///< the frequent-retracing warning this call triggered, if any
  std::size_t concrete_index = 0;  ///< which concrete function ran (index into concrete_functions())
  double trace_us = 0;          ///< tracing + optimization time
  double execute_us = 0;        ///< running the graph (0 when FunctionOptions::record_timings is off)
};

namespace detail {

/// The arguments of one call: the trace key entries, the tensors (empty handles for TensorSpec-only
/// arguments of get_concrete_function) and, for the key, which arguments are tensors.
struct CallArgs {
  std::vector<ArgKey> keys;
  std::vector<Tensor> tensors;
};

template <class A>
inline constexpr bool is_tensor_arg = std::is_same_v<std::decay_t<A>, Tensor> || std::is_same_v<std::decay_t<A>, TensorSpec>;

template <class>
inline constexpr bool unsupported_arg = false;

template <class A>
void collect_arg(CallArgs& call, const A& arg) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, Tensor>) {
    TL_CHECK(arg.defined(), InvalidArgument, "tl::function: argument ", call.keys.size(), " is an empty Tensor handle");
    call.keys.emplace_back(TensorSpec(arg.shape(), arg.dtype()));
    call.tensors.push_back(arg);
  } else if constexpr (std::is_same_v<D, TensorSpec>) {
    call.keys.emplace_back(arg);
    call.tensors.emplace_back();
  } else if constexpr (std::is_same_v<D, Variable>) {
    call.keys.emplace_back(VariableKey{arg.id(), arg.dtype(), arg.shape()});
  } else if constexpr (std::is_same_v<D, bool>) {
    call.keys.emplace_back(arg);
  } else if constexpr (std::is_integral_v<D>) {
    call.keys.emplace_back(static_cast<std::int64_t>(arg));
  } else if constexpr (std::is_floating_point_v<D>) {
    call.keys.emplace_back(static_cast<double>(arg));
  } else if constexpr (std::is_convertible_v<const A&, std::string_view>) {
    call.keys.emplace_back(std::string(std::string_view(arg)));
  } else {
    static_assert(unsupported_arg<D>, "tl::function arguments are Tensors, TensorSpecs, Variables, numbers, bools "
                                      "or strings");
  }
}

/// Flattens a callable's result into tensors and back: void, Tensor, std::vector<Tensor>, pairs and tuples of
/// Tensors.
template <class R>
struct Outputs {
  static_assert(unsupported_arg<R>, "a tl::function callable returns void, a Tensor, a std::vector<Tensor>, or a "
                                    "std::pair / std::tuple of Tensors");
};
template <>
struct Outputs<void> {
  static void unflatten(std::vector<Tensor>&&) {}
};
template <>
struct Outputs<Tensor> {
  static std::vector<Tensor> flatten(const Tensor& t) { return {t}; }
  static Tensor unflatten(std::vector<Tensor>&& v) { return std::move(v.at(0)); }
};
template <>
struct Outputs<std::vector<Tensor>> {
  static std::vector<Tensor> flatten(const std::vector<Tensor>& v) { return v; }
  static std::vector<Tensor> unflatten(std::vector<Tensor>&& v) { return std::move(v); }
};
template <class... Ts>
struct Outputs<std::tuple<Ts...>> {
  static_assert((std::is_same_v<Ts, Tensor> && ...), "tuple results must hold Tensors");
  static std::vector<Tensor> flatten(const std::tuple<Ts...>& t) {
    return std::apply([](const auto&... x) { return std::vector<Tensor>{x...}; }, t);
  }
  static std::tuple<Ts...> unflatten(std::vector<Tensor>&& v) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) { return std::tuple<Ts...>{std::move(v.at(I))...}; }(
        std::index_sequence_for<Ts...>{});
  }
};
template <>
struct Outputs<std::pair<Tensor, Tensor>> {
  static std::vector<Tensor> flatten(const std::pair<Tensor, Tensor>& p) { return {p.first, p.second}; }
  static std::pair<Tensor, Tensor> unflatten(std::vector<Tensor>&& v) { return {std::move(v.at(0)), std::move(v.at(1))}; }
};

/// Traces the callable with the symbolic tensors it is given and returns its flattened outputs.
using TraceBody = std::function<std::vector<Tensor>(const std::vector<Tensor>& symbolic_inputs)>;

/// The type-erased part of a Function: cache, tracing, execution, records, retracing detector.
class FunctionCore {
 public:
  explicit FunctionCore(FunctionOptions options);
  ~FunctionCore();
  /// Finds or traces the concrete function for `call` and runs it on the call's tensors.
  std::vector<Tensor> call(CallArgs call, const TraceBody& body);
  /// Finds or traces the concrete function for `call` (arguments may be TensorSpecs).
  ConcreteFunction& concrete(CallArgs call, const TraceBody& body);

  int tracing_count() const noexcept;
  std::string pretty_printed_concrete_signatures() const;
  std::vector<const ConcreteFunction*> concrete_functions() const;
  const std::vector<CallRecord>& calls() const noexcept;
  void clear_calls() noexcept;
  const FunctionOptions& options() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace detail

/// A polymorphic traced function (tf.function). Copies share the cache, like Python references.
template <class F>
class Function {
 public:
  Function(F fn, FunctionOptions options)
      : fn_(std::make_shared<F>(std::move(fn))), core_(std::make_shared<detail::FunctionCore>(std::move(options))) {}

  /// Calls the function: traces on a new trace key, then runs the graph. Returns what the callable returns.
  template <class... Args>
  auto operator()(const Args&... args) {
    using R = std::invoke_result_t<F&, traced_t<Args>...>;
    detail::CallArgs call = collect(args...);
    std::vector<Tensor> outputs = core_->call(std::move(call), body(args...));
    return detail::Outputs<R>::unflatten(std::move(outputs));
  }

  /// The concrete function for these arguments (Tensors or TensorSpecs, plus plain values), traced if needed.
  template <class... Args>
  ConcreteFunction& get_concrete_function(const Args&... args) {
    return core_->concrete(collect(args...), body(args...));
  }

  /// How many times the callable was traced.
  int tracing_count() const noexcept { return core_->tracing_count(); }
  /// Every concrete function's signature, TensorFlow's format ("name(x)\n  Args:\n    x: float32 Tensor, ...").
  std::string pretty_printed_concrete_signatures() const { return core_->pretty_printed_concrete_signatures(); }
  /// The concrete functions, in tracing order.
  std::vector<const ConcreteFunction*> concrete_functions() const { return core_->concrete_functions(); }
  /// One record per call, in order.
  const std::vector<CallRecord>& calls() const noexcept { return core_->calls(); }
  /// Forgets the call records (the cache stays).
  void clear_calls() noexcept { core_->clear_calls(); }
  const FunctionOptions& options() const noexcept { return core_->options(); }

 private:
  template <class A>
  using traced_t = std::conditional_t<detail::is_tensor_arg<A>, Tensor, const A&>;

  template <class... Args>
  static detail::CallArgs collect(const Args&... args) {
    detail::CallArgs call;
    (detail::collect_arg(call, args), ...);
    return call;
  }

  /// The position of each tensor argument among the tensor arguments.
  template <class... Args>
  static constexpr std::array<std::size_t, sizeof...(Args) + 1> tensor_slots() {
    std::array<std::size_t, sizeof...(Args) + 1> slots{};
    bool is_tensor[] = {detail::is_tensor_arg<Args>..., false};
    std::size_t next = 0;
    for (std::size_t i = 0; i < sizeof...(Args); ++i) slots[i] = is_tensor[i] ? next++ : 0;
    return slots;
  }

  template <std::size_t I, class A>
  static decltype(auto) pick(const A& arg, const std::vector<Tensor>& symbolic, std::size_t slot) {
    if constexpr (detail::is_tensor_arg<A>) return Tensor(symbolic.at(slot));
    else return (arg);
  }

  template <class... Args>
  detail::TraceBody body(const Args&... args) {
    return [this, &args...](const std::vector<Tensor>& symbolic) -> std::vector<Tensor> {
      constexpr auto slots = tensor_slots<Args...>();
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        using R = std::invoke_result_t<F&, traced_t<Args>...>;
        if constexpr (std::is_void_v<R>) {
          (*fn_)(pick<I>(args, symbolic, slots[I])...);
          return std::vector<Tensor>{};
        } else {
          return detail::Outputs<R>::flatten((*fn_)(pick<I>(args, symbolic, slots[I])...));
        }
      }(std::index_sequence_for<Args...>{});
    };
  }

  std::shared_ptr<F> fn_;
  std::shared_ptr<detail::FunctionCore> core_;
};

/// Wraps `fn` as a traced function (tf.function).
template <class F>
Function<F> function(F fn, FunctionOptions options = {}) {
  return Function<F>(std::move(fn), std::move(options));
}

}  // namespace tl
