// Helpers shared by tl::cond and tl::while_loop: tracing a callable into a sub-graph of the active trace,
// merging the metas of values that must agree, the gradient of a sub-graph by replay under a tape, and the
// registration of the loop ops.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "function/detail/tracer.h"
#include "tracelab/graph/executor.h"

namespace tl::detail {

/// A traced sub-graph: its graph (declared inputs, then one input per capture), the parent-level tensors it
/// captured, and the variables it assigned.
struct SubTrace {
  std::shared_ptr<graph::Graph> graph;
  std::vector<Tensor> captures;
  std::vector<std::shared_ptr<VariableState>> assigned;
};

/// Traces `fn` on symbolic inputs of `metas` inside `outer`, after seeding it with `seed` captures.
SubTrace trace_subgraph(Tracer& outer, const std::string& what, const std::vector<TensorMeta>& metas,
                        const std::vector<Tensor>& seed,
                        const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
                        const std::vector<std::shared_ptr<VariableState>>& read_locally = {});

/// Adds capture inputs to `first` for the captures its sibling added after the shared seed.
void append_captures(SubTrace& first, const SubTrace& second);

/// The meta two values that must agree share: same dtype and rank; equal known dims stay, others become -1.
/// Known dims that differ are an error when `strict` (cond outputs), relaxed otherwise (loop vars).
TensorMeta merge_metas(const TensorMeta& a, const TensorMeta& b, bool strict, const std::string& what);

/// Registers while_loop and while_grad (while_loop.cpp); register_control_flow_ops() calls it once.
void register_while_ops(OpRegistry& registry);

/// d(sum_i <outputs_i, upstream_i>)/d(inputs[i]) for the float inputs listed in `wrt`, where outputs =
/// replay(graph, inputs); unconnected inputs get zeros. Runs under a fresh tape (eagerly or traced).
std::vector<Tensor> replay_gradient(const graph::Graph& graph, const std::vector<Tensor>& inputs,
                                    const std::vector<Tensor>& upstream, const std::vector<std::size_t>& wrt);

}  // namespace tl::detail
