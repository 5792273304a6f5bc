// tl::data: every source and transformation on small data (values, order, shapes), element_spec and
// cardinality, shuffle determinism and buffer semantics, errors, iteration, and the in-graph loop: a traced
// epoch of manual-SGD steps over ragged elements matches the eager loop, restarts per call, traces once.
#include <doctest/doctest.h>

#include <cmath>

#include "tracelab/tracelab.h"

namespace dataset_test {

namespace {

using tl::data::Dataset;
using tl::data::Element;

/// The scalar int32 elements of a one-component dataset, in order (one pass).
std::vector<int> ints(const Dataset& ds) {
  std::vector<int> out;
  for (const Element& e : ds) out.push_back(e.at(0).item<int>());
  return out;
}

/// Component `c` of every element as floats (one pass).
std::vector<std::vector<float>> column(const Dataset& ds, std::size_t c) {
  std::vector<std::vector<float>> out;
  for (const Element& e : ds) out.push_back(e.at(c).to_vector<float>());
  return out;
}

std::vector<tl::Shape> shapes(const Dataset& ds, std::size_t c) {
  std::vector<tl::Shape> out;
  for (const Element& e : ds) out.push_back(e.at(c).shape());
  return out;
}

/// A generator dataset yielding `rows` (one float vector per element, 1-D), counting factory calls.
Dataset vectors(std::vector<std::vector<float>> rows, int* factory_calls = nullptr) {
  auto shared = std::make_shared<std::vector<std::vector<float>>>(std::move(rows));
  return Dataset::from_generator(
      [shared, factory_calls] {
        if (factory_calls) ++*factory_calls;
        return tl::data::GeneratorFn([shared, i = std::size_t{0}]() mutable -> std::optional<Element> {
          if (i >= shared->size()) return std::nullopt;
          const auto& row = (*shared)[i++];
          return Element{tl::constant(row, {static_cast<std::int64_t>(row.size())})};
        });
      },
      {tl::TensorSpec({-1})});
}

}  // namespace

TEST_CASE("data/from_tensor_slices: rows in order, element_spec, cardinality") {
  tl::Tensor x = tl::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {3, 2});
  tl::Tensor y = tl::constant({7, 8, 9});
  Dataset ds = Dataset::from_tensor_slices({x, y});
  CHECK(column(ds, 0) == std::vector<std::vector<float>>{{1, 2}, {3, 4}, {5, 6}});
  CHECK(ints(ds.map([](const Element& e) { return Element{e[1]}; })) == std::vector<int>{7, 8, 9});
  CHECK(ds.element_spec() == std::vector<tl::TensorSpec>{tl::TensorSpec({2}), tl::TensorSpec(tl::Shape{}, tl::int32)});
  CHECK(ds.cardinality() == 3);
  CHECK(ds.str() == "<TensorSliceDataset element_spec=(TensorSpec(shape=(2,), dtype=tl.float32, name=None), "
                    "TensorSpec(shape=(), dtype=tl.int32, name=None))>");
}

