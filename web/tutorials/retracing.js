// Lesson 1's live checks: trace counts per mode, identical losses, and the crossover found in this run.
import { expect, startTutorial } from './tutorial.js';

const { that } = expect;

startTutorial({
  'one-per-shape': ({ result, counts }) => that(
    result?.traces === 10 && counts.warning >= 1,
    `10 lengths, 10 traces, and the retracing warning (${counts.warning}×).`,
    `Expected 10 traces and a warning; got ${result?.traces} traces and ${counts.warning} warnings.`),
  'signature-relaxed': ({ result }) => that(
    result?.signature === 1 && result.relaxed === 2,
    'The signature needed 1 trace, reduceRetracing 2.',
    `Expected 1 and 2 traces; got ${result?.signature} and ${result?.relaxed}.`),
  spikes: ({ result }) => {
    const t = result?.traces ?? {};
    const expected = { eager: 0, function: 10, signature: 1, relaxed: 2, loop: 1, bucketed: 4 };
    const ok = Object.entries(expected).every(([mode, n]) => t[mode] === n) && result.sameLoss;
    return that(ok, 'Traces 0 / 10 / 1 / 2 / 1 / 4, and all six modes computed the same loss, bit for bit.',
                `Traces: ${JSON.stringify(t)}; same loss: ${result?.sameLoss}.`);
  },
  crossover: ({ result }) => {
    const { crossovers = {}, totals = {} } = result ?? {};
    const ahead = ['function', 'signature'].every((m) => crossovers[m] >= 0 && totals[m] < totals.eager);
    return that(ahead,
      `function stays ahead of eager from step ${crossovers.function}, signature from step ${crossovers.signature}.`,
      `A traced mode did not overtake eager in this run: ${JSON.stringify(crossovers)}.`);
  },
});
