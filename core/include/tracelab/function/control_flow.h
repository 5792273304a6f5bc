// Control flow that works eagerly and in graphs: tl::cond and tl::while_loop (tf.cond, tf.while_loop).
// Eagerly they just run C++ control flow. While a function is traced with a symbolic predicate they trace
// their branches / cond and body into sub-graphs and add one node, so the decision is made each time the
// graph runs — C++ `if (t)` on a symbolic tensor is an error that points here. docs/tracing.md.
//
//   tl::Tensor y = tl::cond(tl::greater(tl::reduce_sum(x), 0.f), [&] { return x; }, [&] { return -x; });
//   auto out = tl::while_loop([](const auto& v) { return tl::less(v[0], 10); },
//                             [](const auto& v) { return std::vector<tl::Tensor>{v[0] + 1}; }, {tl::scalar(0)});
#pragma once

#include <functional>
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

}  // namespace tl
