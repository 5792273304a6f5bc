// fuse_matmul: matmul(a, b) -> add(., bias) -> optional relu / sigmoid / tanh becomes one fused_matmul node
// (core/ops/fused_ops.cpp), placed where the last node of the chain was. Each intermediate must have exactly
// one use and not be a graph output; the bias is float32 of rank <= 1 and the add must not change the
// product's meta (so the bias broadcasts along the last dim only). The matmul's transpose attributes are kept.
#include <optional>
#include <string>

#include "graph/passes/rewriter.h"
#include "tracelab/graph/passes.h"
#include "tracelab/registry/registry.h"

namespace tl::graph {
namespace {

struct Chain {
  std::size_t matmul = 0;
  std::size_t add = 0;
  std::size_t last = 0;  ///< the add, or the activation after it
  ValueRef bias;
  std::string activation = "none";
};

bool is_op(const Graph& g, std::size_t index, const OpDef& op) {
  return detail::is_registry_op(g.node(index)) && g.node(index).op == &op;
}

/// The chain starting at the matmul `index`, or nothing when the nodes after it do not fit the pattern.
std::optional<Chain> match(const Graph& g, std::size_t index, const std::vector<std::optional<std::size_t>>& users) {
  const OpRegistry& r = OpRegistry::global();
  static const OpDef& matmul = r.get("matmul");
  static const OpDef& add = r.get("add");
  if (!is_op(g, index, matmul) || !users[index] || !is_op(g, *users[index], add)) return std::nullopt;
  Chain chain;
  chain.matmul = index;
  chain.add = chain.last = *users[index];
  const Node& sum = g.node(chain.add);
  chain.bias = sum.inputs[0].node == index ? sum.inputs[1] : sum.inputs[0];
  const TensorMeta& bias = g.meta(chain.bias);
  if (bias.dtype != DType::float32 || bias.shape.rank() > 1 || !(sum.outputs[0] == g.node(index).outputs[0]))
    return std::nullopt;
  if (const auto& user = users[chain.add]) {
    for (const char* name : {"relu", "sigmoid", "tanh"})
      if (is_op(g, *user, r.get(name))) {
        chain.activation = name;
        chain.last = *user;
      }
  }
  return chain;
}

}  // namespace

Graph fuse_matmul_bias_activation(const Graph& g) {
  const auto users = detail::sole_users(g);
  std::vector<std::optional<Chain>> ends_here(g.num_nodes());
  std::vector<bool> absorbed(g.num_nodes(), false);
  for (std::size_t i = 0; i < g.num_nodes(); ++i) {
    std::optional<Chain> chain = match(g, i, users);
    if (!chain) continue;
    absorbed[chain->matmul] = true;
    if (chain->last != chain->add) absorbed[chain->add] = true;
    ends_here[chain->last] = std::move(chain);
  }
  static const OpDef& fused = OpRegistry::global().get("fused_matmul");
  detail::Rewriter rw(g);
  for (std::size_t i = 0; i < g.num_nodes(); ++i) {
    if (absorbed[i]) continue;  // its one use is inside the chain that ends later
    if (!ends_here[i]) {
      rw.copy(i);
      continue;
    }
    const Chain& chain = *ends_here[i];
    const Node& mm = g.node(chain.matmul);
    Attrs attrs;
    for (const auto& [name, value] : mm.attrs.entries()) attrs.set(name, value);
    attrs.set("activation", chain.activation);
    auto inputs = rw.map(std::vector<ValueRef>{mm.inputs[0], mm.inputs[1], chain.bias});
    rw.alias(i, rw.target().add_op(fused, inputs, attrs));
  }
  return rw.finish();
}

}  // namespace tl::graph
