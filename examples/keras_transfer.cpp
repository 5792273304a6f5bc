// Lesson 6 — Keras-style models: a shared trunk with two heads, transfer, export, a dynamic RNN, summaries.
//
//   1. A trunk (Sequential: Dense 32 relu, Dense 16 relu) feeds head 1 (3 classes) and head 2 (yes/no). Both
//      tasks are generated from one hidden "teacher" representation, so what the trunk learns for task 1 helps
//      task 2. Phase 1 trains trunk + head 1 on task 1 (1024 examples). Phase 2 fine-tunes only head 2 on task 2
//      (64 examples): only head 2's variables go to tape.gradient and the optimizer, and the trunk's bits are
//      compared before and after. For comparison, the same head is trained on an untrained (frozen) trunk.
//   2. The trunk is exported to a checkpoint and restored into a fresh trunk; both give bit-identical outputs. Then
//      the trunk alone is exported as a saved model — a traced function over it with an input signature, and the
//      four variables it reads (article 004: tf.saved_model.save(trunk, path)) — and code that has no trunk
//      definition loads it, gets the same bits from it, and trains a new head on its outputs.
//   3. A dynamic RNN: a SimpleRNNCell run by tl::while_loop over the time steps inside a traced train step, on
//      padded batches of sequences of 1..12 steps; every step's state is written to a tl::TensorArray inside the
//      loop and stacked (article 004's DynamicRNN); each sequence's state stops at its own length. One trace serves
//      every batch (an input signature with unknown batch and time dims).
//   4. Every step's loss is written as a scalar summary (JSON Lines) through the default writer (a
//      tl::summary::DefaultWriter scope), read back and plotted in the terminal.
// The program checks which variables each phase changed (phase 1 all six of the trunk and head 1, phase 2 only
// head 2's, the trunk bit for bit), the restored outputs, the loaded trunk's outputs (bit for bit), that the new head
// on it learns (its loss falls) while the loaded trunk stays as saved, the single RNN trace with its while_loop node
// and the TensorArray write in its body, that the traced RNN's stacked states equal an unrolled eager loop's, that
// padding does not change a sequence's result, the summary file, and (after 200 / 100 / 200 steps or more, which
// --quick runs) that each task beats chance and that the transferred trunk beats an untrained one; it exits 1 if a
// check fails.
//
// Build: cmake --build --preset native --target keras_transfer
// Run:   build/native/examples/keras_transfer [--steps 300] [--fine-tune-steps 150] [--rnn-steps 300] [--quick]
//        node build/wasm/examples/keras_transfer.js --quick
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <tracelab/tracelab.h>

#include "flags.h"

