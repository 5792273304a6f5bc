// Executor — planning: the schedule (resolved input ids, last uses), buffer slots reused by liveness,
// and the check of the caller's inputs. Running the schedule is in executor.cpp.
#include "tracelab/graph/executor.h"

#include <algorithm>
#include <exception>
#include <span>
#include <string>

namespace tl::graph {
namespace {

/// The largest output (and input standing in for a meta) a plan computes once, in elements. Smaller than constant
/// folding's limit: an executor keeps up to max_plans plans, each with its own results.
constexpr std::int64_t kMaxKnownElements = 4096;

/// Bytes of a fully defined meta.
std::size_t byte_size(const TensorMeta& meta) {
  return static_cast<std::size_t>(meta.shape.num_elements()) * dtype_size(meta.dtype);
}

/// "input 0 (x)", or "input 0" for an unnamed input.
std::string input_label(std::size_t index, const Node& node) {
  return node.name.empty() ? tl::detail::cat("input ", index) : tl::detail::cat("input ", index, " (", node.name, ")");
}

/// Checks the node's refs and kind-specific fields, so the schedule can index without checks.
void check_node(const Graph& graph, std::size_t index) {
  const Node& node = graph.nodes()[index];
  for (const ValueRef& ref : node.inputs)
    TL_CHECK(ref.node < index && graph.contains(ref), InvalidArgument, "executor: node ", index, " (", node.label(),
             ") uses ", ref.str(), ", which is not an earlier value");
  switch (node.kind) {
    case NodeKind::op:
      TL_CHECK(node.op != nullptr, InvalidArgument, "executor: node ", index, " is an op node without an op");
      break;
    case NodeKind::constant:
      TL_CHECK(node.value.defined() && !node.value.is_symbolic() && node.outputs.size() == 1, InvalidArgument,
               "executor: node ", index, " is a constant without a concrete value");
      break;
    case NodeKind::variable:
    case NodeKind::assign:
      TL_CHECK(node.variable != nullptr, InvalidArgument, "executor: node ", index, " (", node.label(),
               ") has no captured variable");
      TL_CHECK(node.kind == NodeKind::variable ? node.outputs.size() == 1 : node.inputs.size() == 1,
               InvalidArgument, "executor: node ", index, " (", node.label(), ") is malformed");
      break;
    case NodeKind::input:
      TL_CHECK(node.outputs.size() == 1, InvalidArgument, "executor: input node ", index, " has no meta");
      break;
  }
}

}  // namespace

Executor::Executor(std::shared_ptr<const Graph> graph, bool specialize)
    : graph_(std::move(graph)), specialize_(specialize) {
  TL_CHECK(graph_ != nullptr, InvalidArgument, "executor: got no graph");
  build_schedule();
  specializes_ = specializes_ && specialize;
  if (static_) {
    auto plan = std::make_unique<Plan>();
    plan->value_meta = value_meta_;
    plan->kernel_states.resize(steps_.size());
    fold_known_values(*plan);
    plan_slots(*plan);
    last_plan_ = plan.get();
    plans_.push_back(std::move(plan));
  }
  std::size_t max_inputs = 0, max_outputs = 0;
  for (const Step& step : steps_) {
    max_inputs = std::max(max_inputs, step.num_inputs);
    max_outputs = std::max(max_outputs, step.num_outputs);
  }
  values_.resize(value_meta_.size());
  args_.resize(max_inputs);
  arg_metas_.resize(max_inputs);
  out_metas_.resize(max_outputs);
}

void Executor::build_schedule() {
  const auto& nodes = graph_->nodes();
  std::vector<std::size_t> base(nodes.size());  // value id of each node's output 0
  std::vector<std::size_t> value_node;           // producing node of each value
  static_ = true;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    check_node(*graph_, k);
    const Node& node = nodes[k];
    base[k] = value_meta_.size();
    Step step;
    step.node = &node;
    step.kind = node.kind;
    if (node.kind == NodeKind::op) {
      step.op = node.op;
      step.attrs = &node.attrs;
      step.kernel = node.op->bind_kernel(node.attrs);
      step.dynamic_outputs = node.op->has(trait::dynamic_outputs);
      if (!step.dynamic_outputs) num_values_ += node.outputs.size();
    }
    if (node.kind == NodeKind::input) {
      step.input_index = input_nodes_.size();
      input_nodes_.push_back(k);
    }
    step.first_input = input_ids_.size();
    step.num_inputs = node.inputs.size();
    for (const ValueRef& ref : node.inputs) input_ids_.push_back(base[ref.node] + ref.output);
    step.first_output = base[k];
    step.num_outputs = node.outputs.size();
    for (const TensorMeta& meta : node.outputs) {
      value_meta_.push_back(&meta);
      value_node.push_back(k);
      static_ = static_ && meta.shape.is_fully_defined();
    }
    steps_.push_back(std::move(step));
  }
  const std::vector<bool> follows = follows_from_metas(*graph_);  // every node checked by now
  for (std::size_t k = 0; k < steps_.size(); ++k) steps_[k].follows_from_metas = follows[k];
  kernel_states_.resize(steps_.size());
  for (const ValueRef& ref : graph_->outputs()) output_ids_.push_back(base[ref.node] + ref.output);
  compute_releases(value_meta_.size(), value_node);
  specializes_ = !static_ && std::none_of(steps_.begin(), steps_.end(), [](const Step& s) { return s.dynamic_outputs; });
}

