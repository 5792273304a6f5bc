// The playground page: the experiment form (validated, mirrored in the URL), a Web Worker that runs the ragged
// experiment, per-step charts that fill while it runs, the summary, the retracing warnings and reasons, the trace
// inspector and the exports. All computation happens in the worker; this thread only draws.
import { MODE_COLORS, StepChart } from './charts.js';
import { drawGraph } from './inspector.js';

const $ = (id) => document.getElementById(id);
const form = $('experiment');

// ---------------------------------------------------------------- the form ----
const integer = (text) => (/^-?\d+$/.test(text.trim()) ? Number(text) : NaN);
const RULES = {
  steps: { parse: integer, check: (v) => v >= 100 && v <= 50000, message: 'a whole number from 100 to 50000' },
  minLength: { parse: integer, check: (v) => v >= 1 && v <= 64, message: 'a whole number from 1 to 64' },
  maxLength: { parse: integer, check: (v) => v >= 1 && v <= 64, message: 'a whole number from 1 to 64' },
  features: { parse: integer, check: (v) => v >= 1 && v <= 256, message: 'a whole number from 1 to 256' },
  batchSize: { parse: integer, check: (v) => v >= 1 && v <= 64, message: 'a whole number from 1 to 64' },
  learningRate: { parse: (t) => (/^\d*\.?\d+(e-?\d+)?$/i.test(t.trim()) ? Number(t) : NaN), check: (v) => v > 0 && v <= 1,
                  message: 'a number above 0 and at most 1' },
  seed: { parse: integer, check: (v) => v >= 0 && v <= 2 ** 31, message: 'a whole number from 0 to 2147483648' },
  hiddenUnits: { parse: (t) => (/^\s*\d+(\s*,\s*\d+)*\s*$/.test(t) ? t.split(',').map(Number) : NaN),
                 check: (v) => v.length >= 1 && v.length <= 8 && v.every((u) => u >= 1 && u <= 256),
                 message: '1 to 8 widths from 1 to 256, separated by commas' },
};

/** The config, or null after showing a message next to each bad field. */
function readConfig() {
  const config = {};
  let ok = true;
  for (const [name, rule] of Object.entries(RULES)) {
    const input = form.elements[name];
    const value = rule.parse(input.value);
    const good = !(typeof value === 'number' && Number.isNaN(value)) && value === value && rule.check(value);
    $(`${name}-error`).textContent = good ? '' : `Expected ${rule.message}.`;
    input.setAttribute('aria-invalid', String(!good));
    ok = ok && good;
    config[name] = value;
  }
  if (ok && config.minLength > config.maxLength) {
    $('maxLength-error').textContent = `The X range is reversed: ${config.minLength} > ${config.maxLength}.`;
    form.elements.maxLength.setAttribute('aria-invalid', 'true');
    ok = false;
  }
  config.modes = [...form.querySelectorAll('input[name=modes]:checked')].map((i) => i.value);
  $('modes-error').textContent = config.modes.length ? '' : 'Choose at least one mode.';
  ok = ok && config.modes.length > 0;
  // A link can name an optimizer the select does not have (it then shows nothing): say so rather than send ''.
  const optimizer = form.elements.optimizer;
  const known = optimizer.value !== '';
  $('optimizer-error').textContent = known ? '' :
    `Expected one of ${[...optimizer.options].map((o) => o.value).join(', ')}; the link asked for '${optimizerFromLink}'.`;
  optimizer.setAttribute('aria-invalid', String(!known));
  ok = ok && known;
  config.optimizer = optimizer.value;
  return ok ? config : null;
}

/** Settings in the URL (?steps=2000&modes=eager,function...), so a link reproduces a run. */
let optimizerFromLink = null;
function loadSettingsFromUrl() {
  const params = new URLSearchParams(location.search);
  for (const name of [...Object.keys(RULES), 'optimizer'])
    if (params.has(name)) form.elements[name].value = params.get(name);
  optimizerFromLink = params.get('optimizer');
  if (params.has('modes')) {
    const modes = params.get('modes').split(',');
    for (const box of form.querySelectorAll('input[name=modes]')) box.checked = modes.includes(box.value);
  }
}
function saveSettingsToUrl(config) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(config)) params.set(name, Array.isArray(value) ? value.join(',') : String(value));
  history.replaceState(null, '', `?${params}`);
}