namespace {

using tl::Tensor;
using tl::Variable;
using tl::data::Dataset;
using tl::data::Element;
using namespace tl::layers;

struct Options {
  std::int64_t steps = 300;
  std::int64_t fine_tune_steps = 150;
  std::int64_t rnn_steps = 300;
  std::int64_t seed = 3;
  std::string checkpoint = "keras_transfer_trunk.tlc";
  std::string saved_model = "keras_transfer_trunk.tlsm";
  std::string summaries = "keras_transfer_scalars.jsonl";
  bool quick = false;
};

bool check(bool holds, const std::string& what) {
  std::cout << "  check: " << what << ": " << (holds ? "ok" : "FAILED") << "\n";
  return holds;
}

/// Whether the run is long enough to expect every model to beat chance clearly (the default run is); otherwise the
/// accuracy checks are skipped.
bool trained_enough(const Options& options) {
  return options.steps >= 200 && options.fine_tune_steps >= 100 && options.rnn_steps >= 200;
}

// ---- two tasks from one teacher ----

struct TaskData {
  Tensor x, labels;
};

struct Tasks {
  TaskData task1_train, task1_test, task2_train, task2_test;
};

/// x (n, 8) normal; the teacher's hidden features tanh(x A) and scores hidden B (3 per example) decide both
/// labels: task 1 is the class with the highest score (int32), task 2 — a new question about the same
/// features — whether score 0 beats score 2 (float32 (n, 1)).
Tasks make_tasks(std::uint64_t seed) {
  tl::Generator teacher(seed);
  Tensor a = teacher.uniform({8, 12}, -1, 1), b = teacher.uniform({12, 3}, -1, 1);
  Tensor c = tl::matmul(b, tl::constant({1.f, 0.f, -1.f}, {3, 1}));
  auto sample = [&](std::int64_t count, std::uint64_t data_seed, int task) {
    Tensor x = tl::Generator(data_seed).normal({count, 8});
    Tensor hidden = tl::tanh(tl::matmul(x, a));
    if (task == 1) return TaskData{x, tl::argmax(tl::matmul(hidden, b), 1)};
    return TaskData{x, tl::cast(tl::matmul(hidden, c) > 0.f, tl::float32)};
  };
  return {sample(1024, seed + 1, 1), sample(512, seed + 2, 1), sample(64, seed + 3, 2), sample(512, seed + 4, 2)};
}

/// The shared trunk. Explicit layer names are kept as given (as in Keras), so every trunk built here has the same
/// variable names ("trunk_dense_1/kernel", ...) and restores another trunk's checkpoint.
std::shared_ptr<Sequential> make_trunk(std::uint64_t seed) {
  return std::make_shared<Sequential>(
      LayerList{std::make_shared<Dense>(32, DenseOptions{.activation = "relu", .seed = seed, .name = "trunk_dense_1"}),
                std::make_shared<Dense>(16, DenseOptions{.activation = "relu", .seed = seed + 1, .name = "trunk_dense_2"})},
      "trunk");
}

using VariableList = std::function<std::vector<Variable>()>;

/// Trains the variables `trainable()` lists — and only those — of `model` on shuffled batches of 32 for `steps`
/// steps with a traced step; writes each step's loss to the default summary writer as "<tag>/loss". The list is
/// read after the forward pass, when the layers have built (like model.trainable_variables in a Keras train step).
void fit(const std::string& tag, Layer& model, const VariableList& trainable, const tl::losses::Loss& loss_fn,
         const TaskData& data, std::int64_t steps) {
  tl::optimizers::Adam optimizer(0.01);
  auto train_step = tl::function(
      [&](const Tensor& x, const Tensor& labels) {
        tl::GradientTape tape;
        Tensor loss = loss_fn(labels, model(x, /*training=*/true));
        std::vector<Variable> variables = trainable();
        optimizer.apply_gradients(tape.gradient(loss, variables), variables);
        return loss;
      },
      {.name = tag + "_step"});
  Dataset batches = Dataset::from_tensor_slices({data.x, data.labels})
                        .shuffle(data.x.shape()[0], 5)
                        .batch(32, /*drop_remainder=*/true)
                        .repeat()
                        .take(steps);
  tl::ProgressBar bar(steps);
  std::int64_t step = 0;
  for (const Element& batch : batches) {
    Tensor loss = train_step(batch[0], batch[1]);
    tl::summary::scalar(tag + "/loss", loss, step);
    bar.update(++step, {{"loss", loss.item<float>()}});
  }
  bar.finish();
}

float accuracy(tl::metrics::MeanMetricWrapper&& metric, const Tensor& labels, const Tensor& predictions) {
  metric.update_state(labels, predictions);
  return metric.result().item<float>();
}

/// Every variable's values, copied (a later in-place update cannot change them).
std::vector<std::vector<float>> copy_values(const std::vector<Variable>& variables) {
  std::vector<std::vector<float>> values;
  for (const Variable& v : variables) values.push_back(v.value().to_vector<float>());
  return values;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

bool same_bits(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const std::vector<float>& x, const std::vector<float>& y) { return same_bits(x, y); });
}

bool same_bits(const Tensor& a, const Tensor& b) { return same_bits(a.to_vector<float>(), b.to_vector<float>()); }

// ---- 1. shared trunk, two heads ----

struct Heads {
  std::shared_ptr<Sequential> trunk, path1, path2;
  std::shared_ptr<Dense> head2;
};

/// Phase 2 again, but on a trunk that never saw task 1 (random and frozen): what the transfer is worth.
float fine_tune_on_untrained_trunk(const Tasks& tasks, const Options& options) {
  auto head = std::make_shared<Dense>(1, DenseOptions{.seed = static_cast<std::uint64_t>(options.seed) + 20});
  auto path = std::make_shared<Sequential>(LayerList{make_trunk(static_cast<std::uint64_t>(options.seed) + 50), head});
  tl::losses::BinaryCrossentropy binary_loss(/*from_logits=*/true);
  fit(
      "untrained_trunk", *path, [&] { return head->trainable_variables(); }, binary_loss, tasks.task2_train,
      options.fine_tune_steps);
  return accuracy(tl::metrics::BinaryAccuracy(0.0), tasks.task2_test.labels, (*path)(tasks.task2_test.x));
}

