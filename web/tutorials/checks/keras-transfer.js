// Lesson 6's live checks: which variables each phase trained and which stayed, the losses, the restore, one trace
// for every length, and the summary records, compared value by value with the losses they log.
import { expect } from './expect.js';

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
  'fine-tune': ({ result }) => that(
    json(result?.trained) === '["head_2/kernel","head_2/bias"]' && result.unchanged === true && result.last < result.first / 10,
    `Only head 2 learned (loss ${result?.first?.toFixed(3)} → ${result?.last?.toFixed(4)}); the trunk did not change.`,
    `Expected head 2's two variables trained, the loss falling tenfold, the trunk unchanged; got ${json(result?.trained)}, ` +
      `${result?.first} → ${result?.last}, unchanged ${result?.unchanged}.`),
  'export-trunk': ({ result }) => that(
    result?.differedBefore === true && result.equalAfter === true && json(result.saved) === json(TRUNK) && result.bytes > 0,
    'The checkpoint holds the trunk\'s four variables; a fresh trunk computes exactly what the trained one does after loading it.',
    `Differed before: ${result?.differedBefore}; equal after: ${result?.equalAfter}; saved ${json(result?.saved)}.`),
  'export-model': ({ result }) => that(
    result?.identical === true && result.variables === 6 &&
      typeof result.wrongShape === 'string' && result.wrongShape.includes('expects float32 (None, 8)'),
    'The loaded saved model predicts exactly what the model does and rejects a call that does not fit its signature.',
    `Identical: ${result?.identical}; variables: ${result?.variables}; error: ${json(result?.wrongShape)}.`),
  'dynamic-rnn': ({ result }) => that(
    result?.traces === 1 && json(result.lengths) === '[3,7,12]' && result.maxDifference >= 0 && result.maxDifference < 1e-5,
    `One trace for lengths 3, 7 and 12; traced and eager agree (largest difference ${result?.maxDifference}).`,
    `Expected one trace for lengths [3,7,12] agreeing with eager; got ${result?.traces} traces for ` +
      `${json(result?.lengths)}, largest difference ${result?.maxDifference}.`),
  summaries: ({ result }) => {
    const problem = recordProblem(result);
    return that(!problem && result.outside === false,
      '600 records, each phase\'s loss at its step under task1/loss and task2/loss; with no default writer, ' +
        'tl.summary.scalar wrote nothing and returned false.',
      problem ? `Summaries: ${problem}.` : `With no default writer tl.summary.scalar returned ${result?.outside}, expected false.`);
  },
};
