// Every step's time as small multiples: one lane per mode, one shared step axis and one shared µs scale, so a
// spike in one lane compares with a step in any other. In each lane: the step times (a line), the steady band
// (median to p99 of the steps that did not trace, shaded), and every trace as a marker labelled with the shape
// it traced for ("X=7"), drawn on the canvas so it reads without hovering. A header line per lane says what the
// traces cost ("10 traces: 15.2 ms = 61% of this mode's 24.9 ms"). The step axis is logarithmic by default
// (asinh, so step 0 has a place): the traces sit in the first steps, which then get half the width.
// Drag to zoom any lane (all follow), double-click to see every step again; hover for a step or a trace.
// Data and drawing are apart: `put` only stores, `draw` draws the lanes that changed (all of them when the shared
// scale moved), so the owner decides when the page spends time drawing (the playground: rarely while the engine
// is being timed, see docs/playground.md).
//
//   const lanes = new LaneChart(element);
//   lanes.reset(['eager', 'function'], 2000);
//   lanes.put('function', 0, stepUs, retraces);   // as the steps arrive; retraces: [{step, trace_us, signature, reason}]
//   lanes.draw();
import { uPlot } from './lib/vendor.mjs';
import { traceLabel } from './protocol.js';
import { formatUs, laneStats } from './stats.js';

export const MODES = ['eager', 'function', 'signature', 'relaxed', 'loop', 'bucketed'];
export const MODE_COLORS = {
  eager: '#d62728', function: '#1f77b4', signature: '#2ca02c', relaxed: '#9467bd', loop: '#ff7f0e', bucketed: '#17becf',
};
const MODE_NOTES = {
  eager: 'op by op', function: 'one graph per shape', signature: 'input signature (None, None, 20)',
  relaxed: 'reduce_retracing', loop: 'the whole loop in one graph', bucketed: 'padded to 2, 4, 8, 10',
};

/** A lane draws at most this many points: one per bucket of steps (the bucket's slowest step). */
const MAX_POINTS = 1500;
const LANE_HEIGHT = 150;
const HOVER_PX = 8;
const PLOTS_PER_FRAME = 2;

const display = (logSteps) => (logSteps ? Math.asinh : (s) => s);
const undisplay = (logSteps) => (logSteps ? Math.sinh : (p) => p);

/** One mode's row: header, plot, and the list of its traces (the same facts as the markers, as text). */
class Lane {
  constructor(chart, mode) {
    this.mode = mode;
    this.element = document.createElement('div');
    this.element.className = 'lane';
    this.element.dataset.mode = mode;
    this.element.hidden = true;
    this.element.innerHTML = '<div class="lane-head"><span class="swatch"></span><strong class="lane-mode"></strong>' +
      '<small class="lane-note"></small><span class="lane-summary"></span></div><div class="lane-plot"></div>' +
      '<ol class="lane-traces visually-hidden"></ol>';
    this.element.querySelector('.swatch').style.background = MODE_COLORS[mode];  // CSSOM: allowed by the CSP
    this.element.querySelector('.lane-mode').textContent = mode;
    this.element.querySelector('.lane-note').textContent = MODE_NOTES[mode] ?? '';
    this.summary = this.element.querySelector('.lane-summary');
    this.traceList = this.element.querySelector('.lane-traces');
    this.plotArea = this.element.querySelector('.lane-plot');
    this.chart = chart;
    this.clear(0);
  }

  clear(steps) {
    this.dirty = true;
    this.stepUs = new Float64Array(steps);
    this.filled = 0;
    this.retraces = [];
    this.stats = null;
    this.summary.textContent = '';
    this.traceList.replaceChildren();
    this.element.dataset.steps = '0';
    this.element.dataset.traces = '0';
    this.element.dataset.labels = '0';
  }