bool train_two_heads(const Tasks& tasks, const Heads& model, const Options& options) {
  std::cout << "1. phase 1: trunk + head 1 on task 1 (" << tasks.task1_train.x.shape()[0] << " examples, "
            << options.steps << " steps)\n";
  tl::losses::SparseCategoricalCrossentropy class_loss(/*from_logits=*/true);
  (*model.path1)(tasks.task1_train.x);  // builds the trunk and head 1, so their starting values can be copied
  std::vector<std::vector<float>> path1_initial = copy_values(model.path1->variables());
  fit(
      "task1", *model.path1, [&] { return model.path1->trainable_variables(); }, class_loss, tasks.task1_train,
      options.steps);
  // Phase 1 trains every variable of the trunk and head 1: each one moved.
  std::vector<std::vector<float>> path1_trained = copy_values(model.path1->variables());
  bool all_trained = path1_trained.size() == path1_initial.size() && !path1_initial.empty();
  for (std::size_t i = 0; all_trained && i < path1_initial.size(); ++i)
    all_trained = !same_bits(path1_initial[i], path1_trained[i]);
  float task1 =
      accuracy(tl::metrics::SparseCategoricalAccuracy(), tasks.task1_test.labels, (*model.path1)(tasks.task1_test.x));
  (*model.path2)(tasks.task2_train.x);  // builds head 2, so its starting values can be copied
  std::vector<std::vector<float>> trunk_before = copy_values(model.trunk->variables());
  std::vector<std::vector<float>> head2_before = copy_values(model.head2->variables());
  std::cout << "   task 1 test accuracy: " << task1 << " (chance 0.33)\n"
            << "   phase 2: only head 2 on task 2 (" << tasks.task2_train.x.shape()[0] << " examples, "
            << options.fine_tune_steps << " steps); variables given to the tape and the optimizer:";
  for (const Variable& v : model.head2->trainable_variables()) std::cout << " " << v.name();
  std::cout << "\n";
  tl::losses::BinaryCrossentropy binary_loss(/*from_logits=*/true);
  fit(
      "task2", *model.path2, [&] { return model.head2->trainable_variables(); }, binary_loss, tasks.task2_train,
      options.fine_tune_steps);
  float task2 = accuracy(tl::metrics::BinaryAccuracy(0.0), tasks.task2_test.labels, (*model.path2)(tasks.task2_test.x));
  float baseline = fine_tune_on_untrained_trunk(tasks, options);
  bool trunk_unchanged = same_bits(trunk_before, copy_values(model.trunk->variables()));
  bool head2_changed = !same_bits(head2_before, copy_values(model.head2->variables()));
  std::cout << "   task 2 test accuracy: " << task2
            << " (chance about 0.5); the same head on an untrained trunk: " << baseline << "\n";
  bool ok = check(all_trained && path1_initial.size() == 6,
                  "phase 1 changed all six variables of the trunk and head 1");
  ok = check(model.head2->trainable_variables().size() == 2 && trunk_unchanged && head2_changed,
             "phase 2 trained head 2's two variables only: every trunk bit as it was, head 2 changed") && ok;
  if (trained_enough(options)) {
    ok = check(task1 > 0.6f && task2 > 0.65f, "both tasks well above chance") && ok;
    ok = check(task2 > baseline,
               "the transferred trunk beats an untrained one on task 2 (the same head, the same steps)") && ok;
  }
  return ok;
}

// ---- 2. export the trunk, restore it into a fresh one ----

bool export_and_restore(const Heads& model, const Tasks& tasks, const Options& options) {
  std::cout << "\n2. export the trunk to " << options.checkpoint << " and restore it into a fresh trunk\n";
  tl::Checkpoint({{"trunk", model.trunk->variables()}}).save(options.checkpoint);
  std::shared_ptr<Sequential> fresh = make_trunk(static_cast<std::uint64_t>(options.seed) + 100);
  const Tensor& x = tasks.task2_test.x;
  Tensor original = (*model.trunk)(x), before = (*fresh)(x);  // the call builds the fresh trunk
  tl::Checkpoint({{"trunk", fresh->variables()}}).restore(options.checkpoint);  // same names: a direct restore
  Tensor after = (*fresh)(x);
  std::cout << "   fresh trunk's variables:";
  for (const Variable& v : fresh->variables()) std::cout << " " << v.name();
  std::cout << "\n   largest output difference to the trained trunk: before restoring "
            << tl::reduce_max(tl::abs(before - original)).item<float>() << ", after "
            << tl::reduce_max(tl::abs(after - original)).item<float>() << "\n";
  return check(!same_bits(before, original) && same_bits(after, original),
               "the restored trunk's outputs are bit-identical to the trained trunk's");
}

