// Fused optimizer updates: one op per optimizer computes a variable's new value and its new slot values in one
// pass over the elements, instead of the five to ten elementwise ops (each a full pass with its own buffer)
// that the textbook formula becomes. tl::optimizers::{SGD, Adam, RMSprop} call them and assign the outputs;
// they have no gradient (not_differentiable). The formulas are Keras 3's; g = gradient, lr = learning rate:
//
//   sgd_update(var, g, lr)                      var' = var - lr g
//   sgd_momentum_update(var, m, g, lr; momentum, nesterov)
//                                               m' = momentum m - lr g
//                                               var' = var + m'   (nesterov: var + momentum m' - lr g)
//   adam_update(var, m, v, g, lr, step; beta_1, beta_2, epsilon)     step = iterations + 1 (float32)
//                                               m' = m + (g - m)(1 - beta_1)
//                                               v' = v + (g^2 - v)(1 - beta_2)
//                                               alpha = lr sqrt(1 - beta_2^step) / (1 - beta_1^step)
//                                               var' = var - alpha m' / (sqrt(v') + epsilon)   (epsilon "hat")
//   rmsprop_update(var, rms, g, lr; rho, epsilon)
//                                               rms' = rho rms + (1 - rho) g^2
//                                               var' = var - lr g / sqrt(rms' + epsilon)
//   rmsprop_momentum_update(var, rms, mom, g, lr; rho, momentum, epsilon)
//                                               rms' as above, mom' = momentum mom + lr g / sqrt(rms' + epsilon)
//                                               var' = var - mom'
//
// Slot values below FLT_MIN in magnitude are flushed to zero. Moments of weights whose gradient stays 0 (a dead
// relu unit) decay geometrically into denormal floats, which x86 and WASM process many times slower; TF's CPU
// kernels avoid them by running with flush-to-zero, which WebAssembly lacks — an explicit select works
// everywhere and costs one compare per element.
//
// var, the slots and g share one shape (known dims must agree); lr and step are float32 scalars (rank 0). The
// outputs are (var', slots'...) in input order. The kernels walk the elements in cache-sized chunks, each chunk
// one Eigen expression per output, so every input element is loaded from memory once.
//
// Each has an `_apply` twin that updates a whole set of variables in place, one node for an optimizer step
// (TensorFlow's ResourceApply* ops, for all variables at once): sgd_apply, sgd_momentum_apply, adam_apply,
// rmsprop_apply, rmsprop_momentum_apply. Inputs: the n gradients, then the scalars; the node's variables
// (trait::updates_variables): the n variables, then the n values of each slot (adam_apply: w_0..w_n-1,
// m_0..m_n-1, v_0..v_n-1). No outputs; never differentiated. The kernel runs the per-variable kernel once per
// variable with its outputs written over its inputs (each element is read before it is written, so the results
// are bit-identical to the _update op's); a value someone else still holds (an earlier read kept by a tape or
// returned from a function) is left as it was, and the variable gets a fresh buffer instead.
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <cstdint>
#include <limits>

#include "ops/detail/elementwise.h"
#include "ops/detail/register.h"
#include "ops/detail/rules.h"

