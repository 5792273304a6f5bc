// Elementwise math ops: registrations (shape rule + Eigen kernel) and the public functions.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ops/detail/elementwise.h"
#include "ops/detail/grad_utils.h"
#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"

namespace tl {
namespace detail {
namespace {

using I32 = std::int32_t;
using U32 = std::uint32_t;

/// Integer arithmetic wraps (two's complement) like TensorFlow's, instead of signed-overflow UB.
template <class E>
auto as_u32(const E& e) { return e.template cast<U32>(); }
template <class E>
auto as_i32(const E& e) { return e.template cast<I32>(); }

/// max / min that return NaN when either side is NaN, on every platform (Eigen's default picks whichever
/// operand the SIMD instruction set favours, so native and WASM would disagree). TensorFlow propagates NaN too.
template <class X, class Y>
auto nan_max(const X& x, const Y& y) {
  using S = typename X::Scalar;
  return x.binaryExpr(y, Eigen::internal::scalar_max_op<S, S, Eigen::PropagateNaN>());
}
template <class X, class Y>
auto nan_min(const X& x, const Y& y) {
  using S = typename X::Scalar;
  return x.binaryExpr(y, Eigen::internal::scalar_min_op<S, S, Eigen::PropagateNaN>());
}
/// max(x, 0) with NaN propagation.
template <class X>
auto relu_of(const X& x) {
  using S = typename X::Scalar;
  return nan_max(x, Eigen::Array<S, Eigen::Dynamic, 1>::Zero(x.size()));
}

/// g where y > 0, else 0.
template <class G, class Y>
auto relu_grad_of(const G& g, const Y& y) {
  using S = typename G::Scalar;
  return (y > S(0)).select(g, Eigen::Array<S, Eigen::Dynamic, 1>::Zero(g.size()));
}

/// Registers a unary elementwise op: float_fn on float32 arrays, int_fn on int32 ones (nullptr: float32 only).
template <class FloatFn, class IntFn = std::nullptr_t>
OpDef& unary(OpRegistry& registry, const char* name, const char* doc, FloatFn float_fn, IntFn int_fn = nullptr) {
  constexpr bool int_ok = !std::is_same_v<IntFn, std::nullptr_t>;
  return registry.op(name).doc(doc).inputs(1).traits(trait::elementwise)
      .shape_fn([](ShapeContext& ctx) {
        if (int_ok) expect_dtype(ctx, 0, {DType::float32, DType::int32});
        else expect_dtype(ctx, 0, {DType::float32});
        same_as_input(ctx);
      })
      .kernel([=](KernelContext& ctx) {  // [=]: int_fn goes unused when it is nullptr
        if constexpr (int_ok) {
          if (ctx.input(0).dtype() == DType::int32) return unary_map<I32, I32>(ctx.input(0), ctx.output(), int_fn);
        }
        unary_map<float, float>(ctx.input(0), ctx.output(), float_fn);
      });
}

/// Registers a broadcasting binary op: float_fn on float32, int_fn on int32 (nullptr: float32 only).
template <class FloatFn, class IntFn = std::nullptr_t>
OpDef& binary(OpRegistry& registry, const char* name, const char* doc, std::uint32_t traits, FloatFn float_fn,
            IntFn int_fn = nullptr) {
  constexpr bool int_ok = !std::is_same_v<IntFn, std::nullptr_t>;
  return registry.op(name).doc(doc).inputs(2).traits(trait::elementwise | traits).same_dtype_inputs(0b11)
      .shape_fn([](ShapeContext& ctx) {
        if (int_ok) expect_dtype(ctx, 0, {DType::float32, DType::int32});
        else expect_dtype(ctx, 0, {DType::float32});
        broadcast_all(ctx);
      })
      .kernel([=](KernelContext& ctx) {  // [=]: int_fn goes unused when it is nullptr
        if constexpr (int_ok) {
          if (ctx.input(0).dtype() == DType::int32)
            return binary_map<I32, I32>(ctx.input(0), ctx.input(1), ctx.output(), int_fn);
        }
        binary_map<float, float>(ctx.input(0), ctx.input(1), ctx.output(), float_fn);
      });
}

/// Registers a comparison: broadcasting, bool output.
template <class Fn>
void comparison(OpRegistry& registry, const char* name, const char* doc, bool bool_ok, Fn fn) {
  registry.op(name).doc(doc).inputs(2).traits(trait::elementwise | trait::not_differentiable)
      .same_dtype_inputs(0b11)
      .shape_fn([bool_ok](ShapeContext& ctx) {
        if (bool_ok) expect_dtype(ctx, 0, {DType::float32, DType::int32, DType::bool_});
        else expect_dtype(ctx, 0, {DType::float32, DType::int32});
        broadcast_all(ctx);
        ctx.output().dtype = DType::bool_;
      })
      .kernel([fn](KernelContext& ctx) {
        visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
          using T = decltype(tag);
          binary_map<T, bool>(ctx.input(0), ctx.input(1), ctx.output(), fn);
        });
      });
}

/// Registers a logical op on bool tensors: broadcasting, bool output.
template <class Fn>
void logical(OpRegistry& registry, const char* name, const char* doc, std::uint32_t traits, Fn fn) {
  registry.op(name).doc(doc).inputs(2).traits(trait::elementwise | trait::not_differentiable | traits)
      .same_dtype_inputs(0b11)
      .shape_fn([](ShapeContext& ctx) {
        expect_dtype(ctx, 0, {DType::bool_});
        broadcast_all(ctx);
      })
      .kernel([fn](KernelContext& ctx) { binary_map<bool, bool>(ctx.input(0), ctx.input(1), ctx.output(), fn); });
}

/// fn on each element, computed in double and rounded to float32: the same values natively and in WASM (Eigen's
/// vectorized sin, exp, ... are polynomials whose results differ by instruction set), and TF.js' (it computes with
/// JavaScript's doubles).
template <class Fn>
auto in_double(Fn fn) {
  return [fn](const auto& x) {
    return x.unaryExpr([fn](float v) { return static_cast<float>(fn(static_cast<double>(v))); });
  };
}
template <class Fn>
auto in_double2(Fn fn) {
  return [fn](const auto& x, const auto& y) {
    return x.binaryExpr(y, [fn](float a, float b) { return static_cast<float>(fn(double{a}, double{b})); });
  };
}

/// Registers a test of each element: float32 or int32 in (an int32 is never nan or inf), bool out, no gradient.
template <class FloatFn, class IntFn>
void predicate(OpRegistry& registry, const char* name, const char* doc, FloatFn float_fn, IntFn int_fn) {
  registry.op(name).doc(doc).inputs(1).traits(trait::elementwise | trait::not_differentiable)
      .shape_fn([](ShapeContext& ctx) {
        expect_dtype(ctx, 0, {DType::float32, DType::int32});
        same_as_input(ctx);
        ctx.output().dtype = DType::bool_;
      })
      .kernel([=](KernelContext& ctx) {
        if (ctx.input(0).dtype() == DType::int32) return unary_map<I32, bool>(ctx.input(0), ctx.output(), int_fn);
        unary_map<float, bool>(ctx.input(0), ctx.output(), float_fn);
      });
}

I32 int_pow(I32 base, I32 exponent) {
  TL_CHECK(exponent >= 0, InvalidArgument, "pow: integers to negative integer powers are not allowed (got ", base,
           "^", exponent, ")");
  U32 result = 1, b = static_cast<U32>(base);
  for (U32 e = static_cast<U32>(exponent); e; e >>= 1, b *= b)
    if (e & 1u) result *= b;
  return static_cast<I32>(result);
}


/// -1, 0 or 1; nan stays nan (TF, NumPy).
double sign_of(double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : v == 0 ? 0.0 : v; }
/// max(x, 0) + log(1 + e^-|x|): no overflow for large |x|, nan stays nan.
double softplus_of(double v) { return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)); }
/// The remainder with the sign of the divisor (TF.js' FloorMod: a nan from a zero divisor, or an infinite dividend).
double floor_mod(double a, double b) {
  double rem = std::fmod(a, b);
  return (a < 0 && b < 0) || (a >= 0 && b >= 0) ? rem : std::fmod(rem + b, b);
}
I32 int_floor_div(I32 a, I32 b) {
  TL_CHECK(b != 0, InvalidArgument, "floor_div: integer division by zero (", a, " / 0)");
  if (b == -1) return static_cast<I32>(U32(0) - static_cast<U32>(a));  // INT32_MIN / -1 wraps, as TF.js'
  I32 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
I32 int_floor_mod(I32 a, I32 b) {
  TL_CHECK(b != 0, InvalidArgument, "mod: integer division by zero (", a, " mod 0)");
  if (b == -1) return 0;  // INT32_MIN % -1 overflows in C++
  I32 rem = a % b;
  return rem != 0 && ((rem < 0) != (b < 0)) ? rem + b : rem;
}


// ---- gradient rules: d = upstream gradient g mapped to each input; public ops only ----
using Grads = std::span<Tensor>;
Tensor zero_where(const Tensor& mask, const Tensor& g) { return where(mask, zeros_like(g), g); }

/// d|x| = g * sign(x) (0 at x = 0)
void grad_abs(const GradContext& c, Grads d) {
  d[0] = where(greater(c.input(0), 0), c.grad(), where(less(c.input(0), 0), neg(c.grad()), zeros_like(c.grad())));
}
/// relu'(x) = 1 for x > 0, else 0 (0 at x = 0, as TensorFlow), read from the output (y > 0 exactly when x > 0)
/// as one relu_grad op: x is then used only by relu, so fuse_matmul can fold the activation into a fused_matmul.
void grad_relu(const GradContext& c, Grads d) { d[0] = relu_grad(c.grad(), c.output()); }
/// x + y: g to both, summed over broadcast dims
void grad_add(const GradContext& c, Grads d) {
  if (c.needs(0)) d[0] = unbroadcast(c.grad(), c.input(0).shape());
  if (c.needs(1)) d[1] = unbroadcast(c.grad(), c.input(1).shape());
}
void grad_sub(const GradContext& c, Grads d) {
  if (c.needs(0)) d[0] = unbroadcast(c.grad(), c.input(0).shape());
  if (c.needs(1)) d[1] = unbroadcast(neg(c.grad()), c.input(1).shape());
}
/// d(xy) = (g y, g x)
void grad_mul(const GradContext& c, Grads d) {
  if (c.needs(0)) d[0] = unbroadcast(c.grad() * c.input(1), c.input(0).shape());
  if (c.needs(1)) d[1] = unbroadcast(c.grad() * c.input(0), c.input(1).shape());
}
/// d(x/y) = (g / y, -g x / y^2)
void grad_div(const GradContext& c, Grads d) {
  if (c.needs(0)) d[0] = unbroadcast(c.grad() / c.input(1), c.input(0).shape());
  if (c.needs(1)) d[1] = unbroadcast(neg(c.grad()) * c.input(0) / square(c.input(1)), c.input(1).shape());
}
/// d(x^y) = (g y x^(y-1), g x^y ln x), the second taken as 0 where x <= 0 (TensorFlow's choice)
void grad_pow(const GradContext& c, Grads d) {
  const Tensor &x = c.input(0), &y = c.input(1), &g = c.grad();
  d[0] = unbroadcast(g * y * pow(x, y - 1), x.shape());
  Tensor positive = greater(x, 0);
  Tensor safe_log = where(positive, log(where(positive, x, ones_like(x))), zeros_like(x));
  d[1] = unbroadcast(g * c.output() * safe_log, y.shape());
}
/// max(x, y): g goes to x where x >= y, else to y (ties go to x, as TensorFlow)
void grad_maximum(const GradContext& c, Grads d) {
  Tensor y_wins = less(c.input(0), c.input(1));
  d[0] = unbroadcast(zero_where(y_wins, c.grad()), c.input(0).shape());
  d[1] = unbroadcast(where(y_wins, c.grad(), zeros_like(c.grad())), c.input(1).shape());
}
/// min(x, y): g goes to x where x <= y, else to y
void grad_minimum(const GradContext& c, Grads d) {
  Tensor y_wins = greater(c.input(0), c.input(1));
  d[0] = unbroadcast(zero_where(y_wins, c.grad()), c.input(0).shape());
  d[1] = unbroadcast(where(y_wins, c.grad(), zeros_like(c.grad())), c.input(1).shape());
}
/// where(c, x, y): g to x where c, to y elsewhere; none to the condition
void grad_where(const GradContext& c, Grads d) {
  d[1] = unbroadcast(where(c.input(0), c.grad(), zeros_like(c.grad())), c.input(1).shape());
  d[2] = unbroadcast(zero_where(c.input(0), c.grad()), c.input(2).shape());
}
/// clip(x, lo, hi): g to x inside [lo, hi], to lo below it, to hi above it
void grad_clip(const GradContext& c, Grads d) {
  Tensor below = less(c.input(0), c.input(1)), above = greater(c.input(0), c.input(2));
  Tensor zero = zeros_like(c.grad());
  d[0] = where(below, zero, where(above, zero, c.grad()));
  d[1] = unbroadcast(where(below, c.grad(), zero), c.input(1).shape());
  d[2] = unbroadcast(where(above, c.grad(), zero), c.input(2).shape());
}


/// d atan2(y, x) = (g x, -g y) / (x^2 + y^2)
void grad_atan2(const GradContext& c, Grads d) {
  const Tensor &y = c.input(0), &x = c.input(1);
  Tensor scaled = c.grad() / (square(x) + square(y));
  if (c.needs(0)) d[0] = unbroadcast(scaled * x, y.shape());
  if (c.needs(1)) d[1] = unbroadcast(neg(scaled) * y, x.shape());
}
/// mod(x, y) = x - floor(x / y) y: (g, -g floor(x / y)) (TF's FloorModGrad)
void grad_mod(const GradContext& c, Grads d) {
  if (c.needs(0)) d[0] = unbroadcast(c.grad(), c.input(0).shape());
  if (c.needs(1)) d[1] = unbroadcast(neg(c.grad()) * floor_div(c.input(0), c.input(1)), c.input(1).shape());
}
/// d (x - y)^2 = (2 g (x - y), -2 g (x - y))
void grad_squared_difference(const GradContext& c, Grads d) {
  Tensor twice = c.grad() * 2.f * (c.input(0) - c.input(1));
  if (c.needs(0)) d[0] = unbroadcast(twice, c.input(0).shape());
  if (c.needs(1)) d[1] = unbroadcast(neg(twice), c.input(1).shape());
}
/// div_no_nan(x, y): (g / y, -g x / y^2), each 0 where y == 0 (TF's DivNoNanGrad)
void grad_div_no_nan(const GradContext& c, Grads d) {
  const Tensor &x = c.input(0), &y = c.input(1);
  if (c.needs(0)) d[0] = unbroadcast(div_no_nan(c.grad(), y), x.shape());
  if (c.needs(1)) d[1] = unbroadcast(c.grad() * div_no_nan(div_no_nan(neg(x), y), y), y.shape());
}
/// floor, ceil, round, sign: piecewise constant, the gradient is 0 (TF.js' choice; TF has none)
void grad_zero(const GradContext& c, Grads d) { d[0] = zeros_like(c.grad()); }

/// The unary functions of TF's math module (float32, computed in double: in_double).
void register_unary_math(OpRegistry& r) {
  using G = const GradContext&;
  constexpr double two_over_sqrt_pi = 1.1283791670955126;
  unary(r, "sin", "sin x", in_double([](double v) { return std::sin(v); }))
      .gradient([](G c, Grads d) { d[0] = c.grad() * cos(c.input(0)); });
  unary(r, "cos", "cos x", in_double([](double v) { return std::cos(v); }))
      .gradient([](G c, Grads d) { d[0] = neg(c.grad()) * sin(c.input(0)); });
  unary(r, "tan", "tan x", in_double([](double v) { return std::tan(v); }))  // g / cos^2 x
      .gradient([](G c, Grads d) { d[0] = c.grad() * square(reciprocal(cos(c.input(0)))); });
  unary(r, "asin", "arcsin x (nan outside [-1, 1])", in_double([](double v) { return std::asin(v); }))
      .gradient([](G c, Grads d) { d[0] = c.grad() / sqrt(1.f - square(c.input(0))); });
  unary(r, "acos", "arccos x (nan outside [-1, 1])", in_double([](double v) { return std::acos(v); }))
      .gradient([](G c, Grads d) { d[0] = neg(c.grad()) / sqrt(1.f - square(c.input(0))); });
  unary(r, "atan", "arctan x", in_double([](double v) { return std::atan(v); }))
      .gradient([](G c, Grads d) { d[0] = c.grad() / (1.f + square(c.input(0))); });
  unary(r, "sinh", "sinh x", in_double([](double v) { return std::sinh(v); }))
      .gradient([](G c, Grads d) { d[0] = c.grad() * cosh(c.input(0)); });
  unary(r, "cosh", "cosh x", in_double([](double v) { return std::cosh(v); }))
      .gradient([](G c, Grads d) { d[0] = c.grad() * sinh(c.input(0)); });
  unary(r, "asinh", "arsinh x", in_double([](double v) { return std::asinh(v); }))  // g / cosh y
      .gradient([](G c, Grads d) { d[0] = c.grad() / cosh(c.output()); });
  unary(r, "acosh", "arcosh x (nan below 1)", in_double([](double v) { return std::acosh(v); }))  // g / sinh y
      .gradient([](G c, Grads d) { d[0] = c.grad() / sinh(c.output()); });
  unary(r, "atanh", "artanh x (nan outside [-1, 1])", in_double([](double v) { return std::atanh(v); }))
      .gradient([](G c, Grads d) { d[0] = c.grad() / (1.f - square(c.input(0))); });
  unary(r, "erf", "the error function 2/sqrt(pi) int_0^x e^(-t^2) dt", in_double([](double v) { return std::erf(v); }))
      .gradient([](G c, Grads d) {
        d[0] = c.grad() * static_cast<float>(two_over_sqrt_pi) * exp(neg(square(c.input(0))));
      });
  unary(r, "expm1", "e^x - 1, exact near 0", in_double([](double v) { return std::expm1(v); }))
      .gradient([](G c, Grads d) { d[0] = c.grad() * exp(c.input(0)); });
  unary(r, "log1p", "ln(1 + x), exact near 0", in_double([](double v) { return std::log1p(v); }))
      .gradient([](G c, Grads d) { d[0] = c.grad() / (1.f + c.input(0)); });
  unary(r, "reciprocal", "1 / x", in_double([](double v) { return 1.0 / v; }))  // -g y^2
      .gradient([](G c, Grads d) { d[0] = neg(c.grad()) * square(c.output()); });
  unary(r, "rsqrt", "1 / sqrt(x)", in_double([](double v) { return 1.0 / std::sqrt(v); }))  // -g y^3 / 2
      .gradient([](G c, Grads d) { d[0] = c.grad() * -0.5f * c.output() * square(c.output()); });
  unary(r, "softplus", "ln(1 + e^x), as max(x, 0) + ln(1 + e^-|x|)", in_double(softplus_of))
      .gradient([](G c, Grads d) { d[0] = c.grad() * sigmoid(c.input(0)); });
  // floor, ceil and round (rint: to nearest, ties to even) are exact in float32 on every platform: no double needed.
  unary(r, "floor", "the largest integer <= x; gradient 0", [](const auto& x) { return x.floor(); })
      .gradient(grad_zero);
  unary(r, "ceil", "the smallest integer >= x; gradient 0", [](const auto& x) { return x.ceil(); })
      .gradient(grad_zero);
  unary(r, "round", "the nearest integer, half to even; int32 as it is; gradient 0", [](const auto& x) { return x.rint(); },
        [](const auto& x) { return x; })
      .gradient(grad_zero);
  unary(r, "sign", "-1, 0 or 1 (nan stays nan); gradient 0", in_double(sign_of),
        [](const auto& x) { return (x > 0).template cast<I32>() - (x < 0).template cast<I32>(); })
      .gradient(grad_zero);
  predicate(r, "is_nan", "x is nan (bool)", [](const auto& x) { return x.isNaN(); },
            [](const auto& x) { return x != x; });
  predicate(r, "is_inf", "x is +inf or -inf (bool)", [](const auto& x) { return x.isInf(); },
            [](const auto& x) { return x != x; });
  predicate(r, "is_finite", "x is neither nan nor ±inf (bool)", [](const auto& x) { return x.isFinite(); },
            [](const auto& x) { return x == x; });
}

/// The binary functions of TF's math module beyond arithmetic (broadcasting).
void register_binary_math(OpRegistry& r) {
  binary(r, "atan2", "the angle of the point (x, y): atan2(y, x), inputs in that order", 0,
         in_double2([](double y, double x) { return std::atan2(y, x); }))
      .gradient(grad_atan2);
  binary(r, "mod", "x mod y with the sign of y (floor mod); int32 mod 0 is an error", 0, in_double2(floor_mod),
         [](const auto& x, const auto& y) { return x.binaryExpr(y, [](I32 a, I32 b) { return int_floor_mod(a, b); }); })
      .gradient(grad_mod);
  binary(r, "floor_div", "floor(x / y); int32 division by 0 is an error; not differentiable", trait::not_differentiable,
         in_double2([](double x, double y) { return std::floor(x / y); }),
         [](const auto& x, const auto& y) { return x.binaryExpr(y, [](I32 a, I32 b) { return int_floor_div(a, b); }); });
  binary(r, "squared_difference", "(x - y)^2", trait::commutative,
         [](const auto& x, const auto& y) { return (x - y).square(); },
         [](const auto& x, const auto& y) { return as_i32((as_u32(x) - as_u32(y)) * (as_u32(x) - as_u32(y))); })
      .gradient(grad_squared_difference);
  binary(r, "div_no_nan", "x / y, but 0 where y == 0 (also for x nan or inf)", 0,
         [](const auto& x, const auto& y) { return x.binaryExpr(y, [](float a, float b) { return b == 0.f ? 0.f : a / b; }); })
      .gradient(grad_div_no_nan);
}

}  // namespace