// ---------------------------------------------------------------- the run ----
const charts = {
  steps: new StepChart($('chart-steps'), { yLabel: 'µs per step', log: true, markers: true }),
  steady: new StepChart($('chart-steady'), { yLabel: 'µs per step', log: true }),
  cumulative: new StepChart($('chart-cumulative'), { yLabel: 'ms so far', reduce: 'last' }),
  loss: new StepChart($('chart-loss'), { yLabel: 'loss', reduce: 'mean' }),
};
let worker = null;
let run = null;   // {config, modes: {mode: {stepUs: [], loss: [], traced: []}}, result, running}

function startWorker() {
  worker?.terminate();
  worker = new Worker('./worker.js', { type: 'module' });
  worker.onmessage = ({ data }) => handle(data);
  worker.onerror = (event) => fail(`the worker failed: ${event.message}`);
}

function handle(message) {
  if (message.type === 'ready') {
    $('core-status').textContent = 'The core is loaded: choose modes and press Run.';
    $('run').disabled = false;
  } else if (message.type === 'progress') {
    onProgress(message.report);
  } else if (message.type === 'done') {
    run.graphsText = message.graphs;
    finish(message.result, false);
  } else if (message.type === 'error') {
    fail(`${message.name}: ${message.message}`);
  }
}

function fail(text) {
  $('core-status').textContent = text;
  $('progress').textContent = text;
  setRunning(false);
}

function setRunning(running) {
  $('run').disabled = running;
  $('stop').disabled = !running;
  $('export-json').disabled = running || !run;
  $('export-csv').disabled = running || !run;
}

function begin(config) {
  const dropFirst = Math.min(integer($('drop-first').value) || 0, config.steps - 1);
  run = { config, modes: Object.fromEntries(config.modes.map((m) => [m, { stepUs: [], loss: [], traced: [] }])), result: null };
  charts.steps.reset(config.modes, 0, config.steps);
  charts.steady.reset(config.modes, dropFirst, config.steps);
  charts.cumulative.reset(config.modes, 0, config.steps);
  charts.loss.reset(config.modes, 0, config.steps);
  $('progress').replaceChildren(...config.modes.map((mode) => {
    const row = document.createElement('div');
    row.className = 'progress-row';
    row.innerHTML = `<span class="swatch"></span><span class="mode">${mode}</span>` +
      `<progress max="${config.steps}" value="0" aria-label="${mode} progress"></progress><span class="rate">waiting</span>`;
    row.querySelector('.swatch').style.background = MODE_COLORS[mode];  // CSSOM: allowed by the page's CSP
    row.dataset.mode = mode;
    return row;
  }));
  $('summary').tBodies[0].replaceChildren();
  $('retraces').tBodies[0].replaceChildren();
  $('warnings').textContent = '(running…)';
  setRunning(true);
  worker.postMessage({ type: 'run', config: { ...config, maxRetracingWarnings: -1 }, progressEvery: Math.max(50, Math.round(config.steps / 100)) });
}

function onProgress(report) {
  const mode = run?.modes[report.mode];
  if (!mode) return;
  mode.stepUs.push(...report.stepUs);
  mode.loss.push(...report.loss);
  mode.traced.push(...report.tracedSteps);
  mode.elapsedMs = report.elapsedMs;
  charts.steps.put(report.mode, report.firstStep, report.stepUs);
  charts.steps.markTraced(report.mode, report.tracedSteps);
  charts.steady.put(report.mode, report.firstStep, report.stepUs);
  charts.loss.put(report.mode, report.firstStep, report.loss);
  let total = report.firstStep > 0 ? mode.cumulative ?? 0 : 0;
  const cumulative = Array.from(report.stepUs, (us) => (total += us / 1000));
  mode.cumulative = total;
  charts.cumulative.put(report.mode, report.firstStep, cumulative);
  const row = $('progress').querySelector(`[data-mode="${report.mode}"]`);
  row.querySelector('progress').value = report.stepsDone;
  const perSecond = report.stepsDone / Math.max(1e-3, report.elapsedMs / 1000);
  const eta = (report.stepsTotal - report.stepsDone) / perSecond;
  row.querySelector('.rate').textContent = report.stepsDone === report.stepsTotal
    ? `${report.stepsDone} steps, ${Math.round(perSecond)} steps/s`
    : `${Math.round(perSecond)} steps/s, ~${eta.toFixed(1)} s left`;
}

