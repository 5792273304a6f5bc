// The graph layer's own structured ops (private to core/graph): fused_elementwise (fused_elementwise.cpp).
#pragma once

#include "tracelab/graph/graph.h"

namespace tl::graph::detail {

/// Registers the JSON factories of the graph layer's structured ops (once per process; find_structured_op
/// calls it, so a saved fused graph loads in any process).
void register_graph_structured_ops();

}  // namespace tl::graph::detail
