// Tensors, ops, variables and gradient tapes for JavaScript, by handle: data is copied in and out as typed
// arrays (never views into WASM memory, which may move), ops run through the one funnel, errors become JS
// Errors named after the C++ class.
#include <emscripten/bind.h>
#include <emscripten/heap.h>

#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "adapters.h"
#include "handles.h"
#include "tracelab/base/local_array.h"

namespace tl::wasm {

HandleTable<Tensor>& tensors() {
  static HandleTable<Tensor> table("tensor");
  return table;
}
HandleTable<Variable>& variables() {
  static HandleTable<Variable> table("variable");
  return table;
}
double variable_handle(const Variable& v) {
  static std::map<std::uint64_t, double> known;  // by Variable::id(), unique for the process
  auto it = known.find(v.id());
  if (it != known.end())
    if (const Variable* existing = variables().find(it->second); existing != nullptr && *existing == v) return it->second;
  double id = variables().add(v);
  known[v.id()] = id;
  return id;
}

HandleTable<std::unique_ptr<GradientTape>>& tapes() {
  static HandleTable<std::unique_ptr<GradientTape>> table("GradientTape");
  return table;
}

std::vector<Tensor> call_js(const val& callback, const std::vector<Tensor>& inputs) {
  val ids = handles_of(inputs);
  val result = callback(ids);
  std::vector<Tensor> outputs;
  std::string error_kind, error_message;
  if (!result["error"].isUndefined()) {
    error_kind = result["error"]["name"].as<std::string>();
    error_message = result["error"]["message"].as<std::string>();
  } else {
    outputs = take_tensors(result["outputs"], "a JS callback's outputs");
  }
  for (unsigned i = 0, n = length_of(ids); i < n; ++i) tensors().remove(ids[i].as<double>());
  if (!error_kind.empty()) rethrow_as(error_kind, error_message);
  return outputs;
}

void throw_js_error(const std::string& kind, const std::string& message) {
  val error = val::global("Error").new_(val(message));
  error.set("name", val(kind));
  error.throw_();
  __builtin_unreachable();
}

void rethrow_as(const std::string& kind, const std::string& message) {
  if (kind == "ShapeError") throw ShapeError(message);
  if (kind == "DTypeError") throw DTypeError(message);
  if (kind == "OutOfMemory") throw OutOfMemory(message);
  if (kind == "OperatorNotAllowedInGraphError") throw OperatorNotAllowedInGraph(message);
  throw InvalidArgument(message);
}

namespace {

/// 2^63 as a double: a JS number below it (and at least -2^63) converts to int64 exactly when it is an integer.
constexpr double kTwoTo63 = 9223372036854775808.0;

/// A JS number as JS would print an integer ("1099511627776", not "1.09951e+12"); other values as %.17g.
std::string number_str(double value) {
  if (value == std::floor(value) && std::fabs(value) <= 9007199254740991.0)  // Number.MAX_SAFE_INTEGER
    return std::to_string(static_cast<std::int64_t>(value));
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace

Ints to_ints(const val& array, const std::string& what) {
  TL_CHECK(is_array(array), InvalidArgument, what, " must be an array of integers");
  Ints out;
  for (unsigned i = 0, n = length_of(array); i < n; ++i) {
    val item = array[i];
    TL_CHECK(item.typeOf().as<std::string>() == "number" && is_integer(item), InvalidArgument, what,
             " must hold integers, item ", i, " is not one");
    const double value = item.as<double>();
    TL_CHECK(value >= -kTwoTo63 && value < kTwoTo63, InvalidArgument, what,
             " must hold integers that fit in int64, item ", i, " is ", number_str(value));
    out.push_back(static_cast<std::int64_t>(value));
  }
  return out;
}

val dims_to_js(const Shape& shape) {
  val out = val::array();
  for (auto d : shape.dims()) out.call<void>("push", val(static_cast<double>(d)));
  return out;
}

val specs_to_js(const std::vector<TensorSpec>& specs) {
  val out = val::array();
  for (const TensorSpec& spec : specs) {
    val o = val::object();
    if (!spec.name().empty()) o.set("name", spec.name());
    o.set("dtype", std::string(dtype_name(spec.dtype())));
    o.set("shape", dims_to_js(spec.shape()));
    out.call<void>("push", o);
  }
  return out;
}

namespace {

Tensor make_tensor(const val& values, const val& shape_js, const std::string& dtype_text) {
  DType dtype = dtype_from_name(dtype_text);
  Ints dims = to_ints(shape_js, "tensor: shape");
  for (auto d : dims) TL_CHECK(d >= 0, InvalidArgument, "tensor: shape has a negative dim ", d);
  Shape shape(dims);
  TL_CHECK(!values.isUndefined() && !values.isNull() && !values["length"].isUndefined(), InvalidArgument,
           "tensor: values must be an array or a typed array");
  switch (dtype) {
    case DType::float32: return constant(emscripten::convertJSArrayToNumberVector<float>(values), shape);
    case DType::int32: return constant(emscripten::convertJSArrayToNumberVector<std::int32_t>(values), shape);
    case DType::bool_: break;
  }
  auto bytes = emscripten::convertJSArrayToNumberVector<int>(values);
  return constant(std::vector<bool>(bytes.begin(), bytes.end()), shape);
}

val values_of(const Tensor& t) {
  TL_CHECK(!t.is_symbolic(), OperatorNotAllowedInGraph, "dataSync: a symbolic tensor ", meta_str(t.meta()),
           " has no values while its function is being traced; return it from the function, or use tl.print; to"
           " branch or loop on it, convert the code with tl.autograph");
  auto n = static_cast<std::size_t>(t.num_elements());
  switch (t.dtype()) {  // new TypedArray(view) copies out of WASM memory, which may move later
    case DType::float32: return val::global("Float32Array").new_(emscripten::typed_memory_view(n, t.data<float>()));
    case DType::int32:
      return val::global("Int32Array").new_(emscripten::typed_memory_view(n, t.data<std::int32_t>()));
    case DType::bool_: break;
  }
  return val::global("Uint8Array").new_(
      emscripten::typed_memory_view(n, reinterpret_cast<const std::uint8_t*>(t.data<bool>())));
}

AttrValue to_attr(const OpDef& op, const AttrSpec& spec, const val& v) {
  std::string type = v.typeOf().as<std::string>();
  auto expect = [&](bool ok) {
    TL_CHECK(ok, InvalidArgument, op.name(), ": attribute '", spec.name, "' must be of type ",
             attr_type_name(spec.type_index), ", got a JavaScript ", type);
  };
  switch (spec.type_index) {
    case 0: expect(type == "boolean"); return v.as<bool>();
    case 1: expect(type == "number" && is_integer(v)); return static_cast<std::int64_t>(v.as<double>());
    case 2: expect(type == "number"); return v.as<double>();
    case 3: expect(type == "string"); return v.as<std::string>();
    case 4: return to_ints(v, op.name() + ": attribute '" + spec.name + "'");
    default:
      expect(type == "string");
      try {
        return dtype_from_name(v.as<std::string>());
      } catch (const Error&) {  // the core's "unknown dtype" names no op: tl.runOp('cast', ..., {dtype: 'float64'})
        detail::rethrow_prefixed(op.name() + ": attribute '" + spec.name + "': ");
      }
  }
}

Attrs to_attrs(const OpDef& op, const val& js) {
  Attrs attrs;
  if (js.isUndefined() || js.isNull()) return attrs;
  TL_CHECK(js.typeOf().as<std::string>() == "object", InvalidArgument, op.name(), ": attributes must be an object");
  val entries = val::global("Object").call<val>("entries", js);
  for (unsigned i = 0, n = length_of(entries); i < n; ++i) {
    auto name = entries[i][0].as<std::string>();
    const AttrSpec* spec = nullptr;
    for (const auto& candidate : op.attr_specs())
      if (candidate.name == name) spec = &candidate;
    TL_CHECK(spec != nullptr, InvalidArgument, op.name(), ": unknown attribute '", name, "'");
    attrs.set(name, to_attr(op, *spec, entries[i][1]));
  }
  return attrs;
}

/// Runs `op` on tensors; returns its outputs.
std::vector<Tensor> run(const OpDef& op, std::vector<Tensor> inputs, const val& attrs) {
  Attrs typed = to_attrs(op, attrs);
  std::vector<Tensor> outputs(op.num_outputs(typed, {}));  // a structured op: an error naming its sub-graphs
  execute(op, inputs, typed, outputs);
  return outputs;
}

}  // namespace

val handles_of(const std::vector<Tensor>& list) {
  val out = val::array();
  for (const Tensor& t : list) out.call<void>("push", val(tensors().add(t)));
  return out;
}

namespace {
/// The byte address of a concrete tensor's values in the module's memory; 0 for a symbolic one (no values).
double values_address(const Tensor& t) {
  const auto& values = t.impl().buffer;
  return values ? static_cast<double>(reinterpret_cast<std::uintptr_t>(values->data())) : 0;
}
}  // namespace

double results_of(std::span<const Tensor> list) {
  static std::vector<double> buffer;
  std::size_t words = 1;
  for (const Tensor& t : list) words += 5 + (t.defined() ? t.shape().dims().size() : 0);
  if (buffer.size() < words) buffer.resize(words);
  double* out = buffer.data();
  *out++ = static_cast<double>(list.size());
  for (const Tensor& t : list) {
    if (!t.defined()) {  // no tensor (a source the target does not depend on): handle 0, never issued
      out = std::fill_n(out, 5, 0.0);
      continue;
    }
    *out++ = tensors().add(t);
    *out++ = dtype_code(t.dtype());
    *out++ = t.is_symbolic() ? 1 : 0;
    *out++ = values_address(t);  // a tensor's values never move: JS reads them there (dataSync)
    *out++ = static_cast<double>(t.rank());
    for (std::int64_t d : t.shape().dims()) *out++ = static_cast<double>(d);
  }
  return static_cast<double>(reinterpret_cast<std::uintptr_t>(buffer.data()));
}

double data_of(std::span<const Tensor> list, std::string_view what) {
  static std::vector<double> buffer;
  // The float64 words a tensor's values take in the buffer (8-byte aligned).
  const auto words_of = [](const Tensor& t) {
    const auto bytes = static_cast<std::size_t>(t.num_elements()) * dtype_size(t.dtype());
    return (bytes + sizeof(double) - 1) / sizeof(double);
  };
  std::size_t entries = 1, words = 0;  // the count and the entries; the values after them
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Tensor& t = list[i];
    entries += 4;
    if (!t.defined()) continue;
    TL_CHECK(!t.is_symbolic(), OperatorNotAllowedInGraph, what, ": output ", i, " is a symbolic tensor ",
             meta_str(t.meta()), " (the function was called while another is being traced): its values do not "
             "exist yet; call the function itself there, for tensors");
    entries += static_cast<std::size_t>(t.shape().rank());
    words += words_of(t);
  }
  if (buffer.size() < entries + words) buffer.resize(entries + words);
  double* head = buffer.data();
  double* values = head + entries;  // each tensor's values copied here
  *head++ = static_cast<double>(list.size());
  for (const Tensor& t : list) {
    if (!t.defined()) {  // no tensor: dtype, address and count -1 (read as null), rank 0
      head = std::fill_n(head, 3, -1.0);
      *head++ = 0;
      continue;
    }
    const auto count = static_cast<std::size_t>(t.num_elements());
    *head++ = dtype_code(t.dtype());
    *head++ = static_cast<double>(reinterpret_cast<std::uintptr_t>(values));
    *head++ = static_cast<double>(count);
    *head++ = static_cast<double>(t.shape().rank());
    for (std::int64_t d : t.shape().dims()) *head++ = static_cast<double>(d);
    if (count > 0) std::memcpy(values, t.impl().buffer->data(), count * dtype_size(t.dtype()));
    values += words_of(t);
  }
  return static_cast<double>(reinterpret_cast<std::uintptr_t>(buffer.data()));
}

namespace {
std::vector<double>& staging() {
  static std::vector<double> area(16);
  return area;
}
}  // namespace

std::span<const double> staged_numbers(double count, std::string_view what) {
  const std::vector<double>& area = staging();
  TL_CHECK(count >= 0 && count <= static_cast<double>(area.size()), InvalidArgument, what, ": ", count,
           " staged values, the staging area holds ", area.size());
  return {area.data(), static_cast<std::size_t>(count)};
}

double dtype_code(DType dtype) noexcept { return dtype == DType::float32 ? 0 : dtype == DType::int32 ? 1 : 2; }

DType dtype_of_code(double code, std::string_view what) {
  TL_CHECK(code == 0 || code == 1 || code == 2, InvalidArgument, what, ": dtype code ", code,
           " (expected 0 float32, 1 int32 or 2 bool)");
  return code == 0 ? DType::float32 : code == 1 ? DType::int32 : DType::bool_;
}

double staging_area(double count) {
  TL_CHECK(count >= 0 && count <= 1e6, InvalidArgument, "staging area: ", count, " handles requested");
  std::vector<double>& area = staging();
  if (area.size() < static_cast<std::size_t>(count)) area.resize(static_cast<std::size_t>(count));
  return static_cast<double>(reinterpret_cast<std::uintptr_t>(area.data()));
}

void tensors_into(std::span<const double> ids, std::span<Tensor> out) {
  for (std::size_t i = 0; i < ids.size(); ++i) out[i] = tensors().get(ids[i]);
}

std::vector<Tensor> tensors_of(std::span<const double> ids) {
  std::vector<Tensor> out(ids.size());
  tensors_into(ids, out);
  return out;
}

std::vector<Variable> variables_of(std::span<const double> ids) {
  std::vector<Variable> out;
  out.reserve(ids.size());
  for (double id : ids) out.push_back(variables().get(id));
  return out;
}

std::vector<Tensor> tensors_of(const val& ids, const std::string& what) {
  TL_CHECK(is_array(ids), InvalidArgument, what, ": expected an array of tensors");
  std::vector<Tensor> out;
  for (unsigned i = 0, n = length_of(ids); i < n; ++i) {
    TL_CHECK(ids[i].typeOf().as<std::string>() == "number", InvalidArgument, what, ": item ", i,
             " is not a tensor");
    out.push_back(tensors().get(ids[i].as<double>()));
  }
  return out;
}

std::vector<Tensor> take_tensors(const val& ids, const std::string& what) {
  std::vector<Tensor> out = tensors_of(ids, what);
  for (unsigned i = 0, n = length_of(ids); i < n; ++i) tensors().remove(ids[i].as<double>());
  return out;
}

TensorSpec to_spec(const val& spec, const std::string& what) {
  TL_CHECK(spec.typeOf().as<std::string>() == "object" && !spec.isNull(), InvalidArgument, what,
           " must be a TensorSpec {shape, dtype}");
  std::string dtype = spec["dtype"].isUndefined() ? "float32" : spec["dtype"].as<std::string>();
  std::string name = spec["name"].isUndefined() || spec["name"].isNull() ? "" : spec["name"].as<std::string>();
  return TensorSpec(Shape(to_ints(spec["shape"], what + ".shape")), dtype_from_name(dtype), name);
}

std::string version() { return tl::version; }

namespace {
/// The ops in the order op_names() listed them: op_call_staged names an op by its index in that list.
std::vector<const OpDef*>& listed_ops() {
  static std::vector<const OpDef*> ops;
  return ops;
}
}  // namespace

val op_names() {
  listed_ops() = OpRegistry::global().all();
  val out = val::array();
  for (const OpDef* op : listed_ops()) out.call<void>("push", val(op->name()));
  return out;
}

val op_info(const std::string& name) {
  return guarded([&] {
    const OpDef& op = OpRegistry::global().get(name);
    val attrs = val::array();
    for (const auto& spec : op.attr_specs()) {
      val a = val::object();
      a.set("name", spec.name);
      a.set("type", std::string(attr_type_name(spec.type_index)));
      a.set("required", spec.required);
      attrs.call<void>("push", a);
    }
    val info = val::object();
    info.set("name", op.name());
    info.set("doc", op.doc());
    info.set("inputs", op.num_inputs());
    info.set("minInputs", op.min_inputs());
    info.set("outputs", op.num_outputs());  // -1: decided per node by its sub-graphs
    info.set("subgraphs", op.num_subgraphs());
    info.set("attrs", attrs);
    info.set("differentiable", !op.has(trait::not_differentiable));
    return info;
  });
}

val run_op(const std::string& name, const val& inputs, const val& attrs) {
  return guarded([&] {
    TL_CHECK(is_array(inputs), InvalidArgument, name, ": inputs must be an array of tensors");
    std::vector<Tensor> in;
    for (unsigned i = 0, n = length_of(inputs); i < n; ++i) {
      val item = inputs[i];
      TL_CHECK(item.typeOf().as<std::string>() == "object" && !item.isNull(), InvalidArgument, "input ", i,
               " must be an object {dtype, shape, values}");
      val dtype = item["dtype"];
      in.push_back(make_tensor(item["values"], item["shape"], dtype.isUndefined() ? "float32" : dtype.as<std::string>()));
    }
    std::vector<Tensor> out = run(OpRegistry::global().get(name), std::move(in), attrs);
    auto plain = [](const Tensor& t) {
      val o = val::object();
      o.set("dtype", std::string(dtype_name(t.dtype())));
      o.set("shape", dims_to_js(t.shape()));
      o.set("values", values_of(t));
      return o;
    };
    if (out.size() == 1) return plain(out[0]);
    val list = val::array();
    for (const auto& t : out) list.call<void>("push", plain(t));
    return list;
  });
}

val tensor_new(const val& values, const val& shape, const std::string& dtype) {
  return guarded([&] { return val(tensors().add(make_tensor(values, shape, dtype))); });
}

double tensor_new_staged(double code, double rank, double count) {
  return guarded([&] {
    const DType dtype = dtype_of_code(code, "tensor");
    TL_CHECK(rank >= 0 && rank == std::floor(rank) && count >= 0 && count == std::floor(count), InvalidArgument,
             "tensor: ", rank, " dims and ", count, " values staged");
    const std::span<const double> words = staged_numbers(rank + count, "tensor");
    const auto r = static_cast<std::size_t>(rank);
    // Dims as tl.zeros takes them: non-negative integers that fit in int64 (toShape has checked they are integers).
    for (std::size_t i = 0; i < r; ++i)
      TL_CHECK(words[i] >= 0 && words[i] == std::floor(words[i]) && words[i] < kTwoTo63, InvalidArgument,
               "tensor: dim ", i, " of the shape is ", number_str(words[i]), "; expected an integer in 0..2^63 - 1");
    const Shape shape(Ints(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(r)));
    TL_CHECK(shape.num_elements() == static_cast<std::int64_t>(count), ShapeError, "tensor: ", number_str(count),
             " values do not fill shape ", shape.str());
    Tensor t = Tensor::empty(dtype, shape);
    const double* values = words.data() + r;
    const auto n = static_cast<std::size_t>(count);
    switch (dtype) {
      case DType::float32:
        for (std::size_t i = 0; i < n; ++i) t.mutable_data<float>()[i] = static_cast<float>(values[i]);
        break;
      case DType::int32:
        for (std::size_t i = 0; i < n; ++i) {
          TL_CHECK(values[i] == std::floor(values[i]) && values[i] >= INT32_MIN && values[i] <= INT32_MAX,
                   InvalidArgument, "tensor: value ", i, " (", values[i], ") is not an int32");
          t.mutable_data<std::int32_t>()[i] = static_cast<std::int32_t>(values[i]);
        }
        break;
      case DType::bool_:
        for (std::size_t i = 0; i < n; ++i) t.mutable_data<bool>()[i] = values[i] != 0;
        break;
    }
    return results_of(t);
  });
}

val tensor_fill(const val& shape, double value, const std::string& dtype_text) {
  return guarded([&] {
    DType dtype = dtype_from_name(dtype_text);
    Ints dims = to_ints(shape, "fill: shape");  // negative dims: the core's error (Tensor::empty)
    Tensor v;
    if (dtype == DType::float32) {
      v = scalar(static_cast<float>(value));
    } else if (dtype == DType::int32) {  // casting a non-integer or out-of-range double to int32 is UB
      TL_CHECK(value == std::floor(value) && value >= INT32_MIN && value <= INT32_MAX, InvalidArgument,
               "fill: the value ", value, " is not an int32");
      v = scalar(static_cast<std::int32_t>(value));
    } else {
      v = scalar(value != 0);
    }
    return val(tensors().add(fill(Shape(dims), v)));
  });
}

val tensor_range(double start, double limit, double delta, const std::string& dtype) {
  return guarded([&] { return val(tensors().add(range(start, limit, delta, dtype_from_name(dtype)))); });
}

val tensor_meta(double id) {
  return guarded([&] {
    const Tensor& t = tensors().get(id);
    val meta = val::object();
    meta.set("shape", dims_to_js(t.shape()));
    meta.set("dtype", std::string(dtype_name(t.dtype())));
    meta.set("symbolic", t.is_symbolic());
    return meta;
  });
}

val tensor_values(double id) {
  return guarded([&] { return values_of(tensors().get(id)); });
}

val tensor_str(double id) {
  return guarded([&] { return val(tensors().get(id).str()); });
}

bool tensor_dispose(double id) { return tensors().remove(id); }

double tensor_dispose_staged(double count) {
  return guarded([&] {
    double removed = 0;
    for (double id : staged_numbers(count, "dispose")) removed += tensors().remove(id) ? 1 : 0;
    return removed;
  });
}

val tensor_retain(double id) {
  return guarded([&] { return val(tensors().add(tensors().get(id))); });
}

val memory() {
  val out = val::object();
  // Bytes of values, each buffer once: handles may share one (a second handle to a tensor, or a view such as an
  // eager reshape's output).
  std::size_t bytes = 0;
  std::unordered_set<const void*> counted;
  tensors().for_each([&](const Tensor& t) {
    if (t.defined() && !t.is_symbolic() && counted.insert(t.impl().buffer.get()).second)
      bytes += static_cast<std::size_t>(t.num_elements()) * dtype_size(t.dtype());
  });
  out.set("numTensors", static_cast<double>(tensors().size()));
  out.set("numBytes", static_cast<double>(bytes));
  out.set("numVariables", static_cast<double>(variables().size()));
  out.set("numTapes", static_cast<double>(tapes().size()));
  out.set("wasmHeapBytes", static_cast<double>(emscripten_get_heap_size()));
  out.set("heapBytesInUse", static_cast<double>(experiments::heap_bytes()));
  return out;
}

val op_call(const std::string& name, const val& inputs, const val& attrs) {
  return guarded([&] {
    return val(results_of(run(OpRegistry::global().get(name), tensors_of(inputs, name), attrs)));
  });
}

namespace {

/// Attributes encoded by the facade as numbers after the staged inputs (ops.mjs, encodeAttrs): per attribute its
/// index in op.attr_specs(), then bool 0/1 | int | float | dtype code (0 float32, 1 int32, 2 bool) | ints as a
/// count and the values. The facade encodes only values of the declared type (others take the general path,
/// whose checks name the problem); these checks catch a malformed encoding.
Attrs decode_attrs(const OpDef& op, std::span<const double> words, std::size_t from) {
  Attrs attrs;
  auto word = [&](std::size_t at) {
    TL_CHECK(at < words.size(), InvalidArgument, op.name(), ": encoded attributes end early");
    return words[at];
  };
  auto integer = [&](double v) {
    TL_CHECK(v == static_cast<double>(static_cast<std::int64_t>(v)) && std::abs(v) <= 9007199254740991.0,
             InvalidArgument, op.name(), ": encoded attribute value ", v, " is not an integer");
    return static_cast<std::int64_t>(v);
  };
  const auto& specs = op.attr_specs();
  for (std::size_t at = from; at < words.size();) {
    const std::int64_t k = integer(word(at++));
    TL_CHECK(k >= 0 && k < static_cast<std::int64_t>(specs.size()), InvalidArgument, op.name(),
             ": encoded attribute index ", k, " out of range");
    const AttrSpec& spec = specs[static_cast<std::size_t>(k)];
    switch (spec.type_index) {
      case 0: attrs.set(spec.name, word(at++) != 0); break;
      case 1: attrs.set(spec.name, integer(word(at++))); break;
      case 2: attrs.set(spec.name, word(at++)); break;
      case 4: {
        const std::int64_t n = integer(word(at++));
        TL_CHECK(n >= 0 && static_cast<std::size_t>(n) <= words.size() - at, InvalidArgument, op.name(),
                 ": encoded attribute '", spec.name, "' has a bad length ", n);
        Ints values;
        values.reserve(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) values.push_back(integer(word(at++)));
        attrs.set(spec.name, std::move(values));
        break;
      }
      case 5: {
        attrs.set(spec.name, dtype_of_code(word(at++), op.name() + ": encoded attribute '" + spec.name + "'"));
        break;
      }
      default: throw InvalidArgument(op.name() + ": attribute '" + spec.name + "' cannot be encoded");
    }
  }
  return attrs;
}

/// The op listed at `index` (op_names' order).
const OpDef& listed_op(double index) {
  const std::vector<const OpDef*>& ops = listed_ops();
  TL_CHECK(index >= 0 && index < static_cast<double>(ops.size()) && index == static_cast<double>(
           static_cast<std::size_t>(index)), InvalidArgument, "op call: no op has index ", index, " (",
           ops.size(), " ops listed)");
  return *ops[static_cast<std::size_t>(index)];
}

}  // namespace

double op_call_staged(double index, double count, double words) {
  return guarded([&] {
    const OpDef& op = listed_op(index);
    std::span<const double> handles = staged_numbers(count, op.name());
    detail::LocalArray<Tensor, 4> inputs(handles.size());
    tensors_into(handles, inputs.span());
    Attrs typed = decode_attrs(op, staged_numbers(count + words, op.name()), handles.size());
    detail::LocalArray<Tensor, 4> outputs(op.num_outputs(typed, {}));
    execute(op, inputs.span(), typed, outputs.span());
    return results_of(outputs.span());
  });
}

double op_call_staged_object(double index, double count, const val& attrs) {
  return guarded([&] {
    const OpDef& op = listed_op(index);
    return results_of(run(op, tensors_of(staged_numbers(count, op.name())), attrs));
  });
}

double staging_address(double count) {
  return guarded([&] { return staging_area(count); });
}

double tensor_data(double id) {
  return guarded([&] {
    const Tensor& t = tensors().get(id);
    TL_CHECK(!t.is_symbolic(), OperatorNotAllowedInGraph, "dataSync: a symbolic tensor ", meta_str(t.meta()),
             " has no values while its function is being traced; return it from the function, or use tl.print; to"
             " branch or loop on it, convert the code with tl.autograph");
    return values_address(t);
  });
}

// ---- variables ----

val variable_new(double tensor, const std::string& name, bool trainable) {
  return guarded([&] { return val(variable_handle(Variable(tensors().get(tensor), name, trainable))); });
}

double variable_read(double id) {
  return guarded([&] { return results_of(variables().get(id).read()); });
}

val variable_assign(double id, double tensor, const std::string& how) {
  return guarded([&] {
    Variable& v = variables().get(id);
    const Tensor& t = tensors().get(tensor);
    if (how == "add") v.assign_add(t);
    else if (how == "sub") v.assign_sub(t);
    else v.assign(t);
    return val::undefined();
  });
}

val variable_info(double id) {
  return guarded([&] {
    const Variable& v = variables().get(id);
    val info = val::object();
    info.set("name", v.name());
    info.set("shape", dims_to_js(v.shape()));
    info.set("dtype", std::string(dtype_name(v.dtype())));
    info.set("trainable", v.trainable());
    return info;
  });
}

bool variable_dispose(double id) { return variables().remove(id); }

// ---- gradient tapes ----

val tape_new(bool persistent, bool watch_accessed_variables) {
  return guarded([&] { return val(tapes().add(std::make_unique<GradientTape>(persistent, watch_accessed_variables))); });
}

val tape_watch(double tape, const val& sources) {
  return guarded([&] {
    GradientTape& t = *tapes().get(tape);
    for (unsigned i = 0, n = length_of(sources); i < n; ++i) {
      val s = sources[i];
      if (s["kind"].as<std::string>() == "variable") t.watch(variables().get(s["id"].as<double>()));
      else t.watch(tensors().get(s["id"].as<double>()));
    }
    return val::undefined();
  });
}

val tape_stop(double tape) {
  return guarded([&] {
    tapes().get(tape)->stop_recording();
    return val::undefined();
  });
}

/// d target / d sources; sources are [{kind: 'tensor' | 'variable', id}]; missing gradients are null.
val tape_gradient(double tape, double target, const val& sources, bool zero_unconnected) {
  return guarded([&] {
    GradientTape& t = *tapes().get(tape);
    const Tensor& y = tensors().get(target);
    auto unconnected = zero_unconnected ? UnconnectedGradients::zero : UnconnectedGradients::none;
    std::vector<Tensor> grads;
    unsigned n = length_of(sources), variable_count = 0;
    for (unsigned i = 0; i < n; ++i) variable_count += sources[i]["kind"].as<std::string>() == "variable" ? 1 : 0;
    TL_CHECK(variable_count == 0 || variable_count == n, InvalidArgument,
             "GradientTape.gradient: pass either tensors or variables as sources, not both (got ", variable_count,
             " variables among ", n, " sources)");
    if (variable_count > 0) {
      std::vector<Variable> vars;
      for (unsigned i = 0; i < n; ++i) vars.push_back(variables().get(sources[i]["id"].as<double>()));
      grads = t.gradient(y, vars, unconnected);
    } else {
      std::vector<Tensor> xs;
      for (unsigned i = 0; i < n; ++i) xs.push_back(tensors().get(sources[i]["id"].as<double>()));
      grads = t.gradient(y, xs, unconnected);
    }
    val out = val::array();
    for (const Tensor& g : grads) out.call<void>("push", g.defined() ? val(tensors().add(g)) : val::null());
    return out;
  });
}

double tape_gradient_staged(double tape, double target, double count, bool variables_given, bool zero_unconnected) {
  return guarded([&] {
    GradientTape& t = *tapes().get(tape);
    const Tensor& y = tensors().get(target);
    auto unconnected = zero_unconnected ? UnconnectedGradients::zero : UnconnectedGradients::none;
    std::span<const double> ids = staged_numbers(count, "GradientTape.gradient");
    if (variables_given) return results_of(t.gradient(y, variables_of(ids), unconnected));
    return results_of(t.gradient(y, tensors_of(ids), unconnected));
  });
}

val tape_watched(double tape) {
  return guarded([&] {
    val out = val::array();
    for (const Variable& v : tapes().get(tape)->watched_variables()) out.call<void>("push", val(variable_handle(v)));
    return out;
  });
}

bool tape_dispose(double tape) { return tapes().remove(tape); }

}  // namespace tl::wasm
