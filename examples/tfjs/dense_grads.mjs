// A two-layer dense network in plain TensorFlow.js, trained by hand: tf.variableGrads computes the loss and its
// gradient with respect to every trainable variable, optimizer.applyGradients applies them. The task: classify
// points of the plane by whether they lie inside the unit circle. Receives `tf`: `node examples/tfjs/dense_grads.mjs`
// runs on Tracelab, `--tfjs` on TF.js' cpu backend, `--traced` traces the training step with tf.function (Tracelab
// only; see timed_step.mjs).
import { timedStep } from './timed_step.mjs';

// A small deterministic PRNG (LCG): the same points and initial weights on every backend.
function prng(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 4294967296; };
}

export async function main(tf, { steps = 200, learningRate = 1, traced = false, log = () => {} } = {}) {
  const rand = prng(3);
  const n = 128, hidden = 16;
  const points = Array.from({ length: n }, () => [2 * rand() - 1, 2 * rand() - 1].map((v) => 1.5 * v));
  const x = tf.tensor2d(points);                                                  // [n, 2]
  const y = tf.tensor2d(points.map(([a, b]) => [a * a + b * b < 1 ? 1 : 0]));     // [n, 1]

  // Weights from the PRNG; tf.tidy disposes of each initial value and keeps the variable.
  const init = (shape, scale) => tf.tidy(() => tf.variable(tf.tensor(
    Array.from({ length: shape.reduce((a, b) => a * b) }, () => scale * (2 * rand() - 1)), shape)));
  const w1 = init([2, hidden], 1), b1 = init([hidden], 0);
  const w2 = init([hidden, 1], 0.5), b2 = init([1], 0);

  // The loss: sigmoid cross-entropy of the network's logits.
  const loss = () => {
    const h = tf.relu(x.matMul(w1).add(b1));
    return tf.losses.sigmoidCrossEntropy(y, h.matMul(w2).add(b2));
  };

  const optimizer = tf.train.sgd(learningRate);
  // The step (timed_step.mjs times it, and disposes of the loss it returns). variableGrads(f) returns {value, grads}:
  // grads maps each trainable variable's name to its gradient, which is the form applyGradients takes. Both are ours
  // to dispose of.
  const trainStep = timedStep(tf, () => {
    const { value, grads } = tf.variableGrads(loss);
    optimizer.applyGradients(grads);
    tf.dispose(Object.values(grads));
    return value;
  }, traced);
  const losses = [];
  for (let step = 0; step < steps; step++) {
    losses.push(trainStep.run());
    if (step % 50 === 0 || step === steps - 1) log(`step ${step}: loss ${losses[step].toFixed(5)}`);
  }

  log(trainStep.summary());
  trainStep.dispose();
  tf.dispose([x, y, w1, b1, w2, b2]);
  optimizer.dispose();
  const { stepMs, tracedSteps } = trainStep;
  return { losses, stepMs, tracedSteps, traced: trainStep.traced };
}

// CLI: node examples/tfjs/dense_grads.mjs [--tfjs] [--traced] (a browser imports main: it has no process.argv)
if (import.meta.url === `file://${globalThis.process?.argv[1]}`) {
  const { loadTf } = await import('./load_tf.mjs');
  const tf = await loadTf(process.argv.includes('--tfjs'));
  await main(tf, { traced: process.argv.includes('--traced'), log: console.log });
}
