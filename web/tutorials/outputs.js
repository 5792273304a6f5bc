// Draws what a code cell showed: text and captured lines (console.log, tl.print, warnings), source code (AutoGraph's
// converted text), tables, charts (uPlot) and graphs (laid out by dagre in the worker, drawn by the playground's
// inspector). Everything arrives as plain data from the cell worker.
import { uPlot } from '../lib/vendor.mjs';
import { drawGraph } from '../inspector.js';
import { LaneChart } from '../lanes.js';

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#17becf', '#8c564b', '#e377c2'];
const LINE_PREFIX = { log: '', print: 'tl.print │ ', warning: '⚠ ' };

/** Appends one output to `container` (the cell's output area); returns the element. */
export function renderOutput(container, output) {
  switch (output.kind) {
    case 'text': case 'log': case 'print': case 'warning': return appendLine(container, output);
    case 'code': return code(container, output);
    case 'table': return container.appendChild(table(output));
    case 'chart': return chart(container, output.spec);
    case 'graph': return graph(container, output);
    case 'ragged': return ragged(container, output);
    case 'progress': return progress(container, output);
    default: return appendLine(container, { kind: 'text', text: `(unknown output kind ${output.kind})` });
  }
}

/** Consecutive lines of the same kind share one <pre>, so a loop's output reads as one block. */
function appendLine(container, { kind, text }) {
  let pre = container.lastElementChild;
  if (!pre || pre.tagName !== 'PRE' || pre.dataset.kind !== kind) {
    pre = document.createElement('pre');
    pre.className = `out out-${kind}`;
    pre.dataset.kind = kind;
    container.append(pre);
  } else {
    pre.append('\n');
  }
  pre.append(LINE_PREFIX[kind] ? LINE_PREFIX[kind] + text : text);
  return pre;
}

/** Source text in a block of its own under its title (never merged with text lines), unwrapped, foldable. */
function code(container, { text, title }) {
  const details = document.createElement('details');
  details.className = 'out out-code';
  details.open = true;
  const summary = document.createElement('summary');
  const lines = text.split('\n').length;
  summary.textContent = `${title || 'code'} (${lines} line${lines === 1 ? '' : 's'})`;
  const pre = document.createElement('pre');
  pre.textContent = text;
  details.append(summary, pre);
  details.dataset.lines = String(lines);
  container.append(details);
  return details;
}

function table({ columns, rows }) {
  const wrap = document.createElement('div');
  wrap.className = 'table-wrap out';
  const element = document.createElement('table');
  if (columns.length) {
    const head = element.createTHead().insertRow();
    for (const name of columns) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = name;
      head.append(th);
    }
  }
  const body = element.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    for (const value of row) tr.insertCell().textContent = value;
  }
  wrap.append(element);
  return wrap;
}

function chart(container, spec) {
  const figure = document.createElement('figure');
  figure.className = 'out out-chart';
  if (spec.title) {
    const caption = document.createElement('figcaption');
    caption.textContent = spec.title;
    figure.append(caption);
  }
  const area = document.createElement('div');
  area.setAttribute('role', 'img');
  area.setAttribute('aria-label', spec.title || 'chart');
  figure.append(area);
  container.append(figure);
  const series = [{ label: spec.xLabel ?? 'x' }, ...spec.series.map((s, i) => ({
    label: s.label, stroke: s.color ?? PALETTE[i % PALETTE.length], width: 1.5,
    points: { show: spec.points ?? s.values.length <= 60 },
  }))];
  const size = () => ({ width: Math.max(240, area.clientWidth || container.clientWidth), height: 240 });
  const plot = new uPlot({
    ...size(), series,
    scales: { x: { time: false }, y: spec.log ? { distr: 3 } : {} },
    axes: [{ label: spec.xLabel ?? '', stroke: 'currentColor' }, { label: spec.yLabel ?? '', stroke: 'currentColor', size: 60 }],
  }, [spec.x, ...spec.series.map((s) => s.values)], area);
  new ResizeObserver(() => plot.setSize(size())).observe(area);
  figure.dataset.series = String(spec.series.length);
  figure.dataset.points = String(spec.x.length);
  return figure;
}

function graph(container, { layout, title }) {
  const details = document.createElement('details');
  details.className = 'out out-graph';
  details.open = true;
  const summary = document.createElement('summary');
  details.append(summary);
  const area = document.createElement('div');
  area.className = 'graph';
  details.append(area);
  container.append(details);
  const nodes = drawGraph(area, layout);
  summary.textContent = `${title || 'graph'} (${nodes} nodes)`;
  details.dataset.nodes = String(nodes);
  return details;
}

/** The ragged experiment in lanes, with the playground's component (lanes.js). */
function ragged(container, { steps, modes }) {
  const figure = document.createElement('figure');
  figure.className = 'out out-ragged';
  const area = document.createElement('div');
  area.setAttribute('aria-label', 'step time per mode, one lane per mode');
  figure.append(area);
  container.append(figure);
  const lanes = new LaneChart(area);
  lanes.reset(modes.map((m) => m.mode), steps);
  for (const m of modes) lanes.put(m.mode, 0, m.step_us, m.retraces);
  lanes.draw();
  figure.dataset.lanes = String(modes.length);
  return figure;
}

/** One progress bar per cell, updated in place. */
function progress(container, { fraction, label }) {
  let row = container.querySelector(':scope > .out-progress');
  if (!row) {
    row = document.createElement('div');
    row.className = 'out out-progress';
    row.innerHTML = '<progress max="1"></progress><span></span>';
    container.append(row);
  }
  row.querySelector('progress').value = fraction;
  row.querySelector('span').textContent = label;
  return row;
}
