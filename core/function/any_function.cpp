// AnyFunction: a call finds its concrete function in the cache (FunctionCache) or traces one — with the reason,
// relaxed under reduce_retracing — tells the retracing detector, runs the graph, and leaves a record in the call
// history when it has one. Tracing runs the body with symbolic tensors under a Tracer.
#include "tracelab/function/any_function.h"

#include <array>
#include <chrono>

#include "function/detail/tracer.h"
#include "tracelab/base/clock.h"
#include "tracelab/base/local_array.h"
#include "tracelab/base/log.h"
#include "tracelab/function/config.h"
#include "tracelab/function/retracing.h"

namespace tl {
namespace {

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

constexpr std::array<const char*, std::variant_size_v<AnyArg::Value>> kKindNames = {
    "tensor", "spec", "variable", "bool", "int", "float", "string"};

}  // namespace

// ---- AnyArg ----

const char* AnyArg::kind() const noexcept { return kKindNames[value_.index()]; }

ArgKey AnyArg::key() const {
  return std::visit(
      [](const auto& value) -> ArgKey {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, Tensor>) return TensorSpec(value.shape(), value.dtype());
        else if constexpr (std::is_same_v<T, Variable>) return VariableKey{value.id(), value.dtype(), value.shape()};
        else return value;
      },
      value_);
}

void AnyArg::throw_wrong_kind(std::size_t wanted_index) const {
  throw InvalidArgument(detail::cat("AnyArg: expected a ", kKindNames[wanted_index], ", got a ", kind()));
}

// ---- AnyFunction ----

struct AnyFunction::State {
  Body body;
  FunctionOptions options;
  /// The concrete functions by trace key, in tracing order.
  FunctionCache<std::shared_ptr<ConcreteFunction>> cache;
  std::shared_ptr<RetracingDetector> detector;  ///< shared with the functions made from the same source
  CallHistory history;
  std::size_t call_count = 0;
  int traces = 0;  ///< bodies traced to the end (the first call's check trace included)
  const ConcreteFunction* last_called = nullptr;  ///< what the last call ran (nullptr: none, or it ran eagerly)
  const ConcreteFunction* last_traced = nullptr;  ///< the concrete function traced last
  /// The key of every call when there is an input signature: its specs.
  TraceKey signature_key;
  /// "<name>", as the retracing warning names the function.
  std::string warning_name;

  State(Body b, FunctionOptions o, const std::string& source)
      : body(std::move(b)),
        options(std::move(o)),
        detector(retracing_detector_for(options.share_retracing_count ? source : std::string(),
                                        options.max_retracing_warnings)),
        history(options.call_history),
        warning_name("<" + options.name + ">") {
    if (!options.input_signature.present()) return;
    std::vector<ArgKey> keys;
    for (const TensorSpec& spec : options.input_signature.specs())
      keys.emplace_back(TensorSpec(spec.shape(), spec.dtype(), spec.name()));
    signature_key = TraceKey(std::move(keys));
  }

