// The saved-model format, its writer and its validating reader.
//
//   bytes 0-7    magic "TLSAVE" 0x00 0x01
//   bytes 8-15   header length L (uint64, little-endian)
//   bytes 16-19  CRC-32 of the header (uint32, little-endian)
//   next L       JSON header: {"format": "tracelab.saved_model", "version": 1,
//                  "functions": [{"name", "inputs": [{"name", "dtype", "shape"}], "outputs": [{"dtype", "shape"}],
//                                 "graph": "<the graph's JSON form, as a string>"}, ...],
//                  "variables": [{"id", "name", "dtype", "shape", "trainable"}, ...]}
//   the rest     the variables' values: a tl::Checkpoint (checkpoint.cpp) holding variable i under "<i>/<name>"
//
// Graphs name the variables they capture by id; the header's table maps each id to a variable, which load()
// creates once and binds into every graph (Graph::from_json with a binding).
#include "tracelab/nn/saved_model.h"

#include <array>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

#include "nn/detail/file_json.h"
#include "tracelab/nn/checkpoint.h"
#include "tracelab/tensor/creation.h"

namespace tl::saved_model {
namespace {

using Json = nlohmann::json;
using State = std::shared_ptr<tl::detail::VariableState>;
constexpr std::array<std::uint8_t, 8> kMagic{'T', 'L', 'S', 'A', 'V', 'E', 0, 1};
constexpr const char* kFormat = "tracelab.saved_model";
constexpr std::int64_t kVersion = 1;
constexpr std::size_t kHeaderStart = 20;
constexpr int kMaxHeaderDepth = 16;  // the header needs 5 levels (graphs are strings)

template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  throw InvalidArgument(tl::detail::cat("saved_model: ", parts...));
}

/// "float32 (None, 4)"
std::string spec_text(const TensorSpec& spec) { return tl::detail::cat(dtype_name(spec.dtype()), " ", spec.shape().str()); }
std::string meta_text(const TensorMeta& meta) { return tl::detail::cat(dtype_name(meta.dtype), " ", meta.shape.str()); }

Json spec_json(const TensorSpec& spec, bool with_name) {
  Json j{{"dtype", dtype_name(spec.dtype())}, {"shape", spec.shape().dims()}};
  if (with_name) j["name"] = spec.name();
  return j;
}

// ---- saving ----

/// Every variable `graph` (or a sub-graph) reads, assigns or updates, in order of first appearance.
void collect_variables(const graph::Graph& graph, std::vector<State>& out, std::set<const void*>& seen) {
  auto add = [&](const State& state) {
    if (state != nullptr && seen.insert(state.get()).second) out.push_back(state);
  };
  for (const graph::Node& node : graph.nodes()) {
    add(node.variable);
    for (const State& state : node.variables) add(state);
    for (const auto& sub : node.subgraphs) collect_variables(*sub, out, seen);
  }
}

/// A graph holding a resource (a dataset_loop node's C++ pipeline) cannot leave the process.
void check_savable(const std::string& name, const graph::Graph& graph) {
  for (std::size_t i = 0; i < graph.num_nodes(); ++i) {
    const graph::Node& node = graph.node(i);
    if (node.resource != nullptr)
      fail("function '", name, "': node ", i, " (", node.label(), ") holds a C++ object (a dataset) that a file ",
           "cannot hold; iterate the dataset outside the saved function");
    for (const auto& sub : node.subgraphs) check_savable(name, *sub);
  }
}

Json function_json(const Named& entry) {
  const ConcreteFunction& function = *entry.function;
  Json inputs = Json::array(), outputs = Json::array();
  for (const TensorSpec& spec : function.input_specs()) inputs.push_back(spec_json(spec, true));
  for (const TensorSpec& spec : function.output_specs()) outputs.push_back(spec_json(spec, false));
  return {{"name", entry.name}, {"inputs", inputs}, {"outputs", outputs}, {"graph", function.graph().to_json()}};
}

void append_le(std::vector<std::uint8_t>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

// ---- loading ----

/// A JSON value for a message, cut to 40 characters.
std::string brief(const Json& j) {
  std::string text = j.dump();
  return text.size() <= 40 ? text : text.substr(0, 37) + "...";
}

std::int64_t read_int(const Json& j, const std::string& what, std::int64_t lo, std::int64_t hi) {
  if (!j.is_number_integer()) fail(what, " must be an integer, got ", brief(j));
  bool too_big = j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(hi);
  std::int64_t value = too_big ? hi : j.get<std::int64_t>();
  if (too_big || value < lo || value > hi) fail(what, " is ", brief(j), ", expected ", lo, "..", hi);
  return value;
}

const Json& field(const Json& object, const char* key, const std::string& what) {
  if (!object.is_object()) fail(what, " must be an object, got ", object.type_name());
  auto it = object.find(key);
  if (it == object.end()) fail(what, " has no '", key, "'");
  return *it;
}

std::string read_string(const Json& object, const char* key, const std::string& what) {
  const Json& j = field(object, key, what);
  if (!j.is_string()) fail(what, " '", key, "' must be a string, got ", j.type_name());
  return j.get<std::string>();
}

const Json& read_array(const Json& object, const char* key, const std::string& what) {
  const Json& j = field(object, key, what);
  if (!j.is_array()) fail(what, " '", key, "' must be an array, got ", j.type_name());
  return j;
}

DType read_dtype(const Json& object, const std::string& what) {
  std::string name = read_string(object, "dtype", what);
  for (DType dtype : {DType::float32, DType::int32, DType::bool_})
    if (dtype_name(dtype) == name) return dtype;
  fail(what, " has dtype '", name, "', not float32, int32 or bool");
}

/// A spec; `unknown_dims` allows -1 (function inputs and outputs), variables have every dim known.
TensorSpec read_spec(const Json& object, const std::string& what, bool unknown_dims) {
  DType dtype = read_dtype(object, what);
  std::vector<std::int64_t> dims;
  for (const Json& dim : read_array(object, "shape", what))
    dims.push_back(read_int(dim, what + " dim", unknown_dims ? -1 : 0, std::int64_t{1} << 40));
  std::string name = object.contains("name") ? read_string(object, "name", what) : std::string();
  return TensorSpec(Shape(std::move(dims)), dtype, std::move(name));
}

/// Whether a tensor of `shape` with elements of `element_bytes` fits in `limit` bytes (no overflow on the way): a
/// crafted shape must not make the loader ask for terabytes.
bool fits(const Shape& shape, std::uint64_t element_bytes, std::uint64_t limit) {
  std::uint64_t bytes = element_bytes;
  for (std::int64_t dim : shape.dims()) {
    if (dim == 0) return true;
    if (bytes > limit / static_cast<std::uint64_t>(dim)) return false;
    bytes *= static_cast<std::uint64_t>(dim);
  }
  return bytes <= limit;
}

/// The variables of the table, created with zeros and then restored from the checkpoint data (which validates
/// every dtype, shape, size and checksum against them).
std::vector<Variable> read_variables(const Json& table, std::span<const std::uint8_t> data,
                                     graph::Graph::VariableBinding& binding) {
  std::vector<Variable> variables;
  Checkpoint values;
  for (std::size_t i = 0; i < table.size(); ++i) {
    std::string what = tl::detail::cat("variable ", i);
    const Json& entry = table[i];
    auto id = static_cast<std::uint64_t>(read_int(field(entry, "id", what), what + " id", 0, std::numeric_limits<std::int64_t>::max()));
    std::string name = read_string(entry, "name", what);
    const Json& trainable = field(entry, "trainable", what);
    if (!trainable.is_boolean()) fail(what, " 'trainable' must be true or false");
    TensorSpec spec = read_spec(entry, what, false);
    if (!fits(spec.shape(), dtype_size(spec.dtype()), data.size()))
      fail(what, " ('", name, "') is ", spec_text(spec), ", more than the file's ", data.size(), " bytes of data");
    if (binding.count(id)) fail("two variables have id ", id);
    Variable variable(tl::zeros(spec.shape(), spec.dtype()), name, trainable.get<bool>());
    binding[id] = variable.state();
    values.add(std::to_string(i), {variable});
    variables.push_back(variable);
  }
  try {
    values.from_bytes(data);
  } catch (const InvalidArgument& e) {
    fail("the variable values: ", e.what());
  }
  return variables;
}

/// Checks that the graph takes and returns what the header declares.
void check_graph_signature(const std::string& what, const graph::Graph& graph, const Signature& signature) {
  std::vector<graph::ValueRef> inputs = graph.inputs();
  if (inputs.size() != signature.inputs.size())
    fail(what, ": the header declares ", signature.inputs.size(), " input(s), the graph takes ", inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!(signature.inputs[i].meta() == graph.meta(inputs[i])))
      fail(what, ": the header declares input ", i, " '", signature.inputs[i].name(), "' as ",
           spec_text(signature.inputs[i]), ", the graph takes ", meta_text(graph.meta(inputs[i])));
  if (graph.outputs().size() != signature.outputs.size())
    fail(what, ": the header declares ", signature.outputs.size(), " output(s), the graph returns ",
         graph.outputs().size());
  for (std::size_t i = 0; i < graph.outputs().size(); ++i)
    if (!(signature.outputs[i].meta() == graph.meta(graph.outputs()[i])))
      fail(what, ": the header declares output ", i, " as ", spec_text(signature.outputs[i]), ", the graph returns ",
           meta_text(graph.meta(graph.outputs()[i])));
}

LoadedFunction read_function(const Json& entry, std::size_t index, const graph::Graph::VariableBinding& binding) {
  std::string what = tl::detail::cat("function ", index);
  Signature signature{read_string(entry, "name", what), {}, {}};
  if (signature.name.empty()) fail(what, " has an empty name");
  what = "function '" + signature.name + "'";
  for (const Json& spec : read_array(entry, "inputs", what))
    signature.inputs.push_back(read_spec(spec, what + " input", true));
  for (const Json& spec : read_array(entry, "outputs", what))
    signature.outputs.push_back(read_spec(spec, what + " output", true));
  graph::Graph graph;
  try {
    graph = graph::Graph::from_json(read_string(entry, "graph", what), binding);
  } catch (const InvalidArgument& e) {
    fail(what, ": ", e.what());
  }
  check_graph_signature(what, graph, signature);
  std::vector<ArgKey> key;
  std::vector<std::string> names;
  for (const TensorSpec& spec : signature.inputs) {
    key.emplace_back(spec);
    names.push_back(spec.name());
  }
  // The saved graph is the optimized one: no pass runs again, so the loaded function computes what the saved one
  // did, bit for bit.
  graph::OptimizeOptions none{false, false, false, false, false, false};
  auto function = std::make_shared<ConcreteFunction>(signature.name, TraceKey(std::move(key)), std::move(names),
                                                     std::move(graph), none);
  return LoadedFunction(std::move(function), std::move(signature));
}

SavedModel read_model(const Json& header, std::span<const std::uint8_t> data) {
  if (!header.is_object()) fail("the header is not a JSON object");
  if (!header.contains("format") || header["format"] != kFormat)
    fail("the header's format is not '", kFormat, "' (not a saved model)");
  std::int64_t version = read_int(field(header, "version", "the header"), "version", 0, std::numeric_limits<std::int32_t>::max());
  if (version != kVersion) fail("unsupported version ", version, " (this build reads version ", kVersion, ")");
  graph::Graph::VariableBinding binding;
  std::vector<Variable> variables = read_variables(read_array(header, "variables", "the header"), data, binding);
  const Json& list = read_array(header, "functions", "the header");
  std::vector<LoadedFunction> functions;
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    functions.push_back(read_function(list[i], i, binding));
    if (!names.insert(functions.back().name()).second) fail("two functions are named '", functions.back().name(), "'");
  }
  return SavedModel(std::move(functions), std::move(variables));
}

}  // namespace

