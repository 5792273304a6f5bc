// Regression tests for what the fuzz targets (tests/fuzz, docs/reliability.md "Fuzzing") found: each bug
// reproduced through the normal API. The input that found it is kept in tests/fuzz/corpus/<target>/regress.*.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/checkpoint_format.h"
#include "tracelab/tracelab.h"

namespace fuzz_regression_test {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using tl::fuzz::checkpoint_bytes;

}  // namespace

// fuzz_trace_key, corpus/trace_key/values: a NaN double in a key was not equal to itself (std::variant's ==
// compares with double's ==), so a tl::function called with a NaN argument missed its cache and traced again
// on every call, growing the cache without bound.
TEST_CASE("fuzz/trace_key: a NaN argument is one trace key, traced once") {
  auto scale = tl::function([](const tl::Tensor& x, double s) { return x * static_cast<float>(s); },
                            {.name = "scale"});
  for (int i = 0; i < 3; ++i) scale(tl::ones({2}), kNaN);
  CHECK(scale.tracing_count() == 1);
  tl::TraceKey key({kNaN, tl::TensorSpec({2})});
  CHECK(key == key);
  CHECK(key.accepts(key));
  CHECK(tl::TraceKey({kNaN}).hash() == tl::TraceKey({-kNaN}).hash());  // every NaN is the same key
  CHECK(tl::TraceKey({kNaN}) != tl::TraceKey({0.0}));
  CHECK(tl::TraceKey({0.0}) == tl::TraceKey({-0.0}));  // as in Python: 0.0 == -0.0
  CHECK(tl::TraceKey({0.0}).hash() == tl::TraceKey({-0.0}).hash());
}

// fuzz_trace_key, corpus/trace_key/regress.real_digits: reals printed with 6 digits, so two different values
// printed alike and a retrace reason said "value changed 0.1 -> 0.1".
TEST_CASE("fuzz/trace_key: different reals print differently in keys and retrace reasons") {
  const double next = std::nextafter(0.1, 1.0);
  CHECK(tl::arg_key_str(0.1) == "0.1");
  CHECK(tl::arg_key_str(next) == "0.10000000000000002");
  CHECK(tl::arg_key_str(0.5) == "0.5");
  CHECK(tl::arg_key_str(1e-7) == "1e-07");
  CHECK(tl::arg_key_str(2.0) == "2");
  CHECK(tl::arg_key_str(std::nextafter(5.13528e-299, 1.0)) != tl::arg_key_str(5.13528e-299));
  auto scale = tl::function([](const tl::Tensor& x, double s) { return x * static_cast<float>(s); },
                            {.name = "scale", .call_history = 2});
  scale(tl::ones({2}), 0.1);
  scale(tl::ones({2}), next);
  REQUIRE(scale.tracing_count() == 2);
  CHECK(scale.calls()[1].reason.find("value changed 0.1 -> 0.10000000000000002") != std::string::npos);
}

// fuzz_graph_json, corpus/graph_json/regress.number_overflow.json: a JSON number beyond double (3.4e+310) made
// nlohmann throw json::out_of_range, which from_json let escape instead of a tl::InvalidArgument.
TEST_CASE("fuzz/graph_json: a number too large for a double is an InvalidArgument") {
  const std::string constant = R"({"format": "tracelab.graph", "version": 1, "nodes": [
      {"kind": "const", "dtype": "float32", "shape": [1], "values": [3.4e+310]}], "outputs": [[0, 0]]})";
  CHECK_THROWS_WITH_AS(tl::graph::Graph::from_json(constant), "graph JSON: number overflow parsing '3.4e+310'",
                       tl::InvalidArgument);
  const std::string attribute = R"({"format": "tracelab.graph", "version": 1, "nodes": [
      {"kind": "input", "dtype": "float32", "shape": [2]},
      {"kind": "op", "op": "pad", "inputs": [[0, 0]], "attrs": {"paddings": {"ints": [1, 1]},
       "constant_value": {"float": -1e999}}, "outputs": [{"dtype": "float32", "shape": [4]}]}], "outputs": [[1, 0]]})";
  CHECK_THROWS_WITH_AS(tl::graph::Graph::from_json(attribute), "graph JSON: number overflow parsing '-1e999'",
                       tl::InvalidArgument);
}

