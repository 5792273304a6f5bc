// Layer: unique names, input checks, build-on-first-call, weights and recursive variable collection, activations.
#include "tracelab/nn/layer.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "tracelab/ops/math.h"
#include "tracelab/ops/nn.h"

namespace tl::layers {
namespace {

/// `base` if no layer has taken it yet, else the first free "base_1", "base_2", ... (Keras' naming).
/// Names are never given back, so every suffix below a base's counter is taken: the search starts there, and
/// making the n-th layer of a kind costs one look-up instead of n.
std::string unique_layer_name(std::string_view base) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> taken;
  static std::map<std::string, int, std::less<>> next_suffix;  // per base: the first suffix not tried yet
  std::lock_guard<std::mutex> lock(mutex);
  std::string name(base);
  auto counter = next_suffix.find(base);
  if (counter == next_suffix.end()) counter = next_suffix.emplace(std::string(base), 1).first;
  while (taken.count(name) > 0) name = std::string(base) + "_" + std::to_string(counter->second++);
  taken.insert(name);
  return name;
}

std::string rank_bounds(const InputSpec& spec) {
  if (spec.max_rank == spec.min_rank) return std::to_string(spec.min_rank);
  if (spec.max_rank < 0) return ">= " + std::to_string(spec.min_rank);
  return "in [" + std::to_string(spec.min_rank) + ", " + std::to_string(spec.max_rank) + "]";
}

}  // namespace

Layer::Layer(std::string_view name) {
  check_name(name);
  name_ = unique_layer_name(name);
}

Layer::Layer(std::string_view name, std::string_view default_name) {
  check_name(name.empty() ? default_name : name);
  name_ = name.empty() ? unique_layer_name(default_name) : std::string(name);
}

void Layer::check_name(std::string_view name) {
  TL_CHECK(!name.empty(), InvalidArgument, "Layer: the name must not be empty");
  TL_CHECK(name.find('/') == std::string_view::npos, InvalidArgument, "Layer: the name '", name,
           "' must not contain '/' (it separates the layer from the weight in variable names)");
}

void Layer::build(const Shape&) {}

std::string Layer::describe() const { return type_name() + " '" + name_ + "'"; }

void Layer::check_input(const Tensor& x) const {
  const InputSpec& spec = input_spec_;
  TL_CHECK(x.defined(), InvalidArgument, describe(), ": the input is an empty Tensor handle");
  TL_CHECK(!spec.dtype || x.dtype() == *spec.dtype, DTypeError, describe(), ": expects ",
           dtype_name(spec.dtype.value_or(float32)), " inputs, got ", meta_str(x.meta()));
  int rank = x.rank();
  TL_CHECK(rank >= spec.min_rank && (spec.max_rank < 0 || rank <= spec.max_rank), ShapeError, describe(),
           ": expects an input of rank ", rank_bounds(spec), ", got ", meta_str(x.meta()));
  for (const auto& [axis, size] : spec.axes) {
    int a = axis < 0 ? axis + rank : axis;
    std::int64_t got = x.shape()[static_cast<std::size_t>(a)];
    TL_CHECK(got < 0 || got == size, ShapeError, describe(), ": was built for inputs with ", size,
             " on axis ", axis, ", got ", meta_str(x.meta()));
  }
}

void Layer::ensure_built(const Tensor& x) {
  check_input(x);
  if (built_) return;
  std::size_t before = own_.size();
  InputSpec spec_before = input_spec_;
  try {
    build(x.shape());
  } catch (...) {  // a failed build leaves the layer as it was, so a corrected call can build it
    own_.erase(own_.begin() + static_cast<std::ptrdiff_t>(before), own_.end());
    input_spec_ = std::move(spec_before);
    throw;
  }
  built_ = true;
}

Tensor Layer::operator()(const Tensor& x, bool training) {
  ensure_built(x);
  Tensor y = call(x, training);
  record_output(y);
  return y;
}

void Layer::set_seed(std::optional<std::uint64_t> seed) {
  seed_ = seed;
  generator_.reset();
}