std::string Signature::str() const {
  std::ostringstream out;
  out << name << '(';
  for (std::size_t i = 0; i < inputs.size(); ++i)
    out << (i ? ", " : "") << (inputs[i].name().empty() ? "arg" + std::to_string(i) : inputs[i].name()) << ": "
        << spec_text(inputs[i]);
  out << ") -> (";
  for (std::size_t i = 0; i < outputs.size(); ++i) out << (i ? ", " : "") << spec_text(outputs[i]);
  out << ')';
  return out.str();
}

LoadedFunction::LoadedFunction(std::shared_ptr<ConcreteFunction> function, Signature signature)
    : function_(std::move(function)), signature_(std::move(signature)) {}

std::vector<Tensor> LoadedFunction::operator()(std::span<const Tensor> inputs) const {
  const std::vector<TensorSpec>& specs = signature_.inputs;
  if (inputs.size() != specs.size()) fail("function '", name(), "' takes ", specs.size(), " argument(s), got ", inputs.size(), ": ", signature_.str());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::string argument = specs[i].name().empty() ? tl::detail::cat(i) : "'" + specs[i].name() + "'";
    if (!inputs[i].defined()) fail("function '", name(), "': argument ", argument, " is an empty Tensor handle");
    if (!specs[i].is_compatible_with(inputs[i].meta()))
      fail("function '", name(), "': argument ", argument, " expects ", spec_text(specs[i]), ", got ",
           meta_text(inputs[i].meta()));
  }
  return function_->call(inputs);
}