  put(from, stepUs, retraces) {
    const end = Math.min(this.stepUs.length, from + stepUs.length);
    for (let k = from; k < end; ++k) this.stepUs[k] = stepUs[k - from];
    this.filled = Math.max(this.filled, end);
    for (const r of retraces ?? []) {
      const retrace = { ...r, label: r.label ?? traceLabel(r.signature) };
      this.retraces.push(retrace);
      const item = document.createElement('li');
      item.textContent = `step ${retrace.step}: traced for ${retrace.label} in ${formatUs(retrace.trace_us)}`;
      this.traceList.append(item);
    }
    this.element.dataset.steps = String(this.filled);
    this.element.dataset.traces = String(this.retraces.length);
    this.stats = null;
    this.dirty = true;
  }

  /** The header line: progress while running; what the traces cost and the steady band when done. */
  describe(total) {
    const traces = this.retraces.length;
    if (this.filled < total) {
      this.summary.textContent = `step ${this.filled} of ${total}` + (traces ? `, ${traces} trace${traces === 1 ? '' : 's'} so far` : '');
      return;
    }
    this.stats ??= laneStats(this.stepUs.subarray(0, this.filled), this.retraces.map((r) => r.step));
    const s = this.stats;
    const cost = traces === 0 ? 'no traces'
      : `${traces} trace${traces === 1 ? '' : 's'}: ${formatUs(s.tracedMs * 1000)} = ${Math.round(s.tracedShare * 100)}% of this mode's ${formatUs(s.totalMs * 1000)}`;
    this.summary.textContent = `${cost} · steady ${formatUs(s.steadyMedianUs)} (p99 ${formatUs(s.steadyP99Us)})`;
  }

  /** [x, y] for steps [lo, hi]: every step, or one point per bucket (its slowest step) with buckets of equal width on screen. */
  points(lo, hi, logSteps) {
    const last = Math.min(hi, this.filled - 1);
    if (last < lo) return [[], []];
    const toScreen = display(logSteps), fromScreen = undisplay(logSteps);
    const width = (toScreen(hi) - toScreen(lo)) / MAX_POINTS;
    const xs = [], ys = [];
    for (let start = lo; start <= last;) {
      const end = Math.min(last + 1, Math.max(start + 1, Math.floor(fromScreen(toScreen(start) + width)) + 1));
      let at = start;
      for (let k = start + 1; k < end; ++k) if (this.stepUs[k] > this.stepUs[at]) at = k;
      xs.push(at);
      ys.push(this.stepUs[at]);
      start = end;
    }
    return [xs, ys];
  }
}

export class LaneChart {
  /** element: the container (lanes are appended to it); options.modes: the lanes to make (all six by default). */
  constructor(element, { modes = MODES } = {}) {
    this.element = element;
    this.element.classList.add('lanes');
    this.logSteps = true;
    this.logTimes = true;
    this.steps = 0;
    this.view = null;           // [lo, hi] while zoomed, null for every step
    this.range = [1, 10];       // the shared µs scale
    this.drawnRange = null;     // the shared scale the lanes were last drawn with
    this.applying = false;
    this.lanes = new Map(modes.map((mode) => [mode, new Lane(this, mode)]));
    this.tooltip = document.createElement('div');
    this.tooltip.className = 'lane-tooltip';
    this.tooltip.setAttribute('role', 'tooltip');
    this.tooltip.hidden = true;
    this.element.append(...[...this.lanes.values()].map((l) => l.element), this.tooltip);
    this.sync = uPlot.sync(`lanes-${Math.random().toString(36).slice(2)}`);
    new ResizeObserver(() => this.resize()).observe(this.element);
  }

  /** Starts over: lanes for `modes` (in the order given), each for `steps` steps. The plots are kept. */
  reset(modes, steps) {
    this.steps = steps;
    this.view = null;
    this.range = [Infinity, 0];
    for (const lane of this.lanes.values()) {
      lane.clear(modes.includes(lane.mode) ? steps : 0);
      lane.element.hidden = !modes.includes(lane.mode);
    }
    for (const mode of modes) this.element.insertBefore(this.lanes.get(mode).element, this.tooltip);
    this.element.dataset.modes = modes.join(',');
    this.draw();
  }

