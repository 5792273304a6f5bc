// Lesson 1's live checks: trace counts per mode and why each call traced, the relaxed signature, identical final
// losses, and the crossovers found in this run (timings, judged and marked so): traced against eager, and in the
// article's long run function against signature, with and without plans for generic graphs.
import { expect } from './expect.js';

const { that } = expect;
const json = (value) => JSON.stringify(value);

/** Whether `counts` ({mode: traces}) holds exactly `expected`. */
const sameCounts = (counts, expected) => json(Object.entries(counts ?? {}).sort()) === json(Object.entries(expected).sort());

/** The first step from which `mine`'s cumulative time stays below `eager`'s (-1: it never does), summed in ms as
 * the cell sums them. */
function crossoverOf(mine, eager) {
  let total = 0, eagerTotal = 0, lastBehind = -1;
  for (let s = 0; s < mine.length; ++s) {
    total += mine[s] / 1000;
    eagerTotal += eager[s] / 1000;
    if (total >= eagerTotal) lastBehind = s;
  }
  return lastBehind + 1 < mine.length ? lastBehind + 1 : -1;
}

/** The long-run cell's steady step, computed as the cell computes it: the mean of the steps that did not trace,
 * without the slowest 2% (a mean because a browser's clock counts in steps of 5 µs or more). */
function steadyMean(stepUs, tracedSteps) {
  const traced = new Set(tracedSteps);
  const kept = stepUs.filter((_, s) => !traced.has(s)).sort((a, b) => a - b);
  kept.length = Math.ceil(kept.length * 0.98);
  return kept.reduce((sum, us) => sum + us, 0) / kept.length;
}

const LONG_RUN_STEPS = 20000;
const LONG_RUN_MODES = ['function', 'signature', 'loop'];

/** What is wrong with the long-run cell's result as a record of two runs (a string), or '' when it is sound. */
function longRunProblem(result) {
  const { traces = {}, totals = {}, steadyUs = {}, finalLoss = {}, tracedSteps = {}, stepUs = {}, crossovers = {} } = result ?? {};
  const settings = ['planned', 'unplanned'];
  for (const setting of settings)
    if (!sameCounts(traces[setting], { function: 10, signature: 1, loop: 1 }))
      return `Expected 10 / 1 / 1 traces with and without plans; got ${json(traces)}.`;
  const losses = settings.flatMap((setting) => LONG_RUN_MODES.map((mode) => finalLoss[setting]?.[mode]));
  if (!losses.every((loss) => Number.isFinite(loss) && loss === losses[0]))
    return `Expected every mode to end on the same loss, with and without plans; got ${json(finalLoss)}.`;
  for (const setting of settings) {
    for (const mode of LONG_RUN_MODES) {
      const us = stepUs[setting]?.[mode];
      if (!(us?.length === LONG_RUN_STEPS && Number.isFinite(totals[setting]?.[mode]) && totals[setting][mode] > 0))
        return `Expected ${LONG_RUN_STEPS} step times and a total per mode and run; ${setting} ${mode} has ` +
          `${us?.length ?? 'no'} step times and total ${json(totals[setting]?.[mode])}.`;
      const mean = steadyMean(us, tracedSteps[setting]?.[mode] ?? []);
      if (tracedSteps[setting]?.[mode]?.length !== traces[setting][mode] || !(steadyUs[setting]?.[mode] === mean && mean > 0))
        return `${setting} ${mode}: the steady step ${json(steadyUs[setting]?.[mode])} µs is not the one the step ` +
          `times give without its traced steps ${json(tracedSteps[setting]?.[mode])} (${mean} µs).`;
    }
    const recomputed = crossoverOf(stepUs[setting].function, stepUs[setting].signature);
    if (crossovers[setting] !== recomputed)
      return `${setting}: the table says function is ahead of signature from step ${json(crossovers[setting])}; ` +
        `the step times give ${recomputed}.`;
  }
  return '';
}