SavedModel::SavedModel(std::vector<LoadedFunction> functions, std::vector<Variable> variables)
    : functions_(std::move(functions)), variables_(std::move(variables)) {}

const LoadedFunction& SavedModel::function(const std::string& name) const {
  for (const LoadedFunction& f : functions_)
    if (f.name() == name) return f;
  std::string saved;
  for (const LoadedFunction& f : functions_) saved += (saved.empty() ? "'" : ", '") + f.name() + "'";
  fail("no function named '", name, "' (the model has ", saved.empty() ? "none" : saved, ")");
}

bool SavedModel::has_function(const std::string& name) const noexcept {
  for (const LoadedFunction& f : functions_)
    if (f.name() == name) return true;
  return false;
}

std::vector<std::string> SavedModel::function_names() const {
  std::vector<std::string> names;
  for (const LoadedFunction& f : functions_) names.push_back(f.name());
  return names;
}

std::vector<Signature> SavedModel::signatures() const {
  std::vector<Signature> out;
  for (const LoadedFunction& f : functions_) out.push_back(f.signature());
  return out;
}

Named::Named(std::string name, AnyFunction& traced) : name(std::move(name)), function(nullptr) {
  const InputSignature& signature = traced.options().input_signature;
  if (traced.concrete_functions().empty() && signature.present()) {
    std::vector<AnyArg> specs(signature.specs().begin(), signature.specs().end());
    traced.get_concrete_function(specs);
  }
  function = only_concrete_function(this->name, traced.concrete_functions());
}

