// The numeric gradient checker: compares the tape's gradient of a random projection of an op's outputs with
// central differences, for every float32 input (flashlight's Jacobian test, ggml's test-grad0).
#pragma once

#include <string>
#include <vector>

#include "tracelab/tracelab.h"

namespace tl::testing {

struct GradCheckOptions {
  float epsilon = 1e-2f;        ///< central-difference step
  float atol = 5e-3f;           ///< absolute tolerance
  float rtol = 2e-2f;           ///< relative tolerance
};

/// Empty when every analytic gradient matches its numeric estimate; otherwise a description of the first
/// mismatches (input, element, analytic, numeric).
std::string check_gradients(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                            const GradCheckOptions& options = {}, Subgraphs subgraphs = {});

}  // namespace tl::testing
