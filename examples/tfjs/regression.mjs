// Polynomial regression in plain TensorFlow.js: fit y = a·x³ + b·x² + c·x + d to noisy samples with four
// tf.variable coefficients and optimizer.minimize. The program receives `tf`, so the same source runs on TF.js and
// on Tracelab ('tracelab/tfjs'): `node examples/tfjs/regression.mjs` runs it on Tracelab, `--tfjs` on TF.js' cpu
// backend, `--traced` traces the training step with tf.function (Tracelab only; see timed_step.mjs).
import { timedStep } from './timed_step.mjs';

// A small deterministic PRNG (LCG), so both libraries train on identical data.
function prng(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 4294967296; };
}

export async function main(tf, { steps = 200, learningRate = 0.1, traced = false, log = () => {} } = {}) {
  const rand = prng(42);
  const n = 64;
  const [a, b, c, d] = [0.8, -0.5, -1.2, 0.3];  // the coefficients to recover
  const xs = Array.from({ length: n }, (_, i) => -1 + (2 * i) / (n - 1));
  const ys = xs.map((x) => a * x ** 3 + b * x ** 2 + c * x + d + 0.05 * (rand() - 0.5));
  const x = tf.tensor1d(xs);
  const y = tf.tensor1d(ys);

  // Trainable coefficients, starting from fixed small values. tf.tidy disposes of each initial scalar; it never
  // disposes of a variable.
  const coeffs = [0.1, 0.2, 0.3, 0.4].map((v) => tf.tidy(() => tf.variable(tf.scalar(v))));
  const [va, vb, vc, vd] = coeffs;
  const predict = (t) => tf.tidy(() => va.mul(t.pow(tf.scalar(3))).add(vb.mul(t.square())).add(vc.mul(t)).add(vd));

  const optimizer = tf.train.adam(learningRate);
  // minimize(f, returnCost = true) runs f under a tape, updates every trainable variable f used, and returns the
  // cost; tf.tidy disposes of the intermediates, the returned scalar is disposed of after reading it (timed_step.mjs).
  const trainStep = timedStep(tf, () => optimizer.minimize(() => tf.losses.meanSquaredError(y, predict(x)), true), traced);
  const losses = [];
  for (let step = 0; step < steps; step++) {
    losses.push(trainStep.run());
    if (step % 50 === 0 || step === steps - 1) log(`step ${step}: loss ${losses[step].toFixed(6)}`);
  }
  log(trainStep.summary());
  log(`fit: ${coeffs.map((v) => v.dataSync()[0].toFixed(3)).join(', ')} (true: ${[a, b, c, d].join(', ')})`);

  trainStep.dispose();
  tf.dispose([x, y, ...coeffs]);
  optimizer.dispose();
  const { stepMs, tracedSteps } = trainStep;
  return { losses, stepMs, tracedSteps, traced: trainStep.traced };
}

// CLI: node examples/tfjs/regression.mjs [--tfjs] [--traced] (a browser imports main: it has no process.argv)
if (import.meta.url === `file://${globalThis.process?.argv[1]}`) {
  const { loadTf } = await import('./load_tf.mjs');
  const tf = await loadTf(process.argv.includes('--tfjs'));
  await main(tf, { traced: process.argv.includes('--traced'), log: console.log });
}
