// Lesson 5 — a custom training loop for a small CNN, eager and traced.
//
// What it does, step by step:
//   * generates a two-class image set from a seed (no downloads): 32x32 grey images of horizontal (class 0) or
//     vertical (class 1) stripes with random period, phase, contrast and strong noise;
//   * preprocesses it with dataset.map — 2x2 average pooling down to 16x16 (Tracelab has no resize op), scaling
//     to [0, 1] and centering each image — once with an eager map function and once with a traced one, timed;
//   * trains Conv2D 16/32/64 (3x3, same, relu) each followed by max pooling and dropout, then Flatten, Dense 64
//     and a softmax Dense 2, with train_on_batch (tape, loss, gradients, Adam) and validate_on_batch (no tape,
//     dropout off) — first eagerly, then as tl::functions, with identical seeds; each epoch is timed;
//   * keeps per-epoch means with tl::metrics (update_state per batch, result() at the epoch's end, reset_state())
//     and logs them once per epoch as scalar summaries through the default writer, as a Keras custom loop does
//     with `with writer.as_default(): tf.summary.scalar(..., step=epoch)` — to a JSON Lines file and to TensorBoard
//     event files, one folder per run (<logdir>/eager, <logdir>/traced: `tensorboard --logdir <logdir>`);
//   * keeps the checkpoint with the best validation loss (tl::KeepBest) while the traced model trains, restores
//     it at the end and validates again.
// The program checks that the traced map equals the eager one, the steps' trace counts, that the eager and the
// traced run's per-epoch losses are equal bit for bit, that the restored model reproduces the best validation loss
// and accuracy, that the summary file holds each epoch's means and each event file a record per mean, and (after at
// least 4 epochs of 256 images, which --quick runs) that validation accuracy beats chance; it exits 1 otherwise.
// Timings are printed, never checked.
//
// Build: cmake --build --preset native --target custom_loop_cnn
// Run:   build/native/examples/custom_loop_cnn [--epochs 6] [--examples 480] [--checkpoint best.tlc]
//                                                [--summaries scalars.jsonl] [--logdir logs] [--quick]
//        node build/wasm/examples/custom_loop_cnn.js --epochs 3
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <numbers>
#include <string>
#include <tuple>
#include <vector>

#include <tracelab/tracelab.h>

#include "flags.h"

