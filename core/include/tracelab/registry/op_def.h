// OpDef: everything about one op in one place — name, traits, shape/dtype rule, Eigen kernel and gradient.
// The eager funnel, the tape and the graph executor all read the same OpDef.
//
//   registry.op("relu")
//       .doc("max(x, 0), elementwise")
//       .inputs(1).traits(trait::elementwise)
//       .shape_fn(rules::same_as_input)
//       .kernel(relu_kernel);
//
// A structured op (cond, while_loop, fused_elementwise, dataset_loop) is registered the same way, once per
// process by the layer that defines it; its node holds sub-graphs, which reach the shape rule, the kernel and the
// gradient through their contexts (`subgraphs`). The kernel of such an op may keep per-node state (executors
// compiled for its sub-graphs) in KernelContext::state<T>().
#pragma once

#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tracelab/base/attrs.h"
#include "tracelab/tensor/tensor.h"
#include "tracelab/tensor/variable_state.h"

namespace tl {

class OpDef;

namespace graph {
class Graph;  // opaque in this layer: only the layers from graph/ up look inside a sub-graph
}

/// The sub-graphs one node of a structured op holds (cond's two branches, a loop's cond and body, a fused body).
using Subgraphs = std::span<const std::shared_ptr<const graph::Graph>>;
/// The variables a node of an op with trait::updates_variables updates in place (by handle).
using VariableHandles = std::span<const std::shared_ptr<detail::VariableState>>;

/// What a kernel keeps between runs of one node, e.g. the executors of its sub-graphs. The graph executor holds
/// one per node for as long as its plan lives; an eager call gets a fresh one.
struct KernelState {
  virtual ~KernelState() = default;
};

/// Op traits: sets on the OpDef that passes and the funnel ask, instead of op names.
namespace trait {
inline constexpr std::uint32_t elementwise = 1u << 0;       ///< output[i] depends on input[i] only
inline constexpr std::uint32_t commutative = 1u << 1;       ///< f(a, b) == f(b, a)
inline constexpr std::uint32_t stateful = 1u << 2;          ///< reads or writes state beyond its inputs
inline constexpr std::uint32_t side_effects = 1u << 3;      ///< must run even if nothing uses its output
inline constexpr std::uint32_t not_differentiable = 1u << 4;  ///< has no gradient (argmax, comparisons, casts to int)
inline constexpr std::uint32_t dynamic_outputs = 1u << 5;  ///< the kernel allocates its outputs (shapes known at run time)
/// The node names variables (Node::variables, the contexts' `variables`) whose values its kernel updates in
/// place, like TensorFlow's resource ops (ResourceApplyAdam): no read or assign nodes around it.
inline constexpr std::uint32_t updates_variables = 1u << 6;
/// The outputs depend on the inputs' dtypes and shapes only, never on their values (zeros_like, ones_like):
/// constant folding replaces such a node by its result whenever the input shapes are fully known.
inline constexpr std::uint32_t reads_only_metas = 1u << 7;
/// The output is input 0's elements, in order, under the output's meta (reshape, expand_dims, squeeze, identity,
/// stop_gradient): an eager call returns a tensor sharing input 0's buffer instead of running the kernel, as
/// TensorFlow's reshape forwards its input's buffer. Sharing is safe because nothing writes a buffer in place
/// unless it is exclusively owned (detail::exclusively_owned). A graph executor's plan hands a dying input's slot
/// on to the output without the kernel (Executor::forward_input), and otherwise copies the input's bytes into the
/// output's slot, also without the kernel; an executor without a plan runs the kernel, a copy.
inline constexpr std::uint32_t view = 1u << 8;
/// A structured op whose sub-graphs the optimizer leaves as they are (graph::optimize rewrites the sub-graphs of
/// the others): fused_elementwise, whose body has a fixed form; dataset_loop, whose body was optimized when it
/// was traced; while_grad, which replays its body op by op under a tape.
inline constexpr std::uint32_t subgraphs_as_is = 1u << 9;
/// Whenever the output has as many elements as input 0, it holds input 0's elements in order, bit for bit, under
/// the output's meta (reduce_sum, reduce_mean, reduce_max and reduce_min over axes of size 1, as the backward pass
/// makes them for a batch of one). The graph executor's plan, which knows every meta, runs such a step as a copy
/// into the output's slot instead of calling the kernel (Executor's StepAction::copy), as it runs a view op whose
/// input lives on.
inline constexpr std::uint32_t copy_when_same_size = 1u << 10;
}  // namespace trait

/// What a shape/dtype rule sees: the input metas (dims may be -1 = unknown), the attrs, and outputs to fill.
struct ShapeContext {
  const OpDef& op;                            ///< the op whose rule runs (its name goes into error messages)
  std::span<const TensorMeta* const> inputs;  ///< the input metas, counts already checked
  const Attrs& attrs;                         ///< the attributes, already checked against the op's specs
  std::span<TensorMeta> outputs;              ///< one meta per output, for the rule to set
  Subgraphs subgraphs{};                      ///< the node's sub-graphs (structured ops only)
  VariableHandles variables{};                ///< the variables the node updates (trait::updates_variables)

