#include "tracelab/eager/execute.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tracelab/base/local_array.h"

namespace tl {
namespace {

constexpr std::size_t kInline = 8;  // inputs/outputs handled without heap arrays

/// Rank of dtypes for weak-scalar promotion when only weak scalars meet: bool < int32 < float32.
int weak_rank(DType dtype) { return dtype == DType::float32 ? 2 : dtype == DType::int32 ? 1 : 0; }

/// A weak scalar converted to `target`, or an error when the value would change (0.5 -> int32).
Tensor convert_weak(const OpDef& op, const Tensor& weak, DType target) {
  TL_CHECK(target != DType::bool_ && weak.dtype() != DType::bool_, DTypeError, op.name(),
           ": cannot mix a ", dtype_name(weak.dtype()), " scalar with ", dtype_name(target), " tensors");
  Tensor out = Tensor::empty(target, {});
  if (target == DType::float32) {
    *out.mutable_data<float>() = static_cast<float>(*weak.data<std::int32_t>());
  } else {
    float value = *weak.data<float>();
    bool exact = std::isfinite(value) && value == std::nearbyint(value) && value >= -2147483648.f &&
                 value < 2147483648.f;
    TL_CHECK(exact, DTypeError, op.name(), ": the number ", value,
             " cannot be used with int32 tensors without changing its value");
    *out.mutable_data<std::int32_t>() = static_cast<std::int32_t>(value);
  }
  return out;
}

/// Makes the inputs named by the op's same-dtype mask agree: weak scalars adopt the strong dtype.
/// Returns true (and fills `aligned`) only when something had to change.
bool align_dtypes(const OpDef& op, std::span<const Tensor> inputs, std::vector<Tensor>& aligned) {
  std::uint32_t mask = op.same_dtype_mask();
  if (mask == 0) return false;
  const Tensor* strong = nullptr;
  const Tensor* best_weak = nullptr;
  for (std::size_t i = 0; i < inputs.size() && i < 32; ++i) {
    if (!(mask >> i & 1u)) continue;
    const Tensor& t = inputs[i];
    if (!t.is_weak()) {
      if (!strong) strong = &t;
      TL_CHECK(t.dtype() == strong->dtype(), DTypeError, op.name(), ": inputs must have the same dtype, got ",
               dtype_name(strong->dtype()), " and ", dtype_name(t.dtype()));
    } else if (!best_weak || weak_rank(t.dtype()) > weak_rank(best_weak->dtype())) {
      best_weak = &t;
    }
  }
  if (!best_weak) return false;
  DType target = strong ? strong->dtype() : best_weak->dtype();
  bool changed = false;
  for (std::size_t i = 0; i < inputs.size() && i < 32; ++i) {
    if (!(mask >> i & 1u) || !inputs[i].is_weak() || inputs[i].dtype() == target) continue;
    if (!changed) aligned.assign(inputs.begin(), inputs.end());
    aligned[i] = convert_weak(op, inputs[i], target);
    changed = true;
  }
  return changed;
}

}  // namespace

void execute(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs,
             Subgraphs subgraphs, VariableHandles variables) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    TL_CHECK(inputs[i].defined(), InvalidArgument, op.name(), ": input ", i, " is an empty Tensor handle");
  std::vector<Tensor> aligned;
  if (align_dtypes(op, inputs, aligned)) inputs = aligned;
  auto& observers = detail::active_observers();
  if (OpInterceptor* interceptor = detail::active_interceptor()) {  // tracing: add a node instead of computing
    interceptor->execute(op, inputs, attrs, outputs, subgraphs, variables);
    for (std::size_t i = observers.size(); i-- > 0;) observers[i]->on_executed(op, inputs, attrs, outputs, subgraphs);
    return;
  }

  // Metas, output metas and results live in small inline arrays unless there are many (no heap use on the common
  // path).
  detail::LocalArray<const TensorMeta*, kInline> metas(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    TL_CHECK(!inputs[i].is_symbolic(), InvalidArgument, op.name(), ": input ", i,
             " is a symbolic tensor, but no function is being traced: it leaked out of a trace (e.g. stored in a "
             "variable outside the traced callable); return tensors from the function instead");
    metas[i] = &inputs[i].meta();
  }

  detail::LocalArray<TensorMeta, kInline> out_metas(outputs.size());
  op.infer(std::span<const TensorMeta* const>(metas.data(), metas.size()), attrs, out_metas.span(), subgraphs,
           variables);

  // Results go to `outputs` only once the kernel succeeded, so a failing op leaves the caller's tensors alone.
  detail::LocalArray<Tensor, kInline> results(outputs.size());
  const bool dynamic = op.has(trait::dynamic_outputs);  // the kernel allocates its own outputs
  const bool view = op.has(trait::view);  // the output is input 0's buffer under its own meta: no kernel, no copy
  for (std::size_t i = 0; i < outputs.size() && !dynamic; ++i) {
    TL_CHECK(out_metas[i].shape.is_fully_defined(), ShapeError, op.name(), ": output ", i, " has unknown dims ",
             out_metas[i].shape.str(), " in eager mode");
    results[i] = view ? detail::view(inputs[0], std::move(out_metas[i]))
                      : Tensor::empty(out_metas[i].dtype, out_metas[i].shape);
  }
  if (!view) op.run(inputs, attrs, results.span(), subgraphs, nullptr, variables);
  for (std::size_t i = 0; i < outputs.size() && dynamic; ++i)
    TL_CHECK(results[i].defined() && !results[i].is_symbolic() && results[i].dtype() == out_metas[i].dtype &&
                 results[i].shape().is_compatible_with(out_metas[i].shape),
             InvalidArgument, op.name(), ": the kernel produced no valid output ", i, " for ", meta_str(out_metas[i]));
  std::move(results.begin(), results.end(), outputs.begin());
  for (std::size_t i = observers.size(); i-- > 0;) observers[i]->on_executed(op, inputs, attrs, outputs, subgraphs);
}

OpInterceptor*& detail::active_interceptor() {
  thread_local OpInterceptor* interceptor = nullptr;
  return interceptor;
}

std::vector<OpObserver*>& detail::active_observers() {
  thread_local std::vector<OpObserver*> observers;
  return observers;
}

Tensor execute(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs) {
  Tensor out;
  execute(op, inputs, attrs, std::span<Tensor>(&out, 1));
  return out;
}

Tensor execute(const OpDef& op, std::initializer_list<Tensor> inputs, const Attrs& attrs) {
  return execute(op, std::span<const Tensor>(inputs.begin(), inputs.size()), attrs);
}

Tensor execute(std::string_view op_name, std::initializer_list<Tensor> inputs, const Attrs& attrs) {
  return execute(OpRegistry::global().get(op_name), inputs, attrs);
}

}  // namespace tl
