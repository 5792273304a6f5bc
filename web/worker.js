// Runs the ragged experiment off the page's thread: loads the WASM core, runs tl.experiments.runRagged and posts
// the steps in batches (so the page draws while it runs), then the whole result. Stop = the page terminates
// this worker (the runner is synchronous; what was posted so far stays on the page).
import { loadTracelab } from './lib/tracelab.mjs';

const ready = loadTracelab();

self.onmessage = async ({ data }) => {
  if (data.type !== 'run') return;
  try {
    const tl = await ready;
    const result = tl.experiments.runRagged(data.config, {
      progressEvery: data.progressEvery,
      includeGraphs: true,
      onProgress: (report) => {
        self.postMessage({ type: 'progress', report },
                         [report.stepUs.buffer, report.loss.buffer]);
      },
    });
    // Keep the page's thread free: per-step arrays travel as transferred typed arrays, and the graphs (large, only
    // needed by the inspector) as one JSON text the page parses when it draws them.
    const graphs = result.modes.map((m) => m.concrete_functions.map((f) => {
      const { graph, traced_graph: tracedGraph, graph_json: graphJson, traced_graph_json: tracedGraphJson } = f;
      delete f.graph; delete f.traced_graph; delete f.graph_json; delete f.traced_graph_json;
      return { graph, tracedGraph, graphJson, tracedGraphJson };
    }));
    const buffers = [];
    for (const m of result.modes) {
      m.step_us = Float64Array.from(m.step_us);
      m.loss = Float32Array.from(m.loss, (v) => (v === null ? NaN : v));
      buffers.push(m.step_us.buffer, m.loss.buffer);
    }
    self.postMessage({ type: 'done', result, graphs: JSON.stringify(graphs) }, buffers);
  } catch (error) {
    self.postMessage({ type: 'error', name: error.name, message: error.message });
  }
};

ready.then(() => self.postMessage({ type: 'ready' }),
           (error) => self.postMessage({ type: 'error', name: error.name, message: String(error.message ?? error) }));
