// The quantities the page shows about a mode's steps, defined once: the lanes, the summary table and
// scripts/measure_page.mjs all use these. A mode's steps are `step_us` (µs per step, any array-like) and
// `traced_steps` (the indexes of the steps whose call traced), as in the runner's document (docs/performance.md).

/** The q-quantile by nearest rank, as the core computes median_us and p99_us; 0 for no values. */
export function quantile(values, q) {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  const k = Math.min(Math.max(Math.ceil(q * sorted.length), 1), sorted.length) - 1;
  return sorted[k];
}

/** The times of the steps that did not trace. */
export function untracedTimes(stepUs, tracedSteps) {
  const traced = new Set(tracedSteps);
  const out = [];
  for (let i = 0; i < stepUs.length; ++i) if (!traced.has(i)) out.push(stepUs[i]);
  return out;
}

/**
 * A mode at a glance: traces, the time of its traced steps and their share of the mode's time, and the steady
 * band (median and p99 of the steps that did not trace). Times in µs except the *Ms fields.
 */
export function laneStats(stepUs, tracedSteps) {
  let totalUs = 0, tracedUs = 0;
  for (let i = 0; i < stepUs.length; ++i) totalUs += stepUs[i];
  for (const s of tracedSteps) if (s < stepUs.length) tracedUs += stepUs[s];
  const steady = untracedTimes(stepUs, tracedSteps);
  return {
    steps: stepUs.length, traces: tracedSteps.length, totalMs: totalUs / 1000, tracedMs: tracedUs / 1000,
    tracedShare: totalUs > 0 ? tracedUs / totalUs : 0, steadyMedianUs: quantile(steady, 0.5), steadyP99Us: quantile(steady, 0.99),
  };
}

/**
 * Steps that did not trace but took at least as long as this mode's smallest traced step: on a chart they
 * look like retraces and are not. 0 for a mode without traces (see slowSteps).
 */
export function falseSpikes(stepUs, tracedSteps) {
  const traced = tracedSteps.filter((s) => s < stepUs.length);
  if (traced.length === 0) return 0;
  const smallest = Math.min(...traced.map((s) => stepUs[s]));
  return untracedTimes(stepUs, traced).filter((us) => us >= smallest).length;
}

/** Steps that did not trace and took at least `thresholdUs` (1 ms unless told). */
export function slowSteps(stepUs, tracedSteps, thresholdUs = 1000) {
  return untracedTimes(stepUs, tracedSteps).filter((us) => us >= thresholdUs).length;
}

/** "1.2 µs", "840 µs", "15.2 ms", "2.31 s": a duration given in µs, as the page writes it. */
export function formatUs(us) {
  if (us < 10) return `${us.toFixed(1)} µs`;
  if (us < 1000) return `${Math.round(us)} µs`;
  if (us < 1e6) return `${(us / 1000).toFixed(us < 1e4 ? 2 : 1)} ms`;
  return `${(us / 1e6).toFixed(2)} s`;
}
