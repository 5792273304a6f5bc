// Control flow that works eagerly and in graphs: tl::cond and tl::while_loop (tf.cond, tf.while_loop).
// Eagerly they just run C++ control flow. While a function is traced with a symbolic predicate they trace
// their branches / cond and body into sub-graphs and add one node, so the decision is made each time the
// graph runs — C++ `if (t)` on a symbolic tensor is an error that points here. docs/tracing.md.
//
//   tl::Tensor y = tl::cond(tl::greater(tl::reduce_sum(x), 0.f), [&] { return x; }, [&] { return -x; });
//   auto out = tl::while_loop([](const auto& v) { return tl::less(v[0], 10); },
//                             [](const auto& v) { return std::vector<tl::Tensor>{v[0] + 1}; }, {tl::scalar(0)});
// Loop variables may also be a std::tuple of Tensors and tl::TensorArrays (tensor_array.h), each passed to cond and
// body as its own argument, as TensorFlow's loop_vars may be a nested structure.
#pragma once

#include <functional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "tracelab/tensor/tensor.h"

namespace tl {

namespace detail {
using BranchFn = std::function<std::vector<Tensor>()>;
using LoopCondFn = std::function<Tensor(const std::vector<Tensor>&)>;
using LoopBodyFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
std::vector<Tensor> cond_impl(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn);
std::vector<Tensor> while_loop_impl(const LoopCondFn& cond, const LoopBodyFn& body, std::vector<Tensor> loop_vars,
                                    std::int64_t maximum_iterations);

/// How a loop variable of type T becomes tensors and is rebuilt from them; `like` is the variable as it entered the
/// loop (a TensorArray keeps its dtype, size and element shape from it). Tensor here, TensorArray in tensor_array.h.
template <class T>
struct LoopVar;
template <>
struct LoopVar<Tensor> {
  static void flatten(const Tensor& value, std::vector<Tensor>& out) { out.push_back(value); }
  static Tensor unflatten(const Tensor&, const Tensor*& next) { return *next++; }
};
}  // namespace detail

/// Runs true_fn() if `pred` (a bool scalar) is true, else false_fn(). Both return a Tensor, or both a
/// std::vector<Tensor>; outputs must agree in count, dtype and compatible shape (known dims equal).
/// Gradients flow through the branch that ran.
template <class TrueFn, class FalseFn>
auto cond(const Tensor& pred, TrueFn true_fn, FalseFn false_fn) {
  using R = std::invoke_result_t<TrueFn&>;
  static_assert(std::is_same_v<R, std::invoke_result_t<FalseFn&>>, "tl::cond: both branches must return the same type");
  static_assert(std::is_same_v<R, Tensor> || std::is_same_v<R, std::vector<Tensor>>,
                "tl::cond: branches return a Tensor or a std::vector<Tensor>");
  if constexpr (std::is_same_v<R, Tensor>) {
    auto wrap = [](auto& fn) { return detail::BranchFn([&fn] { return std::vector<Tensor>{fn()}; }); };
    return detail::cond_impl(pred, wrap(true_fn), wrap(false_fn)).at(0);
  } else {
    return detail::cond_impl(pred, true_fn, false_fn);
  }
}

/// Registers the structured ops of this layer — cond, while_loop, while_grad — in OpRegistry::global() (once per
/// process; tl::cond and tl::while_loop call it, and so does tracelab/tracelab.h before main, so a process that
/// never traced one can load a graph holding them from JSON).
void register_control_flow_ops();

/// Options of tl::while_loop.
struct WhileOptions {
  std::int64_t maximum_iterations = -1;  ///< stop after this many iterations (-1: no limit)
};

/// while (cond(vars)) vars = body(vars); returns the final vars. `cond` returns a bool scalar; `body` returns
/// as many tensors as it gets, each with the same dtype and a compatible shape. Gradients flow to the initial
/// loop vars and to outer tensors the loop uses (computed by re-running the loop under a tape; see docs).
inline std::vector<Tensor> while_loop(const detail::LoopCondFn& cond, const detail::LoopBodyFn& body,
                                      std::vector<Tensor> loop_vars, WhileOptions options = {}) {
  return detail::while_loop_impl(cond, body, std::move(loop_vars), options.maximum_iterations);
}

/// The same over a tuple of Tensors and TensorArrays: cond(vars...) returns a bool scalar, body(vars...) a std::tuple
/// of the same types; returns the final tuple. A TensorArray is one tensor in the loop (its buffer), so a write in
/// the body is a node of the body's sub-graph and the array grows or fills while the graph runs.
template <class Cond, class Body, class... Vars>
std::tuple<Vars...> while_loop(Cond cond, Body body, std::tuple<Vars...> loop_vars, WhileOptions options = {}) {
  auto flatten = [](const std::tuple<Vars...>& vars) {
    std::vector<Tensor> flat;
    std::apply([&](const Vars&... v) { (detail::LoopVar<Vars>::flatten(v, flat), ...); }, vars);
    return flat;
  };
  auto unflatten = [&loop_vars](const std::vector<Tensor>& flat) {
    const Tensor* next = flat.data();
    return std::apply(
        [&](const Vars&... like) { return std::tuple<Vars...>{detail::LoopVar<Vars>::unflatten(like, next)...}; },
        loop_vars);
  };
  std::vector<Tensor> out = detail::while_loop_impl(
      [&](const std::vector<Tensor>& flat) { return Tensor(std::apply(cond, unflatten(flat))); },
      [&](const std::vector<Tensor>& flat) { return flatten(std::tuple<Vars...>(std::apply(body, unflatten(flat)))); },
      flatten(loop_vars), options.maximum_iterations);
  return unflatten(out);
}

}  // namespace tl
