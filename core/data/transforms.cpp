// The element-wise and counting transformations: map, filter, take, skip, repeat, enumerate, prefetch. Each
// builds a new node holding its input node; each pass starts a pass of the input. Cardinalities follow TF's
// rules (tensorflow/core/kernels/data/*_dataset_op.cc).
#include <climits>
#include <deque>
#include <exception>
#include <variant>

#include "data/detail/dataset_node.h"
#include "tracelab/tensor/creation.h"

namespace tl::data {
namespace {

using detail::FnSource;
using detail::SourcePtr;

std::int64_t take_cardinality(std::int64_t input, std::int64_t count) {
  if (count == 0) return 0;
  if (input == infinite_cardinality) return count < 0 ? infinite_cardinality : count;
  if (input == unknown_cardinality) return unknown_cardinality;
  return count < 0 ? input : std::min(input, count);
}

std::int64_t skip_cardinality(std::int64_t input, std::int64_t count) {
  if (input == infinite_cardinality || input == unknown_cardinality) return input;
  if (count < 0) return 0;
  return std::max<std::int64_t>(0, input - count);
}

std::int64_t repeat_cardinality(std::int64_t input, std::int64_t count) {
  if (count < 0) return input == 0 ? 0 : infinite_cardinality;
  if (count == 0) return 0;
  if (input == infinite_cardinality || input == unknown_cardinality) return input;
  return input * count;
}

/// Checks a filter predicate's result: a concrete bool scalar.
bool keep_element(const Tensor& keep) {
  TL_CHECK(keep.defined() && keep.dtype() == DType::bool_ && keep.rank() == 0, InvalidArgument,
           "filter: the predicate must return a bool scalar, got ",
           keep.defined() ? meta_str(keep.meta()) : std::string("an empty handle"));
  return keep.item<bool>();
}

/// prefetch's pass: keeps up to `ahead` elements (or the error that ended the look-ahead) ready, in order.
class PrefetchSource final : public detail::ElementSource {
 public:
  PrefetchSource(SourcePtr input, std::int64_t ahead) : input_(std::move(input)), ahead_(ahead) {}

  std::optional<Element> next() override {
    fill();
    if (buffer_.empty()) return std::nullopt;
    Entry entry = std::move(buffer_.front());
    buffer_.pop_front();
    if (auto* error = std::get_if<std::exception_ptr>(&entry)) {
      blocked_ = false;  // after the error is delivered, pulling resumes as it would without prefetch
      std::rethrow_exception(*error);
    }
    return std::move(std::get<Element>(entry));
  }

 private:
  using Entry = std::variant<Element, std::exception_ptr>;

  void fill() {
    while (!ended_ && !blocked_ && static_cast<std::int64_t>(buffer_.size()) <= ahead_) {
      try {
        std::optional<Element> element = input_->next();
        if (!element) ended_ = true;
        else buffer_.emplace_back(std::move(*element));
      } catch (...) {
        buffer_.emplace_back(std::current_exception());
        blocked_ = true;
      }
    }
  }

