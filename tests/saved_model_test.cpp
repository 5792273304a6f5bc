// Saved models: loaded functions give bit-identical results, share their restored variables, keep training them,
// check their input signature, save again; corrupt, truncated and mismatched files are clear errors, never a crash.
#include <doctest/doctest.h>

#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_util.h"
#include "tracelab/tracelab.h"

namespace saved_model_test {

namespace {

using tl::Tensor;
using tl::TensorSpec;
using tl::Variable;
using tl::testing::same_bits;
using Bytes = std::vector<std::uint8_t>;

/// A two-layer classifier with a traced predict (any batch) and a traced Adam train step (batches of 8).
struct Trained {
  std::shared_ptr<tl::layers::Sequential> model = std::make_shared<tl::layers::Sequential>(tl::layers::LayerList{
      std::make_shared<tl::layers::Dense>(6, tl::layers::DenseOptions{.activation = "tanh", .seed = 11}),
      std::make_shared<tl::layers::Dense>(1, tl::layers::DenseOptions{.seed = 12})});
  tl::optimizers::Adam optimizer{0.05};
  tl::losses::MeanSquaredError mse;
  std::function<Tensor(const Tensor&)> predict_body = [this](const Tensor& x) { return (*model)(x); };
  decltype(tl::function(predict_body)) predict = tl::function(predict_body, {.name = "predict", .arg_names = {"x"}});
  std::function<Tensor(const Tensor&, const Tensor&)> step_body = [this](const Tensor& x, const Tensor& y) {
    tl::GradientTape tape;
    Tensor loss = mse(y, (*model)(x));
    std::vector<Variable> variables = model->trainable_variables();
    optimizer.apply_gradients(tape.gradient(loss, variables), variables);
    return loss;
  };
  decltype(tl::function(step_body)) train_step = tl::function(step_body, {.name = "train_step", .arg_names = {"x", "y"}});

  Trained() {
    predict.get_concrete_function(TensorSpec({-1, 4}, tl::float32, "x"));
    train_step.get_concrete_function(TensorSpec({8, 4}, tl::float32, "x"), TensorSpec({8, 1}, tl::float32, "y"));
  }
  Bytes save() const { return tl::saved_model::to_bytes({{"predict", predict}, {"train_step", train_step}}); }
};

Tensor inputs(std::uint64_t seed, std::int64_t rows) { return tl::Generator(seed).normal({rows, 4}); }
Tensor targets(const Tensor& x) { return tl::reduce_sum(x * tl::constant({0.5f, -1.f, 0.25f, 2.f}), {1}, true); }

/// The header of a saved model as JSON, and a copy of the file with an edited header (re-signed, so only the
/// edit is wrong).
std::ptrdiff_t header_length(const Bytes& bytes) {
  std::uint64_t length = 0;
  for (int i = 0; i < 8; ++i) length |= static_cast<std::uint64_t>(bytes[8 + i]) << (8 * i);
  return static_cast<std::ptrdiff_t>(length);
}

nlohmann::json header_of(const Bytes& bytes) {
  return nlohmann::json::parse(bytes.begin() + 20, bytes.begin() + 20 + header_length(bytes));
}

/// `bytes` with its header replaced by `text`, re-signed.
Bytes with_header_text(const Bytes& bytes, const std::string& text) {
  Bytes out(bytes.begin(), bytes.begin() + 8);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(std::uint64_t{text.size()} >> (8 * i)));
  std::uint32_t crc = tl::detail::checkpoint_crc32(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(crc >> (8 * i)));
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), bytes.begin() + 20 + header_length(bytes), bytes.end());
  return out;
}

Bytes with_header(const Bytes& bytes, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json header = header_of(bytes);
  edit(header);
  return with_header_text(bytes, header.dump());
}

std::string load_error(const Bytes& bytes) {
  try {
    tl::saved_model::from_bytes(bytes);
  } catch (const tl::InvalidArgument& e) {
    return e.what();
  }
  return "(loaded)";
}

/// A CHECK that `text` holds `part`, showing `text` when it does not.
void check_contains(const std::string& text, const std::string& part) {
  CHECK_MESSAGE(text.find(part) != std::string::npos, text);
}

}  // namespace

