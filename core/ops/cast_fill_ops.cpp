// Cast and fill ops: x's shape with new elements — cast converts each element to another dtype (with Tracelab's
// rules where TensorFlow leaves the result undefined); zeros_like and ones_like replace each by a constant.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "ops/detail/elementwise.h"
#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/array.h"

namespace tl {
namespace detail {
namespace {

using I32 = std::int32_t;

/// float32 -> int32 as Tracelab defines it: truncation toward zero, saturating at the int32 limits, NaN -> 0.
/// TensorFlow leaves NaN and out-of-range values implementation-defined (x86 gives INT32_MIN for all of them).
I32 saturate_to_i32(float value) {
  if (std::isnan(value)) return 0;
  if (value >= 2147483648.f) return std::numeric_limits<I32>::max();
  if (value <= -2147483648.f) return std::numeric_limits<I32>::min();
  return static_cast<I32>(value);
}

/// out = cast<To>(in) elementwise, for one pair of element types.
template <class From, class To>
void cast_elements(const Tensor& in, const Tensor& out) {
  if constexpr (std::is_same_v<From, To>) {
    std::copy_n(in.data<From>(), in.num_elements(), out.mutable_data<To>());
  } else if constexpr (std::is_same_v<To, bool>) {
    unary_map<From, bool>(in, out, [](const auto& x) { return x != From(0); });  // NaN -> true, as in TF
  } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, I32>) {
    auto saturate = [](float v) { return saturate_to_i32(v); };
    unary_map<float, I32>(in, out, [&](const auto& x) { return x.unaryExpr(saturate); });
  } else {
    unary_map<From, To>(in, out, [](const auto& x) { return x.template cast<To>(); });
  }
}

// ---- gradient rule: public ops only ----
using Grads = std::span<Tensor>;

/// cast: d = g for float32 -> float32 (a copy); none from or to int32 or bool (not real-valued)
void grad_cast(const GradContext& c, Grads d) {
  if (c.input(0).dtype() == DType::float32 && c.output().dtype() == DType::float32) d[0] = c.grad();
}

/// Registers zeros_like / ones_like: x's dtype and shape, filled with `value` (no gradient, as in TF).
void register_fill_like(OpRegistry& r, const char* name, const char* doc, int value) {
  r.op(name).doc(doc).inputs(1).traits(trait::not_differentiable | trait::reads_only_metas)
      .shape_fn(same_as_input)
      .kernel([value](KernelContext& ctx) {
        visit_dtype(ctx.output().dtype(), [&](auto tag) {
          using T = decltype(tag);
          std::fill_n(ctx.output().mutable_data<T>(), ctx.output().num_elements(), static_cast<T>(value));
        });
      });
}

}  // namespace

void register_cast_fill_ops(OpRegistry& r) {
  // Differentiable as an op, but the gradient is none unless both dtypes are float32: traits are static per op,
  // and float32 -> float32 must stay differentiable (the tape never watches int32 or bool tensors anyway).
  r.op("cast").doc("x converted to dtype; float -> int32 truncates and saturates (NaN -> 0); to bool is x != 0")
      .inputs(1).attr<DType>("dtype", true)
      .shape_fn([](ShapeContext& ctx) {
        ctx.output() = TensorMeta{ctx.attrs.get<DType>("dtype"), ctx.input(0).shape};
      })
      .kernel([](KernelContext& ctx) {
        visit_dtype(ctx.input(0).dtype(), [&](auto from) {
          visit_dtype(ctx.output().dtype(), [&](auto to) {
            cast_elements<decltype(from), decltype(to)>(ctx.input(0), ctx.output());
          });
        });
      })
      .gradient(grad_cast);

  register_fill_like(r, "zeros_like", "zeros of x's dtype and shape", 0);
  register_fill_like(r, "ones_like", "ones (true) of x's dtype and shape", 1);
}

}  // namespace detail

Tensor cast(const Tensor& x, DType dtype) {
  static const OpDef& op = OpRegistry::global().get("cast");
  return execute(op, {x}, {{"dtype", dtype}});
}

Tensor zeros_like(const Tensor& x) {
  static const OpDef& op = OpRegistry::global().get("zeros_like");
  return execute(op, {x});
}

Tensor ones_like(const Tensor& x) {
  static const OpDef& op = OpRegistry::global().get("ones_like");
  return execute(op, {x});
}

}  // namespace tl
