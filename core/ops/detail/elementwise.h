// Broadcasting loops for elementwise kernels (private to core/ops). Only kernels include Eigen.
//
// The output shape is walked row by row after coalescing dims (adjacent dims merge when every input steps
// through them the same way), so most calls reduce to one or a few long Eigen array expressions; a
// broadcast input appears in a row as an Eigen constant.
#pragma once

#include <Eigen/Core>
#include <array>
#include <vector>

#include "tracelab/tensor/tensor.h"

namespace tl::detail {

template <class T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <class T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

/// Dims and per-input element strides of a broadcast, after coalescing. Rank >= 1; the innermost stride of
/// every input is 0 (broadcast) or 1 (contiguous).
template <std::size_t N>
struct BroadcastPlan {
  std::vector<std::int64_t> dims;
  std::array<std::vector<std::int64_t>, N> strides;
};

template <std::size_t N>
BroadcastPlan<N> plan_broadcast(const Shape& out, const std::array<const Shape*, N>& inputs) {
  const int rank = out.rank();
  // Element strides of each input along the output's dims: 0 where the input broadcasts (size 1 or absent).
  std::array<std::vector<std::int64_t>, N> strides;
  for (std::size_t k = 0; k < N; ++k) {
    const Shape& in = *inputs[k];
    strides[k].assign(static_cast<std::size_t>(rank), 0);
    std::int64_t step = 1;
    for (int i = in.rank() - 1; i >= 0; --i) {
      if (in[static_cast<std::size_t>(i)] != 1) strides[k][static_cast<std::size_t>(rank - in.rank() + i)] = step;
      step *= in[static_cast<std::size_t>(i)];
    }
  }
  // Drop size-1 output dims (every input has stride 0 there), then merge dim i into the previous kept dim when
  // every input steps through both as one: stride[prev] == stride[i] * dims[i] (0 == 0 for a broadcast pair).
  BroadcastPlan<N> plan;
  for (int i = 0; i < rank; ++i) {
    const auto at = static_cast<std::size_t>(i);
    const std::int64_t d = out[at];
    if (d == 1) continue;
    bool merge = !plan.dims.empty();
    for (std::size_t k = 0; k < N && merge; ++k) merge = plan.strides[k].back() == strides[k][at] * d;
    if (merge) plan.dims.back() *= d;
    else plan.dims.push_back(d);
    for (std::size_t k = 0; k < N; ++k) {
      if (merge) plan.strides[k].back() = strides[k][at];
      else plan.strides[k].push_back(strides[k][at]);
    }
  }
  if (plan.dims.empty()) {  // one element: every input is read at offset 0
    plan.dims = {1};
    for (auto& s : plan.strides) s = {0};
  }
  return plan;
}

/// Calls row(out_offset, length, offsets, inner_strides) for every innermost row of the broadcast.
template <std::size_t N, class Row>
void for_each_row(const BroadcastPlan<N>& plan, Row&& row) {
  const std::size_t rank = plan.dims.size();
  const std::int64_t length = plan.dims[rank - 1];
  std::int64_t rows = 1;
  for (std::size_t i = 0; i + 1 < rank; ++i) rows *= plan.dims[i];
  if (length == 0 || rows == 0) return;
  std::vector<std::int64_t> index(rank, 0);
  std::array<std::int64_t, N> offsets{}, inner{};
  for (std::size_t k = 0; k < N; ++k) inner[k] = plan.strides[k][rank - 1];
  for (std::int64_t r = 0; r < rows; ++r) {
    row(r * length, length, offsets, inner);
    for (int i = static_cast<int>(rank) - 2; i >= 0; --i) {  // advance the outer index, carrying
      auto d = static_cast<std::size_t>(i);
      ++index[d];
      for (std::size_t k = 0; k < N; ++k) offsets[k] += plan.strides[k][d];
      if (index[d] < plan.dims[d]) break;
      for (std::size_t k = 0; k < N; ++k) offsets[k] -= plan.strides[k][d] * index[d];
      index[d] = 0;
    }
  }
}

/// Calls fn with an Eigen array expression for a row of `data`: a constant when the stride is 0, else a map
/// (the plan guarantees inner strides of 0 or 1).
template <class T, class Fn>
decltype(auto) with_row(const T* data, std::int64_t offset, std::int64_t length, std::int64_t stride, Fn&& fn) {
  if (stride == 0) return fn(Eigen::Array<T, Eigen::Dynamic, 1>::Constant(length, data[offset]));
  return fn(ConstArrayMap<T>(data + offset, length));
}

/// out = fn(a) elementwise; fn maps an Eigen array expression of T to one of R.
template <class T, class R, class Fn>
void unary_map(const Tensor& a, const Tensor& out, Fn&& fn) {
  auto n = out.num_elements();
  ArrayMap<R>(out.mutable_data<R>(), n) = fn(ConstArrayMap<T>(a.data<T>(), n));
}

/// out = fn(a, b) with NumPy broadcasting; fn maps two Eigen array expressions of T to one of R.
template <class T, class R, class Fn>
void binary_map(const Tensor& a, const Tensor& b, const Tensor& out, Fn&& fn) {
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  R* po = out.mutable_data<R>();
  const auto n = out.num_elements();
  using Column = Eigen::Array<T, Eigen::Dynamic, 1>;
  // Fast paths. Operands with as many elements as the output are laid out as it is (where an input's dim is 1 and
  // the output's is not, the input would hold fewer): same shapes, or (1, 1, n) + (n). Or a one-element operand.
  if (a.num_elements() == n && b.num_elements() == n) {
    ArrayMap<R>(po, n) = fn(ConstArrayMap<T>(pa, n), ConstArrayMap<T>(pb, n));
    return;
  }
  if (b.num_elements() == 1 && a.shape() == out.shape()) {
    ArrayMap<R>(po, n) = fn(ConstArrayMap<T>(pa, n), Column::Constant(n, pb[0]));
    return;
  }
  if (a.num_elements() == 1 && b.shape() == out.shape()) {
    ArrayMap<R>(po, n) = fn(Column::Constant(n, pa[0]), ConstArrayMap<T>(pb, n));
    return;
  }
  auto plan = plan_broadcast<2>(out.shape(), {&a.shape(), &b.shape()});
  for_each_row(plan, [&](std::int64_t at, std::int64_t len, const auto& off, const auto& inner) {
    with_row(pa, off[0], len, inner[0], [&](const auto& ea) {
      with_row(pb, off[1], len, inner[1], [&](const auto& eb) { ArrayMap<R>(po + at, len) = fn(ea, eb); });
    });
  });
}

/// out = fn(a, b, c) with broadcasting; element-at-a-time (used by where and clip_by_value).
template <class A, class B, class C, class R, class Fn>
void ternary_map(const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& out, Fn&& fn) {
  const A* pa = a.data<A>();
  const B* pb = b.data<B>();
  const C* pc = c.data<C>();
  R* po = out.mutable_data<R>();
  auto plan = plan_broadcast<3>(out.shape(), {&a.shape(), &b.shape(), &c.shape()});
  for_each_row(plan, [&](std::int64_t at, std::int64_t len, const auto& off, const auto& inner) {
    for (std::int64_t i = 0; i < len; ++i)
      po[at + i] = fn(pa[off[0] + i * inner[0]], pb[off[1] + i * inner[1]], pc[off[2] + i * inner[2]]);
  });
}

}  // namespace tl::detail
