// tl::while_loop: eagerly, a C++ loop; traced, a `while_loop` node with the cond and body as sub-graphs.
// Its gradient is a `while_grad` node that re-runs the loop under a tape when the graph runs (so any trip
// count works; the forward loop runs twice, and there is no second-order gradient through it).
#include <algorithm>

#include "function/detail/subgraph.h"
#include "tracelab/autodiff/tape.h"
#include "tracelab/function/control_flow.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"
#include "tracelab/ops/reduce.h"
#include "tracelab/registry/registry.h"

namespace tl::detail {

namespace {

bool loop_condition(const Tensor& value) {
  TL_CHECK(value.defined() && value.dtype() == DType::bool_ && value.rank() == 0, InvalidArgument,
           "while_loop: cond must return a bool scalar, got ",
           value.defined() ? meta_str(value.meta()) : std::string("an empty handle"));
  return value.item<bool>();
}

void check_body_result(const std::vector<Tensor>& before, const std::vector<Tensor>& after) {
  TL_CHECK(after.size() == before.size(), InvalidArgument, "while_loop: the body returned ", after.size(),
           " tensor(s) for ", before.size(), " loop variable(s)");
  for (std::size_t i = 0; i < after.size(); ++i)
    TL_CHECK(after[i].defined() && after[i].dtype() == before[i].dtype(), DTypeError, "while_loop: loop variable ",
             i, " enters as ", meta_str(before[i].meta()), " but the body returns ",
             after[i].defined() ? meta_str(after[i].meta()) : std::string("an empty handle"));
}

std::vector<Tensor> eager_loop(const LoopCondFn& cond, const LoopBodyFn& body, std::vector<Tensor> vars,
                               std::int64_t maximum_iterations) {
  for (std::int64_t i = 0; maximum_iterations < 0 || i < maximum_iterations; ++i) {
    if (!loop_condition(cond(vars))) break;
    std::vector<Tensor> next = body(vars);
    check_body_result(vars, next);
    vars = std::move(next);
  }
  return vars;
}

/// Per node: executors for the cond and the body.
struct LoopState final : KernelState {
  std::unique_ptr<graph::Executor> cond_exec, body_exec;
};

std::int64_t num_vars_of(const Attrs& attrs) {
  std::int64_t n = attrs.get<std::int64_t>("num_vars");
  TL_CHECK(n >= 0, InvalidArgument, "while_loop: num_vars must be >= 0, got ", n);
  return n;
}

/// The metas of the loop variables: the body graph's first inputs.
std::vector<TensorMeta> loop_metas(const graph::Graph& body, std::int64_t num_vars) {
  std::vector<TensorMeta> metas;
  auto inputs = body.inputs();
  TL_CHECK(num_vars >= 0 && static_cast<std::size_t>(num_vars) <= inputs.size(), InvalidArgument,
           "while_loop: ", num_vars, " loop variables but the body has ", inputs.size(), " inputs");
  for (std::int64_t i = 0; i < num_vars; ++i) metas.push_back(body.meta(inputs[static_cast<std::size_t>(i)]));
  return metas;
}

std::vector<Tensor> subgraph_loop(const graph::Graph& cond, const graph::Graph& body, std::vector<Tensor> vars,
                                  const std::vector<Tensor>& captures, std::int64_t maximum_iterations) {
  auto with_captures = [&](const std::vector<Tensor>& v) {
    std::vector<Tensor> args = v;
    args.insert(args.end(), captures.begin(), captures.end());
    return args;
  };
  return eager_loop([&](const std::vector<Tensor>& v) { return replay(cond, with_captures(v)).at(0); },
                    [&](const std::vector<Tensor>& v) { return replay(body, with_captures(v)); }, std::move(vars),
                    maximum_iterations);
}

void infer_while(ShapeContext& c) {
  const graph::Graph& cond = *c.subgraphs[0];
  const graph::Graph& body = *c.subgraphs[1];
  std::vector<TensorMeta> metas = loop_metas(body, num_vars_of(c.attrs));
  const auto body_inputs = body.inputs();
  TL_CHECK(cond.inputs().size() == body_inputs.size(), InvalidArgument, "while_loop: the cond takes ",
           cond.inputs().size(), " inputs and the body ", body_inputs.size());
  TL_CHECK(c.inputs.size() == body_inputs.size(), InvalidArgument, "while_loop: expected ", body_inputs.size(),
           " inputs (loop variables + captures), got ", c.inputs.size());
  for (std::size_t i = 0; i < body_inputs.size(); ++i) {
    const TensorMeta& want = body.meta(body_inputs[i]);
    TL_CHECK(c.input(i).dtype == want.dtype && c.input(i).shape.is_compatible_with(want.shape), InvalidArgument,
             "while_loop: input ", i, " is ", meta_str(c.input(i)), " but the body takes ", meta_str(want));
  }
  for (std::size_t i = 0; i < metas.size(); ++i) c.output(i) = metas[i];
}

void run_while(KernelContext& c) {
  auto n = static_cast<std::size_t>(num_vars_of(c.attrs));
  const std::int64_t maximum_iterations = c.attrs.get<std::int64_t>("maximum_iterations");
  auto& state = c.state<LoopState>();
  if (!state.cond_exec) state.cond_exec = std::make_unique<graph::Executor>(c.subgraphs[0], c.specialize_plans);
  if (!state.body_exec) state.body_exec = std::make_unique<graph::Executor>(c.subgraphs[1], c.specialize_plans);
  std::vector<Tensor> args = c.inputs.to_vector();
  for (std::int64_t i = 0; maximum_iterations < 0 || i < maximum_iterations; ++i) {
    if (!loop_condition(state.cond_exec->run(args).at(0))) break;
    std::vector<Tensor> next = state.body_exec->run(args);
    for (std::size_t k = 0; k < n; ++k) args[k] = std::move(next[k]);
  }
  for (std::size_t k = 0; k < n; ++k) c.outputs[k] = args[k];
}

/// A while_grad node on the forward inputs and the upstream gradients.
void while_gradient(const GradContext& c, std::span<Tensor> grads) {
  std::vector<Tensor> inputs(c.inputs.begin(), c.inputs.end());
  inputs.insert(inputs.end(), c.grads.begin(), c.grads.end());
  std::vector<Tensor> result = call_structured(OpRegistry::global().get("while_grad"), inputs, c.attrs, c.subgraphs);
  for (std::size_t i = 0; i < c.inputs.size(); ++i)
    if (c.inputs[i].dtype() == DType::float32) grads[i] = result[i];
}

void infer_while_grad(ShapeContext& c) {
  const graph::Graph& body = *c.subgraphs[1];
  const auto body_inputs = body.inputs();
  const auto n = static_cast<std::size_t>(num_vars_of(c.attrs));
  TL_CHECK(n <= body_inputs.size(), InvalidArgument, "while_grad: ", n, " loop variables but the body has ",
           body_inputs.size(), " inputs");
  TL_CHECK(c.inputs.size() == body_inputs.size() + n, InvalidArgument, "while_grad: expected ",
           body_inputs.size() + n, " inputs, got ", c.inputs.size());
  for (std::size_t i = 0; i < body_inputs.size(); ++i) c.output(i) = body.meta(body_inputs[i]);
}

/// Re-runs the loop under a tape on the forward inputs; d(sum <final vars, upstream>)/d(inputs).
void run_while_grad(KernelContext& c) {
  PauseRecording pause;  // outer tapes must not record the inner loop
  auto n = static_cast<std::size_t>(num_vars_of(c.attrs));
  const std::int64_t maximum_iterations = c.attrs.get<std::int64_t>("maximum_iterations");
  const std::size_t count = c.outputs.size();
  std::vector<Tensor> forward = c.inputs.subspan(0, count).to_vector();
  std::vector<Tensor> upstream = c.inputs.subspan(count).to_vector();
  // One source per input even when the graph passes one tensor twice (a loop variable that starts as a
  // captured tensor): the tape tells sources apart by identity, so without a copy each would get both sums.
  for (Tensor& t : forward)
    if (t.dtype() == DType::float32) t = identity(t);
  std::vector<std::size_t> wrt;
  GradientTape tape(false, false);
  for (std::size_t i = 0; i < forward.size(); ++i)
    if (forward[i].dtype() == DType::float32) {
      tape.watch(forward[i]);
      wrt.push_back(i);
    }
  std::vector<Tensor> vars(forward.begin(), forward.begin() + static_cast<std::ptrdiff_t>(n));
  std::vector<Tensor> captures(forward.begin() + static_cast<std::ptrdiff_t>(n), forward.end());
  std::vector<Tensor> out = subgraph_loop(*c.subgraphs[0], *c.subgraphs[1], vars, captures, maximum_iterations);
  Tensor target;
  for (std::size_t i = 0; i < n; ++i) {
    if (out[i].dtype() != DType::float32) continue;
    Tensor term = reduce_sum(mul(out[i], upstream[i]));
    target = target.defined() ? add(target, term) : term;
  }
  tape.stop_recording();
  std::vector<Tensor> sources;
  for (std::size_t i : wrt) sources.push_back(forward[i]);
  std::vector<Tensor> grads = target.defined() ? tape.gradient(target, sources, UnconnectedGradients::zero)
                                               : std::vector<Tensor>{};
  for (std::size_t i = 0; i < forward.size(); ++i) c.outputs[i] = zeros_like(forward[i]);
  for (std::size_t k = 0; k < grads.size(); ++k) c.outputs[wrt[k]] = grads[k];
}

}  // namespace

void register_while_ops(OpRegistry& registry) {
  registry.op("while_loop")
      .doc("repeats the body sub-graph on the loop variables while the cond sub-graph is true (tf.while_loop)")
      .variadic_inputs(0)
      .subgraphs(2)
      .outputs([](const Attrs& attrs, Subgraphs) { return static_cast<std::size_t>(num_vars_of(attrs)); })
      .traits(trait::dynamic_outputs)
      .attr<std::int64_t>("num_vars", true)
      .attr<std::int64_t>("maximum_iterations", true)
      .shape_fn(infer_while)
      .kernel(run_while)
      .gradient(while_gradient);
  registry.op("while_grad")
      .doc("gradient of a while_loop: re-runs the loop under a tape on the forward inputs and the upstream grads")
      .variadic_inputs(0)
      .subgraphs(2)
      .outputs([](const Attrs&, Subgraphs g) { return g[1]->inputs().size(); })
      // Its body runs op by op under a tape, where the traced ops cost less than the fused ones (a
      // fused_elementwise gradient replays its members before applying their rules): the optimizer keeps the body
      // as traced.
      .traits(trait::dynamic_outputs | trait::not_differentiable | trait::subgraphs_as_is)
      .attr<std::int64_t>("num_vars", true)
      .attr<std::int64_t>("maximum_iterations", true)
      .shape_fn(infer_while_grad)
      .kernel(run_while_grad);
}

std::vector<Tensor> while_loop_impl(const LoopCondFn& cond, const LoopBodyFn& body, std::vector<Tensor> loop_vars,
                                    std::int64_t maximum_iterations) {
  for (std::size_t i = 0; i < loop_vars.size(); ++i)
    TL_CHECK(loop_vars[i].defined(), InvalidArgument, "while_loop: loop variable ", i, " is an empty Tensor handle");
  Tracer* tracer = Tracer::current();
  if (tracer == nullptr) return eager_loop(cond, body, std::move(loop_vars), maximum_iterations);
  register_control_flow_ops();
  std::vector<TensorMeta> metas;
  for (const Tensor& v : loop_vars) metas.push_back(v.meta());
  SubTrace cond_trace, body_trace;
  std::vector<std::shared_ptr<VariableState>> local;  // variables the loop assigns: read afresh each iteration
  for (int attempt = 0;; ++attempt) {  // a changed dim becomes unknown, an assigned variable local; retrace
    cond_trace = trace_subgraph(*tracer, "while_loop cond", metas, {}, [&](const std::vector<Tensor>& v) {
      return std::vector<Tensor>{cond(v)};
    }, local);
    body_trace = trace_subgraph(*tracer, "while_loop body", metas, cond_trace.captures, body, local);
    const auto& outs = body_trace.graph->outputs();
    TL_CHECK(outs.size() == metas.size(), InvalidArgument, "while_loop: the body returned ", outs.size(),
             " tensor(s) for ", metas.size(), " loop variable(s)");
    std::vector<TensorMeta> relaxed;
    for (std::size_t i = 0; i < metas.size(); ++i)
      relaxed.push_back(merge_metas(metas[i], body_trace.graph->meta(outs[i]), false,
                                    "while_loop: loop variable " + std::to_string(i) + " (entry vs body result)"));
    bool new_local = false;
    for (const auto* assigned : {&cond_trace.assigned, &body_trace.assigned})
      for (const auto& v : *assigned)
        if (std::find(local.begin(), local.end(), v) == local.end()) {
          local.push_back(v);
          new_local = true;
        }
    if ((relaxed == metas && !new_local) || attempt == 3) break;
    metas = std::move(relaxed);
  }
  const auto& cond_out = cond_trace.graph->outputs();
  TL_CHECK(cond_out.size() == 1 && cond_trace.graph->meta(cond_out[0]).dtype == DType::bool_ &&
               cond_trace.graph->meta(cond_out[0]).shape.rank() == 0,
           InvalidArgument, "while_loop: cond must return a bool scalar, got ",
           cond_out.empty() ? std::string("nothing") : meta_str(cond_trace.graph->meta(cond_out[0])));
  append_captures(cond_trace, body_trace);
  std::vector<Tensor> inputs = loop_vars;
  inputs.insert(inputs.end(), body_trace.captures.begin(), body_trace.captures.end());
  auto assigned = cond_trace.assigned;
  assigned.insert(assigned.end(), body_trace.assigned.begin(), body_trace.assigned.end());
  Attrs attrs{{"num_vars", static_cast<std::int64_t>(metas.size())}, {"maximum_iterations", maximum_iterations}};
  return tracer->add_structured(OpRegistry::global().get("while_loop"), inputs, attrs,
                                {cond_trace.graph, body_trace.graph}, assigned);
}

}  // namespace tl::detail