TEST_CASE("data/from_tensor_slices: components must agree on dim 0 and be sliceable") {
  CHECK_THROWS_WITH_AS(Dataset::from_tensor_slices({tl::zeros({4, 2}), tl::zeros({3}, tl::int32)}),
                       doctest::Contains("from_tensor_slices: all components must have the same size in dim 0 (the "
                                         "number of elements), got f32[4,2] (component 0) and i32[3] (component 1)"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(Dataset::from_tensor_slices({tl::scalar(1.f)}), doctest::Contains("is a scalar f32[]"),
                       tl::ShapeError);
  CHECK_THROWS_AS(Dataset::from_tensor_slices({}), tl::InvalidArgument);
}

TEST_CASE("data/range: values, spec and cardinality") {
  CHECK(ints(Dataset::range(5)) == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(ints(Dataset::range(2, 10, 3)) == std::vector<int>{2, 5, 8});
  CHECK(ints(Dataset::range(5, 0, -2)) == std::vector<int>{5, 3, 1});
  CHECK(ints(Dataset::range(3, 3)).empty());
  CHECK(Dataset::range(2, 10, 3).cardinality() == 3);
  CHECK(Dataset::range(-4).cardinality() == 0);
  CHECK(Dataset::range(5).element_spec() == std::vector<tl::TensorSpec>{tl::TensorSpec(tl::Shape{}, tl::int32)});
  CHECK_THROWS_WITH_AS(Dataset::range(0, 5, 0), doctest::Contains("range: step must be non-zero"), tl::InvalidArgument);
}

TEST_CASE("data/from_generator: a fresh generator per pass; elements checked against the signature") {
  int calls = 0;
  Dataset ds = vectors({{1}, {2, 3}, {4, 5, 6}}, &calls);
  CHECK(ds.cardinality() == tl::data::unknown_cardinality);
  CHECK(ds.element_spec() == std::vector<tl::TensorSpec>{tl::TensorSpec({-1})});
  CHECK(column(ds, 0) == std::vector<std::vector<float>>{{1}, {2, 3}, {4, 5, 6}});
  CHECK(column(ds, 0).size() == 3);  // the second pass restarts
  CHECK(calls == 2);

  auto yielding = [](Element element) {
    return Dataset::from_generator(
        [element] {
          return tl::data::GeneratorFn([element, done = false]() mutable -> std::optional<Element> {
            if (done) return std::nullopt;
            done = true;
            return element;
          });
        },
        {tl::TensorSpec({-1, 3}), tl::TensorSpec(tl::Shape{}, tl::int32)});
  };
  CHECK(shapes(yielding({tl::zeros({5, 3}), tl::scalar(1)}), 0) == std::vector<tl::Shape>{{5, 3}});
  CHECK_THROWS_WITH_AS(ints(yielding({tl::zeros({5, 4}), tl::scalar(1)})),
                       doctest::Contains("from_generator: element 0 (checked against the output_signature) component "
                                         "0 is f32[5,4] but the spec is TensorSpec(shape=(None, 3)"),
                       tl::ShapeError);
  CHECK_THROWS_AS(ints(yielding({tl::zeros({5, 3}), tl::scalar(1.f)})), tl::DTypeError);
  CHECK_THROWS_WITH_AS(ints(yielding({tl::zeros({5, 3})})), doctest::Contains("has 1 component(s)"),
                       tl::InvalidArgument);
}

TEST_CASE("data/map: values, a traced element_spec, untraceable functions") {
  Dataset ds = Dataset::range(4).map([](const Element& e) {
    tl::Tensor x = tl::cast(e[0], tl::float32);
    return Element{x * 2.f, tl::stack({x, x + 1.f})};
  });
  CHECK(column(ds, 0) == std::vector<std::vector<float>>{{0}, {2}, {4}, {6}});
  CHECK(column(ds, 1) == std::vector<std::vector<float>>{{0, 1}, {1, 2}, {2, 3}, {3, 4}});
  CHECK(ds.element_spec() == std::vector<tl::TensorSpec>{tl::TensorSpec(tl::Shape{}), tl::TensorSpec({2})});
  CHECK(ds.cardinality() == 4);
  Dataset ragged = vectors({{1, 2}, {3}}).map([](const Element& e) { return Element{tl::reduce_sum(e[0]), e[0]}; });
  CHECK(ragged.element_spec() == std::vector<tl::TensorSpec>{tl::TensorSpec(tl::Shape{}), tl::TensorSpec({-1})});
  CHECK_THROWS_WITH_AS(Dataset::range(3).map([](const Element& e) { return Element{tl::scalar(e[0].item<float>())}; }),
                       doctest::Contains("map: the function is traced once on symbolic inputs"),
                       tl::OperatorNotAllowedInGraph);
}

TEST_CASE("data/filter: keeps elements whose predicate is true") {
  Dataset ds = Dataset::range(8).filter([](const Element& e) { return tl::less(e[0], 3); });
  CHECK(ints(ds) == std::vector<int>{0, 1, 2});
  CHECK(ds.cardinality() == tl::data::unknown_cardinality);
  CHECK(ds.element_spec() == Dataset::range(8).element_spec());
  CHECK_THROWS_WITH_AS(Dataset::range(3).filter([](const Element& e) { return e[0]; }),
                       doctest::Contains("filter: the predicate must return a bool scalar, got i32[]"),
                       tl::InvalidArgument);
}

TEST_CASE("data/shuffle: deterministic from the seed, TF's buffer semantics") {
  std::vector<int> in = ints(Dataset::range(20));
  CHECK(ints(Dataset::range(20).shuffle(1, 5)) == in);  // a buffer of one keeps the order
  Dataset a = Dataset::range(20).shuffle(20, 42), b = Dataset::range(20).shuffle(20, 42);
  std::vector<int> a0 = ints(a), a1 = ints(a);
  CHECK(a0 == ints(b));  // same seed, same orders, pass by pass
  CHECK(a1 == ints(b));
  CHECK(a0 != a1);  // reshuffle_each_iteration
  CHECK(a0 != in);
  CHECK(ints(Dataset::range(20).shuffle(20, 43)) != a0);
  std::vector<int> sorted = a0;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == in);  // a permutation
  Dataset fixed = Dataset::range(20).shuffle(20, 42, /*reshuffle_each_iteration=*/false);
  CHECK(ints(fixed) == ints(fixed));
  SUBCASE("with a buffer of k, output p comes from the first p + k inputs") {
    for (std::int64_t k : {2, 3, 5}) {
      std::vector<int> out = ints(Dataset::range(30).shuffle(k, 9));
      for (std::size_t p = 0; p < out.size(); ++p) CHECK(out[p] <= static_cast<int>(p) + k - 1);
      CHECK(out != ints(Dataset::range(30)));
    }
  }
  CHECK(a.cardinality() == 20);
  CHECK_THROWS_AS(Dataset::range(3).shuffle(0, 1), tl::InvalidArgument);
}

TEST_CASE("data/batch: stacks, keeps or drops the remainder, element_spec and cardinality") {
  Dataset ds = Dataset::range(7).batch(3);
  CHECK(shapes(ds, 0) == std::vector<tl::Shape>{{3}, {3}, {1}});
  CHECK(column(ds, 0) == std::vector<std::vector<float>>{{0, 1, 2}, {3, 4, 5}, {6}});
  CHECK(ds.element_spec() == std::vector<tl::TensorSpec>{tl::TensorSpec({-1}, tl::int32)});
  CHECK(ds.cardinality() == 3);
  Dataset dropped = Dataset::range(7).batch(3, /*drop_remainder=*/true);
  CHECK(column(dropped, 0) == std::vector<std::vector<float>>{{0, 1, 2}, {3, 4, 5}});
  CHECK(dropped.element_spec() == std::vector<tl::TensorSpec>{tl::TensorSpec({3}, tl::int32)});
  CHECK(dropped.cardinality() == 2);
  Dataset pairs = Dataset::from_tensor_slices({tl::reshape(tl::range(0, 12), {4, 3}), tl::constant({true, false, true, true})}).batch(2);
  CHECK(shapes(pairs, 0) == std::vector<tl::Shape>{{2, 3}, {2, 3}});
  CHECK(column(pairs, 0)[1] == std::vector<float>{6, 7, 8, 9, 10, 11});
  CHECK(column(pairs, 1) == std::vector<std::vector<float>>{{1, 0}, {1, 1}});
  CHECK_THROWS_WITH_AS(ints(vectors({{1, 2}, {3, 4}, {5}}).batch(3)),
                       doctest::Contains("batch: component 0 of element 2 is f32[1] but element 0 (the first of its "
                                         "batch) has f32[2]; a batch stacks equal shapes — use padded_batch"),
                       tl::ShapeError);
  CHECK_THROWS_AS(Dataset::range(3).batch(0), tl::InvalidArgument);
}

TEST_CASE("data/padded_batch: pads to the batch's largest or to fixed shapes, with padding values") {
  Dataset ragged = vectors({{1}, {2, 2}, {3, 3, 3}, {4}});
  Dataset ds = ragged.padded_batch(2, {}, {tl::Tensor(-1.f)});
  CHECK(shapes(ds, 0) == std::vector<tl::Shape>{{2, 2}, {2, 3}});
  CHECK(column(ds, 0) == std::vector<std::vector<float>>{{1, -1, 2, 2}, {3, 3, 3, 4, -1, -1}});
  CHECK(ds.element_spec() == std::vector<tl::TensorSpec>{tl::TensorSpec({-1, -1})});
  CHECK(ds.cardinality() == tl::data::unknown_cardinality);
  Dataset fixed = ragged.padded_batch(3, {tl::Shape{4}}, {}, /*drop_remainder=*/true);
  CHECK(column(fixed, 0) == std::vector<std::vector<float>>{{1, 0, 0, 0, 2, 2, 0, 0, 3, 3, 3, 0}});
  CHECK(fixed.element_spec() == std::vector<tl::TensorSpec>{tl::TensorSpec({3, 4})});
  CHECK_THROWS_WITH_AS(ints(ragged.padded_batch(4, {tl::Shape{2}})),
                       doctest::Contains("padded_batch: component 0 of element 2 is f32[3], larger than the padded shape (2,)"),
                       tl::ShapeError);
  Dataset masks = Dataset::from_tensor_slices({tl::constant({true, false, true, true}, {2, 2})}).padded_batch(2, {tl::Shape{3}}, {tl::Tensor(true)});
  CHECK(column(masks, 0) == std::vector<std::vector<float>>{{1, 0, 1, 1, 1, 1}});
  CHECK_THROWS_AS(ragged.padded_batch(2, {}, {tl::scalar(1)}), tl::DTypeError);
  CHECK_THROWS_AS(ragged.padded_batch(2, {tl::Shape{2, 2}}), tl::ShapeError);
  CHECK_THROWS_AS(Dataset::from_tensor_slices({tl::zeros({2, 5})}).padded_batch(2, {tl::Shape{3}}), tl::ShapeError);
}

TEST_CASE("data/take, skip, repeat: values and TF's cardinality rules") {
  Dataset r = Dataset::range(5);
  CHECK(ints(r.take(2)) == std::vector<int>{0, 1});
  CHECK(ints(r.take(-1)) == ints(r));
  CHECK(ints(r.skip(3)) == std::vector<int>{3, 4});
  CHECK(ints(r.skip(-1)).empty());
  CHECK(ints(r.take(2).repeat(3)) == std::vector<int>{0, 1, 0, 1, 0, 1});
  CHECK(ints(r.repeat().take(7)) == std::vector<int>{0, 1, 2, 3, 4, 0, 1});
  CHECK(ints(r.take(0).repeat()).empty());  // an empty epoch ends an endless repeat
  CHECK(r.take(2).cardinality() == 2);
  CHECK(r.take(9).cardinality() == 5);
  CHECK(r.skip(2).cardinality() == 3);
  CHECK(r.skip(9).cardinality() == 0);
  CHECK(r.skip(-1).cardinality() == 0);
  CHECK(r.repeat(3).cardinality() == 15);
  CHECK(r.repeat().cardinality() == tl::data::infinite_cardinality);
  CHECK(r.repeat().take(4).cardinality() == 4);
  CHECK(r.repeat().skip(4).cardinality() == tl::data::infinite_cardinality);
  CHECK(r.repeat().batch(2).cardinality() == tl::data::infinite_cardinality);
  CHECK(r.filter([](const Element& e) { return tl::less(e[0], 2); }).repeat(2).cardinality() == tl::data::unknown_cardinality);
  CHECK(r.take(0).repeat().cardinality() == 0);
  int calls = 0;
  Dataset g = vectors({{1}, {2}}, &calls).repeat(3);
  CHECK(column(g, 0).size() == 6);
  CHECK(calls == 3);  // each repetition restarts the input
}

TEST_CASE("data/enumerate: prepends an int32 index") {
  Dataset ds = vectors({{5}, {6, 6}}).enumerate(10);
  std::vector<int> index;
  for (const Element& e : ds) index.push_back(e[0].item<int>());
  CHECK(index == std::vector<int>{10, 11});
  CHECK(column(ds, 1) == std::vector<std::vector<float>>{{5}, {6, 6}});
  CHECK(ds.element_spec() == std::vector<tl::TensorSpec>{tl::TensorSpec(tl::Shape{}, tl::int32), tl::TensorSpec({-1})});
  CHECK(Dataset::range(4).enumerate().cardinality() == 4);
}

TEST_CASE("data/prefetch: a bounded look-ahead, same elements, errors in order") {
  auto pulls = std::make_shared<int>(0);
  Dataset counted = Dataset::from_generator(
      [pulls] {
        return tl::data::GeneratorFn([pulls, i = 0]() mutable -> std::optional<Element> {
          ++*pulls;
          if (i == 6) return std::nullopt;
          if (i == 4) {
            ++i;
            return Element{tl::scalar(1.f)};  // does not fit the signature: an error at element 4
          }
          return Element{tl::scalar(i++)};
        });
      },
      {tl::TensorSpec(tl::Shape{}, tl::int32)});
  tl::data::Iterator it = counted.prefetch(2).make_iterator();
  CHECK(it.get_next()->at(0).item<int>() == 0);
  CHECK(*pulls == 3);  // element 0 delivered, elements 1 and 2 waiting
  for (int i = 1; i < 4; ++i) CHECK(it.get_next()->at(0).item<int>() == i);
  CHECK_THROWS_AS(it.get_next(), tl::DTypeError);  // the error arrives where it belongs
  CHECK(it.get_next()->at(0).item<int>() == 5);    // then the pass continues as it would without prefetch
  CHECK_FALSE(it.get_next().has_value());
  CHECK(ints(Dataset::range(5).prefetch(tl::data::autotune)) == ints(Dataset::range(5)));
  CHECK(ints(Dataset::range(5).prefetch(0)) == ints(Dataset::range(5)));
  CHECK(Dataset::range(5).prefetch(3).cardinality() == 5);
  CHECK_THROWS_AS(Dataset::range(5).prefetch(-2), tl::InvalidArgument);
}

TEST_CASE("data/iteration: range-for and make_iterator start new passes") {
  Dataset ds = Dataset::range(4);
  int total = 0;
  for (const Element& e : ds) total += e[0].item<int>();
  CHECK(total == 6);
  tl::data::Iterator it = ds.make_iterator();
  CHECK(it.element_spec() == ds.element_spec());
  int count = 0;
  while (auto e = it.get_next()) ++count;
  CHECK(count == 4);
  CHECK_FALSE(it.get_next().has_value());  // stays at the end
  CHECK(ints(ds) == std::vector<int>{0, 1, 2, 3});
  SUBCASE("inside a tl::function a range-for unrolls into constants (no dataset_loop node)") {
    auto f = tl::function([&] {
      tl::Tensor sum = tl::scalar(0);
      for (const Element& e : ds) sum = sum + e[0];
      return sum;
    }, {.name = "unrolled"});
    CHECK(f().item<int>() == 6);
    CHECK(f.concrete_functions()[0]->graph().op_counts().count("dataset_loop") == 0);
  }
}

TEST_CASE("data/for_each: eager loop, reduce, errors") {
  Dataset ds = Dataset::range(5);
  std::vector<int> seen;
  tl::data::for_each(ds, [&](const Element& e) { seen.push_back(e[0].item<int>()); });
  CHECK(seen == std::vector<int>{0, 1, 2, 3, 4});
  auto sum = [](const std::vector<tl::Tensor>& s, const Element& e) { return std::vector<tl::Tensor>{s[0] + e[0]}; };
  CHECK(ds.reduce({tl::scalar(0)}, sum)[0].item<int>() == 10);
  CHECK_THROWS_WITH_AS(tl::data::for_each(ds.repeat(), [](const Element&) {}),
                       doctest::Contains("is infinite (cardinality -1) and for_each has no break"), tl::InvalidArgument);
  CHECK_THROWS_AS(ds.reduce({tl::scalar(0)}, [](const std::vector<tl::Tensor>& s, const Element&) {
    return std::vector<tl::Tensor>{s[0], s[0]};
  }), tl::InvalidArgument);
}

namespace {

/// A linear model trained by manual SGD (tape + assign_sub) on ragged (1, X, 20) inputs.
struct Model {
  tl::Variable w, b;
};

Model make_model() {
  tl::Generator gen(3);
  return {tl::Variable(gen.uniform({20, 1}, -0.5, 0.5), "w"), tl::Variable(tl::zeros({1}), "b")};
}

void train_step(Model& m, const tl::Tensor& x, const tl::Tensor& y) {
  tl::GradientTape tape;
  tl::Tensor pred = tl::matmul(tl::reduce_mean(x, {1}), m.w) + m.b;  // (1, X, 20) -> (1, 20) -> (1, 1)
  tl::Tensor loss = tl::reduce_mean(tl::square(pred - y));
  std::vector<tl::Tensor> grads = tape.gradient(loss, std::vector<tl::Variable>{m.w, m.b});
  m.w.assign_sub(grads[0] * 0.5f);
  m.b.assign_sub(grads[1] * 0.5f);
}

/// Ragged elements {x: (1, X, 20), y: (1, 1)} with X from 2 to 8, from a generator counting its restarts.
Dataset ragged_dataset(int* factory_calls) {
  auto xs = std::make_shared<std::vector<tl::Tensor>>();
  auto ys = std::make_shared<std::vector<tl::Tensor>>();
  tl::Generator gen(11);
  for (int i = 0; i < 12; ++i) {
    std::int64_t len = 2 + (i * 3) % 7;
    xs->push_back(gen.normal({1, len, 20}));
    ys->push_back(tl::reduce_sum(tl::reduce_mean(xs->back(), {1}), {1}, true) * 0.3f + 1.f);
  }
  return Dataset::from_generator(
      [xs, ys, factory_calls] {
        ++*factory_calls;
        return tl::data::GeneratorFn([xs, ys, i = std::size_t{0}]() mutable -> std::optional<Element> {
          if (i >= xs->size()) return std::nullopt;
          ++i;
          return Element{(*xs)[i - 1], (*ys)[i - 1]};
        });
      },
      {tl::TensorSpec({1, -1, 20}), tl::TensorSpec({1, 1})});
}

void check_close(const tl::Tensor& a, const tl::Tensor& b) {
  std::vector<float> x = a.to_vector<float>(), y = b.to_vector<float>();
  REQUIRE(x.size() == y.size());
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(std::abs(x[i] - y[i]) <= 1e-5f * (1.f + std::abs(y[i])));
}

}  // namespace

TEST_CASE("data/for_each: a traced epoch of SGD steps over ragged elements equals the eager loop") {
  int eager_calls = 0, traced_calls = 0;
  Dataset eager_ds = ragged_dataset(&eager_calls), traced_ds = ragged_dataset(&traced_calls);
  Model eager = make_model();
  std::vector<tl::Tensor> eager_w, eager_b;
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (const Element& e : eager_ds) train_step(eager, e[0], e[1]);
    eager_w.push_back(eager.w.value());
    eager_b.push_back(eager.b.value());
  }
  Model traced = make_model();
  tl::Variable steps(tl::scalar(0.f), "steps");
  auto epoch = tl::function([&] {
    tl::data::for_each(traced_ds, [&](const Element& e) {
      train_step(traced, e[0], e[1]);
      steps.assign_add(1.f);
    });
  }, {.name = "epoch"});
  for (int call = 0; call < 2; ++call) {
    epoch();
    check_close(traced.w.value(), eager_w[static_cast<std::size_t>(call)]);  // every step saw the previous update
    check_close(traced.b.value(), eager_b[static_cast<std::size_t>(call)]);
    CHECK(steps.value().item<float>() == 12.f * static_cast<float>(call + 1));  // side effects per element
    CHECK(traced_calls == call + 1);  // each call restarts the dataset
  }
  CHECK(std::abs(eager_w[1].to_vector<float>()[0] - eager_w[0].to_vector<float>()[0]) > 1e-4f);  // it trained
  CHECK(epoch.tracing_count() == 1);
  const tl::graph::Graph& g = epoch.concrete_functions()[0]->graph();
  CHECK(g.op_counts().at("dataset_loop") == 1);
  for (const auto& node : g.nodes()) {
    if (node.label() != "dataset_loop") continue;
    const tl::graph::Graph& body = *node.subgraphs.at(0);
    CHECK(tl::meta_str(body.meta(body.inputs()[0])) == "f32[1,?,20]");  // traced with the unknown dim
    CHECK(body.count(tl::graph::NodeKind::variable) == 3);  // w, b, steps read afresh per element
    CHECK(body.count(tl::graph::NodeKind::assign) == 3);
    CHECK(body.str().find("= variable \"w\"") != std::string::npos);
  }
}

TEST_CASE("data/for_each: traced reduce over shuffle + batch restarts and reshuffles per call") {
  auto pipeline = [] {
    return Dataset::range(10).map([](const Element& e) { return Element{tl::cast(e[0], tl::float32)}; })
        .shuffle(4, 7).batch(3);
  };
  // acc = acc * 0.5 + sum(batch): depends on the order; n counts the batches.
  auto body = [](const std::vector<tl::Tensor>& s, const Element& e) {
    return std::vector<tl::Tensor>{s[0] * 0.5f + tl::reduce_sum(e[0]), s[1] + 1};
  };
  Dataset reference = pipeline(), ds = pipeline();
  std::vector<float> eager;
  for (int pass = 0; pass < 2; ++pass) eager.push_back(reference.reduce({tl::scalar(0.f), tl::scalar(0)}, body)[0].item<float>());
  CHECK(eager[0] != eager[1]);
  auto f = tl::function([&] { return ds.reduce({tl::scalar(0.f), tl::scalar(0)}, body); }, {.name = "reduce"});
  for (int call = 0; call < 2; ++call) {
    std::vector<tl::Tensor> out = f();
    CHECK(out[0].item<float>() == doctest::Approx(eager[static_cast<std::size_t>(call)]).epsilon(1e-6));
    CHECK(out[1].item<int>() == 4);
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("data/for_each: loop state whose shape changes becomes unknown") {
  Dataset ds = vectors({{1}, {2, 3}});
  auto concat = [](const std::vector<tl::Tensor>& s, const Element& e) {
    return std::vector<tl::Tensor>{tl::concat({s[0], e[0]}, 0)};
  };
  auto f = tl::function([&] { return ds.reduce({tl::zeros({0})}, concat)[0]; }, {.name = "grow"});
  CHECK(f().to_vector<float>() == std::vector<float>{1, 2, 3});
  CHECK(tl::meta_str(f.concrete_functions()[0]->output_specs()[0].meta()) == "f32[?]");
}

TEST_CASE("data/for_each: dataset_loop in JSON, and only while its dataset lives") {
  std::string json;
  {
    Dataset ds = Dataset::range(5);
    auto f = tl::function([&] {
      return ds.reduce({tl::scalar(0)}, [](const std::vector<tl::Tensor>& s, const Element& e) {
        return std::vector<tl::Tensor>{s[0] + e[0]};
      })[0];
    }, {.name = "sum"});
    CHECK(f().item<int>() == 10);
    const tl::graph::Graph& g = f.concrete_functions()[0]->graph();
    json = g.to_json();
    auto loaded = std::make_shared<tl::graph::Graph>(tl::graph::Graph::from_json(json));
    CHECK(loaded->str() == g.str());
    tl::graph::Executor exec(loaded);
    CHECK(exec.run(std::vector<tl::Tensor>{}).at(0).item<int>() == 10);
  }
  CHECK_THROWS_WITH_AS(tl::graph::Graph::from_json(json), doctest::Contains("does not exist in this process"),
                       tl::InvalidArgument);
}

TEST_CASE("data/for_each: under an outer tape, inlined into another function, not differentiable when traced") {
  Dataset ds = Dataset::range(4);
  tl::Variable total(tl::scalar(0), "total");
  auto f = tl::function([&] {
    tl::data::for_each(ds, [&](const Element& e) { total.assign_add(e[0]); });
    return total.read();
  }, {.name = "f"});
  {
    tl::GradientTape tape;  // the call replays op by op; the loop node runs eagerly through the funnel
    CHECK(f().item<int>() == 6);
  }
  auto outer = tl::function([&] { return f() + 1; }, {.name = "outer"});
  CHECK(outer().item<int>() == 13);
  CHECK(outer.concrete_functions()[0]->graph().op_counts().at("dataset_loop") == 1);
  auto doubling = [&](const tl::Tensor& x) {
    return ds.reduce({x}, [](const std::vector<tl::Tensor>& s, const Element&) { return std::vector<tl::Tensor>{s[0] * 2.f}; })[0];
  };
  tl::Tensor x = tl::scalar(1.f);
  {
    tl::GradientTape tape;  // eagerly the body's ops are recorded: d(16 x)/dx = 16
    tape.watch(x);
    CHECK(tape.gradient(doubling(x), x).item<float>() == 16.f);
  }
  auto traced = tl::function(doubling, {.name = "doubling"});
  tl::GradientTape tape;  // traced, the dataset_loop node has no gradient: the source is unconnected
  tape.watch(x);
  tl::Tensor y = traced(x);
  CHECK(y.item<float>() == 16.f);
  CHECK_FALSE(tape.gradient(y, x).defined());
}

TEST_CASE("data/for_each: a dataset built inside the traced function") {
  auto f = tl::function([] {
    Dataset ds = Dataset::range(4).map([](const Element& e) { return Element{e[0] * 2}; });
    return ds.reduce({tl::scalar(0)}, [](const std::vector<tl::Tensor>& s, const Element& e) {
      return std::vector<tl::Tensor>{s[0] + e[0]};
    })[0];
  }, {.name = "inner"});
  CHECK(f().item<int>() == 12);
  CHECK(f().item<int>() == 12);
  CHECK(f.tracing_count() == 1);
}

}  // namespace dataset_test
