// tl.function for JavaScript: a JS callback traced through the core into a graph. The C++ side owns a
// tl::AnyFunction (cache, trace keys, retrace reasons, warnings, call history); on a miss it calls the JS
// trampoline with handles of symbolic input tensors, and the ops the callback runs become graph nodes. A JS
// exception in the callback comes back as {error} and is rethrown here as a C++ exception, so the tracer unwinds
// cleanly. Saved models (tl::saved_model) save these functions' concrete functions and load them back by handle;
// tl.summary.graph takes a concrete function's graph as TensorBoard's GraphDef. tl.experiments.timeCalls calls a
// function in a loop here, timing each call in C++.
#include <emscripten/bind.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "adapters.h"
#include "handles.h"
#include "tracelab/base/local_array.h"
#include "tracelab/function/config.h"
#include "tracelab/function/retracing.h"
#include "tracelab/nn/event_file.h"
#include "tracelab/nn/saved_model.h"

namespace tl::wasm {
namespace {

/// The most calls tl.experiments.timeCalls makes, and the most tensors it takes (80 MB of times at most).
constexpr std::int64_t kMaxTimedCalls = 10'000'000;

HandleTable<AnyFunction>& functions() {
  static HandleTable<AnyFunction> table("tl.function");
  return table;
}

FunctionOptions to_options(const val& js) {
  FunctionOptions options;
  if (js.isUndefined() || js.isNull()) return options;
  if (!js["name"].isUndefined()) options.name = js["name"].as<std::string>();
  if (!js["reduceRetracing"].isUndefined()) options.reduce_retracing = js["reduceRetracing"].as<bool>();
  if (!js["maxRetracingWarnings"].isUndefined()) options.max_retracing_warnings = js["maxRetracingWarnings"].as<int>();
  if (!js["shareRetracingCount"].isUndefined()) options.share_retracing_count = js["shareRetracingCount"].as<bool>();
  if (!js["specializePlans"].isUndefined()) {
    TL_CHECK(js["specializePlans"].typeOf().as<std::string>() == "boolean", InvalidArgument, options.name,
             ": specializePlans must be a boolean");
    options.specialize_plans = js["specializePlans"].as<bool>();
  }
  if (!js["recordTimings"].isUndefined()) {
    TL_CHECK(js["recordTimings"].typeOf().as<std::string>() == "boolean", InvalidArgument, options.name,
             ": recordTimings must be a boolean");
    options.record_timings = js["recordTimings"].as<bool>();
  }
  val history = js["callHistory"];
  if (!history.isUndefined()) {
    TL_CHECK(is_integer(history) && history.as<double>() >= 0, InvalidArgument, options.name,
             ": callHistory must be a non-negative integer (the number of call records to keep)");
    options.call_history = static_cast<std::size_t>(history.as<double>());
  }
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

/// The call's arguments: [{kind: 'tensor' | 'variable', id} | {kind: 'spec', shape, dtype} |
/// {kind: 'number' | 'bool' | 'string', value}].
std::vector<AnyArg> to_args(const val& args, const std::string& name) {
  TL_CHECK(is_array(args), InvalidArgument, name, ": arguments must be an array");
  std::vector<AnyArg> out;
  for (unsigned i = 0, n = length_of(args); i < n; ++i) {
    val a = args[i];
    std::string kind = a["kind"].as<std::string>();
    if (kind == "tensor") out.emplace_back(tensors().get(a["id"].as<double>()));
    else if (kind == "spec") out.emplace_back(to_spec(a, name + ": argument " + std::to_string(i)));
    else if (kind == "variable") out.emplace_back(variables().get(a["id"].as<double>()));
    else if (kind == "bool") out.emplace_back(a["value"].as<bool>());
    else if (kind == "string") out.emplace_back(a["value"].as<std::string>());
    else if (kind == "number") out.emplace_back(a["value"].as<double>());
    else throw InvalidArgument(name + ": argument " + std::to_string(i) + " has an unsupported kind '" + kind + "'");
  }
  return out;
}

/// The nesting of a call's arguments, {text, paths} (ArgStructure), or nullopt for a flat call (null/undefined).
std::optional<ArgStructure> to_structure(const val& js) {
  if (js.isUndefined() || js.isNull()) return std::nullopt;
  ArgStructure structure{js["text"].as<std::string>(), {}};
  for (unsigned i = 0, n = length_of(js["paths"]); i < n; ++i) structure.paths.push_back(js["paths"][i].as<std::string>());
  return structure;
}

/// The body of a JS function: its symbolic tensor arguments go to the trampoline (the facade puts the other
/// arguments back in place).
AnyFunction::Body js_body(val trampoline) {
  return [trampoline](std::span<const AnyArg> args) {
    std::vector<Tensor> symbolic;
    for (const AnyArg& a : args)
      if (a.is_tensor()) symbolic.push_back(a.tensor());
    return call_js(trampoline, symbolic);
  };
}

HandleTable<saved_model::SavedModel>& saved_models() {
  static HandleTable<saved_model::SavedModel> table("saved model");
  return table;
}

/// One entry of tl.savedModel.save: {name, function: id, concrete: index (-1: its only one)} for a tl.function
/// or one of its concrete functions, {name, model: id, loaded: name} for a function of a loaded model.
saved_model::Named to_named(const val& entry) {
  std::string name = entry["name"].as<std::string>();
  if (!entry["model"].isUndefined())
    return {name, saved_models().get(entry["model"].as<double>()).function(entry["loaded"].as<std::string>())};
  AnyFunction& f = functions().get(entry["function"].as<double>());
  double index = entry["concrete"].isUndefined() ? -1 : entry["concrete"].as<double>();
  if (index < 0) return {name, f};
  std::vector<const ConcreteFunction*> all = f.concrete_functions();
  TL_CHECK(index < static_cast<double>(all.size()), InvalidArgument, "saved_model: '", name, "': concrete function ",
           index, " of ", all.size(), " does not exist");
  return {name, *all[static_cast<std::size_t>(index)]};
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

/// `options.retracingSource`: the JS function's source text and place, which its retracing count is shared by.
val function_new(const val& options, const val& trampoline) {
  return guarded([&] {
    std::string source = options["retracingSource"].isString() ? options["retracingSource"].as<std::string>() : "";
    return val(functions().add(AnyFunction(js_body(trampoline), to_options(options), std::move(source))));
  });
}

val function_call(double id, const val& args, const val& structure) {
  return guarded([&] {
    AnyFunction& f = functions().get(id);
    std::vector<AnyArg> leaves = to_args(args, f.options().name);
    std::optional<ArgStructure> nesting = to_structure(structure);
    return val(results_of(nesting ? f(leaves, *nesting) : f(leaves)));
  });
}

namespace {
/// Calls function `id` with the tensors whose handles JS staged (`count` of them) and returns what `read` makes
/// of the results for JS (read(results, the function's name)).
template <class Read>
double call_staged(double id, double count, Read read) {
  return guarded([&] {
    AnyFunction& f = functions().get(id);
    std::span<const double> handles = staged_numbers(count, f.options().name);
    const detail::LocalArray<AnyArg, 4> args(handles.size(),
                                             [&](std::size_t i) { return AnyArg(tensors().get(handles[i])); });
    return read(f(args.span()), f.options().name);
  });
}
}  // namespace

double function_call_staged(double id, double count) {
  return call_staged(id, count, [](std::span<const Tensor> results, const std::string&) { return results_of(results); });
}

double function_call_staged_data(double id, double count) {
  return call_staged(id, count, [](std::span<const Tensor> results, const std::string& name) {
    return data_of(results, name);
  });
}

val function_time_calls(double id, double per_call, double lists, double steps) {
  return guarded([&] {
    AnyFunction& f = functions().get(id);
    const std::string what = "tl.experiments.timeCalls";
    const auto whole = [](double n) { return n == static_cast<double>(static_cast<std::int64_t>(n)); };
    const auto most = static_cast<double>(kMaxTimedCalls);
    TL_CHECK(steps >= 1 && steps <= most && whole(steps), InvalidArgument, what, ": steps is ", steps,
             "; expected an integer in [1, ", kMaxTimedCalls, "]");
    TL_CHECK(lists >= 1 && per_call >= 0 && whole(lists) && whole(per_call) && lists * per_call <= most,
             InvalidArgument, what, ": ", lists, " argument lists of ", per_call,
             " tensors; expected at least one list, at most ", kMaxTimedCalls, " tensors in all");
    // The tensors are held here before the first call, which may trace (and call back into JavaScript).
    std::vector<AnyArg> args;
    for (double handle : staged_numbers(lists * per_call, what)) args.emplace_back(tensors().get(handle));
    const auto count = static_cast<std::size_t>(per_call), rounds = static_cast<std::size_t>(lists);
    std::vector<double> us(static_cast<std::size_t>(steps));
    for (std::size_t i = 0; i < us.size(); ++i) {
      std::span<const AnyArg> call(args.data() + (i % rounds) * count, count);
      const auto start = Clock::now();
      f(call);  // the results are released inside the timed call, as the runner's step releases its loss
      us[i] = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    }
    return val::global("Float64Array").new_(emscripten::typed_memory_view(us.size(), us.data()));
  });
}

val function_concrete(double id, const val& args, const val& structure) {
  return guarded([&] {
    AnyFunction& f = functions().get(id);
    std::vector<AnyArg> leaves = to_args(args, f.options().name);
    std::optional<ArgStructure> nesting = to_structure(structure);
    ConcreteFunction& c = nesting ? f.get_concrete_function(leaves, *nesting) : f.get_concrete_function(leaves);
    auto all = f.concrete_functions();
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i] == &c) return val(static_cast<double>(i));
    return val(-1.0);
  });
}

val function_info(double id) {
  return guarded([&] {
    AnyFunction& f = functions().get(id);
    val info = val::object();
    info.set("tracingCount", f.tracing_count());
    info.set("signatures", f.pretty_printed_concrete_signatures());
    return info;
  });
}

val function_calls(double id) {
  return guarded([&] {
    val calls = val::array();
    for (const CallRecord& r : functions().get(id).calls()) calls.call<void>("push", record_to_js(r));
    return calls;
  });
}

val function_last_concrete(double id) {
  return guarded([&] {
    const AnyFunction& f = functions().get(id);
    val out = val::object();
    out.set("call", static_cast<double>(f.last_call_concrete_index()));
    out.set("traced", static_cast<double>(f.last_traced_concrete_index()));
    out.set("count", static_cast<double>(f.concrete_functions().size()));
    return out;
  });
}

val function_last_call(double id) {
  return guarded([&] {
    auto calls = functions().get(id).calls();
    return calls.empty() ? val::undefined() : record_to_js(calls.back());
  });
}

/// The concrete functions: signature, graphs (text and JSON) before/after optimization, pass reports.
val function_graphs(double id) {
  return guarded([&] {
    AnyFunction& f = functions().get(id);
    val out = val::array();
    for (const ConcreteFunction* c : f.concrete_functions()) {
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

void config_run_functions_eagerly(bool enabled) { tl::config::run_functions_eagerly(enabled); }
bool config_functions_run_eagerly() { return tl::config::functions_run_eagerly(); }

val function_clear_calls(double id) {
  return guarded([&] {
    functions().get(id).clear_calls();
    return val::undefined();
  });
}

bool function_dispose(double id) { return functions().remove(id); }

void function_reset_retracing_detectors() { reset_retracing_detectors(); }

val cond(double pred, const val& true_fn, const val& false_fn) {
  return guarded([&] {
    val t = true_fn, f = false_fn;
    return handles_of(tl::cond(tensors().get(pred), [t] { return call_js(t, {}); }, [f] { return call_js(f, {}); }));
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

val saved_model_save(const val& entries) {
  return guarded([&] {
    TL_CHECK(is_array(entries), InvalidArgument, "saved_model: expected an array of functions");
    std::vector<saved_model::Named> named;
    for (unsigned i = 0, n = length_of(entries); i < n; ++i) named.push_back(to_named(entries[i]));
    std::vector<std::uint8_t> bytes = saved_model::to_bytes(named);
    return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
  });
}

val saved_model_load(const val& bytes) {
  return guarded([&] {
    std::vector<std::uint8_t> data = emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
    saved_model::SavedModel model = saved_model::from_bytes(data);
    val out = val::object();
    val list = val::array();
    for (const saved_model::Signature& signature : model.signatures()) {
      val o = val::object();
      o.set("name", signature.name);
      o.set("inputs", specs_to_js(signature.inputs));
      o.set("outputs", specs_to_js(signature.outputs));
      o.set("signature", signature.str());
      list.call<void>("push", o);
    }
    out.set("functions", list);
    val variables = val::array();
    for (const Variable& v : model.variables()) variables.call<void>("push", val(variable_handle(v)));
    out.set("variables", variables);
    out.set("id", saved_models().add(std::move(model)));
    return out;
  });
}

val saved_model_call(double id, const std::string& name, const val& args) {
  return guarded([&] {
    const saved_model::LoadedFunction& f = saved_models().get(id).function(name);
    return val(results_of(f(tensors_of(args, "saved_model: function '" + name + "'"))));
  });
}

bool saved_model_dispose(double id) { return saved_models().remove(id); }

val summary_graph_def(const val& ref) {
  return guarded([&] {
    const ConcreteFunction* concrete = nullptr;
    if (!ref["model"].isUndefined()) {
      concrete = &saved_models().get(ref["model"].as<double>()).function(ref["loaded"].as<std::string>())
                      .concrete_function();
    } else {
      AnyFunction& f = functions().get(ref["function"].as<double>());
      std::vector<const ConcreteFunction*> all = f.concrete_functions();
      double index = ref["concrete"].as<double>();
      if (index < 0) {
        TL_CHECK(all.size() == 1, InvalidArgument, "tl.summary.graph: the tl.function '", f.options().name, "' has ",
                 all.size(), " concrete functions; pass one (getConcreteFunction(...) or concreteFunctions()[i])");
        index = 0;
      }
      TL_CHECK(index < static_cast<double>(all.size()), InvalidArgument, "tl.summary.graph: concrete function ",
               index, " of ", all.size(), " does not exist");
      concrete = all[static_cast<std::size_t>(index)];
    }
    std::string bytes = summary::graph_def_bytes(concrete->graph());
    return val::global("Uint8Array").new_(
        emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data())));
  });
}

}  // namespace tl::wasm
