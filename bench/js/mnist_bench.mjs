// An MNIST-style CNN written once in ordinary TF.js idiom and trained four ways in one run: on Tracelab eagerly, on
// Tracelab with the step in tl.function, on TensorFlow.js 4.22's cpu backend and on its wasm backend.
//   node bench/js/mnist_bench.mjs [--steps 20] [--warmup 3] [--runs 3] [--tfjs-steps 5] [--no-tfjs] [--json FILE]
// The model: batch 64 of 28x28x1 images, conv2d 5x5 8 filters SAME + bias + relu, maxPool 2x2 stride 2, conv2d 5x5
// 16 filters SAME + bias + relu, maxPool 2x2 stride 2, flatten (7*7*16), dense 10; the loss is the softmax
// cross-entropy of one-hot labels (the mean over the batch), one SGD(0.05) step by optimizer.minimize. The same
// source (`mnistModel(lib, ...)`) runs on `tl` and on `tf`: tf.variable weights, tf.conv2d / tf.maxPool / tf.matMul,
// tf.oneHot, tf.logSoftmax. The loss is written out (-mean(sum(labels * logSoftmax(logits), 1))) because Tracelab's
// JS API has no tl.losses.softmaxCrossEntropy yet (it is TF.js' softmaxCrossEntropy without label smoothing), and the
// tensors are made by tf.tensor(values, shape, dtype), not tf.tensor1d / tf.tensor4d, which it lacks as well.
// Data and initial weights come from one seeded generator below (mulberry32), so every runner starts from the same
// numbers: x uniform in [0, 1), labels in [0, 10), weights uniform in +-sqrt(6 / (fanIn + fanOut)), biases 0.
// Each run (--runs of them) builds fresh weights for Tracelab eager and traced, runs --warmup steps untimed and
// --steps steps timed one by one (the loss read each step). TF.js (cpu, then wasm) runs once after the runs with
// --tfjs-steps timed steps (the cpu backend takes seconds per step). A backend that lacks a kernel for the step (the
// wasm backend has no Conv2DBackpropFilter) is reported as "impossible: <kernel>". Printed: per runner the median
// ms/step over the runs with the runs' range [min-max] (each run's figure is its median step), and the ratios
// eager / traced (run by run) and Tracelab / TF.js.
// Enforced (exit 1): Tracelab eager and traced losses agree at every step within 1e-5 (1 + |loss|) (the traced
// graph may order a reduction differently; measured: identical), the traced step traced once, and TF.js cpu's
// losses agree with Tracelab eager's within 1e-4 (1 + |loss|) (other kernels, other summation orders; measured
// about 1e-7 over the first steps).
// The JS API comes from TRACELAB_DIST (default build/wasm/dist). Exit status: 0; 1 when a check fails; 2 for a bad
// command line.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { flagHelpers, median } from './stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const USAGE = 'usage: node bench/js/mnist_bench.mjs [--steps N] [--warmup N] [--runs N] [--tfjs-steps N] [--no-tfjs] ' +
  '[--json FILE]';

/** The command line as options; a bad flag or value exits 2 with the usage. */
function parseArgs(argv) {
  const options = { steps: 20, warmup: 3, runs: 3, tfjsSteps: 5, tfjs: true, json: null };
  const { fail, integer } = flagHelpers('mnist_bench.mjs', USAGE);
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i], value = () => argv[++i];
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (flag === '--steps') options.steps = integer(flag, value(), 1);
    else if (flag === '--warmup') options.warmup = integer(flag, value(), 0);
    else if (flag === '--runs') options.runs = integer(flag, value(), 1);
    else if (flag === '--tfjs-steps') options.tfjsSteps = integer(flag, value(), 1);
    else if (flag === '--no-tfjs') options.tfjs = false;
    else if (flag === '--json') {
      const text = value();
      if (text === undefined || text.startsWith('--')) fail('--json needs a file name');
      options.json = text;
    } else fail(`unknown argument '${flag}'`);
  }
  return options;
}

const options = parseArgs(process.argv.slice(2));
const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

// ---- the data and the initial weights ----

const BATCH = 64, CLASSES = 10, LEARNING_RATE = 0.05;
/** mulberry32: a 32-bit seeded generator; next() is uniform in [0, 1) with 24 bits (exact in float32). */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) >>> 8) / 16777216;
  };
}
const SHAPES = [[5, 5, 1, 8], [8], [5, 5, 8, 16], [16], [7 * 7 * 16, CLASSES], [CLASSES]];
/** The batch and the initial weights, as plain arrays with their shapes. */
function makeData() {
  const next = generator(2026);
  const x = Float32Array.from({ length: BATCH * 28 * 28 }, next);
  const y = Int32Array.from({ length: BATCH }, () => Math.floor(next() * CLASSES));
  const weights = SHAPES.map((shape) => {
    if (shape.length === 1) return { shape, values: new Float32Array(shape[0]) };
    const fanIn = shape.slice(0, -1).reduce((a, b) => a * b, 1), fanOut = shape.at(-1) * (shape.length === 4 ? 25 : 1);
    const limit = Math.sqrt(6 / (fanIn + fanOut)), count = shape.reduce((a, b) => a * b, 1);
    return { shape, values: Float32Array.from({ length: count }, () => (2 * next() - 1) * limit) };
  });
  return { x, y, weights };
}