namespace {

using Clock = tl::Clock;
using tl::Tensor;
using tl::data::Dataset;
using tl::data::Element;

constexpr std::int64_t kRawSize = 32;    // generated images
constexpr std::int64_t kImageSize = 16;  // after preprocessing

struct Options {
  std::int64_t epochs = 6;
  std::int64_t examples = 480;  // training images; validation gets a quarter as many more
  std::int64_t batch_size = 32;
  std::int64_t seed = 7;
  std::string checkpoint = "custom_loop_cnn_best.tlc";
  std::string summaries = "custom_loop_cnn_scalars.jsonl";
  std::string logdir = "custom_loop_cnn_logs";
  bool quick = false;
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// ---- data ----

/// `count` raw images (count, 32, 32, 1) in [0, 255] and int32 labels (count,): stripes along rows (0) or
/// columns (1): random period 6..12 px, phase, contrast 14..34, plus Gaussian noise of stddev 70.
std::pair<Tensor, Tensor> stripe_images(std::int64_t count, std::uint64_t seed) {
  tl::Generator generator(seed);
  std::vector<float> pixels = generator.normal({count, kRawSize, kRawSize, 1}, 0, 70).to_vector<float>();
  std::vector<std::int32_t> labels(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    int label = static_cast<int>(generator.next_u32() % 2);
    float period = 6 + 6 * generator.next_float(), phase = period * generator.next_float();
    float contrast = 14 + 20 * generator.next_float();
    for (std::int64_t row = 0; row < kRawSize; ++row)
      for (std::int64_t col = 0; col < kRawSize; ++col) {
        float along = static_cast<float>(label == 0 ? row : col) + phase;
        float& pixel = pixels[static_cast<std::size_t>((i * kRawSize + row) * kRawSize + col)];
        pixel = std::clamp(pixel + 127.5f + contrast * std::sin(2 * std::numbers::pi_v<float> * along / period), 0.f,
                           255.f);
      }
    labels[static_cast<std::size_t>(i)] = label;
  }
  return {tl::constant(pixels, {count, kRawSize, kRawSize, 1}), tl::constant(labels, {count})};
}

/// One raw (32, 32, 1) image -> (16, 16, 1): 2x2 average pooling, scaled to [0, 1], mean subtracted.
Tensor preprocess_image(const Tensor& image) {
  Tensor pooled = tl::avg_pool2d(tl::expand_dims(image, 0), {2, 2}, {2, 2});
  Tensor scaled = pooled / 255.f;
  return tl::reshape(scaled - tl::reduce_mean(scaled), {kImageSize, kImageSize, 1});
}

/// Runs the whole map pipeline once and returns its output stacked: {images, labels}, and the seconds it took.
std::pair<Element, double> run_map(const Dataset& raw, const tl::data::MapFn& map_fn, std::int64_t count) {
  Clock::time_point start = Clock::now();
  Element all = *raw.map(map_fn).batch(count).make_iterator().get_next();
  return {all, seconds_since(start)};
}

struct Prepared {
  Element train, validation;
};

/// Preprocesses both sets with an eager and with a traced map function; prints the times; returns the traced output.
Prepared prepare_data(const Options& options, bool& preprocessing_equal) {
  std::int64_t validation_count = std::max<std::int64_t>(options.examples / 4, options.batch_size);
  auto [train_x, train_y] = stripe_images(options.examples, static_cast<std::uint64_t>(options.seed));
  auto [val_x, val_y] = stripe_images(validation_count, static_cast<std::uint64_t>(options.seed) + 1000);
  Dataset raw_train = Dataset::from_tensor_slices({train_x, train_y});
  auto traced_preprocess = tl::function(preprocess_image, {.name = "preprocess", .arg_names = {"image"}});
  tl::data::MapFn eager_map = [](const Element& e) { return Element{preprocess_image(e[0]), e[1]}; };
  tl::data::MapFn traced_map = [traced_preprocess](const Element& e) mutable {
    return Element{traced_preprocess(e[0]), e[1]};
  };
  auto [eager_out, eager_seconds] = run_map(raw_train, eager_map, options.examples);
  auto [traced_out, traced_seconds] = run_map(raw_train, traced_map, options.examples);
  Tensor difference = tl::reduce_max(tl::abs(eager_out[0] - traced_out[0]));
  preprocessing_equal = difference.item<float>() < 1e-6f && traced_preprocess.tracing_count() == 1;
  std::printf(
      "preprocessing %lld images with dataset.map: eager %.1f ms, traced %.1f ms (%.2fx), max difference %g, "
      "%d trace\n",
      static_cast<long long>(options.examples), 1e3 * eager_seconds, 1e3 * traced_seconds,
      eager_seconds / traced_seconds, difference.item<float>(), traced_preprocess.tracing_count());
  Element validation = run_map(Dataset::from_tensor_slices({val_x, val_y}), traced_map, validation_count).first;
  return {traced_out, validation};
}

// ---- model and steps ----

std::shared_ptr<tl::layers::Sequential> make_model(std::uint64_t seed) {
  using namespace tl::layers;
  auto conv = [&](std::int64_t filters) {
    return std::make_shared<Conv2D>(filters, 3, Conv2DOptions{.padding = "same", .activation = "relu", .seed = seed++});
  };
  auto dropout = [&](double rate) {
    return std::make_shared<Dropout>(rate, DropoutOptions{.seed = static_cast<std::int32_t>(seed++)});
  };
  return std::make_shared<Sequential>(
      LayerList{conv(16), std::make_shared<MaxPool2D>(2), dropout(0.2), conv(32), std::make_shared<MaxPool2D>(2),
                dropout(0.2), conv(64), std::make_shared<MaxPool2D>(2), dropout(0.5), std::make_shared<Flatten>(),
                std::make_shared<Dense>(64, DenseOptions{.activation = "relu", .seed = seed++}),
                std::make_shared<Dense>(2, DenseOptions{.activation = "softmax", .seed = seed++})});
}

/// The model with its loss, optimizer and metrics, and the two step functions of a custom loop.
struct Trainer {
  explicit Trainer(std::uint64_t seed) : model(make_model(seed)) {}
  std::shared_ptr<tl::layers::Sequential> model;
  tl::losses::SparseCategoricalCrossentropy loss_fn{/*from_logits=*/false};
  tl::optimizers::Adam optimizer{2e-3};
  tl::metrics::Mean train_loss{"train_loss"}, validation_loss{"validation_loss"};
  tl::metrics::SparseCategoricalAccuracy train_accuracy, validation_accuracy;

