// TensorSpec, TraceKey, FunctionCache, the relaxation rule, retrace reasons and the frequent-retracing
// detector: the value types tl::function's cache is made of.
#include <doctest/doctest.h>

#include "tracelab/function/retracing.h"
#include "tracelab/tracelab.h"

namespace trace_key_test {

namespace {
tl::ArgKey spec(tl::Shape shape, tl::DType dtype = tl::float32) { return tl::TensorSpec(std::move(shape), dtype); }
tl::TraceKey ragged(std::int64_t x) { return tl::TraceKey({spec({1, x, 20}), spec({1})}); }
}  // namespace

TEST_CASE("function/tensor_spec: compatibility, mismatch reasons, common supertype, text") {
  tl::TensorSpec s({-1, -1, 20}, tl::float32, "x");
  CHECK(s.str() == "TensorSpec(shape=(None, None, 20), dtype=tl.float32, name='x')");
  CHECK(tl::TensorSpec({3}).str() == "TensorSpec(shape=(3,), dtype=tl.float32, name=None)");
  CHECK(s.is_compatible_with(tl::zeros({1, 7, 20}).meta()));
  CHECK_FALSE(s.is_compatible_with(tl::zeros({1, 7, 21}).meta()));
  CHECK(s.mismatch(tl::zeros({1, 7, 21}).meta()) == "dim 2: expected 20, got 21 (shape (1, 7, 21) vs (None, None, 20))");
  CHECK(s.mismatch(tl::zeros({7, 20}).meta()).find("expected rank 3") == 0);
  CHECK(s.mismatch(tl::zeros({1, 7, 20}, tl::int32).meta()) == "expected dtype float32, got int32");
  CHECK(s.mismatch(tl::zeros({1, 2, 20}).meta()).empty());
  auto common = tl::TensorSpec({1, 3, 20}).most_specific_common(tl::TensorSpec({1, 7, 20}));
  REQUIRE(common);
  CHECK(common->shape() == tl::Shape{1, -1, 20});
  CHECK_FALSE(tl::TensorSpec({1, 3}).most_specific_common(tl::TensorSpec({1, 3, 1})));
  CHECK_FALSE(tl::TensorSpec({3}).most_specific_common(tl::TensorSpec({3}, tl::int32)));
  CHECK_THROWS_AS(tl::TensorSpec({-2}), tl::InvalidArgument);
}

TEST_CASE("function/trace_key: tensors by spec, plain values by value, variables by identity") {
  CHECK(ragged(3) == ragged(3));
  CHECK(ragged(3) != ragged(4));
  CHECK(ragged(3).hash() == ragged(3).hash());
  CHECK(tl::TraceKey({std::int64_t{1}}) != tl::TraceKey({std::int64_t{2}}));
  CHECK(tl::TraceKey({std::int64_t{1}}) != tl::TraceKey({1.0}));
  tl::Variable v(tl::zeros({2}), "v"), w(tl::zeros({2}), "w");
  tl::TraceKey with_v({tl::VariableKey{v.id(), v.dtype(), v.shape()}});
  CHECK(with_v == tl::TraceKey({tl::VariableKey{v.id(), v.dtype(), v.shape()}}));
  CHECK(with_v != tl::TraceKey({tl::VariableKey{w.id(), w.dtype(), w.shape()}}));
  CHECK(tl::TraceKey({spec({2}), true, std::string("relu"), 0.5}).str() ==
        "(TensorSpec(shape=(2,), dtype=tl.float32, name=None), True, 'relu', 0.5)");
  tl::TraceKey generic({spec({1, -1, 20}), spec({1})});
  CHECK(generic.accepts(ragged(9)));
  CHECK_FALSE(ragged(9).accepts(generic));
  CHECK_FALSE(generic.accepts(tl::TraceKey({spec({1, 9, 20})})));
  CHECK_FALSE(generic.accepts(tl::TraceKey({spec({1, 9, 20}), spec({1}, tl::int32)})));
}

TEST_CASE("function/cache: exact keys first, then the newest generalized key that accepts the call") {
  tl::FunctionCache<std::string> cache;
  cache.add(ragged(1), "exact-1");
  CHECK(cache.lookup(ragged(2)) == nullptr);
  cache.add(tl::TraceKey({spec({1, -1, 20}), spec({1})}), "relaxed");
  CHECK(*cache.lookup(ragged(1)) == "exact-1");
  CHECK(*cache.lookup(ragged(7)) == "relaxed");
  CHECK(cache.size() == 2);
  cache.add(ragged(1), "replaced");
  CHECK(cache.size() == 2);
  CHECK(*cache.lookup(ragged(1)) == "replaced");
  cache.clear();
  CHECK(cache.lookup(ragged(1)) == nullptr);
}

TEST_CASE("function/relax: first shape as is, the second generalizes the differing dims, then it serves all") {
  // Simulates a function called with X = 1..10 under reduce_retracing: exactly 2 traces (TensorFlow's rule).
  tl::FunctionCache<int> cache;
  int traces = 0;
  for (std::int64_t x = 1; x <= 10; ++x) {
    tl::TraceKey call = ragged(x);
    if (cache.lookup(call)) continue;
    cache.add(tl::relax(call, cache.keys()), ++traces);
  }
  CHECK(traces == 2);
  CHECK(cache.keys()[0] == ragged(1));
  CHECK(cache.keys()[1] == tl::TraceKey({spec({1, -1, 20}), spec({1})}));
  // Different structure (rank, dtype, plain value) is not generalized.
  CHECK(tl::relax(tl::TraceKey({spec({1, 5})}), {ragged(1)}) == tl::TraceKey({spec({1, 5})}));
  CHECK(tl::relax(tl::TraceKey({spec({4}), std::int64_t{2}}), {tl::TraceKey({spec({3}), std::int64_t{1}})}) ==
        tl::TraceKey({spec({4}), std::int64_t{2}}));
}

TEST_CASE("function/explain_retrace: a reason a person can act on") {
  CHECK(tl::explain_retrace(ragged(3), {}) == "first call: no function traced yet");
  CHECK(tl::explain_retrace(ragged(7), {ragged(1), ragged(3)}, {"x", "y"}) ==
        "arg 0 (x): dim 1 changed 3 -> 7; no cached function matches; cache holds 2 functions");
  CHECK(tl::explain_retrace(tl::TraceKey({std::int64_t{2}}), {tl::TraceKey({std::int64_t{1}})}) ==
        "arg 0: value changed 1 -> 2 (a C++ int is part of the trace key; pass a tensor to avoid retracing); "
        "no cached function matches; cache holds 1 function");
  CHECK(tl::explain_retrace(tl::TraceKey({spec({2}, tl::int32)}), {tl::TraceKey({spec({2})})}).find(
            "arg 0: dtype changed float32 -> int32") == 0);
  CHECK(tl::explain_retrace(tl::TraceKey({spec({2}), spec({2})}), {tl::TraceKey({spec({2})})}).find(
            "argument count changed 1 -> 2") == 0);
}

TEST_CASE("function/retracing_detector: TensorFlow's window of 10 calls and threshold of 5 traces") {
  tl::RetracingDetector detector(/*max_warnings=*/-1);  // TF 2.1 (the source article) had no warning limit
  std::vector<std::string> warnings;
  auto call = [&](bool traced) {
    if (auto warning = detector.record_call(traced, "<train_step>")) warnings.push_back(*warning);
  };
  for (bool traced : {true, false, true, true, true, true}) call(traced);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].rfind("5 out of the last 6 calls to <train_step> triggered tl.function retracing. "
                          "Tracing is expensive", 0) == 0);
  for (bool traced : {false, true, false, true, true}) call(traced);
  REQUIRE(warnings.size() == 4);
  CHECK(warnings[1].rfind("6 out of the last 8 calls", 0) == 0);
  CHECK(warnings[2].rfind("7 out of the last 10 calls", 0) == 0);
  CHECK(warnings[3].rfind("8 out of the last 11 calls", 0) == 0);  // the oldest group still fits the window
  for (int i = 0; i < 20; ++i) call(false);  // no traces: no warnings
  CHECK(warnings.size() == 4);

  tl::RetracingDetector limited;  // current TensorFlow: at most 2 warnings
  int count = 0;
  for (int i = 0; i < 20; ++i) count += limited.record_call(true, "f").has_value();
  CHECK(count == 2);
  // TensorFlow trims the oldest group only while call_count - its size > 10, so 11 single-call groups remain.
  CHECK(limited.tracing_count() == 11);
  CHECK(limited.call_count() == 11);
}

}  // namespace trace_key_test
