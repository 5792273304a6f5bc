// Lesson 3 — the tracing rules: when does a tl::function trace again, and when does it reuse a graph?
//
// A call's trace key has one entry per argument: a Tensor contributes its dtype and shape, a plain C++ number
// its value, a Variable its identity. Five short demonstrations, after TensorFlow's tf.function guide:
//   1. double(a) = a + a with int32, float32 and a new shape: one trace each, then reuse; the concrete
//      signatures. (Tracelab's dtypes are float32, int32 and bool — there is no string dtype.)
//   2. A C++ float argument retraces for every new value; the same number passed as a tensor does not.
//   3. Variables are keyed by identity: two variables, two traces; a new value in the same one, no retrace
//      (the graph reads it by handle). A captured Tensor, by contrast, is baked in as a constant.
//   4. get_concrete_function(TensorSpec) traces without data; the graph serves every shape the spec accepts.
//   5. Retracing on every call triggers TensorFlow's frequent-retracing warning, captured and printed here.
// Each section checks what it shows (tracing counts, values, warnings); the program exits 1 if one fails.
//
// Build: cmake --build --preset native --target tracing_rules
// Run:   build/native/examples/tracing_rules [--calls 10]
//        node build/wasm/examples/tracing_rules.js
#include <iostream>
#include <string>
#include <vector>

#include <tracelab/tracelab.h>

#include "flags.h"

