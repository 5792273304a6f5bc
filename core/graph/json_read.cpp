// Graph::from_json: loads the JSON form and validates everything — structure, types, ranges, refs, the op
// registry, attributes, constant values and, by re-running each op's shape rule, every stored output meta.
// Every problem is an InvalidArgument that starts "graph JSON:" and names the place; nothing aborts.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "graph/detail/format.h"
#include "graph/detail/json_format.h"
#include "graph/detail/structured.h"
#include "tracelab/graph/graph.h"
#include "tracelab/registry/registry.h"

namespace tl::graph {
namespace {

using detail::Json;
using Keys = std::initializer_list<const char*>;
constexpr std::int64_t kMinInt = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();

/// A JSON value for a message, cut to 40 characters.
std::string brief(const Json& j) {
  std::string text = j.dump();
  return text.size() <= 40 ? text : text.substr(0, 37) + "...";
}

/// Rejects nesting deeper than kMaxDepth before nlohmann sees the text (its destructor recurses).
void check_depth(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      TL_CHECK(++depth <= detail::kMaxDepth, InvalidArgument, "graph JSON: nesting deeper than ", detail::kMaxDepth,
               " levels at byte ", i);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

/// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, column 5: " prefix.
std::string parse_reason(const char* what) {
  const char* column = std::strstr(what, "column ");
  const char* reason = column != nullptr ? std::strstr(column, ": ") : nullptr;
  return reason != nullptr ? std::string(reason + 2) : std::string(what);
}

Json parse(std::string_view text) {
  check_depth(text);
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw InvalidArgument(tl::detail::cat("graph JSON: parse error at byte ", e.byte, ": ", parse_reason(e.what())));
  } catch (const nlohmann::json::exception& e) {  // out_of_range: a number beyond double, e.g. 1e999
    const char* reason = std::strstr(e.what(), "] ");
    throw InvalidArgument(tl::detail::cat("graph JSON: ", reason != nullptr ? reason + 2 : e.what()));
  }
}

/// Reads one document into a Graph. `place_` prefixes messages ("node 3 (matmul): ").
using VariableTable = std::map<std::uint64_t, std::shared_ptr<tl::detail::VariableState>>;

class Reader {
 public:
  /// `bound`: the table holds the only variables the JSON may name (Graph::from_json with a binding).
  explicit Reader(std::shared_ptr<VariableTable> variables, bool bound = false, int depth = 0)
      : variables_(std::move(variables)), bound_(bound), depth_(depth) {}
  Graph read(const Json& doc);
  /// A graph body, {"nodes": [...], "outputs": [...]}; the top level adds format and version.
  Graph read_body(const Json& doc);

 private:
  template <class... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    throw InvalidArgument(tl::detail::cat("graph JSON: ", place_, parts...));
  }
  const Json& field(const Json& object, const char* key) const;
  void check_object(const Json& j, const char* what, Keys allowed) const;
  std::int64_t read_int(const Json& j, const std::string& what, std::int64_t lo, std::int64_t hi) const;
  std::string read_string(const Json& j, const std::string& what) const;
  DType read_dtype(const Json& j, const std::string& what) const;
  Shape read_shape(const Json& j, const std::string& what, bool allow_unknown) const;
  TensorMeta read_meta(const Json& j, const std::string& what, bool allow_unknown) const;
  template <class F, class Bits>
  F read_real(const Json& j, const std::string& what) const;
  AttrValue read_attr(const std::string& name, const Json& j) const;
  Attrs read_attrs(const Json& j) const;
  ValueRef read_ref(const Json& j, const std::string& what) const;
  std::vector<ValueRef> read_op_inputs(const Json& j, std::size_t index) const;
  Tensor read_values(const Json& j, const TensorMeta& meta) const;
  void read_node(const Json& j, std::size_t index);
  void read_op(const Json& j, std::size_t index);
  void read_variable_node(const Json& j, const std::string& kind, std::size_t index);
  std::vector<std::shared_ptr<const Graph>> read_subgraphs(const Json& j) const;
  std::shared_ptr<tl::detail::VariableState> read_variable_state(const Json& j) const;