// fuzz_checkpoint, corpus/checkpoint/regress.bool_byte: a bool tensor's bytes were copied in as they were, so a
// (correctly checksummed) file could restore a bool holding byte 2 — an invalid bool, undefined behaviour on
// the first read (UBSan: "load of value 2, which is not a valid value for type 'bool'").
TEST_CASE("fuzz/checkpoint: a bool stored as a byte other than 0 or 1 is rejected, the variable untouched") {
  tl::Variable mask(tl::constant({true, false, true}, {3}), "mask");
  tl::Checkpoint ckpt({{"model", {mask}}});
  std::vector<std::uint8_t> saved = ckpt.to_bytes();
  std::uint64_t length = 0;
  for (int i = 0; i < 8; ++i) length |= std::uint64_t{saved[8 + static_cast<std::size_t>(i)]} << (8 * i);
  std::string index(saved.begin() + 20, saved.begin() + 20 + static_cast<std::ptrdiff_t>(length));
  std::vector<std::uint8_t> data(saved.begin() + 20 + static_cast<std::ptrdiff_t>(length), saved.end());
  REQUIRE(data == std::vector<std::uint8_t>{1, 0, 1});
  const std::string old_crc = "\"crc32\":" + std::to_string(tl::detail::checkpoint_crc32(data));
  data[1] = 2;
  const std::string new_crc = "\"crc32\":" + std::to_string(tl::detail::checkpoint_crc32(data));
  REQUIRE(index.find(old_crc) != std::string::npos);
  index.replace(index.find(old_crc), old_crc.size(), new_crc);
  CHECK_THROWS_WITH_AS(ckpt.from_bytes(checkpoint_bytes(index, data)),
                       "checkpoint: 'model/mask' is bool but element 1 is stored as byte 2, not 0 or 1",
                       tl::InvalidArgument);
  CHECK(mask.value().to_vector<int>() == std::vector<int>{1, 0, 1});
}

// Found by a seed aimed at the weakness the graph reader already guards against (corpus/checkpoint/
// regress.deep_index is a shallow copy: the crashing input, 200000 levels, is 400 KB): a checkpoint index nested
// deeply overflowed the stack in nlohmann's recursive dump() while the error message was built.
TEST_CASE("fuzz/checkpoint: a deeply nested index is an error, not a stack overflow") {
  tl::Variable w(tl::ones({2}), "w");
  tl::Checkpoint ckpt({{"model", {w}}});
  const std::size_t depth = 200000;
  std::string index = R"({"format":"tracelab.checkpoint","version":)" + std::string(depth, '[') +
                      std::string(depth, ']') + "}";
  CHECK_THROWS_WITH_AS(ckpt.from_bytes(checkpoint_bytes(index, {})),
                       "checkpoint: the index nests deeper than 16 levels (the file is corrupt)", tl::InvalidArgument);
  index = R"({"format":"tracelab.checkpoint","version":1,"tensors":[{"key":"model/w","shape":[[[[[[[[[[[[[[[[2]]]]]]]]]]]]]]]]}]})";
  CHECK_THROWS_WITH_AS(ckpt.from_bytes(checkpoint_bytes(index, {})),
                       "checkpoint: the index nests deeper than 16 levels (the file is corrupt)", tl::InvalidArgument);
  CHECK(w.value().to_vector<float>() == std::vector<float>{1.f, 1.f});
}

// Found while looking into fuzz_op_call's peak RSS (1.26 GB; that turned out to be sanitizer overhead: replayed
// without ASan the corpus stays at 22 MB): fused_elementwise's per-thread scratch pool kept up to 64
// intermediates of any size, so a call with a large broadcast pinned its intermediates for the life of the thread
// (8 calls of [4096,1] + [1,4096] held 1 GB after their results were dropped; 4 MB with the fix).
TEST_CASE("fuzz/op_call: fused_elementwise reuses small intermediates but does not pin large ones") {
  auto body = std::make_shared<tl::graph::Graph>();   // neg(a + b)
  tl::graph::ValueRef a = body->add_input({tl::DType::float32, {-1, -1}}), b = body->add_input({tl::DType::float32, {-1, -1}});
  body->set_outputs({body->add_op("neg", {body->add_op("add", {a, b})[0]})[0]});
  const std::shared_ptr<const tl::graph::Graph> subgraphs[] = {body};
  auto call = [&](const tl::Tensor& x, const tl::Tensor& y) {
    tl::Tensor out, in[] = {x, y};
    tl::execute(tl::graph::fused_elementwise_op(), in, {}, std::span<tl::Tensor>(&out, 1), subgraphs);
  };
  auto allocations_of_second_call = [&](const tl::Tensor& x, const tl::Tensor& y) {
    call(x, y);
    const std::uint64_t before = tl::detail::buffer_allocations();
    call(x, y);
    return tl::detail::buffer_allocations() - before;
  };
  CHECK(allocations_of_second_call(tl::ones({3, 1}), tl::ones({1, 4})) == 1);  // the output; the sum is reused
  // A 2049 x 2049 float32 intermediate is 16.02 MiB, above the pool's 16 MiB per tensor: allocated per call.
  CHECK(allocations_of_second_call(tl::ones({2049, 1}), tl::ones({1, 2049})) == 2);
}

