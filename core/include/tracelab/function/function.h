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
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "tracelab/function/any_function.h"
#include "tracelab/function/arguments.h"

namespace tl {

namespace detail {

template <class F>
inline constexpr bool has_target_type = requires(const F& f) { f.target_type(); };

/// The source a tl::function over `fn` shares its retracing count with (TensorFlow counts per Python function):
/// the type of a lambda or functor — each lambda expression has a type of its own, so the functions one
/// expression makes share a count, and two expressions never do — and the address of a function pointer. A
/// std::function hides what it holds: it counts alone.
template <class F>
std::string retracing_source(const F& fn) {
  if constexpr (std::is_pointer_v<F> && std::is_function_v<std::remove_pointer_t<F>>)
    return std::string(typeid(F).name()) + "@" + std::to_string(reinterpret_cast<std::uintptr_t>(fn));
  else if constexpr (has_target_type<F>)
    return {};
  else
    return typeid(F).name();
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
/// references. Every tl::function made from one lambda expression (functor type, function pointer) shares the
/// frequent-retracing warning's count, as the tf.functions of one Python function do (detail::retracing_source).
template <class F>
class Function {
 public:
  /// Wraps `fn` (usually through tl::function).
  Function(F fn, FunctionOptions options) : shared_(std::make_shared<Shared>(std::move(fn), std::move(options))) {}

  /// Calls the function: traces on a new trace key, then runs the graph. Returns what the callable returns.
  /// A std::vector<Tensor> or std::map<std::string, Tensor> argument passes its tensors, its length or keys in the
  /// trace key (arguments.h); the callable gets a vector / map of symbolic tensors while tracing.
  template <class... Args>
  auto operator()(const Args&... args) {
    using R = std::invoke_result_t<F&, traced_t<Args>...>;
    const std::tuple<const Args&...> typed(args...);
    Typed guard(*shared_, &trace_typed<Args...>, &typed);
    if constexpr ((detail::is_nested_arg<Args> || ...)) {
      std::vector<AnyArg> leaves;
      ArgStructure structure{"(", {}};
      const auto& names = shared_->any.options().arg_names;
      std::size_t i = 0;
      auto add = [&](const auto& arg) {
        if (i > 0) structure.text += ", ";
        std::string path = i < names.size() && !names[i].empty() ? names[i] : "args[" + std::to_string(i) + "]";
        detail::flatten_arg(arg, path, leaves, structure);
        ++i;
      };
      (add(args), ...);
      structure.text += ')';
      return detail::Outputs<R>::unflatten(shared_->any(leaves, structure));
    } else {
      std::array<AnyArg, sizeof...(Args)> erased{detail::erase_arg(args)...};
      return detail::Outputs<R>::unflatten(shared_->any(erased));
    }
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
  using traced_t = std::conditional_t<detail::is_tensor_arg<A>, Tensor,
                                      std::conditional_t<detail::is_nested_arg<A>, std::decay_t<A>, const A&>>;
  /// Traces the callable for one call's argument types: `traced` are the erased arguments with symbolic tensors,
  /// `typed` the call's own arguments (a std::tuple<const Args&...>), passed as they are where not tensors.
  using TraceAs = std::vector<Tensor> (*)(F& fn, std::span<const AnyArg> traced, const void* typed);

  /// The callable and its AnyFunction, whose body traces with the argument types of the call being made: they
  /// are known per call, so each call installs them (Typed) for the time it runs.
  struct Shared {
    Shared(F f, FunctionOptions options)
        : fn(std::move(f)),
          any([this](std::span<const AnyArg> traced) { return trace_as(fn, traced, typed); }, std::move(options),
              detail::retracing_source(fn)) {}
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

  /// The argument as the callable gets it while tracing: its leaves from `traced`, starting at leaf `at`.
  template <class A>
  static decltype(auto) pick(const A& arg, std::span<const AnyArg> traced, std::size_t at) {
    if constexpr (detail::is_tensor_arg<A>) {
      return Tensor(traced[at].tensor());
    } else if constexpr (detail::is_tensor_list<A>) {
      std::vector<Tensor> out;
      for (std::size_t k = 0; k < arg.size(); ++k) out.push_back(traced[at + k].tensor());
      return out;
    } else if constexpr (detail::is_tensor_dict<A>) {
      std::map<std::string, Tensor> out;
      for (const auto& entry : arg) out.emplace(entry.first, traced[at++].tensor());
      return out;
    } else {
      return (arg);
    }
  }

  template <class... Args>
  static std::vector<Tensor> trace_typed(F& fn, std::span<const AnyArg> traced, const void* typed) {
    const auto& args = *static_cast<const std::tuple<const Args&...>*>(typed);
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      using R = std::invoke_result_t<F&, traced_t<Args>...>;
      std::array<std::size_t, sizeof...(Args) + 1> at{};  // the first leaf of each argument
      [[maybe_unused]] std::size_t next = 0;  // unused when there are no arguments
      ((at[I + 1] = (next += detail::leaf_count(std::get<I>(args)))), ...);
      if constexpr (std::is_void_v<R>) {
        fn(pick(std::get<I>(args), traced, at[I])...);
        return std::vector<Tensor>{};
      } else {
        return detail::Outputs<R>::flatten(fn(pick(std::get<I>(args), traced, at[I])...));
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
