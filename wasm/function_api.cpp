// tl.function for JavaScript: a JS callback traced through the core into a graph. The C++ side owns the
// FunctionCore (cache, trace keys, retrace reasons, warnings, records); on a miss it calls the JS trampoline
// with handles of symbolic input tensors, and the ops the callback runs become graph nodes. A JS exception in
// the callback comes back as {error} and is rethrown here as a C++ exception, so the tracer unwinds cleanly.
#include <emscripten/bind.h>

#include <memory>
#include <string>
#include <vector>

#include "adapters.h"
#include "handles.h"

namespace tl::wasm {
namespace {

struct JsFunction {
  std::unique_ptr<detail::FunctionCore> core;
  val trampoline = val::undefined();
};

HandleTable<JsFunction>& functions() {
  static HandleTable<JsFunction> table("tl.function");
  return table;
}

FunctionOptions to_options(const val& js) {
  FunctionOptions options;
  if (js.isUndefined() || js.isNull()) return options;
  if (!js["name"].isUndefined()) options.name = js["name"].as<std::string>();
  if (!js["reduceRetracing"].isUndefined()) options.reduce_retracing = js["reduceRetracing"].as<bool>();
  if (!js["maxRetracingWarnings"].isUndefined()) options.max_retracing_warnings = js["maxRetracingWarnings"].as<int>();
  if (!js["argNames"].isUndefined())
    for (unsigned i = 0, n = length_of(js["argNames"]); i < n; ++i)
      options.arg_names.push_back(js["argNames"][i].as<std::string>());
  val signature = js["inputSignature"];
  if (!signature.isUndefined() && !signature.isNull()) {
    TL_CHECK(is_array(signature), InvalidArgument, options.name, ": inputSignature must be an array of TensorSpecs");
    std::vector<TensorSpec> specs;
    for (unsigned i = 0, n = length_of(signature); i < n; ++i)
      specs.push_back(to_spec(signature[i], options.name + ": inputSignature[" + std::to_string(i) + "]"));
    options.input_signature = InputSignature(std::move(specs));
  }
  return options;
}

/// The call's arguments: [{kind: 'tensor' | 'variable', id} | {kind: 'number' | 'bool' | 'string', value}].
detail::CallArgs to_call(const val& args, const std::string& name) {
  TL_CHECK(is_array(args), InvalidArgument, name, ": arguments must be an array");
  detail::CallArgs call;
  for (unsigned i = 0, n = length_of(args); i < n; ++i) {
    val a = args[i];
    std::string kind = a["kind"].as<std::string>();
    if (kind == "tensor") detail::collect_arg(call, tensors().get(a["id"].as<double>()));
    else if (kind == "spec") detail::collect_arg(call, to_spec(a, name + ": argument " + std::to_string(i)));
    else if (kind == "variable") detail::collect_arg(call, variables().get(a["id"].as<double>()));
    else if (kind == "bool") detail::collect_arg(call, a["value"].as<bool>());
    else if (kind == "string") detail::collect_arg(call, a["value"].as<std::string>());
    else if (kind == "number") detail::collect_arg(call, a["value"].as<double>());
    else throw InvalidArgument(detail::cat(name, ": argument ", i, " has an unsupported kind '", kind, "'"));
  }
  return call;
}

val record_to_js(const CallRecord& r) {
  val o = val::object();
  o.set("index", static_cast<double>(r.index));
  o.set("traced", r.traced);
  o.set("key", r.key);
  o.set("reason", r.reason);
  o.set("warning", r.warning);
  o.set("concreteIndex", static_cast<double>(r.concrete_index));
  o.set("traceUs", r.trace_us);
  o.set("executeUs", r.execute_us);
  return o;
}

}  // namespace

val function_new(const val& options, const val& trampoline) {
  return guarded([&] {
    JsFunction f;
    f.core = std::make_unique<detail::FunctionCore>(to_options(options));
    f.trampoline = trampoline;
    return val(functions().add(std::move(f)));
  });
}

val function_call(double id, const val& args) {
  return guarded([&] {
    JsFunction& f = functions().get(id);
    const std::string& name = f.core->options().name;
    val trampoline = f.trampoline;
    std::vector<Tensor> outputs = f.core->call(to_call(args, name), [trampoline](const std::vector<Tensor>& symbolic) {
      return call_js(trampoline, symbolic);
    });
    return handles_of(outputs);
  });
}

val function_concrete(double id, const val& args) {
  return guarded([&] {
    JsFunction& f = functions().get(id);
    val trampoline = f.trampoline;
    ConcreteFunction& c = f.core->concrete(to_call(args, f.core->options().name),
                                           [trampoline](const std::vector<Tensor>& symbolic) {
                                             return call_js(trampoline, symbolic);
                                           });
    auto all = f.core->concrete_functions();
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i] == &c) return val(static_cast<double>(i));
    return val(-1.0);
  });
}

val function_info(double id) {
  return guarded([&] {
    JsFunction& f = functions().get(id);
    val info = val::object();
    info.set("tracingCount", f.core->tracing_count());
    info.set("signatures", f.core->pretty_printed_concrete_signatures());
    val calls = val::array();
    for (const CallRecord& r : f.core->calls()) calls.call<void>("push", record_to_js(r));
    info.set("calls", calls);
    return info;
  });
}

/// The concrete functions: signature, graphs (text and JSON) before/after optimization, pass reports.
val function_graphs(double id) {
  return guarded([&] {
    JsFunction& f = functions().get(id);
    val out = val::array();
    for (const ConcreteFunction* c : f.core->concrete_functions()) {
      val o = val::object();
      o.set("signature", c->pretty_signature());
      o.set("graph", c->graph().str());
      o.set("tracedGraph", c->traced_graph().str());
      o.set("graphJson", c->graph().to_json());
      o.set("tracedGraphJson", c->traced_graph().to_json());
      val passes = val::array();
      for (const auto& p : c->pass_reports()) {
        val r = val::object();
        r.set("pass", p.pass);
        r.set("before", static_cast<double>(p.nodes_before));
        r.set("after", static_cast<double>(p.nodes_after));
        passes.call<void>("push", r);
      }
      o.set("passes", passes);
      out.call<void>("push", o);
    }
    return out;
  });
}

val function_clear_calls(double id) {
  return guarded([&] {
    functions().get(id).core->clear_calls();
    return val::undefined();
  });
}

bool function_dispose(double id) { return functions().remove(id); }

val cond(double pred, const val& true_fn, const val& false_fn) {
  return guarded([&] {
    val t = true_fn, f = false_fn;
    return handles_of(detail::cond_impl(tensors().get(pred), [t] { return call_js(t, {}); },
                                        [f] { return call_js(f, {}); }));
  });
}

val while_loop(const val& cond_fn, const val& body_fn, const val& loop_vars, double maximum_iterations) {
  return guarded([&] {
    val c = cond_fn, b = body_fn;
    std::vector<Tensor> out = tl::while_loop(
        [c](const std::vector<Tensor>& v) {
          auto r = call_js(c, v);
          TL_CHECK(r.size() == 1, InvalidArgument, "whileLoop: cond must return one bool tensor, got ", r.size());
          return r[0];
        },
        [b](const std::vector<Tensor>& v) { return call_js(b, v); }, tensors_of(loop_vars, "whileLoop: loopVars"),
        WhileOptions{.maximum_iterations = static_cast<std::int64_t>(maximum_iterations)});
    return handles_of(out);
  });
}

}  // namespace tl::wasm
