// The playground's worker: loads the WASM core, runs the ragged experiment (tl.experiments.runRagged), posts the
// steps in batches while it runs, then the result; keeps the graphs and answers the page's requests for a laid-out
// graph, the exported document or a mode's trained step as a saved model, so the page's thread only draws. Messages: protocol.js. Stop = the page
// terminates this worker (the runner is synchronous; what was posted so far stays on the page).
// Loading is a chain of fetches (this file, the JS API bundled in one file, the core's Emscripten glue, the
// .wasm), so nothing is imported statically (this file runs at once) and the glue is asked for beside the API (the
// API's own import of it then finds it loading or loaded). dagre (graph-layout.js, the vendor bundle) is loaded
// when a run is done, for the graphs the page asks for next.
import('./lib/tracelab.core.mjs').catch(() => {});   // a failure shows through the API's own import of it
let traceLabel;   // protocol.js's, set before 'ready'
const ready = Promise.all([
  // the JS API in one file (wasm/CMakeLists.txt bundles it); the playground converts no code
  import('./lib/tracelab.bundle.mjs').then(({ loadTracelab }) => loadTracelab({ autograph: false })),
  import('./protocol.js'),
]).then(([tl, protocol]) => {
  traceLabel = protocol.traceLabel;
  return tl;
});
let layoutModule = null;   // import('./graph-layout.js')
let result = null;   // the last run's document, graphs included
const savedModels = new Map();   // mode -> its last step as saved-model bytes (tl.savedModel), of the last run
/** The mode whose trained step a download gives: the one generic step if the run has it, else any traced mode. */
const DOWNLOAD_PREFERENCE = ['signature', 'relaxed', 'bucketed', 'function'];
const layouts = new Map();   // "mode/index/traced" -> laid-out graph of the last run (dagre takes 0.1-1 s per graph)

/** A progress report's retrace ({step, traceUs, signature, reason}) in the page's names, with its label. */
const retraceOf = (r) => ({ step: r.step, trace_us: r.traceUs, signature: r.signature, reason: r.reason, label: traceLabel(r.signature) });

function run({ config, progress_every: progressEvery }, tl) {
  layouts.clear();
  if (config.warmupSteps > 0) self.postMessage({ type: 'warmup', steps: config.warmupSteps });
  result = tl.experiments.runRagged({ ...config, saveModels: true }, {
    progressEvery,
    includeGraphs: true,
    onProgress: (report) => {
      self.postMessage({
        type: 'steps', mode: report.mode, mode_index: report.modeIndex, from: report.firstStep, step_us: report.stepUs,
        loss: report.loss, retraces: report.retraces.map(retraceOf), steps_done: report.stepsDone,
        steps_total: report.stepsTotal, elapsed_ms: report.elapsedMs, warmup_ms: report.warmupMs,
      }, [report.stepUs.buffer, report.loss.buffer]);
    },
  });
  for (const m of result.modes) for (const r of m.retraces) r.label = traceLabel(r.signature);
  // The saved models stay here (bytes, not part of the JSON document); the page learns which modes have one.
  savedModels.clear();
  for (const m of result.modes) {
    if (m.savedModel) savedModels.set(m.mode, m.savedModel);
    m.saved_model_bytes = m.savedModel?.length ?? 0;
    delete m.savedModel;
  }
  // The page gets the document without the graphs (they stay here for 'layout' and 'export'), its per-step arrays
  // as transferred typed arrays.
  const modes = result.modes.map((m) => ({
    ...m, step_us: Float64Array.from(m.step_us), loss: Float32Array.from(m.loss, (v) => (v === null ? NaN : v)),
    concrete_functions: m.concrete_functions.map(({ signature, traced_nodes, optimized_nodes, passes }) =>
      ({ signature, traced_nodes, optimized_nodes, passes })),
  }));
  self.postMessage({ type: 'done', result: { ...result, modes } }, modes.flatMap((m) => [m.step_us.buffer, m.loss.buffer]));
  layoutModule ??= import('./graph-layout.js');   // the page asks for a graph next
}

/** The trained step of the preferred mode as saved-model bytes (copied: the worker keeps its own). */
function savedModel({ id }) {
  const mode = DOWNLOAD_PREFERENCE.find((m) => savedModels.has(m));
  if (!mode) throw new Error('no saved model: the run has no function, signature, relaxed or bucketed mode');
  const bytes = savedModels.get(mode).slice();
  self.postMessage({ type: 'saved-model', id, mode, bytes }, [bytes.buffer]);
}

async function layout({ id, mode, index, traced }) {
  const { layoutGraph } = await (layoutModule ??= import('./graph-layout.js'));
  const f = result?.modes.find((m) => m.mode === mode)?.concrete_functions[index];
  if (!f) throw new Error(`no concrete function ${index} for mode ${mode}`);
  const key = `${mode}/${index}/${traced}`;
  if (!layouts.has(key)) layouts.set(key, layoutGraph(traced ? f.traced_graph_json : f.graph_json));
  const laid = layouts.get(key);
  self.postMessage({ type: 'layout', id, layout: laid, text: traced ? f.traced_graph : f.graph, nodes: laid.nodeCount });
}

self.onmessage = async ({ data }) => {
  try {
    const tl = await ready;
    if (data.type === 'run') run(data, tl);
    else if (data.type === 'layout') await layout(data);
    else if (data.type === 'saved-model') savedModel(data);
    else if (data.type === 'export') self.postMessage({ type: 'export', id: data.id, json: JSON.stringify(result, null, 1) });
  } catch (error) {
    self.postMessage({ type: 'error', id: data.id, name: error.name, message: String(error.message ?? error) });
  }
};

ready.then(() => self.postMessage({ type: 'ready' }),
           (error) => self.postMessage({ type: 'error', name: error.name, message: String(error.message ?? error) }));