TEST_CASE("saved_model: loaded functions return bit-identical results") {
  Trained trained;
  Tensor x = inputs(1, 5), y = targets(inputs(2, 8));
  for (int i = 0; i < 3; ++i) trained.train_step(inputs(2, 8), y);
  Bytes bytes = trained.save();
  tl::saved_model::SavedModel model = tl::saved_model::from_bytes(bytes);
  CHECK(model.function_names() == std::vector<std::string>{"predict", "train_step"});
  CHECK(same_bits(model.function("predict")({x})[0], trained.predict(x)));
  CHECK(same_bits(model.function("predict")({inputs(3, 1)})[0], trained.predict(inputs(3, 1))));  // any batch
  CHECK(model.signatures()[0].str() == "predict(x: float32 (None, 4)) -> (float32 (None, 1))");
  CHECK(model.signatures()[1].str() == "train_step(x: float32 (8, 4), y: float32 (8, 1)) -> (float32 ())");
  // The variables: the model's 4 and Adam's (iterations, m and v of each), each restored once, by value.
  std::vector<Variable> originals = trained.model->variables();
  REQUIRE(model.variables().size() == originals.size() + 1 + 2 * originals.size());
  for (const Variable& original : originals) {
    bool found = false;
    for (const Variable& loaded : model.variables())
      found = found || (loaded.name() == original.name() && same_bits(loaded.value(), original.value()));
    CHECK_MESSAGE(found, original.name());
  }
  // A loaded model saves again: the same graphs, the same results.
  tl::saved_model::SavedModel again = tl::saved_model::from_bytes(
      tl::saved_model::to_bytes({{"predict", model.function("predict")}, {"train_step", model.function("train_step")}}));
  CHECK(same_bits(again.function("predict")({x})[0], trained.predict(x)));
  CHECK(again.function("predict").concrete_function().graph().str() == trained.predict.concrete_functions()[0]->graph().str());
}

TEST_CASE("saved_model: a loaded train step keeps training the restored variables, shared with predict") {
  Trained trained;
  tl::saved_model::SavedModel model = tl::saved_model::from_bytes(trained.save());
  Tensor x = inputs(4, 8), y = targets(x), probe = inputs(5, 3);
  std::vector<float> losses;
  for (int i = 0; i < 20; ++i) {
    Tensor original = trained.train_step(x, y);
    Tensor loaded = model.function("train_step")({x, y})[0];
    CHECK(same_bits(original, loaded));
    losses.push_back(loaded.item<float>());
  }
  CHECK(losses.back() < 0.5f * losses.front());
  // predict reads the variables train_step updated: they are the same variables.
  CHECK(same_bits(model.function("predict")({probe})[0], trained.predict(probe)));
  for (const Variable& original : trained.model->variables())
    for (const Variable& loaded : model.variables())
      if (loaded.name() == original.name()) CHECK(same_bits(loaded.value(), original.value()));
}

TEST_CASE("saved_model: a new function can train the loaded variables and be saved in turn") {
  Trained trained;
  tl::saved_model::SavedModel model = tl::saved_model::from_bytes(trained.save());
  tl::saved_model::LoadedFunction predict = model.function("predict");
  std::vector<Variable> trainable;
  for (const Variable& v : model.variables())
    if (v.name().find("dense") == 0) trainable.push_back(v);
  REQUIRE(trainable.size() == 4);
  tl::optimizers::SGD sgd(0.1);
  auto fine_tune = tl::function([&](const Tensor& x, const Tensor& y) {
    tl::GradientTape tape;
    Tensor loss = tl::reduce_mean(tl::square(predict({x})[0] - y));
    sgd.apply_gradients(tape.gradient(loss, trainable), trainable);
    return loss;
  });
  Tensor x = inputs(6, 8), y = targets(x);
  float first = fine_tune(x, y).item<float>();
  for (int i = 0; i < 10; ++i) fine_tune(x, y);
  CHECK(fine_tune(x, y).item<float>() < first);
  tl::saved_model::SavedModel second = tl::saved_model::from_bytes(
      tl::saved_model::to_bytes({{"predict", predict}, {"fine_tune", fine_tune}}));
  CHECK(same_bits(second.function("fine_tune")({x, y})[0], fine_tune(x, y)));
  CHECK(same_bits(second.function("predict")({x})[0], predict({x})[0]));
}

