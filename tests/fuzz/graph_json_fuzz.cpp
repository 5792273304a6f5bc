// fuzz_graph_json: the input is graph JSON text for tl::graph::Graph::from_json (docs/graph.md). The seeds are
// graphs the engine traced (make_seeds.cpp), including cond, while_loop and dataset_loop nodes (over the one
// dataset of graph_fixture.h) and captured variables.
//
// Must hold for any text: from_json returns a graph or throws a tl::Error. For a graph it returned:
//   - verify() accepts it and str() prints it (the loader validated the same invariants);
//   - to_json() loads again, and writing that gives the same text (writer and reader agree);
//   - optimize() keeps it valid (an error other than OutOfMemory is a finding);
//   - run by the executor on inputs of the declared specs (unknown dims made 1..3, at most 4096 elements in all),
//     it returns outputs of the graph's output dtypes and compatible shapes or throws a tl::Error; a second run
//     gives bit-identical outputs without changing the first run's (buffer planning must not alias results the
//     caller holds), unless the graph has effects (assign, stateful ops); the optimized graph gives outputs of
//     the same metas.
// Graphs with a while_loop whose maximum_iterations is unlimited or above 64 are loaded, checked and optimized
// but not run: `while (true)` is a valid program and would only teach the fuzzer to time out.
#include <string_view>

#include "fuzz_check.h"
#include "graph_fixture.h"

namespace {

using namespace tl;
using graph::Graph;

constexpr std::int64_t kMaxRunElements = 4096;
constexpr std::int64_t kMaxLoopIterations = 64;

/// True when a while node anywhere in `g` (sub-graphs included) may loop more than kMaxLoopIterations times.
bool may_loop_long(const Graph& g) {
  for (const auto& node : g.nodes()) {
    if (node.kind == graph::NodeKind::op && node.op != nullptr && node.op->name().starts_with("while")) {
      auto max = node.attrs.get_or<std::int64_t>("maximum_iterations", -1);
      if (max < 0 || max > kMaxLoopIterations) return true;
    }
    for (const auto& sub : node.subgraphs)
      if (may_loop_long(*sub)) return true;
  }
  return false;
}

/// True when running `g` changes state (assign nodes, stateful or side-effecting ops), so two runs may differ.
bool has_effects(const Graph& g) {
  for (const auto& node : g.nodes()) {
    if (node.kind == graph::NodeKind::assign) return true;
    if (node.kind == graph::NodeKind::op && node.op != nullptr &&
        (node.op->has(trait::stateful) || node.op->has(trait::side_effects)))
      return true;
    for (const auto& sub : node.subgraphs)
      if (has_effects(*sub)) return true;
  }
  return false;
}

/// One tensor per graph input: unknown dims become 1..3, values a small ramp (valid indices for gather and
/// one_hot). Returns false when they would hold more than kMaxRunElements elements.
bool make_inputs(const Graph& g, std::uint64_t seed, std::vector<Tensor>& inputs) {
  std::int64_t total = 0;
  for (const auto& ref : g.inputs()) {
    Shape shape = g.meta(ref).shape;
    for (auto& d : shape.dims())
      if (d < 0) d = 1 + static_cast<std::int64_t>((seed = seed * 6364136223846793005ULL + 1) >> 62) % 3;
    for (auto d : shape.dims())
      if (d > kMaxRunElements) return false;
    total += shape.num_elements();
    if (total > kMaxRunElements) return false;
    Tensor t = Tensor::empty(g.meta(ref).dtype, shape);
    visit_dtype(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* data = t.num_elements() ? t.mutable_data<T>() : nullptr;
      for (std::int64_t i = 0; i < t.num_elements(); ++i) data[i] = static_cast<T>(i % 3);
    });
    inputs.push_back(t);
  }
  return true;
}

