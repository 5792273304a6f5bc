// Lesson 4 — side effects and control flow in traced functions.
//
// A tl::function runs its C++ body once per trace, with symbolic tensors; later calls run only the graph. So:
//   1. std::cout (any C++ side effect) happens once per trace; tl::print is a graph op and prints every call.
//      For debugging, tl::config::run_functions_eagerly(true) (tf.config.run_functions_eagerly) turns tracing off:
//      the body runs on every call, std::cout included, and nothing is traced until it is switched off again.
//   2. A tl::Variable created inside the function is created while tracing: allowed on the first trace (and
//      then shared by every later call — unlike eager code, which would make a new one per call), an error on a
//      retrace. The fix: create it outside.
//   3. A C++ `if` on a tensor needs its value, which a symbolic tensor does not have: tracing throws
//      tl::OperatorNotAllowedInGraph. tl::cond puts both branches in the graph and decides when it runs.
//   4. tl::while_loop does the same for loops with a data-dependent trip count (Newton's square root here).
//   5. tl::debugging::assert_* (tf.debugging.assert_*) are graph ops too: a traced assertion checks the values of
//      every call and fails on the bad call only; what the shape decides (assert_rank) fails while tracing.
// The graph of each function is printed. The program checks each claim (print counts, the errors, the
// results, one trace per function) and exits 1 if one fails.
//
// Build: cmake --build --preset native --target side_effects
// Run:   build/native/examples/side_effects [--calls 5]
//        node build/wasm/examples/side_effects.js
#include <cmath>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include <tracelab/tracelab.h>

#include "flags.h"

namespace {

/// Prints a labelled check and returns its outcome.
bool check(bool holds, const std::string& what) {
  std::cout << "  check: " << what << ": " << (holds ? "ok" : "FAILED") << "\n";
  return holds;
}

/// While alive, counts tl::print messages and writes every message to stdout; restores the previous sink.
class CountingSink {
 public:
  CountingSink() {
    previous_ = tl::set_log_sink([this](tl::LogLevel level, std::string_view text) {
      if (level == tl::LogLevel::print) ++prints_;
      std::cout << text << "\n";
    });
  }
  ~CountingSink() { tl::set_log_sink(previous_); }
  CountingSink(const CountingSink&) = delete;
  CountingSink& operator=(const CountingSink&) = delete;
  int prints() const noexcept { return prints_; }

