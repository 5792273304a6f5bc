// Iterating a tl::data::Dataset: an Iterator walks one pass over the pipeline (TF's iter(dataset) /
// get_next); ElementIterator is the input iterator behind range-for. Each pass starts the pipeline afresh
// (generators are re-created, shuffles draw their next order). The pipeline always runs eagerly: inside a
// tl::function a range-for unrolls the dataset into constants — use tl::data::for_each for an in-graph loop.
//
//   tl::data::Iterator it = dataset.make_iterator();
//   while (std::optional<tl::data::Element> e = it.get_next()) use((*e)[0], (*e)[1]);
//   for (const tl::data::Element& e : dataset) use(e[0], e[1]);
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

#include "tracelab/tensor/tensor.h"
#include "tracelab/tensor/tensor_spec.h"

namespace tl::data {

/// One element of a dataset: its components, e.g. {x, y} (TF's nested structure, flattened).
using Element = std::vector<Tensor>;

namespace detail {
class ElementSource;
}  // namespace detail

/// One pass over a dataset (TF's OwnedIterator). Move-only; each make_iterator() starts a new pass.
class Iterator {
 public:
  /// Built by Dataset::make_iterator from a fresh source of elements and the dataset's element_spec.
  Iterator(std::shared_ptr<detail::ElementSource> source, std::vector<TensorSpec> element_spec);
  /// Takes over the other iterator's pass.
  Iterator(Iterator&&) noexcept;
  /// Ends this pass and takes over the other iterator's.
  Iterator& operator=(Iterator&&) noexcept;
  Iterator(const Iterator&) = delete;
  Iterator& operator=(const Iterator&) = delete;
  ~Iterator();

  /// The next element, or nothing at the end (TF's get_next_as_optional). Runs the pipeline eagerly, with
  /// tapes paused; errors of the pipeline (a map function's, a batch of unequal shapes, ...) propagate.
  std::optional<Element> get_next();
  /// What every element looks like: one spec per component, -1 for dims that vary.
  const std::vector<TensorSpec>& element_spec() const noexcept { return element_spec_; }

 private:
  std::shared_ptr<detail::ElementSource> source_;
  std::vector<TensorSpec> element_spec_;
};

/// The input iterator of range-for: `for (const Element& e : dataset)`. Compares equal to
/// std::default_sentinel at the end of the pass.
class ElementIterator {
 public:
  using iterator_category = std::input_iterator_tag;  ///< single pass
  using value_type = Element;                         ///< the element's components
  using difference_type = std::ptrdiff_t;             ///< required by the iterator concepts
  using pointer = const Element*;                     ///< what operator-> returns
  using reference = const Element&;                   ///< what operator* returns

  /// An iterator of no pass (an input iterator must be default-constructible).
  ElementIterator() = default;
  /// Starts a pass and fetches the first element.
  explicit ElementIterator(Iterator iterator);

  /// The current element.
  const Element& operator*() const { return *current_; }
  /// The current element's address.
  const Element* operator->() const { return &*current_; }
  /// Fetches the next element.
  ElementIterator& operator++();
  /// Post-increment of an input iterator: advances; the returned copy is not dereferenceable.
  void operator++(int) { ++*this; }
  /// True at the end of the pass.
  friend bool operator==(const ElementIterator& it, std::default_sentinel_t) noexcept { return !it.current_; }

 private:
  std::shared_ptr<Iterator> iterator_;
  std::optional<Element> current_;
};

}  // namespace tl::data
