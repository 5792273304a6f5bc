// The messages between the playground page (run.js) and its worker (worker.js). Quantities keep the names of the
// runner's document (docs/performance.md): step_us, loss, traced_steps, trace_us, warmup_ms; the same names are
// used everywhere on the page. docs/playground.md has this table too.
//
// page → worker
//   {type: 'run', config, progress_every}     run the experiment (config: the JS API's runRagged config)
//   {type: 'layout', id, mode, index, traced} lay out concrete function `index` of `mode` (traced: the graph
//                                              before the passes) → a 'layout' answer with the same id
//   {type: 'export', id}                       the whole document with graphs, as JSON text → an 'export' answer
//   {type: 'saved-model', id}                  the trained step as a saved model → a 'saved-model' answer
//
// worker → page
//   {type: 'ready'}                            the core is loaded
//   {type: 'warmup', steps}                    the engine warm-up starts (not sent when warm-up is off)
//   {type: 'steps', mode, mode_index, from, step_us: Float64Array, loss: Float32Array,
//    retraces: [Retrace], steps_done, steps_total, elapsed_ms, warmup_ms}
//                                              steps [from, from + step_us.length) of `mode`, and the traces
//                                              among them; sent every progress_every steps
//   {type: 'done', result}                     the runner's document without the graphs (kept in the worker);
//                                              step_us and loss as typed arrays; every retrace has its label
//   {type: 'layout', id, layout, text, nodes}  a laid-out graph (graph-layout.js), its text form, its node count
//   {type: 'export', id, json}                 the document as JSON text, graphs included
//   {type: 'saved-model', id, mode, bytes}     the last step of `mode` (signature if the run has it, else relaxed,
//                                              bucketed, function) as tl.savedModel bytes (Uint8Array), with the
//                                              variables as trained; each mode of 'done' has saved_model_bytes
//   {type: 'error', name, message}             the run (or a request) failed; name is the Error subclass
//
// Retrace: {step, trace_us, signature, reason, label} — label is the new X ("X=7", "X=None", "whole loop").

/**
 * What a marker says without hovering: the ragged dim of the trace's input x ("X=7"; "X=None" for a generic
 * shape), or "whole loop" for a function without inputs (the loop mode).
 */
export function traceLabel(signature) {
  const match = /\bx: \w+ Tensor, shape=\(([^)]*)\)/.exec(signature ?? '');
  if (!match) return 'whole loop';
  const dims = match[1].split(',').map((d) => d.trim());
  return `X=${dims[1] ?? dims[0]}`;
}