  /// Forward pass with dropout on, gradients from the tape, one Adam step; returns the batch loss.
  Tensor train_on_batch(const Tensor& images, const Tensor& labels) {
    tl::GradientTape tape;
    Tensor probabilities = (*model)(images, /*training=*/true);
    Tensor loss = loss_fn(labels, probabilities);
    std::vector<tl::Variable> variables = model->trainable_variables();
    optimizer.apply_gradients(tape.gradient(loss, variables), variables);
    train_loss.update_state(loss);
    train_accuracy.update_state(labels, probabilities);
    return loss;
  }

  /// Forward pass with dropout off and no tape; adds per-example losses to the validation metrics.
  Tensor validate_on_batch(const Tensor& images, const Tensor& labels) {
    Tensor probabilities = (*model)(images, /*training=*/false);
    Tensor losses = loss_fn.call(labels, probabilities);
    validation_loss.update_state(losses);
    validation_accuracy.update_state(labels, probabilities);
    return tl::reduce_mean(losses);
  }
};

using Step = std::function<Tensor(const Tensor&, const Tensor&)>;

struct Steps {
  Step train, validate;
  std::function<int()> tracing_count;  // traces of both steps (0 when eager; a first call that creates variables
                                       // traces twice)
};

Steps eager_steps(Trainer& trainer) {
  return {[&trainer](const Tensor& x, const Tensor& y) { return trainer.train_on_batch(x, y); },
          [&trainer](const Tensor& x, const Tensor& y) { return trainer.validate_on_batch(x, y); }, [] { return 0; }};
}

Steps traced_steps(Trainer& trainer) {
  tl::InputSignature signature{tl::TensorSpec({-1, kImageSize, kImageSize, 1}, tl::float32, "images"),
                               tl::TensorSpec({-1}, tl::int32, "labels")};
  auto train = tl::function([&trainer](const Tensor& x, const Tensor& y) { return trainer.train_on_batch(x, y); },
                            {.input_signature = signature, .name = "train_on_batch"});
  auto validate = tl::function([&trainer](const Tensor& x, const Tensor& y) { return trainer.validate_on_batch(x, y); },
                               {.input_signature = signature, .name = "validate_on_batch"});
  return {[train](const Tensor& x, const Tensor& y) mutable { return train(x, y); },
          [validate](const Tensor& x, const Tensor& y) mutable { return validate(x, y); },
          [train, validate] { return train.tracing_count() + validate.tracing_count(); }};
}

// ---- the loop ----

struct EpochResult {
  double seconds = 0;
  float train_loss = 0, train_accuracy = 0, validation_loss = 0, validation_accuracy = 0;
};

/// Runs validate_on_batch over the validation set; returns (loss, accuracy) over all its examples.
std::pair<float, float> validate(Trainer& trainer, const Steps& steps, const Dataset& validation) {
  trainer.validation_loss.reset_state();
  trainer.validation_accuracy.reset_state();
  for (const Element& batch : validation) steps.validate(batch[0], batch[1]);
  return {trainer.validation_loss.result().item<float>(), trainer.validation_accuracy.result().item<float>()};
}

EpochResult run_epoch(Trainer& trainer, const Steps& steps, const Dataset& train, const Dataset& validation,
                      std::int64_t batches) {
  trainer.train_loss.reset_state();
  trainer.train_accuracy.reset_state();
  tl::ProgressBar bar(batches);
  Clock::time_point start = Clock::now();
  std::int64_t batch_index = 0;
  for (const Element& batch : train) {
    Tensor loss = steps.train(batch[0], batch[1]);
    bar.update(++batch_index, {{"loss", loss.item<float>()}});
  }
  bar.finish();
  EpochResult result;
  std::tie(result.validation_loss, result.validation_accuracy) = validate(trainer, steps, validation);
  result.seconds = seconds_since(start);
  result.train_loss = trainer.train_loss.result().item<float>();
  result.train_accuracy = trainer.train_accuracy.result().item<float>();
  return result;
}

struct Run {
  std::vector<EpochResult> epochs;
  double best_validation_loss = 0;
  float best_validation_accuracy = 0;
};

/// Sends every scalar to two writers: the JSON Lines file this program checks, and a run's TensorBoard event file.
class BothWriters : public tl::summary::SummaryWriter {
 public:
  BothWriters(tl::summary::SummaryWriter& first, tl::summary::SummaryWriter& second) : first_(first), second_(second) {}
  void write_scalar(const std::string& tag, double value, std::int64_t step) override {
    first_.write_scalar(tag, value, step);
    second_.write_scalar(tag, value, step);
  }