// Found by fuzz_op_call (its gradient check sums an op's output over every axis): a zero-size tensor whose other
// dims multiply past INT64_MAX overflowed the reduction's element count (signed overflow, UB) while it planned.
// Each output value of an empty input now reduces nothing, without a plan.
TEST_CASE("fuzz/op_call: reducing a zero-size tensor whose other dims are huge") {
  const std::int64_t huge = 8102256588036767743;
  tl::Tensor x = tl::zeros({76000000, huge, 0});
  CHECK(x.num_elements() == 0);
  CHECK(tl::reduce_sum(x, {}).to_vector<float>() == std::vector<float>{0.f});
  CHECK(tl::reduce_sum(x, {0, 1}).shape() == tl::Shape{0});  // nothing to write
  CHECK(std::isnan(tl::reduce_mean(x, {}).item<float>()));
  // Kept dims with values, reduced dims empty: the same identities as for a small empty input.
  tl::Tensor y = tl::zeros({huge, 3, 0});
  CHECK(tl::reduce_max(y, {0, 2}).to_vector<float>() == tl::reduce_max(tl::zeros({2, 3, 0}), {0, 2}).to_vector<float>());
  CHECK(tl::reduce_sum(y, {0, 2}).to_vector<float>() == std::vector<float>{0.f, 0.f, 0.f});
  CHECK_THROWS_WITH(tl::reduce_mean(tl::zeros({huge, 3, 0}, tl::int32), {0, 2}),
                    doctest::Contains("reduce_mean: the mean of zero int32 elements is undefined"));
}

// Found by fuzz_op_call (corpus/op_call/regress.matmul_empty_grad): for a batch a against one matrix b, matmul's
// gradient flattens a to (rows, k) and the upstream to (rows, n) with a -1 for the rows. Beside k = 0 a reshape's
// -1 is the count of the non-zero dims (TF's rule), so (0, 1, 0) x (0, 17) flattened a to (1, 0) but the upstream
// to (0, 17), and the gradient threw "inner dimensions must agree". A k or n of 0 now takes the general path.
TEST_CASE("fuzz/op_call: matmul's gradient of a zero-size batch against a matrix") {
  for (const auto& shapes : {std::pair{tl::Shape{0, 1, 0}, tl::Shape{0, 17}},
                             std::pair{tl::Shape{2, 3, 0}, tl::Shape{0, 4}},
                             std::pair{tl::Shape{0, 3, 2}, tl::Shape{2, 4}},
                             std::pair{tl::Shape{2, 0, 2}, tl::Shape{2, 4}},
                             std::pair{tl::Shape{2, 3, 2}, tl::Shape{2, 0}}}) {
    const tl::Shape& a_shape = shapes.first;  // no structured bindings: clang 14 cannot capture them
    const tl::Shape& b_shape = shapes.second;
    CAPTURE(a_shape.str());
    CAPTURE(b_shape.str());
    auto a = tl::ones(a_shape), b = tl::ones(b_shape);
    tl::GradientTape tape;
    tape.watch(a);
    tape.watch(b);
    auto grads = tape.gradient(tl::reduce_sum(tl::matmul(a, b)), std::vector<tl::Tensor>{a, b});
    REQUIRE(grads.size() == 2);
    CHECK(grads[0].shape() == a_shape);
    CHECK(grads[1].shape() == b_shape);
    // The upstream is ones: each element of da = g b^T sums n ones, each of db = a^T g sums a's rows' ones.
    const auto n = b_shape.dim(-1), rows = a_shape.dim(0) * a_shape.dim(1);
    auto filled = [](const tl::Shape& shape, std::int64_t value) {
      return std::vector<float>(static_cast<std::size_t>(shape.num_elements()), static_cast<float>(value));
    };
    CHECK(grads[0].to_vector<float>() == filled(a_shape, n));
    CHECK(grads[1].to_vector<float>() == filled(b_shape, rows));
  }
}

}  // namespace fuzz_regression_test