namespace tl::detail {
namespace {

using Column = Eigen::Array<float, Eigen::Dynamic, 1>;
using Segment = Eigen::Map<Column>;
using ConstSegment = Eigen::Map<const Column>;

/// Elements per chunk: 8 arrays of 1024 floats (32 KiB) stay in L1/L2 while a chunk's expressions run.
constexpr std::int64_t kChunk = 1024;

/// The rule shared by the update ops: the first `tensors` inputs (var, slots, gradient) are float32 of one
/// shape (unknown dims take the known size from another input), the rest are float32 scalars; one output per
/// tensor input except the gradient (the last tensor input), each with the merged shape.
void update_shape(ShapeContext& ctx, std::size_t tensors) {
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) expect_dtype(ctx, i, {DType::float32});
  Shape shape = ctx.input(0).shape;
  for (std::size_t i = 1; i < tensors; ++i) {
    const Shape& other = ctx.input(i).shape;
    TL_CHECK(other.is_compatible_with(shape), ShapeError, ctx.op.name(), ": input ", i, " ", meta_str(ctx.input(i)),
             " does not match the variable ", meta_str(ctx.input(0)));
    for (std::size_t d = 0; d < other.dims().size(); ++d)
      if (shape[d] < 0) shape.dims()[d] = other[d];
  }
  for (std::size_t i = tensors; i < ctx.inputs.size(); ++i)
    TL_CHECK(ctx.input(i).shape.rank() == 0, ShapeError, ctx.op.name(), ": input ", i,
             " (a hyperparameter) must be a scalar, got ", meta_str(ctx.input(i)));
  for (TensorMeta& out : ctx.outputs) out = TensorMeta{DType::float32, shape};
}

float scalar_input(const KernelContext& ctx, std::size_t i) { return *ctx.input(i).data<float>(); }
float attr(const KernelContext& ctx, const char* name) { return static_cast<float>(ctx.attrs.get<double>(name)); }

/// Calls fn(offset, length) over [0, n) in chunks of kChunk elements.
template <class Fn>
void for_chunks(std::int64_t n, Fn&& fn) {
  for (std::int64_t at = 0; at < n; at += kChunk) fn(at, std::min(kChunk, n - at));
}

/// x with |x| < FLT_MIN (denormals) replaced by 0.
template <class X>
auto flushed(const X& x) {
  return (x.abs() >= std::numeric_limits<float>::min()).select(x, 0.f);
}

ConstSegment in(const KernelContext& ctx, std::size_t i, std::int64_t at, std::int64_t len) {
  return ConstSegment(ctx.input(i).data<float>() + at, len);
}
Segment out(const KernelContext& ctx, std::size_t i, std::int64_t at, std::int64_t len) {
  return Segment(ctx.output(i).mutable_data<float>() + at, len);
}

// ---- kernels; inputs and outputs as in the header comment ----

void sgd_kernel(KernelContext& ctx) {
  const float lr = scalar_input(ctx, 2);
  for_chunks(ctx.output(0).num_elements(), [&](std::int64_t at, std::int64_t len) {
    out(ctx, 0, at, len) = in(ctx, 0, at, len) - lr * in(ctx, 1, at, len);
  });
}

void sgd_momentum_kernel(KernelContext& ctx) {
  const float lr = scalar_input(ctx, 3), momentum = attr(ctx, "momentum");
  const bool nesterov = ctx.attrs.get_or<bool>("nesterov", false);
  for_chunks(ctx.output(0).num_elements(), [&](std::int64_t at, std::int64_t len) {
    auto var = in(ctx, 0, at, len), m = in(ctx, 1, at, len), g = in(ctx, 2, at, len);
    auto m_next = out(ctx, 1, at, len);
    m_next = flushed(momentum * m - lr * g);
    if (nesterov) out(ctx, 0, at, len) = var + momentum * m_next - lr * g;
    else out(ctx, 0, at, len) = var + m_next;
  });
}

void adam_kernel(KernelContext& ctx) {
  const float lr = scalar_input(ctx, 4), step = scalar_input(ctx, 5);
  const float beta_1 = attr(ctx, "beta_1"), beta_2 = attr(ctx, "beta_2"), epsilon = attr(ctx, "epsilon");
  // Bias correction folded into the step size, in float32 like Keras: alpha = lr sqrt(1 - b2^t) / (1 - b1^t).
  const float alpha = lr * std::sqrt(1.f - std::pow(beta_2, step)) / (1.f - std::pow(beta_1, step));
#if defined(__wasm__)
  // In WebAssembly Eigen has no SIMD packets and runs these expressions one element at a time; a plain loop
  // (the same operations in the same order) is vectorized by LLVM and is about 1.6x faster.
  const std::int64_t n = ctx.output(0).num_elements();
  const float* var = ctx.input(0).data<float>();  // outputs may be the inputs (adam_apply): read, then write
  const float* m = ctx.input(1).data<float>();
  const float* v = ctx.input(2).data<float>();
  const float* g = ctx.input(3).data<float>();
  float* var_next = ctx.output(0).mutable_data<float>();
  float* m_next = ctx.output(1).mutable_data<float>();
  float* v_next = ctx.output(2).mutable_data<float>();
  const float tiny = std::numeric_limits<float>::min(), keep_m = 1.f - beta_1, keep_v = 1.f - beta_2;
  for (std::int64_t i = 0; i < n; ++i) {
    float mi = m[i] + (g[i] - m[i]) * keep_m;
    mi = std::fabs(mi) >= tiny ? mi : 0.f;
    float vi = v[i] + (g[i] * g[i] - v[i]) * keep_v;
    vi = std::fabs(vi) >= tiny ? vi : 0.f;
    m_next[i] = mi;
    v_next[i] = vi;
    var_next[i] = var[i] - alpha * mi / (std::sqrt(vi) + epsilon);
  }
#else
  for_chunks(ctx.output(0).num_elements(), [&](std::int64_t at, std::int64_t len) {
    auto var = in(ctx, 0, at, len), m = in(ctx, 1, at, len), v = in(ctx, 2, at, len), g = in(ctx, 3, at, len);
    auto m_next = out(ctx, 1, at, len), v_next = out(ctx, 2, at, len);
    m_next = flushed(m + (g - m) * (1.f - beta_1));
    v_next = flushed(v + (g.square() - v) * (1.f - beta_2));
    out(ctx, 0, at, len) = var - alpha * m_next / (v_next.sqrt() + epsilon);
  });
#endif
}

void rmsprop_kernel(KernelContext& ctx) {
  const float lr = scalar_input(ctx, 3), rho = attr(ctx, "rho"), epsilon = attr(ctx, "epsilon");
  for_chunks(ctx.output(0).num_elements(), [&](std::int64_t at, std::int64_t len) {
    auto var = in(ctx, 0, at, len), rms = in(ctx, 1, at, len), g = in(ctx, 2, at, len);
    auto rms_next = out(ctx, 1, at, len);
    rms_next = flushed(rho * rms + (1.f - rho) * g.square());
    out(ctx, 0, at, len) = var - lr * g / (rms_next + epsilon).sqrt();
  });
}

void rmsprop_momentum_kernel(KernelContext& ctx) {
  const float lr = scalar_input(ctx, 4), rho = attr(ctx, "rho"), epsilon = attr(ctx, "epsilon");
  const float momentum = attr(ctx, "momentum");
  for_chunks(ctx.output(0).num_elements(), [&](std::int64_t at, std::int64_t len) {
    auto var = in(ctx, 0, at, len), rms = in(ctx, 1, at, len), mom = in(ctx, 2, at, len), g = in(ctx, 3, at, len);
    auto rms_next = out(ctx, 1, at, len), mom_next = out(ctx, 2, at, len);
    rms_next = flushed(rho * rms + (1.f - rho) * g.square());
    mom_next = flushed(momentum * mom + lr * g / (rms_next + epsilon).sqrt());
    out(ctx, 0, at, len) = var - mom_next;
  });
}

/// Shape rule of an _apply op with `slots` slots and `scalars` scalar inputs: n float32 gradients, each of its
/// variable's shape, then float32 scalars; (1 + slots) n float32 variables, each slot of its variable's shape.
void apply_shape(ShapeContext& ctx, std::size_t slots, std::size_t scalars) {
  TL_CHECK(ctx.inputs.size() > scalars, InvalidArgument, ctx.op.name(), ": expected at least one gradient and ",
           scalars, " scalar(s), got ", ctx.inputs.size(), " input(s)");
  const std::size_t n = ctx.inputs.size() - scalars;
  TL_CHECK(ctx.variables.size() == (1 + slots) * n, InvalidArgument, ctx.op.name(), ": ", n, " gradient(s) need ",
           (1 + slots) * n, " variables (each variable, then each of its ", slots, " slot(s)), got ",
           ctx.variables.size());
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) expect_dtype(ctx, i, {DType::float32});
  for (std::size_t p = 0; p < n; ++p) {
    const auto& var = *ctx.variables[p];
    TL_CHECK(var.value.dtype() == DType::float32, DTypeError, ctx.op.name(), ": variable '", var.name, "' is ",
             meta_str(var.value.meta()), "; only float32 variables are updated");
    TL_CHECK(ctx.input(p).shape.is_compatible_with(var.value.shape()), ShapeError, ctx.op.name(), ": gradient ", p,
             " ", meta_str(ctx.input(p)), " does not match variable '", var.name, "' ", meta_str(var.value.meta()));
    for (std::size_t k = 1; k <= slots; ++k) {
      const auto& slot = *ctx.variables[k * n + p];
      TL_CHECK(slot.value.meta() == var.value.meta(), ShapeError, ctx.op.name(), ": slot '", slot.name, "' ",
               meta_str(slot.value.meta()), " does not match variable '", var.name, "' ", meta_str(var.value.meta()));
    }
  }
  for (std::size_t i = n; i < ctx.inputs.size(); ++i)
    TL_CHECK(ctx.input(i).shape.rank() == 0, ShapeError, ctx.op.name(), ": input ", i,
             " (a hyperparameter) must be a scalar, got ", meta_str(ctx.input(i)));
}

