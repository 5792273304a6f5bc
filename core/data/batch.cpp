// batch and padded_batch: collect up to batch_size consecutive elements and stack each component along a new
// dim 0. batch needs equal shapes within a batch; padded_batch pads every component up to its padded shape
// (-1: the largest size in this batch) with its padding value. The last, smaller batch is kept unless
// drop_remainder; without drop_remainder the batch dim of element_spec is unknown (-1), as in TF.
#include <algorithm>

#include "data/detail/dataset_node.h"
#include "tracelab/tensor/creation.h"

namespace tl::data {
namespace {

std::int64_t batch_cardinality(std::int64_t input, std::int64_t batch_size, bool drop_remainder) {
  if (input == infinite_cardinality || input == unknown_cardinality) return input;
  return drop_remainder ? input / batch_size : (input + batch_size - 1) / batch_size;
}

/// The spec of a batch of `spec` elements with per-component `shapes` (the padded shapes, or the rows' own).
std::vector<TensorSpec> batched_spec(const std::vector<TensorSpec>& spec, const std::vector<Shape>& shapes,
                                     std::int64_t batch_size, bool drop_remainder) {
  std::vector<TensorSpec> out;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    std::vector<std::int64_t> dims{drop_remainder ? batch_size : -1};
    for (std::size_t d = 0; d < shapes[i].dims().size(); ++d) {
      std::int64_t padded = shapes[i][d];
      dims.push_back(padded >= 0 ? padded : spec[i].shape()[d]);
    }
    out.emplace_back(Shape(std::move(dims)), spec[i].dtype());
  }
  return out;
}

/// The next up to `batch_size` elements of `source` (nothing at the end, or for a short batch when dropped).
std::optional<std::vector<Element>> collect(detail::ElementSource& source, std::int64_t batch_size,
                                            bool drop_remainder) {
  std::vector<Element> rows;
  while (static_cast<std::int64_t>(rows.size()) < batch_size) {
    std::optional<Element> element = source.next();
    if (!element) break;
    rows.push_back(std::move(*element));
  }
  if (rows.empty() || (drop_remainder && static_cast<std::int64_t>(rows.size()) < batch_size)) return std::nullopt;
  return rows;
}

/// The component `c` of every row, after checking the rows share one shape.
std::vector<Tensor> equal_rows(const std::vector<Element>& rows, std::size_t c, std::int64_t first_index) {
  std::vector<Tensor> out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Tensor& t = rows[r].at(c);
    TL_CHECK(t.meta() == rows[0][c].meta(), ShapeError, "batch: component ", c, " of element ",
             first_index + static_cast<std::int64_t>(r), " is ", meta_str(t.meta()), " but element ", first_index,
             " (the first of its batch) has ", meta_str(rows[0][c].meta()),
             "; a batch stacks equal shapes — use padded_batch for ragged elements");
    out.push_back(t);
  }
  return out;
}

/// The target shape of component `c` for this batch: padded dims, or the largest size among the rows.
Shape padded_target(const std::vector<Element>& rows, std::size_t c, const Shape& padded, std::int64_t first_index) {
  std::vector<std::int64_t> dims{static_cast<std::int64_t>(rows.size())};
  for (int d = 0; d < padded.rank(); ++d) {
    auto du = static_cast<std::size_t>(d);
    std::int64_t largest = 0;
    for (const Element& row : rows) largest = std::max(largest, row[c].shape()[du]);
    std::int64_t target = padded[du] >= 0 ? padded[du] : largest;
    for (std::size_t r = 0; r < rows.size(); ++r)
      TL_CHECK(rows[r][c].shape()[du] <= target, ShapeError, "padded_batch: component ", c, " of element ",
               first_index + static_cast<std::int64_t>(r), " is ", meta_str(rows[r][c].meta()), ", larger than the padded shape ",
               padded.str(), " in dim ", d);
    dims.push_back(target);
  }
  return Shape(std::move(dims));
}

/// padding_values made concrete scalars of each component's dtype (weak C++ numbers adopt it).
std::vector<Tensor> padding_scalars(const std::vector<TensorSpec>& spec, const std::vector<Tensor>& values) {
  TL_CHECK(values.empty() || values.size() == spec.size(), InvalidArgument, "padded_batch: ", values.size(),
           " padding value(s) for ", spec.size(), " component(s)");
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    Tensor v = values.empty() ? Tensor(0) : values[i];
    TL_CHECK(v.defined() && !v.is_symbolic() && v.rank() == 0, InvalidArgument, "padded_batch: padding value ", i,
             " must be a concrete scalar, got ", v.defined() ? meta_str(v.meta()) : std::string("an empty handle"));
    TL_CHECK(v.is_weak() || v.dtype() == spec[i].dtype(), DTypeError, "padded_batch: padding value ", i, " is ",
             dtype_name(v.dtype()), " but component ", i, " is ", dtype_name(spec[i].dtype()));
    out.push_back(visit_dtype(spec[i].dtype(), [&](auto tag) { return scalar(v.item<decltype(tag)>()); }));
  }
  return out;
}

