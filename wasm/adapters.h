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
/// The same with the op named by its index in op_names() and the input handles in the staging area
/// (staging_area; `count` of them), followed by `words` numbers encoding the attributes (decode_attrs in
/// tensor_api.cpp): one crossing with numbers only per eager op from JS. The results as results_of writes them.
double op_call_staged(double index, double count, double words);
/// The same with the attributes as a JS object, for those the numbers cannot say (strings, values of the wrong
/// type, unknown names): the core checks them and names the problem.
double op_call_staged_object(double index, double count, const val& attrs);
/// The staging area's address, grown to hold `count` handles.
double staging_address(double count);
val tensor_new(const val& values, const val& shape, const std::string& dtype);
/// tensor_new for a small tensor whose dims and values are in the staging area (`rank` dims, then `count` values,
/// as numbers already checked by JS' toTensorData); `code` the dtype as results_of writes it. Returns results_of's
/// buffer: one crossing with numbers, where tensor_new converts JS arrays value by value.
double tensor_new_staged(double code, double rank, double count);
/// tl.zeros / ones / fill: the core allocates (no JS array), so a huge shape is the core's OutOfMemory.
val tensor_fill(const val& shape, double value, const std::string& dtype);
/// tl.range: the core's tl::range (same checks as C++: step 0, int32 ranges of non-integers).
val tensor_range(double start, double limit, double delta, const std::string& dtype);
val tensor_meta(double id);
val tensor_values(double id);
/// The byte address of a concrete tensor's values in the module's memory (JS copies them out at once).
double tensor_data(double id);
val tensor_str(double id);
bool tensor_dispose(double id);
/// Releases the `count` handles in the staging area (tidy's end: one crossing for every tensor it disposes);
/// returns how many were live. Handles already released are skipped, as tensor_dispose does.
double tensor_dispose_staged(double count);
/// A second handle to the same tensor (no copy).
val tensor_retain(double id);
val memory();

// ---- variables and tapes (tensor_api.cpp) ----
val variable_new(double tensor, const std::string& name, bool trainable);
/// The variable's value as results_of (one tensor).
double variable_read(double id);
val variable_assign(double id, double tensor, const std::string& how);
val variable_info(double id);
bool variable_dispose(double id);
val tape_new(bool persistent, bool watch_accessed_variables);
val tape_watch(double tape, const val& sources);
val tape_stop(double tape);
val tape_gradient(double tape, double target, const val& sources, bool zero_unconnected);
/// The same with the sources' handles in the staging area (`count`; all variables or all tensors): the gradients
/// as results_of, handle 0 where the target does not depend on a source.
double tape_gradient_staged(double tape, double target, double count, bool variables_given, bool zero_unconnected);
val tape_watched(double tape);
bool tape_dispose(double tape);

// ---- tl.function over JS callbacks (function_api.cpp) ----
val function_new(const val& options, const val& trampoline);
val function_call(double id, const val& args, const val& structure);
/// A call whose arguments are all tensors, their handles in the staging area (`count` of them).
double function_call_staged(double id, double count);
/// The same call, its results' values and shapes returned as data_of writes them (no handles): a tl.function's
/// dataSync() and arraySync().
double function_call_staged_data(double id, double count);
/// Calls function `id` `steps` times from C++, cycling through `lists` argument lists of `per_call` tensors whose
/// handles JS staged (list after list), and times each call as the ragged runner times its steps (tl::Clock around
/// the call and the release of its results): a Float64Array of µs. tl.experiments.timeCalls.
val function_time_calls(double id, double per_call, double lists, double steps);
val function_concrete(double id, const val& args, const val& structure);
/// {tracingCount, signatures}.
val function_info(double id);
/// The call history's records, oldest first:
/// [{index, traced, key, reason, warning, concreteIndex, traceUs, executeUs}].
val function_calls(double id);
/// The record of the last call, or undefined (the call history is off or empty).
val function_last_call(double id);
/// {call, traced, count}: the concrete index the last call ran and the one traced last (-1: none), and how many
/// concrete functions there are.
val function_last_concrete(double id);
val function_graphs(double id);
val function_clear_calls(double id);
void config_run_functions_eagerly(bool enabled);
bool config_functions_run_eagerly();
bool function_dispose(double id);
/// Forgets the retracing detectors shared by source (tl::reset_retracing_detectors): for the tutorial cell worker.
void function_reset_retracing_detectors();
/// tl.savedModel: save [{name, function, concrete} | {name, model, loaded}] -> Uint8Array; load bytes ->
/// {id, functions: [{name, inputs, outputs, signature}], variables: [handles]}; call a loaded function by name.
val saved_model_save(const val& entries);
val saved_model_load(const val& bytes);
val saved_model_call(double id, const std::string& name, const val& args);
bool saved_model_dispose(double id);
/// tl.summary.graph: the optimized graph (the one that runs) of a concrete function as a serialized GraphDef
/// (tl::summary::graph_def_bytes), a Uint8Array. `ref` names the function as saved_model_save's entries do:
/// {function: id, concrete: index (-1: its only one)} or {model: id, loaded: name}.
val summary_graph_def(const val& ref);
/// tl.cond(pred, trueFn, falseFn) and tl.whileLoop(cond, body, loopVars): JS branches / bodies via trampolines.
val cond(double pred, const val& true_fn, const val& false_fn);
val while_loop(const val& cond_fn, const val& body_fn, const val& loop_vars, double maximum_iterations);

