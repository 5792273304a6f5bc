// The playground's charts: a thin wrapper around uPlot holding one column per mode (and, for step times, a
// marker column per mode showing only the steps that traced). append-style updates are batched into one redraw
// per animation frame, so a fast run never floods the page with redraws.
import { uPlot } from './lib/vendor.mjs';

export const MODE_COLORS = {
  eager: '#d62728', function: '#1f77b4', signature: '#2ca02c', relaxed: '#9467bd', loop: '#ff7f0e', bucketed: '#17becf',
};

export class StepChart {
  /**
   * element: the container; options: {yLabel, log, markers (draw traced steps), transform(values) -> values}.
   */
  constructor(element, { yLabel, log = false, markers = false }) {
    this.element = element;
    this.yLabel = yLabel;
    this.log = log;
    this.markers = markers;
    this.modes = [];
    this.columns = new Map();   // mode -> y values (null where not yet run)
    this.traced = new Map();    // mode -> Set of traced steps
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
    this.traced = new Map(modes.map((m) => [m, new Set()]));
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
    for (let i = 0; i < values.length; ++i) {
      const k = from + i - this.firstStep;
      if (k >= 0 && k < column.length) column[k] = values[i];
    }
    this.schedule();
  }

  markTraced(mode, steps) {
    const set = this.traced.get(mode);
    if (!set) return;
    for (const s of steps) set.add(s);
    this.schedule();
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.redraw();
    });
  }

  data() {
    const data = [this.x];
    for (const mode of this.modes) data.push(this.columns.get(mode));
    if (this.markers)
      for (const mode of this.modes) {
        const column = this.columns.get(mode), traced = this.traced.get(mode);
        data.push(column.map((v, k) => (v !== null && traced.has(k + this.firstStep) ? v : null)));
      }
    return data;
  }

  redraw() {
    if (!this.plot) return;
    this.plot.setData(this.data());
    // For tests and screen readers: how many points and markers each series holds.
    for (const mode of this.modes) {
      const column = this.columns.get(mode);
      const points = column.reduce((n, v) => n + (v === null ? 0 : 1), 0);
      this.element.dataset[`points${capitalize(mode)}`] = String(points);
      if (this.markers) {
        const markers = column.reduce((n, v, k) => n + (v !== null && this.traced.get(mode).has(k + this.firstStep) ? 1 : 0), 0);
        this.element.dataset[`markers${capitalize(mode)}`] = String(markers);
      }
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