  Graph graph_;
  std::shared_ptr<VariableTable> variables_;
  bool bound_ = false;
  int depth_ = 0;
  std::string place_;
};

const Json& Reader::field(const Json& object, const char* key) const {
  auto it = object.find(key);
  if (it == object.end()) fail("missing key '", key, "'");
  return *it;
}

void Reader::check_object(const Json& j, const char* what, Keys allowed) const {
  if (!j.is_object()) fail(what, " must be an object, got ", j.type_name());
  for (const auto& item : j.items()) {
    bool known = false;
    for (const char* key : allowed) known = known || item.key() == key;
    if (!known) fail("unknown key '", item.key(), "' in ", what);
  }
}

std::int64_t Reader::read_int(const Json& j, const std::string& what, std::int64_t lo, std::int64_t hi) const {
  if (!j.is_number_integer()) fail(what, " must be an integer, got ", brief(j));
  bool too_big = j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(hi);
  std::int64_t value = too_big ? hi : j.get<std::int64_t>();
  if (too_big || value < lo || value > hi) fail(what, " is ", brief(j), ", expected ", lo, "..", hi);
  return value;
}

std::string Reader::read_string(const Json& j, const std::string& what) const {
  if (!j.is_string()) fail(what, " must be a string, got ", brief(j));
  return j.get<std::string>();
}

DType Reader::read_dtype(const Json& j, const std::string& what) const {
  std::string name = read_string(j, what);
  for (DType dtype : {DType::float32, DType::int32, DType::bool_})
    if (dtype_name(dtype) == name) return dtype;
  fail(what, " '", name, "' is not a dtype (float32, int32, bool)");
}

Shape Reader::read_shape(const Json& j, const std::string& what, bool allow_unknown) const {
  if (!j.is_array()) fail(what, " must be an array of dims, got ", brief(j));
  std::vector<std::int64_t> dims;
  for (const auto& dim : j) dims.push_back(read_int(dim, what + " dim", allow_unknown ? -1 : 0, kMaxInt));
  return Shape(std::move(dims));
}

TensorMeta Reader::read_meta(const Json& j, const std::string& what, bool allow_unknown) const {
  return {read_dtype(field(j, "dtype"), what + " dtype"),
          read_shape(field(j, "shape"), what + " shape", allow_unknown)};
}

/// A real: a JSON number, or "nan", "inf", "-inf", or "0x" + the raw bits in hex (2 * sizeof(Bits) digits).
template <class F, class Bits>
F Reader::read_real(const Json& j, const std::string& what) const {
  if (j.is_number()) {
    double value = j.get<double>();
    // Beyond the largest finite F plus half an ulp, rounding would give infinity (or undefined behaviour).
    constexpr double limit = sizeof(F) == sizeof(float) ? 0x1.ffffffp+127 : std::numeric_limits<double>::max();
    if (!(std::fabs(value) < limit || (sizeof(F) > sizeof(float) && std::isfinite(value))))
      fail(what, " ", brief(j), " is out of range");
    return static_cast<F>(value);
  }
  std::string text = j.is_string() ? j.get<std::string>() : std::string();
  if (text == "nan") return std::numeric_limits<F>::quiet_NaN();
  if (text == "inf" || text == "-inf")
    return text == "inf" ? std::numeric_limits<F>::infinity() : -std::numeric_limits<F>::infinity();
  bool hex = text.size() == 2 + 2 * sizeof(Bits) && text.starts_with("0x") &&
             text.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
  if (!hex) fail(what, " must be a number, \"nan\", \"inf\", \"-inf\" or 0x-bits, got ", brief(j));
  return detail::bit_copy<F>(static_cast<Bits>(std::strtoull(text.c_str() + 2, nullptr, 16)));
}

AttrValue Reader::read_attr(const std::string& name, const Json& j) const {
  std::string what = "attribute '" + name + "'";
  if (!j.is_object() || j.size() != 1)
    fail(what, " must be an object with one type key like {\"int\": 3}, got ", brief(j));
  const std::string& type = j.begin().key();
  const Json& value = j.begin().value();
  if (type == "bool") {
    if (!value.is_boolean()) fail(what, " must be true or false, got ", brief(value));
    return value.get<bool>();
  }
  if (type == "int") return read_int(value, what, kMinInt, kMaxInt);
  if (type == "float") return read_real<double, std::uint64_t>(value, what);
  if (type == "string") return read_string(value, what);
  if (type == "dtype") return read_dtype(value, what);
  if (type != "ints") fail(what, " has unknown type '", type, "' (bool, int, float, string, ints, dtype)");
  if (!value.is_array()) fail(what, " must be an array of integers, got ", brief(value));
  Ints ints;
  for (const auto& item : value) ints.push_back(read_int(item, what + " element", kMinInt, kMaxInt));
  return ints;
}

Attrs Reader::read_attrs(const Json& j) const {
  if (!j.is_object()) fail("attrs must be an object, got ", brief(j));
  Attrs attrs;
  for (const auto& item : j.items()) attrs.set(item.key(), read_attr(item.key(), item.value()));
  return attrs;
}

ValueRef Reader::read_ref(const Json& j, const std::string& what) const {
  if (!j.is_array() || j.size() != 2) fail(what, " must be [node, output], got ", brief(j));
  constexpr std::int64_t max = std::numeric_limits<std::int32_t>::max();
  return {static_cast<std::size_t>(read_int(j[0], what + " node", 0, max)),
          static_cast<std::size_t>(read_int(j[1], what + " output", 0, max))};
}

Tensor Reader::read_values(const Json& j, const TensorMeta& meta) const {
  std::int64_t count = 0;
  try {
    count = meta.shape.num_elements();
  } catch (const Error&) {
    fail("shape ", meta.shape.str(), " has too many elements");
  }
  if (!j.is_array() || static_cast<std::int64_t>(j.size()) != count)
    fail("values must be an array of ", count, " element(s) for shape ", meta.shape.str(), ", got ", brief(j));
  Tensor tensor = Tensor::empty(meta.dtype, meta.shape);
  visit_dtype(meta.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* data = tensor.mutable_data<T>();
    for (std::int64_t i = 0; i < count; ++i) {
      const Json& item = j[static_cast<std::size_t>(i)];
      std::string what = tl::detail::cat("value ", i);
      if constexpr (std::is_same_v<T, float>) {
        data[i] = read_real<float, std::uint32_t>(item, what);
      } else if constexpr (std::is_same_v<T, bool>) {
        if (!item.is_boolean()) fail(what, " must be true or false, got ", brief(item));
        data[i] = item.get<bool>();
      } else {
        data[i] = static_cast<T>(read_int(item, what, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
      }
    }
  });
  return tensor;
}

void Reader::read_node(const Json& j, std::size_t index) {
  place_ = tl::detail::cat("node ", index, ": ");
  if (!j.is_object()) fail("must be an object, got ", brief(j));
  std::string kind = read_string(field(j, "kind"), "kind");
  if (kind == "input") {
    check_object(j, "an input node", {"kind", "name", "dtype", "shape"});
    std::string name = j.contains("name") ? read_string(j["name"], "name") : std::string();
    graph_.add_input(read_meta(j, "input", true), std::move(name));
  } else if (kind == "const") {
    check_object(j, "a const node", {"kind", "dtype", "shape", "values"});
    graph_.add_constant(read_values(field(j, "values"), read_meta(j, "constant", false)));
  } else if (kind == "op") {
    check_object(j, "an op node", {"kind", "op", "inputs", "attrs", "outputs", "subgraphs", "variables"});
    read_op(j, index);
  } else if (kind == "variable" || kind == "assign") {
    read_variable_node(j, kind, index);
  } else {
    fail("unknown kind '", kind, "' (input, const, op, variable, assign)");
  }
}

void Reader::read_variable_node(const Json& j, const std::string& kind, std::size_t index) {
  if (kind == "variable") check_object(j, "a variable node", {"kind", "name", "id", "dtype", "shape"});
  else check_object(j, "an assign node", {"kind", "name", "id", "dtype", "shape", "input"});
  std::shared_ptr<tl::detail::VariableState> state = read_variable_state(j);
  if (kind == "variable") {
    graph_.add_variable(state);
    return;
  }
  ValueRef ref = read_ref(field(j, "input"), "input");
  if (ref.node >= index || !graph_.contains(ref)) fail("input refers to ", ref.str(), ", which is not an earlier value");
  try {
    graph_.add_assign(state, ref);
  } catch (const Error& e) {
    fail(e.what());
  }
}

std::shared_ptr<tl::detail::VariableState> Reader::read_variable_state(const Json& j) const {
  std::string name = read_string(field(j, "name"), "name");
  auto id = static_cast<std::uint64_t>(read_int(field(j, "id"), "id", 0, kMaxInt));
  TensorMeta meta = read_meta(j, "variable", false);
  // Variables are captured by handle: a loaded graph gets one fresh zero-valued variable per id (shared by its
  // sub-graphs); the caller assigns real values (e.g. from a checkpoint).
  if (bound_ && !variables_->count(id)) fail("variable id ", id, " ('", name, "') is not one of the given variables");
  auto& state = (*variables_)[id];
  if (state == nullptr) {
    state = std::make_shared<tl::detail::VariableState>();
    state->name = name;
    state->id = id;
    state->value = Tensor::empty(meta.dtype, meta.shape);
  } else if (!(state->value.meta() == meta)) {
    fail("variable id ", id, " appears as ", meta_str(state->value.meta()), " and as ", meta_str(meta));
  }
  return state;
}

std::vector<std::shared_ptr<const Graph>> Reader::read_subgraphs(const Json& j) const {
  if (!j.is_array()) fail("subgraphs must be an array of graph bodies, got ", brief(j));
  std::vector<std::shared_ptr<const Graph>> subgraphs;
  for (std::size_t i = 0; i < j.size(); ++i) {
    Reader nested(variables_, bound_, depth_ + 1);
    try {
      subgraphs.push_back(std::make_shared<const Graph>(nested.read_body(j[i])));
    } catch (const InvalidArgument& e) {
      fail("subgraph ", i, ": ", std::string(e.what()).substr(std::string("graph JSON: ").size()));
    }
  }
  return subgraphs;
}

std::vector<ValueRef> Reader::read_op_inputs(const Json& j, std::size_t index) const {
  if (!j.is_array()) fail("inputs must be an array of [node, output] pairs, got ", brief(j));
  std::vector<ValueRef> refs;
  for (std::size_t i = 0; i < j.size(); ++i) {
    ValueRef ref = read_ref(j[i], tl::detail::cat("input ", i));
    if (ref.node >= index)
      fail("input ", i, " refers to node ", ref.node,
           ref.node == index ? ", which is the node itself" : ", which comes later");
    std::size_t available = graph_.node(ref.node).outputs.size();
    if (ref.output >= available)
      fail("input ", i, " refers to output ", ref.output, " of node ", ref.node, ", which has ", available,
           " output(s)");
    refs.push_back(ref);
  }
  return refs;
}

void Reader::read_op(const Json& j, std::size_t index) {
  std::string name = read_string(field(j, "op"), "op");
  detail::register_graph_structured_ops();  // this layer's own; the layers above register theirs
  const OpDef* op = OpRegistry::global().find(name);
  if (op == nullptr) {
    place_.clear();
    if (j.contains("subgraphs"))
      fail("unknown op '", name, "' at node ", index, " (a structured op is registered by the layer that defines ",
           "it: tl::register_control_flow_ops() for cond / while_loop / while_grad, ",
           "tl::data::register_dataset_loop_op() for dataset_loop; tracelab/tracelab.h registers them all)");
    fail("unknown op '", name, "' at node ", index);
  }
  place_ = tl::detail::cat("node ", index, " (", name, "): ");
  std::vector<ValueRef> inputs = read_op_inputs(field(j, "inputs"), index);
  Attrs attrs = j.contains("attrs") ? read_attrs(j["attrs"]) : Attrs();
  std::vector<std::shared_ptr<const Graph>> subgraphs;
  if (j.contains("subgraphs")) subgraphs = read_subgraphs(j["subgraphs"]);
  std::vector<std::shared_ptr<tl::detail::VariableState>> variables;
  if (j.contains("variables")) {
    const Json& list = j["variables"];
    if (!list.is_array()) fail("variables must be an array of variables, got ", brief(list));
    for (std::size_t i = 0; i < list.size(); ++i) {
      check_object(list[i], "a variable", {"name", "id", "dtype", "shape"});
      variables.push_back(read_variable_state(list[i]));
    }
  }
  const Json& outputs = field(j, "outputs");
  if (!outputs.is_array()) fail("outputs must be an array of metas, got ", brief(outputs));
  std::vector<TensorMeta> stored;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    stored.push_back(read_meta(outputs[i], tl::detail::cat("output ", i), true));
  try {
    graph_.add_op(*op, inputs, attrs, std::move(subgraphs), std::move(variables));
  } catch (const Error& e) {
    fail("shape rule: ", e.what());
  }
  const std::vector<TensorMeta>& inferred = graph_.nodes().back().outputs;
  if (stored.size() != inferred.size()) fail("stores ", stored.size(), " output meta(s), the op has ", inferred.size());
  for (std::size_t i = 0; i < stored.size(); ++i)
    if (!(stored[i] == inferred[i]))
      fail("stored output ", i, " is ", meta_str(stored[i]), " but the shape rule gives ", meta_str(inferred[i]));
}

Graph Reader::read(const Json& doc) {
  check_object(doc, "the document", {"format", "version", "nodes", "outputs"});
  std::string format = read_string(field(doc, "format"), "format");
  if (format != detail::kFormatName) fail("format is '", format, "', expected '", detail::kFormatName, "'");
  std::int64_t version = read_int(field(doc, "version"), "version", kMinInt, kMaxInt);
  if (version != detail::kFormatVersion)
    fail("unsupported version ", version, " (this build reads version ", detail::kFormatVersion, ")");
  return read_body(doc);
}

Graph Reader::read_body(const Json& doc) {
  if (depth_ > 0) check_object(doc, "a subgraph", {"nodes", "outputs"});
  const Json& nodes = field(doc, "nodes");
  if (!nodes.is_array()) fail("nodes must be an array, got ", brief(nodes));
  for (std::size_t i = 0; i < nodes.size(); ++i) read_node(nodes[i], i);
  place_.clear();
  const Json& outputs = field(doc, "outputs");
  if (!outputs.is_array()) fail("outputs must be an array of [node, output] pairs, got ", brief(outputs));
  std::vector<ValueRef> refs;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    ValueRef ref = read_ref(outputs[i], tl::detail::cat("output ", i));
    if (!graph_.contains(ref))
      fail("output ", i, " refers to ", ref.str(), ", which is not in the graph (", graph_.num_nodes(), " nodes)");
    refs.push_back(ref);
  }
  graph_.set_outputs(std::move(refs));
  return std::move(graph_);
}

Graph load(std::string_view text, const VariableTable& variables, bool bound) {
  Json doc = parse(text);
  try {
    return Reader(std::make_shared<VariableTable>(variables), bound).read(doc);
  } catch (const nlohmann::json::exception& e) {  // a safety net: the reader checks types before reading
    throw InvalidArgument(std::string("graph JSON: ") + e.what());
  }
}

}  // namespace

Graph Graph::from_json(std::string_view text) { return load(text, {}, false); }

Graph Graph::from_json(std::string_view text, const VariableBinding& variables) { return load(text, variables, true); }

}  // namespace tl::graph