  /// Argument names: given ones, else the signature's spec names, else "arg0", "arg1", ...
  std::vector<std::string> arg_names(std::size_t count) const {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < count; ++i) {
      std::string name;
      if (i < options.arg_names.size()) name = options.arg_names[i];
      const auto& specs = options.input_signature.specs();
      if (name.empty() && i < specs.size()) name = specs[i].name();
      names.push_back(name.empty() ? "arg" + std::to_string(i) : name);
    }
    return names;
  }

  /// The names of a key's tensors in its graph and messages: a structured call's leaf paths, else arg_names.
  std::vector<std::string> names_for(const TraceKey& key) const {
    const auto& paths = key.structure().paths;
    return paths.size() == key.size() ? paths : arg_names(key.size());
  }

  /// The call's own key: one entry per argument.
  static std::vector<ArgKey> arg_keys(std::span<const AnyArg> args) {
    std::vector<ArgKey> keys;
    keys.reserve(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
      const auto* tensor = std::get_if<Tensor>(&args[i].value());
      TL_CHECK(tensor == nullptr || tensor->defined(), InvalidArgument, "tl::function: argument ", i,
               " is an empty Tensor handle");
      keys.push_back(args[i].key());
    }
    return keys;
  }

  /// The key a call is looked up by: the signature's key when there is one (after checking the call fits it),
  /// else the call's own key, built in `own`; `structure` nests the arguments (nullptr: a flat call).
  const TraceKey& key_for(std::span<const AnyArg> args, TraceKey& own, const ArgStructure* structure) const {
    if (!options.input_signature.present())
      return own = TraceKey(arg_keys(args), structure != nullptr ? *structure : ArgStructure{});
    TL_CHECK(structure == nullptr || structure->text.empty(), InvalidArgument, options.name,
             ": a function with an input signature takes its arguments flat, as the signature lists them");
    const auto& specs = options.input_signature.specs();
    TL_CHECK(args.size() == specs.size(), InvalidArgument, options.name, ": the input signature has ",
             specs.size(), " argument(s), the call passes ", args.size());
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const auto* tensor = std::get_if<Tensor>(&args[i].value());
      TL_CHECK(tensor == nullptr || tensor->defined(), InvalidArgument, "tl::function: argument ", i,
               " is an empty Tensor handle");
      const auto* spec = std::get_if<TensorSpec>(&args[i].value());  // get_concrete_function(spec)
      TL_CHECK(tensor != nullptr || spec != nullptr, InvalidArgument, options.name, ": argument ", i, " (",
               arg_names(specs.size())[i], ") must be a tensor to match the input signature ", specs[i].str(),
               ", got a ", arg_key_kind(args[i].key()), " (", arg_key_str(args[i].key()), ")");
      TensorMeta spec_meta;
      if (tensor == nullptr) spec_meta = spec->meta();
      const TensorMeta& meta = tensor != nullptr ? tensor->meta() : spec_meta;
      bool fits = meta.dtype == specs[i].dtype() && specs[i].shape().is_compatible_with(meta.shape) &&
                  meta.shape.rank() == specs[i].shape().rank();
      TL_CHECK(fits, InvalidArgument, options.name, ": argument ", i, " (", arg_names(specs.size())[i],
               ") does not match the input signature: ", specs[i].mismatch(meta));
    }
    return signature_key;
  }

  /// Whether `key` is this call's key (exact) or accepts it (relaxed): TraceKey's == and accepts() on the
  /// arguments themselves, without building the call's key.
  static bool matches(const TraceKey& key, std::span<const AnyArg> args, const std::string& structure, bool exact) {
    if (key.size() != args.size() || key.structure().text != structure) return false;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const ArgKey& mine = key.args()[i];
      if (const auto* tensor = std::get_if<Tensor>(&args[i].value())) {
        const auto* spec = std::get_if<TensorSpec>(&mine);
        if (spec == nullptr || spec->dtype() != tensor->dtype()) return false;
        const Shape& want = spec->shape();
        const Shape& got = tensor->shape();
        if (exact) {
          if (!(want == got)) return false;
        } else {  // accepts(): an unknown dim of the key takes any size, a known one only itself
          if (want.rank() != got.rank()) return false;
          for (std::size_t d = 0; d < want.dims().size(); ++d)
            if (want[d] >= 0 && want[d] != got[d]) return false;
        }
      } else if (const auto* variable = std::get_if<Variable>(&args[i].value())) {
        const auto* id = std::get_if<VariableKey>(&mine);
        if (id == nullptr || id->id != variable->id()) return false;
      } else if (!same_arg_key(mine, args[i].key())) {
        return false;
      }
    }
    return true;
  }

  /// The cached function for a call without an input signature, found as cache.lookup(call's key) finds it
  /// (an equal key, else the newest key that accepts the call), or nullptr.
  std::pair<TraceKey, std::shared_ptr<ConcreteFunction>>* cached_for(std::span<const AnyArg> args,
                                                                     const ArgStructure* structure, bool& exact) {
    static const std::string flat;
    const std::string& text = structure != nullptr ? structure->text : flat;
    for (const AnyArg& arg : args)
      if (const auto* tensor = std::get_if<Tensor>(&arg.value()); tensor != nullptr && !tensor->defined())
        return nullptr;  // the key's own check names the empty handle
    auto& entries = cache.entries();
    exact = true;
    for (auto& entry : entries)
      if (matches(entry.first, args, text, /*exact=*/true)) return &entry;
    exact = false;
    for (auto it = entries.rbegin(); it != entries.rend(); ++it)
      if (matches(it->first, args, text, /*exact=*/false)) return &*it;
    return nullptr;
  }

  /// Runs the body with a symbolic tensor for every tensor entry of `key` (the call's other arguments as they are).
  /// `allow_variables`: may the body create Variables; `created` gets how many it did.
  std::shared_ptr<ConcreteFunction> trace(const TraceKey& key, std::span<const AnyArg> args, bool allow_variables,
                                          int& created) {
    std::vector<std::string> names = names_for(key);
    detail::Tracer tracer(options.name, allow_variables);
    std::vector<AnyArg> traced(args.begin(), args.end());
    for (std::size_t i = 0; i < key.size(); ++i)
      if (const auto* spec = std::get_if<TensorSpec>(&key.args()[i]))
        traced[i] = tracer.add_input(spec->meta(), names[i]);
    tracer.set_outputs(body(traced));
    created = tracer.variables_created();
    ++traces;
    return std::make_shared<ConcreteFunction>(options.name, key, names, tracer.take_graph(), options.optimize,
                                              options.specialize_plans);
  }

  /// The cached function for `key`, or a new trace; fills the record's tracing fields (the reason only when the
  /// call history keeps it). TensorFlow's variable rule: only the first trace may create variables, and when it
  /// did, the body is traced again with creation forbidden — a body that creates a variable on every trace fails
  /// there, on the first call; the second trace's graph is the one kept (it reads the variables the first made).
  ConcreteFunction& find_or_trace(const TraceKey& key, std::span<const AnyArg> args, CallRecord& record) {
    if (auto* hit = cache.lookup(key)) return **hit;
    std::vector<TraceKey> cached = cache.keys();
    TraceKey trace_key = options.reduce_retracing ? relax(key, cached) : key;
    if (history.enabled()) {
      record.reason = cached.empty() ? "first call" : explain_retrace(key, cached, names_for(key));
      if (!(trace_key == key)) record.reason += "; tracing a generalized function for " + trace_key.str();
    }
    auto start = Clock::now();
    int created = 0;
    std::shared_ptr<ConcreteFunction> traced = trace(trace_key, args, /*allow_variables=*/cache.size() == 0, created);
    if (const int first_created = created; first_created > 0) {
      traced = trace(trace_key, args, /*allow_variables=*/false, created);
      if (history.enabled())
        record.reason += detail::cat("; traced again with variable creation forbidden (the first trace created ",
                                     first_created, first_created == 1 ? " variable)" : " variables)");
    }
    auto& function = cache.add(trace_key, std::move(traced));
    last_traced = function.get();
    record.trace_us = micros_since(start);
    record.traced = true;
    return *function;
  }

  /// The index of `function` among the concrete functions; -1 for nullptr or one the cache does not hold.
  std::ptrdiff_t index_of(const ConcreteFunction* function) const {
    const auto& entries = cache.entries();
    for (std::size_t i = 0; function != nullptr && i < entries.size(); ++i)
      if (entries[i].second.get() == function) return static_cast<std::ptrdiff_t>(i);
    return -1;
  }

  std::vector<Tensor> call(std::span<const AnyArg> args, const ArgStructure* structure) {
    if (config::functions_run_eagerly()) {  // the callable on the call's own arguments: no trace, no record
      last_called = nullptr;
      if (options.input_signature.present()) {  // the call must still fit the signature
        TraceKey own;
        (void)key_for(args, own, structure);
      }
      return body(args);
    }
    CallRecord record;
    record.index = call_count;
    TraceKey own;
    bool exact = false;
    auto* hit = options.input_signature.present() ? nullptr : cached_for(args, structure, exact);
    // The record names the call's own key: a relaxed function's key only when it is the call's.
    const TraceKey& key = hit != nullptr && (exact || !history.enabled()) ? hit->first : key_for(args, own, structure);
    ConcreteFunction& function = hit != nullptr ? *hit->second : find_or_trace(key, args, record);
    last_called = &function;
    ++call_count;
    if (auto warning = detector->record_call(record.traced, warning_name)) {
      log_message(LogLevel::warning, *warning);
      record.warning = std::move(*warning);
    }
    std::size_t count = 0;
    for (const AnyArg& arg : args) count += std::holds_alternative<Tensor>(arg.value()) ? 1 : 0;
    detail::LocalArray<Tensor, 8> call_tensors(count);  // a call's tensors, without a heap block for the usual few
    count = 0;
    for (const AnyArg& arg : args)
      if (const auto* tensor = std::get_if<Tensor>(&arg.value())) call_tensors[count++] = *tensor;
    std::span<const Tensor> tensors(call_tensors.data(), count);
    if (!history.enabled()) return function.call(tensors);
    const bool timed = options.record_timings;
    auto start = timed ? Clock::now() : Clock::time_point{};
    std::vector<Tensor> outputs = function.call(tensors);
    if (timed) record.execute_us = micros_since(start);
    record.concrete_index = static_cast<std::size_t>(index_of(&function));
    history.add(key, std::move(record));
    return outputs;
  }
};

