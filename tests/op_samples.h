// Sample calls for every registry op: inputs and attributes on which the op must succeed. The registry walk
// (registry_test.cpp) fails when an op has no sample, so no op slips in untested; the same samples run
// through the tape (gradient_test.cpp: gradient checks) and the tracer (traced_ops_test.cpp: eager == traced).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace tl::testing {

struct OpSample {
  std::vector<Tensor> inputs;
  Attrs attrs;
};

/// Op name -> a few sample calls (seeded random data, small shapes, some broadcasting).
const std::map<std::string, std::vector<OpSample>>& op_samples();

}  // namespace tl::testing
