// The graph layer's own structured op, fused_elementwise (fused_elementwise.cpp), in the op registry.
#pragma once

#include "tracelab/graph/graph.h"

namespace tl::graph::detail {

/// Registers fused_elementwise in OpRegistry::global() (once per process; the fusion pass, fused_elementwise_op()
/// and the JSON reader call it, so a saved fused graph loads in any process).
void register_graph_structured_ops();

}  // namespace tl::graph::detail