/// The plan for this call: the static one, a cached specialization for these input shapes (made on a miss),
/// or nullptr for a dynamic executor. Inputs are already checked against the graph's input metas.
Executor::Plan* Executor::plan_for(std::span<const Tensor> inputs) {
  if (static_) return plans_.front().get();
  if (!specializes_) return nullptr;
  for (auto it = plans_.rbegin(); it != plans_.rend(); ++it) {
    const auto& shapes = (*it)->input_shapes;
    bool same = true;
    for (std::size_t i = 0; i < inputs.size() && same; ++i) same = inputs[i].shape() == shapes[i];
    if (same) return last_plan_ = it->get();
  }
  std::unique_ptr<Plan> plan = specialize(inputs);  // may throw (a shape rule rejects): nothing changed then
  if (plan == nullptr) return nullptr;
  if (plans_.size() == max_plans) plans_.erase(plans_.begin());
  plans_.push_back(std::move(plan));
  return last_plan_ = plans_.back().get();
}

/// Runs every node's shape rule for the inputs' shapes (variables and constants have their own metas) and plans
/// buffers for the result, as for a static graph.
std::unique_ptr<Executor::Plan> Executor::specialize(std::span<const Tensor> inputs) const {
  auto plan = std::make_unique<Plan>();
  plan->metas.resize(value_meta_.size());
  std::vector<const TensorMeta*> args;
  for (const Step& step : steps_) {
    const Node& node = *step.node;
    TensorMeta* out = plan->metas.data() + step.first_output;
    switch (node.kind) {
      case NodeKind::input: *out = inputs[step.input_index].meta(); break;
      case NodeKind::constant: *out = node.value.meta(); break;
      case NodeKind::variable: *out = node.outputs[0]; break;
      case NodeKind::assign: break;
      case NodeKind::op: {
        args.clear();
        for (std::size_t i = 0; i < step.num_inputs; ++i) args.push_back(&plan->metas[input_ids_[step.first_input + i]]);
        std::span<TensorMeta> outs(out, step.num_outputs);
        step.op->infer(args, *step.attrs, outs, node.subgraphs, node.variables);
        for (std::size_t i = 0; i < step.num_outputs; ++i) {
          const TensorMeta& want = *value_meta_[step.first_output + i];
          TL_CHECK(outs[i].dtype == want.dtype && outs[i].shape.is_compatible_with(want.shape) &&
                       outs[i].shape.is_fully_defined(), ShapeError,
                   "executor: ", node_label(node), ": output ", i, " is ", meta_str(outs[i]),
                   " for these inputs, but the graph recorded ", meta_str(want));
        }
        break;
      }
    }
    if (node.kind == NodeKind::variable && !out->shape.is_fully_defined()) return nullptr;
  }
  for (const Tensor& input : inputs) plan->input_shapes.push_back(input.shape());
  plan->value_meta.reserve(plan->metas.size());
  for (const TensorMeta& meta : plan->metas) plan->value_meta.push_back(&meta);
  plan->kernel_states.resize(steps_.size());
  fold_known_values(*plan);
  plan_slots(*plan);
  return plan;
}