 private:
  tl::summary::SummaryWriter& first_;
  tl::summary::SummaryWriter& second_;
};

/// The number of complete TFRecords in an event file, each record's two masked CRC-32Cs checked; -1 when a CRC is
/// wrong or bytes follow the last complete record.
long long event_records(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto le = [&](std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  long long count = 0;
  std::size_t at = 0;
  while (at + 16 <= bytes.size()) {
    std::uint64_t length = le(at, 8);
    if (le(at + 8, 4) != tl::summary::masked_crc32c(std::string_view(bytes).substr(at, 8)) ||
        at + 16 + length > bytes.size() ||
        le(at + 12 + length, 4) != tl::summary::masked_crc32c(std::string_view(bytes).substr(at + 12, length)))
      return -1;
    at += 16 + length;
    ++count;
  }
  return at == bytes.size() ? count : -1;
}

/// Writes the epoch's means (the metrics' result(), before the next epoch resets them) to the default summary
/// writer at the current step, under "<label>/train/loss" and so on.
void log_epoch(const std::string& label, const Trainer& trainer) {
  tl::summary::scalar(label + "/train/loss", trainer.train_loss.result());
  tl::summary::scalar(label + "/train/accuracy", trainer.train_accuracy.result());
  tl::summary::scalar(label + "/validation/loss", trainer.validation_loss.result());
  tl::summary::scalar(label + "/validation/accuracy", trainer.validation_accuracy.result());
}

/// Trains `trainer` for the configured epochs, logging each epoch's means to the default summary writer; with
/// `keep_best`, saves the checkpoint whenever validation loss improves.
Run train(const char* label, Trainer& trainer, const Steps& steps, const Prepared& data, const Options& options,
          tl::KeepBest* keep_best) {
  Dataset train_set = Dataset::from_tensor_slices(data.train)
                          .shuffle(options.examples, static_cast<std::uint64_t>(options.seed))
                          .batch(options.batch_size);
  Dataset validation_set = Dataset::from_tensor_slices(data.validation).batch(options.batch_size);
  Run run;
  for (std::int64_t epoch = 1; epoch <= options.epochs; ++epoch) {
    EpochResult result = run_epoch(trainer, steps, train_set, validation_set, train_set.cardinality());
    tl::summary::set_step(epoch);
    log_epoch(label, trainer);
    bool saved = keep_best != nullptr && keep_best->update(result.validation_loss);
    if (epoch == 1 || result.validation_loss < run.best_validation_loss) {  // KeepBest's rule: strictly better
      run.best_validation_loss = result.validation_loss;
      run.best_validation_accuracy = result.validation_accuracy;
    }
    std::printf("  %-6s epoch %lld/%lld  %6.3f s  loss %.4f  accuracy %.3f | validation loss %.4f  accuracy %.3f%s\n",
                label, static_cast<long long>(epoch), static_cast<long long>(options.epochs), result.seconds,
                result.train_loss, result.train_accuracy, result.validation_loss, result.validation_accuracy,
                saved ? "  (best: saved)" : "");
    run.epochs.push_back(result);
  }
  return run;
}

double median_seconds(const std::vector<EpochResult>& epochs, std::size_t from) {
  std::vector<double> seconds;
  for (std::size_t i = from; i < epochs.size(); ++i) seconds.push_back(epochs[i].seconds);
  std::sort(seconds.begin(), seconds.end());
  if (seconds.empty()) return 0;
  return seconds.size() % 2 ? seconds[seconds.size() / 2]
                            : (seconds[seconds.size() / 2 - 1] + seconds[seconds.size() / 2]) / 2;
}

/// The largest difference between the two runs' per-epoch means of the training and the validation loss.
double largest_loss_difference(const Run& eager, const Run& traced) {
  double largest = 0;
  for (std::size_t i = 0; i < eager.epochs.size() && i < traced.epochs.size(); ++i)
    for (auto [a, b] : {std::pair{eager.epochs[i].train_loss, traced.epochs[i].train_loss},
                        {eager.epochs[i].validation_loss, traced.epochs[i].validation_loss}})
      largest = std::max(largest, static_cast<double>(std::abs(a - b)));
  return largest;
}

void print_speed(const Run& eager, const Run& traced) {
  std::size_t from = eager.epochs.size() > 1 ? 1 : 0;  // the first traced epoch includes tracing
  double eager_seconds = median_seconds(eager.epochs, from), traced_seconds = median_seconds(traced.epochs, from);
  std::printf("\nepoch time (median%s): eager %.3f s, traced %.3f s -> traced is %.2fx as fast\n",
              from ? " of epochs 2..N" : "", eager_seconds, traced_seconds, eager_seconds / traced_seconds);
  std::printf("first epoch (traced: includes tracing both steps): eager %.3f s, traced %.3f s\n",
              eager.epochs[0].seconds, traced.epochs[0].seconds);
  std::printf(
      "same seeds, same batches, same dropout masks: per-epoch losses of the two runs differ by at most %.2g\n",
      largest_loss_difference(eager, traced));
}

/// Restores the best checkpoint into the traced model and validates again; true when it reproduces the best epoch.
bool restore_best(Trainer& trainer, const Steps& steps, const Prepared& data, const Options& options, const Run& run) {
  tl::Checkpoint({{"model", trainer.model->variables()}}).restore(options.checkpoint);
  auto [loss, accuracy] =
      validate(trainer, steps, Dataset::from_tensor_slices(data.validation).batch(options.batch_size));
  std::printf("\nrestored %s: validation loss %.6f, accuracy %.3f (best epoch: %.6f, %.3f)\n",
              options.checkpoint.c_str(), loss, accuracy, run.best_validation_loss, run.best_validation_accuracy);
  return loss == static_cast<float>(run.best_validation_loss) && accuracy == run.best_validation_accuracy;
}

/// Whether the summary file holds, for each run and epoch, the four means that epoch printed, in the order
/// log_epoch wrote them: lines that begin {"step":<epoch>,"tag":"<run>/<metric>","value":<the mean>,.
bool summaries_match(const std::string& path, const std::vector<std::pair<std::string, const Run*>>& runs) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::size_t next = 0;
  for (const auto& [label, run] : runs)
    for (std::size_t epoch = 0; epoch < run->epochs.size(); ++epoch) {
      const EpochResult& r = run->epochs[epoch];
      for (auto [metric, value] : {std::pair{"train/loss", r.train_loss}, {"train/accuracy", r.train_accuracy},
                                   {"validation/loss", r.validation_loss}, {"validation/accuracy", r.validation_accuracy}}) {
        if (next >= lines.size()) return false;
        const std::string& line = lines[next++];
        std::string prefix = "{\"step\":" + std::to_string(epoch + 1) + ",\"tag\":\"" + label + "/" + metric + "\",\"value\":";
        if (line.rfind(prefix, 0) != 0 || std::strtod(line.c_str() + prefix.size(), nullptr) != static_cast<double>(value))
          return false;
      }
    }
  std::printf("summaries: %zu lines in %s, each epoch's four means for both runs\n", lines.size(), path.c_str());
  return next == lines.size();
}

bool check(bool holds, const std::string& what) {
  std::cout << "  check: " << what << ": " << (holds ? "ok" : "FAILED") << "\n";
  return holds;
}

/// Whether the run is long enough to expect the model to beat chance clearly (the default run is).
bool trained_enough(const Options& options) { return options.epochs >= 4 && options.examples >= 256; }

int run_lesson(const Options& options) {
  bool preprocessing_equal = false;
  Prepared data = prepare_data(options, preprocessing_equal);
  Trainer eager_trainer(static_cast<std::uint64_t>(options.seed)),
      traced_trainer(static_cast<std::uint64_t>(options.seed));
  Tensor sample = tl::slice(data.train[0], {0, 0, 0, 0}, {1, -1, -1, -1});
  (*eager_trainer.model)(sample);  // build the weights now, so the checkpoint below knows them
  (*traced_trainer.model)(sample);
  std::cout << "\n" << traced_trainer.model->summary() << "\n";
  Steps eager = eager_steps(eager_trainer), traced = traced_steps(traced_trainer);
  tl::KeepBest keep_best(tl::Checkpoint({{"model", traced_trainer.model->variables()}}), options.checkpoint,
                         tl::KeepBest::Mode::min);
  std::remove(options.summaries.c_str());  // ScalarWriter appends; start this run's file afresh
  tl::summary::ScalarWriter writer(options.summaries);
  // TensorBoard: one folder per run, so its charts draw the eager and the traced run side by side.
  auto eager_events = tl::summary::create_file_writer(options.logdir + "/eager");
  auto traced_events = tl::summary::create_file_writer(options.logdir + "/traced");
  Run eager_run, traced_run;
  {
    BothWriters both(writer, eager_events);
    tl::summary::DefaultWriter scope(both);  // TF: with writer.as_default():
    eager_run = train("eager", eager_trainer, eager, data, options, nullptr);
  }
  {
    BothWriters both(writer, traced_events);
    tl::summary::DefaultWriter scope(both);
    traced_run = train("traced", traced_trainer, traced, data, options, &keep_best);
  }
  std::printf("TensorBoard event files: %s, %s (tensorboard --logdir %s)\n", eager_events.path().c_str(),
              traced_events.path().c_str(), options.logdir.c_str());
  print_speed(eager_run, traced_run);
  bool restored = restore_best(traced_trainer, traced, data, options, traced_run);
  std::cout << "\n";
  bool ok = check(preprocessing_equal, "the traced map function gives the eager one's images, with one trace");
  ok = check(traced.tracing_count() == 3,
             "train_on_batch traced twice on its first call (its trace created the optimizer's slots, so it traced "
             "again with variable creation forbidden, as TensorFlow does), validate_on_batch once") && ok;
  ok = check(eager_run.epochs.size() == static_cast<std::size_t>(options.epochs) &&
                 traced_run.epochs.size() == eager_run.epochs.size() &&
                 largest_loss_difference(eager_run, traced_run) == 0,
             "both runs trained every epoch on the same batches and dropout masks: their per-epoch losses are equal, "
             "bit for bit") && ok;
  ok = check(restored, "the restored checkpoint reproduces the best validation loss and accuracy") && ok;
  ok = check(summaries_match(options.summaries, {{"eager", &eager_run}, {"traced", &traced_run}}),
             "the summary file holds every epoch's means, at the epoch's step") && ok;
  auto records = 1 + 4 * static_cast<long long>(options.epochs);  // file_version, then four means per epoch
  ok = check(event_records(eager_events.path()) == records && event_records(traced_events.path()) == records,
             "each run's event file holds its file_version record and four scalars per epoch, CRCs intact") && ok;
  if (trained_enough(options)) {
    ok = check(traced_run.best_validation_accuracy > 0.75f, "best validation accuracy above 0.75 (chance 0.5)") && ok;
  } else {
    std::cout << "  (accuracy not checked: fewer than 4 epochs or 256 training images)\n";
  }
  std::cout << (ok ? "all checks passed" : "SOME CHECKS FAILED") << "\n";
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  examples::Flags flags("custom_loop_cnn",
                        "a CNN trained by a custom loop, eager vs traced, keeping the best checkpoint");
  flags.integer("--epochs", &options.epochs, 1, 1000, "training epochs per run")
      .integer("--examples", &options.examples, 8, 100000, "training images (validation: a quarter as many more)")
      .integer("--batch-size", &options.batch_size, 1, 4096, "images per step")
      .integer("--seed", &options.seed, 0, 1000000, "data and weights")
      .path("--checkpoint", &options.checkpoint, "where the best checkpoint is written")
      .path("--summaries", &options.summaries, "the per-epoch scalar summaries (JSON Lines; replaced)")
      .path("--logdir", &options.logdir, "TensorBoard event files, one folder per run (a new file each time)")
      .toggle("--quick", &options.quick,
              "a smoke test: 4 epochs of 256 images, the smallest run every check applies to");
  if (auto exit_code = flags.parse(argc, argv)) return *exit_code;
  if (options.quick) {
    options.epochs = 4;
    options.examples = 256;
  }
  try {
    std::printf("custom training loop: %lld training images %lldx%lld, %lld epochs, batch %lld, seed %lld\n\n",
                static_cast<long long>(options.examples), static_cast<long long>(kImageSize),
                static_cast<long long>(kImageSize), static_cast<long long>(options.epochs),
                static_cast<long long>(options.batch_size), static_cast<long long>(options.seed));
    return run_lesson(options);
  } catch (const tl::Error& e) {
    std::cerr << "custom_loop_cnn: " << e.kind() << ": " << e.what() << "\n";
    return 1;
  }
}