/// The trunk alone as a saved model (article 004 publishes "just the trunk computation for other people to reuse"):
/// a traced function over it for any batch of 8 features, and the variables it reads. Returns its outputs on `x`.
Tensor export_trunk(const Heads& model, const Tensor& x, const Options& options) {
  std::cout << "   export the trunk alone as a saved model to " << options.saved_model << "\n";
  auto trunk = tl::function([&](const Tensor& input) { return (*model.trunk)(input); },
                            {.input_signature = {tl::TensorSpec({-1, 8}, tl::float32, "x")}, .name = "trunk"});
  Tensor original = trunk(x);
  tl::saved_model::save(options.saved_model, {{"trunk", trunk}});
  return original;
}

/// What reusing the loaded trunk showed.
struct ReuseResult {
  bool same_bits = false, trunk_frozen = false, fine_tunable = false;
  std::vector<float> losses;
  float accuracy = 0;
};

/// Code that has no trunk definition (no make_trunk, no layer): loads the saved trunk from `path`, runs it on the
/// task-2 test inputs, and trains a new yes/no head on its outputs with the loaded trunk frozen.
ReuseResult reuse_loaded_trunk(const std::string& path, const Tasks& tasks, const Tensor& original,
                               const Options& options) {
  tl::saved_model::SavedModel loaded = tl::saved_model::load(path);
  const tl::saved_model::LoadedFunction& trunk = loaded.function("trunk");
  ReuseResult result;
  result.same_bits = same_bits(trunk({tasks.task2_test.x})[0], original);
  std::cout << "   loaded: " << trunk.signature().str() << ", " << loaded.variables().size() << " variables:";
  for (const Variable& v : loaded.variables()) std::cout << " " << v.name() << (v.trainable() ? "" : " (frozen)");
  std::cout << "\n";
  // TensorFlow's loaded object exposes trainable_variables; here loaded.variables() are tl::Variables a tape can
  // differentiate (fine-tuning the trunk would hand them to the optimizer too).
  {
    tl::GradientTape tape;
    Tensor features = trunk({tasks.task2_train.x})[0];
    std::vector<Tensor> grads = tape.gradient(tl::reduce_sum(tl::square(features)), loaded.variables());
    result.fine_tunable = grads.size() == 4;
    for (const Tensor& g : grads)
      result.fine_tunable = result.fine_tunable && g.defined() && tl::reduce_max(tl::abs(g)).item<float>() > 0;
  }
  std::vector<std::vector<float>> trunk_before = copy_values(loaded.variables());
  auto head = std::make_shared<Dense>(1, DenseOptions{.seed = static_cast<std::uint64_t>(options.seed) + 30,
                                                      .name = "new_head"});
  tl::losses::BinaryCrossentropy loss_fn(/*from_logits=*/true);
  tl::optimizers::Adam optimizer(0.01);
  auto train_step = tl::function(
      [&](const Tensor& x, const Tensor& labels) {
        tl::GradientTape tape;
        Tensor loss = loss_fn(labels, (*head)(trunk({x})[0], /*training=*/true));
        std::vector<Variable> variables = head->trainable_variables();
        optimizer.apply_gradients(tape.gradient(loss, variables), variables);
        return loss;
      },
      {.name = "new_head_step"});
  Dataset batches = Dataset::from_tensor_slices({tasks.task2_train.x, tasks.task2_train.labels})
                        .shuffle(tasks.task2_train.x.shape()[0], 7)
                        .batch(32, /*drop_remainder=*/true)
                        .repeat()
                        .take(options.fine_tune_steps);
  for (const Element& batch : batches) result.losses.push_back(train_step(batch[0], batch[1]).item<float>());
  result.trunk_frozen = same_bits(trunk_before, copy_values(loaded.variables()));
  result.accuracy = accuracy(tl::metrics::BinaryAccuracy(0.0), tasks.task2_test.labels,
                             (*head)(trunk({tasks.task2_test.x})[0]));
  return result;
}

/// Mean of values[begin, end).
double mean_of(const std::vector<float>& values, std::size_t begin, std::size_t end) {
  double sum = 0;
  for (std::size_t i = begin; i < end; ++i) sum += values[i];
  return end > begin ? sum / static_cast<double>(end - begin) : 0;
}

