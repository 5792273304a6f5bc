// The playground page: wires the form (form.js), the run controller and its worker (run.js, worker.js), the
// per-mode lanes (lanes.js), the cumulative and loss charts (charts.js), the tables (tables.js), the trace
// inspector (inspector.js) and the exports (export.js). All computation and graph layout happen in the worker;
// this thread only draws.
// The worker starts first, before the views are even fetched: what the page waits for is the worker's chain —
// its modules, the JS API's, then the WebAssembly core — so it begins as soon as this module and its static imports
// are here (index.html preloads them), and the views (uPlot among them) load meanwhile. Run is enabled once both
// the core and the views are in.
import { RunController } from './run.js';

const runs = new RunController(new URL('./worker.js', import.meta.url));
const [{ StepChart }, { download, toCsv, toEventFile }, { ExperimentForm }, { drawGraph }, { LaneChart },
       { clearTables, renderTables }, { formatUs }] = await Promise.all([
  import('./charts.js'), import('./export.js'), import('./form.js'), import('./inspector.js'), import('./lanes.js'),
  import('./tables.js'), import('./stats.js')]);

const $ = (id) => document.getElementById(id);
const form = new ExperimentForm($('experiment'));
const lanes = new LaneChart($('lanes'));
const cumulative = new StepChart($('chart-cumulative'), { yLabel: 'ms so far', reduce: 'last' });
const loss = new StepChart($('chart-loss'), { yLabel: 'loss', reduce: 'mean' });
const cumulativeSoFar = new Map();   // mode -> ms up to the last step received
// While the engine is being timed the page draws as little as it can: on a 2-core machine every redraw (the page's
// thread, then the browser rasterizing the canvas) takes a core from the worker and shows up as a slow step
// (docs/playground.md measures it). So the lanes are drawn at most every LIVE_DRAW_MS while it runs (a default run
// takes about a second: drawn once or twice), the cumulative and loss charts when it ends, and the progress line
// changes at most every PROGRESS_MS.
const LIVE_DRAW_MS = 1000;
const PROGRESS_MS = 250;
let lastDraw = 0, lastProgress = 0;

function status(text) {
  $('core-status').textContent = text;
  $('progress').textContent = text;
}

function setRunning(running) {
  $('run').disabled = running;
  $('stop').disabled = !running;
  $('export-json').disabled = running || !runs.run;
  $('export-csv').disabled = running || !runs.run;
  // A stopped run's worker is gone, and with it the trained step.
  $('export-model').disabled = running || !runs.run || runs.run.stopped ||
    !runs.run.result?.modes.some((m) => m.saved_model_bytes > 0);
  $('export-tensorboard').disabled = running || !runs.run;
}

function coreLoaded() {
  // After Stop the fresh worker's load must not hide that the run was stopped.
  $('core-status').textContent = runs.run?.stopped
    ? 'Stopped: the steps so far are shown. A fresh core is loaded: press Run to start again.'
    : 'The core is loaded: choose modes and press Run.';
  $('run').disabled = false;
  // The empty lanes and charts for the form's settings, made while the reader looks at the form (a few at a
  // time), so pressing Run only fills them.
  const config = form.read();
  if (!config || runs.run) return;
  const idle = window.requestIdleCallback ?? ((job) => setTimeout(job, 50));
  idle(() => lanes.reset(config.modes, config.steps));
  idle(() => cumulative.reset(config.modes, config.steps));
  idle(() => loss.reset(config.modes, config.steps));
}

runs.on.warmup = (steps) => status(`Warming up the engine (${steps} untimed steps per mode on throwaway models)…`);

runs.on.steps = (message) => {
  const run = runs.run;
  lanes.put(message.mode, message.from, message.step_us, message.retraces);
  loss.put(message.mode, message.from, message.loss);
  let total = message.from > 0 ? cumulativeSoFar.get(message.mode) ?? 0 : 0;
  cumulative.put(message.mode, message.from, Array.from(message.step_us, (us) => (total += us / 1000)));
  cumulativeSoFar.set(message.mode, total);
  const now = performance.now(), modeDone = message.steps_done === message.steps_total;
  if (now - lastDraw >= LIVE_DRAW_MS) {
    lastDraw = now;
    lanes.draw();
  }
  if (modeDone || now - lastProgress >= PROGRESS_MS) {
    lastProgress = now;
    const warm = run.config.warmupSteps > 0 ? `warm-up ${formatUs(run.warmupMs * 1000)}; ` : '';
    $('progress').textContent = `${warm}${message.mode} (${message.mode_index + 1} of ${run.config.modes.length}): ` +
      `step ${message.steps_done} of ${message.steps_total}`;
  }
};