namespace {

/// Prints a labelled check and returns its outcome.
bool check(bool holds, const std::string& what) {
  std::cout << "  check: " << what << ": " << (holds ? "ok" : "FAILED") << "\n";
  return holds;
}

/// "traced (first call)" or "reused concrete function 0" for the last call of f (its call history keeps one).
template <class F>
std::string last_call(const F& f) {
  const tl::CallRecord& call = f.calls().back();
  return call.traced ? "traced (" + call.reason + ")"
                     : "reused concrete function " + std::to_string(call.concrete_index);
}

bool double_by_dtype() {
  std::cout << "1. double(a) = a + a, called with different dtypes and shapes\n"
            << "   Tracelab's dtypes: " << tl::dtype_name(tl::float32) << ", " << tl::dtype_name(tl::int32) << ", "
            << tl::dtype_name(tl::bool_) << " (TensorFlow's guide also passes a string tensor; there is none here)\n";
  auto twice = tl::function([](const tl::Tensor& a) { return a + a; },
                            {.name = "double", .arg_names = {"a"}, .call_history = 1});
  std::vector<tl::Tensor> inputs = {tl::scalar(1), tl::scalar(1.5f), tl::constant({1.f, 2.f}), tl::scalar(7),
                                    tl::scalar(2.5f)};
  for (const tl::Tensor& a : inputs) {
    tl::Tensor result = twice(a);
    std::cout << "   double(" << a.values_str() << " " << tl::meta_str(a.meta()) << ") = " << result.values_str()
              << "  -> " << last_call(twice) << "\n";
  }
  try {
    twice(tl::scalar(true));
  } catch (const tl::Error& e) {
    std::cout << "   double(True) fails while tracing: " << e.kind() << ": " << e.what() << "\n";
  }
  std::cout << "   tracing_count = " << twice.tracing_count() << "\n\n"
            << twice.pretty_printed_concrete_signatures() << "\n";
  return check(twice.tracing_count() == 3,
               "3 traces for int32 (), float32 (), float32 (2,); none for repeats or the failed bool call");
}

bool numbers_vs_tensors(std::int64_t calls) {
  std::cout << "\n2. a C++ number is keyed by value, a tensor by dtype and shape\n";
  tl::Tensor x = tl::constant({1.f, 2.f, 3.f});
  auto scale_by_number = tl::function([](const tl::Tensor& v, float factor) { return v * factor; },
                                      {.name = "scale_by_number", .arg_names = {"x", "factor"}, .call_history = 1});
  auto scale_by_tensor = tl::function([](const tl::Tensor& v, const tl::Tensor& factor) { return v * factor; },
                                      {.name = "scale_by_tensor", .arg_names = {"x", "factor"}, .call_history = 1});
  for (std::int64_t i = 0; i < calls; ++i) {
    float factor = static_cast<float>(1 + i % 3);  // 1, 2, 3, 1, 2, 3, ...
    scale_by_number(x, factor);
    scale_by_tensor(x, tl::scalar(factor));
    if (i < 6)
      std::cout << "   factor " << factor << ": float argument " << last_call(scale_by_number) << "\n"
                << "             tensor argument " << last_call(scale_by_tensor) << "\n";
  }
  if (calls > 6) std::cout << "   ... (" << calls - 6 << " more calls)\n";
  int distinct_values = static_cast<int>(std::min<std::int64_t>(calls, 3));
  std::cout << "   tracing_count: float " << scale_by_number.tracing_count() << ", tensor "
            << scale_by_tensor.tracing_count() << "\n";
  return check(scale_by_number.tracing_count() == distinct_values && scale_by_tensor.tracing_count() == 1,
               "one trace per distinct float value (" + std::to_string(distinct_values) + "), one for the tensor");
}

bool variables_by_identity() {
  std::cout << "\n3. Variables are keyed by identity and read by handle\n";
  auto scaled =
      tl::function([](const tl::Variable& v) { return v.read() * 2.f; },
                   {.name = "scaled", .arg_names = {"v"}, .call_history = 1});
  tl::Variable first(tl::constant({1.f, 2.f}), "first");
  tl::Variable second(tl::constant({3.f, 4.f}), "second");
  std::cout << "   scaled(first)  = " << scaled(first).values_str() << "  -> " << last_call(scaled) << "\n";
  std::cout << "   scaled(second) = " << scaled(second).values_str() << "  -> " << last_call(scaled) << "\n";
  first.assign(tl::constant({10.f, 20.f}));
  tl::Tensor after_assign = scaled(first);
  std::cout << "   first.assign([10 20]); scaled(first) = " << after_assign.values_str() << "  -> " << last_call(scaled)
            << "\n";
  bool ok = check(scaled.tracing_count() == 2 && after_assign.to_vector<float>() == std::vector<float>{20, 40},
                  "two variables: 2 traces; a new value in the same variable: no retrace, the new value is used");

  tl::Tensor offset = tl::constant({1.f, 1.f});
  auto shifted = tl::function([&offset](const tl::Tensor& x) { return x + offset; }, {.name = "shifted"});
  tl::Tensor before = shifted(tl::zeros({2}));
  offset = tl::constant({100.f, 100.f});  // the graph holds the old value as a constant
  tl::Tensor after = shifted(tl::zeros({2}));
  std::cout << "   a captured Tensor: shifted(0) = " << before.values_str()
            << ", after changing it: " << after.values_str() << " (tracing_count " << shifted.tracing_count() << ")\n";
  return check(ok && after.to_vector<float>() == std::vector<float>{1, 1},
               "a captured Tensor is a constant of the graph: changing it neither retraces nor shows");
}

bool concrete_function_from_spec() {
  std::cout << "\n4. get_concrete_function traces for a spec, without data\n";
  auto square_sum = tl::function([](const tl::Tensor& x) { return tl::reduce_sum(x * x); },
                                 {.name = "square_sum", .arg_names = {"x"}, .call_history = 1});
  tl::ConcreteFunction& concrete = square_sum.get_concrete_function(tl::TensorSpec({-1}, tl::float32, "x"));
  std::cout << concrete.pretty_signature() << "\n" << concrete.graph().str();
  float direct = concrete.call({tl::constant({1.f, 2.f, 3.f})}).at(0).item<float>();
  float through_function = square_sum(tl::constant({3.f, 4.f})).item<float>();
  std::cout << "   concrete.call([1 2 3]) = " << direct << "; square_sum([3 4]) = " << through_function << "  -> "
            << last_call(square_sum) << "\n";
  std::string rejection;
  try {
    concrete.call({tl::constant({1, 2})});
  } catch (const tl::Error& e) {
    rejection = e.what();
    std::cout << "   concrete.call(int32 [1 2]): " << e.kind() << ": " << e.what() << "\n";
  }
  bool unknown_length = concrete.pretty_signature().find("shape=(None,)") != std::string::npos;
  return check(square_sum.tracing_count() == 1 && unknown_length && direct == 14.f && through_function == 25.f &&
                   rejection.find("int32") != std::string::npos,
               "one trace, for shape (None,), serves every float32 vector; a concrete function rejects int32");
}

/// Calls `f` `calls` times and returns the retracing warnings it logged.
template <class Call>
std::vector<std::string> warnings_of(std::int64_t calls, Call call) {
  tl::ScopedLogCapture capture;  // the default sink would write them to stderr
  for (std::int64_t i = 0; i < calls; ++i) call(static_cast<float>(i));
  return capture.texts(tl::LogLevel::warning);
}

bool retracing_warning(std::int64_t calls) {
  std::cout << "\n5. retracing on every call: TensorFlow's warning\n";
  tl::Tensor x = tl::ones({3});
  auto by_number =
      tl::function([](const tl::Tensor& v, float factor) { return v * factor; }, {.name = "scale_by_number"});
  auto by_tensor = tl::function([](const tl::Tensor& v, const tl::Tensor& factor) { return v * factor; },
                                {.name = "scale_by_tensor"});
  std::vector<std::string> number_warnings = warnings_of(calls, [&](float factor) { by_number(x, factor); });
  std::vector<std::string> tensor_warnings =
      warnings_of(calls, [&](float factor) { by_tensor(x, tl::scalar(factor)); });
  std::cout << "   " << calls << " calls with a new float each: " << by_number.tracing_count() << " traces, "
            << number_warnings.size() << " warning(s)\n";
  for (const std::string& warning : number_warnings) std::cout << "   WARNING: " << warning << "\n";
  std::cout << "   the same values as tensors: " << by_tensor.tracing_count() << " trace, " << tensor_warnings.size()
            << " warnings\n";
  bool expect_warning = calls >= tl::RetracingDetector::kThreshold;
  return check(number_warnings.empty() != expect_warning && tensor_warnings.empty(),
               expect_warning ? "at least 5 traces in the last 10 calls warn; tensors never do"
                              : "fewer than 5 traces: no warning yet; tensors never warn");
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t calls = 10;
  examples::Flags flags("tracing_rules", "what makes a tl::function trace again: dtypes, shapes, numbers, variables");
  flags.integer("--calls", &calls, 1, 1000, "calls in the number-vs-tensor and warning sections");
  if (auto exit_code = flags.parse(argc, argv)) return *exit_code;
  try {
    bool ok = double_by_dtype();
    ok = numbers_vs_tensors(calls) && ok;
    ok = variables_by_identity() && ok;
    ok = concrete_function_from_spec() && ok;
    ok = retracing_warning(calls) && ok;
    std::cout << "\n" << (ok ? "all checks passed" : "SOME CHECKS FAILED") << "\n";
    return ok ? 0 : 1;
  } catch (const tl::Error& e) {
    std::cerr << "tracing_rules: " << e.kind() << ": " << e.what() << "\n";
    return 1;
  }
}
