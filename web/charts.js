// The playground's charts: a thin wrapper around uPlot holding one column per mode (and, for step times, a
// marker column per mode showing only the steps that traced). Updates write into the columns in place and are
// batched into at most one redraw per REDRAW_MS, so a fast run never floods the page's thread with redraws.
import { uPlot } from './lib/vendor.mjs';

export const MODE_COLORS = {
  eager: '#d62728', function: '#1f77b4', signature: '#2ca02c', relaxed: '#9467bd', loop: '#ff7f0e', bucketed: '#17becf',
};

const REDRAW_MS = 250;
/** Above this many steps a chart draws one point per bucket of steps (the bucket's max, last or mean value). */
const MAX_DRAWN = 1200;

export class StepChart {
  /**
   * element: the container; options: {yLabel, log, markers (draw traced steps), transform(values) -> values}.
   */
  constructor(element, { yLabel, log = false, markers = false, reduce = 'max' }) {
    this.element = element;
    this.reduce = reduce;
    this.yLabel = yLabel;
    this.log = log;
    this.markers = markers;
    this.modes = [];
    this.columns = new Map();   // mode -> y values (null where not yet run)
    this.traced = new Map();    // mode -> Set of traced steps
    this.markerColumns = new Map();  // mode -> y at traced steps, null elsewhere
    this.counts = new Map();    // mode -> {points, markers}
    this.lastDraw = 0;
    this.x = [];
    this.firstStep = 0;
    this.plot = null;
    this.pending = false;
    this.onHover = null;
    new ResizeObserver(() => this.plot?.setSize(this.size())).observe(element);
  }

  size() { return { width: Math.max(200, this.element.clientWidth), height: 260 }; }

  /** Starts over with these modes and steps [firstStep, lastStep). */
  reset(modes, firstStep, lastStep) {
    this.modes = modes;
    this.firstStep = firstStep;
    this.x = Array.from({ length: Math.max(0, lastStep - firstStep) }, (_, i) => firstStep + i);
    this.columns = new Map(modes.map((m) => [m, new Array(this.x.length).fill(null)]));
    this.markerColumns = new Map(modes.map((m) => [m, new Array(this.x.length).fill(null)]));
    this.traced = new Map(modes.map((m) => [m, new Set()]));
    this.counts = new Map(modes.map((m) => [m, { points: 0, markers: 0 }]));
    this.build();
  }

  setLog(log) {
    this.log = log;
    this.build();
  }

  /** Writes values for steps [from, from + values.length) of `mode`. */
  put(mode, from, values) {
    const column = this.columns.get(mode);
    if (!column) return;
    const count = this.counts.get(mode), traced = this.traced.get(mode), marks = this.markerColumns.get(mode);
    for (let i = 0; i < values.length; ++i) {
      const k = from + i - this.firstStep;
      if (k < 0 || k >= column.length) continue;
      if (column[k] === null) count.points += 1;
      column[k] = values[i];
      if (traced.has(k + this.firstStep)) {
        if (marks[k] === null) count.markers += 1;
        marks[k] = values[i];
      }
    }
    this.schedule();
  }

  /** Marks steps that traced (their values may come before or after). */
  markTraced(mode, steps) {
    const set = this.traced.get(mode);
    if (!set) return;
    const column = this.columns.get(mode), marks = this.markerColumns.get(mode), count = this.counts.get(mode);
    for (const s of steps) {
      set.add(s);
      const k = s - this.firstStep;
      if (k >= 0 && k < column.length && column[k] !== null && marks[k] === null) {
        marks[k] = column[k];
        count.markers += 1;
      }
    }
    this.schedule();
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    const wait = Math.max(0, REDRAW_MS - (performance.now() - this.lastDraw));
    setTimeout(() => requestAnimationFrame(() => {
      this.pending = false;
      this.lastDraw = performance.now();
      this.redraw();
    }), wait);
  }

  /** The drawn columns: every step, or for long runs one point per bucket of steps (spikes stay visible: the
   * step-time charts keep each bucket's max; a bucket holding a traced step keeps its marker). */
  data() {
    const n = this.x.length;
    if (n <= MAX_DRAWN) {
      const data = [this.x];
      for (const mode of this.modes) data.push(this.columns.get(mode));
      if (this.markers) for (const mode of this.modes) data.push(this.markerColumns.get(mode));
      return data;
    }
    const size = Math.ceil(n / MAX_DRAWN), buckets = Math.ceil(n / size);
    const x = Array.from({ length: buckets }, (_, b) => this.x[b * size]);
    const squeeze = (column, how) => Array.from({ length: buckets }, (_, b) => {
      let out = null, sum = 0, count = 0;
      for (let k = b * size; k < Math.min(n, (b + 1) * size); ++k) {
        const v = column[k];
        if (v === null) continue;
        if (how === 'max') out = out === null || v > out ? v : out;
        else if (how === 'last') out = v;
        else { sum += v; count += 1; }
      }
      return how === 'mean' ? (count ? sum / count : null) : out;
    });
    const data = [x];
    for (const mode of this.modes) data.push(squeeze(this.columns.get(mode), this.reduce));
    if (this.markers) for (const mode of this.modes) data.push(squeeze(this.markerColumns.get(mode), 'max'));
    return data;
  }

  redraw() {
    if (!this.plot) return;
    this.plot.setData(this.data());
    // For tests and screen readers: how many points and markers each series holds.
    for (const mode of this.modes) {
      const { points, markers } = this.counts.get(mode);
      this.element.dataset[`points${capitalize(mode)}`] = String(points);
      if (this.markers) this.element.dataset[`markers${capitalize(mode)}`] = String(markers);
    }
  }

  build() {
    this.plot?.destroy();
    const series = [{ label: 'step' }];
    for (const mode of this.modes) series.push({ label: mode, stroke: MODE_COLORS[mode], width: 1, points: { show: false } });
    if (this.markers)
      for (const mode of this.modes)
        series.push({ label: `${mode} traced`, stroke: MODE_COLORS[mode], fill: MODE_COLORS[mode], paths: () => null,
                      points: { show: true, size: 9, width: 2 } });
    const chart = this;
    this.plot = new uPlot({
      ...this.size(),
      series,
      scales: { x: { time: false }, y: this.log ? { distr: 3 } : {} },
      axes: [{ label: 'step', stroke: 'currentColor' }, { label: this.yLabel, stroke: 'currentColor', size: 60 }],
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
      hooks: { setCursor: [(u) => chart.onHover?.(u, chart)] },
    }, this.data(), this.element);
    this.redraw();
  }
}

function capitalize(text) { return text[0].toUpperCase() + text.slice(1); }
