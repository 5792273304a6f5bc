// tl::data::for_each: eagerly a loop over a fresh pass; inside a tl::function the body is traced once into a
// sub-graph (element components with the element_spec's -1 dims, then the loop state, then captures) and one
// dataset_loop node runs the whole loop each time the graph runs (loop_op.cpp).
//
// Variables the body assigns: a nested trace reads a variable through its parent, so the body graph would get
// the value from before the loop as a capture and every element would see that stale value. For each variable
// the body assigns, the capture of its pre-loop value is turned into a `variable` node of the body graph, which
// reads the current value each time the body runs — so step k sees the updates of steps 0..k-1, as eagerly.
#include "data/detail/dataset_node.h"
#include "function/detail/subgraph.h"
#include "tracelab/autodiff/variable.h"
#include "tracelab/graph/passes.h"

namespace tl::data {
namespace {

void check_infinite(const Dataset& dataset) {
  TL_CHECK(dataset.cardinality() != infinite_cardinality, InvalidArgument, "for_each: ", dataset.str(),
           " is infinite (cardinality -1) and for_each has no break; bound it with take(n)");
}

void check_step(const std::vector<Tensor>& before, const std::vector<Tensor>& after) {
  TL_CHECK(after.size() == before.size(), InvalidArgument, "for_each: the body returned ", after.size(),
           " tensor(s) for ", before.size(), " state tensor(s)");
  for (std::size_t i = 0; i < after.size(); ++i)
    TL_CHECK(after[i].defined() && after[i].dtype() == before[i].dtype(), DTypeError, "for_each: state ", i,
             " enters as ", meta_str(before[i].meta()), " but the body returns ",
             after[i].defined() ? meta_str(after[i].meta()) : std::string("an empty handle"));
}

std::vector<Tensor> eager_loop(const Dataset& dataset, std::vector<Tensor> state, const ReduceFn& body) {
  Iterator iterator = dataset.make_iterator();
  while (std::optional<Element> element = iterator.get_next()) {
    std::vector<Tensor> next = body(state, *element);
    check_step(state, next);
    state = std::move(next);
  }
  return state;
}

/// The state metas merged with what the body returns (dims that change become -1).
std::vector<TensorMeta> relaxed_state(const std::vector<TensorMeta>& state, const graph::Graph& body) {
  const auto& outputs = body.outputs();
  TL_CHECK(outputs.size() == state.size(), InvalidArgument, "for_each: the body returned ", outputs.size(),
           " tensor(s) for ", state.size(), " state tensor(s)");
  std::vector<TensorMeta> relaxed;
  for (std::size_t i = 0; i < state.size(); ++i)
    relaxed.push_back(tl::detail::merge_metas(state[i], body.meta(outputs[i]), false,
                                              "for_each: state " + std::to_string(i) + " (entry vs body result)"));
  return relaxed;
}

/// The variable among `assigned` whose pre-loop read (in the enclosing trace) is `capture`, or nullptr.
std::shared_ptr<tl::detail::VariableState> read_of(
    const Tensor& capture, const std::vector<std::shared_ptr<tl::detail::VariableState>>& assigned) {
  for (const auto& variable : assigned) {
    if (!capture.is_symbolic() || !(capture.meta() == variable->value.meta())) continue;
    if (Variable::from_state(variable).value().impl_ptr() == capture.impl_ptr()) return variable;
  }
  return nullptr;
}

/// Turns the captured pre-loop reads of variables the body assigns into variable nodes of the body graph.
void read_assigned_variables_per_element(tl::detail::SubTrace& trace) {
  if (trace.assigned.empty()) return;
  std::vector<graph::ValueRef> inputs = trace.graph->inputs();
  const std::size_t first_capture = inputs.size() - trace.captures.size();
  std::vector<Tensor> kept;
  for (std::size_t j = 0; j < trace.captures.size(); ++j) {
    auto variable = read_of(trace.captures[j], trace.assigned);
    if (variable == nullptr) {
      kept.push_back(trace.captures[j]);
      continue;
    }
    graph::Node& node = trace.graph->mutable_node(inputs[first_capture + j].node);
    node.kind = graph::NodeKind::variable;
    node.name = variable->name;
    node.variable = variable;
  }
  trace.captures = std::move(kept);
  trace.graph->verify();
}

std::vector<Tensor> traced_loop(tl::detail::Tracer& tracer, const Dataset& dataset, const std::vector<Tensor>& state,
                                const ReduceFn& body) {
  register_dataset_loop_op();
  const std::size_t k = dataset.element_spec().size();
  std::vector<TensorMeta> element = detail::metas_of(dataset.element_spec());
  std::vector<TensorMeta> state_metas;
  for (const Tensor& s : state) state_metas.push_back(s.meta());
  tl::detail::SubTrace trace;
  for (int attempt = 0;; ++attempt) {  // a body that changes a state dim makes it unknown; then trace once more
    std::vector<TensorMeta> metas = element;
    metas.insert(metas.end(), state_metas.begin(), state_metas.end());
    trace = tl::detail::trace_subgraph(tracer, "for_each body", metas, {}, [&](const std::vector<Tensor>& in) {
      Element e(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(k));
      return body(std::vector<Tensor>(in.begin() + static_cast<std::ptrdiff_t>(k), in.end()), e);
    });
    std::vector<TensorMeta> relaxed = relaxed_state(state_metas, *trace.graph);
    if (relaxed == state_metas || attempt == 1) break;
    state_metas = std::move(relaxed);
  }
  read_assigned_variables_per_element(trace);
  detail::remember_dataset(dataset.node());
  // The body runs once per element: optimize it now with the default passes (sub-graphs of cond / while_loop
  // are not optimized by the function's optimizer; this one is, because it is the hot loop).
  auto optimized = std::make_shared<const graph::Graph>(graph::optimize(*trace.graph));
  std::vector<Tensor> inputs = state;
  inputs.insert(inputs.end(), trace.captures.begin(), trace.captures.end());
  Attrs attrs{{"dataset", static_cast<std::int64_t>(dataset.node()->id())},
              {"num_components", static_cast<std::int64_t>(k)},
              {"num_state", static_cast<std::int64_t>(state.size())}};
  // The dataset_loop node: inputs are the loop state then the body's captures; the body takes the element
  // components, the state and the captures and returns the next state. The node keeps its dataset alive.
  return tracer.add_structured(OpRegistry::global().get("dataset_loop"), inputs, attrs, {optimized}, trace.assigned,
                               dataset.node());
}

}  // namespace

void for_each(const Dataset& dataset, const LoopBodyFn& body) {
  TL_CHECK(static_cast<bool>(body), InvalidArgument, "for_each: the body is empty");
  for_each(dataset, {}, [&body](const std::vector<Tensor>&, const Element& element) {
    body(element);
    return std::vector<Tensor>{};
  });
}

std::vector<Tensor> for_each(const Dataset& dataset, std::vector<Tensor> initial_state, const ReduceFn& body) {
  TL_CHECK(static_cast<bool>(body), InvalidArgument, "for_each: the body is empty");
  for (std::size_t i = 0; i < initial_state.size(); ++i)
    TL_CHECK(initial_state[i].defined(), InvalidArgument, "for_each: state ", i, " is an empty Tensor handle");
  check_infinite(dataset);
  tl::detail::Tracer* tracer = tl::detail::Tracer::current();
  if (tracer == nullptr) return eager_loop(dataset, std::move(initial_state), body);
  return traced_loop(*tracer, dataset, initial_state, body);
}

}  // namespace tl::data