// ---- the model, in TF.js idiom: `lib` is tl or tf ----

/**
 * The variables, the batch and the training step of the model on `lib`. step() runs one SGD step by
 * optimizer.minimize and returns the loss (a scalar tensor, from minimize's returnCost).
 */
function mnistModel(lib, data) {
  const [k1, b1, k2, b2, w3, b3] = data.weights.map((w) => lib.variable(lib.tensor(w.values, w.shape)));
  const variables = [k1, b1, k2, b2, w3, b3];
  const x = lib.tensor(data.x, [BATCH, 28, 28, 1]);
  const labels = lib.oneHot(lib.tensor(data.y, [BATCH], 'int32'), CLASSES);
  const optimizer = lib.train.sgd(LEARNING_RATE);
  const forward = (images) => {
    const c1 = lib.maxPool(lib.relu(lib.add(lib.conv2d(images, k1, 1, 'same'), b1)), 2, 2, 'valid');
    const c2 = lib.maxPool(lib.relu(lib.add(lib.conv2d(c1, k2, 1, 'same'), b2)), 2, 2, 'valid');
    return lib.add(lib.matMul(lib.reshape(c2, [BATCH, 7 * 7 * 16]), w3), b3);
  };
  const lossOf = (images, onehot) =>
    lib.neg(lib.mean(lib.sum(lib.mul(onehot, lib.logSoftmax(forward(images))), 1)));
  const step = (images, onehot) => optimizer.minimize(() => lossOf(images, onehot), true, variables);
  return {
    x, labels, step,
    dispose: () => {
      optimizer.dispose();
      lib.dispose([x, labels, ...variables]);
    },
  };
}

// ---- timing ----

/** `step` (returning the loss as a number) run `warmup` times untimed, then `steps` times each timed. */
function timeSteps(step, warmup, steps) {
  const losses = [], ms = [];
  for (let i = 0; i < warmup; ++i) losses.push(step());
  for (let i = 0; i < steps; ++i) {
    const start = performance.now();
    losses.push(step());
    ms.push(performance.now() - start);
  }
  return { median_ms: median(ms), min_ms: Math.min(...ms), max_ms: Math.max(...ms), losses };
}

/** One run of Tracelab eager and traced, each from fresh initial weights. */
function runTracelab(data) {
  const eager = mnistModel(tl, data), traced = mnistModel(tl, data);
  const tracedStep = tl.function(traced.step, { name: 'mnist_step' });
  try {
    const { warmup, steps } = options;
    const e = timeSteps(() => tl.tidy(() => eager.step(eager.x, eager.labels).dataSync()[0]), warmup, steps);
    const t = timeSteps(() => tl.tidy(() => tracedStep(traced.x, traced.labels).dataSync()[0]), warmup, steps);
    return { eager: e, traced: t, tracingCount: tracedStep.tracingCount };
  } finally {
    tracedStep.dispose();
    eager.dispose();
    traced.dispose();
  }
}

/** The first kernel name in a TF.js error about a missing kernel ("Kernel 'X' not registered for backend 'wasm'"). */
const missingKernel = (message) => /'([A-Za-z0-9]+)' not registered/.exec(message)?.[1];

/** TF.js on `backend`: the timed steps, or { impossible: kernel } / { error } when the step cannot run. */
async function runTfjs(tf, backend, data) {
  if (!(await tf.setBackend(backend)) || tf.getBackend() !== backend)
    return { error: `setBackend('${backend}') failed (the backend in use is ${tf.getBackend()})` };
  await tf.ready();
  const model = mnistModel(tf, data);
  try {
    return timeSteps(() => tf.tidy(() => model.step(model.x, model.labels).dataSync()[0]), Math.min(options.warmup, 1),
                     options.tfjsSteps);
  } catch (error) {
    const message = String(error.message).split('\n')[0], kernel = missingKernel(message);
    return kernel ? { impossible: kernel, error: message } : { error: message };
  } finally {
    model.dispose();
  }
}

// ---- the runs ----

const data = makeData();
const runs = [];
for (let run = 0; run < options.runs; ++run) runs.push(runTracelab(data));