bool export_and_reuse_trunk(const Heads& model, const Tasks& tasks, const Options& options) {
  Tensor original = export_trunk(model, tasks.task2_test.x, options);
  ReuseResult reuse = reuse_loaded_trunk(options.saved_model, tasks, original, options);
  const std::size_t n = reuse.losses.size(), window = std::min<std::size_t>(10, n / 2);
  const double first = mean_of(reuse.losses, 0, window), last = mean_of(reuse.losses, n - window, n);
  std::cout << "   a new head trained " << n << " steps on the loaded trunk's outputs: loss (mean of " << window
            << " steps) " << first << " -> " << last << ", task 2 test accuracy " << reuse.accuracy << "\n";
  bool ok = check(reuse.same_bits, "the loaded trunk's outputs are bit-identical to the trunk's");
  ok = check(window > 0 && last < 0.7 * first && reuse.trunk_frozen,
             "the new head learns on the loaded trunk (its loss falls by 30 % or more) and every loaded trunk bit stays "
             "as saved") && ok;
  ok = check(reuse.fine_tunable, "the loaded trunk's four variables get non-zero gradients (it can be fine-tuned)") && ok;
  if (trained_enough(options)) ok = check(reuse.accuracy > 0.65f, "the new head on the loaded trunk beats chance") && ok;
  return ok;
}

// ---- 3. a dynamic RNN: tl::while_loop over time ----

/// A SimpleRNNCell stepped by tl::while_loop up to the longest sequence of the batch, every step's state written to a
/// TensorArray (article 004's DynamicRNN), then a Dense logit on the last one.
struct SequenceClassifier {
  std::shared_ptr<SimpleRNNCell> cell;
  std::shared_ptr<Dense> output;

  /// x (batch, time, features), zero-padded; lengths (batch,) int32 >= 1. Element t of the result is the state after
  /// step t (batch, units), for t < the longest length; a sequence's state stops changing after its own length, so
  /// the padding never reaches it.
  tl::TensorArray states(const Tensor& x, const Tensor& lengths) const {
    Tensor first = (*cell)(tl::gather(x, tl::scalar(0), 1));  // step 0 from the zero state (builds the cell)
    Tensor longest = tl::reduce_max(lengths);
    tl::TensorArray outputs = tl::TensorArray(tl::float32, 0, {.dynamic_size = true}).write(0, first);
    auto more_steps = [&](const Tensor& t, const Tensor&, const tl::TensorArray&) { return t < longest; };
    auto step = [&](const Tensor& t, const Tensor& state, const tl::TensorArray& out) {
      Tensor next = (*cell)(tl::gather(x, t, 1), state);
      Tensor kept = tl::where(tl::expand_dims(t < lengths, 1), next, state);  // (batch, units)
      return std::tuple{t + 1, kept, out.write(t, kept)};
    };
    return std::get<2>(tl::while_loop(more_steps, step, std::tuple{tl::scalar(1), first, outputs}));
  }

  /// The logit of each sequence: the Dense head on the last state written.
  Tensor operator()(const Tensor& x, const Tensor& lengths) const {
    return (*output)(states(x, lengths).read(tl::reduce_max(lengths) - 1));
  }

  /// The same states by a C++ loop over the steps, op by op, stacked with tl::stack: the reference for the
  /// TensorArray inside the traced loop.
  Tensor unrolled_states(const Tensor& x, const Tensor& lengths) const {
    const auto longest = tl::reduce_max(lengths).item<std::int32_t>();
    Tensor state = (*cell)(tl::gather(x, tl::scalar(0), 1));
    std::vector<Tensor> all{state};
    for (std::int32_t t = 1; t < longest; ++t) {
      Tensor next = (*cell)(tl::gather(x, tl::scalar(t), 1), state);
      state = tl::where(tl::expand_dims(tl::scalar(t) < lengths, 1), next, state);
      all.push_back(state);
    }
    return tl::stack(all, 0);
  }

  std::vector<Variable> trainable_variables() const {
    std::vector<Variable> all = cell->trainable_variables(), head = output->trainable_variables();
    all.insert(all.end(), head.begin(), head.end());
    return all;
  }
};

