// The optimizer's fused ops (core/ops/fused_ops.cpp) against the unfused chains they replace — the chunked and
// the whole-tensor paths of fused_elementwise, every activation and transpose of fused_matmul — and their
// errors. Shape rules, eager runs and gradients are also covered by the registry walks (op_samples.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"

namespace tl {
namespace {

using testing::f32;

/// Same meta and every element within tol + tol * |expected|.
bool close(const Tensor& got, const Tensor& expected, float tol = 1e-5f) {
  if (!(got.meta() == expected.meta())) return false;
  auto a = got.to_vector<float>(), b = expected.to_vector<float>();
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::fabs(a[i] - b[i]) <= tol + tol * std::fabs(b[i]))) return false;
  return true;
}

}  // namespace

TEST_CASE("ops/fused_elementwise: the same values as the unfused chain, chunked and whole") {
  const OpDef& fused = OpRegistry::global().get("fused_elementwise");
  const Attrs program{{"program", std::string("mul %0 %1; add %r0 %2; sigmoid %r1; sub %r2 %0")}};
  auto unfused = [](const Tensor& a, const Tensor& b, const Tensor& c) { return sigmoid(a * b + c) - a; };
  Generator gen(21);
  SUBCASE("chunks: every input has the output's shape or one element") {
    for (std::int64_t n : {4096 * 3 + 5, 4096 * 2, 4097}) {
      CAPTURE(n);
      Tensor a = gen.uniform({n}), b = gen.uniform({1, 1}), c = gen.uniform({n});
      Tensor got = execute(fused, {a, b, c}, program);
      CHECK(close(got, unfused(a, b, c)));
    }
    Tensor a = gen.uniform({3, 2000}), b = gen.uniform({3, 2000}), c = scalar(0.25f);
    CHECK(close(execute(fused, {a, b, c}, program), unfused(a, b, c)));
  }
  SUBCASE("whole tensors: broadcasting operands, small outputs") {
    Tensor a = gen.uniform({50, 100}), b = gen.uniform({100}), c = gen.uniform({50, 1});
    CHECK(close(execute(fused, {a, b, c}, program), unfused(a, b, c)));
    Tensor s = gen.uniform({3});
    CHECK(close(execute(fused, {s, s, s}, program), unfused(s, s, s)));
  }
  SUBCASE("the shape rule replays the members' rules on unknown dims") {
    CHECK(testing::infer("fused_elementwise", {f32({-1, 3}), f32({3}), f32({-1, 1})}, program) == f32({-1, 3}));
  }
}

TEST_CASE("ops/fused_elementwise and fused_matmul: malformed calls are clear, typed errors") {
  struct Case {
    const char* op;
    const char* program;  // or the activation, for fused_matmul
    std::vector<TensorMeta> inputs;
    const char* kind;
    const char* message;
  };
  const std::vector<TensorMeta> two{f32({3}), f32({3})}, mm{f32({2, 3}), f32({3, 4}), f32({4})};
  const Case cases[] = {
      {"fused_elementwise", "", two, "InvalidArgument", "fused_elementwise: the program is empty"},
      {"fused_elementwise", "neg %0;; neg %1", two, "InvalidArgument", "instruction 1 (''): is empty"},
      {"fused_elementwise", "frobnicate %0", two, "InvalidArgument", "unknown op 'frobnicate'"},
      {"fused_elementwise", "matmul %0 %1", two, "InvalidArgument", "'matmul' is not a pure one-output elementwise"},
      {"fused_elementwise", "add %0 %2", two, "InvalidArgument",
       "fused_elementwise: instruction 0 ('add %0 %2'): %2 names input 2, but the op has 2 input(s)"},
      {"fused_elementwise", "neg %0; add %r1 %0", two, "InvalidArgument",
       "instruction 1 ('add %r1 %0'): %r1 is not the result of an earlier instruction"},
      {"fused_elementwise", "neg x", two, "InvalidArgument", "operand 'x' is neither %<input> nor %r<instruction>"},
      {"fused_elementwise", "add %0", two, "InvalidArgument", "instruction 0 ('add %0'): add: expected 2 inputs"},
      {"fused_elementwise", "less %0 %1", two, "DTypeError", "('less %0 %1') gives bool[3]; only float32 results"},
      {"fused_elementwise", "add %0 %1", {f32({3}), f32({4})}, "ShapeError",
       "('add %0 %1'): add: shapes (3,) and (4,) cannot be broadcast"},
      {"fused_elementwise", "add %0 %1", {f32({3}), testing::i32({3})}, "DTypeError",
       "fused_elementwise: input 1 must be float32, got i32[3]"},
      {"fused_matmul", "none", {f32({2, 3}), f32({3, 4}), f32({3})}, "ShapeError",
       "fused_matmul: bias f32[3] must be a scalar or a vector of size 1 or 4 to broadcast along the last dim of "
       "f32[2,4]"},
      {"fused_matmul", "none", {f32({2, 3}), f32({2, 4}), f32({4})}, "ShapeError",
       "fused_matmul: matmul: inner dimensions must agree"},
      {"fused_matmul", "gelu", mm, "InvalidArgument", "activation must be none, relu, sigmoid or tanh, got 'gelu'"},
  };
  for (const Case& c : cases) {
    const std::string program = c.program;
    CAPTURE(program);
    const std::string attr = std::string(c.op) == "fused_matmul" ? "activation" : "program";
    try {
      testing::infer(c.op, c.inputs, {{attr, program}});
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(std::string(e.kind()) == c.kind);
      const std::string message = e.what();
      CAPTURE(message);
      CHECK(message.find(c.message) != std::string::npos);
    }
  }
}

TEST_CASE("ops/fused_matmul: the same values as matmul + bias + activation") {
  const OpDef& fused = OpRegistry::global().get("fused_matmul");
  Generator gen(33);
  Tensor a = gen.uniform({2, 3, 4}), b = gen.uniform({5, 4}), bias = gen.uniform({5});
  const std::pair<const char*, Tensor (*)(const Tensor&)> activations[] = {
      {"none", [](const Tensor& z) { return z; }}, {"relu", relu}, {"sigmoid", sigmoid}, {"tanh", tanh}};
  for (const auto& activation : activations) {
    const char* name = activation.first;  // (clang 14 cannot capture structured bindings in CAPTURE's lambda)
    auto act = activation.second;
    CAPTURE(name);
    Attrs attrs{{"transpose_b", true}, {"activation", std::string(name)}};
    CHECK(close(execute(fused, {a, b, bias}, attrs), act(matmul(a, b, false, true) + bias)));
  }
  Tensor at = gen.uniform({4, 2}), bt = gen.uniform({4, 3});
  CHECK(close(execute(fused, {at, bt, scalar(0.5f)}, {{"transpose_a", true}}), matmul(at, bt, true, false) + 0.5f));
  Tensor empty_k = execute(fused, {zeros({2, 0}), zeros({0, 3}), constant({-1.f, 0.f, 2.f})},
                           {{"activation", std::string("relu")}});
  CHECK(empty_k.to_vector<float>() == std::vector<float>{0, 0, 2, 0, 0, 2});  // a zero inner dim: act(bias)
}

}  // namespace tl
