// The embind table: one line per exported function. Conversions live in adapters.h; logic stays in core/.
#include <emscripten/bind.h>

#include "adapters.h"

EMSCRIPTEN_BINDINGS(tracelab) {
  emscripten::function("version", &tl::wasm::version);
  emscripten::function("opNames", &tl::wasm::op_names);
  emscripten::function("runOp", &tl::wasm::run_op);
}
