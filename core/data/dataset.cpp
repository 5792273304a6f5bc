// Dataset as a value (its node, spec, cardinality, printing) and the two ways to walk it: Iterator
// (get_next) and ElementIterator (range-for). A pass always runs eagerly with tapes paused.
#include <atomic>

#include "data/detail/dataset_node.h"
#include "tracelab/autodiff/tape.h"
#include "tracelab/eager/execute.h"

namespace tl::data {
namespace detail {
namespace {

std::uint64_t next_dataset_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

}  // namespace

DatasetNode::DatasetNode(std::string kind, std::vector<TensorSpec> spec, std::int64_t cardinality,
                         MakeSource make_source)
    : kind_(std::move(kind)),
      spec_(std::move(spec)),
      cardinality_(cardinality),
      make_source_(std::move(make_source)),
      id_(next_dataset_id()) {}

Dataset make_dataset(std::string kind, std::vector<TensorSpec> spec, std::int64_t cardinality,
                     DatasetNode::MakeSource make_source) {
  return Dataset(std::make_shared<const DatasetNode>(std::move(kind), std::move(spec), cardinality,
                                                     std::move(make_source)));
}

std::string spec_str(const std::vector<TensorSpec>& spec) {
  std::string out = "(";
  for (std::size_t i = 0; i < spec.size(); ++i) out += (i ? ", " : "") + spec[i].str();
  return out + (spec.size() == 1 ? ",)" : ")");
}

}  // namespace detail

Dataset::Dataset(std::shared_ptr<const detail::DatasetNode> node) : node_(std::move(node)) {
  TL_CHECK(node_ != nullptr, InvalidArgument, "Dataset: no pipeline node");
}

const std::vector<TensorSpec>& Dataset::element_spec() const { return node_->spec(); }

std::int64_t Dataset::cardinality() const { return node_->cardinality(); }

std::string Dataset::str() const {
  return "<" + node_->kind() + " element_spec=" + detail::spec_str(node_->spec()) + ">";
}

Iterator Dataset::make_iterator() const {
  tl::detail::PauseRecording pause;
  tl::detail::SuspendInterception eager;  // generators and factories may run ops: always concretely
  return Iterator(node_->make_source(), node_->spec());
}

ElementIterator Dataset::begin() const { return ElementIterator(make_iterator()); }

std::vector<Tensor> Dataset::reduce(std::vector<Tensor> initial_state, const ReduceFn& reduce_fn) const {
  return for_each(*this, std::move(initial_state), reduce_fn);
}

Iterator::Iterator(std::shared_ptr<detail::ElementSource> source, std::vector<TensorSpec> element_spec)
    : source_(std::move(source)), element_spec_(std::move(element_spec)) {
  TL_CHECK(source_ != nullptr, InvalidArgument, "Iterator: no element source");
}

Iterator::Iterator(Iterator&&) noexcept = default;
Iterator& Iterator::operator=(Iterator&&) noexcept = default;
Iterator::~Iterator() = default;

std::optional<Element> Iterator::get_next() {
  TL_CHECK(source_ != nullptr, InvalidArgument, "Iterator: get_next on a moved-from iterator");
  tl::detail::PauseRecording pause;       // elements are data: outer tapes do not record the pipeline
  tl::detail::SuspendInterception eager;  // inside a trace the pipeline still runs on concrete tensors
  return source_->next();
}

ElementIterator::ElementIterator(Iterator iterator)
    : iterator_(std::make_shared<Iterator>(std::move(iterator))), current_(iterator_->get_next()) {}

ElementIterator& ElementIterator::operator++() {
  current_ = iterator_ ? iterator_->get_next() : std::nullopt;
  return *this;
}

}  // namespace tl::data