/** The run ended (result from the worker, or Stop with the steps received so far). */
function finish(result, stopped) {
  run.finishedAt = performance.now();
  run.result = result ?? partialResult();
  run.stopped = stopped;
  setRunning(false);
  if (stopped) startWorker();  // the stopped worker was terminated: a fresh one for the next run
  renderSummary(run.result);
  // The graph layout takes a while for big graphs: after the page has drawn the summary.
  (window.requestIdleCallback ?? ((fn) => setTimeout(fn, 50)))(() => renderInspector(run.result));
  $('core-status').textContent = stopped ? 'Stopped: the steps so far are shown.' : 'Done. Hover the markers, inspect the graphs, export the data.';
}


/** A result document built from the progress reports (after Stop: no graphs, no warnings). */
function partialResult() {
  const modes = Object.entries(run.modes).filter(([, m]) => m.stepUs.length > 0).map(([mode, m]) => {
    const sorted = [...m.stepUs].sort((a, b) => a - b);
    const steady = m.stepUs.filter((_, i) => !m.traced.includes(i)).sort((a, b) => a - b);
    return { mode, steps: m.stepUs.length, total_ms: m.stepUs.reduce((a, b) => a + b, 0) / 1000,
             median_us: sorted[Math.floor(sorted.length / 2)], p99_us: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)],
             steady_median_us: steady[Math.floor(steady.length / 2)] ?? 0, trace_count: m.traced.length, traced_steps: m.traced,
             retraces: [], warnings: [], concrete_functions: [], step_us: m.stepUs, loss: m.loss };
  });
  return { format: 'tracelab.ragged/1', config: run.config, cancelled: true, modes };
}

// ---------------------------------------------------------------- summary and inspector ----
function cell(text) {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

function renderSummary(result) {
  const eager = result.modes.find((m) => m.mode === 'eager');
  $('summary').tBodies[0].replaceChildren(...result.modes.map((m) => {
    const tr = document.createElement('tr');
    tr.dataset.mode = m.mode;
    const speedup = eager && eager.steps === m.steps ? `${(eager.total_ms / m.total_ms).toFixed(2)}×` : '–';
    tr.append(cell(m.mode), cell(m.total_ms.toFixed(1)), cell(m.median_us.toFixed(1)), cell(m.p99_us.toFixed(1)),
              cell(m.steady_median_us.toFixed(1)), cell(String(m.trace_count)), cell(speedup));
    return tr;
  }));
  const warnings = result.modes.flatMap((m) => m.warnings.map((w) => `WARNING:tracelab:${m.mode}: ${w}`));
  $('warnings').textContent = warnings.length ? warnings.join('\n') : '(no retracing warnings)';
  $('retraces').tBodies[0].replaceChildren(...result.modes.flatMap((m) => m.retraces.map((r) => {
    const tr = document.createElement('tr');
    tr.append(cell(m.mode), cell(String(r.step)), cell(r.trace_us.toFixed(0)), cell(r.reason));
    return tr;
  })));
}

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

/** The graphs of concrete function `index` of mode `modeIndex`, parsed on first use. */
function graphsOf(modeIndex, index) {
  if (!run.graphs) run.graphs = run.graphsText ? JSON.parse(run.graphsText) : [];
  return run.graphs[modeIndex]?.[index];
}

function showFunction() {
  const modeIndex = run?.result?.modes.findIndex((m) => m.mode === $('inspect-mode').value) ?? -1;
  const mode = run?.result?.modes[modeIndex];
  const index = Number($('inspect-function').value);
  const f = mode?.concrete_functions[index];
  const graphs = f && graphsOf(modeIndex, index);
  if (!f || !graphs) {
    $('inspect-graph').replaceChildren();
    return;
  }
  const unoptimized = $('inspect-unoptimized').checked;
  $('inspect-signature').textContent = f.signature;
  $('inspect-passes').tBodies[0].replaceChildren(...f.passes.map((p) => {
    const tr = document.createElement('tr');
    tr.append(cell(p.pass), cell(String(p.before)), cell(String(p.after)));
    return tr;
  }));
  $('inspect-text').textContent = unoptimized ? graphs.tracedGraph : graphs.graph;
  drawGraph($('inspect-graph'), unoptimized ? graphs.tracedGraphJson : graphs.graphJson);
}

// ---------------------------------------------------------------- tooltip ----
function hover(u, chart) {
  const tip = $('tooltip');
  const idx = u.cursor.idx;
  if (idx == null || !run) { tip.hidden = true; return; }
  const step = chart.x[idx];
  const near = Math.max(1, Math.round((u.scales.x.max - u.scales.x.min) / u.bbox.width * 6));
  for (const mode of chart.modes) {
    const traced = [...chart.traced.get(mode)].find((s) => Math.abs(s - step) <= near);
    if (traced === undefined) continue;
    const retrace = run.result?.modes.find((m) => m.mode === mode)?.retraces.find((r) => r.step === traced);
    const shape = retrace?.signature.split('\n').filter((l) => l.includes('shape=')).map((l) => l.trim()).join('; ');
    tip.textContent = `${mode}, step ${traced}: traced` + (retrace ? ` in ${retrace.trace_us.toFixed(0)} µs\n${shape}\n${retrace.reason}` : '');
    tip.style.left = `${u.over.getBoundingClientRect().left + window.scrollX + u.cursor.left + 12}px`;
    tip.style.top = `${u.over.getBoundingClientRect().top + window.scrollY + u.cursor.top + 12}px`;
    tip.hidden = false;
    return;
  }
  tip.hidden = true;
}
charts.steps.onHover = hover;

// ---------------------------------------------------------------- exports ----
function download(name, type, text) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 0);
}

