// tl::cond: eagerly, C++ `if`; traced with a symbolic predicate, a `cond` node holding both branches as
// sub-graphs. Its gradient is another cond whose branches replay the forward branch under a tape.
#include <mutex>

#include "function/detail/subgraph.h"
#include "tracelab/function/control_flow.h"
#include "tracelab/registry/op_def.h"

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

struct CondRuntime {
  std::shared_ptr<const graph::Graph> then_graph, else_graph;
  std::unique_ptr<graph::Executor> then_exec, else_exec;
};

std::shared_ptr<const OpDef> make_cond_op(std::shared_ptr<const graph::Graph> then_graph,
                                          std::shared_ptr<const graph::Graph> else_graph) {
  std::vector<TensorMeta> metas = cond_output_metas(*then_graph, *else_graph);
  const std::size_t num_captures = then_graph->inputs().size();
  TL_CHECK(else_graph->inputs().size() == num_captures, InvalidArgument, "cond: the branches take ",
           num_captures, " and ", else_graph->inputs().size(), " inputs");
  bool effects = has_side_effects(*then_graph) || has_side_effects(*else_graph);
  auto runtime = std::make_shared<CondRuntime>();
  runtime->then_graph = then_graph;
  runtime->else_graph = else_graph;
  auto op = std::make_shared<OpDef>("cond");
  op->doc("runs the true or the false sub-graph on the captured inputs, chosen by a bool scalar (tf.cond)")
      .variadic_inputs(1)
      .outputs(static_cast<int>(metas.size()))
      .traits(trait::dynamic_outputs | (effects ? trait::side_effects : 0u))
      .shape_fn([metas, num_captures](ShapeContext& c) {
        TL_CHECK(c.input(0).dtype == DType::bool_ && c.input(0).shape.rank() == 0, InvalidArgument,
                 "cond: the predicate must be a bool scalar, got ", meta_str(c.input(0)));
        TL_CHECK(c.inputs.size() == 1 + num_captures, InvalidArgument, "cond: expected ", 1 + num_captures,
                 " inputs (predicate + captures), got ", c.inputs.size());
        for (std::size_t i = 0; i < metas.size(); ++i) c.output(i) = metas[i];
      })
      .kernel([runtime](KernelContext& c) {
        bool taken = c.input(0).item<bool>();
        auto& exec = taken ? runtime->then_exec : runtime->else_exec;
        if (!exec) exec = std::make_unique<graph::Executor>(taken ? runtime->then_graph : runtime->else_graph);
        std::vector<Tensor> outputs = exec->run(c.inputs.subspan(1));
        for (std::size_t i = 0; i < outputs.size(); ++i) c.outputs[i] = std::move(outputs[i]);
      })
      .gradient([then_graph, else_graph](const GradContext& c, std::span<Tensor> grads) {
        std::vector<Tensor> captures(c.inputs.begin() + 1, c.inputs.end());
        std::vector<Tensor> upstream(c.grads.begin(), c.grads.end());
        std::vector<std::size_t> wrt;
        for (std::size_t i = 0; i < captures.size(); ++i)
          if (captures[i].dtype() == DType::float32) wrt.push_back(i);
        if (wrt.empty()) return;
        auto branch = [&](const std::shared_ptr<const graph::Graph>& g) {
          return BranchFn([&, g] { return replay_gradient(*g, captures, upstream, wrt); });
        };
        std::vector<Tensor> result = cond_impl(c.input(0), branch(then_graph), branch(else_graph));
        for (std::size_t k = 0; k < wrt.size(); ++k) grads[1 + wrt[k]] = result[k];
      });
  return op;
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
  auto op = make_cond_op(then_trace.graph, else_trace.graph);
  std::vector<Tensor> inputs{pred};
  inputs.insert(inputs.end(), else_trace.captures.begin(), else_trace.captures.end());
  auto assigned = then_trace.assigned;
  assigned.insert(assigned.end(), else_trace.assigned.begin(), else_trace.assigned.end());
  return tracer->add_structured(op, inputs, {}, {then_trace.graph, else_trace.graph}, assigned);
}

std::shared_ptr<const OpDef> make_while_op(std::shared_ptr<const graph::Graph> cond_graph,
                                           std::shared_ptr<const graph::Graph> body_graph, std::int64_t num_vars,
                                           std::int64_t maximum_iterations);
std::shared_ptr<const OpDef> make_while_grad_op(std::shared_ptr<const graph::Graph> cond_graph,
                                                std::shared_ptr<const graph::Graph> body_graph, std::int64_t num_vars,
                                                std::int64_t maximum_iterations);

}  // namespace tl::detail

namespace tl {

void register_control_flow_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    graph::register_structured_op("cond", [](const Attrs&, const std::vector<std::shared_ptr<const graph::Graph>>& g) {
      TL_CHECK(g.size() == 2, InvalidArgument, "cond: expected 2 sub-graphs, got ", g.size());
      return detail::make_cond_op(g[0], g[1]);
    });
    auto loop = [](bool grad) {
      return [grad](const Attrs& attrs, const std::vector<std::shared_ptr<const graph::Graph>>& g) {
        TL_CHECK(g.size() == 2, InvalidArgument, "while_loop: expected 2 sub-graphs, got ", g.size());
        auto n = attrs.get<std::int64_t>("num_vars");
        auto max = attrs.get<std::int64_t>("maximum_iterations");
        return grad ? detail::make_while_grad_op(g[0], g[1], n, max) : detail::make_while_op(g[0], g[1], n, max);
      };
    };
    graph::register_structured_op("while_loop", loop(false));
    graph::register_structured_op("while_grad", loop(true));
  });
}

}  // namespace tl