export const checks = {
  'one-per-shape': ({ result, counts }) => {
    // Call 0 traces as the first call; call k (X = k + 1) because dim 1 changed from k to k + 1.
    const expected = ['first call', ...Array.from({ length: 9 }, (_, k) => `arg 0 (arg0): dim 1 changed ${k + 1} -> ${k + 2};`)];
    const wrong = expected.findIndex((start, i) => !String(result?.reasons?.[i] ?? '').startsWith(start));
    return that(
      result?.traces === 10 && result.reasons?.length === 10 && wrong < 0 && counts.warning === 2,
      '10 lengths, 10 traces, each reason naming dim 1 and its old and new length, and the retracing warning (twice).',
      `Expected 10 traces whose reasons name dim 1, and 2 warnings; got ${result?.traces} traces, ${counts.warning} ` +
        `warnings${wrong >= 0 ? `, call ${wrong}'s reason ${json(result?.reasons?.[wrong])}` : ''}.`);
  },
  'signature-relaxed': ({ result }) => {
    const relaxed = [...String(result?.relaxedSignatures ?? '').matchAll(/arg0: float32 Tensor, shape=\(([^)]*)\)/g)].map((m) => m[1]);
    return that(
      result?.signature === 1 && result.relaxed === 2 && json(relaxed) === '["1, 1, 20","1, None, 20"]',
      'The signature needed 1 trace; reduceRetracing 2, the second for shape (1, None, 20).',
      `Expected 1 and 2 traces, reduceRetracing's for (1, 1, 20) and (1, None, 20); got ${result?.signature} and ` +
        `${result?.relaxed}, shapes ${json(relaxed)}.`);
  },
  spikes: ({ result }) => {
    const expected = { eager: 0, function: 10, signature: 1, relaxed: 2, loop: 1, bucketed: 4 };
    const modes = Object.keys(result?.finalLoss ?? {}), losses = Object.values(result?.finalLoss ?? {});
    const sameLoss = json(modes.sort()) === json(Object.keys(expected).sort()) &&
      losses.every((loss) => Number.isFinite(loss) && loss === losses[0]);
    return that(sameCounts(result?.traces, expected) && sameLoss,
      'Traces 0 / 10 / 1 / 2 / 1 / 4, and all six modes ended on the same loss, bit for bit.',
      `Traces: ${json(result?.traces)}; final losses: ${json(result?.finalLoss)}.`);
  },
  crossover: ({ result }) => {
    const { crossovers = {}, totals = {}, stepUs = {} } = result ?? {};
    const traced = sameCounts(result?.traces, { eager: 0, function: 10, signature: 1 });
    const timed = ['eager', 'function', 'signature'].every((m) => Number.isFinite(totals[m]) && totals[m] > 0 &&
                                                                  stepUs[m]?.length === 3000);
    // The crossover the table shows must be the one the step times give.
    const recomputed = timed ? Object.fromEntries(['function', 'signature'].map((m) => [m, crossoverOf(stepUs[m], stepUs.eager)])) : {};
    const measured = timed && ['function', 'signature'].every((m) => crossovers[m] === recomputed[m]);
    if (!traced || !measured)
      return that(false, '', `Expected 0 / 10 / 1 traces, 3000 step times per mode and each crossover step as the step ` +
        `times give it; got traces ${json(result?.traces)}, totals ${json(totals)}, crossovers ${json(crossovers)}` +
        `${timed ? ` (the step times give ${json(recomputed)})` : ''}.`);
    // Which mode finishes first is a timing: judged, and marked so (a loaded machine can distort it).
    const ratio = (m) => `${(totals.eager / totals[m]).toFixed(1)}×`;
    const ahead = ['function', 'signature'].every((m) => crossovers[m] >= 0 && totals[m] < totals.eager);
    return {
      ...that(ahead,
        `Traces 0 / 10 / 1; function finished ${ratio('function')} and signature ${ratio('signature')} ahead of eager, ` +
          `staying ahead from steps ${crossovers.function} and ${crossovers.signature}.`,
        `A traced mode did not overtake eager in this run (eager ÷ function ${ratio('function')}, eager ÷ signature ` +
          `${ratio('signature')}, crossovers ${json(crossovers)}): a busy machine distorts timings; run the cell again.`),
      timing: true,
    };
  },
  'long-run': ({ result }) => {
    const problem = longRunProblem(result);
    if (problem) return that(false, '', problem);
    // Which graph runs faster per step is a timing: judged with a margin, and marked so.
    const { steadyUs, totals, crossovers } = result;
    const slower = (setting) => steadyUs[setting].signature / steadyUs[setting].function;
    const x = (value) => `${value.toFixed(2)}×`;
    const holds = slower('unplanned') >= 1.5 && crossovers.unplanned >= 0 && slower('planned') <= 1.2;
    const figures = `without plans signature's steady step is ${x(slower('unplanned'))} function's (at least 1.5× ` +
      `expected) and function is ahead from ${crossovers.unplanned < 0 ? 'no step of the run' : `step ${crossovers.unplanned}`}, ` +
      `signature's total ${x(totals.unplanned.signature / totals.unplanned.function)} function's (the article's: ` +
      `13.4 s ÷ 11.8 s = 1.14×); ` +
      `with plans it is ${x(slower('planned'))} function's (at most 1.2× expected)`;
    return {
      ...that(holds, `Traces 10 / 1 / 1 and the same losses in both runs; ${figures}.`,
        `${figures[0].toUpperCase()}${figures.slice(1)}: a busy machine distorts timings; run the cell again.`),
      timing: true,
    };
  },
};
