// Lesson 6's live checks: which variables each phase trained and which stayed, the losses, the restore, the loaded
// trunk's bits and the new head it grows, one trace for every length with every step's state stacked, and the summary
// records, compared value by value with the losses they log.
import { expect, largestDifference, sameBits } from './expect.js';

const { that } = expect;
const json = (value) => JSON.stringify(value);
const TRUNK = ['trunk_dense_1/kernel', 'trunk_dense_1/bias', 'trunk_dense_2/kernel', 'trunk_dense_2/bias'];

/** The first record that is not (tag, step, loss) for the phases' losses in order ('' when all are right). */
function recordProblem(result) {
  const { task1 = [], task2 = [] } = result?.losses ?? {};
  const expected = [...task1.map((value, step) => ({ step, tag: 'task1/loss', value })),
                    ...task2.map((value, step) => ({ step: task1.length + step, tag: 'task2/loss', value }))];
  const records = result?.records ?? [];
  if (task1.length !== 300 || task2.length !== 300 || records.length !== 600)
    return `expected 600 records for 300 + 300 losses, got ${records.length} for ${task1.length} + ${task2.length}`;
  const wrong = expected.findIndex((e, i) => json(records[i]) !== json(e));
  return wrong < 0 ? '' : `record ${wrong} is ${json(records[wrong])}, expected ${json(expected[wrong])}`;
}

export const checks = {
  'trunk-and-heads': ({ result }) => that(
    json(result?.trained) === json([...TRUNK, 'head_1/kernel', 'head_1/bias']) && result.steps === 300 &&
      result.last < result.first / 100,
    `Six variables (trunk and head 1) trained 300 steps; task 1 loss ${result?.first?.toFixed(3)} → ${result?.last?.toFixed(5)}.`,
    `Expected the trunk's and head 1's six variables trained 300 steps and the loss falling a hundredfold; got ` +
      `${json(result?.trained)}, ${result?.steps} steps, ${result?.first} → ${result?.last}.`),
  'fine-tune': ({ result }) => {
    const before = result?.trunkBefore ?? [], after = result?.trunkAfter ?? [];
    const unchanged = before.length === TRUNK.length && after.length === TRUNK.length &&
                      before.every((values, i) => sameBits(values, after[i]));
    return that(
      json(result?.trained) === '["head_2/kernel","head_2/bias"]' && unchanged && result.last < result.first / 10,
      `Only head 2 learned (loss ${result?.first?.toFixed(3)} → ${result?.last?.toFixed(4)}); the trunk's four ` +
        'variables did not change, bit for bit.',
      `Expected head 2's two variables trained, the loss falling tenfold, the trunk's ${TRUNK.length} variables ` +
        `unchanged; got ${json(result?.trained)}, ${result?.first} → ${result?.last}, ${before.length} and ` +
        `${after.length} trunk variables read, unchanged: ${unchanged}.`);
  },
  'export-trunk': ({ result }) => {
    const { original = [], freshBefore = [], restored = [] } = result ?? {};
    const differedBefore = freshBefore.length === original.length && !sameBits(freshBefore, original);
    return that(
      original.length > 0 && differedBefore && sameBits(restored, original) && json(result.saved) === json(TRUNK) &&
        result.bytes > 0,
      'The checkpoint holds the trunk\'s four variables; a fresh trunk computes exactly what the trained one does after loading it.',
      `Expected a fresh trunk's ${original.length} outputs to differ before the restore and equal the trained ` +
        `trunk's bit for bit after it; differed before: ${differedBefore}, equal after: ${sameBits(restored, original)}; ` +
        `saved ${json(result?.saved)}.`);
  },
  'export-model': ({ result }) => that(
    result?.original?.length === 64 && sameBits(result.reloaded, result.original) && json(result.variables) === json(TRUNK) &&
      result.last < result.first / 10 && typeof result.wrongShape === 'string' &&
      result.wrongShape.includes('expects float32 (None, 8)'),
    `The loaded trunk computes exactly what the trunk does (64 outputs), holds its four variables, a new head learns on ` +
      `it (loss ${result?.first?.toFixed(3)} → ${result?.last?.toFixed(4)}), and a call that does not fit its signature is rejected.`,
    `Expected the loaded trunk's 64 outputs equal to the trunk's bit for bit, the trunk's four variables, the new head's ` +
      `loss falling tenfold and a signature error; got ${result?.reloaded?.length} outputs (identical: ` +
      `${sameBits(result?.reloaded, result?.original)}), variables ${json(result?.variables)}, loss ${result?.first} → ` +
      `${result?.last}, error ${json(result?.wrongShape)}.`),
  'dynamic-rnn': ({ result }) => {
    const states = result?.states ?? [];
    const stacked = states.every((s) => json(s.shape) === json([s.length, 1, 8]) && s.traced?.length === s.length * 8 &&
                                       s.eager?.length === s.length * 8);
    const difference = Math.max(...states.map((s) => (s.traced?.length > 0 ? largestDifference(s.traced, s.eager) : Infinity)));
    return that(
      result?.traces === 1 && json(states.map((s) => s.length)) === '[3,7,12]' && stacked && difference < 1e-5,
      `One trace for lengths 3, 7 and 12; every step's state written to the buffer and stacked (length × 1 × 8), ` +
        `equal to the eager loop's (largest difference ${difference}).`,
      `Expected one trace for lengths [3,7,12], each run's states stacked as length × 1 × 8 and agreeing with eager; got ` +
        `${result?.traces} traces for ${json(states.map((s) => s.length))}, shapes ${json(states.map((s) => s.shape))}, ` +
        `largest difference ${difference}.`);
  },
  summaries: ({ result }) => {
    const problem = recordProblem(result);
    return that(!problem && result.outside === false,
      '600 records, each phase\'s loss at its step under task1/loss and task2/loss; with no default writer, ' +
        'tl.summary.scalar wrote nothing and returned false.',
      problem ? `Summaries: ${problem}.` : `With no default writer tl.summary.scalar returned ${result?.outside}, expected false.`);
  },
};