  /// The meta of input `i` (unchecked index).
  const TensorMeta& input(std::size_t i) const { return *inputs[i]; }
  /// The meta of output `i` (unchecked index), for the rule to set.
  TensorMeta& output(std::size_t i = 0) const { return outputs[i]; }
};

/// A kernel's inputs: tensors held elsewhere (the running executor's values, the eager caller's arguments), seen
/// through pointers so that running a node copies no tensor handles. Indexing and iteration give `const Tensor&`.
class TensorRefs {
 public:
  /// A forward iterator over the referenced tensors.
  class iterator {
   public:
    /** @{ */
    /// The std::iterator_traits member types of a forward iterator over `const Tensor`.
    using iterator_category = std::forward_iterator_tag;
    using value_type = Tensor;
    using difference_type = std::ptrdiff_t;
    using pointer = const Tensor*;
    using reference = const Tensor&;
    /** @} */

    /// A singular iterator.
    iterator() = default;
    /// An iterator at the pointer `at` in an array of tensor pointers.
    explicit iterator(const Tensor* const* at) : at_(at) {}
    /** @{ */
    /// Forward iterator operations: dereference to the tensor, advance, compare positions.
    const Tensor& operator*() const { return **at_; }
    const Tensor* operator->() const { return *at_; }
    iterator& operator++() { ++at_; return *this; }
    iterator operator++(int) { iterator before = *this; ++at_; return before; }
    bool operator==(const iterator& other) const = default;
    /** @} */

   private:
    const Tensor* const* at_ = nullptr;
  };

  /// No tensors.
  TensorRefs() = default;
  /// The `size` tensors that `refs` points to; the pointers and the tensors must outlive this view.
  TensorRefs(const Tensor* const* refs, std::size_t size) : refs_(refs), size_(size) {}

  /// Tensor `i` (unchecked index).
  const Tensor& operator[](std::size_t i) const { return *refs_[i]; }
  /// How many tensors.
  std::size_t size() const noexcept { return size_; }
  /// True when there are none.
  bool empty() const noexcept { return size_ == 0; }
  /** @{ */
  /// The tensors from `offset` on (`count` of them, or all the rest), as std::span::subspan; unchecked.
  TensorRefs subspan(std::size_t offset) const { return {refs_ + offset, size_ - offset}; }
  TensorRefs subspan(std::size_t offset, std::size_t count) const { return {refs_ + offset, count}; }
  /** @} */
  /** @{ */
  /// Iteration in order, giving `const Tensor&`.
  iterator begin() const { return iterator(refs_); }
  iterator end() const { return iterator(refs_ + size_); }
  /** @} */
  /// Copies of the tensors (new handles), for code that needs them contiguous.
  std::vector<Tensor> to_vector() const {
    std::vector<Tensor> out;
    out.reserve(size_);
    for (std::size_t i = 0; i < size_; ++i) out.push_back(*refs_[i]);
    return out;
  }

