// Reductions (reduce_sum / reduce_mean / reduce_max / reduce_min) and argmax: registrations and functions.
//
// Kernels view the input as groups of adjacent dims: size-1 dims are dropped and neighbours that are both
// reduced or both kept merge, so reducing (1, X, 20) over axis 1 is one (outer 1, n X, inner 20) block. Each
// reduced group is one pass over an (outer, n, inner) view, innermost group first; most calls need a single
// pass. Sums are Eigen partial reductions of a column-major view (colwise for contiguous sets, rowwise when
// strided); max and min fold whole rows of `inner` values with NaN-propagating selects (Eigen's own max is
// free to drop a NaN, and differently natively and in WASM).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/detail/elementwise.h"
#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"
#include "tracelab/ops/reduce.h"

namespace tl {
namespace detail {
namespace {

using I32 = std::int32_t;

enum class Reduction { sum, mean, max, min };

/// "[0, -1]", for messages.
std::string ints_str(const Ints& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

/// The attribute "axes" (absent means empty).
const Ints& axes_attr(const Attrs& attrs) {
  static const Ints none;
  return attrs.has("axes") ? attrs.get<Ints>("axes") : none;
}

/// Which axes of a rank-`rank` input are reduced: the attribute "axes" (absent or empty: all of them).
/// Negative axes count from the end; an axis named twice is an InvalidArgument.
std::vector<bool> reduced_axes(const std::string& op, const Attrs& attrs, int rank) {
  const Ints& axes = axes_attr(attrs);
  std::vector<bool> reduced(static_cast<std::size_t>(rank), axes.empty());
  for (std::int64_t axis : axes) {
    auto a = static_cast<std::size_t>(normalize_axis(op.c_str(), axis, rank));
    TL_CHECK(!reduced[a], InvalidArgument, op, ": axis ", axis, " is named twice in axes ", ints_str(axes),
             " (rank ", rank, ")");
    reduced[a] = true;
  }
  return reduced;
}

/// Shape rule of the reductions: the input's dims minus the reduced ones (kept as 1 with keepdims); unknown
/// dims propagate. An int32 mean over a (known) empty set is an InvalidArgument.
void reduce_shape(ShapeContext& ctx, Reduction kind) {
  expect_dtype(ctx, 0, {DType::float32, DType::int32});
  const TensorMeta& in = ctx.input(0);
  std::vector<bool> reduced = reduced_axes(ctx.op.name(), ctx.attrs, in.shape.rank());
  bool keepdims = ctx.attrs.get_or("keepdims", false);
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i < reduced.size(); ++i) {
    TL_CHECK(!(kind == Reduction::mean && in.dtype == DType::int32 && reduced[i] && in.shape[i] == 0),
             InvalidArgument, ctx.op.name(), ": the mean of zero int32 elements is undefined (input ", meta_str(in),
             ", axes ", ints_str(axes_attr(ctx.attrs)), ")");
    if (!reduced[i]) dims.push_back(in.shape[i]);
    else if (keepdims) dims.push_back(1);
  }
  ctx.output() = TensorMeta{in.dtype, Shape(std::move(dims))};
}

/// Accumulator type: float32 in float; int32 sums in uint32 (wraps like TensorFlow, without signed-overflow
/// UB); int32 means in int64 (exact, then truncated toward zero).
template <Reduction K, class T> struct Accumulator { using type = T; };
template <> struct Accumulator<Reduction::sum, I32> { using type = std::uint32_t; };
template <> struct Accumulator<Reduction::mean, I32> { using type = std::int64_t; };

/// The result of reducing zero elements (TensorFlow's identities): 0, -inf / INT32_MIN, +inf / INT32_MAX.
template <Reduction K, class A>
A identity() {
  using Limits = std::numeric_limits<A>;
  if constexpr (K == Reduction::max) return Limits::has_infinity ? -Limits::infinity() : Limits::lowest();
  else if constexpr (K == Reduction::min) return Limits::has_infinity ? Limits::infinity() : Limits::max();
  else return A(0);
}

/// acc = max or min of acc and row, elementwise. A NaN already in acc stays; a NaN in row replaces.
template <Reduction K, class Acc, class Row>
void combine(Acc& acc, const Row& row) {
  using A = typename Acc::Scalar;
  if constexpr (std::is_floating_point_v<A>) {
    if constexpr (K == Reduction::max) acc = (row > acc || row.isNaN()).select(row, acc);
    else acc = (row < acc || row.isNaN()).select(row, acc);
  } else {
    if constexpr (K == Reduction::max) acc = acc.max(row);
    else acc = acc.min(row);
  }
}

/// A column-major 2-D view: an (n, inner) row-major block seen as (inner, n) has row j as column j.
template <class T>
using ConstGridMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic>>;

/// out[o, i] = sum over j of in[o, j, i], for an (outer, n, inner) view of `in` (n >= 1).
template <class In, class A>
void sum_pass(const In* in, A* out, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  if (inner == 1) {  // contiguous sets: the columns of an (n, outer) grid
    ArrayMap<A>(out, outer) = ConstGridMap<In>(in, n, outer).template cast<A>().colwise().sum().transpose();
    return;
  }
  for (std::int64_t o = 0; o < outer; ++o)
    ArrayMap<A>(out + o * inner, inner) =
        ConstGridMap<In>(in + o * n * inner, inner, n).template cast<A>().rowwise().sum();
}

/// out[o, i] = max (or min) over j of in[o, j, i], for an (outer, n, inner) view (n >= 1); NaN wins.
template <Reduction K, class T>
void extremum_pass(const T* in, T* out, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  for (std::int64_t o = 0; o < outer; ++o) {
    const T* block = in + o * n * inner;
    if (inner == 1) {
      ConstArrayMap<T> set(block, n);
      if constexpr (K == Reduction::max) out[o] = set.template maxCoeff<Eigen::PropagateNaN>();
      else out[o] = set.template minCoeff<Eigen::PropagateNaN>();
      continue;
    }
    ArrayMap<T> acc(out + o * inner, inner);
    acc = ConstArrayMap<T>(block, inner);
    for (std::int64_t j = 1; j < n; ++j) combine<K>(acc, ConstArrayMap<T>(block + j * inner, inner));
  }
}

/// out[o, i] = reduce over j of in[o, j, i], for an (outer, n, inner) row-major view of `in` (n == 1: a copy).
template <Reduction K, class In, class A>
void reduce_pass(const In* in, A* out, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  if (outer == 0 || inner == 0) return;
  if (n == 0) std::fill_n(out, outer * inner, identity<K, A>());
  else if (n == 1) ArrayMap<A>(out, outer * inner) = ConstArrayMap<In>(in, outer * inner).template cast<A>();
  else if constexpr (K == Reduction::sum || K == Reduction::mean) sum_pass(in, out, outer, n, inner);
  else extremum_pass<K>(in, out, outer, n, inner);
}

/// The input as the pass reads it: int32 summed in uint32 is read as uint32 (a signed type may alias its
/// unsigned twin), so the wrapping sum needs no per-element cast and vectorizes.
template <class A, class T>
const auto* pass_input(const T* in) {
  if constexpr (std::is_same_v<T, I32> && std::is_same_v<A, std::uint32_t>) return reinterpret_cast<const A*>(in);
  else return in;
}

/// A run of adjacent dims that are all reduced or all kept, merged into one.
struct Group {
  std::int64_t size;
  bool reduced;
};

/// The groups of a reduction: size-1 dims dropped (they change nothing), neighbours of one kind merged.
std::vector<Group> plan_groups(const Shape& shape, const std::vector<bool>& reduced) {
  std::vector<Group> groups;
  for (std::size_t i = 0; i < reduced.size(); ++i) {
    std::int64_t d = shape[i];
    if (d == 1) continue;
    if (!groups.empty() && groups.back().reduced == reduced[i]) groups.back().size *= d;
    else groups.push_back({d, reduced[i]});
  }
  return groups;
}

std::int64_t groups_product(const std::vector<Group>& groups, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end; ++i) p *= groups[i].size;
  return p;
}

/// Reduces every reduced group of `in` (innermost first) and writes the accumulators to `dst`.
template <Reduction K, class T, class A>
void reduce_groups(const T* in, std::vector<Group> groups, A* dst) {
  std::vector<A> current, next;
  bool first = true;
  auto is_reduced = [](const Group& g) { return g.reduced; };
  while (true) {
    auto it = std::find_if(groups.rbegin(), groups.rend(), is_reduced);
    if (it == groups.rend()) break;
    auto g = static_cast<std::size_t>(groups.rend() - it - 1);
    std::int64_t outer = groups_product(groups, 0, g), n = groups[g].size, inner = groups_product(groups, g + 1, groups.size());
    groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(g));
    bool last = std::none_of(groups.begin(), groups.end(), is_reduced);
    if (!last) next.resize(static_cast<std::size_t>(outer * inner));
    A* target = last ? dst : next.data();
    if (first) reduce_pass<K>(pass_input<A>(in), target, outer, n, inner);
    else reduce_pass<K>(current.data(), target, outer, n, inner);
    if (last) return;
    current.swap(next);
    first = false;
  }
  std::int64_t total = groups_product(groups, 0, groups.size());  // nothing to reduce: a (converting) copy
  ArrayMap<A>(dst, total) = ConstArrayMap<T>(in, total).template cast<A>();
}

/// A node's reduction plan for one input shape (kept in the kernel state: the executor runs a node on the same
/// shape again and again, and the plan allocates).
struct ReducePlan final : KernelState {
  Shape shape{-1};
  std::int64_t count = 1;     ///< elements per output value
  std::vector<Group> groups;  ///< see plan_groups
  /// At most one reduced group: one pass (outer, n, inner). With none (every reduced dim has size 1, as when a
  /// gradient sums over a batch of one) the pass is a copy, (1, 1, every element).
  bool single = false;
  std::int64_t outer = 1, n = 1, inner = 1;
};

const ReducePlan& reduce_plan(const KernelContext& ctx) {
  auto& plan = ctx.state<ReducePlan>();
  const Shape& shape = ctx.input(0).shape();
  if (plan.shape == shape) return plan;
  std::vector<bool> reduced = reduced_axes(ctx.op.name(), ctx.attrs, shape.rank());
  plan.count = 1;
  for (std::size_t i = 0; i < reduced.size(); ++i)
    if (reduced[i]) plan.count *= shape[i];
  plan.groups = plan_groups(shape, reduced);
  const auto reduced_groups = std::count_if(plan.groups.begin(), plan.groups.end(), [](const Group& g) { return g.reduced; });
  plan.single = reduced_groups <= 1;
  if (reduced_groups == 0) {
    plan.outer = plan.n = 1;
    plan.inner = groups_product(plan.groups, 0, plan.groups.size());
  } else if (plan.single) {
    auto g = static_cast<std::size_t>(std::find_if(plan.groups.begin(), plan.groups.end(),
                                                   [](const Group& x) { return x.reduced; }) - plan.groups.begin());
    plan.outer = groups_product(plan.groups, 0, g);
    plan.n = plan.groups[g].size;
    plan.inner = groups_product(plan.groups, g + 1, plan.groups.size());
  }
  plan.shape = shape;
  return plan;
}

/// reduce_groups for a plan: one pass when at most one group is reduced.
template <Reduction K, class T, class A>
void reduce_planned(const T* in, const ReducePlan& plan, A* dst) {
  if (plan.single) return reduce_pass<K>(pass_input<A>(in), dst, plan.outer, plan.n, plan.inner);
  reduce_groups<K>(in, plan.groups, dst);
}

template <Reduction K, class T>
void reduce_kernel(KernelContext& ctx) {
  using A = typename Accumulator<K, T>::type;
  const Tensor& x = ctx.input(0);
  const Tensor& out = ctx.output();
  std::int64_t size = out.num_elements();
  if (size == 0) return;  // nothing to write
  // An empty input's other dims may multiply past any size: each output value then reduces nothing (the
  // reduction's identity, a mean 0 / 0), without a plan.
  const bool empty = x.num_elements() == 0;
  const ReducePlan* plan = empty ? nullptr : &reduce_plan(ctx);
  const std::int64_t count = empty ? 0 : plan->count;
  auto reduce_into = [&](A* dst) {
    if (empty) std::fill_n(dst, size, identity<K, A>());
    else reduce_planned<K>(x.data<T>(), *plan, dst);
  };
  T* po = out.mutable_data<T>();
  if constexpr (std::is_same_v<A, T>) {
    reduce_into(po);
    if constexpr (K == Reduction::mean) ArrayMap<T>(po, size) /= static_cast<T>(count);  // 0 / 0 = nan
  } else {
    std::vector<A> acc(static_cast<std::size_t>(size));
    reduce_into(acc.data());
    if constexpr (K == Reduction::mean) {
      // |sum| < 2^63 needs count <= 2^32 (16 GiB of int32: a guard, not a real limit).
      TL_CHECK(count > 0 && count <= (std::int64_t{1} << 32), InvalidArgument, ctx.op.name(),
               ": cannot take the int32 mean of ", count, " elements");
      ArrayMap<T>(po, size) = (ConstArrayMap<A>(acc.data(), size) / A(count)).template cast<T>();
    } else {
      ArrayMap<T>(po, size) = ConstArrayMap<A>(acc.data(), size).template cast<T>();
    }
  }
}

/// A reduction's output t with the reduced axes of x restored as size-1 dims (t as keepdims=true gives it):
/// one reshape when at most one of the kept dims is unknown, else an expand_dims per reduced axis.
Tensor with_kept_dims(const Tensor& t, const Tensor& x, const Attrs& attrs) {
  if (attrs.get_or("keepdims", false)) return t;
  const std::vector<bool> reduced = reduced_axes("reduce", attrs, x.rank());
  Ints kept = x.shape().dims();
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (reduced[i]) kept[i] = 1;
  if (std::count(kept.begin(), kept.end(), std::int64_t{-1}) <= 1) return reshape(t, kept);
  Tensor out = t;
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (reduced[i]) out = expand_dims(out, static_cast<std::int64_t>(i));
  return out;
}

/// Gradients of the reductions, with g_b = g with the kept dims restored, broadcast over x:
///   sum: g_b        mean: g_b / n (n = elements per output)
///   max/min: g_b split equally among the elements equal to the result (ties share, as in TensorFlow)
template <Reduction K>
void reduction_gradient(const GradContext& c, std::span<Tensor> d) {
  const Tensor& x = c.input(0);
  if (x.dtype() != DType::float32) return;
  Tensor g = add(zeros_like(x), with_kept_dims(c.grad(), x, c.attrs));
  if constexpr (K == Reduction::sum) {
    d[0] = g;
  } else if constexpr (K == Reduction::mean) {
    if (x.shape().is_fully_defined()) {
      std::int64_t out_count = std::max<std::int64_t>(c.output().num_elements(), 1);
      d[0] = g / static_cast<float>(x.num_elements() / out_count);
    } else {  // traced with unknown dims: count the reduced elements with ops
      d[0] = g / reduce_sum(ones_like(x), c.attrs.get_or("axes", Ints{}), /*keepdims=*/true);
    }
  } else {
    Tensor hit = equal(x, with_kept_dims(c.output(), x, c.attrs));
    Tensor hits = cast(hit, DType::float32);
    Tensor ties = reduce_sum(hits, c.attrs.get_or("axes", Ints{}), /*keepdims=*/true);
    d[0] = where(hit, g / ties, zeros_like(g));
  }
}

template <Reduction K>
void reduction(OpRegistry& registry, const char* name, const char* doc) {
  registry.op(name).doc(doc).inputs(1).attr<Ints>("axes").attr<bool>("keepdims")
      .traits(trait::copy_when_same_size)  // every output value reduces one element (reduce_pass: n == 1)
      .shape_fn([](ShapeContext& ctx) { reduce_shape(ctx, K); })
      .kernel([](KernelContext& ctx) {
        if (ctx.input(0).dtype() == DType::int32) reduce_kernel<K, I32>(ctx);
        else reduce_kernel<K, float>(ctx);
      })
      .gradient(reduction_gradient<K>);
}

/// True when x should replace the current best: larger, or the first NaN (NaN counts as the largest).
/// Branch-free, so the strided loop below vectorizes.
template <class T>
bool beats(T x, T best) {
  if constexpr (std::is_floating_point_v<T>) return (x > best) | ((x != x) & (best == best));
  else return x > best;
}

/// Index of the first largest of v[0..n), n >= 1 (the first NaN if there is one).
template <class T>
I32 first_max(const T* v, std::int64_t n) {
  T top = ConstArrayMap<T>(v, n).template maxCoeff<Eigen::PropagateNaN>();
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(top)) return static_cast<I32>(std::find_if(v, v + n, [](T x) { return std::isnan(x); }) - v);
  }
  return static_cast<I32>(std::find(v, v + n, top) - v);
}