Variable Layer::add_weight(const std::string& name, const Shape& shape, const initializers::Initializer& initializer,
                           bool trainable) {
  TL_CHECK(static_cast<bool>(initializer), InvalidArgument, describe(), ": weight '", name, "' has no initializer");
  TL_CHECK(shape.is_fully_defined(), ShapeError, describe(), ": weight '", name, "' needs a fully defined shape, got ",
           shape.str(), " (build the layer with the input dims it needs known)");
  if (seed_ && !generator_) generator_.emplace(*seed_);
  Generator& generator = seed_ ? *generator_ : global_generator();
  Tensor initial = initializer(shape, generator);
  TL_CHECK(initial.defined() && initial.shape() == shape, ShapeError, describe(), ": the initializer of weight '",
           name, "' returned ", initial.defined() ? initial.shape().str() : std::string("an empty handle"),
           " instead of ", shape.str());
  Variable variable(initial, name_ + "/" + name, trainable);
  own_.push_back({variable, true});
  return variable;
}

Variable Layer::add_state(const std::string& name, const Tensor& initial) {
  Variable variable(initial, name_ + "/" + name, /*trainable=*/false);
  own_.push_back({variable, false});
  return variable;
}

bool Layer::contains(const Layer* layer) const {
  if (layer == this) return true;
  return std::any_of(layers_.begin(), layers_.end(), [&](const auto& sub) { return sub->contains(layer); });
}

void Layer::track_layer(std::shared_ptr<Layer> layer) {
  TL_CHECK(layer != nullptr, InvalidArgument, describe(), ": cannot track a null layer");
  TL_CHECK(!layer->contains(this), InvalidArgument, describe(), ": tracking ", layer->describe(),
           " would make a cycle (it already contains this layer)");
  if (std::find(layers_.begin(), layers_.end(), layer) != layers_.end()) return;
  // Explicit names are kept as given, so two sub-layers could share one; their variables would then share names
  // (and checkpoint keys). Keras refuses that too.
  for (const auto& other : layers_)
    TL_CHECK(other->name() != layer->name(), InvalidArgument, describe(), ": two layers are named '", layer->name(),
             "'; give each layer of a model its own name");
  layers_.push_back(std::move(layer));
}

void Layer::collect(std::vector<OwnedVariable>& out) const {
  out.insert(out.end(), own_.begin(), own_.end());
  for (const auto& layer : layers_) layer->collect(out);
}

std::vector<Layer::OwnedVariable> Layer::all_variables() const {
  std::vector<OwnedVariable> all;
  collect(all);
  // Variable ids grow with creation, so sorting by id gives creation order; a shared sub-layer appears once.
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.variable.id() < b.variable.id(); });
  all.erase(std::unique(all.begin(), all.end(),
                        [](const auto& a, const auto& b) { return a.variable.id() == b.variable.id(); }),
            all.end());
  return all;
}

std::vector<Variable> Layer::variables() const {
  std::vector<Variable> out;
  for (const auto& owned : all_variables()) out.push_back(owned.variable);
  return out;
}

std::vector<Variable> Layer::trainable_variables() const {
  std::vector<Variable> out;
  for (const auto& owned : all_variables())
    if (owned.variable.trainable()) out.push_back(owned.variable);
  return out;
}

std::vector<Variable> Layer::non_trainable_variables() const {
  std::vector<Variable> out;
  for (const auto& owned : all_variables())
    if (!owned.variable.trainable()) out.push_back(owned.variable);
  return out;
}

std::vector<Variable> Layer::weights() const {
  std::vector<Variable> out;
  for (const auto& owned : all_variables())
    if (owned.is_weight) out.push_back(owned.variable);
  return out;
}

std::int64_t Layer::count_params() const {
  TL_CHECK(built_, InvalidArgument, describe(), ": count_params: the layer is not built yet; call it once on an "
           "input first (weights are created for the input's shape)");
  std::int64_t total = 0;
  for (const Variable& weight : weights()) total += weight.shape().num_elements();
  return total;
}

Tensor apply_activation(std::string_view activation, const Tensor& x) {
  if (activation == "none" || activation == "linear") return x;
  if (activation == "relu") return relu(x);
  if (activation == "sigmoid") return sigmoid(x);
  if (activation == "tanh") return tanh(x);
  if (activation == "softmax") return softmax(x, -1);
  check_activation("apply_activation", activation);
  return x;
}

void check_activation(std::string_view who, std::string_view activation) {
  static const std::set<std::string, std::less<>> known{"none", "linear", "relu", "sigmoid", "tanh", "softmax"};
  TL_CHECK(known.count(activation) > 0, InvalidArgument, who, ": unknown activation '", activation,
           "'; expected one of none, linear, relu, sigmoid, tanh, softmax");
}

}  // namespace tl::layers
