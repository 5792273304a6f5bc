// The tracer: ops become nodes, outer values become captures, variables are captured by handle.
#include "function/detail/tracer.h"

#include <algorithm>
#include <atomic>

#include "tracelab/autodiff/tape.h"
#include "tracelab/autodiff/variable.h"
#include "tracelab/registry/registry.h"

namespace tl::detail {
namespace {

std::uint64_t next_tracer_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

/// The live tracers of this thread, outermost first (symbolic tensors find their tracer here by id).
std::vector<Tracer*>& tracer_stack() {
  thread_local std::vector<Tracer*> stack;
  return stack;
}

const Symbol& symbol_of(const Tensor& tensor) { return *tensor.impl().symbol; }

/// While alive, the parent's interceptor and observers are active again (to let it record on our behalf).
class AsParent {
 public:
  AsParent(OpInterceptor* parent, std::vector<OpObserver*>& parent_observers)
      : saved_interceptor_(std::exchange(active_interceptor(), parent)),
        saved_observers_(std::exchange(active_observers(), parent_observers)),
        parent_observers_(parent_observers) {}
  ~AsParent() {
    parent_observers_ = std::exchange(active_observers(), std::move(saved_observers_));
    active_interceptor() = saved_interceptor_;
  }
  AsParent(const AsParent&) = delete;
  AsParent& operator=(const AsParent&) = delete;

