// The tables under the charts: the summary per mode, the retracing warnings as TensorFlow words them, and every
// trace with its reason. They read the runner's document (docs/performance.md) and the quantities of stats.js.
import { laneStats, formatUs } from './stats.js';

function cell(text) {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

function row(cells, mode) {
  const tr = document.createElement('tr');
  if (mode) tr.dataset.mode = mode;
  tr.append(...cells.map(cell));
  return tr;
}

/** Fills #summary, #warnings and #retraces from a result document. */
export function renderTables(root, result) {
  const eager = result.modes.find((m) => m.mode === 'eager');
  root.querySelector('#summary').tBodies[0].replaceChildren(...result.modes.map((m) => {
    const stats = laneStats(m.step_us, m.traced_steps);
    const speedup = eager && eager.steps === m.steps ? `${(eager.total_ms / m.total_ms).toFixed(2)}×` : '–';
    return row([m.mode, m.total_ms.toFixed(1), m.median_us.toFixed(1), m.p99_us.toFixed(1), stats.steadyMedianUs.toFixed(1),
                stats.steadyP99Us.toFixed(1), String(m.trace_count),
                m.trace_count ? `${formatUs(stats.tracedMs * 1000)} (${Math.round(stats.tracedShare * 100)}%)` : '–',
                speedup], m.mode);
  }));
  const warnings = result.modes.flatMap((m) => m.warnings.map((w) => `WARNING:tracelab:${m.mode}: ${w}`));
  root.querySelector('#warnings').textContent = warnings.length ? warnings.join('\n') : '(no retracing warnings)';
  root.querySelector('#retraces').tBodies[0].replaceChildren(...result.modes.flatMap((m) => m.retraces.map((r) =>
    row([m.mode, String(r.step), r.label ?? '', r.trace_us.toFixed(0), r.reason]))));
  const warmup = root.querySelector('#warmup-note');
  if (warmup) warmup.textContent = result.warmup_ms > 0
    ? `Before recording, the engine ran ${result.config.warmup_steps} untimed steps per mode on a throwaway model ` +
      '(a fresh model and function every 100 steps, so tracing was warmed up too) ' +
      `(${formatUs(result.warmup_ms * 1000)}): the measured run started with fresh functions, so every trace above happened and was timed.`
    : 'No warm-up: the first steps include the browser compiling the engine\'s hot code (see "Warm up the engine").';
}

/** Empties the tables for a new run. */
export function clearTables(root) {
  root.querySelector('#summary').tBodies[0].replaceChildren();
  root.querySelector('#retraces').tBodies[0].replaceChildren();
  root.querySelector('#warnings').textContent = '(running…)';
  const warmup = root.querySelector('#warmup-note');
  if (warmup) warmup.textContent = '';
}
