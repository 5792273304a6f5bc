// The third oracle of every op: eager == traced with static shapes == traced with every dim unknown, found by
// walking the registry's samples through tl::function (tracer, optimizer passes and executor all involved).
#include <doctest/doctest.h>

#include <array>
#include <utility>

#include "op_samples.h"

namespace traced_ops_test {

namespace {

using tl::Tensor;

std::vector<Tensor> run_eager(const tl::OpDef& op, const tl::testing::OpSample& sample) {
  std::vector<Tensor> out(tl::testing::num_outputs(op, sample));
  tl::execute(op, sample.inputs, sample.attrs, out, sample.subgraphs, sample.variables);
  return out;
}

/// The sample traced with a tl::function of as many tensor arguments as the op has inputs.
template <std::size_t... I>
std::vector<Tensor> run_traced(const tl::OpDef& op, const tl::testing::OpSample& sample, bool unknown_dims,
                               std::index_sequence<I...>) {
  tl::InputSignature signature;
  if (unknown_dims) {
    std::vector<tl::TensorSpec> specs;
    for (const Tensor& t : sample.inputs) specs.emplace_back(tl::Shape(std::vector<std::int64_t>(t.shape().dims().size(), -1)), t.dtype());
    signature = tl::InputSignature(specs);
  }
  auto f = tl::function(
      [&](const auto&... xs) {
        std::vector<Tensor> in{xs...};
        std::vector<Tensor> out(tl::testing::num_outputs(op, sample));
        tl::execute(op, in, sample.attrs, out, sample.subgraphs, sample.variables);
        return out;
      },
      {.input_signature = signature, .name = op.name()});
  return f(sample.inputs[I]...);
}

std::vector<Tensor> run_traced(const tl::OpDef& op, const tl::testing::OpSample& sample, bool unknown_dims) {
  switch (sample.inputs.size()) {
    case 0: return run_traced(op, sample, unknown_dims, std::make_index_sequence<0>());
    case 1: return run_traced(op, sample, unknown_dims, std::make_index_sequence<1>());
    case 2: return run_traced(op, sample, unknown_dims, std::make_index_sequence<2>());
    case 3: return run_traced(op, sample, unknown_dims, std::make_index_sequence<3>());
    case 4: return run_traced(op, sample, unknown_dims, std::make_index_sequence<4>());
    case 5: return run_traced(op, sample, unknown_dims, std::make_index_sequence<5>());
    case 6: return run_traced(op, sample, unknown_dims, std::make_index_sequence<6>());  // adam_update
    default: FAIL("no traced runner for ", sample.inputs.size(), " inputs"); return {};
  }
}

void check_same(const std::vector<Tensor>& expected, const std::vector<Tensor>& got) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    CAPTURE(k);
    CHECK(got[k].meta() == expected[k].meta());
    CHECK(got[k].to_vector<double>() == expected[k].to_vector<double>());  // the same kernels: bit-identical
  }
}

}  // namespace

TEST_CASE("function/registry walk: every op gives the same result eagerly, traced, and traced with unknown dims") {
  const auto& needs_known = tl::testing::samples_needing_known_dims();
  int static_runs = 0, unknown_runs = 0;
  std::size_t listed_rejections = 0;
  tl::ScopedLogCapture quiet;  // the print op's samples
  for (const auto& entry : tl::testing::op_samples()) {  // no structured bindings: clang 14 cannot capture them
    const std::string& name = entry.first;
    const auto& calls = entry.second;
    const tl::OpDef& op = tl::OpRegistry::global().get(name);
    for (std::size_t i = 0; i < calls.size(); ++i) {
      CAPTURE(name);
      CAPTURE(i);
      std::vector<Tensor> eager = run_eager(op, calls[i]);
      check_same(eager, run_traced(op, calls[i], false));
      ++static_runs;
      std::vector<Tensor> unknown;
      try {
        unknown = run_traced(op, calls[i], true);
      } catch (const tl::Error& e) {
        const bool as_listed = tl::testing::rejected_as_listed(name, i, e.what());
        CHECK_MESSAGE(as_listed, "rejected, not as samples_needing_known_dims (op_samples.h) lists: ",
                      std::string(e.what()));
        listed_rejections += as_listed ? 1 : 0;
        continue;
      }
      CHECK_MESSAGE(!tl::testing::needs_known_dims(name, i),
                    "listed in samples_needing_known_dims, yet traced with every dim unknown");
      check_same(eager, unknown);
      ++unknown_runs;
    }
  }
  MESSAGE("traced ", static_runs, " samples with static shapes, ", unknown_runs, " with unknown dims (",
          listed_rejections, " rejected by a shape rule, as listed)");
  CHECK(listed_rejections == needs_known.size());  // every listed sample exists and was rejected
}

}  // namespace traced_ops_test
