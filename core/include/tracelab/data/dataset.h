// tl::data::Dataset: a tf.data-style input pipeline. A Dataset is a cheap value (a shared, immutable
// description of the pipeline); each pass (make_iterator, range-for, for_each) runs it from the start. Sources
// (from_tensor_slices, from_generator, range) feed transformations (map, filter, shuffle, batch, padded_batch,
// take, skip, repeat, enumerate, prefetch); element_spec() and cardinality() are known without running it.
// tl::data::for_each traced inside a tl::function becomes ONE graph node that runs the whole loop — TF's
// `for x, y in dataset: train_step(x, y)` inside a tf.function. docs/datasets.md.
//
//   auto ds = tl::data::Dataset::from_tensor_slices({x, y}).shuffle(100, /*seed=*/7).batch(32);
//   for (const tl::data::Element& batch : ds) train_step(batch[0], batch[1]);
//   auto epoch = tl::function([&] { tl::data::for_each(ds, [&](const auto& e) { train_step(e[0], e[1]); }); });
#pragma once

#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tracelab/data/iterator.h"

namespace tl::data {

/// cardinality() of a dataset that never ends (tf.data.INFINITE_CARDINALITY).
inline constexpr std::int64_t infinite_cardinality = -1;
/// cardinality() when the count cannot be known without running the pipeline (tf.data.UNKNOWN_CARDINALITY).
inline constexpr std::int64_t unknown_cardinality = -2;
/// prefetch(autotune) as in tf.data.AUTOTUNE: here a look-ahead of one element (nothing is tuned).
inline constexpr std::int64_t autotune = -1;

/// One pass of a generator: the next element, or std::nullopt at the end.
using GeneratorFn = std::function<std::optional<Element>()>;
/// Makes a fresh generator. from_generator calls it at the start of every pass, so passes restart.
using GeneratorFactory = std::function<GeneratorFn()>;
/// A map function: one element in, one element out (the component count may change).
using MapFn = std::function<Element(const Element&)>;
/// A filter predicate: returns a bool scalar Tensor.
using PredicateFn = std::function<Tensor(const Element&)>;
/// A loop body without state.
using LoopBodyFn = std::function<void(const Element&)>;
/// A loop body carrying state (TF's reduce_func): returns the next state from the state and the element.
using ReduceFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& state, const Element& element)>;

namespace detail {
class DatasetNode;
}  // namespace detail

/// An input pipeline (tf.data.Dataset): a source and the transformations applied to it. Immutable: every
/// transformation returns a new Dataset; copies are cheap and share the description.
class Dataset {
 public:
  // ---- sources ----
  /// Slices every component along dim 0: element i is {c[i] for each component c} (tf.data.Dataset.
  /// from_tensor_slices). Components must be concrete, of rank >= 1, and agree on dim 0 (ShapeError otherwise).
  static Dataset from_tensor_slices(std::vector<Tensor> components);
  /// The elements a generator yields (tf.data.Dataset.from_generator): `generator()` makes a fresh generator at
  /// the start of every pass. Each element is checked against `output_signature` (dims of -1 accept any size);
  /// a mismatch is a DTypeError / ShapeError / InvalidArgument naming the element, the component and both specs.
  static Dataset from_generator(GeneratorFactory generator, std::vector<TensorSpec> output_signature);
  /// int32 scalars 0, 1, ..., stop - 1 (tf.data.Dataset.range).
  static Dataset range(std::int64_t stop);
  /// int32 scalars start, start + step, ... up to but excluding stop; step must be non-zero.
  static Dataset range(std::int64_t start, std::int64_t stop, std::int64_t step = 1);

