// Graph::to_json: one node per line, values exact. Finite floats are JSON numbers with the fewest digits that
// read back as the same bits; NaN and infinities are strings (see detail/json_format.h and docs/graph.md).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "graph/detail/format.h"
#include "graph/detail/json_format.h"
#include "tracelab/graph/graph.h"

namespace tl::graph {
namespace {

using detail::Json;

/// A non-finite real as a string: "inf", "-inf", "nan" (the default quiet NaN) or its raw bits in hex.
template <class F, class Bits>
Json non_finite(F value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  auto bits = detail::bit_copy<Bits>(value);
  if (bits == detail::bit_copy<Bits>(std::numeric_limits<F>::quiet_NaN())) return "nan";
  char text[24];
  std::snprintf(text, sizeof text, "0x%0*llx", static_cast<int>(2 * sizeof(Bits)),
                static_cast<unsigned long long>(bits));
  return text;
}

Json float_json(float value) {
  if (!std::isfinite(value)) return non_finite<float, std::uint32_t>(value);
  // The shortest decimal of the float, as a double, unless reading it back via double changes the bits.
  double shortest = std::strtod(detail::shortest_float(value).c_str(), nullptr);
  bool exact = detail::bit_copy<std::uint32_t>(static_cast<float>(shortest)) == detail::bit_copy<std::uint32_t>(value);
  return exact ? shortest : static_cast<double>(value);
}

Json double_json(double value) {
  if (!std::isfinite(value)) return non_finite<double, std::uint64_t>(value);
  return value;  // nlohmann writes doubles with round-trip precision
}

Json meta_json(const TensorMeta& meta) {
  return Json{{"dtype", dtype_name(meta.dtype)}, {"shape", meta.shape.dims()}};
}

Json ref_json(const ValueRef& ref) { return Json::array({ref.node, ref.output}); }

struct AttrJson {
  Json operator()(bool v) const { return {{"bool", v}}; }
  Json operator()(std::int64_t v) const { return {{"int", v}}; }
  Json operator()(double v) const { return {{"float", double_json(v)}}; }
  Json operator()(const std::string& v) const { return {{"string", v}}; }
  Json operator()(const Ints& v) const { return {{"ints", v}}; }
  Json operator()(DType v) const { return {{"dtype", dtype_name(v)}}; }
};

Json values_json(const Tensor& value) {
  Json values = Json::array();
  visit_dtype(value.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* data = value.data<T>();
    for (std::int64_t i = 0; i < value.num_elements(); ++i) {
      if constexpr (std::is_same_v<T, float>) values.push_back(float_json(data[i]));
      else values.push_back(data[i]);
    }
  });
  return values;
}

Json body_json(const Graph& graph);

Json node_json(const Node& node) {
  Json out{{"kind", node.kind == NodeKind::op ? "op" : std::string(node.label())}};
  if (node.kind == NodeKind::variable || node.kind == NodeKind::assign) {
    out["name"] = node.name;
    out["id"] = node.variable->id;
    out.update(meta_json(node.variable->value.meta()));
    if (node.kind == NodeKind::assign) out["input"] = ref_json(node.inputs.at(0));
  } else if (node.kind == NodeKind::input) {
    out["name"] = node.name;
    out.update(meta_json(node.outputs.at(0)));
  } else if (node.kind == NodeKind::constant) {
    out.update(meta_json(node.value.meta()));
    out["values"] = values_json(node.value);
  } else {
    out["op"] = node.label();
    out["inputs"] = Json::array();
    for (const auto& ref : node.inputs) out["inputs"].push_back(ref_json(ref));
    out["attrs"] = Json::object();
    for (const auto& [name, value] : node.attrs.entries()) out["attrs"][name.str()] = std::visit(AttrJson{}, value);
    out["outputs"] = Json::array();
    for (const auto& meta : node.outputs) out["outputs"].push_back(meta_json(meta));
    if (!node.variables.empty()) {
      out["variables"] = Json::array();
      for (const auto& variable : node.variables) {
        Json v = {{"name", variable->name}, {"id", variable->id}};
        v.update(meta_json(variable->value.meta()));
        out["variables"].push_back(std::move(v));
      }
    }
    if (!node.subgraphs.empty()) {
      out["subgraphs"] = Json::array();
      for (const auto& sub : node.subgraphs) out["subgraphs"].push_back(body_json(*sub));
    }
  }
  return out;
}

/// A sub-graph: {"nodes": [...], "outputs": [...]}.
Json body_json(const Graph& graph) {
  Json body{{"nodes", Json::array()}, {"outputs", Json::array()}};
  for (const auto& node : graph.nodes()) body["nodes"].push_back(node_json(node));
  for (const auto& ref : graph.outputs()) body["outputs"].push_back(ref_json(ref));
  return body;
}

}  // namespace

std::string Graph::to_json() const {
  try {
    std::string out = "{\"format\": \"" + std::string(detail::kFormatName) +
                      "\", \"version\": " + std::to_string(detail::kFormatVersion) + ",\n \"nodes\": [";
    for (std::size_t i = 0; i < nodes_.size(); ++i) out += (i ? ",\n  " : "\n  ") + node_json(nodes_[i]).dump();
    Json outputs = Json::array();
    for (const auto& ref : outputs_) outputs.push_back(ref_json(ref));
    return out + "],\n \"outputs\": " + outputs.dump() + "}\n";
  } catch (const nlohmann::json::exception& e) {  // e.g. a name or string attribute that is not UTF-8
    throw InvalidArgument(std::string("graph: to_json: ") + e.what());
  }
}

}  // namespace tl::graph