  /** Steps [from, from + stepUs.length) of `mode`, and the traces among them. */
  put(mode, from, stepUs, retraces = []) {
    const lane = this.lanes.get(mode);
    if (!lane) return;
    lane.put(from, stepUs, retraces);
    for (const us of stepUs) {
      if (us > 0 && us < this.range[0]) this.range[0] = us;
      if (us > this.range[1]) this.range[1] = us;
    }
  }

  setLogSteps(log) {
    this.logSteps = log;
    this.rebuild();
  }

  setLogTimes(log) {
    this.logTimes = log;
    this.rebuild();
  }

  /** Shows steps [lo, hi] in every lane, or every step for null. */
  setView(view) {
    this.view = view && view[1] - view[0] >= 2 ? [Math.max(0, Math.floor(view[0])), Math.min(this.steps - 1, Math.ceil(view[1]))] : null;
    this.draw({ all: true });
  }

  visibleLanes() { return [...this.lanes.values()].filter((l) => !l.element.hidden); }

  /**
   * Draws the visible lanes that changed since they were last drawn (every visible lane with `all`, or when the
   * shared µs scale moved). Plots not made yet are made PLOTS_PER_FRAME at a time, one frame after another, so no
   * single task of the page's thread makes them all.
   */
  draw({ all = false } = {}) {
    const [lo, hi] = this.view ?? [0, Math.max(1, this.steps - 1)];
    const yRange = this.yRange();
    const rescaled = !this.drawnRange || this.drawnRange[0] !== yRange[0] || this.drawnRange[1] !== yRange[1];
    this.drawnRange = yRange;
    const missing = this.visibleLanes().filter((lane) => !lane.plot);
    for (const lane of missing.slice(0, PLOTS_PER_FRAME)) this.ensurePlot(lane);
    if (missing.length > PLOTS_PER_FRAME) requestAnimationFrame(() => this.draw());
    this.applying = true;
    for (const lane of this.visibleLanes()) {
      if (!lane.plot || !(all || rescaled || lane.dirty || lane.fresh)) continue;
      lane.dirty = lane.fresh = false;
      lane.describe(this.steps);
      lane.plot.batch(() => {
        lane.plot.setData(lane.points(lo, hi, this.logSteps), false);
        lane.plot.setScale('x', { min: lo, max: hi });
        lane.plot.setScale('y', { min: yRange[0], max: yRange[1] });
      });
    }
    this.applying = false;
  }

  /** The shared µs scale, with room above the tallest step for the labels. */
  yRange() {
    let [min, max] = this.range;
    if (!(max > 0) || !Number.isFinite(min)) [min, max] = [1, 1000];
    return this.logTimes ? [min / 1.6, max * 8] : [0, max * 1.25];
  }

  resize() {
    for (const lane of this.visibleLanes()) lane.plot?.setSize(this.size(lane));
  }

  size(lane) { return { width: Math.max(240, lane.plotArea.clientWidth || this.element.clientWidth), height: LANE_HEIGHT }; }

  rebuild() {
    for (const lane of this.lanes.values()) {
      lane.plot?.destroy();
      lane.plot = null;
    }
    this.draw({ all: true });
  }

