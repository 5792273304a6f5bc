// The sources of a pipeline: from_tensor_slices (rows of concrete tensors), from_generator (a C++ generator
// made afresh for every pass, each element checked against the output signature) and range (int32 scalars).
#include <climits>

#include "data/detail/dataset_node.h"
#include "tracelab/tensor/creation.h"

namespace tl::data {
namespace {

/// The specs of the rows of `components` after checking they can be sliced together; sets `count`.
std::vector<TensorSpec> slice_spec(const std::vector<Tensor>& components, std::int64_t& count) {
  TL_CHECK(!components.empty(), InvalidArgument, "from_tensor_slices: needs at least one component");
  std::vector<TensorSpec> spec;
  for (std::size_t i = 0; i < components.size(); ++i) {
    const Tensor& c = components[i];
    TL_CHECK(c.defined(), InvalidArgument, "from_tensor_slices: component ", i, " is an empty Tensor handle");
    TL_CHECK(!c.is_symbolic(), InvalidArgument, "from_tensor_slices: component ", i, " is a symbolic tensor ",
             meta_str(c.meta()), "; datasets hold concrete tensors (build the dataset outside the tl::function)");
    TL_CHECK(c.rank() >= 1, ShapeError, "from_tensor_slices: component ", i, " is a scalar ", meta_str(c.meta()),
             "; slicing needs rank >= 1");
    TL_CHECK(c.shape()[0] == components[0].shape()[0], ShapeError,
             "from_tensor_slices: all components must have the same size in dim 0 (the number of elements), got ",
             meta_str(components[0].meta()), " (component 0) and ", meta_str(c.meta()), " (component ", i, ")");
    const auto& dims = c.shape().dims();
    spec.emplace_back(Shape(std::vector<std::int64_t>(dims.begin() + 1, dims.end())), c.dtype());
  }
  count = components[0].shape()[0];
  return spec;
}

}  // namespace

Dataset Dataset::from_tensor_slices(std::vector<Tensor> components) {
  std::int64_t count = 0;
  std::vector<TensorSpec> spec = slice_spec(components, count);
  auto shared = std::make_shared<const std::vector<Tensor>>(std::move(components));
  return detail::make_dataset("TensorSliceDataset", std::move(spec), count, [shared, count] {
    return std::make_shared<detail::FnSource>([shared, count, index = std::int64_t{0}]() mutable -> std::optional<Element> {
      if (index >= count) return std::nullopt;
      Element element;
      for (const Tensor& c : *shared) element.push_back(detail::slice_row(c, index));
      ++index;
      return element;
    });
  });
}

Dataset Dataset::from_generator(GeneratorFactory generator, std::vector<TensorSpec> output_signature) {
  TL_CHECK(static_cast<bool>(generator), InvalidArgument, "from_generator: the generator factory is empty");
  auto spec = output_signature;
  return detail::make_dataset(
      "GeneratorDataset", std::move(spec), unknown_cardinality,
      [generator = std::move(generator), signature = std::move(output_signature)] {
        GeneratorFn next = generator();
        TL_CHECK(static_cast<bool>(next), InvalidArgument, "from_generator: the factory returned an empty generator");
        return std::make_shared<detail::FnSource>(
            [next = std::move(next), signature, index = std::int64_t{0}, done = false]() mutable -> std::optional<Element> {
              if (done) return std::nullopt;
              std::optional<Element> element = next();
              if (!element) {
                done = true;
                return std::nullopt;
              }
              detail::check_element(*element, signature, "from_generator: element " + std::to_string(index++) +
                                                             " (checked against the output_signature)");
              return element;
            });
      });
}

Dataset Dataset::range(std::int64_t stop) { return range(0, stop, 1); }

Dataset Dataset::range(std::int64_t start, std::int64_t stop, std::int64_t step) {
  TL_CHECK(step != 0, InvalidArgument, "range: step must be non-zero");
  std::int64_t count = step > 0 ? (stop > start ? (stop - start + step - 1) / step : 0)
                                : (stop < start ? (start - stop - step - 1) / -step : 0);
  std::int64_t last = count > 0 ? start + (count - 1) * step : start;
  TL_CHECK(count == 0 || (start >= INT32_MIN && start <= INT32_MAX && last >= INT32_MIN && last <= INT32_MAX),
           InvalidArgument, "range: values from ", start, " to ", last, " do not fit in int32");
  return detail::make_dataset("RangeDataset", {TensorSpec(Shape{}, int32)}, count, [start, step, count] {
    return std::make_shared<detail::FnSource>([start, step, count, index = std::int64_t{0}]() mutable -> std::optional<Element> {
      if (index >= count) return std::nullopt;
      return Element{scalar(static_cast<std::int32_t>(start + step * index++))};
    });
  });
}

}  // namespace tl::data
