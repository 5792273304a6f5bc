// Graph::str: the text form. One SSA line per node, named by node index:
//
//   graph(%0: f32[1,?,20] {name="x"}) {
//     %1: f32[1,1,20] = reduce_max %0 {axes=[1], keepdims=true}
//     return %1
//   }
//
// Inputs appear in the header only; a node with several outputs is written "%5#0: f32[2], %5#1: f32[3] = ...".
#include <cmath>
#include <sstream>

#include "graph/detail/format.h"
#include "tracelab/graph/graph.h"

namespace tl::graph {
namespace {

constexpr std::int64_t kMaxPrintedElements = 8;  // larger constants print as their type only

/// A float written so that it reads as a float: 1.0, 0.5, 1e+20, nan, -inf.
template <class F>
std::string real_str(F value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::string text;
  if constexpr (sizeof(F) == sizeof(float)) text = detail::shortest_float(value);
  else text = detail::shortest_double(value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

struct AttrText {
  std::ostream& out;
  void operator()(bool v) const { out << (v ? "true" : "false"); }
  void operator()(std::int64_t v) const { out << v; }
  void operator()(double v) const { out << real_str(v); }
  void operator()(const std::string& v) const { out << detail::quoted(v); }
  void operator()(DType v) const { out << dtype_short_name(v); }
  void operator()(const Ints& v) const {
    out << '[';
    for (std::size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
    out << ']';
  }
};

template <class T>
void write_values(std::ostream& out, const T* data, const Shape& shape, int dim, std::int64_t& offset) {
  if (dim == shape.rank()) {
    if constexpr (std::is_same_v<T, float>) out << real_str(data[offset]);
    else if constexpr (std::is_same_v<T, bool>) out << (data[offset] ? "true" : "false");
    else out << data[offset];
    ++offset;
    return;
  }
  out << '[';
  for (std::int64_t i = 0; i < shape[static_cast<std::size_t>(dim)]; ++i) {
    if (i > 0) out << ", ";
    write_values(out, data, shape, dim + 1, offset);
  }
  out << ']';
}

void write_constant(std::ostream& out, const Tensor& value) {
  out << "const ";
  if (value.num_elements() > kMaxPrintedElements) {
    out << meta_str(value.meta());
    return;
  }
  visit_dtype(value.dtype(), [&](auto tag) {
    std::int64_t offset = 0;
    write_values(out, value.data<decltype(tag)>(), value.shape(), 0, offset);
  });
}

void write_result_names(std::ostream& out, std::size_t index, const Node& node) {
  if (node.outputs.size() == 1) {
    out << '%' << index << ": " << meta_str(node.outputs[0]);
    return;
  }
  for (std::size_t i = 0; i < node.outputs.size(); ++i)
    out << (i ? ", " : "") << '%' << index << '#' << i << ": " << meta_str(node.outputs[i]);
}

void write_node(std::ostream& out, std::size_t index, const Node& node, const std::string& indent);

/// A structured op's sub-graphs, each indented under its line and numbered: "    {0} graph(...) { ... }".
void write_subgraphs(std::ostream& out, const Node& node, const std::string& indent) {
  for (std::size_t i = 0; i < node.subgraphs.size(); ++i) {
    std::string text = node.subgraphs[i]->str();
    if (!text.empty() && text.back() == '\n') text.pop_back();
    out << '\n' << indent << "  {" << i << "} ";
    for (char c : text) {
      out << c;
      if (c == '\n') out << indent << "  ";
    }
  }
}

void write_node(std::ostream& out, std::size_t index, const Node& node, const std::string& indent) {
  out << indent;
  if (node.kind == NodeKind::assign) {
    out << "assign " << detail::quoted(node.name) << ", " << node.inputs[0].str();
    return;
  }
  write_result_names(out, index, node);
  if (!node.outputs.empty()) out << " = ";
  if (node.kind == NodeKind::constant) return write_constant(out, node.value);
  if (node.kind == NodeKind::variable) {
    out << "variable " << detail::quoted(node.name);
    return;
  }
  out << node.label();
  for (std::size_t i = 0; i < node.inputs.size(); ++i) out << (i ? ", " : " ") << node.inputs[i].str();
  if (!node.variables.empty()) {  // the variables it updates in place
    out << " updates(";
    for (std::size_t i = 0; i < node.variables.size(); ++i)
      out << (i ? ", " : "") << detail::quoted(node.variables[i]->name);
    out << ')';
  }
  if (node.attrs.empty()) return write_subgraphs(out, node, indent);
  out << " {";
  for (std::size_t i = 0; i < node.attrs.entries().size(); ++i) {
    const auto& entry = node.attrs.entries()[i];
    out << (i ? ", " : "") << entry.first << '=';
    std::visit(AttrText{out}, entry.second);
  }
  out << '}';
  write_subgraphs(out, node, indent);
}

}  // namespace

std::string Graph::str() const {
  std::ostringstream out;
  out << "graph(";
  bool first = true;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].kind != NodeKind::input) continue;
    const auto& metas = nodes_[i].outputs;
    out << (first ? "" : ", ") << '%' << i << ": " << (metas.empty() ? "<no meta>" : meta_str(metas[0]));
    if (!nodes_[i].name.empty()) out << " {name=" << detail::quoted(nodes_[i].name) << '}';
    first = false;
  }
  out << ") {\n";
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].kind != NodeKind::input) {
      write_node(out, i, nodes_[i], "  ");
      out << '\n';
    }
  out << "  return";
  for (std::size_t i = 0; i < outputs_.size(); ++i) out << (i ? ", " : " ") << outputs_[i].str();
  out << "\n}\n";
  return out.str();
}

}  // namespace tl::graph
