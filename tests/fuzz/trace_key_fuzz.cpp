// fuzz_trace_key: trace keys (function/trace_key.h), the cache and relaxation rules (retracing.h) and input
// signature matching (function.h) on decoded argument lists (trace_key_format.h).
//
// Input: a key A; edits that turn a copy of it into a key B (replace, append or drop an argument, swap two,
// make a dim unknown), so that equal and nearly equal keys are common; then a mode byte (bit 0: give the
// function an input signature — bit 1: A's tensor specs, else decoded specs; bit 2: reduce_retracing;
// bit 3: also call with real tensors).
//
// Must hold:
//   - == is reflexive and symmetric; equal keys have equal hashes and each accepts the other;
//     a key accepts itself; accepts() needs the same arity and kinds;
//   - per argument, equal str() of two arguments of one kind means equal arguments (the text a retrace reason
//     shows tells values apart), and str() is a pure function of the key;
//   - FunctionCache: after add(A), lookup(A) finds it; lookup(B) finds something exactly when B == A or A
//     accepts B;
//   - relax(B, {A}) accepts B, and when it generalized (differs from B) it accepts A too;
//     explain_retrace(B, {A}) never throws and says something;
//   - a tl::AnyFunction traces A once, then B only when A's function cannot serve it, and
//     serves B again without tracing;
//   - with an input signature, a call is accepted exactly when a reference check written here (same count, all
//     tensors, same dtype and rank, no dim where both sides are known and differ) says so; anything else is a
//     tl::InvalidArgument naming the function.
#include <algorithm>
#include <map>

#include "fuzz_check.h"
#include "trace_key_format.h"

namespace {

using namespace tl;

void apply_edits(fuzz::ByteReader& in, std::vector<ArgKey>& args) {
  int edits = in.u8() % 4;
  for (int e = 0; e < edits; ++e) {
    std::uint8_t what = in.u8() % 5, pos = in.u8();
    if (what == 0 && !args.empty()) {
      args[pos % args.size()] = fuzz::decode_arg(in);
    } else if (what == 1 && !args.empty()) {
      if (auto* spec = std::get_if<TensorSpec>(&args[pos % args.size()]); spec && spec->shape().rank() > 0) {
        Shape shape = spec->shape();
        shape.dims()[in.u8() % shape.dims().size()] = -1;
        *spec = TensorSpec(shape, spec->dtype(), spec->name());
      }
    } else if (what == 2 && args.size() > 1) {
      std::swap(args[pos % args.size()], args[in.u8() % args.size()]);
    } else if (what == 3 && !args.empty()) {
      args.pop_back();
    } else if (what == 4 && args.size() < 8) {
      args.push_back(fuzz::decode_arg(in));
    }
  }
}

void check_key_properties(const TraceKey& a, const TraceKey& b) {
  FUZZ_CHECK(a == a, "a key is not equal to itself: ", a.str());
  FUZZ_CHECK((a == b) == (b == a), "== is not symmetric: ", a.str(), " vs ", b.str());
  FUZZ_CHECK(a.accepts(a), "a key does not accept itself: ", a.str());
  FUZZ_CHECK(a.str() == TraceKey(a.args()).str() && a.hash() == TraceKey(a.args()).hash(),
             "str() / hash() differ for a copy of ", a.str());
  if (a == b)
    FUZZ_CHECK(a.hash() == b.hash() && a.accepts(b) && b.accepts(a), "equal keys ", a.str(), " and ", b.str(),
               " differ in hash or acceptance");
  if (a.accepts(b)) {
    FUZZ_CHECK(a.size() == b.size(), a.str(), " accepts ", b.str(), " of another arity");
    for (std::size_t i = 0; i < a.size(); ++i)
      FUZZ_CHECK(a.args()[i].index() == b.args()[i].index(), a.str(), " accepts ", b.str(), " of other kinds");
  }
  for (const ArgKey& x : a.args())
    for (const ArgKey& y : b.args())
      if (x.index() == y.index() && arg_key_str(x) == arg_key_str(y))
        FUZZ_CHECK(TraceKey({x}) == TraceKey({y}), "two different ", arg_key_kind(x), " arguments print the same: ",
                   arg_key_str(x));
}

void check_cache_and_relax(const TraceKey& a, const TraceKey& b) {
  FunctionCache<int> cache;
  cache.add(a, 1);
  const int* hit = cache.lookup(a);
  FUZZ_CHECK(hit != nullptr && *hit == 1, "FunctionCache does not find the key it was given: ", a.str());
  FUZZ_CHECK((cache.lookup(b) != nullptr) == (a == b || a.accepts(b)), "FunctionCache lookup of ", b.str(),
             " after adding ", a.str(), " disagrees with == / accepts");
  cache.add(b, 2);
  FUZZ_CHECK(cache.size() == (a == b ? 1u : 2u), "FunctionCache holds ", cache.size(), " entries for two keys");
  TraceKey relaxed = relax(b, {a});
  FUZZ_CHECK(relaxed.accepts(b), "relax(", b.str(), ") = ", relaxed.str(), " does not accept the call");
  if (!(relaxed == b)) FUZZ_CHECK(relaxed.accepts(a), "relax gave ", relaxed.str(), " which does not accept ", a.str());
  FUZZ_CHECK(!explain_retrace(b, {a}, {"x", "y"}).empty(), "explain_retrace says nothing");
}

/// The reference rule for input signatures: how a call's arguments must fit the specs.
bool reference_accepts(const std::vector<TensorSpec>& specs, const std::vector<ArgKey>& call) {
  if (specs.size() != call.size()) return false;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto* given = std::get_if<TensorSpec>(&call[i]);
    if (given == nullptr || given->dtype() != specs[i].dtype() || given->shape().rank() != specs[i].shape().rank())
      return false;
    for (int d = 0; d < given->shape().rank(); ++d) {
      auto want = specs[i].shape()[static_cast<std::size_t>(d)], got = given->shape()[static_cast<std::size_t>(d)];
      if (want >= 0 && got >= 0 && want != got) return false;
    }
  }
  return true;
}