runs.on.done = (run) => {
  setRunning(false);
  lanes.draw();
  cumulative.draw();
  loss.draw();
  renderTables(document, run.result);
  status(run.stopped ? 'Stopped: the steps so far are shown.' : 'Done. Hover the markers, inspect the graphs, export the data.');
  renderInspector(run.result);
};

runs.on.failed = (text) => {
  status(text);
  setRunning(false);
};

function begin(config) {
  lanes.reset(config.modes, config.steps);
  cumulative.reset(config.modes, config.steps);
  loss.reset(config.modes, config.steps);
  cumulativeSoFar.clear();
  clearTables(document);
  lastDraw = lastProgress = performance.now();
  $('inspect-mode').replaceChildren();
  $('inspect-function').replaceChildren();
  $('inspect-graph').replaceChildren();
  runs.start(config);
  status(config.warmupSteps > 0 ? 'Starting…' : 'Running without warm-up…');
  setRunning(true);
}

// ---------------------------------------------------------------- the trace inspector ----
function renderInspector(result) {
  const modeSelect = $('inspect-mode');
  modeSelect.replaceChildren(...result.modes.filter((m) => m.concrete_functions.length).map((m) => new Option(m.mode, m.mode)));
  modeSelect.onchange = () => {
    const mode = result.modes.find((m) => m.mode === modeSelect.value);
    $('inspect-function').replaceChildren(...(mode?.concrete_functions ?? []).map((f, i) =>
      new Option(`#${i}: ${f.signature.split('\n').find((l) => l.includes('shape=')) ?? f.signature.split('\n')[0]}`, String(i))));
    showFunction();
  };
  modeSelect.onchange();
}

let shown = 0;   // the latest request wins when the reader changes the selection quickly
async function showFunction() {
  const result = runs.run?.result;
  const mode = result?.modes.find((m) => m.mode === $('inspect-mode').value);
  const index = Number($('inspect-function').value);
  const f = mode?.concrete_functions[index];
  const ticket = ++shown;
  if (!f) {
    $('inspect-graph').replaceChildren();
    return;
  }
  const traced = $('inspect-unoptimized').checked;
  $('inspect-signature').textContent = f.signature;
  $('inspect-passes').tBodies[0].replaceChildren(...f.passes.map((p) => {
    const tr = document.createElement('tr');
    for (const text of [p.pass, String(p.before), String(p.after)]) tr.insertCell().textContent = text;
    return tr;
  }));
  $('inspect-graph').dataset.state = 'laying out';
  try {
    const { layout, text } = await runs.layout(mode.mode, index, traced);
    if (ticket !== shown) return;
    $('inspect-text').textContent = text;
    drawGraph($('inspect-graph'), layout);
    $('inspect-graph').dataset.state = 'drawn';
  } catch (error) {
    if (ticket === shown) $('inspect-graph').textContent = `${error.name}: ${error.message}`;
  }
}

// ---------------------------------------------------------------- wiring ----
$('experiment').onsubmit = (event) => {
  event.preventDefault();
  const config = form.read();
  if (!config) return;
  form.saveToUrl(config);
  begin(config);
};
$('stop').onclick = () => runs.stop();
$('log-steps').onchange = (event) => lanes.setLogSteps(event.target.checked);
$('log-scale').onchange = (event) => lanes.setLogTimes(event.target.checked);
$('inspect-function').onchange = showFunction;
$('inspect-unoptimized').onchange = showFunction;
$('export-json').onclick = async () => {
  const run = runs.run;
  const json = run.stopped ? JSON.stringify(run.result, (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v), 1) : await runs.exportJson();
  download('tracelab-ragged.json', 'application/json', json);
};
$('export-csv').onclick = () => download('tracelab-ragged.csv', 'text/csv', toCsv(runs.run.result));
$('export-model').onclick = async () => {
  const { mode, bytes } = await runs.savedModel();
  download(`tracelab-train-step-${mode}.tlsm`, 'application/octet-stream', bytes);
};
$('export-tensorboard').onclick = () => {
  const file = toEventFile(runs.run.result);
  download(file.name, 'application/octet-stream', file.bytes);
};

form.loadFromUrl();
runs.on.ready = coreLoaded;   // again after Stop, which starts a fresh worker
runs.catchUp();
window.playground = { toCsv, lanes, get run() { return runs.run; } };