/// Runs `g`; an empty result when it throws a tl::Error (a kernel may reject values: an index out of range).
std::vector<Tensor> run_graph(const std::shared_ptr<const Graph>& g, const std::vector<Tensor>& inputs,
                              bool twice) {
  std::vector<Tensor> first;
  try {
    graph::Executor executor(g);
    first = executor.run(inputs);
    FUZZ_CHECK(first.size() == g->outputs().size(), "the executor returned ", first.size(), " outputs for ",
               g->outputs().size());
    for (std::size_t i = 0; i < first.size(); ++i) {
      const TensorMeta& want = g->meta(g->outputs()[i]);
      FUZZ_CHECK(first[i].defined() && first[i].dtype() == want.dtype && first[i].shape().is_compatible_with(want.shape),
                 "output ", i, " is ", first[i].defined() ? meta_str(first[i].meta()) : "undefined",
                 ", the graph says ", meta_str(want));
    }
    if (!twice) return first;
    std::vector<Tensor> kept;
    for (const Tensor& t : first) kept.push_back(Tensor::empty(t.dtype(), t.shape()));
    for (std::size_t i = 0; i < first.size(); ++i)
      if (first[i].num_elements())
        std::memcpy(kept[i].impl().buffer->data(), first[i].impl().buffer->data(),
                    static_cast<std::size_t>(first[i].num_elements()) * dtype_size(first[i].dtype()));
    std::vector<Tensor> second = executor.run(inputs);
    for (std::size_t i = 0; i < first.size(); ++i) {
      FUZZ_CHECK(fuzz::same_bits(kept[i], first[i]), "a second run changed output ", i, " of the first run");
      FUZZ_CHECK(fuzz::same_bits(second[i], first[i]), "output ", i, " differs between two runs: ", first[i].str(),
                 " then ", second[i].str());
    }
  } catch (const Error&) {
    return {};
  }
  return first;
}

void check_round_trip(const Graph& g) {
  std::string text = g.to_json();
  Graph again;
  try {
    again = Graph::from_json(text);
  } catch (const Error& e) {
    FUZZ_FAIL("to_json() of a loaded graph does not load: ", e.what(), "\n", text);
  }
  FUZZ_CHECK(again.to_json() == text, "the JSON round trip changes the text:\n", text, "\n", again.to_json());
}

void check(std::string_view text) {
  Graph loaded;
  try {
    loaded = Graph::from_json(text);
  } catch (const Error&) {
    return;
  }
  auto g = std::make_shared<const Graph>(std::move(loaded));
  try {
    g->verify();
  } catch (const Error& e) {
    FUZZ_FAIL("from_json accepted a graph that verify() rejects: ", e.what());
  }
  (void)g->str();
  check_round_trip(*g);
  std::shared_ptr<const Graph> optimized;
  try {
    optimized = std::make_shared<const Graph>(graph::optimize(*g));
  } catch (const OutOfMemory&) {
  } catch (const Error& e) {
    FUZZ_FAIL("optimize() fails on a valid graph: ", e.what(), "\n", g->str());
  }
  if (may_loop_long(*g)) return;
  std::vector<Tensor> inputs;
  if (!make_inputs(*g, text.size(), inputs)) return;
  const bool twice = !has_effects(*g);
  std::vector<Tensor> plain = run_graph(g, inputs, twice);
  if (optimized == nullptr || plain.empty()) return;
  std::vector<Tensor> fast = run_graph(optimized, inputs, twice);
  if (fast.empty()) return;
  FUZZ_CHECK(fast.size() == plain.size(), "the optimized graph returns ", fast.size(), " outputs, the graph ",
             plain.size());
  for (std::size_t i = 0; i < fast.size(); ++i)
    FUZZ_CHECK(fast[i].meta() == plain[i].meta(), "output ", i, " is ", meta_str(plain[i].meta()),
               " but ", meta_str(fast[i].meta()), " after optimize()");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  set_log_sink([](LogLevel, std::string_view) {});  // print nodes run, their text goes nowhere
  fuzz::graph_dataset();  // first, so that it gets the id the seeds' dataset_loop nodes name
  fuzz::register_structured_ops();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FUZZ_GUARD(check(std::string_view(reinterpret_cast<const char*>(data), size)));
  return 0;
}
