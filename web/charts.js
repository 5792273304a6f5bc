// The playground's overlay charts (cumulative time, loss): a thin wrapper around uPlot with one column per mode.
// The plot is built once with a series per mode and kept across runs (a run hides the modes it does not have).
// `put` writes into the columns in place; `draw` draws them (the owner decides when, as for lanes.js).
import { uPlot } from './lib/vendor.mjs';
import { MODES, MODE_COLORS } from './lanes.js';

/** Above this many steps a chart draws one point per bucket of steps (the bucket's last or mean value). */
const MAX_DRAWN = 1200;

export class StepChart {
  /** element: the container; options: {yLabel, reduce: 'last' | 'mean' (how a bucket of steps becomes a point)}. */
  constructor(element, { yLabel, reduce = 'last' }) {
    this.element = element;
    this.reduce = reduce;
    this.yLabel = yLabel;
    this.modes = [];
    this.columns = new Map();   // mode -> Float64Array of values (NaN where not yet run)
    this.filled = new Map();    // mode -> steps received
    this.steps = 0;
    this.plot = null;
    new ResizeObserver(() => this.plot?.setSize(this.size())).observe(element);
  }

  size() { return { width: Math.max(200, this.element.clientWidth), height: 240 }; }

  /** Starts over with these modes and `steps` steps. */
  reset(modes, steps) {
    this.modes = modes;
    this.steps = steps;
    this.columns = new Map(MODES.map((m) => [m, new Float64Array(modes.includes(m) ? steps : 0).fill(NaN)]));
    this.filled = new Map(MODES.map((m) => [m, 0]));
    this.build();
    MODES.forEach((mode, i) => this.plot.setSeries(i + 1, { show: modes.includes(mode) }));
    this.draw();
  }

  /** Writes values for steps [from, from + values.length) of `mode`. */
  put(mode, from, values) {
    const column = this.columns.get(mode);
    if (!column) return;
    const end = Math.min(column.length, from + values.length);
    for (let k = from; k < end; ++k) column[k] = values[k - from];
    this.filled.set(mode, Math.max(this.filled.get(mode), end));
  }

  /** The drawn columns: every step, or for long runs one point per bucket of steps. */
  data() {
    const n = this.steps;
    const size = Math.max(1, Math.ceil(n / MAX_DRAWN)), buckets = Math.ceil(n / size);
    const x = Array.from({ length: buckets }, (_, b) => b * size);
    const squeeze = (column, filled) => Array.from({ length: buckets }, (_, b) => {
      const end = Math.min(filled, (b + 1) * size);
      if (b * size >= end) return null;
      let value = column[end - 1];
      if (this.reduce === 'mean') {
        value = 0;
        for (let k = b * size; k < end; ++k) value += column[k];
        value /= end - b * size;
      }
      return Number.isFinite(value) ? value : null;
    });
    return [x, ...MODES.map((mode) => squeeze(this.columns.get(mode), this.filled.get(mode)))];
  }

  draw() {
    if (!this.plot) return;
    this.plot.setData(this.data());
    for (const mode of this.modes) this.element.dataset[`points${mode[0].toUpperCase()}${mode.slice(1)}`] = String(this.filled.get(mode));
  }

  build() {
    if (this.plot) return;
    const series = [{ label: 'step' }, ...MODES.map((mode) => ({ label: mode, stroke: MODE_COLORS[mode], width: 1, points: { show: false } }))];
    this.plot = new uPlot({
      ...this.size(),
      series,
      scales: { x: { time: false } },
      axes: [{ label: 'step', stroke: 'currentColor' }, { label: this.yLabel, stroke: 'currentColor', size: 60 }],
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
    }, this.data(), this.element);
  }
}
