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
// everywhere and costs one compare per element. Adam's moments move by a small fraction of themselves per step
// (v += (g^2 - v)(1 - beta_2)), so that fraction of a moment goes denormal long before the moment does: for
// beta_2 = 0.999 a decaying v spends ~7,000 steps between FLT_MIN and FLT_MIN / (1 - beta_2), each step a denormal
// product. Adam therefore flushes m below FLT_MIN / (1 - beta_1) and v below FLT_MIN / (1 - beta_2), so their
// decay never makes a denormal — when epsilon is large enough that this changes no update: sqrt of v's floor
// below epsilon's last bit (epsilon >= 5.8e-11 for beta_2 = 0.999; Keras' default is 1e-7), so an m that small
// moves a weight by less than 1e-26 and a v that small does not change sqrt(v) + epsilon. With a smaller epsilon
// both flush below FLT_MIN, as the other rules do.
//
// var, the slots and g share one shape (known dims must agree); lr and step are float32 scalars (rank 0). The
// outputs are (var', slots'...) in input order. Each op is one rule (below): its hyperparameters are read once
// per run, then one plain loop updates the variable and its slots element by element, in place.
//
// Each has an `_apply` twin that updates a whole set of variables in place, one node for an optimizer step
// (TensorFlow's ResourceApply* ops, for all variables at once): sgd_apply, sgd_momentum_apply, adam_apply,
// rmsprop_apply, rmsprop_momentum_apply. Inputs: the n gradients, then the scalars; the node's variables
// (trait::updates_variables): the n variables, then the n values of each slot (adam_apply: w_0..w_n-1,
// m_0..m_n-1, v_0..v_n-1). No outputs; never differentiated. The kernel runs the rule on each variable's own
// buffers (the same loop as the _update op, so the results are bit-identical); a value someone else still holds
// (an earlier read kept by a tape or returned from a function) is left as it was, and the variable gets a fresh
// buffer instead.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/detail/elementwise.h"
#include "ops/detail/register.h"
#include "ops/detail/rules.h"

