// What fuzz_graph_json and the seed generator share: the process state a loaded graph may refer to.
//
//   const tl::data::Dataset& ds = tl::fuzz::graph_dataset();   // call first: datasets get ids in creation order
//   tl::fuzz::register_structured_ops();                         // dataset_loop nodes then find that dataset
//
// A dataset_loop node names its dataset by id, and ids count up from process start; the seed generator and the
// fuzz target create this dataset before any other, so a seed's id refers to it in the fuzzer too.
#pragma once

#include "tracelab/tracelab.h"

namespace tl::fuzz {

/// Four elements of (f32[2], i32[]), batched by 2: small enough to loop over in every run.
inline const data::Dataset& graph_dataset() {
  static const auto* dataset = new data::Dataset(  // never destroyed: graphs loaded later refer to it
      data::Dataset::from_tensor_slices({constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f}, {4, 2}),
                                         constant({0, 1, 2, 3}, {4})})
          .batch(2));
  return *dataset;
}

/// Traces each structured op once; the for_each trace also lets dataset_loop nodes find graph_dataset() by id (a
/// dataset is found only once a trace has named it).
inline void register_structured_ops() {
  auto f = function([](const Tensor& x) {
    Tensor y = cond(greater(reduce_sum(x), 0.f), [&] { return x; }, [&] { return neg(x); });
    y = while_loop([](const std::vector<Tensor>& v) { return less(reduce_sum(v[0]), 10.f); },
                   [](const std::vector<Tensor>& v) { return std::vector<Tensor>{add(v[0], 1.f)}; }, {y},
                   {.maximum_iterations = 3})[0];
    return data::for_each(graph_dataset(), {y}, [](const std::vector<Tensor>& state, const data::Element& e) {
      return std::vector<Tensor>{add(state[0], reduce_sum(e[0]))};
    })[0];
  });
  (void)f.get_concrete_function(TensorSpec({2}));
}

}  // namespace tl::fuzz
