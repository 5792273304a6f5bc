// The TF.js programs page: starts its worker (tfjs-programs-worker.js), which runs each program of examples/tfjs
// eagerly and with its step under tf.function; when all six runs are in, draws for each program every step's time
// of both runs (the traced steps ringed), the loss of both runs, the medians and their ratio, and says whether the
// traced step was faster, from those numbers. Nothing is drawn while the worker is timing: on a 2-core machine a
// redraw takes a core from the worker and shows up as slow steps (docs/playground.md measures it).
// Each program's <section> carries what it shows as data attributes (data-points-eager, data-median-function-us,
// data-faster, ...), which tests/browser/tfjs_programs.test.mjs reads.
import { uPlot } from './lib/vendor.mjs';
import { MODE_COLORS } from './lanes.js';
import { formatUs, quantile } from './stats.js';

const MODES = ['eager', 'function'];
const MODE_LABELS = { eager: 'eager', function: 'tf.function' };
/** The largest relative difference between the two runs' losses at any step that the page calls agreement. */
const LOSS_TOLERANCE = 1e-4;

const $ = (id) => document.getElementById(id);
const sections = [...document.querySelectorAll('section.program')];
const programs = sections.map((section) => section.dataset.program);
const worker = new Worker(new URL('./tfjs-programs-worker.js', import.meta.url), { type: 'module' });
let results = new Map();   // "program/mode" -> the worker's result
let runs = 0;

/** The largest |a - b| / |b| over the steps (Infinity when the counts differ or a loss is not finite). */
function largestRelativeDifference(a, b) {
  if (a.length !== b.length) return Infinity;
  let largest = 0;
  for (let i = 0; i < a.length; ++i) {
    const relative = Math.abs(a[i] - b[i]) / Math.abs(b[i]);
    largest = Math.max(largest, Number.isFinite(relative) ? relative : a[i] === b[i] ? 0 : Infinity);
  }
  return largest;
}

/** One program's numbers from its two runs: step times in µs, medians, ratio, traces, losses. */
function summarize(eager, traced) {
  const stepUs = { eager: Array.from(eager.stepMs, (ms) => ms * 1000), function: Array.from(traced.stepMs, (ms) => ms * 1000) };
  const median = { eager: quantile(stepUs.eager, 0.5), function: quantile(stepUs.function, 0.5) };
  return {
    stepUs, median, ratio: median.eager / median.function, faster: median.function < median.eager,
    losses: { eager: eager.losses, function: traced.losses }, tracedSteps: { eager: eager.tracedSteps, function: traced.tracedSteps },
    totalMs: { eager: eager.stepMs.reduce((a, b) => a + b, 0), function: traced.stepMs.reduce((a, b) => a + b, 0) },
    lossDifference: largestRelativeDifference(traced.losses, eager.losses),
  };
}

/** The sentence a program's numbers support: faster or not, by how much, and whether the losses agree. */
function verdict(s) {
  const medians = `median step ${formatUs(s.median.function)} under tf.function against ${formatUs(s.median.eager)} eager`;
  const speed = s.faster
    ? `Faster under tf.function: ${medians}, ${s.median.function > 0 ? `${s.ratio.toFixed(1)}× as fast` : 'below the timer\'s resolution'}.`
    : `Not faster under tf.function here: ${medians} (ratio ${s.ratio.toFixed(2)}×).`;
  const agree = s.lossDifference <= LOSS_TOLERANCE
    ? `The losses agree at every step (largest relative difference ${s.lossDifference.toExponential(1)}).`
    : `The losses differ: largest relative difference ${s.lossDifference.toExponential(1)} > ${LOSS_TOLERANCE}.`;
  const costlier = s.totalMs.function > s.totalMs.eager ? ': the trace cost more than the faster steps saved' : '';
  const totals = `All ${s.stepUs.function.length} steps, the trace included: ${formatUs(s.totalMs.function * 1000)} under ` +
                 `tf.function, ${formatUs(s.totalMs.eager * 1000)} eager${costlier}.`;
  return `${speed} ${totals} ${agree}`;
}

const axis = (label, size = 60) => ({ label, stroke: 'currentColor', size });

/** Every step's time of both runs on one asinh µs axis, each traced step ringed. */
function stepChart(element, s) {
  const steps = Math.max(s.stepUs.eager.length, s.stepUs.function.length);
  const x = Array.from({ length: steps }, (_, i) => i);
  const column = (mode) => x.map((i) => s.stepUs[mode][i] ?? null);
  const traced = new Set(s.tracedSteps.function);
  const traces = x.map((i) => (traced.has(i) ? s.stepUs.function[i] : null));
  const top = Math.max(10, ...s.stepUs.eager, ...s.stepUs.function) * 1.5;
  return new uPlot({
    width: Math.max(200, element.clientWidth), height: 260,
    series: [{ label: 'step' },
      ...MODES.map((mode) => ({ label: `${MODE_LABELS[mode]} µs`, stroke: MODE_COLORS[mode], width: 1, points: { show: false },
                               value: (u, v) => (v === null ? '' : formatUs(v)) })),
      { label: 'trace', stroke: MODE_COLORS.function, paths: () => null, value: (u, v) => (v === null ? '' : formatUs(v)),
        points: { show: true, size: 11, width: 2, fill: 'transparent' } }],
    scales: { x: { time: false }, y: { distr: 4, asinh: 1, auto: false, range: () => [0, top] } },
    axes: [axis('step'), axis('µs per step (asinh)', 70)],
    legend: { live: true },
  }, [x, column('eager'), column('function'), traces], element);
}

