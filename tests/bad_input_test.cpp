// Bad input, one table: every row makes one bad call, expects a typed tl::Error whose message contains a
// substring, and then checks the engine still works (a small op gives the right answer).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <typeinfo>
#include <vector>

#include "tracelab/tracelab.h"

namespace {

struct Row {
  const char* area;
  const char* what;
  std::function<void()> call;
  const char* kind;  // tl::Error::kind() of the expected error
  const char* message;
};

bool engine_works() {
  auto y = tl::constant({1.f, 2.f, 3.f}) * 2 + tl::constant({0.5f});
  return y.to_vector<float>() == std::vector<float>{2.5f, 4.5f, 6.5f};
}

}  // namespace

TEST_CASE("bad input: each row throws the documented error and leaves the engine usable") {
  auto x = tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2});
  auto i = tl::constant({1, 2, 3});
  tl::Variable w(tl::constant({1.f, 2.f}), "w");
  tl::Variable frozen(tl::constant({5.f}), "frozen");
  const std::vector<float> w_before = w.read().to_vector<float>();
  tl::Checkpoint ckpt({{"m", {w}}});
  const std::vector<std::uint8_t> good = ckpt.to_bytes();
  tl::Variable w3(tl::constant({1.f, 2.f, 3.f}), "w");
  tl::Checkpoint wrong_shape({{"m", {w3}}});
  auto sig2 = tl::function([](const tl::Tensor& a) { return a; },
                           {.input_signature = {tl::TensorSpec({-1}), tl::TensorSpec({-1})}, .name = "sig2"});
  auto sig_vec = tl::function([](const tl::Tensor& a) { return a * 2.f; },
                              {.input_signature = {tl::TensorSpec({-1})}, .name = "sig_vec"});
  auto branchy = tl::function([](const tl::Tensor& a) { return static_cast<bool>(tl::greater(a, 0.f)) ? a : -a; },
                              {.name = "branchy"});
  std::vector<tl::Variable> created;
  auto make_var = tl::function([&](const tl::Tensor& a) {
        tl::Variable v(tl::ones(a.shape()), "v");
        created.push_back(v);
        return a * v;
      }, {.name = "make_var"});
  make_var(tl::constant({2.f}));
  auto cond_dtypes = tl::function([](const tl::Tensor& a) {
        return tl::cond(tl::greater(tl::reduce_sum(a), 0.f), [&] { return a; }, [&] { return tl::cast(a, tl::int32); });
      }, {.name = "cond_dtypes"});
  auto cond_shapes = tl::function([](const tl::Tensor& a) {
        return tl::cond(tl::greater(tl::reduce_sum(a), 0.f), [&] { return a; }, [&] { return tl::concat({a, a}, 0); });
      }, {.name = "cond_shapes"});
  // A generator that fails on its third element (every pass: a fresh generator per pass).
  tl::data::Dataset flaky = tl::data::Dataset::from_generator(
      [] {
        return tl::data::GeneratorFn([n = 0]() mutable -> std::optional<tl::data::Element> {
          if (++n == 3) throw tl::InvalidArgument("sensor: read failed at element 2");
          return tl::data::Element{tl::scalar(static_cast<float>(n))};
        });
      },
      {tl::TensorSpec(tl::Shape{})});
  int flaky_seen = 0;
  std::vector<Row> rows = {
      {"ops", "add shapes that do not broadcast", [&] { tl::add(tl::zeros({2, 3}), tl::zeros({4})); }, "ShapeError", "add: shapes (2, 3) and (4,)"},
      {"ops", "matmul inner dims", [&] { tl::matmul(tl::zeros({2, 3}), tl::zeros({4, 5})); }, "ShapeError", "matmul: inner dimensions must agree, got (2, 3) and (4, 5)"},
      {"ops", "matmul rank 1", [&] { tl::matmul(tl::zeros({3}), tl::zeros({3})); }, "ShapeError", "matmul: input 0 must have rank >= 2"},
      {"ops", "add f32 + i32", [&] { tl::add(tl::zeros({3}), i); }, "DTypeError", "add: inputs must have the same dtype, got float32 and int32"},
      {"ops", "exp of int", [&] { tl::exp(i); }, "DTypeError", "exp: input 0 must be float32, got int32"},
      {"ops", "reshape size", [&] { tl::reshape(x, {3}); }, "ShapeError", "reshape: cannot reshape a tensor of shape (2, 2) (4 elements) into shape [3]"},
      {"ops", "reshape two -1", [&] { tl::reshape(x, {-1, -1}); }, "InvalidArgument", "reshape: only one size may be -1"},
      {"ops", "reduce_sum bad axis", [&] { tl::reduce_sum(x, {5}); }, "InvalidArgument", "reduce_sum: axis 5 is out of range for rank 2"},
      {"ops", "transpose bad perm", [&] { tl::transpose(x, {0, 0}); }, "InvalidArgument", "transpose: perm [0, 0] is not a permutation"},
      {"ops", "concat rank mismatch", [&] { tl::concat({x, tl::zeros({2})}, 0); }, "ShapeError", "concat: value 1 f32[2] does not match value 0 f32[2,2]"},
      {"ops", "gather out of range", [&] { tl::gather(x, tl::constant({0, 7})); }, "InvalidArgument", "gather: indices[1] = 7 is not in [0, 2)"},
      {"ops", "gather float indices", [&] { tl::gather(x, tl::constant({0.f})); }, "DTypeError", "gather: input 1 must be int32, got float32"},
      {"ops", "conv2d rank", [&] { tl::conv2d(tl::zeros({3, 3, 1}), tl::zeros({2, 2, 1, 1})); }, "ShapeError", "conv2d: input 0 must have rank 4, got shape (3, 3, 1)"},
      {"ops", "conv2d channels", [&] { tl::conv2d(tl::zeros({1, 3, 3, 2}), tl::zeros({2, 2, 1, 1})); }, "ShapeError", "conv2d: input channels must equal the filters' in_channels"},
      {"ops", "broadcast_to incompatible", [&] { tl::broadcast_to(tl::zeros({2}), {3}); }, "ShapeError", "broadcast_to: cannot broadcast f32[2]"},
      {"ops", "broadcast_to negative", [&] { tl::broadcast_to(tl::zeros({1}), {-1}); }, "InvalidArgument", "sizes must be non-negative"},
      {"ops", "range int32 with fraction", [&] { tl::range(0.5, 3, 1, tl::int32); }, "InvalidArgument", "range: int32"},
      {"ops", "segment id out of range", [&] { tl::unsorted_segment_sum(tl::zeros({3}), tl::constant({0, 5, 1}), 4); }, "InvalidArgument", "unsorted_segment_sum: segment_ids[1] = 5 is not in [0, 4)"},
      {"ops", "unknown op", [&] { tl::execute("nope", {x}); }, "InvalidArgument", "unknown op 'nope'"},
      {"ops", "wrong input count", [&] { tl::execute("add", {x}); }, "InvalidArgument", "add: expected 2 inputs, got 1"},
      {"ops", "unknown attribute", [&] { tl::execute("add", {x, x}, {{"axis", 1}}); }, "InvalidArgument", "add: unknown attribute 'axis'"},
      {"ops", "empty handle", [&] { tl::add(tl::Tensor(), x); }, "InvalidArgument", "add: input 0 is an empty Tensor handle"},
      {"ops", "item of non-scalar", [&] { (void)x.item<float>(); }, "InvalidArgument", "item: expected a concrete tensor with exactly one element, got (2, 2)"},
      {"ops", "data<int> of f32", [&] { (void)x.data<int>(); }, "DTypeError", "data: tensor has dtype float32, requested int32"},
      {"memory", "absurd zeros", [&] { tl::zeros({1 << 20, 1 << 20}); }, "OutOfMemory", "(1048576, 1048576)"},
      {"memory", "overflowing size", [&] { tl::zeros({1LL << 62, 16}); }, "OutOfMemory", "has too many elements to count"},
      {"memory", "broadcast to huge", [&] { tl::add(tl::zeros({1 << 20, 1}), tl::zeros({1, 1 << 20})); }, "OutOfMemory", "float32 tensor of shape (1048576, 1048576)"},
      {"control flow", "cond predicate not scalar", [&] { tl::cond(tl::ones({2}), [] { return tl::scalar(1.f); }, [] { return tl::scalar(2.f); }); }, "InvalidArgument", "cond: the predicate must be a bool scalar, got f32[2]"},
      {"control flow", "while_loop body changes dtype", [&] {
         tl::while_loop([](const std::vector<tl::Tensor>& v) { return tl::less(v[0], tl::scalar(3.f)); },
                        [](const std::vector<tl::Tensor>& v) { return std::vector<tl::Tensor>{tl::cast(v[0], tl::int32)}; },
                        {tl::scalar(0.f)}); }, "DTypeError", "while_loop: loop variable 0 enters as f32[] but the body returns i32[]"},
      {"datasets", "range step 0", [&] { tl::data::Dataset::range(0, 5, 0); }, "InvalidArgument", "range: step must be non-zero"},
      {"datasets", "slices of a scalar", [&] { tl::data::Dataset::from_tensor_slices({tl::scalar(1.f)}); }, "ShapeError", "is a scalar f32[]"},
      {"autodiff", "gradient wrt an unwatched tensor", [&] {
         auto a = tl::constant({1.f}); auto stranger = tl::constant({2.f});
         tl::GradientTape tape; tape.watch(a); auto y = a * a; tape.gradient(y, stranger); }, "InvalidArgument", "is not watched"},
      {"autodiff", "second gradient on a non-persistent tape", [&] {
         auto a = tl::constant({1.f}); tl::GradientTape tape; tape.watch(a); auto y = a * a;
         tape.gradient(y, a); tape.gradient(y, a); }, "InvalidArgument", "non-persistent tape computes one gradient"},
      {"autodiff", "watch an int tensor", [&] { tl::GradientTape tape; tape.watch(i); }, "DTypeError", "only float32 tensors carry gradients"},
      {"autodiff", "int target", [&] {
         auto a = tl::constant({1.f}); tl::GradientTape tape; tape.watch(a); auto y = a * a;
         tape.gradient(tl::cast(y, tl::int32), a); }, "DTypeError", "target must be float32"},
      {"autodiff", "empty target", [&] { auto a = tl::constant({1.f}); tl::GradientTape tape; tape.watch(a); tape.gradient(tl::Tensor(), a); }, "InvalidArgument", "the target is an empty Tensor handle"},
      {"variables", "assign wrong shape", [&] { w.assign(tl::zeros({3})); }, "ShapeError", "assign: variable 'w' has shape (2,), got (3,)"},
      {"variables", "assign wrong dtype", [&] { w.assign(tl::zeros({2}, tl::int32)); }, "DTypeError", "assign: variable 'w' has dtype"},
      {"variables", "assign_add wrong shape", [&] { w.assign_add(tl::zeros({2, 2})); }, "ShapeError", "assign_add: variable 'w' has shape (2,)"},
      {"tracing", "wrong argument count for the signature", [&] { sig2(tl::ones({2})); }, "InvalidArgument", "sig2: the input signature has 2 argument(s), the call passes 1"},
      {"tracing", "argument does not match the signature (rank)", [&] { sig_vec(tl::ones({2, 2})); }, "InvalidArgument", "sig_vec: argument 0 (arg0) does not match the input signature: expected rank 1"},
      {"tracing", "argument does not match the signature (dtype)", [&] { sig_vec(i); }, "InvalidArgument", "does not match the input signature: expected dtype float32, got int32"},
      {"tracing", "empty handle as argument", [&] { sig_vec(tl::Tensor()); }, "InvalidArgument", "tl::function: argument 0 is an empty Tensor handle"},
      {"tracing", "bool of a symbolic tensor", [&] { branchy(tl::scalar(1.f)); }, "OperatorNotAllowedInGraphError", "use tl::cond(pred, true_fn, false_fn)"},
      {"tracing", "variable created on retrace", [&] { make_var(tl::constant({1.f, 2.f})); }, "InvalidArgument", "make_var: a Variable ('v') was created while retracing"},
      {"control flow", "traced cond branches of different dtypes", [&] { cond_dtypes(tl::ones({2})); }, "DTypeError", "cond: output 0 of the true and false branch: dtypes differ, f32[2] vs i32[2]"},
      {"control flow", "traced cond branches of different shapes", [&] { cond_shapes(tl::ones({2})); }, "ShapeError", "cond: output 0 of the true and false branch: shapes are incompatible"},
      {"datasets", "generator throws mid-epoch", [&] {
         tl::data::for_each(flaky, [&](const tl::data::Element&) { ++flaky_seen; }); }, "InvalidArgument", "sensor: read failed at element 2"},
      {"datasets", "generator dataset restarts after the failure", [&] {
         CHECK(flaky_seen == 2);
         flaky_seen = 0;
         tl::data::for_each(flaky, [&](const tl::data::Element&) { ++flaky_seen; }); }, "InvalidArgument", "sensor: read failed"},
      {"datasets", "infinite dataset in for_each", [&] {
         tl::data::for_each(tl::data::Dataset::range(3).repeat(), [](const tl::data::Element&) {}); }, "InvalidArgument", "and for_each has no break"},
      {"checkpoints", "truncated bytes", [&] {
         ckpt.from_bytes(std::span<const std::uint8_t>(good.data(), good.size() / 2)); }, "InvalidArgument", "checkpoint: the index is cut off (the file is truncated)"},
      {"checkpoints", "corrupted CRC", [&] { auto bad = good; bad[bad.size() - 3] ^= 0x10; ckpt.from_bytes(bad); }, "InvalidArgument", "fails its checksum"},
      {"checkpoints", "not a checkpoint", [&] { std::vector<std::uint8_t> junk(64, 0x42); ckpt.from_bytes(junk); }, "InvalidArgument", "not a tracelab checkpoint"},
      {"checkpoints", "wrong variable shape", [&] { ckpt.from_bytes(wrong_shape.to_bytes()); }, "InvalidArgument", "'m/w' has shape (3,) in the file, the variable (2,)"},
      {"numerics", "NaN and Inf in training data", [&] {
         auto features = tl::constant({1.f, NAN, 3.f, INFINITY, NAN, 6.f}, {3, 2});
         tl::check_numerics(features, "training batch 7"); }, "InvalidArgument",
       "check_numerics: training batch 7: found 2 NaN and 1 Inf values in f32[3,2] (first at flat index 1)"},
      {"numerics", "NaN loss inside a traced step", [&] {
         auto step = tl::function([](const tl::Tensor& a) { return tl::check_numerics(tl::log(a), "loss"); }, {.name = "step"});
         step(tl::constant({-1.f})); }, "InvalidArgument", "check_numerics: loss: found 1 NaN and 0 Inf values in f32[1]"},
      {"numerics", "check_numerics of an int tensor", [&] { tl::check_numerics(i, "ids"); }, "DTypeError", "check_numerics: input 0 must be float32"},
  };

  for (const Row& row : rows) {
    const std::string where = std::string(row.area) + ": " + row.what;
    CAPTURE(where);
    bool threw = false;
    try {
      row.call();
    } catch (const tl::Error& e) {
      threw = true;
      CHECK_MESSAGE(std::string(e.kind()) == row.kind, std::string(e.what()));
      CHECK_MESSAGE(std::string(e.what()).find(row.message) != std::string::npos, std::string(e.what()));
    }
    CHECK(threw);
    CHECK(engine_works());
    CHECK(w.read().to_vector<float>() == w_before);  // no failed call (checkpoint restores included) touched it
  }
  CHECK(rows.size() >= 40);
  CHECK(flaky_seen == 2);
  CHECK(created.size() == 1);
  auto clean = tl::constant({1.f, 2.f});
  CHECK(tl::check_numerics(clean, "clean").to_vector<float>() == std::vector<float>{1.f, 2.f});
}