  ensurePlot(lane) {
    if (lane.plot) return;
    const chart = this;
    lane.plot = new uPlot({
      ...this.size(lane),
      series: [{ label: 'step' }, { label: `${lane.mode} µs`, stroke: MODE_COLORS[lane.mode], width: 1, points: { show: false } }],
      scales: {
        x: { time: false, auto: false, range: (u, min, max) => [min, max], ...(this.logSteps ? { distr: 4, asinh: 1 } : {}) },
        y: { auto: false, range: (u, min, max) => [min, max], ...(this.logTimes ? { distr: 3 } : {}) },
      },
      axes: [
        { stroke: 'currentColor', size: 28, ...(this.logSteps ? { splits: (u) => logStepSplits(u) } : {}) },
        { stroke: 'currentColor', size: 64, space: 16, values: (u, splits) => splits.map(axisUs),
          ...(this.logTimes ? { splits: (u) => logTimeSplits(u) } : {}) },
      ],
      legend: { show: false },
      cursor: {
        sync: { key: this.sync.key, setSeries: false },
        drag: { x: true, y: false },
        bind: { dblclick: () => () => { chart.setView(null); return null; } },
      },
      hooks: {
        drawClear: [(u) => chart.drawBand(u, lane)],
        draw: [(u) => chart.drawTraces(u, lane)],
        setScale: [(u, key) => { if (key === 'x' && !chart.applying) chart.setView([u.scales.x.min, u.scales.x.max]); }],
        setCursor: [(u) => chart.hover(u, lane)],
      },
    }, [[], []], lane.plotArea);
    lane.fresh = true;
    lane.plot.over.addEventListener('mouseleave', () => { this.tooltip.hidden = true; });
  }

  /** The steady band: median to p99 of the steps that did not trace, and the median as a dashed line. */
  drawBand(u, lane) {
    if (lane.filled < this.steps || !lane.filled) return;
    lane.stats ??= laneStats(lane.stepUs.subarray(0, lane.filled), lane.retraces.map((r) => r.step));
    const { steadyMedianUs: median, steadyP99Us: p99 } = lane.stats;
    if (!(median > 0)) return;
    const { ctx, bbox } = u;
    const top = u.valToPos(p99, 'y', true), mid = u.valToPos(median, 'y', true);
    ctx.save();
    ctx.fillStyle = MODE_COLORS[lane.mode];
    ctx.globalAlpha = 0.14;
    ctx.fillRect(bbox.left, top, bbox.width, Math.max(1, mid - top));
    ctx.globalAlpha = 0.7;
    ctx.strokeStyle = MODE_COLORS[lane.mode];
    ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
    ctx.beginPath();
    ctx.moveTo(bbox.left, mid);
    ctx.lineTo(bbox.left + bbox.width, mid);
    ctx.stroke();
    ctx.restore();
  }

  /** Every trace in view: a marker at its step's time and its label beside it, placed where no other label is. */
  drawTraces(u, lane) {
    const { ctx, bbox } = u;
    const dpr = devicePixelRatio;
    const [lo, hi] = [u.scales.x.min, u.scales.x.max];
    const taken = [];
    const fits = (box) => box.x >= bbox.left && box.x + box.w <= bbox.left + bbox.width + 40 * dpr && box.y >= bbox.top - 2 &&
      box.y + box.h <= bbox.top + bbox.height && taken.every((t) => box.x >= t.x + t.w || t.x >= box.x + box.w || box.y >= t.y + t.h || t.y >= box.y + box.h);
    ctx.save();
    ctx.font = `${11 * dpr}px system-ui, sans-serif`;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    const style = getComputedStyle(this.element);
    const background = style.getPropertyValue('--bg').trim() || '#fff', foreground = style.color;
    let labels = 0;
    const markers = lane.retraces.filter((r) => r.step >= lo && r.step <= hi && r.step < lane.filled);
    for (const r of markers) {
      const x = u.valToPos(r.step, 'x', true), y = u.valToPos(Math.max(lane.stepUs[r.step], this.yRange()[0]), 'y', true);
      ctx.beginPath();
      ctx.arc(x, y, 4 * dpr, 0, 2 * Math.PI);
      ctx.fillStyle = MODE_COLORS[lane.mode];
      ctx.fill();
      ctx.lineWidth = 1.5 * dpr;
      ctx.strokeStyle = background;
      ctx.stroke();
      taken.push({ x: x - 5 * dpr, y: y - 5 * dpr, w: 10 * dpr, h: 10 * dpr });
    }
    for (const r of markers) {
      const x = u.valToPos(r.step, 'x', true), y = u.valToPos(Math.max(lane.stepUs[r.step], this.yRange()[0]), 'y', true);
      const w = ctx.measureText(r.label).width + 4 * dpr, h = 13 * dpr;
      const candidates = [[x + 6 * dpr, y - h / 2], [x - w / 2, y - h - 5 * dpr], [x - w / 2, y + 5 * dpr],
                          [x - w / 2, y - 2 * h - 5 * dpr], [x + 6 * dpr, y - 2 * h], [x + 6 * dpr, y + h]];
      const spot = candidates.map(([bx, by]) => ({ x: bx, y: by, w, h })).find(fits);
      if (!spot) continue;
      taken.push(spot);
      ctx.fillStyle = foreground;
      ctx.fillText(r.label, spot.x + 2 * dpr, spot.y + h / 2);
      labels += 1;
    }
    ctx.restore();
    lane.element.dataset.markers = String(markers.length);
    lane.element.dataset.labels = String(labels);
  }

