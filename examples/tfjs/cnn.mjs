// A small convolutional classifier in plain TensorFlow.js: 12×12 one-channel images of two made-up classes
// (horizontal vs vertical bars), conv2d + relu, maxPool, a dense layer, tf.losses.softmaxCrossEntropy, trained with
// optimizer.minimize. Receives `tf`: `node examples/tfjs/cnn.mjs` runs on Tracelab, `--tfjs` on TF.js' cpu backend,
// `--traced` traces the training step with tf.function (Tracelab only; see timed_step.mjs).
import { timedStep } from './timed_step.mjs';

// A small deterministic PRNG (LCG): the same images and initial weights on every backend.
function prng(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 4294967296; };
}

// n images, half of each class: a bar of 1s at a random row (class 0) or column (class 1), plus noise.
function makeImages(n, rand) {
  const pixels = [], labels = [];
  for (let i = 0; i < n; i++) {
    const cls = i % 2, at = 1 + Math.floor(rand() * 10);
    for (let r = 0; r < 12; r++)
      for (let c = 0; c < 12; c++) pixels.push(((cls ? c : r) === at ? 1 : 0) + 0.2 * rand());
    labels.push(cls);
  }
  return { pixels, labels };
}

export async function main(tf, { steps = 30, learningRate = 0.3, traced = false, log = () => {} } = {}) {
  const rand = prng(7);
  const n = 32;
  const { pixels, labels } = makeImages(n, rand);
  const xs = tf.tensor4d(pixels, [n, 12, 12, 1]);              // NHWC, as TF.js' conv2d expects
  const ys = tf.tidy(() => tf.oneHot(tf.tensor1d(labels, 'int32'), 2));  // one-hot labels for softmaxCrossEntropy

  // Weights from the PRNG (tf.randomNormal's streams differ between libraries), scaled to keep activations small;
  // tf.tidy disposes of each initial value and keeps the variable.
  const init = (shape, scale) => tf.tidy(() => tf.variable(tf.tensor(
    Array.from({ length: shape.reduce((a, b) => a * b) }, () => scale * (rand() - 0.5)), shape)));
  const filters = init([3, 3, 1, 4], 1);                       // [height, width, inChannels, outChannels]
  const convBias = init([4], 0);
  const dense = init([6 * 6 * 4, 2], 0.2);
  const denseBias = init([2], 0);

  const logits = (x) => tf.tidy(() => {
    const conv = tf.relu(tf.conv2d(x, filters, 1, 'same').add(convBias));  // [n, 12, 12, 4]
    const pooled = tf.maxPool(conv, 2, 2, 'valid');                        // [n, 6, 6, 4]
    return pooled.reshape([x.shape[0], 6 * 6 * 4]).matMul(dense).add(denseBias);
  });

  const optimizer = tf.train.sgd(learningRate);
  // The step (timed_step.mjs times it): one update, returning the loss. The accuracy after it is not part of the step.
  const trainStep = timedStep(tf, () => optimizer.minimize(() => tf.losses.softmaxCrossEntropy(ys, logits(xs)), true), traced);
  const losses = [];
  let accuracy = 0;
  for (let step = 0; step < steps; step++) {
    losses.push(trainStep.run());
    accuracy = tf.tidy(() => tf.equal(logits(xs).argMax(1), ys.argMax(1)).cast('float32').mean().dataSync()[0]);
    if (step % 10 === 0 || step === steps - 1)
      log(`step ${step}: loss ${losses[step].toFixed(5)}, accuracy ${accuracy.toFixed(3)}`);
  }

  log(trainStep.summary());
  trainStep.dispose();
  tf.dispose([xs, ys, filters, convBias, dense, denseBias]);
  optimizer.dispose();
  const { stepMs, tracedSteps } = trainStep;
  return { losses, accuracy, stepMs, tracedSteps, traced: trainStep.traced };
}

// CLI: node examples/tfjs/cnn.mjs [--tfjs] [--traced] (a browser imports main: it has no process.argv)
if (import.meta.url === `file://${globalThis.process?.argv[1]}`) {
  const { loadTf } = await import('./load_tf.mjs');
  const tf = await loadTf(process.argv.includes('--tfjs'));
  await main(tf, { traced: process.argv.includes('--traced'), log: console.log });
}
