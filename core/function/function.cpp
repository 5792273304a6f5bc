// FunctionCore: the cache of concrete functions, tracing on a miss (with the reason and the retracing
// detector), execution, and one record per call.
#include "tracelab/function/function.h"

#include <chrono>
#include <sstream>

#include "function/detail/tracer.h"
#include "tracelab/base/log.h"
#include "tracelab/function/retracing.h"

namespace tl::detail {
namespace {

using Clock = std::chrono::steady_clock;

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

}  // namespace

struct FunctionCore::State {
  FunctionOptions options;
  FunctionCache<std::shared_ptr<ConcreteFunction>> cache;
  std::vector<std::shared_ptr<ConcreteFunction>> traced;  // in tracing order
  RetracingDetector detector;
  std::vector<CallRecord> calls;
  std::size_t call_count = 0;
  /// The text of recently seen call keys: a hit's record needs TraceKey::str(), which is slow to rebuild.
  std::vector<std::pair<TraceKey, std::string>> key_texts;
  static constexpr std::size_t kMaxKeyTexts = 32;

  explicit State(FunctionOptions o) : options(std::move(o)), detector(options.max_retracing_warnings) {}

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

  /// The key a call is looked up by: the signature's specs when there is one (after checking the call fits).
  TraceKey key_for(const CallArgs& call) const {
    if (!options.input_signature.present()) return TraceKey(call.keys);
    const auto& specs = options.input_signature.specs();
    std::vector<std::string> names = arg_names(specs.size());
    TL_CHECK(call.keys.size() == specs.size(), InvalidArgument, options.name, ": the input signature has ",
             specs.size(), " argument(s), the call passes ", call.keys.size());
    std::vector<ArgKey> keys;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const auto* given = std::get_if<TensorSpec>(&call.keys[i]);
      TL_CHECK(given != nullptr, InvalidArgument, options.name, ": argument ", i, " (", names[i],
               ") must be a tensor to match the input signature ", specs[i].str(), ", got a ",
               arg_key_kind(call.keys[i]), " (", arg_key_str(call.keys[i]), ")");
      bool fits = given->dtype() == specs[i].dtype() && specs[i].shape().is_compatible_with(given->shape()) &&
                  given->shape().rank() == specs[i].shape().rank();
      TL_CHECK(fits, InvalidArgument, options.name, ": argument ", i, " (", names[i],
               ") does not match the input signature: ", specs[i].mismatch(given->meta()));
      keys.emplace_back(TensorSpec(specs[i].shape(), specs[i].dtype(), specs[i].name()));
    }
    return TraceKey(std::move(keys));
  }

  std::shared_ptr<ConcreteFunction> trace(const TraceKey& key, const TraceBody& body) {
    std::vector<std::string> names = arg_names(key.size());
    Tracer tracer(options.name, traced.empty());
    std::vector<Tensor> inputs;
    for (std::size_t i = 0; i < key.size(); ++i)
      if (const auto* spec = std::get_if<TensorSpec>(&key.args()[i]))
        inputs.push_back(tracer.add_input(spec->meta(), names[i]));
    tracer.set_outputs(body(inputs));
    auto function = std::make_shared<ConcreteFunction>(options.name, key, names, tracer.take_graph(), options.optimize);
    traced.push_back(function);
    return function;
  }

  /// The cached function for `key`, or a new trace; fills the record's tracing fields.
  std::shared_ptr<ConcreteFunction> find_or_trace(const TraceKey& key, const TraceBody& body, CallRecord& record) {
    if (auto* hit = cache.lookup(key)) return *hit;
    std::vector<TraceKey> cached = cache.keys();
    record.reason = cached.empty() ? "first call" : explain_retrace(key, cached, arg_names(key.size()));
    TraceKey trace_key = options.reduce_retracing ? relax(key, cached) : key;
    if (!(trace_key == key)) record.reason += "; tracing a generalized function for " + trace_key.str();
    auto start = Clock::now();
    auto function = trace(trace_key, body);
    cache.add(trace_key, function);
    record.trace_us = micros_since(start);
    record.traced = true;
    return function;
  }

  /// key.str(), remembered for the kMaxKeyTexts most recent distinct keys.
  const std::string& key_text(const TraceKey& key) {
    for (const auto& [known, text] : key_texts)
      if (known == key) return text;
    if (key_texts.size() == kMaxKeyTexts) key_texts.erase(key_texts.begin());
    return key_texts.emplace_back(key, key.str()).second;
  }

  std::size_t index_of(const ConcreteFunction* function) const {
    for (std::size_t i = 0; i < traced.size(); ++i)
      if (traced[i].get() == function) return i;
    return 0;
  }
};

FunctionCore::FunctionCore(FunctionOptions options) : state_(std::make_unique<State>(std::move(options))) {}
FunctionCore::~FunctionCore() = default;

std::vector<Tensor> FunctionCore::call(CallArgs call, const TraceBody& body) {
  State& s = *state_;
  CallRecord record;
  record.index = s.call_count;
  TraceKey key = s.key_for(call);
  record.key = s.key_text(key);
  auto function = s.find_or_trace(key, body, record);
  ++s.call_count;
  record.concrete_index = s.index_of(function.get());
  if (auto warning = s.detector.record_call(record.traced, "<" + s.options.name + ">")) {
    record.warning = *warning;
    log_message(LogLevel::warning, *warning);
  }
  std::vector<Tensor> tensors;
  for (const Tensor& t : call.tensors)
    if (t.defined()) tensors.push_back(t);
  const bool timed = s.options.record_timings;
  auto start = timed ? Clock::now() : Clock::time_point{};
  std::vector<Tensor> outputs = function->call(tensors);
  if (timed) record.execute_us = micros_since(start);
  s.calls.push_back(std::move(record));
  return outputs;
}

ConcreteFunction& FunctionCore::concrete(CallArgs call, const TraceBody& body) {
  CallRecord ignored;
  return *state_->find_or_trace(state_->key_for(call), body, ignored);
}

int FunctionCore::tracing_count() const noexcept { return static_cast<int>(state_->traced.size()); }

std::string FunctionCore::pretty_printed_concrete_signatures() const {
  std::string out;
  for (std::size_t i = 0; i < state_->traced.size(); ++i) {
    if (i > 0) out += '\n';
    out += state_->traced[i]->pretty_signature();
  }
  return out;
}

std::vector<const ConcreteFunction*> FunctionCore::concrete_functions() const {
  std::vector<const ConcreteFunction*> out;
  for (const auto& f : state_->traced) out.push_back(f.get());
  return out;
}

const std::vector<CallRecord>& FunctionCore::calls() const noexcept { return state_->calls; }
void FunctionCore::clear_calls() noexcept { state_->calls.clear(); }
const FunctionOptions& FunctionCore::options() const noexcept { return state_->options; }

}  // namespace tl::detail
