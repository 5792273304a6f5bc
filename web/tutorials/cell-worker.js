// Runs the tutorials' code cells off the page's thread. Each cell is the body of an async function with three
// names in scope:
//   tl      the Tracelab API (docs/js-api.md), loaded once per worker
//   show    output under the cell: show.text(...), show.code(text, title), show.table(rows), show.chart({...}), show.graph(json), show.ragged(result), show.progress(f)
//   shared  an object that lives as long as this worker, for values a later cell uses (a model, a dataset)
// console.log and tl.print lines and the core's warnings are captured in order and counted, so a page can check
// "console.log ran 1 time, tl.print ran 5 times" from what really happened, whatever the cell's code now says.
// Each cell is converted by AutoGraph (tl.autograph.convert) before it runs, as tf.function converts Python: a
// plain `if` / `while` / `for` over a tensor becomes tl.cond / tl.whileLoop when traced. An error's line is the
// line of the cell as written (the conversion's source map, generated line -> original line).
// A runaway cell is stopped by the page terminating this worker (a fresh one replaces it; `shared` starts empty).
import { loadTracelab } from '../lib/tracelab.mjs';
import { layoutGraph } from '../graph-layout.js';
import { convertCell, errorLine, toPlain } from './convert-cell.js';

const AsyncFunction = (async () => {}).constructor;
const ready = loadTracelab();
const shared = {};
let current = null;   // the cell being run: {id, counts}

function post(kind, payload) {
  if (current) self.postMessage({ type: 'output', id: current.id, output: { kind, ...payload } });
}

const plain = (value) => (typeof value === 'string' ? value : formatValue(value));

/** A value as the text a reader expects: tensors printed by the core, objects as JSON. */
function formatValue(value) {
  if (value && typeof value === 'object' && typeof value.toString === 'function' && 'dtype' in value) return value.toString();
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(value, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)) ?? String(value);
  } catch {
    return String(value);
  }
}

/** `show`: what a cell calls to put output under itself. Every payload is plain data (structured-cloneable). */
const show = {
  text: (...parts) => post('text', { text: parts.map(plain).join(' ') }),
  /** Source text (AutoGraph's converted code, say) in a block of its own under `title`. */
  code: (text, title = '') => post('code', { text: String(text), title }),
  /** rows: array of objects (columns = their keys) or of arrays with `columns` given. */
  table: (rows, columns) => {
    const keys = columns ?? (rows.length && !Array.isArray(rows[0]) ? Object.keys(rows[0]) : []);
    const cells = rows.map((row) => (Array.isArray(row) ? row : keys.map((k) => row[k])).map(plain));
    post('table', { columns: keys, rows: cells });
  },
  /** {title, x: number[], series: [{label, values}], xLabel, yLabel, log} */
  chart: (spec) => post('chart', {
    spec: { ...spec, x: Array.from(spec.x), series: spec.series.map((s) => ({ ...s, values: Array.from(s.values, (v) => (v === null || Number.isNaN(v) ? null : v)) })) },
  }),
  /** A graph in the JSON form of docs/graph.md (a string or an object), laid out by dagre here, drawn by the page. */
  graph: (json, title = '') => post('graph', { layout: layoutGraph(json), title }),
  /** The ragged experiment's result (tl.experiments.runRagged) as the playground draws it: one lane per mode. */
  ragged: (result) => post('ragged', {
    steps: result.config?.steps ?? Math.max(...result.modes.map((m) => m.step_us.length)),
    modes: result.modes.map((m) => ({ mode: m.mode, step_us: Float64Array.from(m.step_us),
      retraces: m.retraces.map(({ step, trace_us, signature, reason }) => ({ step, trace_us, signature, reason })) })),
  }),
  /** A progress bar under the cell: fraction in [0, 1] and a label. */
  progress: (fraction, label = '') => post('progress', { fraction: Math.max(0, Math.min(1, fraction)), label }),
};

function captureConsole() {
  const original = console.log;
  console.log = (...parts) => {
    if (!current) return original(...parts);
    current.counts.log += 1;
    post('log', { text: parts.map(plain).join(' ') });
  };
}

async function runCell({ id, code }) {
  const tl = await ready;
  // The cell's code is evaluated anew, so its tl.functions count retraces afresh, as a re-run notebook cell's
  // tf.functions do (Python compiles new code objects); otherwise a re-run would find its warnings used up.
  tl[Symbol.for('tracelab.internals')].resetRetracingDetectors();
  current = { id, counts: { log: 0, print: 0, warning: 0 } };
  const before = tl.memory().numTensors;
  const started = performance.now();
  try {
    const { text, lines } = convertCell(tl, code);
    current.lines = lines;
    const body = new AsyncFunction('tl', 'show', 'shared', text);
    const result = await body(tl, show, shared);
    const ms = performance.now() - started;
    self.postMessage({ type: 'done', id, ms, counts: current.counts, result: toPlain(result),
                       tensors: tl.memory().numTensors, newTensors: tl.memory().numTensors - before });
  } catch (error) {
    const ms = performance.now() - started;
    self.postMessage({ type: 'failed', id, ms, counts: current.counts, name: error?.name ?? 'Error',
                       message: String(error?.message ?? error), line: errorLine(error, current.lines) });
  } finally {
    current = null;
  }
}

captureConsole();
ready.then((tl) => {
  tl.setLogHandler((level, text) => {
    if (!current) return;
    if (level === 'print') current.counts.print += 1;
    if (level === 'warning') current.counts.warning += 1;
    post(level === 'print' ? 'print' : level === 'warning' ? 'warning' : 'log', { text });
  });
  self.postMessage({ type: 'ready', version: tl.version });
}, (error) => self.postMessage({ type: 'load-failed', message: String(error?.message ?? error) }));

// One cell at a time, in the order the page sends them.
let queue = Promise.resolve();
self.onmessage = ({ data }) => {
  if (data.type === 'run') queue = queue.then(() => runCell(data));
};