/// padded_shapes checked against the element_spec (default: every dim padded to the batch's largest).
std::vector<Shape> checked_padded_shapes(const std::vector<TensorSpec>& spec, std::vector<Shape> shapes) {
  if (shapes.empty())
    for (const TensorSpec& s : spec) shapes.emplace_back(std::vector<std::int64_t>(s.shape().dims().size(), -1));
  TL_CHECK(shapes.size() == spec.size(), InvalidArgument, "padded_batch: ", shapes.size(), " padded shape(s) for ",
           spec.size(), " component(s)");
  for (std::size_t i = 0; i < spec.size(); ++i) {
    TL_CHECK(shapes[i].rank() == spec[i].shape().rank(), ShapeError, "padded_batch: padded shape ", shapes[i].str(),
             " has a different rank from component ", i, " ", spec[i].str());
    for (std::size_t d = 0; d < shapes[i].dims().size(); ++d) {
      std::int64_t want = shapes[i][d], have = spec[i].shape()[d];
      TL_CHECK(want >= -1, InvalidArgument, "padded_batch: padded shape ", shapes[i].str(), " has a dim below -1");
      TL_CHECK(want < 0 || have < 0 || have <= want, ShapeError, "padded_batch: component ", i, " ", spec[i].str(),
               " does not fit the padded shape ", shapes[i].str(), " (dim ", d, ")");
    }
  }
  return shapes;
}

}  // namespace

Dataset Dataset::batch(std::int64_t batch_size, bool drop_remainder) const {
  TL_CHECK(batch_size >= 1, InvalidArgument, "batch: batch_size must be >= 1, got ", batch_size);
  std::vector<Shape> own;
  for (const TensorSpec& s : element_spec()) own.push_back(s.shape());
  auto input = node_;
  return detail::make_dataset(
      "BatchDataset", batched_spec(element_spec(), own, batch_size, drop_remainder),
      batch_cardinality(cardinality(), batch_size, drop_remainder), [input, batch_size, drop_remainder] {
        return std::make_shared<detail::FnSource>(
            [source = input->make_source(), batch_size, drop_remainder,
             index = std::int64_t{0}]() mutable -> std::optional<Element> {
              std::optional<std::vector<Element>> rows = collect(*source, batch_size, drop_remainder);
              if (!rows) return std::nullopt;
              Element out;
              for (std::size_t c = 0; c < rows->front().size(); ++c) {
                std::vector<Tensor> parts = equal_rows(*rows, c, index);
                std::vector<std::int64_t> dims{static_cast<std::int64_t>(parts.size())};
                for (auto d : parts[0].shape().dims()) dims.push_back(d);
                out.push_back(detail::stack_padded(parts, Shape(std::move(dims)), Tensor()));
              }
              index += static_cast<std::int64_t>(rows->size());
              return out;
            });
      });
}

Dataset Dataset::padded_batch(std::int64_t batch_size, std::vector<Shape> padded_shapes,
                              std::vector<Tensor> padding_values, bool drop_remainder) const {
  TL_CHECK(batch_size >= 1, InvalidArgument, "padded_batch: batch_size must be >= 1, got ", batch_size);
  std::vector<Shape> shapes = checked_padded_shapes(element_spec(), std::move(padded_shapes));
  std::vector<Tensor> padding = padding_scalars(element_spec(), padding_values);
  auto input = node_;
  return detail::make_dataset(
      "PaddedBatchDataset", batched_spec(element_spec(), shapes, batch_size, drop_remainder),
      batch_cardinality(cardinality(), batch_size, drop_remainder), [input, batch_size, drop_remainder, shapes, padding] {
        return std::make_shared<detail::FnSource>(
            [source = input->make_source(), batch_size, drop_remainder, shapes, padding,
             index = std::int64_t{0}]() mutable -> std::optional<Element> {
              std::optional<std::vector<Element>> rows = collect(*source, batch_size, drop_remainder);
              if (!rows) return std::nullopt;
              Element out;
              for (std::size_t c = 0; c < shapes.size(); ++c) {
                std::vector<Tensor> parts;
                for (const Element& row : *rows) parts.push_back(row.at(c));
                out.push_back(detail::stack_padded(parts, padded_target(*rows, c, shapes[c], index), padding[c]));
              }
              index += static_cast<std::int64_t>(rows->size());
              return out;
            });
      });
}

}  // namespace tl::data