/// The kernel of an _apply op: `per_variable` (the _update op's kernel) once per variable, in place.
void apply_kernel(KernelContext& ctx, std::size_t slots, std::size_t scalars, const KernelFn& per_variable) {
  constexpr std::size_t kMaxSlots = 2;
  const std::size_t n = ctx.inputs.size() - scalars, k = 1 + slots;
  std::array<Tensor, 1 + kMaxSlots + 1 + 2> inputs;  // var, slots, gradient, scalars (at most two)
  std::array<Tensor, 1 + kMaxSlots> outputs;
  for (std::size_t s = 0; s < scalars; ++s) inputs[k + 1 + s] = ctx.inputs[n + s];
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t j = 0; j < k; ++j) {
      Tensor& value = ctx.variables[j * n + p]->value;
      if (exclusively_owned(value)) {
        inputs[j] = outputs[j] = value;
      } else {
        inputs[j] = value;
        outputs[j] = Tensor::empty(value.dtype(), value.shape());
      }
    }
    inputs[k] = ctx.inputs[p];
    KernelContext one{ctx.op, std::span<const Tensor>(inputs.data(), k + 1 + scalars), ctx.attrs,
                      std::span<Tensor>(outputs.data(), k)};
    per_variable(one);
    for (std::size_t j = 0; j < k; ++j) {
      ctx.variables[j * n + p]->value = outputs[j];
      inputs[j] = outputs[j] = Tensor();
    }
  }
}

