// tl::function: turns a C++ callable into a TensorFlow-style polymorphic function. Each call computes a trace
// key from its arguments (tensors by dtype and shape, C++ numbers, bools and strings by value, Variables by
// identity); on a miss the callable runs once with symbolic tensors and its ops become a graph — a
// ConcreteFunction, optimized and then run by the executor; on a hit only the graph runs. docs/tracing.md.
// It is a typed layer over tl::AnyFunction (any_function.h), which holds the cache, the tracing and the records.
//
//   auto step = tl::function([](const tl::Tensor& x) { return tl::reduce_sum(x * x); }, {.name = "step"});
//   step(tl::ones({3}));  step(tl::ones({3}));   // traced once, executed twice
//   step.tracing_count();                        // 1
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tracelab/function/any_function.h"

namespace tl {

namespace detail {

template <class A>
inline constexpr bool is_tensor_arg = std::is_same_v<std::decay_t<A>, Tensor> || std::is_same_v<std::decay_t<A>, TensorSpec>;

template <class>
inline constexpr bool unsupported_arg = false;

/// The type-erased form of one argument of a typed call.
template <class A>
AnyArg erase_arg(const A& arg) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, Tensor> || std::is_same_v<D, TensorSpec> || std::is_same_v<D, Variable> ||
                std::is_arithmetic_v<D>) {
    return AnyArg(arg);
  } else if constexpr (std::is_convertible_v<const A&, std::string_view>) {
    return AnyArg(std::string_view(arg));
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

}  // namespace detail

/// A polymorphic traced function (tf.function) over a C++ callable. Copies share the cache, like Python
/// references.
template <class F>
class Function {
 public:
  /// Wraps `fn` (usually through tl::function).
  Function(F fn, FunctionOptions options) : shared_(std::make_shared<Shared>(std::move(fn), std::move(options))) {}

  /// Calls the function: traces on a new trace key, then runs the graph. Returns what the callable returns.
  template <class... Args>
  auto operator()(const Args&... args) {
    using R = std::invoke_result_t<F&, traced_t<Args>...>;
    std::array<AnyArg, sizeof...(Args)> erased{detail::erase_arg(args)...};
    const std::tuple<const Args&...> typed(args...);
    Typed guard(*shared_, &trace_typed<Args...>, &typed);
    return detail::Outputs<R>::unflatten(shared_->any(erased));
  }

  /// The concrete function for these arguments (Tensors or TensorSpecs, plus plain values), traced if needed.
  template <class... Args>
  ConcreteFunction& get_concrete_function(const Args&... args) {
    std::array<AnyArg, sizeof...(Args)> erased{detail::erase_arg(args)...};
    const std::tuple<const Args&...> typed(args...);
    Typed guard(*shared_, &trace_typed<Args...>, &typed);
    return shared_->any.get_concrete_function(erased);
  }

  /// How many times the callable was traced (the first call traces twice when it creates variables, as in TF).
  int tracing_count() const noexcept { return shared_->any.tracing_count(); }
  /// Every concrete function's signature, TensorFlow's format ("name(x)\n  Args:\n    x: float32 Tensor, ...").
  std::string pretty_printed_concrete_signatures() const { return shared_->any.pretty_printed_concrete_signatures(); }
  /// The concrete functions, in tracing order.
  std::vector<const ConcreteFunction*> concrete_functions() const { return shared_->any.concrete_functions(); }
  /// The records of the last FunctionOptions::call_history calls, oldest first (none by default).
  std::span<const CallRecord> calls() const noexcept { return shared_->any.calls(); }
  /// Forgets the call records (the cache stays).
  void clear_calls() noexcept { shared_->any.clear_calls(); }
  /// The options it was made with.
  const FunctionOptions& options() const noexcept { return shared_->any.options(); }

 private:
  template <class A>
  using traced_t = std::conditional_t<detail::is_tensor_arg<A>, Tensor, const A&>;
  /// Traces the callable for one call's argument types: `traced` are the erased arguments with symbolic tensors,
  /// `typed` the call's own arguments (a std::tuple<const Args&...>), passed as they are where not tensors.
  using TraceAs = std::vector<Tensor> (*)(F& fn, std::span<const AnyArg> traced, const void* typed);

  /// The callable and its AnyFunction, whose body traces with the argument types of the call being made: they
  /// are known per call, so each call installs them (Typed) for the time it runs.
  struct Shared {
    Shared(F f, FunctionOptions options)
        : fn(std::move(f)),
          any([this](std::span<const AnyArg> traced) { return trace_as(fn, traced, typed); }, std::move(options)) {}
    Shared(const Shared&) = delete;
    Shared& operator=(const Shared&) = delete;
    F fn;
    TraceAs trace_as = nullptr;
    const void* typed = nullptr;
    AnyFunction any;
  };

  /// Installs one call's types in `shared` while alive (restoring the previous ones: a body may call its own
  /// function).
  class Typed {
   public:
    Typed(Shared& shared, TraceAs trace_as, const void* typed)
        : shared_(shared),
          trace_as_(std::exchange(shared.trace_as, trace_as)),
          typed_(std::exchange(shared.typed, typed)) {}
    ~Typed() {
      shared_.trace_as = trace_as_;
      shared_.typed = typed_;
    }
    Typed(const Typed&) = delete;
    Typed& operator=(const Typed&) = delete;

   private:
    Shared& shared_;
    TraceAs trace_as_;
    const void* typed_;
  };

  template <std::size_t I, class A>
  static decltype(auto) pick(const A& arg, std::span<const AnyArg> traced) {
    if constexpr (detail::is_tensor_arg<A>) return Tensor(traced[I].tensor());
    else return (arg);
  }

  template <class... Args>
  static std::vector<Tensor> trace_typed(F& fn, std::span<const AnyArg> traced, const void* typed) {
    const auto& args = *static_cast<const std::tuple<const Args&...>*>(typed);
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      using R = std::invoke_result_t<F&, traced_t<Args>...>;
      if constexpr (std::is_void_v<R>) {
        fn(pick<I>(std::get<I>(args), traced)...);
        return std::vector<Tensor>{};
      } else {
        return detail::Outputs<R>::flatten(fn(pick<I>(std::get<I>(args), traced)...));
      }
    }(std::index_sequence_for<Args...>{});
  }

  std::shared_ptr<Shared> shared_;
};

/// Wraps `fn` as a traced function (tf.function).
template <class F>
Function<F> function(F fn, FunctionOptions options = {}) {
  return Function<F>(std::move(fn), std::move(options));
}

}  // namespace tl
