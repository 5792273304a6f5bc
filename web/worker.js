// Runs the ragged experiment off the page's thread: loads the WASM core, runs tl.experiments.runRagged and posts
// the steps in batches (so the page draws while it runs), then the whole result. Stop = the page terminates
// this worker (the runner is synchronous; what was posted so far stays on the page).
import { loadTracelab } from './lib/tracelab.mjs';

const ready = loadTracelab();

self.onmessage = async ({ data }) => {
  if (data.type !== 'run') return;
  try {
    const tl = await ready;
    const started = performance.now();
    const result = tl.experiments.runRagged(data.config, {
      progressEvery: data.progressEvery,
      includeGraphs: true,
      onProgress: (report) => {
        self.postMessage({ type: 'progress', report, wallMs: performance.now() - started },
                         [report.stepUs.buffer, report.loss.buffer]);
      },
    });
    self.postMessage({ type: 'done', result, wallMs: performance.now() - started });
  } catch (error) {
    self.postMessage({ type: 'error', name: error.name, message: error.message });
  }
};

ready.then(() => self.postMessage({ type: 'ready' }),
           (error) => self.postMessage({ type: 'error', name: error.name, message: String(error.message ?? error) }));