/// Registers `<base>_update` — `tensors` tensor inputs (var, slots..., gradient) then `scalars` scalar inputs,
/// outputs (var', slots'...) — and its `<base>_apply` twin (gradients and scalars in, variables updated in place),
/// both running `kernel`; `attrs` declares the attributes both take.
void update_ops(OpRegistry& r, const std::string& base, const std::string& doc, int tensors, int scalars,
                const KernelFn& kernel, const std::function<void(OpDef&)>& attrs) {
  const auto num_tensors = static_cast<std::size_t>(tensors);
  attrs(r.op(base + "_update").doc(doc).inputs(tensors + scalars).outputs(tensors - 1)
            .traits(trait::not_differentiable)
            .shape_fn([num_tensors](ShapeContext& ctx) { update_shape(ctx, num_tensors); })
            .kernel(kernel));
  const auto slots = static_cast<std::size_t>(tensors - 2), count = static_cast<std::size_t>(scalars);
  attrs(r.op(base + "_apply")
            .doc(cat(base, "_update for every variable of a step, in place: the gradients and the scalars in; the "
                           "variables, then each of their ", slots, " slot(s), by handle"))
            .variadic_inputs(1 + scalars).outputs(0)
            .traits(trait::not_differentiable | trait::updates_variables | trait::side_effects)
            .shape_fn([slots, count](ShapeContext& ctx) { apply_shape(ctx, slots, count); })
            .kernel([slots, count, kernel](KernelContext& ctx) { apply_kernel(ctx, slots, count, kernel); }));
}

}  // namespace

void register_optimizer_ops(OpRegistry& r) {
  update_ops(r, "sgd", "SGD step: var - lr g -> var'", 2, 1, sgd_kernel, [](OpDef&) {});
  update_ops(r, "sgd_momentum",
             "SGD with momentum (Keras): m' = momentum m - lr g; var' = var + m' (nesterov: var + momentum m' - lr g) "
             "-> (var', m')",
             3, 1, sgd_momentum_kernel, [](OpDef& op) { op.attr<double>("momentum", true).attr<bool>("nesterov"); });
  update_ops(r, "adam",
             "Adam step (Keras), bias correction folded into lr, epsilon hat: -> (var', m', v'); step = iterations + 1",
             4, 2, adam_kernel, [](OpDef& op) {
               op.attr<double>("beta_1", true).attr<double>("beta_2", true).attr<double>("epsilon", true);
             });
  update_ops(r, "rmsprop", "RMSprop step (Keras): rms' = rho rms + (1 - rho) g^2; var' = var - lr g / "
             "sqrt(rms' + epsilon) -> (var', rms')", 3, 1, rmsprop_kernel,
             [](OpDef& op) { op.attr<double>("rho", true).attr<double>("epsilon", true); });
  update_ops(r, "rmsprop_momentum", "RMSprop with momentum (Keras): mom' = momentum mom + lr g / sqrt(rms' + "
             "epsilon); var' = var - mom' -> (var', rms', mom')", 4, 1, rmsprop_momentum_kernel, [](OpDef& op) {
               op.attr<double>("rho", true).attr<double>("momentum", true).attr<double>("epsilon", true);
             });
}

}  // namespace tl::detail
