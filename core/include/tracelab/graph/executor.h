// Executor: runs a Graph on concrete tensors, straight from the registry (OpDef::infer / OpDef::run), with no
// per-call look-ups. The constructor precomputes a schedule — for every node its input value slots, its op and
// attrs, and which values die after it — so values are dropped right after their last use.
//
// When every value's shape is fully defined the executor is *static*: each op output gets a planned buffer
// (a slot), and slots are reused by liveness (a value dead after node k lends its slot to outputs of later
// nodes with the same dtype and byte size). A slot is written in place on the next call unless someone still
// holds it (a returned output kept by the caller, a tape): then that slot gets a fresh buffer first, so results
// the caller holds never change. In steady state, with outputs dropped between calls, a call allocates no
// tensor buffers. When some dim is unknown, the executor *specializes*: on a call with input shapes it has not
// seen, it runs every node's shape rule once for those shapes and plans buffers as for a static graph; the plan
// is cached by input shapes (up to max_plans, oldest evicted first), so a generic graph fed a handful of
// shapes runs like shape-specialized ones. Only graphs whose output shapes depend on values (structured ops
// such as cond / while_loop / dataset_loop, whose kernels allocate) stay *dynamic*: each op's shape rule runs
// on the actual input metas and its outputs are allocated per call.
//
//   auto g = std::make_shared<tl::graph::Graph>(...);   // e.g. x: f32[?,20] -> relu(matmul(x, w) + b)
//   tl::graph::Executor exec(g);
//   std::vector<tl::Tensor> y = exec.run(std::vector<tl::Tensor>{x});
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tracelab/graph/graph.h"

namespace tl::graph {

/// Runs one graph, many times. Not thread-safe and not reentrant (one run() at a time per executor).
class Executor {
 public:
  /// Builds the schedule for `graph` (kept alive by the shared_ptr); plans buffers when every value's shape is
  /// fully defined. `specialize`: whether a graph with unknown dims is planned per input shapes (the default);
  /// false runs it dynamically, every op's shape rule on every call with fresh outputs, as TensorFlow runs a
  /// generic graph. Throws InvalidArgument for a null graph or a malformed node.
  explicit Executor(std::shared_ptr<const Graph> graph, bool specialize = true);
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  /** @{ */
  /// Moves the schedule and the planned buffers (not while running).
  Executor(Executor&&) noexcept = default;
  Executor& operator=(Executor&&) noexcept = default;
  /** @} */
  ~Executor() = default;

  /// Runs the graph on `inputs` (one per input node, in order); returns one tensor per graph output.
  /// Bad inputs: InvalidArgument / DTypeError / ShapeError naming the input and both metas. Any failure
  /// (including a kernel error) leaves the executor usable; assignments done before the failure stay done.
  /// Calling run() from inside a kernel of the same executor throws InvalidArgument.
  std::vector<Tensor> run(std::span<const Tensor> inputs);

  /// Shape-specialized plans kept per executor (a call with a new input shape beyond this evicts the oldest).
  static constexpr std::size_t max_plans = 16;

  /// True when buffers are planned once (all shapes known).
  bool is_static() const noexcept { return static_; }
  /// True when the graph has unknown dims and the executor plans per input shapes (no value-dependent shapes,
  /// and specialization not turned off).
  bool specializes() const noexcept { return specializes_; }
  /// Planned buffers of the static plan, or of the last plan used (0 for a dynamic executor or before a call).
  std::size_t num_slots() const noexcept { return last_plan_ == nullptr ? 0 : last_plan_->slot_metas.size(); }
  /// View steps (reshape and its kin) of the static plan, or of the last plan used, whose input dies there: they
  /// hand the input's slot on under the output's meta instead of running the copy kernel.
  std::size_t num_forwarded() const noexcept {
    if (last_plan_ == nullptr) return 0;
    return static_cast<std::size_t>(
        std::count(last_plan_->actions.begin(), last_plan_->actions.end(), StepAction::forward));
  }
  /// Steps of the static plan, or of the last plan used, that copy their input's bytes into their output's slot
  /// without the kernel: view ops whose input lives on, and reductions over axes of size 1
  /// (trait::copy_when_same_size).
  std::size_t num_copied() const noexcept {
    if (last_plan_ == nullptr) return 0;
    return static_cast<std::size_t>(
        std::count(last_plan_->actions.begin(), last_plan_->actions.end(), StepAction::copy));
  }
  /// Steps of the static plan, or of the last plan used, that the plan ran once when it was made (their outputs
  /// depend on metas and constants alone; see fold_known_values): a call binds their results.
  std::size_t num_folded() const noexcept {
    if (last_plan_ == nullptr) return 0;
    return static_cast<std::size_t>(
        std::count(last_plan_->actions.begin(), last_plan_->actions.end(), StepAction::known));
  }
  /// Plans held: 1 for a static executor, up to max_plans when specializing, 0 for a dynamic one.
  std::size_t num_plans() const noexcept { return plans_.size(); }
  /// Op outputs that need storage (outputs of dynamic_outputs ops are allocated by their kernels).
  std::size_t num_values() const noexcept { return num_values_; }
  /// The graph being run.
  const Graph& graph() const noexcept { return *graph_; }

