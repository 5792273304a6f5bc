// graph_def_bytes: a traced graph as TensorFlow's GraphDef (node = 1), for TensorBoard's graph tab. Each node
// becomes a NodeDef (name = 1, op = 2, input = 3, attr = 5): function inputs as "Placeholder" (attrs dtype,
// shape), constants as "Const" (dtype, value as a TensorProto with tensor_content), variable reads and writes as
// "ReadVariableOp" / "AssignVariableOp" (attr _variable_name), ops by their registry name with their attributes as
// AttrValues; every node has "_output_shapes", from which TensorBoard labels the edges. A structured op's
// sub-graphs follow it under the name scope "<node>/body<k>/".
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <variant>

#include "nn/detail/proto_writer.h"
#include "tracelab/nn/event_file.h"

namespace tl::summary {
namespace {

using detail::ProtoWriter;

/// TensorFlow's DataType for a dtype: DT_FLOAT = 1, DT_INT32 = 3, DT_BOOL = 10.
std::int64_t data_type(DType dtype) {
  switch (dtype) {
    case DType::float32: return 1;
    case DType::int32: return 3;
    case DType::bool_: return 10;
  }
  return 0;
}

/// TensorShapeProto: dim = 2, Dim.size = 1 (-1 for an unknown dim); a zero size left out, as proto3 does.
ProtoWriter shape_proto(const Shape& shape) {
  ProtoWriter out;
  for (std::int64_t size : shape.dims()) {
    ProtoWriter dim;
    if (size != 0) dim.varint(1, static_cast<std::uint64_t>(size));
    out.message(2, dim);
  }
  return out;
}

/// AttrValue: list = 1 (ListValue: i = 3, shape = 7), s = 2, i = 3, f = 4, b = 5, type = 6, shape = 7, tensor = 8.
struct AttrProto {
  ProtoWriter operator()(bool v) const { return one([&](ProtoWriter& p) { p.varint(5, v ? 1 : 0); }); }
  ProtoWriter operator()(std::int64_t v) const { return one([&](ProtoWriter& p) { p.varint(3, static_cast<std::uint64_t>(v)); }); }
  ProtoWriter operator()(double v) const { return one([&](ProtoWriter& p) { p.fixed_float(4, static_cast<float>(v)); }); }
  ProtoWriter operator()(const std::string& v) const { return one([&](ProtoWriter& p) { p.string(2, v); }); }
  ProtoWriter operator()(DType v) const { return one([&](ProtoWriter& p) { p.varint(6, data_type(v)); }); }
  ProtoWriter operator()(const Ints& v) const {
    ProtoWriter list;
    list.packed_varints(3, v);
    return one([&](ProtoWriter& p) { p.message(1, list); });
  }
  template <class F>
  static ProtoWriter one(F&& fill) {
    ProtoWriter p;
    fill(p);
    return p;
  }
};

/// A constant as a TensorProto: dtype = 1, tensor_shape = 2, tensor_content = 4 (the elements' bytes, little-endian;
/// a bool is one byte).
ProtoWriter tensor_proto(const Tensor& value) {
  ProtoWriter tensor;
  tensor.varint(1, data_type(value.dtype()));
  tensor.message(2, shape_proto(value.shape()));
  std::string content(static_cast<std::size_t>(value.num_elements()) * dtype_size(value.dtype()), '\0');
  visit_dtype(value.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (!content.empty()) std::memcpy(content.data(), value.data<T>(), content.size());
  });
  tensor.string(4, content);
  return tensor;
}

class GraphDefBuilder {
 public:
  /// Adds `graph`'s nodes, named under `scope` ("" or "cond_3/body0/").
  void add(const graph::Graph& graph, const std::string& scope) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
      const graph::Node& node = graph.nodes()[i];
      names.push_back(unique_name(node, i, scope));
      add_node(node, names);
      for (std::size_t k = 0; k < node.subgraphs.size(); ++k)
        add(*node.subgraphs[k], names.back() + "/body" + std::to_string(k) + "/");
    }
  }
  const std::string& bytes() const noexcept { return graph_def_.bytes(); }

 private:
  /// An input by its argument name when that is a valid TensorFlow node name not yet taken, else "<label>_<index>"
  /// (with "_" added while that is taken).
  std::string unique_name(const graph::Node& node, std::size_t index, const std::string& scope) {
    static const std::regex valid("[A-Za-z0-9.][A-Za-z0-9_.\\-]*");
    std::string name = scope + std::string(node.label()) + "_" + std::to_string(index);
    if (node.kind == graph::NodeKind::input && std::regex_match(node.name, valid) && !taken_.count(scope + node.name))
      name = scope + node.name;
    while (taken_.count(name)) name += "_";  // an op's "<label>_<index>" that an argument name took already
    taken_.insert(name);
    return name;
  }

  void add_node(const graph::Node& node, const std::vector<std::string>& names) {
    using graph::NodeKind;
    ProtoWriter def;
    def.string(1, names.back());
    const char* op = node.kind == NodeKind::input      ? "Placeholder"
                     : node.kind == NodeKind::constant ? "Const"
                     : node.kind == NodeKind::variable ? "ReadVariableOp"
                     : node.kind == NodeKind::assign   ? "AssignVariableOp"
                                                       : nullptr;
    def.string(2, op != nullptr ? std::string(op) : std::string(node.label()));
    for (const graph::ValueRef& ref : node.inputs) {
      std::string input = names.at(ref.node);
      if (ref.output != 0) input.append(":").append(std::to_string(ref.output));
      def.string(3, input);
    }
    std::map<std::string, ProtoWriter> attrs;  // a map field: entries sorted by key, as TensorFlow writes them
    for (const auto& [name, value] : node.attrs.entries()) attrs[name.str()] = std::visit(AttrProto{}, value);
    if (node.kind == NodeKind::input) {
      attrs["dtype"] = AttrProto{}(node.outputs.at(0).dtype);
      attrs["shape"] = AttrProto::one([&](ProtoWriter& p) { p.message(7, shape_proto(node.outputs.at(0).shape)); });
    } else if (node.kind == NodeKind::constant) {
      attrs["dtype"] = AttrProto{}(node.value.dtype());
      attrs["value"] = AttrProto::one([&](ProtoWriter& p) { p.message(8, tensor_proto(node.value)); });
    } else if (node.variable != nullptr) {
      attrs["_variable_name"] = AttrProto{}(node.variable->name);
    }
    ProtoWriter shapes;
    for (const TensorMeta& meta : node.outputs) shapes.message(7, shape_proto(meta.shape));
    attrs["_output_shapes"] = AttrProto::one([&](ProtoWriter& p) { p.message(1, shapes); });
    for (const auto& [key, value] : attrs) {
      ProtoWriter entry;  // map<string, AttrValue> entry: key = 1, value = 2
      entry.string(1, key);
      entry.message(2, value);
      def.message(5, entry);
    }
    graph_def_.message(1, def);
  }

  ProtoWriter graph_def_;
  std::set<std::string> taken_;
};

}  // namespace

std::string graph_def_bytes(const graph::Graph& graph) {
  GraphDefBuilder builder;
  builder.add(graph, "");
  return builder.bytes();
}

}  // namespace tl::summary