// ---- layers, losses, optimizers, metrics, checkpoints (nn_api.cpp) ----
val layer_new(const val& config);
double layer_call(double id, double x, bool training);
/// The layer's variable handles written to a buffer of numbers: its address; there, the count and the handles
/// (one crossing and no JS array built from C++: a training step reads trainableWeights every time).
double layer_variables_staged(double id, bool trainable_only);
val layer_info(double id);
bool layer_dispose(double id);
/// `kind`: 0 meanSquaredError, 1 binaryCrossentropy, 2 categoricalCrossentropy, 3 sparseCategoricalCrossentropy
/// (a number: no string converted per call).
double loss_call(double kind, double y_true, double y_pred, bool from_logits);
val optimizer_new(const val& config);
val optimizer_apply(double id, const val& grads, const val& vars);
/// The same with 2 × count handles in the staging area: the gradients (0: none), then the variables.
double optimizer_apply_staged(double id, double count);
/// Optimizer.minimize: the loss's gradients for `count` staged variables (-1: the tape's watched ones), applied.
double optimizer_minimize_staged(double id, double tape, double loss, double count);
val optimizer_variables(double id);
bool optimizer_dispose(double id);
val metric_new(const std::string& type, const val& config);
val metric_update(double id, const val& inputs);
double metric_result(double id);
val metric_reset(double id);
bool metric_dispose(double id);
val checkpoint_save(const val& vars);
val checkpoint_restore(const val& vars, const val& bytes);
/// Keras' model.compile: {optimizer (handle), loss (Keras name), fromLogits, metrics (names), runEagerly} -> a handle.
val compiled_new(double layer, const val& config);
/// model.fitDataset: trains on a dataset handle; options {epochs, validationData (a dataset handle), verbose};
/// returns the History {epoch, history: {key: [per-epoch means]}, seconds}.
val compiled_fit(double id, double dataset, const val& options);
/// model.evaluateDataset: {loss, <metric>} over one pass with training off.
val compiled_evaluate(double id, double dataset);
/// {train, test}: how many times each step was traced.
val compiled_tracing_counts(double id);
bool compiled_dispose(double id);

// ---- tl.data (data_api.cpp) ----
val dataset_from_slices(const val& components);
val dataset_from_generator(const val& start_pass, const val& signature);
val dataset_range(double start, double stop, double step);
val dataset_transform(double id, const std::string& kind, const val& args);
val dataset_info(double id);
val dataset_for_each(double id, const val& body);
bool dataset_dispose(double id);
/// The dataset behind a handle (InvalidArgument for a disposed or unknown one), for fit in nn_api.cpp.
const data::Dataset& dataset_of(double id);
val iterator_new(double dataset);
val iterator_next(double id);
bool iterator_dispose(double id);

// ---- the ragged experiment and the log sink (experiment_api.cpp) ----
val ragged_run(const val& config, const val& progress, double every, bool include_graphs);
val ragged_data(const val& config);
val ragged_kernels(const val& config);
void set_log_sink(const val& sink);

}  // namespace tl::wasm