  SourcePtr input_;
  std::int64_t ahead_;
  std::deque<Entry> buffer_;
  bool ended_ = false;
  bool blocked_ = false;
};

}  // namespace

Dataset Dataset::map(MapFn fn) const {
  TL_CHECK(static_cast<bool>(fn), InvalidArgument, "map: the function is empty");
  std::vector<TensorSpec> spec = detail::trace_output_spec("map", element_spec(), fn);
  auto input = node_;
  return detail::make_dataset("MapDataset", spec, cardinality(), [input, fn, spec] {
    return std::make_shared<FnSource>(
        [source = input->make_source(), fn, spec, index = std::int64_t{0}]() mutable -> std::optional<Element> {
          std::optional<Element> element = source->next();
          if (!element) return std::nullopt;
          Element out = fn(*element);
          detail::check_element(out, spec, "map: the result for element " + std::to_string(index++));
          return out;
        });
  });
}

Dataset Dataset::filter(PredicateFn predicate) const {
  TL_CHECK(static_cast<bool>(predicate), InvalidArgument, "filter: the predicate is empty");
  std::vector<TensorSpec> out = detail::trace_output_spec(
      "filter", element_spec(), [&](const Element& e) { return std::vector<Tensor>{predicate(e)}; });
  TL_CHECK(out.size() == 1 && out[0].dtype() == DType::bool_ && out[0].shape().rank() == 0, InvalidArgument,
           "filter: the predicate must return a bool scalar, got ", meta_str(out.at(0).meta()));
  auto input = node_;
  return detail::make_dataset("FilterDataset", element_spec(), unknown_cardinality, [input, predicate] {
    return std::make_shared<FnSource>([source = input->make_source(), predicate]() -> std::optional<Element> {
      while (std::optional<Element> element = source->next())
        if (keep_element(predicate(*element))) return element;
      return std::nullopt;
    });
  });
}

Dataset Dataset::take(std::int64_t count) const {
  auto input = node_;
  return detail::make_dataset("TakeDataset", element_spec(), take_cardinality(cardinality(), count), [input, count] {
    return std::make_shared<FnSource>(
        [source = input->make_source(), count, taken = std::int64_t{0}]() mutable -> std::optional<Element> {
          if (count >= 0 && taken >= count) return std::nullopt;
          std::optional<Element> element = source->next();
          if (element) ++taken;
          return element;
        });
  });
}

Dataset Dataset::skip(std::int64_t count) const {
  auto input = node_;
  return detail::make_dataset("SkipDataset", element_spec(), skip_cardinality(cardinality(), count), [input, count] {
    return std::make_shared<FnSource>(
        [source = input->make_source(), count, skipped = false]() mutable -> std::optional<Element> {
          for (std::int64_t i = 0; !skipped && (count < 0 || i < count); ++i)
            if (!source->next()) break;
          skipped = true;
          return count < 0 ? std::nullopt : source->next();
        });
  });
}

Dataset Dataset::repeat(std::int64_t count) const {
  auto input = node_;
  return detail::make_dataset("RepeatDataset", element_spec(), repeat_cardinality(cardinality(), count), [input, count] {
    SourcePtr first = count == 0 ? nullptr : input->make_source();
    return std::make_shared<FnSource>([input, count, source = first, epoch = std::int64_t{0},
                                       produced = false]() mutable -> std::optional<Element> {
      while (source) {
        if (std::optional<Element> element = source->next()) {
          produced = true;
          return element;
        }
        ++epoch;  // an epoch that yields nothing ends the repetition (else repeat() of an empty input never ends)
        bool more = produced && (count < 0 || epoch < count);
        source = more ? input->make_source() : nullptr;
        produced = false;
      }
      return std::nullopt;
    });
  });
}

Dataset Dataset::enumerate(std::int64_t start) const {
  std::vector<TensorSpec> spec{TensorSpec(Shape{}, int32)};
  spec.insert(spec.end(), element_spec().begin(), element_spec().end());
  auto input = node_;
  return detail::make_dataset("EnumerateDataset", std::move(spec), cardinality(), [input, start] {
    return std::make_shared<FnSource>(
        [source = input->make_source(), index = start]() mutable -> std::optional<Element> {
          std::optional<Element> element = source->next();
          if (!element) return std::nullopt;
          TL_CHECK(index >= INT32_MIN && index <= INT32_MAX, InvalidArgument, "enumerate: index ", index,
                   " does not fit in int32");
          element->insert(element->begin(), scalar(static_cast<std::int32_t>(index++)));
          return element;
        });
  });
}

Dataset Dataset::prefetch(std::int64_t buffer_size) const {
  TL_CHECK(buffer_size >= 0 || buffer_size == autotune, InvalidArgument,
           "prefetch: buffer_size must be >= 0 or autotune (-1), got ", buffer_size);
  std::int64_t ahead = buffer_size == autotune ? 1 : buffer_size;
  auto input = node_;
  return detail::make_dataset("PrefetchDataset", element_spec(), cardinality(), [input, ahead] {
    return std::make_shared<PrefetchSource>(input->make_source(), ahead);
  });
}

}  // namespace tl::data