/** CSV: one row per step, a time and a loss column per mode, and whether the step traced. */
export function toCsv(result) {
  const modes = result.modes;
  const header = ['step', ...modes.flatMap((m) => [`${m.mode}_us`, `${m.mode}_loss`, `${m.mode}_traced`])];
  const rows = [header.join(',')];
  const steps = Math.max(0, ...modes.map((m) => m.step_us.length));
  for (let i = 0; i < steps; ++i)
    rows.push([i, ...modes.flatMap((m) => [m.step_us[i] ?? '', m.loss[i] ?? '', m.traced_steps.includes(i) ? 1 : 0])].join(','));
  return rows.join('\n') + '\n';
}

/** The runner's document as JSON: per-step arrays as plain arrays, the graphs back in their places. */
function resultJson() {
  const modes = run.result.modes.map((m, i) => ({
    ...m, step_us: Array.from(m.step_us), loss: Array.from(m.loss, (v) => (Number.isFinite(v) ? v : null)),
    concrete_functions: m.concrete_functions.map((f, k) => {
      const g = graphsOf(i, k);
      return g ? { ...f, graph: g.graph, traced_graph: g.tracedGraph, graph_json: g.graphJson, traced_graph_json: g.tracedGraphJson } : f;
    }),
  }));
  return JSON.stringify({ ...run.result, modes }, null, 1);
}
$('export-json').onclick = () => download('tracelab-ragged.json', 'application/json', resultJson());
$('export-csv').onclick = () => download('tracelab-ragged.csv', 'text/csv', toCsv(run.result));

// ---------------------------------------------------------------- wiring ----
form.onsubmit = (event) => {
  event.preventDefault();
  const config = readConfig();
  if (!config) return;
  saveSettingsToUrl(config);
  begin(config);
};
$('stop').onclick = () => {
  worker.terminate();
  finish(null, true);
};
$('log-scale').onchange = (event) => { charts.steps.setLog(event.target.checked); charts.steady.setLog(event.target.checked); };
$('inspect-function').onchange = showFunction;
$('inspect-unoptimized').onchange = showFunction;
$('drop-first').onchange = () => {
  if (!run) return;
  const drop = Math.min(integer($('drop-first').value) || 0, run.config.steps - 1);
  charts.steady.reset(run.config.modes, drop, run.config.steps);
  for (const [mode, m] of Object.entries(run.modes)) charts.steady.put(mode, 0, m.stepUs);
};

loadSettingsFromUrl();
startWorker();
window.playground = { toCsv, get run() { return run; } };