const ConcreteFunction* Named::only_concrete_function(const std::string& name,
                                                      const std::vector<const ConcreteFunction*>& functions) {
  if (functions.size() != 1)
    fail("'", name, "' has ", functions.size(), " concrete functions; save one: call the function once or pass ",
         "get_concrete_function(...)");
  return functions.front();
}

std::vector<std::uint8_t> to_bytes(std::span<const Named> functions) {
  Json list = Json::array();
  std::vector<State> states;
  std::set<const void*> seen;
  std::set<std::string> names;
  for (const Named& entry : functions) {
    if (entry.name.empty()) fail("a function needs a name");
    if (!names.insert(entry.name).second) fail("two functions are named '", entry.name, "'");
    TL_CHECK(entry.function != nullptr, InvalidArgument, "saved_model: function '", entry.name, "' is null");
    check_savable(entry.name, entry.function->graph());
    collect_variables(entry.function->graph(), states, seen);
    list.push_back(function_json(entry));
  }
  Json table = Json::array();
  std::set<std::uint64_t> ids;
  Checkpoint values;
  for (std::size_t i = 0; i < states.size(); ++i) {
    Variable variable = Variable::from_state(states[i]);
    if (!ids.insert(variable.id()).second) fail("two different variables have id ", variable.id(), " ('", variable.name(), "')");
    table.push_back({{"id", variable.id()}, {"name", variable.name()}, {"dtype", dtype_name(variable.dtype())},
                     {"shape", variable.shape().dims()}, {"trainable", variable.trainable()}});
    values.add(std::to_string(i), {variable});
  }
  std::string header;
  try {
    header = Json{{"format", kFormat}, {"version", kVersion}, {"functions", list}, {"variables", table}}.dump();
  } catch (const Json::exception& e) {  // a name that is not UTF-8
    fail("cannot write the header: ", e.what());
  }
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  append_le(out, header.size(), 8);
  append_le(out, tl::detail::checkpoint_crc32(std::span(reinterpret_cast<const std::uint8_t*>(header.data()), header.size())), 4);
  out.insert(out.end(), header.begin(), header.end());
  std::vector<std::uint8_t> data = values.to_bytes();
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<std::uint8_t> to_bytes(std::initializer_list<Named> functions) {
  return to_bytes(std::span<const Named>(functions.begin(), functions.size()));
}

void save(const std::string& path, std::span<const Named> functions) {
  tl::detail::write_file_atomically(path, to_bytes(functions), "saved_model");
}

void save(const std::string& path, std::initializer_list<Named> functions) {
  save(path, std::span<const Named>(functions.begin(), functions.size()));
}

SavedModel from_bytes(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kHeaderStart || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin()))
    fail("not a tracelab saved model (bad magic or shorter than ", kHeaderStart, " bytes)");
  std::uint64_t length = 0;
  std::uint32_t crc = 0;
  for (std::size_t i = 0; i < 8; ++i) length |= static_cast<std::uint64_t>(bytes[8 + i]) << (8 * i);
  for (std::size_t i = 0; i < 4; ++i) crc |= static_cast<std::uint32_t>(bytes[16 + i]) << (8 * i);
  if (length > bytes.size() - kHeaderStart) fail("the header is cut off (the file is truncated)");
  std::span<const std::uint8_t> header = bytes.subspan(kHeaderStart, length);
  if (tl::detail::checkpoint_crc32(header) != crc) fail("the header fails its checksum (the file is corrupt)");
  try {
    Json parsed = tl::detail::parse_file_json(header, kMaxHeaderDepth, "saved_model", "header");
    return read_model(parsed, bytes.subspan(kHeaderStart + length));
  } catch (const Json::exception& e) {  // a safety net: the reader checks types before reading
    fail("malformed header: ", e.what());
  } catch (const InvalidArgument&) {
    throw;
  } catch (const Error& e) {  // a safety net: rebuilding a validated graph's function should not fail
    fail(e.what());
  }
}

SavedModel load(const std::string& path) { return from_bytes(tl::detail::read_file(path, "saved_model")); }

}  // namespace tl::saved_model