 private:
  const Tensor* const* refs_ = nullptr;
  std::size_t size_ = 0;
};

/// What a kernel sees: concrete inputs and outputs already allocated with the inferred shapes (left empty for
/// ops with trait::dynamic_outputs), the node's sub-graphs, and the node's state slot.
struct KernelContext {
  const OpDef& op;                                     ///< the op being run
  TensorRefs inputs;                                   ///< the concrete inputs
  const Attrs& attrs;                                  ///< the attributes, already checked
  std::span<Tensor> outputs;                           ///< the outputs to write (or to make, trait::dynamic_outputs)
  Subgraphs subgraphs{};                               ///< the node's sub-graphs (structured ops only)
  std::unique_ptr<KernelState>* state_slot = nullptr;  ///< the node's state; use state<S>()
  VariableHandles variables{};                         ///< the variables to update (trait::updates_variables)
  /// Whether executors the kernel makes for its sub-graphs plan per input shapes (graph::Executor's
  /// `specialize`): the running executor's setting, true eagerly.
  bool specialize_plans = true;

  /// Input `i` (unchecked index).
  const Tensor& input(std::size_t i) const { return inputs[i]; }
  /// Output `i` (unchecked index); its buffer is the kernel's to write.
  const Tensor& output(std::size_t i = 0) const { return outputs[i]; }
  /// The node's state of type S, created (default-constructed) on first use. Only the op's own kernel uses it.
  template <class S> S& state() const {
    if (!*state_slot) *state_slot = std::make_unique<S>();
    return static_cast<S&>(**state_slot);
  }
};

/// What a gradient rule sees: the recorded call (inputs, outputs, attrs) and the upstream gradient of each
/// output (zeros where an output did not reach the target). It writes one gradient per input into
/// `input_grads` (leaving an entry empty means "no gradient"), using public ops only, so the same rule runs
/// eagerly, is recorded by an outer tape (higher-order gradients) and becomes graph nodes when traced.
struct GradContext {
  const OpDef& op;                   ///< the op being differentiated
  std::span<const Tensor> inputs;    ///< the recorded inputs
  std::span<const Tensor> outputs;   ///< the recorded outputs (rules such as tanh's read them)
  const Attrs& attrs;                ///< the recorded attributes
  std::span<const Tensor> grads;     ///< d(target)/d(output i), one per output
  Subgraphs subgraphs{};             ///< the node's sub-graphs (structured ops only)
  /// Bit i set: the gradient of input i is used (a tape leaves out inputs it does not watch, such as data or
  /// labels). A rule may skip computing a gradient that is not needed and leave it empty (TensorFlow's
  /// skip_input_indices); inputs past the 64th always count as needed.
  std::uint64_t needed = ~std::uint64_t{0};

  /// Recorded input `i` (unchecked index).
  const Tensor& input(std::size_t i) const { return inputs[i]; }
  /// Recorded output `i` (unchecked index).
  const Tensor& output(std::size_t i = 0) const { return outputs[i]; }
  /// The upstream gradient of output `i` (unchecked index).
  const Tensor& grad(std::size_t i = 0) const { return grads[i]; }
  /// True when the gradient of input `i` is needed (see `needed`).
  bool needs(std::size_t i) const noexcept { return i >= 64 || (needed >> i & 1) != 0; }
};

/// A shape/dtype rule: sets the output metas from the input metas and attributes; throws ShapeError or
/// DTypeError naming the op.
using ShapeFn = std::function<void(ShapeContext&)>;
/// A kernel: computes the outputs from concrete inputs.
using KernelFn = std::function<void(KernelContext&)>;
/// Makes a node's kernel with its attributes already read (OpDef::bound_kernel).
using KernelBinder = std::function<KernelFn(const Attrs&)>;
/// A gradient rule: writes d(target)/d(input i) into `input_grads[i]` (empty: no gradient).
using GradFn = std::function<void(const GradContext&, std::span<Tensor> input_grads)>;
/// How many outputs a node of a structured op has, from its attributes and sub-graphs.
using OutputCountFn = std::function<std::size_t(const Attrs&, Subgraphs)>;

/// One attribute an op accepts; unknown attributes are rejected before the op runs.
struct AttrSpec {
  std::string name;        ///< the attribute's name
  std::size_t type_index;  ///< index into AttrValue's alternatives
  bool required;           ///< a call without it is an InvalidArgument error
};

/// The definition of one op. Built once at registry start-up with the chained setters below.
class OpDef {
 public:
  /// An op named `name` with one input, one output and nothing else yet; use OpRegistry::op to register one.
  explicit OpDef(std::string name) : name_(std::move(name)) {}