/// out[o, i] = the first j maximizing x[o, j, i], for an (outer, n, inner) view of x (n >= 1).
template <class T>
void argmax_blocks(const T* x, I32* out, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  std::vector<T> best(static_cast<std::size_t>(inner));
  for (std::int64_t o = 0; o < outer; ++o, out += inner) {
    const T* block = x + o * n * inner;
    if (inner == 1) {  // a contiguous set: the vectorized max, then the first place it occurs
      *out = first_max(block, n);
      continue;
    }
    std::copy_n(block, inner, best.data());
    std::fill_n(out, inner, I32{0});  // a graph's output slot holds what its last value left there
    for (std::int64_t j = 1; j < n; ++j) {
      const T* row = block + j * inner;
      for (std::int64_t i = 0; i < inner; ++i) {
        bool take = beats(row[i], best[i]);
        best[i] = take ? row[i] : best[i];
        out[i] = take ? static_cast<I32>(j) : out[i];
      }
    }
  }
}

template <class T>
void argmax_kernel(const Tensor& x, int axis, const Tensor& out) {
  const auto& dims = x.shape().dims();
  std::int64_t outer = 1, n = dims[static_cast<std::size_t>(axis)], inner = 1;
  for (int i = 0; i < x.rank(); ++i)
    if (i != axis) (i < axis ? outer : inner) *= dims[static_cast<std::size_t>(i)];
  TL_CHECK(n > 0, InvalidArgument, "argmax: axis ", axis, " of ", x.shape().str(), " is empty");
  if (outer != 0 && inner != 0) argmax_blocks(x.data<T>(), out.mutable_data<I32>(), outer, n, inner);
}

