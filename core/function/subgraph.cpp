#include "function/detail/subgraph.h"

#include "tracelab/autodiff/tape.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"
#include "tracelab/ops/reduce.h"
#include "tracelab/registry/op_def.h"

namespace tl::detail {

SubTrace trace_subgraph(Tracer& outer, const std::string& what, const std::vector<TensorMeta>& metas,
                        const std::vector<Tensor>& seed,
                        const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
                        const std::vector<std::shared_ptr<VariableState>>& read_locally) {
  Tracer tracer(outer, what);
  tracer.read_locally(read_locally);
  std::vector<Tensor> inputs;
  for (std::size_t i = 0; i < metas.size(); ++i) inputs.push_back(tracer.add_input(metas[i], "arg" + std::to_string(i)));
  tracer.seed_captures(seed);
  tracer.set_outputs(fn(inputs));
  SubTrace out;
  out.captures = tracer.captures();
  out.assigned = tracer.assigned();
  out.graph = std::make_shared<graph::Graph>(tracer.take_graph());
  return out;
}

void append_captures(SubTrace& first, const SubTrace& second) {
  for (std::size_t i = first.captures.size(); i < second.captures.size(); ++i) {
    first.graph->add_input(second.captures[i].meta(), "capture");
    first.captures.push_back(second.captures[i]);
  }
}

TensorMeta merge_metas(const TensorMeta& a, const TensorMeta& b, bool strict, const std::string& what) {
  TL_CHECK(a.dtype == b.dtype, DTypeError, what, ": dtypes differ, ", meta_str(a), " vs ", meta_str(b));
  TL_CHECK(a.shape.rank() == b.shape.rank(), ShapeError, what, ": ranks differ, ", meta_str(a), " vs ", meta_str(b));
  TensorMeta merged = a;
  for (int i = 0; i < a.shape.rank(); ++i) {
    auto d = static_cast<std::size_t>(i);
    std::int64_t x = a.shape[d], y = b.shape[d];
    if (x == y) continue;
    TL_CHECK(!strict || x < 0 || y < 0, ShapeError, what, ": shapes are incompatible, ", meta_str(a), " vs ",
             meta_str(b), " (dim ", i, ")");
    merged.shape.dims()[d] = -1;
  }
  return merged;
}

std::vector<Tensor> replay_gradient(const graph::Graph& graph, const std::vector<Tensor>& inputs,
                                    const std::vector<Tensor>& upstream, const std::vector<std::size_t>& wrt) {
  GradientTape tape(false, false);
  std::vector<Tensor> sources;
  for (std::size_t index : wrt) {
    tape.watch(inputs[index]);
    sources.push_back(inputs[index]);
  }
  std::vector<Tensor> outputs = replay(graph, inputs);
  Tensor target;
  for (std::size_t i = 0; i < outputs.size() && i < upstream.size(); ++i) {
    if (outputs[i].dtype() != DType::float32 || !upstream[i].defined()) continue;
    Tensor term = reduce_sum(mul(outputs[i], upstream[i]));
    target = target.defined() ? add(target, term) : term;
  }
  tape.stop_recording();
  if (!target.defined()) {
    std::vector<Tensor> zeros;
    for (const Tensor& s : sources) zeros.push_back(zeros_like(s));
    return zeros;
  }
  return tape.gradient(target, sources, UnconnectedGradients::zero);
}

}  // namespace tl::detail