  /// A one-line description (the math); JavaScript reads it through tl.opInfo.
  OpDef& doc(std::string text) { doc_ = std::move(text); return *this; }
  /// Exact input count, or `variadic` (at least `min_inputs`).
  OpDef& inputs(int count) { num_inputs_ = count; return *this; }
  /// Any number of inputs, at least `min_inputs`; num_inputs() is then `variadic`.
  OpDef& variadic_inputs(int min_inputs) { num_inputs_ = variadic; min_inputs_ = min_inputs; return *this; }
  /// Exact output count.
  OpDef& outputs(int count) { num_outputs_ = count; return *this; }
  /// Output count decided per node (structured ops: by the sub-graphs); num_outputs() is then `variadic`.
  OpDef& outputs(OutputCountFn fn) { num_outputs_ = variadic; output_count_ = std::move(fn); return *this; }
  /// A structured op: each node holds exactly `count` sub-graphs.
  OpDef& subgraphs(int count) { num_subgraphs_ = count; return *this; }
  /// Adds trait bits (tl::trait; combine with `|`); calls accumulate.
  OpDef& traits(std::uint32_t bits) { traits_ |= bits; return *this; }
  /// Inputs (by index bitmask) that must share a dtype; weak scalars among them adopt the others' dtype.
  OpDef& same_dtype_inputs(std::uint32_t mask) { same_dtype_mask_ = mask; return *this; }
  /// Declares an attribute of type T (bool, std::int64_t, double, std::string, Ints, DType), optional unless
  /// `required`.
  template <class T> OpDef& attr(std::string name, bool required = false) {
    attrs_.push_back({std::move(name), AttrValue(T{}).index(), required});
    required_attrs_ += required ? 1 : 0;
    check_id_ = next_check_id();  // attributes checked against the specs before are checked again
    return *this;
  }
  /// The shape/dtype rule (required: infer() throws InvalidArgument without one).
  OpDef& shape_fn(ShapeFn fn) { shape_fn_ = std::move(fn); return *this; }
  /// The kernel; replaces a bound_kernel.
  OpDef& kernel(KernelFn fn) { kernel_ = std::move(fn); binder_ = nullptr; return *this; }
  /// A kernel that reads its attributes once: K(attrs) resolves them, K's operator()(KernelContext&) runs.
  /// Eagerly a K is made per call; the graph executor makes one per node when it plans (bind_kernel), so a run
  /// looks nothing up by name.
  template <class K> OpDef& bound_kernel() {
    kernel_ = [](KernelContext& ctx) { K(ctx.attrs)(ctx); };
    binder_ = [](const Attrs& attrs) -> KernelFn { return K(attrs); };
    return *this;
  }
  /// The gradient rule (reverse mode): d(target)/d(inputs) from d(target)/d(outputs).
  OpDef& gradient(GradFn fn) { gradient_ = std::move(fn); return *this; }

  /// The input or output count of an op that takes any number of them.
  static constexpr int variadic = -1;