/// `count` sequences {x (L, 1) uniform in [-1, 1], L (int32), label (1,): 1 if the sum of x is positive}, L in 1..12.
Dataset make_sequences(std::int64_t count, std::uint64_t seed) {
  auto elements = std::make_shared<std::vector<Element>>();
  tl::Generator generator(seed);
  for (std::int64_t i = 0; i < count; ++i) {
    auto length = static_cast<std::int32_t>(1 + generator.next_u32() % 12);
    Tensor x = generator.uniform({length, 1}, -1, 1);
    float label = tl::reduce_sum(x).item<float>() > 0 ? 1.f : 0.f;
    elements->push_back({x, tl::scalar(length), tl::constant({label})});
  }
  auto factory = [elements] {
    return [elements, next = std::size_t{0}]() mutable -> std::optional<Element> {
      if (next == elements->size()) return std::nullopt;
      return (*elements)[next++];
    };
  };
  return Dataset::from_generator(factory,
                                 {tl::TensorSpec({-1, 1}), tl::TensorSpec({}, tl::int32), tl::TensorSpec({1})});
}

/// What training the RNN showed about tracing.
struct RnnTraining {
  int tracing_count = 0;             ///< traces (the first call's check trace included)
  std::size_t concrete_functions = 0;
  std::size_t graph_nodes = 0, while_loops = 0, body_writes = 0, padded_lengths = 0;
  std::string signatures;
};

/// Trains `model` with a traced step whose signature leaves batch and time unknown; writes "rnn/loss" to the
/// default summary writer.
RnnTraining fit_sequences(const SequenceClassifier& model, const Options& options) {
  tl::losses::BinaryCrossentropy loss_fn(/*from_logits=*/true);
  tl::optimizers::Adam optimizer(0.01);
  auto train_step = tl::function(
      [&](const Tensor& x, const Tensor& lengths, const Tensor& labels) {
        tl::GradientTape tape;
        Tensor loss = loss_fn(labels, model(x, lengths));
        std::vector<Variable> variables = model.trainable_variables();
        optimizer.apply_gradients(tape.gradient(loss, variables), variables);
        return loss;
      },
      {.input_signature = {tl::TensorSpec({-1, -1, 1}, tl::float32, "x"), tl::TensorSpec({-1}, tl::int32, "lengths"),
                           tl::TensorSpec({-1, 1}, tl::float32, "labels")},
       .name = "rnn_step"});
  Dataset batches = make_sequences(512, static_cast<std::uint64_t>(options.seed) + 10)
                        .shuffle(512, 6)
                        .padded_batch(16, {}, {}, /*drop_remainder=*/true)
                        .repeat()
                        .take(options.rnn_steps);
  tl::ProgressBar bar(options.rnn_steps);
  std::int64_t step = 0;
  std::set<std::int64_t> padded_lengths;
  for (const Element& batch : batches) {
    padded_lengths.insert(batch[0].shape()[1]);
    Tensor loss = train_step(batch[0], batch[1], batch[2]);
    tl::summary::scalar("rnn/loss", loss, step);
    bar.update(++step, {{"loss", loss.item<float>()}});
  }
  bar.finish();
  const tl::graph::Graph& graph = train_step.concrete_functions()[0]->graph();
  std::size_t body_writes = 0;  // tensor_array_write nodes in the forward loop's body
  for (const tl::graph::Node& node : graph.nodes())
    if (node.op != nullptr && node.op->name() == "while_loop") body_writes += node.subgraphs.at(1)->op_counts()["tensor_array_write"];
  return {train_step.tracing_count(),  train_step.concrete_functions().size(),
          graph.num_nodes(),           graph.op_counts()["while_loop"],
          body_writes,                 padded_lengths.size(),
          train_step.pretty_printed_concrete_signatures()};
}

/// The traced states (stacked from the TensorArray) against the unrolled eager loop on three batches of different
/// padded lengths: the largest difference, and how many traces the three batches took.
std::pair<float, int> compare_with_unrolled(const SequenceClassifier& model, const Options& options) {
  auto traced_states = tl::function(
      [&](const Tensor& x, const Tensor& lengths) { return model.states(x, lengths).stack(); },
      {.input_signature = {tl::TensorSpec({-1, -1, 1}, tl::float32, "x"), tl::TensorSpec({-1}, tl::int32, "lengths")},
       .name = "rnn_states"});
  float largest = 0;
  auto batches = make_sequences(48, static_cast<std::uint64_t>(options.seed) + 12).padded_batch(16).make_iterator();
  while (std::optional<Element> batch = batches.get_next()) {
    Tensor traced = traced_states((*batch)[0], (*batch)[1]), eager = model.unrolled_states((*batch)[0], (*batch)[1]);
    TL_CHECK(traced.shape() == eager.shape(), tl::InvalidArgument, "rnn_states: traced ", traced.shape().str(),
             " but unrolled ", eager.shape().str());
    largest = std::max(largest, tl::reduce_max(tl::abs(traced - eager)).item<float>());
  }
  return {largest, traced_states.tracing_count()};
}