 private:
  tl::LogSink previous_;
  int prints_ = 0;
};

/// While alive, every tl::function runs its body eagerly (tl::config::run_functions_eagerly); then tracing again.
class RunFunctionsEagerly {
 public:
  RunFunctionsEagerly() { tl::config::run_functions_eagerly(true); }
  ~RunFunctionsEagerly() { tl::config::run_functions_eagerly(false); }
  RunFunctionsEagerly(const RunFunctionsEagerly&) = delete;
  RunFunctionsEagerly& operator=(const RunFunctionsEagerly&) = delete;
};

bool cout_versus_print(std::int64_t calls) {
  std::cout << "1. std::cout vs tl::print over " << calls << " calls with the same input shape\n";
  CountingSink sink;
  int cout_runs = 0;
  auto f = tl::function(
      [&](const tl::Tensor& x) {
        ++cout_runs;
        std::cout << "   std::cout: tracing f for " << tl::meta_str(x.meta()) << "\n";  // only while tracing
        tl::print("   tl::print: f runs with x =", x);                                  // a graph op: every call
        return x + 1.f;
      },
      {.name = "f", .arg_names = {"x"}});
  for (std::int64_t i = 0; i < calls; ++i) f(tl::scalar(static_cast<float>(i)));
  std::cout << "   std::cout ran " << cout_runs << " time" << (cout_runs == 1 ? "" : "s") << ", tl::print ran "
            << sink.prints() << " time" << (sink.prints() == 1 ? "" : "s") << "\n"
            << f.concrete_functions()[0]->graph().str();
  return check(cout_runs == 1 && sink.prints() == calls, "std::cout once (one trace), tl::print on every call");
}

bool run_eagerly(std::int64_t calls) {
  std::cout << "\n1b. tl::config::run_functions_eagerly(true): the body runs on every call, nothing is traced\n";
  CountingSink sink;
  int cout_runs = 0;
  auto f = tl::function(
      [&](const tl::Tensor& x) {
        ++cout_runs;
        std::cout << "   std::cout: running the body for " << tl::meta_str(x.meta()) << "\n";
        tl::print("   tl::print: f runs with x =", x);
        return x + 1.f;
      },
      {.name = "f", .arg_names = {"x"}});
  {
    RunFunctionsEagerly eagerly;  // tl::config::run_functions_eagerly(true) until the end of this block
    for (std::int64_t i = 0; i < calls; ++i) f(tl::scalar(static_cast<float>(i)));
  }  // run_functions_eagerly(false): back to tracing
  std::int64_t eager_tracing_count = f.tracing_count();
  int eager_cout_runs = cout_runs;
  f(tl::scalar(static_cast<float>(calls)));  // traced now: the body runs once more, for the trace
  std::cout << "   eagerly: std::cout ran " << eager_cout_runs << " times, tracing_count " << eager_tracing_count
            << "; switched off, one more call: std::cout " << cout_runs << ", tl::print " << sink.prints()
            << ", tracing_count " << f.tracing_count() << "\n";
  return check(eager_cout_runs == calls && eager_tracing_count == 0 && cout_runs == calls + 1 &&
                   sink.prints() == calls + 1 && f.tracing_count() == 1 && !tl::config::functions_run_eagerly(),
               "eagerly the body runs every call and nothing is traced; switched off, the next call traces");
}

bool variable_inside() {
  std::cout << "\n2. a Variable created inside the function\n";
  auto accumulate_inside = tl::function(
      [](const tl::Tensor& x) {
        tl::Variable total(tl::zeros({2}), "total");  // runs on every trace: a new variable each time
        total.assign_add(x);
        return total.read();
      },
      {.name = "accumulate_inside", .arg_names = {"x"}});
  bool failed_on_first_call = false;
  try {
    // The first trace may create variables; because it did, the call traces again with creation forbidden,
    // and that second trace creates one more: TensorFlow's rule, so the very first call fails.
    accumulate_inside(tl::constant({1.f, 2.f}));
  } catch (const tl::Error& e) {
    failed_on_first_call = true;
    std::cout << "   [1 2] (the first call): " << e.kind() << ": " << e.what() << "\n";
  }

  std::optional<tl::Variable> once;  // created on the first trace only: the second trace finds it
  auto accumulate_once = tl::function(
      [&once](const tl::Tensor& x) {
        if (!once) once = tl::Variable(tl::zeros({2}), "total");
        once->assign_add(x);
        return once->read();
      },
      {.name = "accumulate_once", .arg_names = {"x"}});
  tl::Tensor first = accumulate_once(tl::constant({1.f, 2.f}));
  const int traces_after_first_call = accumulate_once.tracing_count();
  tl::Tensor second = accumulate_once(tl::constant({3.f, 4.f}));
  std::cout << "   created once (if (!total) ...): [1 2] -> " << first.values_str() << ", then [3 4] -> "
            << second.values_str() << "; the first call traced " << traces_after_first_call
            << " times (TensorFlow's check trace)\n";

  tl::Variable total(tl::zeros({2}), "total");  // the plain fix: create it outside
  auto accumulate = tl::function(
      [&total](const tl::Tensor& x) {
        total.assign_add(x);
        return total.read();
      },
      {.name = "accumulate", .arg_names = {"x"}});
  accumulate(tl::constant({1.f, 2.f}));
  accumulate(tl::constant({3.f, 4.f}));
  tl::Tensor fixed = accumulate(tl::scalar(10.f));
  std::cout << "   fixed (variable outside): [1 2], [3 4], 10 -> " << fixed.values_str() << " with "
            << accumulate.tracing_count() << " traces\n";
  return check(failed_on_first_call && traces_after_first_call == 2 &&
                   second.to_vector<float>() == std::vector<float>{4, 6} && accumulate.tracing_count() == 2 &&
                   fixed.to_vector<float>() == std::vector<float>{14, 16},
               "a variable created on every trace fails on the first call; created once, the first call traces "
               "twice; created outside, any number of traces work");
}

bool host_if_versus_cond() {
  std::cout << "\n3. a C++ if on a tensor vs tl::cond\n";
  auto add_one_if_positive = [](const tl::Tensor& x) {
    if (x > 0.f) return x + 1.f;  // reads the value: fine eagerly, impossible while tracing
    return x;
  };
  std::cout << "   eagerly: f(2) = " << add_one_if_positive(tl::scalar(2.f)).values_str() << "\n";
  bool refused = false;
  try {
    auto traced_if = tl::function(add_one_if_positive, {.name = "host_if"});
    traced_if(tl::scalar(2.f));
  } catch (const tl::OperatorNotAllowedInGraph& e) {
    refused = true;
    std::cout << "   traced: " << e.kind() << ": " << e.what() << "\n";
  }
  auto graph_if = tl::function(
      [](const tl::Tensor& x) {
        return tl::cond(
            x > 0.f, [&] { return x + 1.f; }, [&] { return x; });
      },
      {.name = "graph_if", .arg_names = {"x"}});
  float positive = graph_if(tl::scalar(2.f)).item<float>();
  float negative = graph_if(tl::scalar(-3.f)).item<float>();
  std::cout << "   with tl::cond: f(2) = " << positive << ", f(-3) = " << negative << " (tracing_count "
            << graph_if.tracing_count() << ")\n"
            << graph_if.concrete_functions()[0]->graph().str();
  return check(refused && positive == 3.f && negative == -3.f && graph_if.tracing_count() == 1,
               "the C++ if is refused while tracing; tl::cond decides per call from one trace");
}

bool newton_while_loop() {
  std::cout << "\n4. tl::while_loop: Newton's square root, iterating until it converges\n";
  auto newton_sqrt = tl::function(
      [](const tl::Tensor& a) {
        auto not_converged = [a](const std::vector<tl::Tensor>& v) {
          return tl::abs(v[0] * v[0] - a) > 1e-4f * a;
        };
        auto improve = [a](const std::vector<tl::Tensor>& v) {
          return std::vector<tl::Tensor>{(v[0] + a / v[0]) * 0.5f, v[1] + 1};
        };
        return tl::while_loop(not_converged, improve, {a, tl::scalar(0)}, {.maximum_iterations = 100});
      },
      {.name = "newton_sqrt", .arg_names = {"a"}});
  bool ok = true;
  for (float a : {2.f, 10000.f}) {
    std::vector<tl::Tensor> result = newton_sqrt(tl::scalar(a));
    float root = result[0].item<float>();
    std::cout << "   sqrt(" << a << ") = " << root << " after " << result[1].item<int>() << " iterations\n";
    ok = ok && std::abs(root - std::sqrt(a)) < 1e-3f * std::sqrt(a);
  }
  std::cout << newton_sqrt.concrete_functions()[0]->graph().str();
  return check(ok && newton_sqrt.tracing_count() == 1, "one trace, a different number of iterations per input");
}

/// The message of the tl::InvalidArgument that fn throws, or "" when it throws none.
template <class Fn>
std::string invalid_argument(Fn&& fn) {
  try {
    fn();
  } catch (const tl::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

bool assertions() {
  std::cout << "\n5. tl::debugging assertions: graph ops that check each call's values\n";
  int traces = 0;
  auto safe_log = tl::function(
      [&traces](const tl::Tensor& x) {
        ++traces;
        tl::debugging::assert_rank(x, 1, "x must be a vector");          // decided by the shape: at trace time
        tl::debugging::assert_positive(x, "log needs positive inputs");  // decided by the values: on every call
        return tl::log(x);
      },
      {.name = "safe_log", .arg_names = {"x"}});
  tl::Tensor good = safe_log(tl::constant({1.f, 2.f}));
  std::string bad = invalid_argument([&] { safe_log(tl::constant({1.f, -2.f})); });
  tl::Tensor again = safe_log(tl::constant({1.f, 4.f}));
  std::cout << "   log([1 2]) = " << good.values_str() << "\n   log([1 -2]): InvalidArgument: " << bad
            << "\n   log([1 4]) = " << again.values_str() << " (tracing_count " << safe_log.tracing_count() << ")\n"
            << safe_log.concrete_functions()[0]->graph().str();
  std::string eager = invalid_argument([] { tl::debugging::assert_positive(tl::constant({1.f, -2.f}), "eagerly"); });
  std::cout << "   eagerly, at once: InvalidArgument: " << eager << "\n";
  std::string rank = invalid_argument([&] { safe_log(tl::ones({2, 2})); });
  std::cout << "   a matrix, while tracing: InvalidArgument: " << rank << " (" << traces << " traces started, "
            << safe_log.tracing_count() << " kept)\n";
  auto near = [](const tl::Tensor& t, float a, float b) {
    return std::abs(t.to_vector<float>()[0] - a) < 1e-6f && std::abs(t.to_vector<float>()[1] - b) < 1e-6f;
  };
  const bool graph_ok = near(good, 0.f, std::log(2.f)) && near(again, 0.f, std::log(4.f)) &&
                        bad.find("log needs positive inputs") != std::string::npos &&
                        bad.find("(x = -2); x = f32[2] [1 -2]") != std::string::npos &&
                        safe_log.concrete_functions()[0]->graph().op_counts().count("assert_positive") == 1;
  return check(graph_ok && eager.find("assert_positive: eagerly") == 0 && traces == 2 &&
                   rank.find("x must be a vector: x must have rank 1, got f32[2,2]") != std::string::npos &&
                   safe_log.tracing_count() == 1,
               "one trace; the bad call fails at run time with its values, the next good call runs; eagerly it "
               "fails at once; a wrong rank fails while tracing");
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t calls = 5;
  examples::Flags flags("side_effects", "C++ side effects vs graph ops, variables, if vs tl::cond, tl::while_loop");
  flags.integer("--calls", &calls, 1, 1000, "calls of the print function");
  if (auto exit_code = flags.parse(argc, argv)) return *exit_code;
  try {
    bool ok = cout_versus_print(calls);
    ok = run_eagerly(calls) && ok;
    ok = variable_inside() && ok;
    ok = host_if_versus_cond() && ok;
    ok = newton_while_loop() && ok;
    ok = assertions() && ok;
    std::cout << "\n" << (ok ? "all checks passed" : "SOME CHECKS FAILED") << "\n";
    return ok ? 0 : 1;
  } catch (const tl::Error& e) {
    std::cerr << "side_effects: " << e.kind() << ": " << e.what() << "\n";
    return 1;
  }
}
