// Small helpers shared by the test files: shape rules on partially known metas, and tape gradients.
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tracelab/tracelab.h"

namespace tl::testing {

/// The message of the E (any tl::Error by default) that fn throws, or "" when it throws none; an exception of
/// another type escapes and fails the test case.
template <class E = Error, class Fn>
std::string error_message(Fn&& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

/// True when two tensors have the same dtype and shape and bit-identical elements (an empty tensor has no data
/// pointer: compared by meta only).
inline bool same_bits(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || !(a.meta() == b.meta())) return false;
  auto bytes = static_cast<std::size_t>(a.num_elements()) * dtype_size(a.dtype());
  return bytes == 0 || std::memcmp(a.impl().buffer->data(), b.impl().buffer->data(), bytes) == 0;
}

/// A float32 / int32 meta; dims may be -1 (unknown), as while tracing.
inline TensorMeta f32(Shape shape) { return {float32, std::move(shape)}; }
inline TensorMeta i32(Shape shape) { return {int32, std::move(shape)}; }

/// d mean(x) / dx as the backward pass writes it for a rank-1 x of unknown size, added to `g`: {(zeros_like(x) + 1)
/// / count, count}, with count = reduce_sum(ones_like(x)) over the last axis, kept. Everything in it follows from
/// x's meta: constant folding keeps it in a graph with unknown dims, and an executor's plan computes it once.
inline std::pair<graph::ValueRef, graph::ValueRef> mean_gradient_seed(graph::Graph& g, graph::ValueRef x) {
  auto seed = g.add_op("add", {g.add_op("zeros_like", {x})[0], g.add_constant(constant({1.f}, {1}))})[0];
  auto count = g.add_op("reduce_sum", {g.add_op("ones_like", {x})[0]},
                        Attrs().set("axes", Ints{-1}).set("keepdims", true))[0];
  return {g.add_op("div", {seed, count})[0], count};
}

/// The output meta that op `name`'s shape rule gives for `inputs` (no kernel runs).
inline TensorMeta infer(const char* name, std::vector<TensorMeta> inputs, const Attrs& attrs = {}) {
  const OpDef& op = OpRegistry::global().get(name);
  std::vector<const TensorMeta*> metas;
  for (const auto& m : inputs) metas.push_back(&m);
  TensorMeta out;
  op.infer(metas, attrs, std::span<TensorMeta>(&out, 1));
  return out;
}

/// d(sum(f(sources) * u))/d(sources) from a tape: the gradient each source gets when f's upstream is u.
template <class Fn>
std::vector<Tensor> grads_of(Fn f, const std::vector<Tensor>& sources, const Tensor& u) {
  GradientTape tape;
  for (const auto& s : sources) tape.watch(s);
  Tensor y = f(sources);
  REQUIRE(y.shape() == u.shape());
  return tape.gradient(reduce_sum(y * u), sources);
}

/// The same for one source.
template <class Fn>
Tensor grad_of(Fn f, const Tensor& x, const Tensor& u) {
  return grads_of([&](const std::vector<Tensor>& s) { return f(s[0]); }, {x}, u)[0];
}

}  // namespace tl::testing