/// Shape rule of argmax: the input's dims without `axis`, int32. The axis must be non-empty (if known).
void argmax_shape(ShapeContext& ctx) {
  expect_dtype(ctx, 0, {DType::float32, DType::int32});
  const TensorMeta& in = ctx.input(0);
  int axis = normalize_axis("argmax", ctx.attrs.get_or<std::int64_t>("axis", 0), in.shape.rank());
  std::int64_t n = in.shape[static_cast<std::size_t>(axis)];
  TL_CHECK(n != 0, InvalidArgument, "argmax: axis ", axis, " of ", meta_str(in),
           " has size 0, so it has no largest value");
  TL_CHECK(n <= INT32_MAX, InvalidArgument, "argmax: axis ", axis, " of ", meta_str(in),
           " is too long for int32 indices");
  std::vector<std::int64_t> dims = in.shape.dims();
  dims.erase(dims.begin() + axis);
  ctx.output() = TensorMeta{DType::int32, Shape(std::move(dims))};
}

}  // namespace

void register_reduce_ops(OpRegistry& r) {
  reduction<Reduction::sum>(r, "reduce_sum", "sum of x over axes (empty: all); int32 wraps");
  reduction<Reduction::mean>(r, "reduce_mean", "sum of x over axes / count; int32 truncates toward zero");
  reduction<Reduction::max>(r, "reduce_max", "max of x over axes; NaN wins; empty: -inf / INT32_MIN");
  reduction<Reduction::min>(r, "reduce_min", "min of x over axes; NaN wins; empty: +inf / INT32_MAX");

  r.op("argmax").doc("first index j maximizing x[..., j, ...] along axis, int32; the first NaN wins")
      .inputs(1).traits(trait::not_differentiable).attr<std::int64_t>("axis")
      .shape_fn(argmax_shape)
      .kernel([](KernelContext& ctx) {
        int axis = normalize_axis("argmax", ctx.attrs.get_or<std::int64_t>("axis", 0), ctx.input(0).rank());
        if (ctx.input(0).dtype() == DType::int32) argmax_kernel<I32>(ctx.input(0), axis, ctx.output());
        else argmax_kernel<float>(ctx.input(0), axis, ctx.output());
      });
}

}  // namespace detail

#define TL_REDUCTION(fn)                                                      \
  Tensor fn(const Tensor& x, const Ints& axes, bool keepdims) {               \
    static const OpDef& op = OpRegistry::global().get(#fn);                   \
    return execute(op, {x}, {{"axes", axes}, {"keepdims", keepdims}});        \
  }
TL_REDUCTION(reduce_sum) TL_REDUCTION(reduce_mean) TL_REDUCTION(reduce_max) TL_REDUCTION(reduce_min)
#undef TL_REDUCTION

Tensor argmax(const Tensor& x, std::int64_t axis) {
  static const OpDef& op = OpRegistry::global().get("argmax");
  return execute(op, {x}, {{"axis", axis}});
}

}  // namespace tl
