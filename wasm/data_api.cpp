// tl.data for JavaScript: the core's tl::data::Dataset by handle, with JS generators, map functions, filter
// predicates and loop bodies called through trampolines (errors in them come back as C++ exceptions, so a
// pipeline or a trace unwinds normally).
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "adapters.h"
#include "handles.h"

namespace tl::wasm {
namespace {

using data::Dataset;

HandleTable<Dataset>& datasets() {
  static HandleTable<Dataset> table("dataset");
  return table;
}
HandleTable<data::Iterator>& iterators() {
  static HandleTable<data::Iterator> table("iterator");
  return table;
}

std::vector<TensorSpec> to_specs(const val& js, const std::string& what) {
  TL_CHECK(is_array(js), InvalidArgument, what, ": the output signature must be an array of TensorSpecs");
  std::vector<TensorSpec> specs;
  for (unsigned i = 0, n = length_of(js); i < n; ++i) specs.push_back(to_spec(js[i], what + "[" + std::to_string(i) + "]"));
  return specs;
}

template <class Make>
val make_dataset(Make&& make) {
  return guarded([&] { return val(datasets().add(make())); });
}

}  // namespace

val dataset_from_slices(const val& components) {
  return make_dataset([&] {
    return Dataset::from_tensor_slices(tensors_of(components, "fromTensorSlices"));
  });
}

/// `next()` (made fresh by the JS side for every pass) answers {outputs: [handles]}, {done: true} or {error}.
val dataset_from_generator(const val& start_pass, const val& signature) {
  return make_dataset([&] {
    val start = start_pass;
    data::GeneratorFactory factory = [start]() {
      val next = start();
      return data::GeneratorFn([next]() -> std::optional<data::Element> {
        val result = next();
        if (!result["done"].isUndefined() && result["done"].as<bool>()) return std::nullopt;
        if (!result["error"].isUndefined())
          rethrow_as(result["error"]["name"].as<std::string>(), result["error"]["message"].as<std::string>());
        return data::Element(take_tensors(result["outputs"], "fromGenerator: an element"));
      });
    };
    return Dataset::from_generator(factory, to_specs(signature, "fromGenerator"));
  });
}

val dataset_range(double start, double stop, double step) {
  return make_dataset([&] {
    return Dataset::range(static_cast<std::int64_t>(start), static_cast<std::int64_t>(stop), static_cast<std::int64_t>(step));
  });
}

/// One transformation: kind and its arguments as a JS object.
val dataset_transform(double id, const std::string& kind, const val& a) {
  return make_dataset([&]() -> Dataset {
    const Dataset& ds = datasets().get(id);
    auto num = [&](const char* name) { return static_cast<std::int64_t>(a[name].as<double>()); };
    auto flag = [&](const char* name) { return !a[name].isUndefined() && a[name].as<bool>(); };
    if (kind == "map") {
      val fn = a["fn"];
      return ds.map([fn](const data::Element& e) { return call_js(fn, e); });
    }
    if (kind == "filter") {
      val fn = a["fn"];
      return ds.filter([fn](const data::Element& e) {
        auto out = call_js(fn, e);
        TL_CHECK(out.size() == 1, InvalidArgument, "filter: the predicate must return one bool tensor");
        return out[0];
      });
    }
    if (kind == "shuffle") return ds.shuffle(num("bufferSize"), static_cast<std::uint64_t>(num("seed")), !a["reshuffle"].isFalse());
    if (kind == "batch") return ds.batch(num("batchSize"), flag("dropRemainder"));
    if (kind == "paddedBatch") {
      std::vector<Shape> shapes;
      if (!a["paddedShapes"].isUndefined())
        for (unsigned i = 0, n = length_of(a["paddedShapes"]); i < n; ++i)
          shapes.emplace_back(to_ints(a["paddedShapes"][i], "paddedBatch: paddedShapes"));
      std::vector<Tensor> values;
      if (!a["paddingValues"].isUndefined()) values = tensors_of(a["paddingValues"], "paddedBatch: paddingValues");
      return ds.padded_batch(num("batchSize"), shapes, values, flag("dropRemainder"));
    }
    if (kind == "take") return ds.take(num("count"));
    if (kind == "skip") return ds.skip(num("count"));
    if (kind == "repeat") return ds.repeat(a["count"].isUndefined() ? -1 : num("count"));
    if (kind == "enumerate") return ds.enumerate(a["start"].isUndefined() ? 0 : num("start"));
    if (kind == "prefetch") return ds.prefetch(num("bufferSize"));
    throw InvalidArgument("tl.data: unknown transformation '" + kind + "'");
  });
}

val dataset_info(double id) {
  return guarded([&] {
    const Dataset& ds = datasets().get(id);
    val info = val::object();
    info.set("elementSpec", specs_to_js(ds.element_spec()));
    info.set("cardinality", static_cast<double>(ds.cardinality()));
    info.set("str", ds.str());
    return info;
  });
}

/// tl::data::for_each: eagerly a loop; inside a tl.function one dataset_loop graph node (the body traced once).
val dataset_for_each(double id, const val& body) {
  return guarded([&] {
    val fn = body;
    data::for_each(datasets().get(id), [fn](const data::Element& e) { call_js(fn, e); });
    return val::undefined();
  });
}

bool dataset_dispose(double id) { return datasets().remove(id); }

const data::Dataset& dataset_of(double id) { return datasets().get(id); }

val iterator_new(double dataset) {
  return guarded([&] { return val(iterators().add(datasets().get(dataset).make_iterator())); });
}

/// The next element as tensor handles, or null at the end.
val iterator_next(double id) {
  return guarded([&] {
    std::optional<data::Element> element = iterators().get(id).get_next();
    return element ? handles_of(*element) : val::null();
  });
}

bool iterator_dispose(double id) { return iterators().remove(id); }

}  // namespace tl::wasm