namespace tl::detail {
namespace {

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

/// The smallest normal float32: below it a float is a denormal.
constexpr float kFltMin = std::numeric_limits<float>::min();
/// x, or 0 when |x| < floor (by default: when x is a denormal).
inline float flushed(float x, float floor = kFltMin) { return std::fabs(x) >= floor ? x : 0.f; }
/// The smallest moment whose move by `keep` (1 - beta) of itself is not a denormal: FLT_MIN / keep.
inline float moment_floor(float keep) { return keep > 0.f ? kFltMin / keep : kFltMin; }

// ---- the update rules; inputs and outputs as in the header comment ----
//
// A rule holds its hyperparameters, read once per op run from the attributes and the scalar inputs (which
// start at input `scalars_at`), and updates n elements of a variable and its slots in place:
// rule(var, slots..., g, n). The arrays are distinct buffers (__restrict), so each update is one plain loop
// that the compiler vectorizes (SSE natively, simd128 in WebAssembly); both the _update and the _apply op run it.

struct SgdRule {
  static constexpr std::size_t slots = 0;
  float lr;
  SgdRule(const KernelContext& ctx, std::size_t scalars_at) : lr(scalar_input(ctx, scalars_at)) {}
  void operator()(float* __restrict var, const float* __restrict g, std::int64_t n) const {
    for (std::int64_t i = 0; i < n; ++i) var[i] = var[i] - lr * g[i];
  }
};

struct SgdMomentumRule {
  static constexpr std::size_t slots = 1;
  float lr, momentum;
  bool nesterov;
  SgdMomentumRule(const KernelContext& ctx, std::size_t scalars_at)
      : lr(scalar_input(ctx, scalars_at)), momentum(attr(ctx, "momentum")),
        nesterov(ctx.attrs.get_or<bool>("nesterov", false)) {}
  void operator()(float* __restrict var, float* __restrict m, const float* __restrict g, std::int64_t n) const {
    if (nesterov) {
      for (std::int64_t i = 0; i < n; ++i) {
        const float mi = flushed(momentum * m[i] - lr * g[i]);
        m[i] = mi;
        var[i] = var[i] + momentum * mi - lr * g[i];
      }
    } else {
      for (std::int64_t i = 0; i < n; ++i) {
        const float mi = flushed(momentum * m[i] - lr * g[i]);
        m[i] = mi;
        var[i] = var[i] + mi;
      }
    }
  }
};

struct AdamRule {
  static constexpr std::size_t slots = 2;
  float alpha, keep_m, keep_v, epsilon, floor_m, floor_v;
  AdamRule(const KernelContext& ctx, std::size_t scalars_at) {
    const float lr = scalar_input(ctx, scalars_at), step = scalar_input(ctx, scalars_at + 1);
    const float beta_1 = attr(ctx, "beta_1"), beta_2 = attr(ctx, "beta_2");
    // Bias correction folded into the step size, in float32 like Keras: alpha = lr sqrt(1 - b2^t) / (1 - b1^t).
    alpha = lr * std::sqrt(1.f - std::pow(beta_2, step)) / (1.f - std::pow(beta_1, step));
    keep_m = 1.f - beta_1;
    keep_v = 1.f - beta_2;
    epsilon = attr(ctx, "epsilon");
    const bool early = std::sqrt(moment_floor(keep_v)) <= epsilon * 0x1p-24f;  // see the header comment
    floor_m = early ? moment_floor(keep_m) : kFltMin;
    floor_v = early ? moment_floor(keep_v) : kFltMin;
  }
  void operator()(float* __restrict var, float* __restrict m, float* __restrict v, const float* __restrict g,
                  std::int64_t n) const {
    for (std::int64_t i = 0; i < n; ++i) {
      const float mi = flushed(m[i] + (g[i] - m[i]) * keep_m, floor_m);
      const float vi = flushed(v[i] + (g[i] * g[i] - v[i]) * keep_v, floor_v);
      m[i] = mi;
      v[i] = vi;
      var[i] = var[i] - alpha * mi / (std::sqrt(vi) + epsilon);
    }
  }
};

struct RmspropRule {
  static constexpr std::size_t slots = 1;
  float lr, rho, epsilon;
  RmspropRule(const KernelContext& ctx, std::size_t scalars_at)
      : lr(scalar_input(ctx, scalars_at)), rho(attr(ctx, "rho")), epsilon(attr(ctx, "epsilon")) {}
  void operator()(float* __restrict var, float* __restrict rms, const float* __restrict g, std::int64_t n) const {
    for (std::int64_t i = 0; i < n; ++i) {
      const float ri = flushed(rho * rms[i] + (1.f - rho) * (g[i] * g[i]));
      rms[i] = ri;
      var[i] = var[i] - lr * g[i] / std::sqrt(ri + epsilon);
    }
  }
};

struct RmspropMomentumRule {
  static constexpr std::size_t slots = 2;
  float lr, rho, momentum, epsilon;
  RmspropMomentumRule(const KernelContext& ctx, std::size_t scalars_at)
      : lr(scalar_input(ctx, scalars_at)), rho(attr(ctx, "rho")), momentum(attr(ctx, "momentum")),
        epsilon(attr(ctx, "epsilon")) {}
  void operator()(float* __restrict var, float* __restrict rms, float* __restrict mom, const float* __restrict g,
                  std::int64_t n) const {
    for (std::int64_t i = 0; i < n; ++i) {
      const float ri = flushed(rho * rms[i] + (1.f - rho) * (g[i] * g[i]));
      const float mi = flushed(momentum * mom[i] + lr * g[i] / std::sqrt(ri + epsilon));
      rms[i] = ri;
      mom[i] = mi;
      var[i] = var[i] - mi;
    }
  }
};

/// Runs `rule` on one variable's k = 1 + slots arrays (in place) and its gradient.
template <class Rule>
void run_rule(const Rule& rule, const std::array<float*, 1 + Rule::slots>& arrays, const float* g, std::int64_t n) {
  if constexpr (Rule::slots == 0) rule(arrays[0], g, n);
  else if constexpr (Rule::slots == 1) rule(arrays[0], arrays[1], g, n);
  else rule(arrays[0], arrays[1], arrays[2], g, n);
}

/// The kernel of a _update op: the outputs start as copies of var and the slots, then the rule updates them in
/// place. A gradient that shares an output's buffer is copied first.
template <class Rule>
void update_kernel(KernelContext& ctx) {
  constexpr std::size_t k = 1 + Rule::slots;
  const Rule rule(ctx, k + 1);
  const std::int64_t n = ctx.output(0).num_elements();
  const float* g = ctx.input(k).data<float>();
  std::vector<float> g_copy;
  std::array<float*, k> arrays;
  for (std::size_t j = 0; j < k; ++j) arrays[j] = ctx.output(j).mutable_data<float>();
  for (std::size_t j = 0; j < k; ++j)
    if (arrays[j] == g) {
      g_copy.assign(g, g + n);
      g = g_copy.data();
    }
  for (std::size_t j = 0; j < k; ++j) {
    const float* source = ctx.input(j).data<float>();
    if (source != arrays[j] && n > 0) std::memmove(arrays[j], source, static_cast<std::size_t>(n) * sizeof(float));
  }
  run_rule(rule, arrays, g, n);
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

/// The kernel of an _apply op: the rule, its hyperparameters read once, on every variable in turn, in place.
/// A value someone else still holds is copied into a fresh buffer first, which the variable then takes.
template <class Rule, std::size_t scalars>
void apply_kernel(KernelContext& ctx) {
  constexpr std::size_t k = 1 + Rule::slots;
  const std::size_t n = ctx.inputs.size() - scalars;
  const Rule rule(ctx, n);
  std::array<float*, k> arrays;
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t j = 0; j < k; ++j) {
      Tensor& value = ctx.variables[j * n + p]->value;
      if (!exclusively_owned(value)) {
        Tensor fresh = Tensor::empty(value.dtype(), value.shape());
        const std::int64_t bytes = value.num_elements() * static_cast<std::int64_t>(sizeof(float));
        if (bytes > 0) std::memcpy(fresh.mutable_data<float>(), value.data<float>(), static_cast<std::size_t>(bytes));
        value = std::move(fresh);
      }
      arrays[j] = value.mutable_data<float>();
    }
    run_rule(rule, arrays, ctx.input(p).data<float>(), ctx.variables[p]->value.num_elements());
  }
}

/// Registers `<base>_update` — var, the rule's slots and the gradient, then `scalars` scalar inputs; outputs
/// (var', slots'...) — and its `<base>_apply` twin (gradients and scalars in, variables updated in place), both
/// running `Rule`; `attrs` declares the attributes both take.
template <class Rule, int scalars>
void update_ops(OpRegistry& r, const std::string& base, const std::string& doc,
                const std::function<void(OpDef&)>& attrs) {
  constexpr std::size_t slots = Rule::slots, tensors = 2 + slots;
  attrs(r.op(base + "_update").doc(doc).inputs(static_cast<int>(tensors) + scalars)
            .outputs(static_cast<int>(tensors) - 1)
            .traits(trait::not_differentiable)
            .shape_fn([](ShapeContext& ctx) { update_shape(ctx, tensors); })
            .kernel(update_kernel<Rule>));
  attrs(r.op(base + "_apply")
            .doc(cat(base, "_update for every variable of a step, in place: the gradients and the scalars in; the "
                           "variables, then each of their ", slots, " slot(s), by handle"))
            .variadic_inputs(1 + scalars).outputs(0)
            .traits(trait::not_differentiable | trait::updates_variables | trait::side_effects)
            .shape_fn([](ShapeContext& ctx) { apply_shape(ctx, slots, scalars); })
            .kernel(apply_kernel<Rule, scalars>));
}

}  // namespace