/// One real Variable per decoded variable id: a key compares variables by identity only, so mapping each id to
/// its own Variable keeps every == and accepts between keys as decoded.
class Variables {
 public:
  const Variable& operator()(const VariableKey& key) {
    auto it = by_id_.find(key.id);
    if (it == by_id_.end()) it = by_id_.emplace(key.id, Variable(scalar(0.f), "fuzzed")).first;
    return it->second;
  }

 private:
  std::map<std::uint64_t, Variable> by_id_;
};

AnyArg to_arg(const ArgKey& key, Variables& variables) {
  return std::visit(
      [&](const auto& value) -> AnyArg {
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, VariableKey>) return variables(value);
        else return value;
      },
      key);
}

/// The call as get_concrete_function takes it: TensorSpecs and plain values.
std::vector<AnyArg> spec_call(const std::vector<ArgKey>& keys, Variables& variables) {
  std::vector<AnyArg> call;
  for (const auto& k : keys) call.push_back(to_arg(k, variables));
  return call;
}

/// The call with a zero tensor for each fully defined, small spec; false when some spec cannot be one.
bool tensor_call(const std::vector<ArgKey>& keys, Variables& variables, std::vector<AnyArg>& call) {
  std::int64_t total = 0;
  for (const auto& k : keys) {
    const auto* spec = std::get_if<TensorSpec>(&k);
    if (spec == nullptr) {
      call.push_back(to_arg(k, variables));
      continue;
    }
    if (!spec->shape().is_fully_defined()) return false;
    for (auto d : spec->shape().dims())
      if (d > 4096) return false;
    total += spec->shape().num_elements();
    if (total > 4096) return false;
    call.emplace_back(Tensor::empty(spec->dtype(), spec->shape()));
  }
  return true;
}