/// A plan knows every value's meta, so an op whose outputs depend on metas alone (trait::reads_only_metas:
/// zeros_like and ones_like, which the backward pass seeds gradients with), or on constants and such values (the
/// reduce_sum of a ones_like that counts a mean's elements), gives the same outputs on every call of the plan. It
/// runs once here, as constant folding runs it for a graph whose shapes are all known; a call binds its results.
/// A graph with unknown dims keeps these nodes, and each specialized plan folds them for its shapes. The nodes it
/// may fold are those follows_from_metas names (pure: not stateful, side-effecting, dynamic-output or structured),
/// and not: outputs (or inputs standing in for their metas) over kMaxKnownElements, or an op whose kernel throws
/// (it runs on the call, and fails there as it would).
void Executor::fold_known_values(Plan& plan) const {
  plan.actions.assign(steps_.size(), StepAction::kernel);
  plan.known.assign(plan.value_meta.size(), Tensor());
  std::vector<Tensor> args, results;
  for (std::size_t k = 0; k < steps_.size(); ++k) {
    const Step& step = steps_[k];
    const Node& node = *step.node;
    if (node.kind == NodeKind::constant) plan.known[step.first_output] = node.value;
    if (node.kind != NodeKind::op || !step.follows_from_metas) continue;
    const bool metas_suffice = step.op->has(trait::reads_only_metas);
    auto small = [&](std::size_t value) { return plan.value_meta[value]->shape.num_elements() <= kMaxKnownElements; };
    bool foldable = true;
    args.clear();
    for (std::size_t i = 0; i < step.num_inputs && foldable; ++i) {
      const std::size_t v = input_ids_[step.first_input + i];
      const TensorMeta& meta = *plan.value_meta[v];
      if (plan.known[v].defined()) args.push_back(plan.known[v]);
      else if (metas_suffice && small(v)) args.push_back(Tensor::empty(meta.dtype, meta.shape));
      else foldable = false;
    }
    for (std::size_t i = 0; i < step.num_outputs && foldable; ++i) foldable = small(step.first_output + i);
    if (!foldable) continue;
    results.clear();
    try {
      for (std::size_t i = 0; i < step.num_outputs; ++i) {
        const TensorMeta& meta = *plan.value_meta[step.first_output + i];
        results.push_back(Tensor::empty(meta.dtype, meta.shape));
      }
      step.op->run(args, *step.attrs, results);
    } catch (const std::exception&) {  // left to the call, which reports it as for any kernel
      continue;
    }
    plan.actions[k] = StepAction::known;
    for (std::size_t i = 0; i < step.num_outputs; ++i) plan.known[step.first_output + i] = std::move(results[i]);
  }
}

/// Each value is dropped after its last use (right after its producer when nothing uses it); graph outputs
/// are kept to the end.
void Executor::compute_releases(std::size_t num_values, const std::vector<std::size_t>& value_node) {
  const std::size_t keep = steps_.size();
  std::vector<std::size_t> last_use(value_node);
  for (std::size_t k = 0; k < steps_.size(); ++k)
    for (std::size_t i = 0; i < steps_[k].num_inputs; ++i) {
      std::size_t v = input_ids_[steps_[k].first_input + i];
      last_use[v] = std::max(last_use[v], k);
    }
  for (std::size_t v : output_ids_) last_use[v] = keep;
  std::vector<std::vector<std::size_t>> by_step(steps_.size());
  for (std::size_t v = 0; v < num_values; ++v)
    if (last_use[v] != keep) by_step[last_use[v]].push_back(v);
  for (std::size_t k = 0; k < steps_.size(); ++k) {
    steps_[k].first_release = release_ids_.size();
    steps_[k].num_release = by_step[k].size();
    release_ids_.insert(release_ids_.end(), by_step[k].begin(), by_step[k].end());
    if (steps_[k].node->kind == NodeKind::assign)
      steps_[k].value_dies = last_use[input_ids_[steps_[k].first_input]] == k;
  }
}

/// True for an op step whose output, for the plan's metas, is its input 0's bytes as they are: a view op, or an op
/// with trait::copy_when_same_size whose output has as many elements as input 0 (a reduction over axes of size 1),
/// of one dtype. The call copies them (StepAction::copy) instead of running the kernel.
bool Executor::copies_input(const Step& step, const Plan& plan) const {
  if (step.num_inputs == 0 || step.num_outputs != 1 ||
      !(step.op->has(trait::view) || step.op->has(trait::copy_when_same_size)))
    return false;
  const TensorMeta &in = *plan.value_meta[input_ids_[step.first_input]], &out = *plan.value_meta[step.first_output];
  return in.dtype == out.dtype && in.shape.num_elements() == out.shape.num_elements();
}

