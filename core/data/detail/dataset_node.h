// The inside of a Dataset: a DatasetNode is one immutable stage of the pipeline (its kind, element_spec and
// cardinality) that can start any number of passes; an ElementSource is one running pass. Transformations
// hold their input node and, per pass, their input's source. Also the element helpers the stages share.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tracelab/data/dataset.h"
#include "tracelab/graph/graph.h"

namespace tl::data::detail {

/// One running pass over a dataset stage: next() gives the following element, or nothing at the end.
class ElementSource {
 public:
  virtual ~ElementSource() = default;
  virtual std::optional<Element> next() = 0;
};
using SourcePtr = std::shared_ptr<ElementSource>;

/// A pass driven by a callable (the small stages: take, skip, map, ...).
class FnSource final : public ElementSource {
 public:
  explicit FnSource(std::function<std::optional<Element>()> fn) : fn_(std::move(fn)) {}
  std::optional<Element> next() override { return fn_(); }

 private:
  std::function<std::optional<Element>()> fn_;
};

/// One stage of a pipeline: immutable after construction, shared by every Dataset value that uses it.
class DatasetNode {
 public:
  using MakeSource = std::function<SourcePtr()>;
  /// `kind` as in TF's class names ("BatchDataset"); `make_source` starts one pass.
  DatasetNode(std::string kind, std::vector<TensorSpec> spec, std::int64_t cardinality, MakeSource make_source);

  /// A fresh pass.
  SourcePtr make_source() const { return make_source_(); }
  const std::string& kind() const noexcept { return kind_; }
  const std::vector<TensorSpec>& spec() const noexcept { return spec_; }
  std::int64_t cardinality() const noexcept { return cardinality_; }
  /// A process-unique id (names the dataset in a dataset_loop node).
  std::uint64_t id() const noexcept { return id_; }

 private:
  std::string kind_;
  std::vector<TensorSpec> spec_;
  std::int64_t cardinality_;
  MakeSource make_source_;
  std::uint64_t id_;
};

/// A Dataset over a new node.
Dataset make_dataset(std::string kind, std::vector<TensorSpec> spec, std::int64_t cardinality,
                     DatasetNode::MakeSource make_source);

// ---- element helpers (element.cpp) ----

/// Throws unless `element` fits `spec` (component count, dtypes, known dims); `what` names the stage and
/// element in the message, e.g. "from_generator: element 3".
void check_element(const Element& element, const std::vector<TensorSpec>& spec, const std::string& what);
/// The metas of a spec list.
std::vector<TensorMeta> metas_of(const std::vector<TensorSpec>& spec);
/// Traces `fn` once on symbolic inputs of `spec` (a throwaway trace) and returns the specs of its outputs.
/// `stage` names the transformation in errors (a function that reads values is not traceable).
std::vector<TensorSpec> trace_output_spec(const std::string& stage, const std::vector<TensorSpec>& spec,
                                          const std::function<std::vector<Tensor>(const Element&)>& fn);
/// Row `index` of a concrete tensor (dims 1..): a copy.
Tensor slice_row(const Tensor& tensor, std::int64_t index);
/// The tensors of `rows` (equal dtype; each no larger than `shape[1:]`) stacked into one tensor of `shape`,
/// each row padded with `padding` (a scalar of the same dtype) where it is smaller.
Tensor stack_padded(const std::vector<Tensor>& rows, const Shape& shape, const Tensor& padding);
/// "(TensorSpec(...), TensorSpec(...))" as TF prints an element_spec tuple.
std::string spec_str(const std::vector<TensorSpec>& spec);

// ---- the in-graph loop (loop_op.cpp) ----

/// Remembers `dataset` (weakly) under its id, so a graph loaded from JSON in this process can find it.
void remember_dataset(const std::shared_ptr<const DatasetNode>& dataset);

}  // namespace tl::data::detail
