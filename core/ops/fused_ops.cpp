// fused_matmul, produced by the graph optimizer (core/graph/passes/fuse_matmul.cpp) rather than called by users:
//
//   fused_matmul(a, b, bias; transpose_a, transpose_b, activation)
//     = act(matmul(a, b) + bias), act in none | relu | sigmoid | tanh, bias f32[] / f32[1] / f32[n]
//     GEMM (matmul's own kernel) then one pass over the output adding the bias and applying act.
//
// The other fused op, fused_elementwise, holds its members as a sub-graph: core/graph/fused_elementwise.cpp.
#include <Eigen/Core>
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ops/detail/elementwise.h"
#include "ops/detail/grad_utils.h"
#include "ops/detail/linalg.h"
#include "ops/detail/register.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/linalg.h"
#include "tracelab/ops/math.h"

namespace tl::detail {
namespace {

// ---------------------------------------------------------------------- fused_matmul ----

enum class Activation { none, relu, sigmoid, tanh };

Activation activation_of(const Attrs& attrs) {
  if (!attrs.has("activation")) return Activation::none;
  // Compared as string_views: a comparison with a short literal compiles inline (an eager Dense reads it three
  // times per call: shape rule, kernel, gradient).
  const std::string_view name = attrs.get<std::string>("activation");
  if (name == "none") return Activation::none;
  if (name == "relu") return Activation::relu;
  if (name == "sigmoid") return Activation::sigmoid;
  TL_CHECK(name == "tanh", InvalidArgument, "fused_matmul: activation must be none, relu, sigmoid or tanh, got '",
           name, "'");
  return Activation::tanh;
}

/// The attributes matmul itself takes (transpose_a, transpose_b).
const Attrs& matmul_attrs_of(const Attrs& attrs) {
  return matmul_attrs(attrs.get_or("transpose_a", false), attrs.get_or("transpose_b", false));
}

const OpDef& matmul_op() {
  static const OpDef& op = OpRegistry::global().get("matmul");
  return op;
}

/// Shape rule: matmul's rule on (a, b); bias float32 of rank <= 1 whose size is 1 or the last dim n.
void fused_matmul_shape(ShapeContext& ctx) {
  activation_of(ctx.attrs);
  try {
    matmul_op().infer(ctx.inputs.subspan(0, 2), matmul_attrs_of(ctx.attrs), ctx.outputs);
  } catch (const Error&) {
    rethrow_prefixed("fused_matmul: ");
  }
  const TensorMeta& bias = ctx.input(2);
  TL_CHECK(bias.dtype == DType::float32, DTypeError, "fused_matmul: bias must be float32, got ", meta_str(bias));
  const std::int64_t n = ctx.output().shape.dim(-1), size = bias.shape.rank() == 1 ? bias.shape[0] : 1;
  TL_CHECK(bias.shape.rank() <= 1 && (size < 0 || n < 0 || size == 1 || size == n), ShapeError,
           "fused_matmul: bias ", meta_str(bias), " must be a scalar or a vector of size 1 or ", n,
           " to broadcast along the last dim of ", meta_str(ctx.output()));
}

/// y = act(y + bias) over each row of the output, in one pass (Act maps an Eigen array expression).
template <class Act>
void add_bias_activate(const Tensor& out, const Tensor& bias, Act act) {
  const std::int64_t n = out.shape().dim(-1), total = out.num_elements();
  if (n == 0 || total == 0) return;
  TL_CHECK(bias.num_elements() == 1 || bias.num_elements() == n, ShapeError, "fused_matmul: bias of shape ",
           bias.shape().str(), " does not broadcast to the last dim ", n, " of ", out.shape().str());
  float* po = out.mutable_data<float>();
  const float* pb = bias.data<float>();
  for (std::int64_t at = 0; at < total; at += n) {
    ArrayMap<float> row(po + at, n);
    if (bias.num_elements() == n) row = act(row + ConstArrayMap<float>(pb, n));
    else row = act(row + pb[0]);
  }
}

// The activations, written as in math_ops.cpp (relu propagates NaN, sigmoid = 1 / (1 + e^-x)).
constexpr auto kIdentity = [](const auto& x) { return x; };
constexpr auto kRelu = [](const auto& x) {
  return x.binaryExpr(Eigen::Array<float, Eigen::Dynamic, 1>::Zero(x.size()),
                      Eigen::internal::scalar_max_op<float, float, Eigen::PropagateNaN>());
};
constexpr auto kSigmoid = [](const auto& x) { return (1.f + (-x).exp()).inverse(); };
constexpr auto kTanh = [](const auto& x) { return x.tanh(); };

/// fused_matmul's kernel, its attributes read once per node (OpDef::bound_kernel).
struct FusedMatmulKernel {
  Activation activation;
  bool transpose_a, transpose_b;
  explicit FusedMatmulKernel(const Attrs& attrs)
      : activation(activation_of(attrs)),
        transpose_a(attrs.get_or("transpose_a", false)),
        transpose_b(attrs.get_or("transpose_b", false)) {}
  void operator()(KernelContext& ctx) const {
    const Tensor& out = ctx.output();
    matmul_into(ctx.input(0), ctx.input(1), transpose_a, transpose_b, out);  // zeros for an empty inner dim
    const Tensor& bias = ctx.input(2);
    switch (activation) {
      case Activation::none: return add_bias_activate(out, bias, kIdentity);
      case Activation::relu: return add_bias_activate(out, bias, kRelu);
      case Activation::sigmoid: return add_bias_activate(out, bias, kSigmoid);
      case Activation::tanh: return add_bias_activate(out, bias, kTanh);
    }
  }
};

/// With z = op(a) op(b) + bias and y = act(z): dz from y as the activation's own rule computes it (relu: g where
/// y > 0; sigmoid: g y (1 - y); tanh: g (1 - y^2)), then matmul's rule (matmul_input_grads) and dbias = dz summed
/// to bias's shape as add's rule does: the same ops, in the same order, as the unfused chain's gradients.
void fused_matmul_gradient(const GradContext& c, std::span<Tensor> d) {
  const Tensor &y = c.output(), &g = c.grad();
  Tensor dz = g;
  switch (activation_of(c.attrs)) {
    case Activation::none: break;
    case Activation::relu: dz = relu_grad(g, y); break;
    case Activation::sigmoid: dz = g * y * (1.f - y); break;
    case Activation::tanh: dz = g * (1.f - square(y)); break;
  }
  matmul_input_grads(c.input(0), c.input(1), c.attrs.get_or("transpose_a", false),
                     c.attrs.get_or("transpose_b", false), dz, d.first(2), c.needs(0), c.needs(1));
  if (c.needs(2)) d[2] = unbroadcast(dz, c.input(2).shape());
}

}  // namespace

void register_fused_ops(OpRegistry& r) {
  r.op("fused_matmul")
      .doc("act(matmul(a, b) + bias), act = none | relu | sigmoid | tanh; bias f32[], f32[1] or f32[n] along the "
           "last dim; made by the graph optimizer")
      .inputs(3).attr<bool>("transpose_a").attr<bool>("transpose_b").attr<std::string>("activation")
      .shape_fn(fused_matmul_shape)
      .bound_kernel<FusedMatmulKernel>()
      .gradient(fused_matmul_gradient);
}

}  // namespace tl::detail
