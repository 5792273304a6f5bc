// A planted violation for the layering test's self-check (tests/CMakeLists.txt, layering_planted): the graph
// layer reaching up into the function layer, by include and by a forward-declared registration.
#include "tracelab/function/function.h"

namespace tl::data::detail {
void register_dataset_loop_op();
}  // namespace tl::data::detail
