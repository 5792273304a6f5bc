// The gradient walk: every differentiable registry op has a gradient rule, and the rule matches central
// differences on every sample call (op_samples.cpp). A new differentiable op without a rule or a sample
// fails here, natively and in WASM.
#include <doctest/doctest.h>

#include "grad_check.h"
#include "op_samples.h"

namespace gradient_test {

TEST_CASE("gradients: every differentiable op has a rule and passes the numeric check on all its samples") {
  const auto& samples = tl::testing::op_samples();
  int checked = 0;
  for (const tl::OpDef* op : tl::OpRegistry::global().all()) {
    CAPTURE(op->name());
    if (op->has(tl::trait::not_differentiable)) {
      CHECK_FALSE(op->has_gradient());
      continue;
    }
    REQUIRE(op->has_gradient());
    auto found = samples.find(op->name());
    REQUIRE(found != samples.end());
    for (std::size_t i = 0; i < found->second.size(); ++i) {
      CAPTURE(i);
      const auto& sample = found->second[i];
      CHECK(tl::testing::check_gradients(*op, sample.inputs, sample.attrs, {}, sample.subgraphs) == "");
      ++checked;
    }
  }
  CHECK(checked > 40);
}

TEST_CASE("gradients: the checker itself catches a wrong rule") {
  // A copy of "square" whose rule forgets the factor 2 must be reported.
  static tl::OpDef wrong("square_with_wrong_gradient");
  const tl::OpDef& square = tl::OpRegistry::global().get("square");
  wrong.inputs(1)
      .shape_fn([&square](tl::ShapeContext& ctx) { square.infer(ctx.inputs, ctx.attrs, ctx.outputs); })
      .kernel([&square](tl::KernelContext& ctx) { square.run(ctx.inputs, ctx.attrs, ctx.outputs); })
      .gradient([](const tl::GradContext& c, std::span<tl::Tensor> d) { d[0] = c.grad() * c.input(0); });
  auto report = tl::testing::check_gradients(wrong, {tl::constant({0.5f, -1.f, 2.f})}, {});
  CHECK(report.find("square_with_wrong_gradient: input 0") != std::string::npos);
}

}  // namespace gradient_test