TEST_CASE("saved_model: a loaded function checks each call against its saved signature") {
  Trained trained;
  tl::saved_model::SavedModel model = tl::saved_model::from_bytes(trained.save());
  const tl::saved_model::LoadedFunction& predict = model.function("predict");
  CHECK_THROWS_WITH_AS(predict({tl::zeros({2, 5})}),
                       "saved_model: function 'predict': argument 'x' expects float32 (None, 4), got float32 (2, 5)",
                       tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(predict({tl::zeros({2, 4}, tl::int32)}),
                       doctest::Contains("argument 'x' expects float32 (None, 4), got int32 (2, 4)"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(predict({tl::zeros({4})}), doctest::Contains("got float32 (4,)"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(predict({}), "saved_model: function 'predict' takes 1 argument(s), got 0: "
                                    "predict(x: float32 (None, 4)) -> (float32 (None, 1))", tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(predict({Tensor()}), doctest::Contains("argument 'x' is an empty Tensor handle"), tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(model.function("fit"),
                       "saved_model: no function named 'fit' (the model has 'predict', 'train_step')", tl::InvalidArgument);
  CHECK(predict({tl::zeros({2, 4})})[0].shape() == tl::Shape({2, 1}));  // still works
}

TEST_CASE("saved_model: save and load through a file") {
  Trained trained;
  const std::string path = "tracelab_test_saved_model.tlsm";
  tl::saved_model::save(path, {{"predict", trained.predict}});
  tl::saved_model::SavedModel model = tl::saved_model::load(path);
  CHECK(model.variables().size() == 4);  // predict captures no optimizer state
  Tensor x = inputs(7, 3);
  CHECK(same_bits(model.function("predict")({x})[0], trained.predict(x)));
  std::remove(path.c_str());
  CHECK_THROWS_WITH_AS(tl::saved_model::load(path), "saved_model: cannot read 'tracelab_test_saved_model.tlsm'",
                       tl::InvalidArgument);
}

TEST_CASE("saved_model: what cannot be saved is a clear error") {
  Trained trained;
  CHECK_THROWS_WITH_AS(tl::saved_model::to_bytes({{"f", trained.predict}, {"f", trained.train_step}}),
                       "saved_model: two functions are named 'f'", tl::InvalidArgument);
  CHECK_THROWS_WITH_AS(tl::saved_model::to_bytes({{"", trained.predict}}), "saved_model: a function needs a name",
                       tl::InvalidArgument);
  auto untraced = tl::function([](const Tensor& x) { return x * 2; });
  CHECK_THROWS_WITH_AS(tl::saved_model::to_bytes({{"double", untraced}}),
                       doctest::Contains("'double' has 0 concrete functions; save one"), tl::InvalidArgument);
  untraced(tl::ones({2}));
  untraced(tl::ones({3}));
  CHECK_THROWS_WITH_AS(tl::saved_model::to_bytes({{"double", untraced}}),
                       doctest::Contains("'double' has 2 concrete functions"), tl::InvalidArgument);
  // An AnyFunction with an input signature is traced for it (as JavaScript's tl.function is).
  tl::AnyFunction scale([](std::span<const tl::AnyArg> args) { return std::vector<Tensor>{args[0].tensor() * 3.f}; },
                        {.input_signature = {TensorSpec({-1}, tl::float32, "v")}, .name = "scale"});
  tl::saved_model::SavedModel scaled = tl::saved_model::from_bytes(tl::saved_model::to_bytes({{"scale", scale}}));
  CHECK(scale.tracing_count() == 1);
  CHECK(scaled.signatures()[0].str() == "scale(v: float32 (None,)) -> (float32 (None,))");
  CHECK(scaled.function("scale")({tl::constant({1.f, 2.f})})[0].to_vector<float>() == std::vector<float>{3, 6});
  CHECK(tl::saved_model::from_bytes(tl::saved_model::to_bytes({{"double", *untraced.concrete_functions()[1]}}))
            .function("double")({tl::ones({3})})[0]
            .to_vector<float>() == std::vector<float>{2, 2, 2});
}

TEST_CASE("saved_model: corrupt, truncated and mismatched files are clear errors") {
  Trained trained;
  const Bytes good = trained.save();
  CHECK(load_error(Bytes(good.begin(), good.begin() + 100)) == "saved_model: the header is cut off (the file is truncated)");
  CHECK(load_error(Bytes(64, 0x42)) == "saved_model: not a tracelab saved model (bad magic or shorter than 20 bytes)");
  Bytes flipped = good;
  flipped[40] ^= 0x04;
  CHECK(load_error(flipped) == "saved_model: the header fails its checksum (the file is corrupt)");
  flipped = good;
  flipped[flipped.size() - 3] ^= 0x10;
  check_contains(load_error(flipped), "saved_model: the variable values: checkpoint: '");
  check_contains(load_error(flipped), "fails its checksum (the file is corrupt)");
  check_contains(load_error(Bytes(good.begin(), good.end() - 10)), "lies past the end of the data (the file is truncated)");
  CHECK(load_error(with_header(good, [](auto& h) { h["version"] = 2; })) ==
        "saved_model: unsupported version 2 (this build reads version 1)");
  CHECK(load_error(with_header(good, [](auto& h) { h["format"] = "tracelab.checkpoint"; })) ==
        "saved_model: the header's format is not 'tracelab.saved_model' (not a saved model)");
  CHECK(load_error(with_header(good, [](auto& h) { h["functions"][0]["inputs"][0]["shape"] = {-1, 5}; })) ==
        "saved_model: function 'predict': the header declares input 0 'x' as float32 (None, 5), the graph takes "
        "float32 (None, 4)");
  CHECK(load_error(with_header(good, [](auto& h) { h["functions"][0]["outputs"] = nlohmann::json::array(); })) ==
        "saved_model: function 'predict': the header declares 0 output(s), the graph returns 1");
  check_contains(load_error(with_header(good, [](auto& h) { h["variables"][0]["shape"] = {4, 7}; })),
        "saved_model: the variable values: checkpoint: '0/");
  check_contains(load_error(with_header(good, [](auto& h) { h["variables"][0]["shape"] = {1 << 30, 1 << 30}; })),
        "more than the file's");
  check_contains(load_error(with_header(good, [](auto& h) { h["variables"][0]["id"] = 123456789; })),
        "saved_model: function 'predict': graph JSON: node ");
  check_contains(load_error(with_header(good, [](auto& h) { h["variables"][0]["id"] = 123456789; })),
        "is not one of the given variables");
  CHECK(load_error(with_header(good, [](auto& h) { h["functions"][1]["name"] = "predict"; })) ==
        "saved_model: two functions are named 'predict'");
  CHECK(load_error(with_header(good, [](auto& h) { h["functions"][0]["graph"] = "{}"; })) ==
        "saved_model: function 'predict': graph JSON: missing key 'format'");
  CHECK(load_error(with_header(good, [](auto& h) { h.erase("variables"); })) == "saved_model: the header has no 'variables'");
  CHECK(load_error(with_header_text(good, R"({"format": "tracelab.saved_model", )")) ==
        "saved_model: the header is not valid JSON (the file is corrupt)");
  // Nested deep enough to exhaust the stack in nlohmann's recursive code, were it parsed whole.
  CHECK(load_error(with_header_text(good, std::string(100000, '[') + std::string(100000, ']'))) ==
        "saved_model: the header nests deeper than 16 levels (the file is corrupt)");
}

TEST_CASE("saved_model: every truncation and many byte flips are clear errors, never a crash") {
  Trained trained;
  const Bytes good = tl::saved_model::to_bytes({{"predict", trained.predict}});
  std::size_t step = std::max<std::size_t>(1, good.size() / 400);
  for (std::size_t length = 0; length < good.size(); length += step)
    CHECK_THROWS_AS(tl::saved_model::from_bytes(std::span(good.data(), length)), tl::InvalidArgument);
  tl::Generator random(9);
  Tensor picks = random.uniform({300}, 0, static_cast<double>(good.size()));
  for (float pick : picks.to_vector<float>()) {
    Bytes bad = good;
    bad[static_cast<std::size_t>(pick)] ^= 0x20;
    CHECK_THROWS_AS(tl::saved_model::from_bytes(bad), tl::InvalidArgument);
  }
}

}  // namespace saved_model_test