 private:
  OpInterceptor* saved_interceptor_;
  std::vector<OpObserver*> saved_observers_;
  std::vector<OpObserver*>& parent_observers_;
};

}  // namespace

Tracer::Tracer(std::string function_name, bool allow_variables)
    : id_(next_tracer_id()),
      parent_(nullptr),
      name_(std::move(function_name)),
      allow_variables_(allow_variables),
      saved_interceptor_(std::exchange(active_interceptor(), this)),
      saved_observers_(std::exchange(active_observers(), {})) {  // outer tapes must not see symbolic ops
  tracer_stack().push_back(this);
}

Tracer::Tracer(Tracer& parent, std::string what)
    : id_(next_tracer_id()),
      parent_(&parent),
      name_(std::move(what)),
      allow_variables_(false),
      saved_interceptor_(std::exchange(active_interceptor(), this)),
      saved_observers_(std::exchange(active_observers(), {})) {  // the parent records the structured node
  TL_CHECK(saved_interceptor_ == &parent, InvalidArgument, name_, ": a nested trace must start inside its parent");
  tracer_stack().push_back(this);
}

Tracer::~Tracer() {
  auto& stack = tracer_stack();
  stack.erase(std::remove(stack.begin(), stack.end(), this), stack.end());
  active_observers() = std::move(saved_observers_);
  active_interceptor() = saved_interceptor_;
}

Tracer* Tracer::current() noexcept {
  auto& stack = tracer_stack();
  return !stack.empty() && active_interceptor() == stack.back() ? stack.back() : nullptr;
}

Tensor Tracer::symbolic(graph::ValueRef value) {
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = graph_.meta(value);
  impl->symbol = std::make_shared<Symbol>(Symbol{id_, value});
  return Tensor(std::move(impl));
}

bool Tracer::owns(const Tensor& tensor) const {
  return tensor.is_symbolic() && symbol_of(tensor).tracer_id == id_;
}

Tensor Tracer::add_input(const TensorMeta& meta, const std::string& name) {
  return symbolic(graph_.add_input(meta, name));
}

void Tracer::seed_captures(const std::vector<Tensor>& outer) {
  for (const Tensor& tensor : outer) ref(tensor);
}

Tensor Tracer::outer_value(const Tensor& tensor) {
  TL_CHECK(parent_ != nullptr, InvalidArgument, name_, ": a symbolic tensor ", meta_str(tensor.meta()),
           " from another trace was used (it leaked out of the tl::function that made it, e.g. through a "
           "variable captured by reference while tracing); return tensors from the function instead");
  if (parent_->owns(tensor)) return tensor;
  return parent_->symbolic(parent_->ref(tensor));  // a grandparent's value: the parent captures it first
}

graph::ValueRef Tracer::ref(const Tensor& tensor) {
  TL_CHECK(tensor.defined(), InvalidArgument, name_, ": an empty Tensor handle was used");
  if (owns(tensor)) return symbol_of(tensor).value;
  auto found = known_.find(tensor.impl_ptr().get());
  if (found != known_.end()) return found->second;
  graph::ValueRef value;
  if (tensor.is_symbolic()) {
    Tensor outer = outer_value(tensor);
    value = graph_.add_input(tensor.meta(), "capture");
    captures_.push_back(outer);
  } else {
    value = graph_.add_constant(tensor);
  }
  known_.emplace(tensor.impl_ptr().get(), value);
  keep_alive_.push_back(tensor);
  return value;
}

std::vector<graph::ValueRef> Tracer::refs(std::span<const Tensor> tensors) {
  std::vector<graph::ValueRef> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(ref(t));
  return out;
}

void Tracer::set_outputs(const std::vector<Tensor>& outputs) { graph_.set_outputs(refs(outputs)); }

graph::Graph Tracer::take_graph() { return std::move(graph_); }

void Tracer::execute(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs,
                     Subgraphs subgraphs, VariableHandles variables) {
  TL_CHECK(OpRegistry::global().find(op.name()) == &op, InvalidArgument, op.name(),
           ": only ops of the registry can be traced (this OpDef is not OpRegistry::global()'s '", op.name(), "')");
  std::vector<graph::ValueRef> values = graph_.add_op(op, refs(inputs), attrs, {subgraphs.begin(), subgraphs.end()},
                                                      {variables.begin(), variables.end()});
  for (std::size_t i = 0; i < outputs.size(); ++i) outputs[i] = symbolic(values[i]);
  for (const auto& variable : variables) {  // updated in place by the node
    changed_by_node(variable);
    if (parent_ != nullptr && std::find(local_variables_.begin(), local_variables_.end(), variable) == local_variables_.end())
      local_variables_.push_back(variable);  // a later read in this sub-graph reads it, not the parent's value
  }
}

void Tracer::changed_by_node(const std::shared_ptr<VariableState>& variable) {
  variables_.erase(variable.get());  // a later read reads it again
  if (parent_ != nullptr && std::find(assigned_.begin(), assigned_.end(), variable) == assigned_.end())
    assigned_.push_back(variable);
}

std::vector<Tensor> Tracer::add_structured(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs,
                                           std::vector<std::shared_ptr<const graph::Graph>> subgraphs,
                                           const std::vector<std::shared_ptr<VariableState>>& assigned,
                                           std::shared_ptr<const void> resource) {
  TL_CHECK(active_interceptor() == this, InvalidArgument, op.name(), ": added to a trace that is not the active one");
  std::vector<Tensor> outputs = call_structured(op, inputs, attrs, subgraphs);
  graph_.mutable_node(graph_.num_nodes() - 1).resource = std::move(resource);
  for (const auto& variable : assigned) changed_by_node(variable);  // later reads see the value after the node
  return outputs;
}

Tensor Tracer::read_variable(const std::shared_ptr<VariableState>& variable) {
  auto found = variables_.find(variable.get());
  if (found != variables_.end()) return found->second;
  Tensor value;
  bool local = std::find(local_variables_.begin(), local_variables_.end(), variable) != local_variables_.end();
  if (parent_ == nullptr || local) {
    value = symbolic(graph_.add_variable(variable));
  } else {
    Tensor outer;
    {
      AsParent as_parent(parent_, saved_observers_);  // the parent reads; its tapes watch that read
      outer = parent_->read_variable(variable);
      notify_variable_read(Variable::from_state(variable), outer);
    }
    value = symbolic(ref(outer));
  }
  variables_[variable.get()] = value;
  return value;
}

void Tracer::assign_variable(const std::shared_ptr<VariableState>& variable, const Tensor& value) {
  graph::ValueRef ref_value = ref(value);
  graph_.add_assign(variable, ref_value);
  variables_[variable.get()] = symbolic(ref_value);
  if (parent_ != nullptr && std::find(assigned_.begin(), assigned_.end(), variable) == assigned_.end())
    assigned_.push_back(variable);
}

void Tracer::on_variable_created(const VariableState& variable) {
  if (parent_ != nullptr) {
    AsParent as_parent(parent_, saved_observers_);
    return parent_->on_variable_created(variable);
  }
  TL_CHECK(allow_variables_, InvalidArgument, name_, ": a Variable ('", variable.name,
           "') was created on a trace where variable creation is not allowed. Like TensorFlow (\"tf.function only "
           "supports singleton tf.Variables created on the first call\"), tl::function lets only the first call's "
           "trace create variables, and then traces that call again with creation forbidden to check that the "
           "body creates them once: create the variable outside the function, or only once (if (!v) v = "
           "Variable(...), a layer that builds on its first call) and reuse it");
  ++variables_created_;
}

std::vector<Tensor> call_structured(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs,
                                    Subgraphs subgraphs) {
  std::vector<Tensor> outputs(op.num_outputs(attrs, subgraphs));
  tl::execute(op, inputs, attrs, outputs, subgraphs);
  return outputs;
}

}  // namespace tl::detail