void register_optimizer_ops(OpRegistry& r) {
  update_ops<SgdRule, 1>(r, "sgd", "SGD step: var - lr g -> var'", [](OpDef&) {});
  update_ops<SgdMomentumRule, 1>(r, "sgd_momentum",
             "SGD with momentum (Keras): m' = momentum m - lr g; var' = var + m' (nesterov: var + momentum m' - lr g) "
             "-> (var', m')",
             [](OpDef& op) { op.attr<double>("momentum", true).attr<bool>("nesterov"); });
  update_ops<AdamRule, 2>(r, "adam",
             "Adam step (Keras), bias correction folded into lr, epsilon hat: -> (var', m', v'); step = iterations + 1",
             [](OpDef& op) {
               op.attr<double>("beta_1", true).attr<double>("beta_2", true).attr<double>("epsilon", true);
             });
  update_ops<RmspropRule, 1>(r, "rmsprop", "RMSprop step (Keras): rms' = rho rms + (1 - rho) g^2; var' = var - lr g / "
             "sqrt(rms' + epsilon) -> (var', rms')",
             [](OpDef& op) { op.attr<double>("rho", true).attr<double>("epsilon", true); });
  update_ops<RmspropMomentumRule, 1>(r, "rmsprop_momentum", "RMSprop with momentum (Keras): mom' = momentum mom + lr g / sqrt(rms' + "
             "epsilon); var' = var - mom' -> (var', rms', mom')", [](OpDef& op) {
               op.attr<double>("rho", true).attr<double>("momentum", true).attr<double>("epsilon", true);
             });
}

}  // namespace tl::detail
