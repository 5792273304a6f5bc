#include "op_samples.h"

#include <cmath>

namespace tl::testing {
namespace {

Tensor uniform(const Shape& shape, float lo = -1, float hi = 1) {
  static Generator gen(7);
  return gen.uniform(shape, lo, hi);
}

Tensor positive(const Shape& shape) { return uniform(shape, 0.5f, 2.f); }
Tensor ints(const Shape& shape) {
  static Generator gen(11);
  return gen.uniform(shape, -5, 5, int32);
}
/// Distinct values 0.05 apart in a scrambled order: no max (pooling) is within a checker step of a tie.
Tensor distinct(const Shape& shape) {
  auto n = static_cast<std::size_t>(shape.num_elements());
  TL_CHECK(n % 37 != 0, InvalidArgument, "distinct: 37 must not divide the element count");
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = 0.05f * static_cast<float>((i * 37) % n) - 0.025f * static_cast<float>(n);
  return constant(values, shape);
}

using GraphPtr = std::shared_ptr<const graph::Graph>;
using Values = std::vector<graph::ValueRef>;

/// A sub-graph with inputs of `metas` returning what `body` adds.
GraphPtr subgraph(const std::vector<TensorMeta>& metas, const std::function<Values(graph::Graph&, const Values&)>& body) {
  auto g = std::make_shared<graph::Graph>();
  Values in;
  for (const TensorMeta& m : metas) in.push_back(g->add_input(m));
  g->set_outputs(body(*g, in));
  return g;
}

/// The samples of the structured ops: each carries the sub-graphs its node holds.
void add_structured_samples(std::map<std::string, std::vector<OpSample>>& s) {
  const TensorMeta f23{DType::float32, {2, 3}}, f3{DType::float32, {3}}, i32s{DType::int32, {}};
  // cond(pred, x, y): x * y or tanh(x - y)
  GraphPtr then_graph = subgraph({f23, f3}, [](graph::Graph& g, const Values& x) { return g.add_op("mul", x); });
  GraphPtr else_graph = subgraph({f23, f3}, [](graph::Graph& g, const Values& x) {
    return g.add_op("tanh", g.add_op("sub", x));
  });
  for (bool pred : {true, false})
    s["cond"].push_back({{constant({pred}, Shape{}), uniform({2, 3}), uniform({3})}, {}, {then_graph, else_graph}});
  // while_loop: v = tanh(v * w + w) three times (the cond stays true; maximum_iterations stops it), and a loop
  // with an int32 counter and no limit: (i, v) = (i + 1, v * w) while i < 4.
  GraphPtr true_cond = subgraph({f3, f3}, [](graph::Graph& g, const Values& x) {
    return g.add_op("less", {g.add_op("reduce_sum", {x[0]})[0], g.add_constant(scalar(100.f))});
  });
  GraphPtr tanh_body = subgraph({f3, f3}, [](graph::Graph& g, const Values& x) {
    return g.add_op("tanh", g.add_op("add", {g.add_op("mul", x)[0], x[1]}));
  });
  GraphPtr count_cond = subgraph({i32s, f3, f3}, [](graph::Graph& g, const Values& x) {
    return g.add_op("less", {x[0], g.add_constant(scalar(4))});
  });
  GraphPtr count_body = subgraph({i32s, f3, f3}, [](graph::Graph& g, const Values& x) {
    return Values{g.add_op("add", {x[0], g.add_constant(scalar(1))})[0], g.add_op("mul", {x[1], x[2]})[0]};
  });
  const Attrs three{{"num_vars", std::int64_t{1}}, {"maximum_iterations", std::int64_t{3}}};
  const Attrs unlimited{{"num_vars", std::int64_t{2}}, {"maximum_iterations", std::int64_t{-1}}};
  s["while_loop"] = {{{uniform({3}), uniform({3})}, three, {true_cond, tanh_body}},
                     {{scalar(0), uniform({3}), uniform({3})}, unlimited, {count_cond, count_body}}};
  // while_grad: the forward inputs, then one upstream gradient per loop variable.
  s["while_grad"] = {{{uniform({3}), uniform({3}), uniform({3})}, three, {true_cond, tanh_body}},
                     {{scalar(0), uniform({3}), uniform({3}), scalar(0.f), uniform({3})}, unlimited,
                      {count_cond, count_body}}};
  // fused_elementwise: sigmoid(x * y + x), y broadcast along x's rows.
  GraphPtr fused_body = subgraph({f23, f3}, [](graph::Graph& g, const Values& x) {
    return g.add_op("sigmoid", g.add_op("add", {g.add_op("mul", x)[0], x[0]}));
  });
  s["fused_elementwise"] = {{{uniform({2, 3}), uniform({3})}, {}, {fused_body}},
                            {{uniform({4, 2, 3}), uniform({3})}, {}, {fused_body}}};
  // dataset_loop: the node a traced for_each over four rows makes (state += row); the function keeps the dataset.
  static auto traced = function([](const Tensor& state) {
    static const data::Dataset rows = data::Dataset::from_tensor_slices({constant({1.f, 2.f, 3.f, 4.f}, {4, 1})});
    return data::for_each(rows, {state}, [](const std::vector<Tensor>& st, const data::Element& row) {
      return std::vector<Tensor>{st[0] + row[0]};
    })[0];
  });
  traced(uniform({1}));
  for (const graph::Node& node : traced.concrete_functions().at(0)->graph().nodes())
    if (node.kind == graph::NodeKind::op && node.op->name() == "dataset_loop")
      s["dataset_loop"] = {{{uniform({1})}, node.attrs, node.subgraphs}};
}

/// A variable state holding `value` (the samples' variables: each run of a sample updates it).
std::shared_ptr<detail::VariableState> variable(const std::string& name, Tensor value) {
  auto state = std::make_shared<detail::VariableState>();
  state->name = name;
  state->value = std::move(value);
  return state;
}

/// The _apply ops: two variables of different shapes (and their slots), gradients, the scalars.
void add_apply_samples(std::map<std::string, std::vector<OpSample>>& s) {
  struct Kind {
    const char* name;
    int slots;
    std::vector<Tensor> scalars;
    Attrs attrs;
  };
  const std::vector<Kind> kinds = {
      {"sgd_apply", 0, {scalar(0.1f)}, {}},
      {"sgd_momentum_apply", 1, {scalar(0.1f)}, {{"momentum", 0.9}, {"nesterov", true}}},
      {"adam_apply", 2, {scalar(0.01f), scalar(3.f)}, {{"beta_1", 0.9}, {"beta_2", 0.999}, {"epsilon", 1e-7}}},
      {"rmsprop_apply", 1, {scalar(0.01f)}, {{"rho", 0.9}, {"epsilon", 1e-7}}},
      {"rmsprop_momentum_apply", 2, {scalar(0.1f)}, {{"rho", 0.9}, {"momentum", 0.5}, {"epsilon", 1e-7}}}};
  for (const Kind& kind : kinds) {
    std::vector<std::shared_ptr<detail::VariableState>> vars;
    for (int k = 0; k <= kind.slots; ++k) {  // the variables, then each slot of each (slots non-negative)
      vars.push_back(variable(std::string(kind.name) + "/w", k == 0 ? uniform({2, 3}) : positive({2, 3})));
      vars.push_back(variable(std::string(kind.name) + "/b", k == 0 ? uniform({3}) : positive({3})));
    }
    std::vector<Tensor> inputs{uniform({2, 3}), uniform({3})};
    inputs.insert(inputs.end(), kind.scalars.begin(), kind.scalars.end());
    s[kind.name] = {{inputs, kind.attrs, {}, vars}};
  }
}

/// The unary and binary math of core/ops/math_ops.cpp beyond arithmetic, each inside a domain where its gradient
/// is smooth; drawn after every other sample, so that they leave the others' draws as they were.
void add_math_samples(std::map<std::string, std::vector<OpSample>>& s) {
  for (const char* name : {"sin", "cos", "tan", "atan", "sinh", "cosh", "asinh", "erf", "expm1", "softplus"})
    s[name] = {{{uniform({2, 3})}, {}}, {{uniform({0, 2})}, {}}, {{uniform({})}, {}}};
  for (const char* name : {"asin", "acos", "atanh"}) s[name] = {{{uniform({2, 3}, -0.8f, 0.8f)}, {}}};
  s["acosh"] = {{{uniform({3, 2}, 1.5f, 3.f)}, {}}};
  s["log1p"] = {{{uniform({3, 2}, -0.5f, 1.f)}, {}}};
  for (const char* name : {"reciprocal", "rsqrt"}) s[name] = {{{positive({3, 2})}, {}}};
  // Piecewise constant ops: values a checker step away from every jump (integers, halves, 0).
  const Tensor away = constant({0.3f, -1.7f, 2.2f, -0.4f, 1.8f, -2.6f}, {2, 3});
  for (const char* name : {"floor", "ceil"}) s[name] = {{{away}, {}}};
  for (const char* name : {"round", "sign"}) s[name] = {{{away}, {}}, {{ints({4})}, {}}};
  const Tensor special = constant({1.f, NAN, INFINITY, -INFINITY, 0.f, -2.f}, {2, 3});
  for (const char* name : {"is_nan", "is_inf", "is_finite"}) s[name] = {{{special}, {}}, {{ints({4})}, {}}};
  s["atan2"] = {{{uniform({2, 3}), positive({3})}, {}}, {{positive({2, 1}), uniform({1, 4})}, {}}};
  // mod and floor_div: x / y a checker step away from every integer; int32 divisors nonzero.
  const Tensor x = constant({2.3f, -1.7f, 0.4f, -3.2f, 5.1f, -0.6f}, {2, 3}), y = constant({1.5f, -2.f, 0.7f});
  const Tensor xi = constant({7, -7, 3, -5, 0, 6}, {2, 3}), yi = constant({2, -3, 4});
  for (const char* name : {"mod", "floor_div"}) s[name] = {{{x, y}, {}}, {{x, scalar(-1.3f)}, {}}, {{xi, yi}, {}}};
  s["squared_difference"] = {{{uniform({2, 3}), uniform({3})}, {}}, {{ints({2, 1}), ints({1, 4})}, {}},
                             {{uniform({}), uniform({2})}, {}}};
  s["div_no_nan"] = {{{uniform({2, 3}), positive({2, 1})}, {}}, {{uniform({3}), scalar(-0.8f)}, {}}};
}

/// Elementwise math, comparisons and logic.
void add_elementwise_samples(std::map<std::string, std::vector<OpSample>>& s) {
  for (const char* name : {"neg", "abs", "square", "relu"})
    s[name] = {{{uniform({2, 3})}, {}}, {{ints({4})}, {}}, {{uniform({})}, {}}};
  for (const char* name : {"exp", "sigmoid", "tanh"}) s[name] = {{{uniform({2, 3})}, {}}, {{uniform({0, 2})}, {}}};
  for (const char* name : {"log", "sqrt"}) s[name] = {{{positive({3, 2})}, {}}};
  for (const char* name : {"add", "sub", "mul", "maximum", "minimum", "equal", "not_equal", "less", "less_equal",
                           "greater", "greater_equal"})
    s[name] = {{{uniform({2, 3}), uniform({3})}, {}}, {{ints({2, 1}), ints({1, 4})}, {}}, {{uniform({}), uniform({2})}, {}}};
  const Tensor bools = constant({true, false, true, false, false, true}, {2, 3});
  for (const char* name : {"logical_and", "logical_or", "logical_xor"})
    s[name] = {{{bools, constant({true, false, false}, {3})}, {}}, {{constant({false}, {1}), bools}, {}}};
  s["logical_not"] = {{{bools}, {}}, {{constant({true}, {})}, {}}};
  s["div"] = {{{uniform({2, 3}), positive({2, 1})}, {}}};
  s["pow"] = {{{positive({2, 3}), uniform({3})}, {}}, {{ints({3}), constant({0, 1, 3})}, {}}};
  s["where"] = {{{constant({true, false, true}, {3}), uniform({2, 3}), uniform({3})}, {}}};
  s["clip_by_value"] = {{{uniform({2, 3}), scalar(-0.5f), scalar(0.5f)}, {}},
                        {{uniform({2, 3}), uniform({3}, -1, 0), uniform({3}, 0, 1)}, {}}};
}

/// matmul, reductions, layout, slicing, gathering, casts and padding.
void add_layout_samples(std::map<std::string, std::vector<OpSample>>& s) {
  s["matmul"] = {{{uniform({2, 3}), uniform({3, 4})}, {}},
                 {{uniform({2, 3, 4}), uniform({5, 4})}, {{"transpose_b", true}}},
                 {{uniform({4, 2}), uniform({4, 3})}, {{"transpose_a", true}}},
                 {{uniform({0, 1, 0}), uniform({0, 5})}, {}}};  // an empty batch and k = 0: the zero-size paths
  for (const char* name : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"})
    s[name] = {{{uniform({2, 3, 4})}, {{"axes", Ints{1}}}},
               {{uniform({2, 3})}, {{"axes", Ints{0, 1}}, {"keepdims", true}}},
               {{uniform({3})}, {}}};
  s["argmax"] = {{{uniform({3, 4})}, {{"axis", std::int64_t{1}}}}, {{ints({5})}, {}}};
  s["reshape"] = {{{uniform({2, 3})}, {{"shape", Ints{3, -1}}}}, {{uniform({})}, {{"shape", Ints{1, 1}}}}};
  s["transpose"] = {{{uniform({2, 3, 4})}, {{"perm", Ints{2, 0, 1}}}}, {{uniform({2, 3})}, {}}};
  s["expand_dims"] = {{{uniform({2, 3})}, {{"axis", std::int64_t{1}}}},
                      {{uniform({2, 3})}, {{"axis", std::int64_t{-1}}}}};
  s["squeeze"] = {{{uniform({1, 3, 1})}, {}}, {{uniform({1, 3, 1})}, {{"axes", Ints{0}}}},
                  {{uniform({2, 1})}, {{"axes", Ints{-1}}}}};
  s["concat"] = {{{uniform({2, 3}), uniform({2, 1})}, {{"axis", std::int64_t{1}}}},
                 {{uniform({2, 3}), uniform({1, 3}), uniform({3, 3})}, {{"axis", std::int64_t{-2}}}}};
  s["stack"] = {{{uniform({2, 3}), uniform({2, 3})}, {{"axis", std::int64_t{1}}}},
                {{uniform({2}), uniform({2}), uniform({2})}, {{"axis", std::int64_t{-1}}}}};
  s["slice"] = {{{uniform({4, 5})}, {{"begin", Ints{1, 0}}, {"size", Ints{2, -1}}}},
                {{uniform({2, 3, 4})}, {{"begin", Ints{1, 1, 0}}, {"size", Ints{1, 2, 3}}}}};
  s["gather"] = {{{uniform({5, 3}), constant({4, 0, 2})}, {}},
                 {{uniform({2, 5}), constant({1, 1})}, {{"axis", std::int64_t{1}}}},
                 {{uniform({2, 4, 3}), constant({3, 1, 1, 0}, {2, 2})}, {{"axis", std::int64_t{-2}}}},
                 {{uniform({3, 2}), scalar(std::int32_t{2})}, {}}};
  s["one_hot"] = {{{constant({0, 2, 1})}, {{"depth", std::int64_t{3}}}}};
  s["cast"] = {{{uniform({2, 3})}, {{"dtype", int32}}}, {{ints({3})}, {{"dtype", float32}}},
               {{uniform({2, 3})}, {{"dtype", float32}}}};
  s["pad"] = {{{uniform({2, 3})}, {{"paddings", Ints{1, 0, 0, 2}}}},
              {{uniform({1, 2, 2})}, {{"paddings", Ints{0, 1, 2, 0, 1, 1}}, {"constant_value", 0.5}}}};
  s["zeros_like"] = {{{uniform({2, 3})}, {}}};
  s["ones_like"] = {{{ints({2, 3})}, {}}};
  s["identity"] = {{{uniform({2, 3})}, {}}, {{ints({2})}, {}}};
  s["stop_gradient"] = {{{uniform({2, 3})}, {}}};
  s["broadcast_to"] = {{{uniform({3, 1})}, {{"shape", Ints{2, 3, 4}}}}, {{uniform({})}, {{"shape", Ints{2}}}},
                       {{uniform({2, 3})}, {{"shape", Ints{2, 3}}}}};
  s["unsorted_segment_sum"] = {{{uniform({4, 3}), constant({2, 0, 2, 1})}, {{"num_segments", std::int64_t{4}}}},
                               {{uniform({2, 3, 2}), constant({0, 1, 0, 1, 1, 0}, {2, 3})},
                                {{"num_segments", std::int64_t{2}}}}};
}

/// softmax, convolutions and pooling with their backprop ops.
void add_nn_samples(std::map<std::string, std::vector<OpSample>>& s) {
  s["softmax"] = {{{uniform({2, 5})}, {}}, {{uniform({3, 2, 4})}, {{"axis", std::int64_t{1}}}},
                  {{uniform({4, 3})}, {{"axis", std::int64_t{-2}}}}, {{uniform({0, 3})}, {}}};
  s["log_softmax"] = {{{uniform({2, 5})}, {}}, {{uniform({2, 3, 2})}, {{"axis", std::int64_t{-2}}}},
                      {{uniform({3, 1})}, {{"axis", std::int64_t{0}}}}};
  s["conv2d"] = {{{uniform({2, 5, 5, 3}), uniform({3, 3, 3, 4})}, {{"padding", std::string("SAME")}}},
                 {{uniform({1, 6, 6, 2}), uniform({2, 2, 2, 3})},
                  {{"strides", Ints{2, 2}}, {"padding", std::string("VALID")}}},
                 {{uniform({1, 5, 7, 2}), uniform({3, 2, 2, 3})},  // odd sizes, even kernel: uneven SAME padding
                  {{"strides", Ints{2, 2}}, {"padding", std::string("SAME")}}},
                 {{uniform({1, 7, 6, 1}), uniform({3, 3, 1, 2})},
                  {{"strides", Ints{3, 2}}, {"padding", std::string("VALID")}}},
                 {{uniform({2, 4, 3, 3}), uniform({1, 1, 3, 2})}, {}},  // 1x1 fast path
                 {{uniform({1, 3, 3, 2}), uniform({5, 5, 2, 1})}, {{"padding", std::string("SAME")}}}};
  s["conv2d_backprop_input"] = {
      {{uniform({3, 3, 2, 4}), uniform({2, 3, 4, 4})},
       {{"input_sizes", Ints{2, 5, 7, 2}}, {"strides", Ints{2, 2}}, {"padding", std::string("SAME")}}},
      {{uniform({2, 2, 3, 2}), uniform({1, 3, 3, 2})}, {{"input_sizes", Ints{-1, 4, 4, -1}}}},
      {{uniform({1, 1, 2, 3}), uniform({2, 3, 2, 3})}, {{"input_sizes", Ints{2, 3, 2, 2}}}},
      {{uniform({2, 3, 1, 2}), uniform({1, 2, 2, 2})},
       {{"input_sizes", Ints{1, 6, 5, 1}}, {"strides", Ints{3, 2}}, {"padding", std::string("VALID")}}}};
  s["conv2d_backprop_filter"] = {
      {{uniform({2, 5, 5, 3}), uniform({2, 5, 5, 2})}, {{"filter_sizes", Ints{3, 3, 3, 2}}, {"padding", std::string("SAME")}}},
      {{uniform({1, 6, 5, 2}), uniform({1, 3, 3, 3})},
       {{"filter_sizes", Ints{2, 3, 2, 3}}, {"strides", Ints{2, 1}}, {"padding", std::string("VALID")}}},
      {{uniform({1, 5, 7, 2}), uniform({1, 3, 4, 1})},
       {{"filter_sizes", Ints{2, 2, 2, 1}}, {"strides", Ints{2, 2}}, {"padding", std::string("SAME")}}},
      {{uniform({2, 3, 2, 3}), uniform({2, 3, 2, 2})}, {{"filter_sizes", Ints{1, 1, 3, 2}}}}};
  for (const char* name : {"max_pool2d", "avg_pool2d"})
    s[name] = {{{distinct({2, 5, 5, 3})}, {{"ksize", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"padding", std::string("SAME")}}},
               {{distinct({1, 4, 4, 1})}, {{"ksize", Ints{3, 3}}, {"strides", Ints{1, 1}}, {"padding", std::string("VALID")}}},
               {{distinct({1, 5, 7, 2})}, {{"ksize", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"padding", std::string("SAME")}}},
               {{distinct({2, 6, 5, 2})}, {{"ksize", Ints{3, 2}}, {"strides", Ints{2, 1}}, {"padding", std::string("VALID")}}}};
  {
    Attrs overlap{{"ksize", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"padding", std::string("SAME")}};
    Tensor x = distinct({1, 5, 7, 2});
    Tensor y = max_pool2d(x, {3, 3}, {2, 2}, "SAME");
    s["max_pool2d_grad"] = {{{x, y, uniform({1, 3, 4, 2})}, overlap}};
    s["max_pool2d_grad_grad"] = {{{x, y, uniform({1, 5, 7, 2})}, overlap}};
    Tensor x2 = distinct({2, 4, 4, 1});
    Attrs valid{{"ksize", Ints{2, 2}}, {"strides", Ints{1, 1}}, {"padding", std::string("VALID")}};
    Tensor y2 = max_pool2d(x2, {2, 2}, {1, 1}, "VALID");
    s["max_pool2d_grad"].push_back({{x2, y2, uniform({2, 3, 3, 1})}, valid});
    s["max_pool2d_grad_grad"].push_back({{x2, y2, uniform({2, 4, 4, 1})}, valid});
  }
  s["relu_grad"] = {{{uniform({2, 3}), constant({1.f, -1.f, 0.25f, 2.f, -0.5f, 3.f}, {2, 3})}, {}},
                     {{ints({4}), constant({1, 0, -2, 5})}, {}}};
}

/// Random, debugging and timestamp ops.
void add_runtime_samples(std::map<std::string, std::vector<OpSample>>& s) {
  s["random_uniform_like"] = {{{uniform({2, 3}), constant({7, 1})}, {}}, {{ints({4}), constant({-3, 2})}, {}},
                               {{uniform({}), constant({0, 0})}, {}}};
  s["check_numerics"] = {{{uniform({2, 3})}, {{"message", std::string("sample")}}}, {{uniform({})}, {{"message", std::string("scalar")}}}};
  s["print"] = {{{uniform({2}), ints({3})}, {{"template", std::string("sample print: {} and {}")}}}, {{}, {{"template", std::string("{{no tensors}")}}}};
  {
    static TimestampLog sample_log;  // lives as long as the samples
    s["record_timestamp"] = {{{}, {{"log", sample_log.id()}}}, {{uniform({1})}, {{"log", sample_log.id()}}}};
  }
}

void add_assert_samples(std::map<std::string, std::vector<OpSample>>& s) {
  // Assertions (core/ops/assert_ops.cpp): samples that hold, with broadcasting and each dtype they take. Fixed values
  // (not the seeded generators), so that they hold by construction and leave the other samples' draws as they were.
  const Attrs checked{{"message", std::string("sample")}};
  const Tensor low = constant({1.f, 2.f}, {2, 1}), high = constant({3.f, 4.f, 5.f});
  s["assert_equal"] = {{{constant({1.f, 2.f, 3.f}), constant({1.f, 2.f, 3.f})}, checked},
                       {{constant({3, 3, 3, 3}, {2, 2}), constant({3})}, {{"summarize", std::int64_t{1}}}},
                       {{constant({true, false}, {2}), constant({true, false}, {2})}, {}}};
  s["assert_less"] = {{{low, high}, checked}, {{constant({-2, 0, 1}), constant({2})}, {}}};
  s["assert_less_equal"] = {{{low, constant({2.f, 2.f, 3.f})}, checked}, {{constant({1, 2}), constant({2, 2})}, {}}};
  s["assert_greater"] = {{{high, low}, checked}, {{constant({5, 3}), constant({2})}, {}}};
  s["assert_greater_equal"] = {{{constant({2.f, 2.f, 3.f}), low}, checked}, {{constant({2, 2}), constant({1, 2})}, {}}};
  s["assert_positive"] = {{{constant({0.5f, 1.f, 2.f, 3.f}, {2, 2})}, checked}, {{constant({1, 7})}, {}}};
  s["assert_non_negative"] = {{{constant({0.f, 1.f, 2.f})}, checked}, {{constant({0, 7}, {2, 1})}, {}}};
  s["assert_near"] = {{{constant({1.f, 2.f}), constant({1.f, 2.f})}, checked},
                      {{constant({1.f, 2.05f}, {2, 1}), constant({1.f, 2.f, 2.f}, {1, 3})},
                       {{"rtol", 0.0}, {"atol", 1.5}}}};
  s["assert_rank"] = {{{constant({1.f, 2.f, 3.f, 4.f}, {2, 2})}, {{"rank", std::int64_t{2}}}},
                      {{constant({1}, Shape{})}, {{"rank", std::int64_t{0}}, {"message", std::string("a scalar")}}}};
  s["assert"] = {{{constant({true}, Shape{}), constant({1.f, 2.f})}, checked},
                 {{constant({true, true, true, true}, {2, 2})}, {}}};
}

void add_fused_and_update_samples(std::map<std::string, std::vector<OpSample>>& s) {
  s["avg_pool2d_grad"] = {
      {{uniform({2, 3, 3, 3})},
       {{"input_sizes", Ints{2, 5, 5, 3}}, {"ksize", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"padding", std::string("SAME")}}},
      {{uniform({1, 3, 4, 2})},
       {{"input_sizes", Ints{-1, 5, 7, -1}}, {"ksize", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"padding", std::string("SAME")}}},
      {{uniform({1, 2, 2, 1})},
       {{"input_sizes", Ints{1, 4, 4, 1}}, {"ksize", Ints{3, 3}}, {"strides", Ints{1, 1}}, {"padding", std::string("VALID")}}}};
  // The optimizer's fused ops (core/ops/fused_ops.cpp): every activation and transpose, bias shapes, and
  // programs with broadcasting and an input read twice.
  s["fused_matmul"] = {{{uniform({2, 3}), uniform({3, 4}), uniform({4})}, {{"activation", std::string("relu")}}},
                       {{uniform({2, 3, 4}), uniform({5, 4}), uniform({})},
                        {{"transpose_b", true}, {"activation", std::string("tanh")}}},
                       {{uniform({4, 2}), uniform({4, 3}), uniform({1})},
                        {{"transpose_a", true}, {"activation", std::string("sigmoid")}}},
                       {{uniform({3, 2}), uniform({2, 3}), uniform({2})},
                        {{"transpose_a", true}, {"transpose_b", true}}}};
  // The optimizers' fused updates (core/ops/optimizer_ops.cpp): slots and gradient of the variable's shape,
  // learning rate and step as scalars; v and rms are non-negative like the running averages they hold.
  s["sgd_update"] = {{{uniform({2, 3}), uniform({2, 3}), scalar(0.1f)}, {}},
                     {{uniform({}), uniform({}), scalar(0.5f)}, {}}};
  s["sgd_momentum_update"] = {{{uniform({2, 3}), uniform({2, 3}), uniform({2, 3}), scalar(0.1f)}, {{"momentum", 0.9}}},
                              {{uniform({5}), uniform({5}), uniform({5}), scalar(0.01f)},
                               {{"momentum", 0.5}, {"nesterov", true}}}};
  s["adam_update"] = {{{uniform({2, 3}), uniform({2, 3}), positive({2, 3}), uniform({2, 3}), scalar(0.01f),
                        scalar(3.f)},
                       {{"beta_1", 0.9}, {"beta_2", 0.999}, {"epsilon", 1e-7}}},
                      {{uniform({3000}), uniform({3000}), positive({3000}), uniform({3000}), scalar(0.1f), scalar(1.f)},
                       {{"beta_1", 0.8}, {"beta_2", 0.99}, {"epsilon", 1e-3}}}};  // several kernel chunks
  s["rmsprop_update"] = {{{uniform({4, 2}), positive({4, 2}), uniform({4, 2}), scalar(0.01f)},
                          {{"rho", 0.9}, {"epsilon", 1e-7}}}};
  s["rmsprop_momentum_update"] = {{{uniform({3}), positive({3}), uniform({3}), uniform({3}), scalar(0.1f)},
                                   {{"rho", 0.9}, {"momentum", 0.5}, {"epsilon", 1e-7}}}};
}

void add_tensor_array_samples(std::map<std::string, std::vector<OpSample>>& s) {
  // TensorArray storage (core/ops/index_ops.cpp): a write inside the size, one that grows a dynamic array past it (a
  // zero element in the gap), an int32 array; reads; resize both ways. Fixed values, leaving the generators' draws alone.
  const Tensor rows = constant({0.5f, -1.f, 2.f, 0.25f, -0.75f, 1.5f}, {3, 2});
  s["tensor_array_write"] = {{{rows, scalar(std::int32_t{1}), constant({3.f, -2.f})}, {{"dynamic_size", false}}},
                             {{rows, scalar(std::int32_t{4}), constant({-0.5f, 1.25f})}, {{"dynamic_size", true}}},
                             {{constant({1, 2, 3}), scalar(std::int32_t{0}), constant({7}, Shape{})}, {}}};
  s["tensor_array_read"] = {{{rows, scalar(std::int32_t{2})}, {}}, {{constant({1, 2, 3}), scalar(std::int32_t{1})}, {}}};
  s["tensor_array_resize"] = {{{rows, constant({0.f, 0.f, 0.f, 0.f, 0.f})}, {}},
                              {{rows, constant({0.f, 0.f}, {2, 1})}, {}}};
}

/// The samples in a fixed order: the seeded generators draw the same values for every op on every run.
std::map<std::string, std::vector<OpSample>> build() {
  std::map<std::string, std::vector<OpSample>> s;
  add_elementwise_samples(s);
  add_layout_samples(s);
  add_nn_samples(s);
  add_runtime_samples(s);
  add_assert_samples(s);
  add_fused_and_update_samples(s);
  add_tensor_array_samples(s);
  add_structured_samples(s);
  add_apply_samples(s);
  add_math_samples(s);
  return s;
}

}  // namespace

const std::map<std::string, std::vector<OpSample>>& op_samples() {
  static const auto samples = build();
  return samples;
}

}  // namespace tl::testing