const tfjs = {};
if (options.tfjs) {
  const require = createRequire(import.meta.url);
  let tf;
  try {
    tf = require('@tensorflow/tfjs');
    require('@tensorflow/tfjs-backend-wasm')
      .setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
  } catch {
    console.error('mnist_bench.mjs: TensorFlow.js is not installed (bench/js/node_modules has no @tensorflow/tfjs): ' +
                  'install it with npm ci --prefix bench/js, or pass --no-tfjs');
    process.exit(1);
  }
  for (const backend of ['cpu', 'wasm']) tfjs[backend] = await runTfjs(tf, backend, data);
}

// ---- the checks ----

const failures = [];
const close = (a, b, tolerance) => Math.abs(a - b) <= tolerance * (1 + Math.abs(a));
runs.forEach((r, i) => {
  if (r.tracingCount !== 1) failures.push(`run ${i + 1}: the traced step traced ${r.tracingCount} times, expected once`);
  const at = r.eager.losses.findIndex((v, k) => !close(v, r.traced.losses[k], 1e-5));
  if (at >= 0)
    failures.push(`run ${i + 1}: eager and traced losses DIFFER at step ${at}: ${r.eager.losses[at]} vs ${r.traced.losses[at]}`);
});
const eagerLosses = runs[0].eager.losses;
if (tfjs.cpu?.losses) {
  const at = tfjs.cpu.losses.findIndex((v, k) => !close(eagerLosses[k], v, 1e-4));
  if (at >= 0) failures.push(`TF.js cpu and Tracelab eager losses DIFFER at step ${at}: ${tfjs.cpu.losses[at]} vs ${eagerLosses[at]}`);
}

// ---- the table ----

/** The median over the runs with their range. */
const cell = (values, digits = 1, suffix = '') => {
  const text = `${median(values).toFixed(digits)}${suffix}`;
  return values.length > 1 ? `${text} [${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}]` : text;
};
const row = (label, text) => console.log(`${label.padEnd(34)} ${text}`);
const eagerMs = runs.map((r) => r.eager.median_ms), tracedMs = runs.map((r) => r.traced.median_ms);

console.log(`mnist_bench: conv5x5x8-pool-conv5x5x16-pool-dense10, batch ${BATCH}, SGD by optimizer.minimize; ` +
            `${options.runs} run${options.runs > 1 ? 's' : ''} of ${options.steps} timed steps after ${options.warmup} ` +
            `warm-up steps; Node ${process.versions.node}; ms/step, median over the runs [min-max]`);
row('Tracelab eager', cell(eagerMs));
row('Tracelab traced (tl.function)', cell(tracedMs));
row('Tracelab eager / traced', cell(eagerMs.map((e, i) => e / tracedMs[i]), 2, 'x'));
const summary = { steps: options.steps, warmup: options.warmup, runs: options.runs, eager_ms: eagerMs, traced_ms: tracedMs,
                  tfjs: {} };
for (const backend of options.tfjs ? ['cpu', 'wasm'] : []) {
  const result = tfjs[backend];
  const label = `TF.js 4.22 ${backend}`;
  if (result.impossible) row(label, `impossible: ${result.impossible}`);
  else if (result.error) row(label, `fails: ${result.error}`);
  else {
    row(label, `${result.median_ms.toFixed(1)} [${result.min_ms.toFixed(1)}-${result.max_ms.toFixed(1)}] ` +
               `(one run of ${options.tfjsSteps} steps: median [min-max step])`);
    row(`Tracelab eager / TF.js ${backend}`, `${(median(eagerMs) / result.median_ms).toFixed(3)}x`);
    row(`Tracelab traced / TF.js ${backend}`, `${(median(tracedMs) / result.median_ms).toFixed(3)}x`);
  }
  summary.tfjs[backend] = { ...result, losses: undefined };
}
const agree = failures.length === 0;
/** How far TF.js' losses are from Tracelab eager's: the largest |difference| / (1 + |loss|) over its steps. */
const tfjsDistance = (losses) =>
  Math.max(...losses.map((v, k) => Math.abs(v - eagerLosses[k]) / (1 + Math.abs(eagerLosses[k]))));
console.log(`losses: eager ${eagerLosses[0].toFixed(6)} -> ${eagerLosses.at(-1).toFixed(6)}; eager == traced at all ` +
            `${eagerLosses.length} steps${options.runs > 1 ? ' of every run' : ''}: ${agree ? 'yes' : 'NO'}` +
            (tfjs.cpu?.losses ? `; TF.js cpu over its ${tfjs.cpu.losses.length} steps ${tfjs.cpu.losses[0].toFixed(6)} -> ` +
              `${tfjs.cpu.losses.at(-1).toFixed(6)}, largest |difference| / (1 + |loss|) from eager's ` +
              `${tfjsDistance(tfjs.cpu.losses).toExponential(1)}` : ''));
for (const line of failures) console.log(line);
if (options.json) writeFileSync(options.json, `${JSON.stringify({ node: process.versions.node, ...summary, failures }, null, 1)}\n`);
if (!agree) {
  console.error('mnist_bench.mjs: a losses check failed (see above)');
  process.exit(1);
}