 private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  /// One node, resolved: indices into the flat tables below instead of ValueRefs.
  struct Step {
    const Node* node = nullptr;
    NodeKind kind = NodeKind::op;     ///< node->kind
    const OpDef* op = nullptr;        ///< op nodes: node->op
    const Attrs* attrs = nullptr;     ///< op nodes: &node->attrs
    KernelFn kernel;                  ///< op nodes: the kernel bound to the node's attributes
    std::size_t first_input = 0;      ///< into input_ids_
    std::size_t num_inputs = 0;
    std::size_t first_output = 0;     ///< value id of output 0 (a node's outputs have consecutive ids)
    std::size_t num_outputs = 0;
    std::size_t first_release = 0;    ///< into release_ids_: values whose last use is this node
    std::size_t num_release = 0;
    std::size_t input_index = 0;      ///< input nodes: which caller tensor
    bool dynamic_outputs = false;     ///< the kernel allocates the outputs
    bool value_dies = false;          ///< assign nodes: this is the last use of the assigned value
    bool follows_from_metas = false;  ///< graph::follows_from_metas: a plan may compute it once (fold_known_values)
  };

  /// How a call runs one step of a plan.
  enum class StepAction : char {
    kernel,   ///< the kernel (into planned slots, for op steps), or the node's own action (inputs, variables, ...)
    /// A view op (trait::view: reshape, squeeze, ...) whose input dies there: its output has its input's slot,
    /// and the step hands the slot's tensor on under the output's meta (forward_input).
    forward,
    /// Run once when the plan was made (fold_known_values): its outputs depend on metas and constants alone, and
    /// the step binds the plan's tensors (`known`) instead of running the kernel.
    known,
    /// An op whose output, for this plan's metas, is its input 0's bytes as they are (trait::view not forwarded,
    /// or trait::copy_when_same_size at equal sizes): the step copies them into the output's slot (copy_input).
    copy,
  };

  /// Buffers planned for one set of value metas: the graph's own (static) or inferred for input shapes.
  struct Plan {
    std::vector<Shape> input_shapes;             ///< what it was planned for (specialized plans)
    std::vector<TensorMeta> metas;               ///< specialized: every value's inferred meta
    std::vector<const TensorMeta*> value_meta;   ///< every value's meta (into the graph or into `metas`)
    std::vector<std::size_t> slot_of_value;      ///< each value's slot, or npos
    std::vector<TensorMeta> slot_metas;          ///< the meta each slot was planned with
    std::vector<Tensor> slots;                   ///< the buffers
    std::vector<std::size_t> meta_class;         ///< per value: equal metas share a number (slotted values only)
    std::vector<std::size_t> slot_meta_of;       ///< per slot: the meta_class its tensor has (npos: unknown)
    /// Per step: how a call runs it.
    std::vector<StepAction> actions;
    /// Per value: the tensor of a folded step's output or of a constant (empty for the others).
    std::vector<Tensor> known;
    /// Per step: what its kernel keeps between calls (e.g. a reduction's plan for its input shape), per plan so
    /// that calls alternating between input shapes each find their own.
    std::vector<std::unique_ptr<KernelState>> kernel_states;
  };

  class RunScope;

  // Planning (executor_plan.cpp).
  void build_schedule();
  void compute_releases(std::size_t num_values, const std::vector<std::size_t>& value_node);
  void fold_known_values(Plan& plan) const;
  void plan_slots(Plan& plan) const;
  bool copies_input(const Step& step, const Plan& plan) const;
  Plan* plan_for(std::span<const Tensor> inputs);
  std::unique_ptr<Plan> specialize(std::span<const Tensor> inputs) const;
  void check_inputs(std::span<const Tensor> inputs) const;

  // Running (executor.cpp).
  void run_step(const Step& step, std::size_t index, std::span<const Tensor> inputs);
  void run_op(const Step& step, std::size_t index);
  bool forward_input(const Step& step);
  void copy_input(const Step& step);
  void prepare_outputs(const Step& step, TensorRefs args);
  void check_outputs(const Step& step, std::span<Tensor> outputs) const;
  bool in_planned_slots(const Step& step, std::span<const Tensor> outputs) const;
  void read_variable(const Step& step);
  void assign_variable(const Step& step);
  void acquire_slot(std::size_t value);
  void release(const Step& step);
  const TensorMeta& expected_meta(const Step& step, std::size_t output) const;
  /// "%5 = gather", for messages.
  std::string node_label(const Node& node) const;

  std::shared_ptr<const Graph> graph_;
  std::vector<Step> steps_;
  std::vector<std::size_t> input_ids_;      ///< value ids consumed by the steps, concatenated
  std::vector<std::size_t> release_ids_;    ///< value ids to drop after each step, concatenated
  std::vector<std::size_t> output_ids_;     ///< value ids of the graph outputs
  std::vector<const TensorMeta*> value_meta_;  ///< the graph's meta of every value
  std::vector<std::size_t> input_nodes_;    ///< node index of each graph input, in order
  std::size_t num_values_ = 0;
  bool static_ = false;
  bool specializes_ = false;
  bool specialize_ = true;  ///< as constructed: also passed to kernels for the executors of their sub-graphs
  std::vector<std::unique_ptr<Plan>> plans_;  ///< static: the one plan; specializing: most recent last
  std::vector<std::unique_ptr<KernelState>> kernel_states_;  ///< per step, for runs without a plan (dynamic)
  Plan* last_plan_ = nullptr;

  // Per-call state: kept between calls so a call needs no heap allocation for it.
  Plan* plan_ = nullptr;                    ///< the plan of the running call (nullptr: dynamic)
  std::vector<Tensor> values_;              ///< every value's tensor while running; empty between calls
  std::vector<const Tensor*> args_;         ///< the current op's inputs: pointers into values_ (no handle copies)
  std::vector<const TensorMeta*> arg_metas_;  ///< dynamic: the current op's input metas
  std::vector<TensorMeta> out_metas_;       ///< dynamic: the current op's inferred output metas
  bool running_ = false;
};

}  // namespace tl::graph