/// Greedy slot assignment in schedule order: an output takes a free slot of its dtype and byte size, or a new
/// one; slots of values released after node k become free for the nodes after k (never for k's own outputs,
/// which the kernel writes while it still reads its inputs). The exceptions: a view op (trait::view) whose input
/// has a slot and dies at that node, whose output keeps the input's slot, and no kernel runs (forward_input); and
/// a folded step, whose outputs are the plan's own tensors (`known`). A step that only copies its input's bytes
/// (copies_input) gets a slot as any step does, and the call copies into it without the kernel.
void Executor::plan_slots(Plan& plan) const {
  auto& slot_of_value = plan.slot_of_value;
  auto& slot_metas = plan.slot_metas;
  slot_of_value.assign(plan.value_meta.size(), npos);
  std::vector<std::size_t> free_slots;
  for (std::size_t k = 0; k < steps_.size(); ++k) {
    const Step& step = steps_[k];
    const std::span<const std::size_t> released(release_ids_.data() + step.first_release, step.num_release);
    std::size_t forwarded = npos;  // the input value whose slot the output keeps
    const bool known = plan.actions[k] == StepAction::known;
    if (step.op != nullptr && step.op->has(trait::view) && !known) {
      const std::size_t in = input_ids_[step.first_input], out = step.first_output;
      const TensorMeta &from = *plan.value_meta[in], &to = *plan.value_meta[out];
      if (slot_of_value[in] != npos && std::find(released.begin(), released.end(), in) != released.end() &&
          from.dtype == to.dtype && byte_size(from) == byte_size(to)) {
        forwarded = in;
        slot_of_value[out] = slot_of_value[in];
        plan.actions[k] = StepAction::forward;
      }
    }
    if (step.op != nullptr && !step.dynamic_outputs && forwarded == npos && !known) {
      if (copies_input(step, plan)) plan.actions[k] = StepAction::copy;
      for (std::size_t i = 0; i < step.num_outputs; ++i) {
        const TensorMeta& meta = *plan.value_meta[step.first_output + i];
        auto fits = [&](std::size_t s) {
          return slot_metas[s].dtype == meta.dtype && byte_size(slot_metas[s]) == byte_size(meta);
        };
        auto it = std::find_if(free_slots.begin(), free_slots.end(), fits);
        std::size_t slot = slot_metas.size();
        if (it != free_slots.end()) {
          slot = *it;
          free_slots.erase(it);
        } else {
          slot_metas.push_back(meta);
        }
        slot_of_value[step.first_output + i] = slot;
      }
    }
    for (std::size_t value : released) {
      std::size_t slot = slot_of_value[value];
      if (slot != npos && value != forwarded) free_slots.push_back(slot);
    }
  }
  plan.slots.resize(slot_metas.size());
  plan.slot_meta_of.assign(slot_metas.size(), npos);
  // Numbers for the metas, so that handing a slot to a value compares two numbers instead of two metas.
  std::vector<const TensorMeta*> distinct;
  plan.meta_class.assign(plan.value_meta.size(), npos);
  for (std::size_t v = 0; v < plan.value_meta.size(); ++v) {
    if (slot_of_value[v] == npos) continue;
    const TensorMeta& meta = *plan.value_meta[v];
    auto same = std::find_if(distinct.begin(), distinct.end(), [&](const TensorMeta* m) { return *m == meta; });
    plan.meta_class[v] = static_cast<std::size_t>(same - distinct.begin());
    if (same == distinct.end()) distinct.push_back(&meta);
  }
}

void Executor::check_inputs(std::span<const Tensor> inputs) const {
  if (inputs.size() != input_nodes_.size()) {
    std::string names;
    for (std::size_t i = 0; i < input_nodes_.size(); ++i) {
      const std::string& name = graph_->nodes()[input_nodes_[i]].name;
      names += (i ? ", " : "") + (name.empty() ? tl::detail::cat('%', input_nodes_[i]) : name);
    }
    throw InvalidArgument(
        tl::detail::cat("executor: expected ", input_nodes_.size(), " input(s) (", names, "), got ", inputs.size()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Node& node = graph_->nodes()[input_nodes_[i]];
    const TensorMeta& want = node.outputs[0];
    TL_CHECK(inputs[i].defined(), InvalidArgument, "executor: ", input_label(i, node), ": expected ",
             meta_str(want), ", got an empty Tensor handle");
    const TensorMeta& got = inputs[i].meta();
    TL_CHECK(!inputs[i].is_symbolic(), InvalidArgument, "executor: ", input_label(i, node), ": expected a concrete ",
             meta_str(want), ", got a symbolic tensor ", meta_str(got));
    TL_CHECK(got.dtype == want.dtype, DTypeError, "executor: ", input_label(i, node), ": expected ", meta_str(want),
             ", got ", meta_str(got));
    TL_CHECK(got.shape.rank() == want.shape.rank() && want.shape.is_compatible_with(got.shape), ShapeError,
             "executor: ", input_label(i, node), ": expected ", meta_str(want), ", got ", meta_str(got));
  }
}

}  // namespace tl::graph
