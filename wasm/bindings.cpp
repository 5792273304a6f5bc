// The embind table: one line per exported function. Conversions live in the adapters; logic stays in core/.
#include <emscripten/bind.h>

#include "adapters.h"

EMSCRIPTEN_BINDINGS(tracelab) {
  using namespace tl::wasm;
  emscripten::function("version", &version);
  emscripten::function("opNames", &op_names);
  emscripten::function("opInfo", &op_info);
  emscripten::function("runOp", &run_op);
  emscripten::function("opCall", &op_call);
  emscripten::function("tensorNew", &tensor_new);
  emscripten::function("tensorMeta", &tensor_meta);
  emscripten::function("tensorValues", &tensor_values);
  emscripten::function("tensorStr", &tensor_str);
  emscripten::function("tensorDispose", &tensor_dispose);
  emscripten::function("memory", &memory);
  emscripten::function("variableNew", &variable_new);
  emscripten::function("variableRead", &variable_read);
  emscripten::function("variableAssign", &variable_assign);
  emscripten::function("variableInfo", &variable_info);
  emscripten::function("variableDispose", &variable_dispose);
  emscripten::function("tapeNew", &tape_new);
  emscripten::function("tapeWatch", &tape_watch);
  emscripten::function("tapeStop", &tape_stop);
  emscripten::function("tapeGradient", &tape_gradient);
  emscripten::function("tapeDispose", &tape_dispose);
  emscripten::function("functionNew", &function_new);
  emscripten::function("functionCall", &function_call);
  emscripten::function("functionConcrete", &function_concrete);
  emscripten::function("functionInfo", &function_info);
  emscripten::function("functionGraphs", &function_graphs);
  emscripten::function("functionClearCalls", &function_clear_calls);
  emscripten::function("functionDispose", &function_dispose);
  emscripten::function("raggedRun", &ragged_run);
  emscripten::function("setLogSink", &set_log_sink);
}