/** The loss at every step of both runs (log axis; the two lines lie on each other when the runs agree). */
function lossChart(element, s) {
  const x = Array.from({ length: s.losses.eager.length }, (_, i) => i);
  return new uPlot({
    width: Math.max(200, element.clientWidth), height: 200,
    series: [{ label: 'step' }, ...MODES.map((mode) => ({
      label: `${MODE_LABELS[mode]} loss`, stroke: MODE_COLORS[mode], width: mode === 'eager' ? 3 : 1,
      dash: mode === 'function' ? [4, 3] : undefined, points: { show: false } }))],
    scales: { x: { time: false }, y: { distr: 3 } },
    axes: [axis('step'), axis('loss (log)', 70)],
    legend: { live: true },
  }, [x, Array.from(s.losses.eager), Array.from(s.losses.function)], element);
}

/** The numbers table: one row per quantity, one column per run. */
function numbersTable(body, s) {
  const traces = (mode) => (s.tracedSteps[mode].length === 0 ? 'none'
    : s.tracedSteps[mode].map((step) => `step ${step} (${formatUs(s.stepUs[mode][step])})`).join(', '));
  const rows = [
    ['', MODE_LABELS.eager, MODE_LABELS.function],
    ['steps', s.stepUs.eager.length, s.stepUs.function.length],
    ['median step', formatUs(s.median.eager), formatUs(s.median.function)],
    ['all steps', formatUs(s.totalMs.eager * 1000), formatUs(s.totalMs.function * 1000)],
    ['traces', traces('eager'), traces('function')],
    ['last loss', s.losses.eager.at(-1).toPrecision(6), s.losses.function.at(-1).toPrecision(6)],
  ];
  body.replaceChildren(...rows.map((cells, row) => {
    const tr = document.createElement('tr');
    tr.append(...cells.map((text, i) => {
      const cell = document.createElement(row === 0 || i === 0 ? 'th' : 'td');
      if (row === 0 || i === 0) cell.scope = row === 0 ? 'col' : 'row';
      cell.textContent = String(text);
      return cell;
    }));
    return tr;
  }));
}

const plots = new Map();   // section -> its uPlots, replaced on each run
// A chart follows its element's width (the page fits a 375 px screen).
const resizer = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    const plot = plots.get(target.closest('section.program'))?.find((p) => p.root.parentElement === target);
    plot?.setSize({ width: Math.max(200, target.clientWidth), height: plot.height });
  }
});
for (const chart of document.querySelectorAll('section.program .chart')) resizer.observe(chart);

/** Draws one program's section from its two runs, and writes its numbers on the section. */
function drawProgram(section) {
  const program = section.dataset.program;
  const s = summarize(results.get(`${program}/eager`), results.get(`${program}/function`));
  for (const plot of plots.get(section) ?? []) plot.destroy();
  const step = stepChart(section.querySelector('.step-chart'), s);
  const loss = lossChart(section.querySelector('.loss-chart'), s);
  plots.set(section, [step, loss]);
  numbersTable(section.querySelector('table.numbers tbody'), s);
  const drawn = (series) => series.filter((v) => typeof v === 'number' && Number.isFinite(v)).length;
  Object.assign(section.dataset, {
    pointsEager: drawn(step.data[1]), pointsFunction: drawn(step.data[2]), tracesDrawn: drawn(step.data[3]),
    lossPointsEager: drawn(loss.data[1]), lossPointsFunction: drawn(loss.data[2]),
    medianEagerUs: s.median.eager, medianFunctionUs: s.median.function, ratio: s.ratio, faster: s.faster,
    tracedSteps: s.tracedSteps.function.join(','), lossDifference: s.lossDifference,
  });
  const sentence = section.querySelector('.verdict');
  sentence.textContent = verdict(s);
  sentence.dataset.faster = s.faster;
}

function status(text) { $('status').textContent = text; }

worker.onmessage = ({ data }) => {
  if (data.type === 'ready') {
    status('The core is loaded: press Run. The first run is in a fresh worker (see "What is measured").');
    $('run').disabled = false;
  } else if (data.type === 'result') {
    results.set(`${data.program}/${data.mode}`, data);
    status(`Run ${runs}: ${data.program} ${MODE_LABELS[data.mode]} done (${formatUs(data.ms * 1000)})…`);
  } else if (data.type === 'done') {
    sections.forEach(drawProgram);
    const faster = sections.filter((section) => section.dataset.faster === 'true').length;
    status(`Run ${runs} done: ${faster} of ${sections.length} programs faster under tf.function.` +
           (runs === 1 ? ' Run again to see them in this worker without the engine\'s first compilation.' : ''));
    document.body.dataset.runs = String(runs);
    $('run').disabled = false;
  } else if (data.type === 'error') {
    status(`${data.name}: ${data.message}`);
    document.body.dataset.error = `${data.name}: ${data.message}`;
    $('run').disabled = false;
  }
};

$('run').addEventListener('click', () => {
  $('run').disabled = true;
  results = new Map();
  runs += 1;
  $('run').textContent = 'Run again';
  status(`Run ${runs}: training…`);
  worker.postMessage({ type: 'run', programs });
});