  // ---- transformations (each returns a new Dataset; this one is unchanged) ----
  /// Applies `fn` to every element. `fn` is traced once here on symbolic inputs to compute the new
  /// element_spec (as tf.data traces map functions), so it must use ops only; it runs eagerly on each element.
  Dataset map(MapFn fn) const;
  /// Keeps the elements for which `predicate` returns true (a bool scalar; InvalidArgument otherwise).
  Dataset filter(PredicateFn predicate) const;
  /// TF's buffer shuffle: fills a buffer of `buffer_size` elements, outputs a random one and puts the next
  /// input element in its place. Deterministic from `seed`; with `reshuffle_each_iteration` pass k uses a seed
  /// derived from (seed, k), otherwise every pass repeats the same order. buffer_size 1 keeps the order.
  Dataset shuffle(std::int64_t buffer_size, std::uint64_t seed, bool reshuffle_each_iteration = true) const;
  /// Stacks `batch_size` consecutive elements into one (a new dim 0 per component); the last batch may be
  /// smaller unless `drop_remainder`. Components of one batch must have equal shapes (ShapeError otherwise).
  Dataset batch(std::int64_t batch_size, bool drop_remainder = false) const;
  /// Like batch, padding each component up to `padded_shapes` (one per component, -1 = the batch's largest
  /// size; empty = pad every dim to the batch's largest) with `padding_values` (one scalar per component;
  /// empty = 0 / false).
  Dataset padded_batch(std::int64_t batch_size, std::vector<Shape> padded_shapes = {},
                       std::vector<Tensor> padding_values = {}, bool drop_remainder = false) const;
  /// The first `count` elements (count < 0: all).
  Dataset take(std::int64_t count) const;
  /// All but the first `count` elements (count < 0: none remain).
  Dataset skip(std::int64_t count) const;
  /// The dataset `count` times over (count < 0: forever); each repetition restarts the input.
  Dataset repeat(std::int64_t count = -1) const;
  /// Prepends an int32 scalar index start, start + 1, ... to every element: {i, components...}.
  Dataset enumerate(std::int64_t start = 0) const;
  /// A bounded look-ahead of `buffer_size` elements (autotune = 1). There are no threads in WASM and none are
  /// used natively either: it keeps TF pipelines' API, it does not overlap work. Errors arrive in order.
  Dataset prefetch(std::int64_t buffer_size) const;

  // ---- static facts ----
  /// One spec per component; -1 for dims that vary between elements (e.g. the batch dim of a batch() without
  /// drop_remainder).
  const std::vector<TensorSpec>& element_spec() const;
  /// The number of elements, infinite_cardinality (-1) or unknown_cardinality (-2), as TF computes it.
  std::int64_t cardinality() const;
  /// "<BatchDataset element_spec=(TensorSpec(shape=(None, 2), dtype=tl.float32, name=None),)>"
  std::string str() const;

  // ---- iteration ----
  /// A new pass over the elements (TF's iter(dataset)).
  Iterator make_iterator() const;
  /// Range-for: a new pass.
  ElementIterator begin() const;
  /// The end of any pass.
  std::default_sentinel_t end() const noexcept { return {}; }
  /// for_each with state (tf.data.Dataset.reduce): eagerly a loop; inside a tl::function one graph node.
  std::vector<Tensor> reduce(std::vector<Tensor> initial_state, const ReduceFn& reduce_fn) const;

  /// The pipeline description (for the in-graph loop and tests).
  const std::shared_ptr<const detail::DatasetNode>& node() const noexcept { return node_; }
  /// Wraps a pipeline description (used by the transformations).
  explicit Dataset(std::shared_ptr<const detail::DatasetNode> node);

 private:
  std::shared_ptr<const detail::DatasetNode> node_;
};

/// Runs `body` on every element. Eagerly: a plain loop. Inside a tl::function: the body is traced once (with
/// the element_spec's -1 dims) into a sub-graph held by one `dataset_loop` node; each time the graph runs,
/// that node starts a fresh pass and runs the body graph per element, so variable assignments in the body
/// happen for every element. The dataset's own pipeline (map functions, ...) runs eagerly inside the node.
void for_each(const Dataset& dataset, const LoopBodyFn& body);
/// The same carrying loop state: state = body(state, element) per element; returns the final state. The body
/// must return as many tensors as the state, with equal dtypes; a dim that changes becomes unknown (traced).
std::vector<Tensor> for_each(const Dataset& dataset, std::vector<Tensor> initial_state, const ReduceFn& body);

/// Registers this layer's structured op, dataset_loop, in OpRegistry::global() (once per process; for_each calls
/// it, and so does tracelab/tracelab.h before main, so Graph::from_json finds it).
void register_dataset_loop_op();

}  // namespace tl::data