AnyFunction::AnyFunction(Body body, FunctionOptions options, std::string source)
    : state_(std::make_shared<State>(std::move(body), std::move(options), source)) {}

std::vector<Tensor> AnyFunction::operator()(std::span<const AnyArg> args) { return state_->call(args, nullptr); }

std::vector<Tensor> AnyFunction::operator()(std::span<const AnyArg> leaves, const ArgStructure& structure) {
  return state_->call(leaves, &structure);
}

ConcreteFunction& AnyFunction::get_concrete_function(std::span<const AnyArg> args) {
  CallRecord ignored;
  TraceKey own;
  return state_->find_or_trace(state_->key_for(args, own, nullptr), args, ignored);
}

ConcreteFunction& AnyFunction::get_concrete_function(std::span<const AnyArg> leaves, const ArgStructure& structure) {
  CallRecord ignored;
  TraceKey own;
  return state_->find_or_trace(state_->key_for(leaves, own, &structure), leaves, ignored);
}

int AnyFunction::tracing_count() const noexcept { return state_->traces; }

std::string AnyFunction::pretty_printed_concrete_signatures() const {
  std::string out;
  for (const auto& [key, function] : state_->cache.entries()) {
    if (!out.empty()) out += '\n';
    out += function->pretty_signature();
  }
  return out;
}

std::vector<const ConcreteFunction*> AnyFunction::concrete_functions() const {
  std::vector<const ConcreteFunction*> out;
  for (const auto& [key, function] : state_->cache.entries()) out.push_back(function.get());
  return out;
}

std::ptrdiff_t AnyFunction::last_call_concrete_index() const {
  return state_->index_of(state_->last_called);
}

std::ptrdiff_t AnyFunction::last_traced_concrete_index() const {
  return state_->index_of(state_->last_traced);
}

std::span<const CallRecord> AnyFunction::calls() const noexcept { return state_->history.records(); }
void AnyFunction::clear_calls() noexcept { state_->history.clear(); }
const FunctionOptions& AnyFunction::options() const noexcept { return state_->options; }

}  // namespace tl
