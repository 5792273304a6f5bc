// Element helpers shared by the dataset stages: checking an element against a spec, tracing a map function
// for its output spec, and the copies behind from_tensor_slices (a row) and batch / padded_batch (stacking
// rows into a padded block). The copies are plain loops over the buffers: datasets hold concrete tensors.
#include <algorithm>

#include "data/detail/dataset_node.h"
#include "function/detail/tracer.h"

namespace tl::data::detail {

std::vector<TensorMeta> metas_of(const std::vector<TensorSpec>& spec) {
  std::vector<TensorMeta> metas;
  metas.reserve(spec.size());
  for (const TensorSpec& s : spec) metas.push_back(s.meta());
  return metas;
}

void check_element(const Element& element, const std::vector<TensorSpec>& spec, const std::string& what) {
  TL_CHECK(element.size() == spec.size(), InvalidArgument, what, " has ", element.size(),
           " component(s) but the element_spec has ", spec.size(), ": ", spec_str(spec));
  for (std::size_t i = 0; i < element.size(); ++i) {
    const Tensor& t = element[i];
    TL_CHECK(t.defined(), InvalidArgument, what, " component ", i, " is an empty Tensor handle");
    TL_CHECK(!t.is_symbolic(), InvalidArgument, what, " component ", i, " is a symbolic tensor ",
             meta_str(t.meta()), "; dataset elements are concrete (build datasets outside tl::function)");
    std::string why = spec[i].mismatch(t.meta());
    if (why.empty()) continue;
    std::string message = tl::detail::cat(what, " component ", i, " is ", meta_str(t.meta()), " but the spec is ",
                                          spec[i].str(), ": ", why);
    if (t.dtype() != spec[i].dtype()) throw DTypeError(message);
    throw ShapeError(message);
  }
}

std::vector<TensorSpec> trace_output_spec(const std::string& stage, const std::vector<TensorSpec>& spec,
                                          const std::function<std::vector<Tensor>(const Element&)>& fn) {
  tl::detail::Tracer tracer(stage, /*allow_variables=*/false);
  Element inputs;
  for (std::size_t i = 0; i < spec.size(); ++i)
    inputs.push_back(tracer.add_input(spec[i].meta(), "component" + std::to_string(i)));
  std::vector<Tensor> outputs;
  try {
    outputs = fn(inputs);
  } catch (const OperatorNotAllowedInGraph& e) {
    throw OperatorNotAllowedInGraph(tl::detail::cat(
        stage, ": the function is traced once on symbolic inputs ", spec_str(spec),
        " to compute the element_spec (as tf.data traces map functions), so it must use ops only: ", e.what()));
  }
  std::vector<TensorSpec> result;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    TL_CHECK(outputs[i].defined(), InvalidArgument, stage, ": output ", i, " of the function is an empty Tensor handle");
    result.emplace_back(outputs[i].shape(), outputs[i].dtype());
  }
  return result;
}

Tensor slice_row(const Tensor& tensor, std::int64_t index) {
  const auto& dims = tensor.shape().dims();
  Tensor row = Tensor::empty(tensor.dtype(), Shape(std::vector<std::int64_t>(dims.begin() + 1, dims.end())));
  const std::int64_t count = row.num_elements();
  visit_dtype(tensor.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy_n(tensor.data<T>() + index * count, count, row.mutable_data<T>());
  });
  return row;
}

namespace {

/// Copies `row` into `dst` (a block laid out with `out_strides`, one per dim of the row), innermost runs at once.
template <class T>
void copy_into(const Tensor& row, T* dst, const std::vector<std::int64_t>& out_strides) {
  const auto& dims = row.shape().dims();
  const T* src = row.data<T>();
  const std::int64_t total = row.num_elements();
  if (total == 0) return;
  if (dims.empty()) {
    *dst = *src;
    return;
  }
  const std::int64_t inner = dims.back();
  std::vector<std::int64_t> index(dims.size() - 1, 0);
  for (std::int64_t start = 0; start < total; start += inner) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * out_strides[d];
    std::copy_n(src + start, inner, dst + offset);
    for (std::size_t d = index.size(); d-- > 0;) {  // odometer over the outer dims
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

Tensor stack_padded(const std::vector<Tensor>& rows, const Shape& shape, const Tensor& padding) {
  Tensor out = Tensor::empty(rows.at(0).dtype(), shape);
  const auto& dims = shape.dims();
  Shape row_shape(std::vector<std::int64_t>(dims.begin() + 1, dims.end()));
  const std::vector<std::int64_t> row_strides = row_shape.strides();
  const std::int64_t row_size = row_shape.num_elements();
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* data = out.mutable_data<T>();
    if (padding.defined()) std::fill_n(data, out.num_elements(), padding.item<T>());
    for (std::size_t b = 0; b < rows.size(); ++b)
      copy_into<T>(rows[b], data + static_cast<std::int64_t>(b) * row_size, row_strides);
  });
  return out;
}

}  // namespace tl::data::detail
