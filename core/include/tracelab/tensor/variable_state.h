// VariableState: what a tl::Variable handle points to — shared by the Variable API (autodiff/), graph nodes
// that capture a variable by handle (graph/) and the executor that reads and assigns it. Users hold
// tl::Variable, never this.
#pragma once

#include <cstdint>
#include <string>

#include "tracelab/tensor/tensor.h"

namespace tl::detail {

/// The state behind a tl::Variable: a name, a process-unique id and the current value (always concrete).
struct VariableState {
  std::string name;
  std::uint64_t id = 0;
  bool trainable = true;
  Tensor value;
};

}  // namespace tl::detail
