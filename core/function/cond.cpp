// tl::cond: eagerly, C++ `if`; traced with a symbolic predicate, a `cond` node holding both branches as
// sub-graphs. Its gradient is another cond whose branches replay the forward branch under a tape.
#include <mutex>

#include "function/detail/subgraph.h"
#include "tracelab/function/control_flow.h"
#include "tracelab/registry/registry.h"

namespace tl::detail {
namespace {

void check_pred(const Tensor& pred, const char* op) {
  TL_CHECK(pred.defined(), InvalidArgument, op, ": the predicate is an empty Tensor handle");
  TL_CHECK(pred.dtype() == DType::bool_ && pred.rank() == 0, InvalidArgument, op,
           ": the predicate must be a bool scalar, got ", meta_str(pred.meta()),
           " (compare with tl::greater / tl::less / tl::equal, reduce to a scalar first)");
}

/// The outputs' metas, merged over both branches (their known dims must agree).
std::vector<TensorMeta> cond_output_metas(const graph::Graph& then_graph, const graph::Graph& else_graph) {
  const auto& a = then_graph.outputs();
  const auto& b = else_graph.outputs();
  TL_CHECK(a.size() == b.size(), InvalidArgument, "cond: the true branch returns ", a.size(),
           " tensor(s), the false branch ", b.size(), "; both branches must return the same structure");
  std::vector<TensorMeta> metas;
  for (std::size_t i = 0; i < a.size(); ++i)
    metas.push_back(merge_metas(then_graph.meta(a[i]), else_graph.meta(b[i]), true,
                                "cond: output " + std::to_string(i) + " of the true and false branch"));
  return metas;
}

/// Per node: an executor for each branch, made when the branch first runs.
struct CondState final : KernelState {
  std::unique_ptr<graph::Executor> then_exec, else_exec;
};

void infer_cond(ShapeContext& c) {
  const graph::Graph& then_graph = *c.subgraphs[0];
  const graph::Graph& else_graph = *c.subgraphs[1];
  TL_CHECK(c.input(0).dtype == DType::bool_ && c.input(0).shape.rank() == 0, InvalidArgument,
           "cond: the predicate must be a bool scalar, got ", meta_str(c.input(0)));
  const auto branch_inputs = then_graph.inputs();
  TL_CHECK(else_graph.inputs().size() == branch_inputs.size(), InvalidArgument, "cond: the branches take ",
           branch_inputs.size(), " and ", else_graph.inputs().size(), " inputs");
  TL_CHECK(c.inputs.size() == 1 + branch_inputs.size(), InvalidArgument, "cond: expected ", 1 + branch_inputs.size(),
           " inputs (predicate + captures), got ", c.inputs.size());
  for (std::size_t i = 0; i < branch_inputs.size(); ++i) {
    const TensorMeta& want = then_graph.meta(branch_inputs[i]);
    TL_CHECK(c.input(1 + i).dtype == want.dtype && c.input(1 + i).shape.is_compatible_with(want.shape),
             InvalidArgument, "cond: input ", 1 + i, " is ", meta_str(c.input(1 + i)), " but the branches take ",
             meta_str(want));
  }
  std::vector<TensorMeta> metas = cond_output_metas(then_graph, else_graph);
  for (std::size_t i = 0; i < metas.size(); ++i) c.output(i) = metas[i];
}

void run_cond(KernelContext& c) {
  bool taken = c.input(0).item<bool>();
  auto& state = c.state<CondState>();
  auto& exec = taken ? state.then_exec : state.else_exec;
  if (!exec) exec = std::make_unique<graph::Executor>(c.subgraphs[taken ? 0 : 1], c.specialize_plans);
  std::vector<Tensor> outputs = exec->run(c.inputs.subspan(1).to_vector());
  for (std::size_t i = 0; i < outputs.size(); ++i) c.outputs[i] = std::move(outputs[i]);
}

/// Another cond, whose branches replay the forward branch under a tape.
void cond_gradient(const GradContext& c, std::span<Tensor> grads) {
  std::vector<Tensor> captures(c.inputs.begin() + 1, c.inputs.end());
  std::vector<Tensor> upstream(c.grads.begin(), c.grads.end());
  std::vector<std::size_t> wrt;
  for (std::size_t i = 0; i < captures.size(); ++i)
    if (captures[i].dtype() == DType::float32) wrt.push_back(i);
  if (wrt.empty()) return;
  auto branch = [&](const std::shared_ptr<const graph::Graph>& g) {
    return BranchFn([&, g] { return replay_gradient(*g, captures, upstream, wrt); });
  };
  std::vector<Tensor> result = cond_impl(c.input(0), branch(c.subgraphs[0]), branch(c.subgraphs[1]));
  for (std::size_t k = 0; k < wrt.size(); ++k) grads[1 + wrt[k]] = result[k];
}

}  // namespace

std::vector<Tensor> cond_impl(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn) {
  check_pred(pred, "cond");
  Tracer* tracer = Tracer::current();
  if (tracer == nullptr || !pred.is_symbolic()) return pred.item<bool>() ? true_fn() : false_fn();
  register_control_flow_ops();
  auto as_body = [](const BranchFn& fn) {
    return [&fn](const std::vector<Tensor>&) { return fn(); };
  };
  SubTrace then_trace = trace_subgraph(*tracer, "cond true branch", {}, {}, as_body(true_fn));
  SubTrace else_trace = trace_subgraph(*tracer, "cond false branch", {}, then_trace.captures, as_body(false_fn));
  append_captures(then_trace, else_trace);
  std::vector<Tensor> inputs{pred};
  inputs.insert(inputs.end(), else_trace.captures.begin(), else_trace.captures.end());
  auto assigned = then_trace.assigned;
  assigned.insert(assigned.end(), else_trace.assigned.begin(), else_trace.assigned.end());
  return tracer->add_structured(OpRegistry::global().get("cond"), inputs, {}, {then_trace.graph, else_trace.graph},
                                assigned);
}

}  // namespace tl::detail

namespace tl {

void register_control_flow_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    OpRegistry& registry = OpRegistry::global();
    registry.op("cond")
        .doc("runs the true or the false sub-graph on the captured inputs, chosen by a bool scalar (tf.cond)")
        .variadic_inputs(1)
        .subgraphs(2)
        .outputs([](const Attrs&, Subgraphs g) { return g[0]->outputs().size(); })
        .traits(trait::dynamic_outputs)
        .shape_fn(detail::infer_cond)
        .kernel(detail::run_cond)
        .gradient(detail::cond_gradient);
    detail::register_while_ops(registry);
  });
}

}  // namespace tl