bool train_dynamic_rnn(const Options& options) {
  std::cout << "\n3. a dynamic RNN (tl::while_loop over time, states in a tl::TensorArray) on sequences of 1..12 steps: "
               "is the sum positive?\n";
  SequenceClassifier model{std::make_shared<SimpleRNNCell>(16, SimpleRNNOptions{.seed = 21}),
                           std::make_shared<Dense>(1, DenseOptions{.seed = 22})};
  RnnTraining training = fit_sequences(model, options);
  Element test =
      *make_sequences(512, static_cast<std::uint64_t>(options.seed) + 11).padded_batch(512).make_iterator().get_next();
  Tensor logits = model(test[0], test[1]);  // eagerly: the while_loop is a C++ loop here
  float test_accuracy = accuracy(tl::metrics::BinaryAccuracy(0.0), test[2], logits);
  std::int32_t length = test[1].to_vector<std::int32_t>()[0];
  Tensor alone = model(tl::slice(test[0], {0, 0, 0}, {1, length, 1}), tl::constant({length}));  // no padding at all
  float padding_effect = std::abs(alone.item<float>() - logits.to_vector<float>()[0]);
  auto [unrolled_difference, states_traces] = compare_with_unrolled(model, options);
  std::cout << training.signatures << "   " << training.concrete_functions << " concrete function(s) for "
            << options.rnn_steps << " batches padded to " << training.padded_lengths << " different lengths (traced "
            << training.tracing_count << " times: the first trace created the model's weights and the optimizer's "
               "slots, so the first call traced again with variable creation forbidden, as TensorFlow does); the "
               "graph has "
            << training.graph_nodes << " nodes, " << training.while_loops << " while_loop, whose body holds "
            << training.body_writes << " tensor_array_write; test accuracy " << test_accuracy
            << "\n   every step's state, traced (TensorArray.stack) vs a C++ loop over the steps, on 3 batches: largest "
               "difference "
            << unrolled_difference << ", " << states_traces << " trace(s)\n   sequence 0 (length " << length
            << ") alone vs padded to " << test[0].shape()[1] << " in the batch: logits differ by " << padding_effect
            << "\n";
  bool ok = check(training.concrete_functions == 1 && training.tracing_count == 2 && training.while_loops >= 1 &&
                      training.body_writes == 1,
                  "one trace for every batch shape, the loop over time and its TensorArray write inside the graph");
  ok = check(unrolled_difference <= 1e-5f && states_traces == 1,
             "the traced loop's stacked states equal the unrolled eager loop's (one trace for three batches)") && ok;
  ok = check(padding_effect <= 1e-5f, "the padding does not change a sequence's result") && ok;
  if (trained_enough(options)) ok = check(test_accuracy > 0.7f, "the RNN beats chance (about 0.5)") && ok;
  return ok;
}

// ---- 4. summaries, read back and plotted ----

using Series = std::vector<std::pair<std::string, std::vector<double>>>;

/// The series in a ScalarWriter file, in order of first appearance: (tag, values in step order).
Series read_scalars(const std::string& path) {
  Series series;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::size_t tag = line.find("\"tag\":\""), value = line.find("\"value\":");
    if (tag == std::string::npos || value == std::string::npos) continue;
    std::size_t tag_begin = tag + 7, tag_end = line.find('"', tag_begin);
    std::string name = line.substr(tag_begin, tag_end - tag_begin);
    auto known = std::find_if(series.begin(), series.end(), [&](const auto& entry) { return entry.first == name; });
    if (known == series.end()) known = series.insert(series.end(), {name, {}});
    known->second.push_back(std::strtod(line.c_str() + value + 8, nullptr));
  }
  return series;
}

