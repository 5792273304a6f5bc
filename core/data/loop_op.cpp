// dataset_loop: the structured op a traced tl::data::for_each becomes. Its kernel starts a fresh pass of the
// dataset (so every run of the graph restarts it), pulls elements from the pipeline — which runs eagerly,
// map functions included — and runs the body sub-graph once per element with the graph executor, threading
// the loop state through. Traits: side_effects and stateful (it is never pruned, merged, folded or
// reordered), dynamic_outputs (the kernel sets the final state), not_differentiable (a tape around the loop
// sees no gradient through it; see docs/datasets.md).
//
// The node names its dataset by a process-unique id (attribute `dataset`) and holds it alive as its resource; the
// shape rule and the kernel find it again through a weak registry, so a graph reloaded from JSON in the same
// process while its dataset lives runs as before. A Dataset (C++ generators and map functions) cannot be written
// to JSON, so elsewhere loading is an error.
#include <mutex>
#include <unordered_map>

#include "data/detail/dataset_node.h"
#include "tracelab/autodiff/tape.h"
#include "tracelab/eager/execute.h"
#include "tracelab/graph/executor.h"

namespace tl::data::detail {
namespace {

/// Per node: the dataset found by id and the body's executor.
struct LoopState final : KernelState {
  std::shared_ptr<const DatasetNode> dataset;
  std::unique_ptr<graph::Executor> executor;
};

struct DatasetRegistry {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::weak_ptr<const DatasetNode>> datasets;
};

DatasetRegistry& dataset_registry() {
  static DatasetRegistry registry;
  return registry;
}

std::shared_ptr<const DatasetNode> find_dataset(std::int64_t id) {
  DatasetRegistry& registry = dataset_registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto found = registry.datasets.find(static_cast<std::uint64_t>(id));
  return found == registry.datasets.end() ? nullptr : found->second.lock();
}

/// The metas of the body inputs from `first` on (`count` of them, or all the rest when count < 0).
std::vector<TensorMeta> body_input_metas(const graph::Graph& body, std::size_t first, std::int64_t count) {
  std::vector<graph::ValueRef> inputs = body.inputs();
  std::size_t end = count < 0 ? inputs.size() : first + static_cast<std::size_t>(count);
  TL_CHECK(first <= inputs.size() && end <= inputs.size(), InvalidArgument, "dataset_loop: the body has ",
           inputs.size(), " inputs, fewer than the ", end, " needed (element components + loop state)");
  std::vector<TensorMeta> metas;
  for (std::size_t i = first; i < end; ++i) metas.push_back(body.meta(inputs[i]));
  return metas;
}

void check_body(const DatasetNode& dataset, const graph::Graph& body, std::size_t num_components,
                const std::vector<TensorMeta>& state) {
  const std::vector<TensorSpec>& spec = dataset.spec();
  TL_CHECK(spec.size() == num_components, InvalidArgument, "dataset_loop: the dataset has ", spec.size(),
           " component(s) but the node says ", num_components);
  std::vector<TensorMeta> element = body_input_metas(body, 0, static_cast<std::int64_t>(num_components));
  for (std::size_t i = 0; i < num_components; ++i)
    TL_CHECK(spec[i].is_compatible_with(element[i]), InvalidArgument, "dataset_loop: body input ", i, " is ",
             meta_str(element[i]), " but the dataset's component ", i, " is ", spec[i].str());
  const auto& outputs = body.outputs();
  TL_CHECK(outputs.size() == state.size(), InvalidArgument, "dataset_loop: the body returns ", outputs.size(),
           " tensor(s) for ", state.size(), " loop state tensor(s)");
  for (std::size_t i = 0; i < state.size(); ++i)
    TL_CHECK(body.meta(outputs[i]).dtype == state[i].dtype &&
                 body.meta(outputs[i]).shape.is_compatible_with(state[i].shape),
             InvalidArgument, "dataset_loop: state ", i, " enters the body as ", meta_str(state[i]),
             " but the body returns ", meta_str(body.meta(outputs[i])));
}

/// The node's dataset (attribute `dataset`), or an error when it is not alive in this process.
std::shared_ptr<const DatasetNode> dataset_of(const Attrs& attrs) {
  std::int64_t id = attrs.get<std::int64_t>("dataset");
  std::shared_ptr<const DatasetNode> dataset = find_dataset(id);
  TL_CHECK(dataset != nullptr, InvalidArgument, "dataset_loop: dataset #", id,
           " does not exist in this process. A Dataset is a C++ pipeline (generators, map functions) that JSON "
           "cannot hold, so a graph with a dataset_loop loads only while its dataset is alive in the same process");
  return dataset;
}

std::size_t count_attr(const Attrs& attrs, const char* name) {
  std::int64_t value = attrs.get<std::int64_t>(name);
  TL_CHECK(value >= 0, InvalidArgument, "dataset_loop: attribute '", name, "' must be >= 0, got ", value);
  return static_cast<std::size_t>(value);
}

void infer_loop(ShapeContext& c) {
  const graph::Graph& body = *c.subgraphs[0];
  const std::size_t k = count_attr(c.attrs, "num_components");
  const auto n = static_cast<std::int64_t>(count_attr(c.attrs, "num_state"));
  std::vector<TensorMeta> state = body_input_metas(body, k, n);
  std::vector<TensorMeta> inputs = body_input_metas(body, k, -1);  // state + captures: the node's inputs
  check_body(*dataset_of(c.attrs), body, k, state);
  TL_CHECK(c.inputs.size() == inputs.size(), InvalidArgument, "dataset_loop: expected ", inputs.size(),
           " inputs (loop state + captures), got ", c.inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    TL_CHECK(c.input(i).dtype == inputs[i].dtype && c.input(i).shape.is_compatible_with(inputs[i].shape),
             InvalidArgument, "dataset_loop: input ", i, " is ", meta_str(c.input(i)), " but the body takes ",
             meta_str(inputs[i]));
  for (std::size_t i = 0; i < state.size(); ++i) c.output(i) = state[i];
}

void run_loop(KernelContext& c) {
  tl::detail::PauseRecording pause;       // outer tapes do not record the pipeline
  tl::detail::SuspendInterception eager;  // the pipeline runs on concrete tensors
  const std::size_t num_components = count_attr(c.attrs, "num_components");
  const std::size_t num_state = count_attr(c.attrs, "num_state");
  auto& state = c.state<LoopState>();
  if (!state.dataset) state.dataset = dataset_of(c.attrs);
  if (!state.executor) state.executor = std::make_unique<graph::Executor>(c.subgraphs[0], c.specialize_plans);
  std::vector<Tensor> args(num_components);
  args.insert(args.end(), c.inputs.begin(), c.inputs.end());  // loop state, then captures
  SourcePtr source = state.dataset->make_source();            // a fresh pass on every run
  while (std::optional<Element> element = source->next()) {
    TL_CHECK(element->size() == num_components, InvalidArgument, "dataset_loop: an element has ", element->size(),
             " component(s), expected ", num_components);
    for (std::size_t i = 0; i < num_components; ++i) args[i] = std::move((*element)[i]);
    std::vector<Tensor> next = state.executor->run(args);
    for (std::size_t j = 0; j < num_state; ++j) args[num_components + j] = std::move(next[j]);
  }
  for (std::size_t j = 0; j < num_state; ++j) c.outputs[j] = std::move(args[num_components + j]);
}

}  // namespace

void remember_dataset(const std::shared_ptr<const DatasetNode>& dataset) {
  DatasetRegistry& registry = dataset_registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::erase_if(registry.datasets, [](const auto& entry) { return entry.second.expired(); });
  registry.datasets[dataset->id()] = dataset;
}

}  // namespace tl::data::detail

namespace tl::data {

void register_dataset_loop_op() {
  static std::once_flag once;
  std::call_once(once, [] {
    OpRegistry::global()
        .op("dataset_loop")
        .doc("runs the body sub-graph on every element of a fresh pass over a dataset, carrying loop state "
             "(a for loop over a tf.data.Dataset inside tf.function)")
        .variadic_inputs(0)
        .subgraphs(1)
        .outputs([](const Attrs& attrs, Subgraphs) { return detail::count_attr(attrs, "num_state"); })
        .traits(trait::dynamic_outputs | trait::stateful | trait::side_effects | trait::not_differentiable |
                trait::subgraphs_as_is)
        .attr<std::int64_t>("dataset", true)
        .attr<std::int64_t>("num_components", true)
        .attr<std::int64_t>("num_state", true)
        .shape_fn(detail::infer_loop)
        .kernel(detail::run_loop);
  });
}

}  // namespace tl::data
