#include "adapters.h"

#include <emscripten/bind.h>

#include <cmath>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace tl::wasm {
namespace {

using emscripten::val;

/// Runs `body`; a C++ exception becomes a JS Error whose name is the C++ class. The JS throw happens after
/// the C++ catch block has ended, so the C++ exception object is released first.
template <class Body>
val guarded(Body&& body) {
  std::string kind, message;
  try {
    return body();
  } catch (const tl::Error& e) {
    kind = e.kind();
    message = e.what();
  } catch (const std::bad_alloc&) {
    kind = "OutOfMemory";
    message = "out of memory";
  } catch (const std::exception& e) {
    kind = "Error";
    message = e.what();
  }
  val error = val::global("Error").new_(val(message));
  error.set("name", val(kind));
  error.throw_();
}

bool is_integer(const val& v) { return val::global("Number").call<bool>("isInteger", v); }

Ints to_ints(const val& array, const std::string& what) {
  TL_CHECK(val::global("Array").call<bool>("isArray", array), InvalidArgument, what, " must be an array of integers");
  Ints out;
  for (unsigned i = 0, n = array["length"].as<unsigned>(); i < n; ++i) {
    val item = array[i];
    TL_CHECK(item.typeOf().as<std::string>() == "number" && is_integer(item), InvalidArgument, what,
             " must hold integers, item ", i, " is not one");
    out.push_back(static_cast<std::int64_t>(item.as<double>()));
  }
  return out;
}

Tensor to_tensor(const val& js, std::size_t index) {
  std::string where = "input " + std::to_string(index);
  TL_CHECK(js.typeOf().as<std::string>() == "object" && !js.isNull(), InvalidArgument, where,
           " must be an object {dtype, shape, values}");
  val dtype_name_js = js["dtype"];
  TL_CHECK(dtype_name_js.isUndefined() || dtype_name_js.typeOf().as<std::string>() == "string", InvalidArgument,
           where, ".dtype must be a string such as 'float32'");
  DType dtype = dtype_from_name(dtype_name_js.isUndefined() ? "float32" : dtype_name_js.as<std::string>());
  Ints dims = to_ints(js["shape"], where + ".shape");
  for (auto d : dims) TL_CHECK(d >= 0, InvalidArgument, where, ".shape has a negative dim ", d);
  Shape shape(dims);
  val values = js["values"];
  TL_CHECK(!values.isUndefined() && !values["length"].isUndefined(), InvalidArgument, where,
           ".values must be an array or typed array");
  switch (dtype) {
    case DType::float32: return constant(emscripten::convertJSArrayToNumberVector<float>(values), shape);
    case DType::int32: return constant(emscripten::convertJSArrayToNumberVector<std::int32_t>(values), shape);
    case DType::bool_: break;
  }
  auto bytes = emscripten::convertJSArrayToNumberVector<int>(values);
  return constant(std::vector<bool>(bytes.begin(), bytes.end()), shape);
}

val to_js(const Tensor& t) {
  val out = val::object();
  out.set("dtype", val(std::string(dtype_name(t.dtype()))));
  val shape = val::array();
  for (auto d : t.shape().dims()) shape.call<void>("push", val(static_cast<double>(d)));
  out.set("shape", shape);
  auto n = static_cast<std::size_t>(t.num_elements());
  switch (t.dtype()) {  // new TypedArray(view) copies out of WASM memory, which may move later
    case DType::float32:
      out.set("values", val::global("Float32Array").new_(emscripten::typed_memory_view(n, t.data<float>())));
      break;
    case DType::int32:
      out.set("values", val::global("Int32Array").new_(emscripten::typed_memory_view(n, t.data<std::int32_t>())));
      break;
    case DType::bool_:
      out.set("values", val::global("Uint8Array").new_(
                            emscripten::typed_memory_view(n, reinterpret_cast<const std::uint8_t*>(t.data<bool>()))));
      break;
  }
  return out;
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
    default: expect(type == "string"); return dtype_from_name(v.as<std::string>());
  }
}

Attrs to_attrs(const OpDef& op, const val& js) {
  Attrs attrs;
  if (js.isUndefined() || js.isNull()) return attrs;
  val entries = val::global("Object").call<val>("entries", js);
  for (unsigned i = 0, n = entries["length"].as<unsigned>(); i < n; ++i) {
    auto name = entries[i][0].as<std::string>();
    const AttrSpec* spec = nullptr;
    for (const auto& candidate : op.attr_specs())
      if (candidate.name == name) spec = &candidate;
    TL_CHECK(spec != nullptr, InvalidArgument, op.name(), ": unknown attribute '", name, "'");
    attrs.set(name, to_attr(op, *spec, entries[i][1]));
  }
  return attrs;
}

}  // namespace

std::string version() { return tl::version; }

val op_names() {
  val out = val::array();
  for (const OpDef* op : OpRegistry::global().all()) out.call<void>("push", val(op->name()));
  return out;
}

val run_op(const std::string& name, const val& inputs, const val& attrs) {
  return guarded([&] {
    const OpDef& op = OpRegistry::global().get(name);
    TL_CHECK(val::global("Array").call<bool>("isArray", inputs), InvalidArgument, name,
             ": inputs must be an array of tensors");
    std::vector<Tensor> tensors;
    for (unsigned i = 0, n = inputs["length"].as<unsigned>(); i < n; ++i) tensors.push_back(to_tensor(inputs[i], i));
    std::vector<Tensor> outputs(static_cast<std::size_t>(op.num_outputs()));
    execute(op, tensors, to_attrs(op, attrs), outputs);
    if (outputs.size() == 1) return to_js(outputs[0]);
    val list = val::array();
    for (const auto& t : outputs) list.call<void>("push", to_js(t));
    return list;
  });
}

}  // namespace tl::wasm