  /** The tooltip: the trace under the cursor (its step, shape, trace time and reason), else the step's time. */
  hover(u, lane) {
    const idx = u.cursor.idx, left = u.cursor.left;
    if (idx == null || left == null || left < 0 || lane.filled === 0) { this.tooltip.hidden = true; return; }
    if (!u.cursor.event) return;   // a lane following another's cursor: only the hovered lane explains
    const step = Math.round(u.posToVal(left, 'x'));
    const near = lane.retraces.find((r) => Math.abs(u.valToPos(r.step, 'x') - left) <= HOVER_PX);
    let text;
    if (near) {
      const shape = (near.signature ?? '').split('\n').filter((l) => l.includes('shape=')).map((l) => l.trim()).join('\n');
      text = `${lane.mode}, step ${near.step}: traced for ${near.label} in ${formatUs(near.trace_us)} ` +
             `(the whole step ${formatUs(lane.stepUs[near.step])})\n${shape}\n${near.reason ?? ''}`.trim();
    } else {
      const at = u.data[0][idx];
      text = `${lane.mode}, step ${at}: ${formatUs(u.data[1][idx])}` +
             (Math.abs(at - step) > 1 ? ` (the slowest of the steps drawn as this point)` : '');
    }
    this.tooltip.textContent = text;
    const box = u.over.getBoundingClientRect(), host = this.element.getBoundingClientRect();
    this.tooltip.style.left = `${Math.min(box.left - host.left + left + 12, host.width - 260)}px`;
    this.tooltip.style.top = `${box.top - host.top + u.cursor.top + 12}px`;
    this.tooltip.hidden = false;
  }
}

/** A µs-axis tick: "10 µs", "300 µs", "1 ms", "30 ms". */
function axisUs(v) {
  if (v == null) return '';
  return v < 1000 ? `${+v.toPrecision(3)} µs` : `${+(v / 1000).toPrecision(3)} ms`;
}

/** Step-axis ticks on the asinh scale: 0, 1, 2, 5, 10, 20, 50, ... within the view. */
function logStepSplits(u) {
  const { min, max } = u.scales.x;
  const out = [];
  for (let decade = 1; decade <= Math.max(1, max) * 10; decade *= 10)
    for (const m of [1, 2, 5]) {
      const v = m * decade;
      if (v >= min && v <= max) out.push(v);
    }
  if (min <= 0) out.unshift(0);
  return out;
}

/** µs-axis ticks on the log scale: 1, 10, 100 µs, 1, 10 ms ... (and 3× between when the range is short). */
function logTimeSplits(u) {
  const { min, max } = u.scales.y;
  const out = [];
  const thirds = Math.log10(max / min) < 3;
  for (let v = 10 ** Math.floor(Math.log10(min)); v <= max; v *= 10) {
    if (v >= min) out.push(v);
    if (thirds && v * 3 >= min && v * 3 <= max) out.push(v * 3);
  }
  return out;
}
