// Lesson 1's live checks: trace counts per mode and why each call traced, the relaxed signature, identical final
// losses, and the crossover found in this run (a timing, judged and marked so).
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
};
