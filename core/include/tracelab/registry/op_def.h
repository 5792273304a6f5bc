// OpDef: everything about one op in one place — name, traits, shape/dtype rule, Eigen kernel and gradient.
// The eager funnel, the tape and the graph executor all read the same OpDef.
//
//   registry.op("relu")
//       .doc("max(x, 0), elementwise")
//       .inputs(1).traits(trait::elementwise)
//       .shape_fn(rules::same_as_input)
//       .kernel(relu_kernel);
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "tracelab/base/attrs.h"
#include "tracelab/tensor/tensor.h"

namespace tl {

class OpDef;

/// Op traits: sets on the OpDef that passes and the funnel ask, instead of op names.
namespace trait {
inline constexpr std::uint32_t elementwise = 1u << 0;       ///< output[i] depends on input[i] only
inline constexpr std::uint32_t commutative = 1u << 1;       ///< f(a, b) == f(b, a)
inline constexpr std::uint32_t stateful = 1u << 2;          ///< reads or writes state beyond its inputs
inline constexpr std::uint32_t side_effects = 1u << 3;      ///< must run even if nothing uses its output
inline constexpr std::uint32_t not_differentiable = 1u << 4;  ///< has no gradient (argmax, comparisons, casts to int)
inline constexpr std::uint32_t dynamic_outputs = 1u << 5;  ///< the kernel allocates its outputs (shapes known at run time)
}  // namespace trait

/// What a shape/dtype rule sees: the input metas (dims may be -1 = unknown), the attrs, and outputs to fill.
struct ShapeContext {
  const OpDef& op;
  std::span<const TensorMeta* const> inputs;
  const Attrs& attrs;
  std::span<TensorMeta> outputs;

  const TensorMeta& input(std::size_t i) const { return *inputs[i]; }
  TensorMeta& output(std::size_t i = 0) const { return outputs[i]; }
};

/// What a kernel sees: concrete inputs and outputs already allocated with the inferred shapes.
struct KernelContext {
  const OpDef& op;
  std::span<const Tensor> inputs;
  const Attrs& attrs;
  std::span<Tensor> outputs;

  const Tensor& input(std::size_t i) const { return inputs[i]; }
  const Tensor& output(std::size_t i = 0) const { return outputs[i]; }
};

/// What a gradient rule sees: the recorded call (inputs, outputs, attrs) and the upstream gradient of each
/// output (zeros where an output did not reach the target). It writes one gradient per input into
/// `input_grads` (leaving an entry empty means "no gradient"), using public ops only, so the same rule runs
/// eagerly, is recorded by an outer tape (higher-order gradients) and becomes graph nodes when traced.
struct GradContext {
  const OpDef& op;
  std::span<const Tensor> inputs;
  std::span<const Tensor> outputs;
  const Attrs& attrs;
  std::span<const Tensor> grads;

  const Tensor& input(std::size_t i) const { return inputs[i]; }
  const Tensor& output(std::size_t i = 0) const { return outputs[i]; }
  const Tensor& grad(std::size_t i = 0) const { return grads[i]; }
};

using ShapeFn = std::function<void(ShapeContext&)>;
using KernelFn = std::function<void(KernelContext&)>;
using GradFn = std::function<void(const GradContext&, std::span<Tensor> input_grads)>;

/// One attribute an op accepts; unknown attributes are rejected before the op runs.
struct AttrSpec {
  std::string name;
  std::size_t type_index;  ///< index into AttrValue's alternatives
  bool required;
};

/// The definition of one op. Built once at registry start-up with the chained setters below.
class OpDef {
 public:
  explicit OpDef(std::string name) : name_(std::move(name)) {}

  OpDef& doc(std::string text) { doc_ = std::move(text); return *this; }
  /// Exact input count, or `variadic` (at least `min_inputs`).
  OpDef& inputs(int count) { num_inputs_ = count; return *this; }
  OpDef& variadic_inputs(int min_inputs) { num_inputs_ = variadic; min_inputs_ = min_inputs; return *this; }
  OpDef& outputs(int count) { num_outputs_ = count; return *this; }
  OpDef& traits(std::uint32_t bits) { traits_ |= bits; return *this; }
  /// Inputs (by index bitmask) that must share a dtype; weak scalars among them adopt the others' dtype.
  OpDef& same_dtype_inputs(std::uint32_t mask) { same_dtype_mask_ = mask; return *this; }
  /// Declares an optional attribute of type T (bool, std::int64_t, double, std::string, Ints, DType).
  template <class T> OpDef& attr(std::string name, bool required = false) {
    attrs_.push_back({std::move(name), AttrValue(T{}).index(), required});
    return *this;
  }
  OpDef& shape_fn(ShapeFn fn) { shape_fn_ = std::move(fn); return *this; }
  OpDef& kernel(KernelFn fn) { kernel_ = std::move(fn); return *this; }
  /// The gradient rule (reverse mode): d(target)/d(inputs) from d(target)/d(outputs).
  OpDef& gradient(GradFn fn) { gradient_ = std::move(fn); return *this; }

  static constexpr int variadic = -1;

  const std::string& name() const noexcept { return name_; }
  const std::string& doc() const noexcept { return doc_; }
  int num_inputs() const noexcept { return num_inputs_; }
  int min_inputs() const noexcept { return min_inputs_; }
  int num_outputs() const noexcept { return num_outputs_; }
  bool has(std::uint32_t trait_bits) const noexcept { return (traits_ & trait_bits) == trait_bits; }
  std::uint32_t trait_bits() const noexcept { return traits_; }
  std::uint32_t same_dtype_mask() const noexcept { return same_dtype_mask_; }
  const std::vector<AttrSpec>& attr_specs() const noexcept { return attrs_; }
  bool has_shape_fn() const noexcept { return static_cast<bool>(shape_fn_); }
  bool has_kernel() const noexcept { return static_cast<bool>(kernel_); }
  bool has_gradient() const noexcept { return static_cast<bool>(gradient_); }
  /// Runs the gradient rule; throws InvalidArgument when the op has none.
  void backward(const GradContext& context, std::span<Tensor> input_grads) const;

  /// Checks input count, attribute names/types and runs the shape rule; throws a typed error naming the op.
  void infer(std::span<const TensorMeta* const> inputs, const Attrs& attrs, std::span<TensorMeta> outputs) const;
  /// Runs the kernel on concrete inputs into allocated outputs.
  void run(std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) const;

 private:
  void check_attrs(const Attrs& attrs) const;

  std::string name_;
  std::string doc_;
  int num_inputs_ = 1;
  int min_inputs_ = 1;
  int num_outputs_ = 1;
  std::uint32_t traits_ = 0;
  std::uint32_t same_dtype_mask_ = 0;
  std::vector<AttrSpec> attrs_;
  ShapeFn shape_fn_;
  KernelFn kernel_;
  GradFn gradient_;
};

}  // namespace tl