void register_math_ops(OpRegistry& r) {
  unary(r, "neg", "-x", [](const auto& x) { return -x; },
        [](const auto& x) { return as_i32(U32(0) - as_u32(x)); })
      .gradient([](const GradContext& c, Grads d) { d[0] = neg(c.grad()); });  // d(-x) = -g
  unary(r, "abs", "|x|", [](const auto& x) { return x.abs(); },
        [](const auto& x) { return as_i32((x < 0).select(U32(0) - as_u32(x), as_u32(x))); })
      .gradient(grad_abs);
  unary(r, "exp", "e^x", [](const auto& x) { return x.exp(); })
      .gradient([](const GradContext& c, Grads d) { d[0] = c.grad() * c.output(); });  // d e^x = g e^x
  unary(r, "log", "ln x (log 0 = -inf, log of a negative = nan)", [](const auto& x) { return x.log(); })
      .gradient([](const GradContext& c, Grads d) { d[0] = c.grad() / c.input(0); });  // d ln x = g / x
  unary(r, "sqrt", "sqrt(x)", [](const auto& x) { return x.sqrt(); })
      .gradient([](const GradContext& c, Grads d) { d[0] = c.grad() * 0.5f / c.output(); });  // g / (2 sqrt x)
  unary(r, "square", "x * x", [](const auto& x) { return x.square(); },
        [](const auto& x) { return as_i32(as_u32(x) * as_u32(x)); })
      .gradient([](const GradContext& c, Grads d) { d[0] = c.grad() * 2.f * c.input(0); });  // d x^2 = 2 g x
  unary(r, "relu", "max(x, 0) (relu(nan) = nan); the gradient at 0 is 0", [](const auto& x) { return relu_of(x); },
        [](const auto& x) { return relu_of(x); })
      .gradient(grad_relu);
  // relu_grad(g, y) = g where y > 0, else 0 (TF's ReluGrad, with y = relu(x)). d/dg: relu_grad(gg, y); d/dy: 0.
  binary(r, "relu_grad", "g where y > 0, else 0: relu's gradient from its output y (TF's ReluGrad)", 0,
         [](const auto& g, const auto& y) { return relu_grad_of(g, y); },
         [](const auto& g, const auto& y) { return relu_grad_of(g, y); })
      .gradient([](const GradContext& c, Grads d) {
        d[0] = unbroadcast(relu_grad(c.grad(), c.input(1)), c.input(0).shape());
        d[1] = zeros_like(c.input(1));
      });
  unary(r, "sigmoid", "1 / (1 + e^-x)", [](const auto& x) { return (1.f + (-x).exp()).inverse(); })
      .gradient([](const GradContext& c, Grads d) { d[0] = c.grad() * c.output() * (1.f - c.output()); });
  unary(r, "tanh", "tanh(x)", [](const auto& x) { return x.tanh(); })
      .gradient([](const GradContext& c, Grads d) { d[0] = c.grad() * (1.f - square(c.output())); });

  binary(r, "add", "x + y", trait::commutative, [](const auto& x, const auto& y) { return x + y; },
         [](const auto& x, const auto& y) { return as_i32(as_u32(x) + as_u32(y)); })
      .gradient(grad_add);
  binary(r, "sub", "x - y", 0, [](const auto& x, const auto& y) { return x - y; },
         [](const auto& x, const auto& y) { return as_i32(as_u32(x) - as_u32(y)); })
      .gradient(grad_sub);
  binary(r, "mul", "x * y", trait::commutative, [](const auto& x, const auto& y) { return x * y; },
         [](const auto& x, const auto& y) { return as_i32(as_u32(x) * as_u32(y)); })
      .gradient(grad_mul);
  binary(r, "div", "x / y (float32; x / 0 follows IEEE: inf or nan)", 0,
         [](const auto& x, const auto& y) { return x / y; })
      .gradient(grad_div);
  binary(r, "pow", "x^y", 0,
         [](const auto& x, const auto& y) { return x.binaryExpr(y, [](float a, float b) { return std::pow(a, b); }); },
         [](const auto& x, const auto& y) { return x.binaryExpr(y, [](I32 a, I32 b) { return int_pow(a, b); }); })
      .gradient(grad_pow);
  binary(r, "maximum", "max(x, y), nan if either is nan", trait::commutative,
         [](const auto& x, const auto& y) { return nan_max(x, y); },
         [](const auto& x, const auto& y) { return nan_max(x, y); })
      .gradient(grad_maximum);
  binary(r, "minimum", "min(x, y), nan if either is nan", trait::commutative,
         [](const auto& x, const auto& y) { return nan_min(x, y); },
         [](const auto& x, const auto& y) { return nan_min(x, y); })
      .gradient(grad_minimum);

  comparison(r, "equal", "x == y", true, [](const auto& x, const auto& y) { return x == y; });
  comparison(r, "less", "x < y", false, [](const auto& x, const auto& y) { return x < y; });
  comparison(r, "greater", "x > y", false, [](const auto& x, const auto& y) { return x > y; });
  comparison(r, "not_equal", "x != y", true, [](const auto& x, const auto& y) { return x != y; });
  comparison(r, "less_equal", "x <= y", false, [](const auto& x, const auto& y) { return x <= y; });
  comparison(r, "greater_equal", "x >= y", false, [](const auto& x, const auto& y) { return x >= y; });
  logical(r, "logical_and", "x and y (bool)", trait::commutative, [](const auto& x, const auto& y) { return x && y; });
  logical(r, "logical_or", "x or y (bool)", trait::commutative, [](const auto& x, const auto& y) { return x || y; });
  logical(r, "logical_xor", "x xor y (bool)", trait::commutative, [](const auto& x, const auto& y) { return x != y; });
  r.op("logical_not").doc("not x (bool)").inputs(1).traits(trait::elementwise | trait::not_differentiable)
      .shape_fn([](ShapeContext& ctx) {
        expect_dtype(ctx, 0, {DType::bool_});
        same_as_input(ctx);
      })
      .kernel([](KernelContext& ctx) { unary_map<bool, bool>(ctx.input(0), ctx.output(), [](const auto& x) { return !x; }); });

  r.op("where").doc("cond ? x : y, all three broadcast").inputs(3).same_dtype_inputs(0b110)
      .shape_fn([](ShapeContext& ctx) {
        TL_CHECK(ctx.input(0).dtype == DType::bool_, DTypeError, "where: condition must be bool, got ",
                 meta_str(ctx.input(0)));
        broadcast_all(ctx);
        ctx.output().dtype = ctx.input(1).dtype;
      })
      .kernel([](KernelContext& ctx) {
        visit_dtype(ctx.input(1).dtype(), [&](auto tag) {
          using T = decltype(tag);
          ternary_map<bool, T, T, T>(ctx.input(0), ctx.input(1), ctx.input(2), ctx.output(),
                                     [](bool c, T x, T y) { return c ? x : y; });
        });
      })
      .gradient(grad_where);

  r.op("clip_by_value").doc("min(max(x, lo), hi); lo and hi broadcast to x's shape").inputs(3)
      .same_dtype_inputs(0b111)
      .shape_fn([](ShapeContext& ctx) {
        expect_dtype(ctx, 0, {DType::float32, DType::int32});
        for (std::size_t i = 1; i < 3; ++i) {
          Shape b = broadcast_shapes("clip_by_value", ctx.input(0).shape, ctx.input(i).shape);
          TL_CHECK(b.rank() == ctx.input(0).shape.rank() && b.is_compatible_with(ctx.input(0).shape), ShapeError,
                   "clip_by_value: bound ", i == 1 ? "lo " : "hi ", ctx.input(i).shape.str(),
                   " must broadcast to the shape of x ", ctx.input(0).shape.str());
        }
        same_as_input(ctx);
      })
      .kernel([](KernelContext& ctx) {
        visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
          using T = decltype(tag);
          if constexpr (!std::is_same_v<T, bool>)
            ternary_map<T, T, T, T>(ctx.input(0), ctx.input(1), ctx.input(2), ctx.output(),
                                    [](T x, T lo, T hi) { return std::min(std::max(x, lo), hi); });
        });
      })
      .gradient(grad_clip);
  register_unary_math(r);
  register_binary_math(r);
}

