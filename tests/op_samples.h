// Sample calls for every registry op: inputs, attributes and (structured ops) sub-graphs on which the op must
// succeed. The registry walk
// (registry_test.cpp) fails when an op has no sample, so no op slips in untested; the same samples run
// through the tape (gradient_test.cpp: gradient checks) and the tracer (traced_ops_test.cpp: eager == traced).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tracelab/tracelab.h"

namespace tl::testing {

struct OpSample {
  OpSample(std::vector<Tensor> in, Attrs at, std::vector<std::shared_ptr<const graph::Graph>> sub = {},
           std::vector<std::shared_ptr<detail::VariableState>> vars = {})
      : inputs(std::move(in)), attrs(std::move(at)), subgraphs(std::move(sub)), variables(std::move(vars)) {}

  std::vector<Tensor> inputs;
  Attrs attrs;
  std::vector<std::shared_ptr<const graph::Graph>> subgraphs;  ///< structured ops: the node's sub-graphs
  std::vector<std::shared_ptr<detail::VariableState>> variables;  ///< ops that update variables: their handles
};

/// How many outputs `op` has for this sample.
inline std::size_t num_outputs(const OpDef& op, const OpSample& sample) {
  return op.num_outputs(sample.attrs, sample.subgraphs);
}

/// Op name -> a few sample calls (seeded random data, small shapes, some broadcasting).
const std::map<std::string, std::vector<OpSample>>& op_samples();

/// A sample whose shape rule needs known dims, by design: why, and the error its shape rule must give.
struct NeedsKnownDims {
  std::string reason;
  std::string error;  ///< a substring of the error's message
};

/// The samples whose shape rule needs known dims: traced with every dim unknown they must be rejected with their
/// error, and every other sample must trace (traced_ops_test.cpp, executor_test.cpp).
inline const std::map<std::pair<std::string, std::size_t>, NeedsKnownDims>& samples_needing_known_dims() {
  static const std::map<std::pair<std::string, std::size_t>, NeedsKnownDims> samples = {
      {{"squeeze", 0},
       {"squeeze without axes drops every size-1 dim: with a dim unknown the output's rank is unknown",
        "squeeze: cannot squeeze every size-1 dim of f32[?,?,?] while a dim is unknown"}},
  };
  return samples;
}

/// Whether sample `index` of `op` is listed in samples_needing_known_dims().
inline bool needs_known_dims(const std::string& op, std::size_t index) {
  return samples_needing_known_dims().count({op, index}) == 1;
}

/// Whether a rejection of sample `index` of `op` with `message` is the listed one: the sample is listed and the
/// message holds its error.
inline bool rejected_as_listed(const std::string& op, std::size_t index, const std::string& message) {
  auto it = samples_needing_known_dims().find({op, index});
  return it != samples_needing_known_dims().end() && message.find(it->second.error) != std::string::npos;
}

}  // namespace tl::testing