/// A text chart: each of `width` columns is the mean of its share of the values, drawn as '*' on `height` rows.
void plot(const std::string& tag, const std::vector<double>& values, int width = 60, int height = 8) {
  if (values.size() < 2) {
    std::printf("\n%s: %zu step(s), nothing to plot\n", tag.c_str(), values.size());
    return;
  }
  std::vector<double> columns(static_cast<std::size_t>(std::min<std::size_t>(width, values.size())));
  for (std::size_t c = 0; c < columns.size(); ++c) {
    std::size_t begin = c * values.size() / columns.size(), end = (c + 1) * values.size() / columns.size();
    for (std::size_t i = begin; i < end; ++i) columns[c] += values[i] / static_cast<double>(end - begin);
  }
  double low = *std::min_element(columns.begin(), columns.end()),
         high = *std::max_element(columns.begin(), columns.end());
  std::printf("\n%s: %zu steps, first %.3f, last %.3f\n", tag.c_str(), values.size(), values.front(), values.back());
  for (int row = height - 1; row >= 0; --row) {
    std::string line(columns.size(), ' ');
    for (std::size_t c = 0; c < columns.size(); ++c) {
      int level = high > low ? static_cast<int>((columns[c] - low) / (high - low) * (height - 1) + 0.5) : 0;
      if (level == row) line[c] = '*';
    }
    line.erase(line.find_last_not_of(' ') + 1);
    std::printf("%8.3f |%s\n", low + (high - low) * row / std::max(height - 1, 1), line.c_str());
  }
  std::printf("         +%s\n          step 0%*s%zu\n", std::string(columns.size(), '-').c_str(),
              static_cast<int>(columns.size()) - 6, "step ", values.size() - 1);
}

bool plot_summaries(const Options& options) {
  std::cout << "\n4. the scalar summaries in " << options.summaries << ", plotted\n";
  Series series = read_scalars(options.summaries);
  std::map<std::string, std::size_t> lines;
  for (const auto& [tag, values] : series) {
    plot(tag, values);
    lines[tag] = values.size();
  }
  std::cout << "\n";
  auto steps = [](std::int64_t count) { return static_cast<std::size_t>(count); };
  return check(lines["task1/loss"] == steps(options.steps) && lines["task2/loss"] == steps(options.fine_tune_steps) &&
                   lines["untrained_trunk/loss"] == steps(options.fine_tune_steps) &&
                   lines["rnn/loss"] == steps(options.rnn_steps),
               "the summary file holds one line per training step of each run");
}

int run_lesson(const Options& options) {
  std::remove(options.summaries.c_str());  // ScalarWriter appends; start this run's file afresh
  tl::summary::ScalarWriter writer(options.summaries);
  tl::summary::DefaultWriter scope(writer);  // TF: with writer.as_default(): every fit below logs to it
  Tasks tasks = make_tasks(static_cast<std::uint64_t>(options.seed));
  Heads model;
  model.trunk = make_trunk(static_cast<std::uint64_t>(options.seed));
  model.head2 =
      std::make_shared<Dense>(1, DenseOptions{.seed = static_cast<std::uint64_t>(options.seed) + 20, .name = "head2"});
  model.path1 = std::make_shared<Sequential>(
      LayerList{model.trunk,
                std::make_shared<Dense>(
                    3, DenseOptions{.seed = static_cast<std::uint64_t>(options.seed) + 10, .name = "head1"})},
      "path1");
  model.path2 = std::make_shared<Sequential>(LayerList{model.trunk, model.head2}, "path2");
  bool ok = train_two_heads(tasks, model, options);
  ok = export_and_restore(model, tasks, options) && ok;
  ok = export_and_reuse_trunk(model, tasks, options) && ok;
  ok = train_dynamic_rnn(options) && ok;
  ok = plot_summaries(options) && ok;
  std::cout << (ok ? "all checks passed" : "SOME CHECKS FAILED") << "\n";
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  examples::Flags flags("keras_transfer", "a shared trunk with two heads, transfer, export, a dynamic RNN, summaries");
  flags.integer("--steps", &options.steps, 1, 100000, "phase 1 steps (trunk + head 1)")
      .integer("--fine-tune-steps", &options.fine_tune_steps, 1, 100000, "phase 2 steps (head 2 only)")
      .integer("--rnn-steps", &options.rnn_steps, 1, 100000, "dynamic RNN steps")
      .integer("--seed", &options.seed, 0, 1000000, "data and weights")
      .path("--checkpoint", &options.checkpoint, "where the trunk is exported")
      .path("--saved-model", &options.saved_model, "where the trunk is exported as a saved model")
      .path("--summaries", &options.summaries, "the scalar summaries file (JSON Lines; replaced)")
      .toggle("--quick", &options.quick,
              "a smoke test: 200 / 100 / 200 steps, the smallest run every check applies to (accuracy is checked "
              "only after 200 / 100 / 200 or more)");
  if (auto exit_code = flags.parse(argc, argv)) return *exit_code;
  if (options.quick) {
    options.steps = 200;
    options.fine_tune_steps = 100;
    options.rnn_steps = 200;
  }
  try {
    return run_lesson(options);
  } catch (const tl::Error& e) {
    std::cerr << "keras_transfer: " << e.kind() << ": " << e.what() << "\n";
    return 1;
  }
}
