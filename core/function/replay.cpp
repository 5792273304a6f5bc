// replay: a graph run node by node through the funnel, so tapes record every op (eagerly) or the active trace
// inlines the graph. Slower than the executor; used where a tape or an outer trace must see inside.
#include "function/detail/tracer.h"
#include "tracelab/autodiff/variable.h"

namespace tl::detail {

std::vector<Tensor> replay(const graph::Graph& graph, std::span<const Tensor> inputs) {
  std::vector<std::vector<Tensor>> values(graph.num_nodes());
  auto value_of = [&](const graph::ValueRef& ref) -> const Tensor& { return values[ref.node][ref.output]; };
  std::size_t next_input = 0;
  for (std::size_t i = 0; i < graph.num_nodes(); ++i) {
    const graph::Node& node = graph.node(i);
    switch (node.kind) {
      case graph::NodeKind::input:
        TL_CHECK(next_input < inputs.size(), InvalidArgument, "replay: the graph has more inputs than the ",
                 inputs.size(), " given");
        values[i] = {inputs[next_input++]};
        break;
      case graph::NodeKind::constant: values[i] = {node.value}; break;
      case graph::NodeKind::variable: values[i] = {Variable::from_state(node.variable).read()}; break;
      case graph::NodeKind::assign: Variable::from_state(node.variable).assign(value_of(node.inputs[0])); break;
      case graph::NodeKind::op: {
        std::vector<Tensor> args;
        for (const auto& ref : node.inputs) args.push_back(value_of(ref));
        values[i].resize(node.outputs.size());
        tl::execute(*node.op, args, node.attrs, values[i], node.subgraphs, node.variables);
        break;
      }
    }
  }
  std::vector<Tensor> outputs;
  for (const auto& ref : graph.outputs()) outputs.push_back(value_of(ref));
  return outputs;
}

}  // namespace tl::detail