std::vector<ArgKey> keys_of(const std::vector<AnyArg>& call) {
  std::vector<ArgKey> keys;
  for (const AnyArg& arg : call) keys.push_back(arg.key());
  return keys;
}

AnyFunction empty_function(FunctionOptions options) {
  return AnyFunction([](std::span<const AnyArg>) { return std::vector<Tensor>{}; }, std::move(options));
}

void check_signature(const std::vector<TensorSpec>& specs, const TraceKey& b, bool with_tensors) {
  Variables variables;
  AnyFunction f = empty_function({.input_signature = InputSignature(specs), .name = "fuzzed"});
  const bool want = reference_accepts(specs, b.args());
  bool got = true;
  try {
    f.get_concrete_function(spec_call(b.args(), variables));
  } catch (const InvalidArgument& e) {
    got = false;
    FUZZ_CHECK(std::string(e.what()).starts_with("fuzzed: "), "a signature error does not name the function: ",
               e.what());
  }
  FUZZ_CHECK(got == want, "input signature ", TraceKey(std::vector<ArgKey>(specs.begin(), specs.end())).str(),
             (got ? " accepts " : " rejects "), b.str(), ", the reference says the opposite");
  FUZZ_CHECK(f.tracing_count() == (got ? 1 : 0), "a signature function traced ", f.tracing_count(), " times");
  std::vector<AnyArg> call;
  if (!with_tensors || !tensor_call(b.args(), variables, call)) return;
  const std::vector<ArgKey> keys = keys_of(call);
  const bool want_call = reference_accepts(specs, keys);
  bool got_call = true;
  try {
    f(call);
  } catch (const InvalidArgument&) {
    got_call = false;
  }
  FUZZ_CHECK(got_call == want_call, "a call with tensors ", TraceKey(keys).str(), " is ",
             (got_call ? "accepted" : "rejected"), " by the signature, the reference says the opposite");
  FUZZ_CHECK(f.tracing_count() <= 1, "a function with an input signature traced ", f.tracing_count(), " times");
}

void check_function_cache(const TraceKey& a, const TraceKey& b, bool reduce_retracing) {
  Variables variables;
  AnyFunction f = empty_function({.reduce_retracing = reduce_retracing, .name = "fuzzed"});
  f.get_concrete_function(spec_call(a.args(), variables));
  FUZZ_CHECK(f.tracing_count() == 1, "the first call traced ", f.tracing_count(), " times");
  const bool served = a == b || a.accepts(b);
  f.get_concrete_function(spec_call(b.args(), variables));
  FUZZ_CHECK(f.tracing_count() == (served ? 1 : 2), "after ", a.str(), " the call ", b.str(), " traced ",
             f.tracing_count() - 1, " more times");
  int before = f.tracing_count();
  f.get_concrete_function(spec_call(b.args(), variables));
  FUZZ_CHECK(f.tracing_count() == before, "calling again with ", b.str(), " traced again");
}

void check(const std::uint8_t* data, std::size_t size) {
  fuzz::ByteReader in(data, size);
  std::vector<ArgKey> a_args = fuzz::decode_args(in);
  std::vector<ArgKey> b_args = a_args;
  apply_edits(in, b_args);
  TraceKey a(a_args), b(b_args);
  check_key_properties(a, b);
  check_key_properties(b, a);
  check_cache_and_relax(a, b);
  const std::uint8_t mode = in.u8();
  if (!(mode & 1)) return check_function_cache(a, b, (mode & 4) != 0);
  std::vector<TensorSpec> specs;
  if (mode & 2) {
    for (const auto& k : a_args)
      if (const auto* spec = std::get_if<TensorSpec>(&k)) specs.push_back(*spec);
  } else {
    specs.resize(in.u8() % 5);
    for (auto& s : specs) s = fuzz::decode_spec(in);
  }
  check_signature(specs, b, (mode & 8) != 0);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  set_log_sink([](LogLevel, std::string_view) {});  // frequent-retracing warnings go nowhere
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FUZZ_GUARD(check(data, size));
  return 0;
}