Tensor relu_grad(const Tensor& g, const Tensor& y) {
  static const OpDef& op = OpRegistry::global().get("relu_grad");
  return execute(op, {g, y});
}

}  // namespace detail

#define TL_UNARY(fn)                                                     \
  Tensor fn(const Tensor& x) {                                           \
    static const OpDef& op = OpRegistry::global().get(#fn);              \
    return execute(op, {x});                                             \
  }
#define TL_BINARY(fn)                                                    \
  Tensor fn(const Tensor& x, const Tensor& y) {                          \
    static const OpDef& op = OpRegistry::global().get(#fn);              \
    return execute(op, {x, y});                                          \
  }

TL_UNARY(neg) TL_UNARY(abs) TL_UNARY(exp) TL_UNARY(log) TL_UNARY(sqrt) TL_UNARY(square)
TL_UNARY(relu) TL_UNARY(sigmoid) TL_UNARY(tanh)
TL_BINARY(add) TL_BINARY(sub) TL_BINARY(mul) TL_BINARY(div) TL_BINARY(pow) TL_BINARY(maximum)
TL_BINARY(minimum) TL_BINARY(equal) TL_BINARY(less) TL_BINARY(greater) TL_BINARY(not_equal) TL_BINARY(less_equal)
TL_BINARY(greater_equal) TL_BINARY(logical_and) TL_BINARY(logical_or) TL_BINARY(logical_xor) TL_UNARY(logical_not)
TL_UNARY(sin) TL_UNARY(cos) TL_UNARY(tan) TL_UNARY(asin) TL_UNARY(acos) TL_UNARY(atan) TL_UNARY(sinh) TL_UNARY(cosh)
TL_UNARY(asinh) TL_UNARY(acosh) TL_UNARY(atanh) TL_UNARY(erf) TL_UNARY(expm1) TL_UNARY(log1p) TL_UNARY(reciprocal)
TL_UNARY(rsqrt) TL_UNARY(softplus) TL_UNARY(floor) TL_UNARY(ceil) TL_UNARY(round) TL_UNARY(sign) TL_UNARY(is_nan)
TL_UNARY(is_inf) TL_UNARY(is_finite)
TL_BINARY(atan2) TL_BINARY(mod) TL_BINARY(floor_div) TL_BINARY(squared_difference) TL_BINARY(div_no_nan)
#undef TL_UNARY
#undef TL_BINARY

Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y) {
  static const OpDef& op = OpRegistry::global().get("where");
  return execute(op, {cond, x, y});
}

Tensor clip_by_value(const Tensor& x, const Tensor& lo, const Tensor& hi) {
  static const OpDef& op = OpRegistry::global().get("clip_by_value");
  return execute(op, {x, lo, hi});
}

Tensor operator+(const Tensor& x, const Tensor& y) { return add(x, y); }
Tensor operator-(const Tensor& x, const Tensor& y) { return sub(x, y); }
Tensor operator*(const Tensor& x, const Tensor& y) { return mul(x, y); }
Tensor operator/(const Tensor& x, const Tensor& y) { return div(x, y); }
Tensor operator-(const Tensor& x) { return neg(x); }
Tensor operator==(const Tensor& x, const Tensor& y) { return equal(x, y); }
Tensor operator!=(const Tensor& x, const Tensor& y) { return not_equal(x, y); }
Tensor operator<(const Tensor& x, const Tensor& y) { return less(x, y); }
Tensor operator<=(const Tensor& x, const Tensor& y) { return less_equal(x, y); }
Tensor operator>(const Tensor& x, const Tensor& y) { return greater(x, y); }
Tensor operator>=(const Tensor& x, const Tensor& y) { return greater_equal(x, y); }
Tensor operator&(const Tensor& x, const Tensor& y) { return logical_and(x, y); }
Tensor operator|(const Tensor& x, const Tensor& y) { return logical_or(x, y); }
Tensor operator^(const Tensor& x, const Tensor& y) { return logical_xor(x, y); }
Tensor operator~(const Tensor& x) { return logical_not(x); }

}  // namespace tl
