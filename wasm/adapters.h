// The functions the embind table exports (bindings.cpp): handles and plain data in, handles and plain data out,
// C++ errors turned into JS Errors named after the C++ class. The JS facade (wasm/js/) builds the TF.js-style
// API on these; see docs/js-api.md.
//
//   const id = core.tensorNew(new Float32Array([1, 2, 3, 4]), [2, 2], 'float32');
//   const [y] = core.opCall('matmul', [id, id], {transpose_b: true});   core.tensorValues(y);   // Float32Array
#pragma once

#include <emscripten/val.h>

#include <string>

#include "guard.h"

namespace tl::wasm {

// ---- registry and tensors (tensor_api.cpp) ----
std::string version();
val op_names();
val op_info(const std::string& name);
/// Plain-data op call: [{dtype, shape, values}] -> {dtype, shape, values} (several outputs: an array).
val run_op(const std::string& name, const val& inputs, const val& attrs);
/// Handle op call: tensor handles in, output handles out (always an array).
val op_call(const std::string& name, const val& inputs, const val& attrs);
val tensor_new(const val& values, const val& shape, const std::string& dtype);
val tensor_meta(double id);
val tensor_values(double id);
val tensor_str(double id);
bool tensor_dispose(double id);
val memory();

// ---- variables and tapes (tensor_api.cpp) ----
val variable_new(double tensor, const std::string& name, bool trainable);
val variable_read(double id);
val variable_assign(double id, double tensor, const std::string& how);
val variable_info(double id);
bool variable_dispose(double id);
val tape_new(bool persistent, bool watch_accessed_variables);
val tape_watch(double tape, const val& sources);
val tape_stop(double tape);
val tape_gradient(double tape, double target, const val& sources, bool zero_unconnected);
bool tape_dispose(double tape);

// ---- tl.function over JS callbacks (function_api.cpp) ----
val function_new(const val& options, const val& trampoline);
val function_call(double id, const val& args);
val function_concrete(double id, const val& args);
val function_info(double id);
val function_graphs(double id);
val function_clear_calls(double id);
bool function_dispose(double id);

// ---- the ragged experiment and the log sink (experiment_api.cpp) ----
val ragged_run(const val& config, const val& progress, double every, bool include_graphs);
void set_log_sink(const val& sink);

}  // namespace tl::wasm
