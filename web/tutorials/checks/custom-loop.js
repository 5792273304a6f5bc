// Lesson 5's live checks: the data and the model as built, learning on one batch, preprocessing equal to the same
// math in plain JavaScript, eager and traced epochs agreeing, per-epoch means logged through the default summary
// writer, the whole loop traced agreeing with eager and article 001's accuracy gap replayed, and the checkpoint
// restoring the best epoch.
import { expect, largestDifference } from './expect.js';

const { that } = expect;
const json = (value) => JSON.stringify(value);
const LAYERS = ['conv1', 'pool1', 'conv2', 'pool2', 'conv3', 'pool3', 'dropout', 'flatten', 'classes'];

/** standardize(image) of the lesson, in float64: (x - mean) / (sqrt(mean((x - mean)²)) + 1e-6). */
function standardize(pixels) {
  const values = Array.from(pixels ?? []);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const spread = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length) + 1e-6;
  return values.map((v) => (v - mean) / spread);
}

/**
 * What the epochs cell must have logged: an event file opening with "brain.Event:2", then train/loss,
 * validation/loss, validation/accuracy as scalars at steps 1..3, in order.
 */
function summaryProblems(result) {
  const records = result?.summaries ?? [], losses = result?.stepLosses ?? [], file = result?.eventFile ?? {};
  if (!/^events\.out\.tfevents\.\d+\.\S+$/.test(file.name ?? '') || file.fileVersion !== 'brain.Event:2' || file.events !== 10)
    return `expected an event file events.out.tfevents.<time>.<host> of 10 events opening with brain.Event:2, got ${json(file)}`;
  if (records.some((r) => r.plugin !== 'scalars')) return `expected every summary written as a scalar (plugin "scalars")`;
  const tags = ['train/loss', 'validation/loss', 'validation/accuracy'];
  if (losses.length !== 48) return `expected 48 step losses (3 epochs of 16 batches), got ${losses.length}`;
  const layout = records.map((r) => `${r.step} ${r.tag}`);
  const expected = [1, 2, 3].flatMap((step) => tags.map((tag) => `${step} ${tag}`));
  if (json(layout) !== json(expected)) return `expected records ${json(expected)}, got ${json(layout)}`;
  for (let epoch = 1; epoch <= 3; ++epoch) {
    const [train, validation] = records.slice(3 * (epoch - 1), 3 * epoch);
    const mean = losses.slice(16 * (epoch - 1), 16 * epoch).reduce((a, b) => a + b, 0) / 16;
    if (!(Math.abs(train.value - mean) <= 1e-5 * Math.max(1, mean)))
      return `epoch ${epoch}: train/loss ${train.value} is not the mean ${mean} of its 16 step losses`;
    if (validation.value !== result.traced?.[epoch - 1])
      return `epoch ${epoch}: validation/loss ${validation.value} differs from the epoch's ${result.traced?.[epoch - 1]}`;
  }
  if (records[8].value !== result.accuracy) return `validation/accuracy ${records[8].value} differs from ${result.accuracy}`;
  return '';
}

