// Linear algebra ops: matmul (batched, broadcasting, optional transposes) on Eigen row-major maps.
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/detail/elementwise.h"
#include "ops/detail/grad_utils.h"
#include "ops/detail/linalg.h"
#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/linalg.h"

namespace tl {
namespace detail {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Up to this many elements in b, a row vector times b is a plain loop (multiply).
constexpr std::int64_t kSmallVectorMatrix = 4096;

/// The leading (batch) dims of a shape of rank >= 2.
Shape batch_dims(const Shape& shape) {
  const DimVector& dims = shape.dims();
  return Shape(dims.data(), dims.data() + dims.size() - 2);
}

/// " with transpose_a", " with transpose_a and transpose_b", or "" (for error messages).
std::string transposes_str(bool transpose_a, bool transpose_b) {
  if (!transpose_a && !transpose_b) return "";
  if (transpose_a && transpose_b) return " with transpose_a and transpose_b";
  return transpose_a ? " with transpose_a" : " with transpose_b";
}

void check_matmul_input(const ShapeContext& ctx, std::size_t i) {
  const TensorMeta& meta = ctx.input(i);
  TL_CHECK(meta.dtype == DType::float32, DTypeError, "matmul: input ", i, " must be float32, got ",
           dtype_name(meta.dtype), " (", meta_str(meta), "); cast it first, e.g. tl::cast(x, tl::float32)");
  TL_CHECK(meta.shape.rank() >= 2, ShapeError, "matmul: input ", i, " must have rank >= 2 (a matrix or a batch ",
           "of matrices), got shape ", meta.shape.str());
}

/// Shape rule: batch(a) broadcast batch(b) + (m, n), where op(a) is (m, k) and op(b) is (k, n).
/// Unknown dims (-1) propagate; k is only checked when both sides know it.
void matmul_shape(ShapeContext& ctx) {
  check_matmul_input(ctx, 0);
  check_matmul_input(ctx, 1);
  bool ta = ctx.attrs.get_or("transpose_a", false), tb = ctx.attrs.get_or("transpose_b", false);
  const Shape& a = ctx.input(0).shape;
  const Shape& b = ctx.input(1).shape;
  std::int64_t m = a.dim(ta ? -1 : -2), ka = a.dim(ta ? -2 : -1);
  std::int64_t kb = b.dim(tb ? -1 : -2), n = b.dim(tb ? -2 : -1);
  TL_CHECK(ka < 0 || kb < 0 || ka == kb, ShapeError, "matmul: inner dimensions must agree, got ", a.str(), " and ",
           b.str(), transposes_str(ta, tb), ta || tb ? cat(" (inner dims ", ka, " vs ", kb, ")") : "");
  // One side a plain matrix (a dense layer, a gradient product): the other side's batch dims as they are.
  if (a.rank() == 2 || b.rank() == 2) {
    TensorMeta& out = ctx.output();
    out.dtype = DType::float32;
    out.shape = b.rank() == 2 ? a : b;
    DimVector& dims = out.shape.dims();
    dims[dims.size() - 2] = m;
    dims[dims.size() - 1] = n;
    return;
  }
  Shape batch_a = batch_dims(a), batch_b = batch_dims(b);
  Shape batch;
  try {
    batch = broadcast_shapes("matmul", batch_a, batch_b);
  } catch (const ShapeError&) {
    throw ShapeError(cat("matmul: batch dims ", batch_a.str(), " of ", a.str(), " and ", batch_b.str(), " of ",
                         b.str(), " cannot be broadcast"));
  }
  batch.dims().push_back(m);
  batch.dims().push_back(n);
  ctx.output() = TensorMeta{DType::float32, std::move(batch)};
}

/// c = op(a) * op(b) for one (batch) matrix; a is (ra, ca), b is (rb, cb), c is (m, n), all row-major.
void multiply(const float* a, std::int64_t ra, std::int64_t ca, bool ta, const float* b, std::int64_t rb,
              std::int64_t cb, bool tb, float* c, std::int64_t m, std::int64_t n) {
  const std::int64_t k = ta ? ra : ca;
  if (k == 1) {
    // An outer product (inner dim 1: the kernel gradient of a dense layer on one example), one product per
    // element; Eigen's general product would pack both operands first.
    // op(a) is (m, 1) and op(b) is (1, n): their elements are contiguous whether transposed or not.
    for (std::int64_t i = 0; i < m; ++i) {
      const float ai = a[i];
      float* __restrict row = c + i * n;
      for (std::int64_t j = 0; j < n; ++j) row[j] = ai * b[j];
    }
    return;
  }
  if (m == 1 && !tb && k * n <= kSmallVectorMatrix) {
    // A row vector times a small matrix (a dense layer on one example): the rows of b scaled and summed into c,
    // a vectorized loop over n per row; Eigen's matrix-vector product costs more to set up than this does.
    // op(a) is (1, k): its elements are contiguous whether transposed or not.
    float* __restrict row = c;
    for (std::int64_t j = 0; j < n; ++j) row[j] = 0.f;
    for (std::int64_t r = 0; r < k; ++r) {
      const float ar = a[r];
      const float* __restrict br = b + r * n;
      for (std::int64_t j = 0; j < n; ++j) row[j] += ar * br[j];
    }
    return;
  }
  Eigen::Map<const RowMatrix> ma(a, ra, ca), mb(b, rb, cb);
  Eigen::Map<RowMatrix> mc(c, m, n);
  if (!ta && !tb) mc.noalias() = ma * mb;
  else if (ta && !tb) mc.noalias() = ma.transpose() * mb;
  else if (!ta && tb) mc.noalias() = ma * mb.transpose();
  else mc.noalias() = ma.transpose() * mb.transpose();
}

/// matmul's kernel, its transposes read once per node (OpDef::bound_kernel).
struct MatmulKernel {
  bool transpose_a, transpose_b;
  explicit MatmulKernel(const Attrs& attrs)
      : transpose_a(attrs.get_or("transpose_a", false)), transpose_b(attrs.get_or("transpose_b", false)) {}
  void operator()(KernelContext& ctx) const {
    matmul_into(ctx.input(0), ctx.input(1), transpose_a, transpose_b, ctx.output());
  }
};

}  // namespace

void matmul_into(const Tensor& a, const Tensor& b, bool ta, bool tb, const Tensor& out) {
  std::int64_t ra = a.shape().dim(-2), ca = a.shape().dim(-1), rb = b.shape().dim(-2), cb = b.shape().dim(-1);
  std::int64_t m = out.shape().dim(-2), n = out.shape().dim(-1), k = ta ? ra : ca;
  if (m == 0 || n == 0 || k == 0) {  // an empty product: zeros (the output may be a reused buffer)
    if (out.num_elements() > 0) std::fill_n(out.mutable_data<float>(), out.num_elements(), 0.f);
    return;
  }
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* po = out.mutable_data<float>();
  const std::int64_t batches = out.num_elements() / (m * n);
  if (batches == 1) return multiply(pa, ra, ca, ta, pb, rb, cb, tb, po, m, n);
  if (b.shape().rank() == 2 && !ta)  // a's batch rows stacked are one (batches * m, k) matrix: one GEMM
    return multiply(pa, batches * ra, ca, false, pb, rb, cb, tb, po, batches * m, n);
  Shape batch_a = batch_dims(a.shape()), batch_b = batch_dims(b.shape()), batch = batch_dims(out.shape());
  auto plan = plan_broadcast<2>(batch, {&batch_a, &batch_b});
  for_each_row(plan, [&](std::int64_t at, std::int64_t len, const auto& off, const auto& inner) {
    for (std::int64_t i = 0; i < len; ++i) {
      std::int64_t ia = off[0] + i * inner[0], ib = off[1] + i * inner[1];
      multiply(pa + ia * ra * ca, ra, ca, ta, pb + ib * rb * cb, rb, cb, tb, po + (at + i) * m * n, m, n);
    }
  });
}

namespace {

/// matmul's gradient rule: matmul_input_grads with the node's transposes.
void matmul_gradient(const GradContext& c, std::span<Tensor> d) {
  matmul_input_grads(c.input(0), c.input(1), c.attrs.get_or("transpose_a", false),
                     c.attrs.get_or("transpose_b", false), c.grad(), d, c.needs(0), c.needs(1));
}

}  // namespace

/// For c = op(a) op(b) with upstream g (TensorFlow's _MatMulGrad), each product's batch dims summed back
/// to the input's own batch shape (for a batched a against a matrix b, b's gradient as one product of the
/// flattened operands):
///   plain:   da = g b^T,     db = a^T g
///   ta:      da = b g^T,     db = a g
///   tb:      da = g b,       db = g^T a
///   ta, tb:  da = b^T g^T,   db = g^T a^T
void matmul_input_grads(const Tensor& a, const Tensor& b, bool ta, bool tb, const Tensor& g, std::span<Tensor> d,
                        bool need_a, bool need_b) {
  const std::int64_t k = a.shape().dim(-1), n = g.shape().dim(-1);
  const bool single = std::all_of(a.shape().dims().begin(), a.shape().dims().end() - 2, [](std::int64_t d) { return d == 1; });
  if (!ta && a.rank() > 2 && b.rank() == 2 && k > 0 && n > 0 && !single) {
    // A batch of a against one matrix b (a dense layer on a batch of sequences): b's gradient sums the batch's
    // products. a's rows stacked over the batch are one (rows, k) matrix and g's one (rows, n): one product of
    // the flattened operands is that sum, without a batch of products and a reduction over it. (A batch known
    // to hold one matrix takes the general path: its sum is a reshape. So does a k or n of 0: a -1 beside a 0 in
    // a reshape is the count of the non-zero dims, not the rows.)
    if (need_a) d[0] = tb ? matmul(g, b, false, false) : matmul(g, b, false, true);
    if (need_b) {
      Tensor a2 = reshape(a, {-1, k}), g2 = reshape(g, {-1, n});
      d[1] = tb ? matmul(g2, a2, true, false) : matmul(a2, g2, true, false);
    }
    return;
  }
  // The table above, two cases per gradient: the transposes of the product follow from ta and tb.
  if (need_a) d[0] = unbroadcast(ta ? matmul(b, g, tb, true) : matmul(g, b, false, !tb), a.shape());
  if (need_b) d[1] = unbroadcast(tb ? matmul(g, a, true, ta) : matmul(a, g, !ta, false), b.shape());
}

const Attrs& matmul_attrs(bool transpose_a, bool transpose_b) {
  static const std::array<Attrs, 4> attrs{Attrs{{"transpose_a", false}, {"transpose_b", false}},
                                          Attrs{{"transpose_a", false}, {"transpose_b", true}},
                                          Attrs{{"transpose_a", true}, {"transpose_b", false}},
                                          Attrs{{"transpose_a", true}, {"transpose_b", true}}};
  return attrs[(transpose_a ? 2 : 0) + (transpose_b ? 1 : 0)];
}

void register_linalg_ops(OpRegistry& r) {
  r.op("matmul").doc("c[..., i, j] = sum_k op(a)[..., i, k] * op(b)[..., k, j]; op = optional transpose of "
                     "the last two dims; batch dims broadcast")
      .inputs(2).attr<bool>("transpose_a").attr<bool>("transpose_b")
      .shape_fn(matmul_shape)
      .bound_kernel<MatmulKernel>()
      .gradient(matmul_gradient);
}

}  // namespace detail

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  static const OpDef& op = OpRegistry::global().get("matmul");
  return execute(op, {a, b}, detail::matmul_attrs(transpose_a, transpose_b));
}

}  // namespace tl
