// Lesson 6's live checks: which variables changed, restores, the saved model, one trace for every length, the summary records.
import { expect, startTutorial } from './tutorial.js';

const { that } = expect;

startTutorial({
  'trunk-and-heads': ({ result }) => that(
    result?.last < result?.first / 10,
    `Task 1 loss ${result?.first?.toFixed(3)} → ${result?.last?.toFixed(5)}.`, 'The task 1 loss did not fall tenfold.'),
  'fine-tune': ({ result }) => that(
    result?.unchanged && result.last < result.first,
    `Head 2 learned (loss ${result?.first?.toFixed(3)} → ${result?.last?.toFixed(4)}) and the trunk did not change.`,
    `Trunk unchanged: ${result?.unchanged}; task 2 loss ${result?.first} → ${result?.last}.`),
  'export-trunk': ({ result }) => that(
    result?.differedBefore && result.equalAfter,
    'The fresh trunk computes exactly what the trained one does after loading its checkpoint.',
    `Differed before: ${result?.differedBefore}; equal after: ${result?.equalAfter}.`),
  'export-model': ({ result }) => that(
    result?.identical && result.variables === 6 && result.wrongShape?.includes('expects float32 (None, 8)'),
    'The loaded saved model predicts exactly what the model does and rejects a call that does not fit its signature.',
    `Identical: ${result?.identical}; variables: ${result?.variables}; error: ${result?.wrongShape}.`),
  'dynamic-rnn': ({ result }) => that(
    result?.traces === 1 && result.maxDifference < 1e-5,
    `One trace for lengths 3, 7 and 12; traced and eager agree (largest difference ${result?.maxDifference}).`,
    `Traces ${result?.traces}, largest difference ${result?.maxDifference}.`),
  summaries: ({ result }) => that(
    result?.records === 600 && result.tags.length === 2,
    '600 records under task1/loss and task2/loss.', `Got ${result?.records} records.`),
});