export const checks = {
  data: ({ result, outputs }) => {
    const drawn = (outputs ?? []).filter((o) => o.kind === 'text' && /^image \d \(class [01]\):\n(.{16}\n){15}.{16}$/.test(o.text));
    return that(
      json(result?.train) === '[512,16,16,1]' && json(result.validation) === '[128,16,16,1]' && drawn.length === 2,
      '512 training and 128 validation images of 16×16×1; two of them drawn as text.',
      `Expected shapes [512,16,16,1] and [128,16,16,1] and two 16×16 drawings; got ${json(result?.train)}, ` +
        `${json(result?.validation)}, ${drawn.length} drawings.`);
  },
  model: ({ result }) => that(
    result?.params === 23810 && json(result.layers) === json(LAYERS),
    'Nine layers (conv1 … classes) and 23,810 parameters.',
    `Expected 23,810 parameters in the layers ${LAYERS.join(', ')}; got ${result?.params} in ${json(result?.layers)}.`),
  'train-on-batch': ({ result }) => that(
    Math.abs(result?.before - Math.log(2)) < 0.1 && result.after < result.before - 0.05,
    `Five steps lowered the batch loss from ${result?.before?.toFixed(3)} (chance: ln 2 = 0.693) to ${result?.after?.toFixed(3)}.`,
    `Expected a loss near ln 2 = 0.693 falling by more than 0.05; got ${result?.before} → ${result?.after}.`),
  preprocess: ({ result }) => {
    const expected = standardize(result?.raw);
    const off = largestDifference(result?.firstEager, expected);
    return that(
      result?.raw?.length === 256 && off <= 1e-4 && largestDifference(result.firstEager, result.firstTraced) === 0 &&
        result.traces === 1 && json(result.images) === '[512,512]',
      `Eager and traced map gave identical images, equal to standardize computed in plain JavaScript; one trace; ` +
        `the traced one ran ${result?.speedup?.toFixed(1)}× faster in this run.`,
      `Expected both maps to standardize all 512 images exactly alike, from one trace; largest difference from ` +
        `plain JavaScript ${off}, images ${json(result?.images)}, ${result?.traces} traces.`);
  },
  epochs: ({ result }) => {
    const eager = result?.eager ?? [], traced = result?.traced ?? [];
    const same = eager.length === 3 && traced.length === 3 && largestDifference(eager, traced) <= 2e-4;
    const best = traced.length ? traced.indexOf(Math.min(...traced)) + 1 : -1;
    const problem = summaryProblems(result);
    return that(same && result.accuracy >= 0.9 && result.bestEpoch === best && !problem,
      `Same validation losses eager and traced, ${(100 * result?.accuracy).toFixed(1)}% validation accuracy, the best ` +
        `checkpoint from epoch ${best}; each epoch logged its means (train/loss the mean of its 16 steps); traced epochs ` +
        `were ${result?.speedup?.toFixed(1)}× as fast in this run.`,
      problem && same ? `Summaries: ${problem}.`
        : `Eager ${json(eager)} vs traced ${json(traced)}, accuracy ${result?.accuracy}, best epoch ${result?.bestEpoch} ` +
          `(lowest loss at ${best}).`);
  },
  'whole-loop': ({ result }) => {
    const mean = (result?.first + result?.second) / 2;
    return that(
      result?.sameWeights === true && result.first === result.tracedAccuracy && json(result.traces) === '[2,1]' &&
        result.first > 0.5 && result.second > result.first && Math.abs(result.accumulated - mean) <= 1e-6,
      `Eager and one tl.function trained the same weights (accuracy ${result?.first?.toFixed(4)} both); the replayed ` +
        `run reports ${result?.accumulated?.toFixed(4)}, the mean of ${result?.first?.toFixed(4)} and its own ` +
        `${result?.second?.toFixed(4)}. The whole traced loop took ${(1 / result?.speedup).toFixed(2)}× the eager time, tracing included.`,
      `Expected equal weights and accuracies eager and traced, traces [2,1] (the second function found the slots), and ` +
        `the never-reset accuracy the mean of both runs'; got ${json(result)}.`);
  },
  fit: ({ result }) => {
    const same = (a, b) => Array.isArray(a) && Array.isArray(b) && a.length === 2 && json(a) === json(b);
    const held = same(result?.fit, result?.traced) && same(result?.eager, result?.traced) && result.sameWeights === true &&
      json(result.fitTraces) === '{"train":2,"test":0}' && result.fit[1] < result.fit[0] &&
      result.accuracy?.length === 2 && result.accuracy[1] > 0.5;
    if (!held)
      return that(false, '', `Expected fit, the eager loop and the traced loop to give the same two epoch losses (falling) ` +
        `and the same weights, fit's train step traced twice (the slots) and no test step; got ${json(result)}.`);
    // fit runs the same traced step as the custom loop: its time is a timing, judged with a margin and marked so.
    const ratio = result.ms.traced / result.ms.fit;
    return {
      ...that(ratio >= 0.67 && ratio <= 1.5,
        `fit, the eager loop and the traced loop trained the same weights (epoch losses ${result.fit.map((l) => l.toFixed(4)).join(', ')}); ` +
          `the traced loop took ${ratio.toFixed(2)}× fit's time and the eager loop ${(result.ms.eager / result.ms.fit).toFixed(2)}× ` +
          `(article 003: 1.11× and 2.22×).`,
        `The same weights all three ways, but the traced loop took ${ratio.toFixed(2)}× fit's time, outside [0.67, 1.5]: ` +
          'a busy machine distorts timings; run the cell again.'),
      timing: true,
    };
  },
  restore: ({ result }) => that(
    Math.abs(result?.after - result?.best) <= 1e-6 && result.before > 0.5,
    `A fresh model scored ${result?.before?.toFixed(3)}; restored, it reproduces the best epoch's validation loss ` +
      `(${result?.best?.toFixed(4)}).`,
    `Expected a fresh model near chance (> 0.5) and the restored loss equal to the best ${result?.best}; got ` +
      `${result?.before} and ${result?.after}.`),
};
