// fuzz_make_seeds DIR: writes the seed corpus of the fuzz targets into DIR/<target>/ (the committed one is
// tests/fuzz/corpus) and DIR/graph_json.dict, a libFuzzer dictionary of the graph format's keys and op names.
//
//   build/asan/tests/fuzz/fuzz_make_seeds tests/fuzz/corpus
//
// Seeds are made by the engine itself: graphs traced by tl::function (as traced and as optimized), checkpoints
// written by tl::Checkpoint, op calls encoded from the doctest suite's op samples (tests/op_samples.cpp), trace
// keys of the kinds tl::function builds. File names are fixed, so re-running it rewrites the same files.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "checkpoint_format.h"
#include "graph_fixture.h"
#include "op_call_format.h"
#include "op_samples.h"
#include "saved_model_format.h"
#include "trace_key_format.h"

namespace {

using namespace tl;
namespace fs = std::filesystem;

fs::path root;
std::size_t written = 0, total_bytes = 0;

void write(const std::string& target, const std::string& name, const std::vector<std::uint8_t>& bytes) {
  fs::create_directories(root / target);
  std::ofstream out(root / target / name, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ++written;
  total_bytes += bytes.size();
}

void write_text(const std::string& target, const std::string& name, const std::string& text) {
  write(target, name, std::vector<std::uint8_t>(text.begin(), text.end()));
}

// ---- graph_json: traced graphs, as traced and as optimized ----

template <class F, class... Args>
void graph_seed(const std::string& name, F fn, const FunctionOptions& options, const Args&... args) {
  auto f = function(fn, options);
  const ConcreteFunction& c = f.get_concrete_function(args...);
  write_text("graph_json", name + ".traced.json", c.traced_graph().to_json());
  write_text("graph_json", name + ".optimized.json", c.graph().to_json());
}

/// Layers: variables captured by handle, matmul, reductions, conv and pooling, fusable chains, a tape gradient.
void graph_seeds_layers() {
  Variable w(constant({0.5f, -1.f, 2.f, 0.25f, 1.f, -0.5f}, {3, 2}), "w");
  Variable b(zeros({2}), "b");
  graph_seed("dense", [&](const Tensor& x) { return relu(add(matmul(x, w.value()), b.value())); },
             {.input_signature = {TensorSpec({-1, 3}, float32, "x")}}, TensorSpec({-1, 3}));
  graph_seed("reductions", [](const Tensor& x) {
    return std::vector<Tensor>{softmax(x), reduce_max(x, {1}, true), argmax(x, 1), log_softmax(x, 0),
                               reduce_mean(x), reduce_min(square(x), {0})};
  }, {}, TensorSpec({4, 5}));
  graph_seed("conv", [](const Tensor& x, const Tensor& k) {
    Tensor y = conv2d(x, k, {1, 1}, "SAME");
    return std::vector<Tensor>{max_pool2d(y, {2, 2}, {2, 2}, "VALID"), avg_pool2d(y, {2, 2}, {1, 1}, "SAME")};
  }, {}, TensorSpec({1, 4, 4, 2}), TensorSpec({3, 3, 2, 3}));
  graph_seed("fusable", [&](const Tensor& x) {
    Tensor h = tanh(add(matmul(x, w.value()), b.value()));
    return sigmoid(mul(sub(h, 0.5f), add(square(h), 1.f)));
  }, {}, TensorSpec({4, 3}));
  graph_seed("gradient", [&](const Tensor& x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = reduce_sum(softmax(matmul(x, w.value())));
    return tape.gradient(y, x);
  }, {}, TensorSpec({2, 3}));
}

/// Control flow and effects: cond, while_loop, dataset_loop, print and variable assignments.
void graph_seeds_control() {
  Variable b(zeros({2}), "b");
  Variable counter(scalar(std::int32_t{0}), "counter");
  graph_seed("cond", [](const Tensor& x) {
    return cond(greater(reduce_sum(x), 0.f), [&] { return mul(x, 2.f); }, [&] { return neg(x); });
  }, {}, TensorSpec({-1}));
  graph_seed("while", [](const Tensor& x) {
    return while_loop([](const std::vector<Tensor>& v) { return less(reduce_sum(v[0]), 100.f); },
                      [](const std::vector<Tensor>& v) { return std::vector<Tensor>{add(mul(v[0], 2.f), 1.f)}; },
                      {x}, {.maximum_iterations = 5})[0];
  }, {}, TensorSpec({3}));
  graph_seed("dataset", [](const Tensor& x) {
    return data::for_each(fuzz::graph_dataset(), {x}, [](const std::vector<Tensor>& state, const data::Element& e) {
      return std::vector<Tensor>{add(state[0], mul(reduce_sum(e[0], {0}), cast(reduce_max(e[1]), float32)))};
    })[0];
  }, {}, TensorSpec({2}));
  graph_seed("effects", [&](const Tensor& x) {
    counter.assign_add(scalar(std::int32_t{1}));
    print("x is", x, "counter", counter.value());
    b.assign(add(b.value(), reduce_sum(x, {0})));
    return b.value();
  }, {}, TensorSpec({-1, 2}));
}

/// Array ops, special float values, int32 and bool ops.
void graph_seeds_values() {
  graph_seed("arrays", [](const Tensor& x, const Tensor& idx) {
    Tensor g = gather(x, idx, 1);
    Tensor p = pad(g, {1, 0, 0, 2}, 0.5);
    Tensor c = concat({p, p}, 0);
    return std::vector<Tensor>{slice(c, {1, 0}, {2, -1}), one_hot(idx, 4), transpose(c), reshape(c, {-1}),
                               stack({x, x}, 1), expand_dims(squeeze(reshape(x, {1, 2, 4})), 0),
                               broadcast_to(reshape(x, {2, 1, 4}), {2, 3, 4}),
                               unsorted_segment_sum(x, constant({1, 0}), 3)};
  }, {}, TensorSpec({2, 4}), TensorSpec({3}, int32));
  graph_seed("constants", [](const Tensor& x) {
    Tensor special = constant({std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(), -0.f, 1e-45f, 3.4e38f});
    return std::vector<Tensor>{add(x, special), cast(greater(x, special), int32), where(less(x, 0.f), x, special),
                               clip_by_value(x, -1.f, 1.f), maximum(x, special)};
  }, {}, TensorSpec({6}));
  graph_seed("ints", [](const Tensor& x) {
    return std::vector<Tensor>{add(mul(x, 3), 1), cast(x, float32), equal(x, 2), reduce_sum(x), abs(neg(x)),
                               cast(cast(x, bool_), int32)};
  }, {}, TensorSpec({-1, 2}, int32));
}

// ---- checkpoint: the fixture's variables, saved ----

void checkpoint_seeds() {
  fuzz::CheckpointVariables vars = fuzz::make_checkpoint_variables();
  Checkpoint ckpt = fuzz::checkpoint_of(vars);
  auto with_mode = [&](std::uint8_t mode) {
    std::vector<std::uint8_t> bytes = ckpt.to_bytes();
    bytes.insert(bytes.begin(), mode);
    return bytes;
  };
  write("checkpoint", "initial.raw", with_mode(fuzz::kRaw));
  write("checkpoint", "initial.resign", with_mode(fuzz::kResign));
  write("checkpoint", "initial.file", with_mode(fuzz::kResign | fuzz::kFromFile));
  vars.model[0].assign(constant({-1.f, std::numeric_limits<float>::quiet_NaN(), 0.f, -0.f, 1e30f, 2.f}, {2, 3}));
  vars.model[2].assign(constant({false, false, true, false}, {4}));
  vars.model[3].assign(scalar(std::int32_t{-2147483647}));
  write("checkpoint", "changed.resign", with_mode(fuzz::kResign));
  write("checkpoint", "changed.fixcrc", with_mode(fuzz::kFixIndexCrc));
  Variable extra(ones({2}), "extra");
  Checkpoint other({{"model", {vars.model[0], extra}}});
  std::vector<std::uint8_t> bytes = other.to_bytes();
  bytes.insert(bytes.begin(), fuzz::kResign);
  write("checkpoint", "other_variables.resign", bytes);
}

// ---- saved_model: a dense predict, a train step sharing its variables, a cond over a variable ----

void saved_model_seed(const std::string& name, std::span<const saved_model::Named> functions, std::uint8_t mode) {
  std::vector<std::uint8_t> bytes = saved_model::to_bytes(functions);
  bytes.insert(bytes.begin(), mode);
  write("saved_model", name, bytes);
}

void saved_model_seeds() {
  auto dense = std::make_shared<layers::Dense>(3, layers::DenseOptions{.activation = "relu", .seed = 5});
  auto predict = function([&](const Tensor& x) { return (*dense)(x); },
                          {.input_signature = {TensorSpec({-1, 4}, float32, "x")}, .name = "predict"});
  predict(ones({2, 4}));
  optimizers::Adam adam(0.1);
  auto train_step = function([&](const Tensor& x, const Tensor& y) {
    GradientTape tape;
    Tensor loss = reduce_mean(square((*dense)(x) - y));
    std::vector<Variable> variables = dense->trainable_variables();
    adam.apply_gradients(tape.gradient(loss, variables), variables);
    return loss;
  }, {.name = "train_step", .arg_names = {"x", "y"}});
  train_step(ones({2, 4}), zeros({2, 3}));
  const saved_model::Named just_predict[] = {{"predict", predict}};
  saved_model_seed("predict.raw", just_predict, fuzz::kSavedModelRaw);
  saved_model_seed("predict.resign", just_predict, fuzz::kSavedModelResign);
  const saved_model::Named both[] = {{"predict", predict}, {"train_step", train_step}};
  saved_model_seed("train.resign", both, fuzz::kSavedModelResign);
  Variable count(scalar(std::int32_t{3}), "count");
  Variable mask(constant({true, false}, {2}), "mask", false);
  auto branch = function([&](const Tensor& x) {
    return cond(greater(reduce_sum(x), 0.f), [&] { return x * cast(count.read(), float32); },
                [&] { return where(mask.read(), x, -x); });
  }, {.input_signature = {TensorSpec({2}, float32, "x")}, .name = "branch"});
  branch(ones({2}));
  const saved_model::Named with_cond[] = {{"branch", branch}};
  saved_model_seed("cond.resign", with_cond, fuzz::kSavedModelResign);
}

// ---- op_call: every op sample of the doctest suite ----

void op_call_seeds() {
  for (const auto& [name, samples] : testing::op_samples()) {
    const OpDef& op = OpRegistry::global().get(name);
    for (std::size_t i = 0; i < samples.size(); ++i)
      if (samples[i].subgraphs.empty() && samples[i].variables.empty())
        write("op_call", name + "." + std::to_string(i), fuzz::encode_op_call(op, samples[i].inputs, samples[i].attrs));
  }
}

// ---- trace_key: keys of the kinds tl::function builds, with edits and modes ----

void trace_key_seed(const std::string& name, const std::vector<ArgKey>& args, std::vector<std::uint8_t> edits,
                    std::uint8_t mode) {
  fuzz::ByteWriter out;
  fuzz::encode_args(out, args);
  for (auto e : edits) out.u8(e);
  out.u8(mode);
  write("trace_key", name, out.bytes());
}

void trace_key_seeds() {
  VariableKey v{3, float32, Shape{2, 3}};
  std::vector<ArgKey> ragged{TensorSpec({1, 7, 20}), TensorSpec({1, 7}, int32)};
  trace_key_seed("ragged.same", ragged, {0}, 0);
  trace_key_seed("ragged.unknown_dim", ragged, {1, 1, 0, 1}, 0);       // B: dim 1 of arg 0 unknown
  trace_key_seed("ragged.relaxed", ragged, {1, 0, 0, 0, 1, 4, 1}, 4);  // B: arg 0 replaced, reduce_retracing
  trace_key_seed("ragged.signature", ragged, {1, 1, 0, 1}, 2 | 1 | 8);  // A's specs as the signature
  trace_key_seed("mixed", {TensorSpec({-1, 3}), true, std::int64_t{3}, 0.5, std::string("relu"), v}, {1, 2, 1, 2},
                 0);
  trace_key_seed("values", {std::numeric_limits<double>::quiet_NaN(), -0.0, std::int64_t{-1}, std::string("a'b")},
                 {1, 0, 0, 3, 0x20}, 0);
  trace_key_seed("signature.mismatch", {TensorSpec({2, 3}), std::int64_t{1}}, {0}, 1);
  trace_key_seed("empty", {}, {1, 4, 0, 0}, 5);
}

// ---- the graph JSON dictionary ----

void graph_dictionary() {
  std::ofstream out(root / "graph_json.dict", std::ios::trunc);
  std::set<std::string> seen;  // each word once: op and attribute names repeat across ops
  auto word = [&](const std::string& text) {
    if (seen.insert(text).second) out << "\"\\\"" << text << "\\\"\"\n";
  };
  for (const char* text : {"format", "version", "nodes", "outputs", "kind", "input", "const", "op", "variable",
                           "assign", "name", "dtype", "shape", "values", "inputs", "attrs", "subgraphs", "id",
                           "tracelab.graph", "float32", "int32", "bool", "int", "float", "string", "ints", "nan",
                           "inf", "-inf"})
    word(text);
  for (const OpDef* op : OpRegistry::global().all()) {  // the structured ops (cond, while_loop, ...) among them
    word(op->name());
    for (const AttrSpec& spec : op->attr_specs()) word(spec.name);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  root = argv[1];
  set_log_sink([](LogLevel, std::string_view) {});
  fuzz::graph_dataset();  // first, so that it gets the same id as in fuzz_graph_json
  graph_seeds_layers();
  graph_seeds_control();
  graph_seeds_values();
  checkpoint_seeds();
  saved_model_seeds();
  op_call_seeds();
  trace_key_seeds();
  graph_dictionary();
  std::printf("wrote %zu seeds (%zu bytes) and graph_json.dict to %s\n", written, total_bytes, argv[1]);
  return 0;
}
