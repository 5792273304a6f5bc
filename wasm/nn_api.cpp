// Keras-style layers, losses, optimizers, metrics and checkpoints for JavaScript, by handle. Layers and
// optimizers are the core's (tl::layers, tl::optimizers): the JS facade only names them in TF.js' spelling.
// A layer's variables come back as variable handles (one handle per variable, however often asked).
#include <emscripten/bind.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "adapters.h"
#include "handles.h"

namespace tl::wasm {
namespace {

HandleTable<std::shared_ptr<layers::Layer>>& layer_table() {
  static HandleTable<std::shared_ptr<layers::Layer>> table("layer");
  return table;
}
HandleTable<std::shared_ptr<optimizers::Optimizer>>& optimizer_table() {
  static HandleTable<std::shared_ptr<optimizers::Optimizer>> table("optimizer");
  return table;
}
HandleTable<std::shared_ptr<metrics::Metric>>& metric_table() {
  static HandleTable<std::shared_ptr<metrics::Metric>> table("metric");
  return table;
}
HandleTable<layers::CompiledModel>& compiled_table() {
  static HandleTable<layers::CompiledModel> table("compiled model");
  return table;
}

/// A Keras loss by its TF.js name (the names of tl.losses).
std::shared_ptr<losses::Loss> loss_named(const std::string& name, bool from_logits) {
  if (name == "meanSquaredError") return std::make_shared<losses::MeanSquaredError>();
  if (name == "binaryCrossentropy") return std::make_shared<losses::BinaryCrossentropy>(from_logits);
  if (name == "categoricalCrossentropy") return std::make_shared<losses::CategoricalCrossentropy>(from_logits);
  if (name == "sparseCategoricalCrossentropy") return std::make_shared<losses::SparseCategoricalCrossentropy>(from_logits);
  throw InvalidArgument(detail::cat("compile: unknown loss '", name, "'; expected one of meanSquaredError, ",
                                    "binaryCrossentropy, categoricalCrossentropy, sparseCategoricalCrossentropy"));
}

val numbers_array(const std::vector<double>& values) {
  val out = val::array();
  for (double v : values) out.call<void>("push", val(v));
  return out;
}

val variable_list(const std::vector<Variable>& vars) {
  val out = val::array();
  for (const Variable& v : vars) out.call<void>("push", val(variable_handle(v)));
  return out;
}

std::string str_field(const val& js, const char* name, const std::string& fallback) {
  val v = js[name];
  return v.isUndefined() || v.isNull() ? fallback : v.as<std::string>();
}
double num_field(const val& js, const char* name, double fallback) {
  val v = js[name];
  return v.isUndefined() || v.isNull() ? fallback : v.as<double>();
}
bool bool_field(const val& js, const char* name, bool fallback) {
  val v = js[name];
  return v.isUndefined() || v.isNull() ? fallback : v.as<bool>();
}
std::optional<std::uint64_t> seed_field(const val& js) {
  val v = js["seed"];
  if (v.isUndefined() || v.isNull()) return std::nullopt;
  return static_cast<std::uint64_t>(v.as<double>());
}
layers::Size2 size2_field(const val& js, const char* name, std::int64_t fallback) {
  val v = js[name];
  if (v.isUndefined() || v.isNull()) return fallback;
  if (is_array(v)) {
    Ints both = to_ints(v, name);
    TL_CHECK(both.size() == 2, InvalidArgument, name, " must be a number or a pair, got ", both.size(), " numbers");
    return layers::Size2(both[0], both[1]);
  }
  return static_cast<std::int64_t>(v.as<double>());
}

std::shared_ptr<layers::Layer> make_layer(const val& c) {
  std::string type = str_field(c, "className", "");
  std::string name = str_field(c, "name", "");
  if (type == "Dense")
    return std::make_shared<layers::Dense>(
        static_cast<std::int64_t>(num_field(c, "units", 0)),
        layers::DenseOptions{.activation = str_field(c, "activation", "none"), .use_bias = bool_field(c, "useBias", true),
                             .seed = seed_field(c), .name = name});
  if (type == "Conv2D")
    return std::make_shared<layers::Conv2D>(
        static_cast<std::int64_t>(num_field(c, "filters", 0)), size2_field(c, "kernelSize", 3),
        layers::Conv2DOptions{.strides = size2_field(c, "strides", 1), .padding = str_field(c, "padding", "valid"),
                              .activation = str_field(c, "activation", "none"),
                              .use_bias = bool_field(c, "useBias", true), .seed = seed_field(c), .name = name});
  if (type == "MaxPooling2D" || type == "AveragePooling2D") {
    layers::Pool2DOptions options{.padding = str_field(c, "padding", "valid"), .name = name};
    if (!c["strides"].isUndefined()) options.strides = size2_field(c, "strides", 2);
    if (type == "MaxPooling2D") return std::make_shared<layers::MaxPool2D>(size2_field(c, "poolSize", 2), options);
    return std::make_shared<layers::AvgPool2D>(size2_field(c, "poolSize", 2), options);
  }
  if (type == "Flatten") return std::make_shared<layers::Flatten>(name);
  if (type == "Dropout") {
    layers::DropoutOptions options{.name = name};
    if (auto seed = seed_field(c)) options.seed = static_cast<std::int32_t>(*seed);
    return std::make_shared<layers::Dropout>(num_field(c, "rate", 0.5), options);
  }
  if (type == "SimpleRNN")
    return std::make_shared<layers::SimpleRNN>(
        static_cast<std::int64_t>(num_field(c, "units", 0)),
        layers::SimpleRNNOptions{.activation = str_field(c, "activation", "tanh"),
                                 .return_sequences = bool_field(c, "returnSequences", false), .seed = seed_field(c),
                                 .name = name});
  if (type == "Sequential") {
    layers::LayerList list;
    val items = c["layers"];
    if (!items.isUndefined())
      for (unsigned i = 0, n = length_of(items); i < n; ++i) list.push_back(layer_table().get(items[i].as<double>()));
    return std::make_shared<layers::Sequential>(std::move(list), name);
  }
  throw InvalidArgument("tl.layers: unknown layer class '" + type +
                        "' (Dense, Conv2D, MaxPooling2D, AveragePooling2D, Flatten, Dropout, SimpleRNN, Sequential)");
}

std::shared_ptr<metrics::Metric> make_metric(const std::string& type, const val& c) {
  std::string name = str_field(c, "name", "");
  if (type == "mean") return std::make_shared<metrics::Mean>(name.empty() ? "mean" : name);
  if (type == "meanSquaredError") return std::make_shared<metrics::MeanSquaredError>(name.empty() ? "mean_squared_error" : name);
  if (type == "binaryAccuracy")
    return std::make_shared<metrics::BinaryAccuracy>(num_field(c, "threshold", 0.5), name.empty() ? "binary_accuracy" : name);
  if (type == "sparseCategoricalAccuracy")
    return std::make_shared<metrics::SparseCategoricalAccuracy>(name.empty() ? "sparse_categorical_accuracy" : name);
  throw InvalidArgument("tl.metrics: unknown metric '" + type +
                        "' (mean, meanSquaredError, binaryAccuracy, sparseCategoricalAccuracy)");
}

std::vector<Variable> variables_of(const val& ids) {
  std::vector<Variable> out;
  for (unsigned i = 0, n = length_of(ids); i < n; ++i) out.push_back(variables().get(ids[i].as<double>()));
  return out;
}

}  // namespace

val layer_new(const val& config) {
  return guarded([&] { return val(layer_table().add(make_layer(config))); });
}

double layer_call(double id, double x, bool training) {
  return guarded([&] { return results_of((*layer_table().get(id))(tensors().get(x), training)); });
}

double layer_variables_staged(double id, bool trainable_only) {
  return guarded([&] {
    const layers::Layer& l = *layer_table().get(id);
    static std::vector<double> buffer;
    buffer.clear();
    std::vector<Variable> vars = trainable_only ? l.trainable_variables() : l.variables();
    buffer.push_back(static_cast<double>(vars.size()));
    for (const Variable& v : vars) buffer.push_back(variable_handle(v));
    return static_cast<double>(reinterpret_cast<std::uintptr_t>(buffer.data()));
  });
}

val layer_info(double id) {
  return guarded([&] {
    const layers::Layer& l = *layer_table().get(id);
    val info = val::object();
    info.set("name", l.name());
    info.set("className", l.type_name());
    info.set("built", l.built());
    info.set("variables", variable_list(l.variables()));
    info.set("trainableVariables", variable_list(l.trainable_variables()));
    info.set("countParams", l.built() ? static_cast<double>(l.count_params()) : 0.0);
    info.set("summary", l.built() ? l.summary() : std::string());
    return info;
  });
}

bool layer_dispose(double id) { return layer_table().remove(id); }

double loss_call(double kind, double y_true, double y_pred, bool from_logits) {
  return guarded([&] {
    const Tensor& y = tensors().get(y_true);
    const Tensor& p = tensors().get(y_pred);
    Tensor loss;
    switch (static_cast<int>(kind)) {
      case 0: loss = losses::MeanSquaredError()(y, p); break;
      case 1: loss = losses::BinaryCrossentropy(from_logits)(y, p); break;
      case 2: loss = losses::CategoricalCrossentropy(from_logits)(y, p); break;
      case 3: loss = losses::SparseCategoricalCrossentropy(from_logits)(y, p); break;
      default:
        throw InvalidArgument(detail::cat("tl.losses: unknown loss code ", kind,
                                          " (0 meanSquaredError, 1 binaryCrossentropy, 2 categoricalCrossentropy, "
                                          "3 sparseCategoricalCrossentropy)"));
    }
    return results_of(loss);
  });
}

val optimizer_new(const val& c) {
  return guarded([&] {
    std::string type = str_field(c, "type", "adam");
    double lr = num_field(c, "learningRate", type == "sgd" ? 0.01 : 0.001);
    std::shared_ptr<optimizers::Optimizer> opt;
    if (type == "sgd") opt = std::make_shared<optimizers::SGD>(lr, num_field(c, "momentum", 0), bool_field(c, "nesterov", false));
    else if (type == "adam")
      opt = std::make_shared<optimizers::Adam>(lr, num_field(c, "beta1", 0.9), num_field(c, "beta2", 0.999),
                                               num_field(c, "epsilon", 1e-7));
    else if (type == "rmsprop")
      opt = std::make_shared<optimizers::RMSprop>(lr, num_field(c, "rho", 0.9), num_field(c, "momentum", 0),
                                                  num_field(c, "epsilon", 1e-7));
    else throw InvalidArgument("tl.train: unknown optimizer '" + type + "' (sgd, adam, rmsprop)");
    return val(optimizer_table().add(std::move(opt)));
  });
}

/// grads: tensor handles (null = no gradient), vars: variable handles, pairwise.
val optimizer_apply(double id, const val& grads, const val& vars) {
  return guarded([&] {
    std::vector<Tensor> g;
    for (unsigned i = 0, n = length_of(grads); i < n; ++i)
      g.push_back(grads[i].isNull() ? Tensor() : tensors().get(grads[i].as<double>()));
    optimizer_table().get(id)->apply_gradients(g, variables_of(vars));
    return val::undefined();
  });
}

double optimizer_apply_staged(double id, double count) {
  return guarded([&] {
    std::span<const double> ids = staged_numbers(2 * count, "Optimizer.applyGradients");
    const auto n = static_cast<std::size_t>(count);
    std::vector<Tensor> g(n);
    for (std::size_t i = 0; i < n; ++i)
      if (ids[i] != 0) g[i] = tensors().get(ids[i]);
    optimizer_table().get(id)->apply_gradients(g, variables_of(ids.subspan(n)));
    return 0.0;  // a number: returning undefined is a val, one more call into JavaScript
  });
}

/// Optimizer.minimize's core: the gradients of `loss` for the `count` staged variables (count -1: the variables the
/// tape watched) applied without leaving the core.
double optimizer_minimize_staged(double id, double tape, double loss, double count) {
  return guarded([&] {
    GradientTape& t = *tapes().get(tape);
    const Tensor& y = tensors().get(loss);
    optimizers::Optimizer& optimizer = *optimizer_table().get(id);
    if (count < 0) optimizer.minimize(t, y);
    else optimizer.minimize(t, y, variables_of(staged_numbers(count, "Optimizer.minimize")));
    return 0.0;
  });
}

val optimizer_variables(double id) {
  return guarded([&] { return variable_list(optimizer_table().get(id)->variables()); });
}

bool optimizer_dispose(double id) { return optimizer_table().remove(id); }

val metric_new(const std::string& type, const val& config) {
  return guarded([&] { return val(metric_table().add(make_metric(type, config))); });
}

/// update_state(values) for Mean, update_state(y_true, y_pred) for the others.
val metric_update(double id, const val& inputs) {
  return guarded([&] {
    auto& metric = *metric_table().get(id);
    std::vector<Tensor> in = tensors_of(inputs, metric.name() + ".updateState");
    if (auto* mean = dynamic_cast<metrics::Mean*>(&metric)) {
      TL_CHECK(in.size() == 1, InvalidArgument, "Mean.updateState takes one tensor, got ", in.size());
      mean->update_state(in[0]);
    } else {
      auto& wrapper = dynamic_cast<metrics::MeanMetricWrapper&>(metric);
      TL_CHECK(in.size() == 2, InvalidArgument, metric.name(), ".updateState takes (yTrue, yPred), got ", in.size(),
               " tensors");
      wrapper.update_state(in[0], in[1]);
    }
    return val::undefined();
  });
}

double metric_result(double id) {
  return guarded([&] { return results_of(metric_table().get(id)->result()); });
}

val metric_reset(double id) {
  return guarded([&] {
    metric_table().get(id)->reset_state();
    return val::undefined();
  });
}

bool metric_dispose(double id) { return metric_table().remove(id); }

/// A checkpoint of the given variables as bytes (tl::Checkpoint's format, CRC-checked).
val checkpoint_save(const val& vars) {
  return guarded([&] {
    Checkpoint ckpt;
    ckpt.add("variables", variables_of(vars));
    std::vector<std::uint8_t> bytes = ckpt.to_bytes();
    return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
  });
}

/// Restores the variables from bytes; everything is validated before any variable changes.
val checkpoint_restore(const val& vars, const val& bytes) {
  return guarded([&] {
    Checkpoint ckpt;
    ckpt.add("variables", variables_of(vars));
    std::vector<std::uint8_t> data = emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
    ckpt.from_bytes(data);
    return val::undefined();
  });
}

val compiled_new(double layer, const val& config) {
  return guarded([&] {
    layers::CompileOptions options;
    val optimizer = config["optimizer"];
    TL_CHECK(!optimizer.isUndefined() && !optimizer.isNull(), InvalidArgument,
             "compile: an optimizer is required (options.optimizer)");
    options.optimizer = optimizer_table().get(optimizer.as<double>());
    val loss = config["loss"];
    TL_CHECK(!loss.isUndefined() && !loss.isNull(), InvalidArgument, "compile: a loss is required (options.loss)");
    options.loss = loss_named(loss.as<std::string>(), bool_field(config, "fromLogits", false));
    val metrics = config["metrics"];
    if (!metrics.isUndefined() && !metrics.isNull())
      for (unsigned i = 0, n = length_of(metrics); i < n; ++i) options.metrics.push_back(metrics[i].as<std::string>());
    options.run_eagerly = bool_field(config, "runEagerly", false);
    return val(compiled_table().add(layers::CompiledModel(layer_table().get(layer), std::move(options))));
  });
}

val compiled_fit(double id, double dataset, const val& options) {
  return guarded([&] {
    layers::FitOptions fit;
    fit.epochs = static_cast<std::int64_t>(num_field(options, "epochs", 1));
    fit.verbose = false;  // a terminal progress bar means nothing in a page or a worker
    val validation = options["validationData"];
    if (!validation.isUndefined() && !validation.isNull()) fit.validation_data = dataset_of(validation.as<double>());
    layers::History history = compiled_table().get(id).fit(dataset_of(dataset), fit);
    val out = val::object(), keys = val::object();
    out.set("epoch", numbers_array(std::vector<double>(history.epoch.begin(), history.epoch.end())));
    for (const auto& [key, values] : history.history) keys.set(key, numbers_array(values));
    out.set("history", keys);
    out.set("seconds", numbers_array(history.seconds));
    return out;
  });
}

val compiled_evaluate(double id, double dataset) {
  return guarded([&] {
    val out = val::object();
    for (const auto& [key, value] : compiled_table().get(id).evaluate(dataset_of(dataset))) out.set(key, value);
    return out;
  });
}

val compiled_tracing_counts(double id) {
  return guarded([&] {
    const layers::CompiledModel& compiled = compiled_table().get(id);
    val out = val::object();
    out.set("train", compiled.train_tracing_count());
    out.set("test", compiled.test_tracing_count());
    return out;
  });
}

bool compiled_dispose(double id) { return compiled_table().remove(id); }

}  // namespace tl::wasm
