// Lesson 5's live checks: learning happened, eager and traced agree, the checkpoint restores the best epoch.
import { expect, startTutorial } from './tutorial.js';

const { that } = expect;

startTutorial({
  data: ({ result }) => that(
    JSON.stringify(result?.train) === '[512,16,16,1]' && JSON.stringify(result.validation) === '[128,16,16,1]',
    '512 training and 128 validation images of 16×16×1.', 'Unexpected data shapes.'),
  model: ({ result }) => that(
    result?.params === 23810, 'The CNN has 23,810 parameters.', `Expected 23,810 parameters, got ${result?.params}.`),
  'train-on-batch': ({ result }) => that(
    result?.after < result?.before,
    `Five steps lowered the batch loss from ${result?.before?.toFixed(3)} to ${result?.after?.toFixed(3)}.`,
    'The loss did not fall on the batch it was trained on.'),
  preprocess: ({ result }) => that(
    result?.maxDiff === 0 && result.traces === 1,
    `Eager and traced map gave identical images; the traced one ran ${result?.speedup?.toFixed(1)}× faster in this run.`,
    `Expected identical outputs from one trace; largest difference ${result?.maxDiff}, ${result?.traces} traces.`),
  epochs: ({ result }) => {
    const same = result?.eager?.every((loss, i) => Math.abs(loss - result.traced[i]) <= 2e-4);
    return that(same && result.accuracy >= 0.9,
      `Same validation losses eager and traced, ${(100 * result?.accuracy).toFixed(1)}% validation accuracy; ` +
      `traced epochs were ${result?.speedup?.toFixed(1)}× as fast in this run.`,
      `Eager ${JSON.stringify(result?.eager)} vs traced ${JSON.stringify(result?.traced)}, accuracy ${result?.accuracy}.`);
  },
  restore: ({ result }) => that(
    Math.abs(result?.after - result?.best) <= 1e-6 && result.before > result.after,
    `The restored model reproduces the best epoch's validation loss (${result?.best?.toFixed(4)}).`,
    `Restored loss ${result?.after} vs best ${result?.best}.`),
});