  /// The op's registered name ("matmul").
  const std::string& name() const noexcept { return name_; }
  /// The description set by doc(text), or empty.
  const std::string& doc() const noexcept { return doc_; }
  /// Exact input count, or `variadic`.
  int num_inputs() const noexcept { return num_inputs_; }
  /// The least input count of a variadic op (1 unless set by variadic_inputs).
  int min_inputs() const noexcept { return min_inputs_; }
  /// Exact output count, or `variadic` when decided per node.
  int num_outputs() const noexcept { return num_outputs_; }
  /// The output count of a node with these attributes and sub-graphs (checks the sub-graph count).
  std::size_t num_outputs(const Attrs& attrs, Subgraphs subgraphs) const;
  /// How many sub-graphs each node holds (0 for all but structured ops).
  int num_subgraphs() const noexcept { return num_subgraphs_; }
  /// True when the op has every trait in `trait_bits`.
  bool has(std::uint32_t trait_bits) const noexcept { return (traits_ & trait_bits) == trait_bits; }
  /// All the op's trait bits.
  std::uint32_t trait_bits() const noexcept { return traits_; }
  /// The inputs that must share a dtype (bit i: input i), as set by same_dtype_inputs.
  std::uint32_t same_dtype_mask() const noexcept { return same_dtype_mask_; }
  /// The declared attributes, in declaration order.
  const std::vector<AttrSpec>& attr_specs() const noexcept { return attrs_; }
  /// True when a shape rule is set.
  bool has_shape_fn() const noexcept { return static_cast<bool>(shape_fn_); }
  /// True when a kernel (plain or bound) is set.
  bool has_kernel() const noexcept { return static_cast<bool>(kernel_); }
  /// The kernel for a node with these attributes: bound to them (bound_kernel), or the op's kernel. Throws
  /// InvalidArgument when the op has none.
  KernelFn bind_kernel(const Attrs& attrs) const;
  /// True when a gradient rule is set.
  bool has_gradient() const noexcept { return static_cast<bool>(gradient_); }
  /// Runs the gradient rule; throws InvalidArgument when the op has none.
  void backward(const GradContext& context, std::span<Tensor> input_grads) const;

  /// Checks input, sub-graph and output counts, attribute names/types and runs the shape rule; throws a typed
  /// error naming the op.
  void infer(std::span<const TensorMeta* const> inputs, const Attrs& attrs, std::span<TensorMeta> outputs,
             Subgraphs subgraphs = {}, VariableHandles variables = {}) const;
  /// Runs the kernel on concrete inputs into allocated outputs. `state` is the node's state slot (nullptr: a
  /// fresh one for this call); `specialize_plans` goes to KernelContext.
  void run(TensorRefs inputs, const Attrs& attrs, std::span<Tensor> outputs, Subgraphs subgraphs = {},
           std::unique_ptr<KernelState>* state = nullptr, VariableHandles variables = {},
           bool specialize_plans = true) const;
  /// The same for tensors held contiguously.
  void run(std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs, Subgraphs subgraphs = {},
           std::unique_ptr<KernelState>* state = nullptr, VariableHandles variables = {},
           bool specialize_plans = true) const;

 private:
  void check_attrs(const Attrs& attrs) const;
  std::size_t count_outputs(const Attrs& attrs, Subgraphs subgraphs) const;  // num_outputs, attrs already checked

  std::string name_;
  std::string doc_;
  int num_inputs_ = 1;
  int min_inputs_ = 1;
  int num_outputs_ = 1;
  int num_subgraphs_ = 0;
  std::uint32_t traits_ = 0;
  std::uint32_t same_dtype_mask_ = 0;
  std::vector<AttrSpec> attrs_;
  std::size_t required_attrs_ = 0;  // how many of attrs_ are required
  /// Names this op's attribute specs for Attrs::checked_by: unique per op and renewed when a spec is added.
  std::uint64_t check_id_ = next_check_id();
  static std::uint64_t next_check_id() noexcept;
  ShapeFn shape_fn_;
  KernelFn kernel_;
  KernelBinder binder_;
  GradFn gradient_;
  OutputCountFn output_count_;
};

}  // namespace tl
