// Compute-bound models three ways in one run: the C++ twin bench/models_bench.cpp natively and in WASM, and the same
// models built and trained with Tracelab's JavaScript API (WASM), eager and traced; optionally TensorFlow.js too.
// A benchmark that prints figures; its one check is on losses, not times.
//   node bench/js/models_bench.mjs [--steps 30] [--warmup 5] [--runs 3] [--models mlp,cnn,ragged] [--json FILE]
//                                  [--native FILE] [--wasm FILE] [--tfjs] [--tfjs-steps 10]
// The models are the twin's: an MLP 784-512-10 (batch 128) and a CNN conv16-pool-conv32-pool-dense10 on 28x28x1
// images (batch 32; 3x3 SAME convolutions with relu, 2x2 max pooling), one SGD(0.01) step of sparse softmax
// cross-entropy from logits. The JS layers take the twin's seeds (the same initial weights: the core makes them) and
// the batch is the twin's (x uniform in [0, 1) from tl::Generator(7), int32 labels in [0, 10) from tl::Generator(8),
// its PCG32 written out below), so the JS losses should equal the twin's: printed, not enforced. Enforced (exit 1):
// the JS eager and traced steps, trained from the same weights, give the same loss at every step (as the twin checks
// its own, whose exit status 1 counts too).
// Each run (--runs of them) spawns the twin natively (--native, default build/native/bench/models_bench) and in WASM
// (--wasm, default build/wasm/bench/models_bench.js, under this Node) with the same --steps / --warmup / --models and
// --json to a temporary file, then times the JS steps in this process: per model a fresh eager model (a tape, its
// gradients, optimizer.applyGradients from JS) and a fresh traced one (the same step in tl.function), each --warmup
// steps untimed then --steps steps timed one by one, the loss read every step. Printed per model and runner: median
// and p90 ms per step, eager / traced, GFLOP/s of the traced step (the twin's count: 2*m*n*k for every matmul and
// convolution of the step, forward, weight gradients, input gradients but the first layer's; checked against the
// twin's JSON), and the ratios WASM C++ / native C++ and WASM JS / WASM C++ (time over time, run by run). Then the
// twins' kernel rows side by side (each op's GFLOP/s and its time over the matmul of the same GEMM size), and the
// ragged step for reference: the twin's traced ragged step (2000 steps, 100 examples, function mode, steady median)
// beside the same step driven from JavaScript (ragged_model.mjs, tl.function, the median of the steps that did not
// trace). With --runs above 1 every figure is the median over the runs, with the runs' range [min-max].
// The first line names each build's time: the JS API's core (dist) and the WASM twin (tracelab_programs.js) are
// two links of the same sources, and a ratio of the two means something only when both are of the same state.
// --tfjs also trains both models on TensorFlow.js 4.22's wasm (SIMD) and cpu backends, once after the runs (the cpu
// backend takes seconds per CNN step), eagerly (TF.js has no tracing), --warmup steps then --tfjs-steps timed ones,
// from Tracelab's initial weights on the same batch: ms/step, the GFLOP/s of that eager step, its time over the
// Tracelab JS eager step's, and how far its losses are from Tracelab's JS eager ones. An op a backend lacks (the wasm
// backend has no Conv2DBackpropFilter, so no CNN training step) is reported as such. TF.js is not part of the setup
// (npm ci --prefix bench/js installs it); without --tfjs it is never imported, with --tfjs and no TF.js: exit 1.
// The JS API comes from TRACELAB_DIST (default build/wasm/dist). Exit status: 0; 1 when a losses check fails (or a
// twin fails); 2 for a bad command line (--help prints the usage).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { raggedExamples, raggedModel, raggedStep } from './ragged_model.mjs';
import { flagHelpers, median, quantiles } from './stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const USAGE = 'usage: node bench/js/models_bench.mjs [--steps N] [--warmup N] [--runs N] [--models mlp,cnn,ragged] ' +
  '[--tfjs] [--tfjs-steps N] [--json FILE] [--native FILE] [--wasm FILE]';
const MODELS = ['mlp', 'cnn', 'ragged'];

/** The command line as options; a bad flag or value exits 2 with the usage. */
function parseArgs(argv) {
  const options = { steps: 30, warmup: 5, runs: 3, models: MODELS, tfjs: false, tfjsSteps: 10, json: null,
                    native: join(root, 'build/native/bench/models_bench'),
                    wasm: join(root, 'build/wasm/bench/models_bench.js') };
  const { fail, integer } = flagHelpers('models_bench.mjs', USAGE);
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i], value = () => argv[++i];
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (flag === '--steps') options.steps = integer(flag, value(), 1);
    else if (flag === '--warmup') options.warmup = integer(flag, value(), 0);
    else if (flag === '--runs') options.runs = integer(flag, value(), 1);
    else if (flag === '--tfjs') options.tfjs = true;
    else if (flag === '--tfjs-steps') options.tfjsSteps = integer(flag, value(), 1);
    else if (flag === '--json' || flag === '--native' || flag === '--wasm') {
      const text = value();
      if (text === undefined || text.startsWith('--')) fail(`${flag} needs a file name`);
      options[flag.slice(2)] = text;
    } else if (flag === '--models') {
      const text = value() ?? '';
      options.models = text.split(',');
      const unknown = options.models.filter((m) => !MODELS.includes(m));
      if (!text || unknown.length) fail(`--models takes a comma-separated list of ${MODELS.join(', ')}, got '${text}'`);
    } else fail(`unknown argument '${flag}'`);
  }
  for (const [flag, file] of [['--native', options.native], ['--wasm', options.wasm]])
    if (!existsSync(file))
      fail(`the C++ twin ${file} (${flag}) does not exist: build it with ` +
           `flock /tmp/tracelab-build.lock ninja -C build/${flag.slice(2)} ${flag === '--native' ? 'models_bench' : 'tracelab_programs'}`);
  return options;
}

const options = parseArgs(process.argv.slice(2));
const require = createRequire(import.meta.url);
if (options.tfjs) {
  try {
    require.resolve('@tensorflow/tfjs');
    require.resolve('@tensorflow/tfjs-backend-wasm');
  } catch {
    console.error('models_bench.mjs: --tfjs needs TensorFlow.js, which is not installed (bench/js/node_modules has no ' +
                  '@tensorflow/tfjs): install it once with npm ci --prefix bench/js (about 290 MB)');
    process.exit(1);
  }
}
const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

// ---- the twin's data: tl::Generator (PCG32, core/tensor/random.cpp) ----

const MASK64 = (1n << 64n) - 1n;
/** tl::Generator(seed): PCG32 whose stream is the core's, bit for bit. */
class Generator {
  constructor(seed) {
    const s = BigInt(seed);
    this.state = 0n;
    this.increment = ((s << 1n) | 1n) & MASK64;
    this.nextU32();
    this.state = (this.state + (s ^ 0x853c49e6748fea9bn)) & MASK64;
    this.nextU32();
  }
  nextU32() {
    const old = this.state;
    this.state = (old * 6364136223846793005n + this.increment) & MASK64;
    const xorshifted = Number((((old >> 18n) ^ old) >> 27n) & 0xffffffffn);
    const rot = Number(old >> 59n);
    return ((xorshifted >>> rot) | (xorshifted << ((32 - rot) & 31))) >>> 0;
  }
  /** uniform(shape) in [0, 1): the top 24 bits over 2^24 (exact in float32, so lo + span * u is u itself). */
  unit(count) {
    const values = new Float32Array(count);
    for (let i = 0; i < count; ++i) values[i] = (this.nextU32() >>> 8) / 16777216;
    return values;
  }
  /** uniform(shape, lo, hi, int32): unbiased by rejection, as the core draws it. */
  integers(count, lo, hi) {
    const span = hi - lo, limit = 2 ** 32 - (2 ** 32 % span), values = new Int32Array(count);
    for (let i = 0; i < count; ++i) {
      let r;
      do r = this.nextU32(); while (r >= limit);
      values[i] = lo + (r % span);
    }
    return values;
  }
}

// ---- the models (bench/models_bench.cpp's mlp_spec and cnn_spec) ----

/** 2*m*n*k of Dense(in -> out) on a batch: forward, the kernel's gradient, the input's unless the first layer. */
const denseFlops = (batch, inputs, units, first) => 2 * batch * inputs * units * (first ? 2 : 3);
/** The same for a SAME, stride-1 k x k convolution on an h x w image. */
const convFlops = (batch, h, w, k, inputs, filters, first) => 2 * batch * h * w * k * k * inputs * filters * (first ? 2 : 3);

const SPECS = {
  mlp: {
    name: 'mlp', title: 'MLP 784-512-10, batch 128', input: [128, 784],
    flops: denseFlops(128, 784, 512, true) + denseFlops(128, 512, 10, false),
    layers: () => [tl.layers.dense({ units: 512, activation: 'relu', seed: 1 }), tl.layers.dense({ units: 10, seed: 2 })],
  },
  cnn: {
    name: 'cnn', title: 'CNN conv16-pool-conv32-pool-dense10, batch 32', input: [32, 28, 28, 1],
    flops: convFlops(32, 28, 28, 3, 1, 16, true) + convFlops(32, 14, 14, 3, 16, 32, false) +
      denseFlops(32, 7 * 7 * 32, 10, false),
    layers: () => {
      const conv = (filters, seed) => tl.layers.conv2d({ filters, kernelSize: 3, padding: 'same', activation: 'relu', seed });
      return [conv(16, 1), tl.layers.maxPooling2d({ poolSize: 2 }), conv(32, 2), tl.layers.maxPooling2d({ poolSize: 2 }),
              tl.layers.flatten(), tl.layers.dense({ units: 10, seed: 3 })];
    },
  },
};

/** The model, built on a batch of zeros (its weights made by the core from the layers' seeds). */
function buildModel(spec) {
  const model = tl.sequential({ layers: spec.layers() });
  tl.tidy(() => model.apply(tl.zeros(spec.input)));
  return model;
}

/** The twin's batch of `spec`: x from tl::Generator(7), labels from tl::Generator(8), as plain arrays. */
function batchData(spec) {
  const count = spec.input.reduce((a, b) => a * b, 1);
  return { x: new Generator(7).unit(count), y: new Generator(8).integers(spec.input[0], 0, 10) };
}

/** The twin's Trainer::step: a tape around the forward pass and the loss, the gradients, SGD's update. */
function trainStep(model, optimizer) {
  let variables = null;
  return (x, y) => {
    const tape = new tl.GradientTape();
    const loss = tl.losses.sparseCategoricalCrossentropy(y, model.apply(x, { training: true }), { fromLogits: true });
    variables ??= model.trainableWeights;
    const gradients = tape.gradient(loss, variables);
    tape.dispose();
    optimizer.applyGradients(gradients.map((g, i) => [g, variables[i]]));
    return loss;
  };
}

/** Median, p90 and min of the step times, ranked as the twin's summarize ranks them. */
const summarize = (ms) => {
  const [min_ms, median_ms, p90_ms] = quantiles(ms, [0, 0.5, 0.9]);
  return { median_ms, p90_ms, min_ms };
};

/** `step` run `warmup` times untimed, then `steps` times each timed; the loss of every call (warm-up included). */
function timeSteps(step, warmup, steps) {
  const losses = [], ms = [];
  for (let i = 0; i < warmup; ++i) losses.push(step());
  for (let i = 0; i < steps; ++i) {
    const start = performance.now();
    losses.push(step());
    ms.push(performance.now() - start);
  }
  return { timing: summarize(ms), losses };
}

/** Both JS steps of one model from the same initial weights on the same batch: timings and every step's loss. */
function runJsModel(spec, data) {
  const x = tl.keep(tl.tensor(data.x, spec.input)), y = tl.keep(tl.tensor(data.y, [spec.input[0]]));
  const eagerModel = buildModel(spec), tracedModel = buildModel(spec);
  const eagerStep = trainStep(eagerModel, tl.train.sgd(0.01));
  const tracedStep = tl.function(trainStep(tracedModel, tl.train.sgd(0.01)), { name: `${spec.name}_step` });
  try {
    const eager = timeSteps(() => tl.tidy(() => eagerStep(x, y).dataSync()[0]), options.warmup, options.steps);
    const traced = timeSteps(() => tl.tidy(() => tracedStep(x, y).dataSync()[0]), options.warmup, options.steps);
    if (tracedStep.tracingCount !== 1) throw new Error(`${spec.name}: the traced step traced ${tracedStep.tracingCount} times, expected once`);
    return { eager, traced };
  } finally {
    tracedStep.dispose();
    eagerModel.dispose();
    tracedModel.dispose();
    tl.dispose([x, y]);
  }
}

/** Two losses equal as the twin compares them: |a - b| <= 1e-5 (1 + |a|). */
const lossesEqual = (a, b) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) <= 1e-5 * (1 + Math.abs(v)));

/**
 * The twin's traced ragged step driven from JavaScript: its config (2000 steps over 100 examples, seed 42, Adam 0.01)
 * and model, one tl.function, each call timed with its loss read; the median of the calls that did not trace, in ms.
 */
function runJsRagged() {
  const config = { steps: 2000, examples: 100 };
  const { xs, ys } = raggedExamples(tl, tl.experiments.raggedData(config));
  const model = raggedModel(tl, tl.experiments.raggedKernels(config));
  const step = tl.function(raggedStep(tl, model, tl.train.adam(0.01)), { name: 'train_step', maxRetracingWarnings: 0 });
  const steady = [];
  try {
    for (let i = 0; i < config.steps; ++i) {
      const k = i % xs.length, traces = step.tracingCount, start = performance.now();
      tl.tidy(() => step(xs[k], ys[k]).dataSync()[0]);
      const ms = performance.now() - start;
      if (step.tracingCount === traces) steady.push(ms);
    }
  } finally {
    step.dispose();
    model.dispose();
    tl.dispose([xs, ys]);
  }
  return { median_ms: summarize(steady).median_ms };
}

// ---- the C++ twin ----

/** Runs the twin (`command` natively, or under this Node) with this run's options; its JSON document. */
function runTwin(platform, command, args, scratch) {
  const file = join(scratch, `${platform}.json`);
  const run = spawnSync(command, [...args, '--steps', String(options.steps), '--warmup', String(options.warmup),
                                  '--models', options.models.join(','), '--json', file],
                        { encoding: 'utf8', maxBuffer: 1 << 26 });
  // Exit 1 is the twin's own losses check (eager vs traced); its JSON is written and says which model.
  if (run.status !== 0 && !(run.status === 1 && existsSync(file)))
    throw new Error(`the ${platform} C++ twin (${[command, ...args].join(' ')}) failed: ` +
                    `${run.error?.message ?? `exit code ${run.status}`}\n${run.stderr.slice(-2000)}`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

// ---- TensorFlow.js (--tfjs) ----

/**
 * The model's step in TF.js ops on `weights` (Tracelab's initial values): the same layers written out (conv2d + bias,
 * relu, maxPool 2x2, reshape, matMul + bias), softmax cross-entropy of the one-hot labels (the mean over the batch,
 * as sparse_categorical_crossentropy from logits), SGD(0.01) by optimizer.minimize.
 */
function tfjsStep(tf, name, weights, x, y) {
  const labels = tf.oneHot(y, 10);
  const optimizer = tf.train.sgd(0.01);
  const forward = name === 'mlp'
    ? () => tf.add(tf.matMul(tf.relu(tf.add(tf.matMul(x, weights[0]), weights[1])), weights[2]), weights[3])
    : () => {
      const block = (h, k, b) => tf.maxPool(tf.relu(tf.add(tf.conv2d(h, k, 1, 'same'), b)), 2, 2, 'valid');
      const h = block(block(x, weights[0], weights[1]), weights[2], weights[3]);
      return tf.add(tf.matMul(tf.reshape(h, [h.shape[0], -1]), weights[4]), weights[5]);
    };
  return {
    step: () => tf.tidy(() => optimizer.minimize(() => tf.losses.softmaxCrossEntropy(labels, forward()), true, weights).dataSync()[0]),
    dispose: () => {
      optimizer.dispose();
      tf.dispose([labels]);
    },
  };
}

/** Each model on TF.js' wasm and cpu backends: timings, losses, or what failed. */
async function runTfjs(models, data, initialWeights) {
  const tf = require('@tensorflow/tfjs');
  require('@tensorflow/tfjs-backend-wasm')
    .setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
  const results = {};
  for (const backend of ['wasm', 'cpu']) {
    // setBackend resolves to false when the backend cannot start; TF.js then keeps the one it had.
    if (!(await tf.setBackend(backend)) || tf.getBackend() !== backend) {
      results[backend] = { error: `setBackend('${backend}') failed (the backend in use is ${tf.getBackend()})` };
      continue;
    }
    await tf.ready();
    results[backend] = { simd: backend === 'wasm' ? await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT') : undefined };
    for (const name of models) {
      const spec = SPECS[name];
      const weights = initialWeights[name].map((w) => tf.variable(tf.tensor(w.values, w.shape)));
      const x = tf.tensor(data[name].x, spec.input), y = tf.tensor1d(data[name].y, 'int32');
      const { step, dispose } = tfjsStep(tf, name, weights, x, y);
      try {
        results[backend][name] = timeSteps(step, options.warmup, options.tfjsSteps);
      } catch (error) {
        results[backend][name] = { error: String(error.message).split('\n')[0] };
      } finally {
        dispose();
        tf.dispose([weights, x, y]);
      }
    }
  }
  return results;
}

// ---- the runs ----

const jsModels = options.models.filter((m) => m !== 'ragged');
const data = Object.fromEntries(jsModels.map((name) => [name, batchData(SPECS[name])]));
/** Each model's initial weights (Tracelab's, the TF.js rows start from them): values and shape per variable. */
const initialWeights = Object.fromEntries(jsModels.map((name) => {
  const model = buildModel(SPECS[name]);
  const weights = model.trainableWeights.map((v) => ({ values: tl.tidy(() => v.read().dataSync()), shape: v.shape }));
  model.dispose();
  return [name, weights];
}));

const scratch = mkdtempSync(join(tmpdir(), 'models-bench-'));
const runs = [];
try {
  for (let run = 0; run < options.runs; ++run) {
    const native = runTwin('native', options.native, [], scratch);
    const wasm = runTwin('wasm', process.execPath, [options.wasm], scratch);
    const js = Object.fromEntries(jsModels.map((name) => [name, runJsModel(SPECS[name], data[name])]));
    if (options.models.includes('ragged')) js.ragged = { traced: runJsRagged() };
    runs.push({ native, wasm, js });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

// TF.js once, after the runs: its cpu backend takes seconds per CNN step.
const tfjs = options.tfjs && jsModels.length ? await runTfjs(jsModels, data, initialWeights) : null;

// ---- the checks ----

let failed = false;
const checks = [];
for (const name of jsModels) {
  const spec = SPECS[name];
  for (const platform of ['native', 'wasm']) {
    const twin = runs[0][platform].models[name];
    if (twin.flops !== spec.flops)
      throw new Error(`${name}: the JS FLOP count ${spec.flops} is not the ${platform} twin's ${twin.flops}`);
  }
  runs.forEach((r, i) => {
    const { eager, traced } = r.js[name];
    if (!lossesEqual(eager.losses, traced.losses)) {
      failed = true;
      const at = eager.losses.findIndex((v, k) => !lossesEqual([v], [traced.losses[k]]));
      checks.push(`${name}: JS eager and traced losses DIFFER (run ${i + 1}, step ${at}: ${eager.losses[at]} vs ${traced.losses[at]})`);
    }
    for (const platform of ['native', 'wasm'])
      if (r[platform].models[name].losses_equal === false) {
        failed = true;
        checks.push(`${name}: the ${platform} C++ twin's eager and traced losses DIFFER (run ${i + 1})`);
      }
  });
  const losses = runs[0].js[name].traced.losses, first = losses[0], last = losses.at(-1);
  const against = (platform) => {
    const twin = runs[0][platform].models[name];
    const same = lossesEqual([first, last], [twin.first_loss, twin.last_loss]);
    return `${platform} C++ twin ${twin.first_loss.toFixed(6)} -> ${twin.last_loss.toFixed(6)}: ${same ? 'equal' : 'DIFFERENT'}`;
  };
  const exact = runs.every((r) => lossesEqual(r.js[name].eager.losses, r.js[name].traced.losses));
  checks.push(`${name}: JS eager == JS traced at all ${losses.length} steps${options.runs > 1 ? ' of every run' : ''}: ` +
              `${exact ? 'yes' : 'NO'}; JS ${first.toFixed(6)} -> ${last.toFixed(6)}, ${against('wasm')}, ${against('native')}`);
}

// ---- the table ----

const perRun = (figure) => runs.map(figure);
/** The median over the runs, and their range when there are several. */
const cell = (values, digits = 3, suffix = '') => {
  const text = `${median(values).toFixed(digits)}${suffix}`;
  return values.length > 1 ? `${text} [${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}]` : text;
};
const width = options.runs > 1 ? 24 : 10;
const labelWidth = Math.max(48, ...(runs[0].native.kernels ?? []).map((k) => k.name.length));
const row = (label, cells) =>
  console.log(`${label.padEnd(labelWidth)} ${cells.map((c) => c.padStart(width)).join(' ')}`.trimEnd());
const gflops = (flops, ms) => flops / ms / 1e6;

console.log(`models_bench: ${options.runs} run${options.runs > 1 ? 's' : ''} of ${options.steps} timed steps after ` +
            `${options.warmup} warm-up steps per model and runner; Node ${process.versions.node}` +
            (options.runs > 1 ? '; median over the runs [min-max]' : ''));
// The builds compared, with their times: the JS API's core and the twin in WASM are two links of the same sources.
const twinProgram = join(dirname(options.wasm), '../programs/tracelab_programs.js');
const builds = { native: options.native, wasm: existsSync(twinProgram) ? twinProgram : options.wasm,
                 js: join(dist, 'tracelab.core.wasm') };
const built = (file) => (existsSync(file) ? statSync(file).mtime.toISOString().slice(0, 16).replace('T', ' ') : '?');
console.log(`builds: native twin ${built(builds.native)}, WASM twin ${built(builds.wasm)}, JS API core ` +
            `${built(builds.js)} (UTC)`);
console.log();
if (jsModels.length) row('training step (SGD)', ['eager ms', 'p90', 'traced ms', 'p90', 'e/t', 'GFLOP/s']);
const runners = { 'native C++': (r, name) => r.native.models[name], 'WASM C++': (r, name) => r.wasm.models[name],
                  'WASM JS': (r, name) => r.js[name] };
/** A runner's timing of a model's step: the twin's JSON holds it as it is, the JS run beside the losses. */
const timingOf = (r, runner, name, mode) => {
  const figure = runners[runner](r, name)[mode];
  return figure.timing ?? figure;
};
const summary = { models: {}, kernels: [], checks };
for (const name of jsModels) {
  const spec = SPECS[name];
  console.log(spec.title);
  summary.models[name] = { title: spec.title, flops: spec.flops };
  for (const runner of Object.keys(runners)) {
    const eager = perRun((r) => timingOf(r, runner, name, 'eager')), traced = perRun((r) => timingOf(r, runner, name, 'traced'));
    const figures = {
      eager_ms: eager.map((t) => t.median_ms), eager_p90_ms: eager.map((t) => t.p90_ms),
      traced_ms: traced.map((t) => t.median_ms), traced_p90_ms: traced.map((t) => t.p90_ms),
      eager_over_traced: eager.map((t, i) => t.median_ms / traced[i].median_ms),
      gflops: traced.map((t) => gflops(spec.flops, t.median_ms)),
    };
    row(`  ${runner}`, [cell(figures.eager_ms), cell(figures.eager_p90_ms), cell(figures.traced_ms),
                        cell(figures.traced_p90_ms), cell(figures.eager_over_traced, 2, 'x'), cell(figures.gflops, 1)]);
    summary.models[name][runner] = figures;
  }
  for (const [label, a, b] of [['WASM C++ / native C++', 'WASM C++', 'native C++'], ['WASM JS / WASM C++', 'WASM JS', 'WASM C++']]) {
    const ratio = (mode) => perRun((r) => timingOf(r, a, name, mode).median_ms / timingOf(r, b, name, mode).median_ms);
    row(`  ${label}`, [cell(ratio('eager'), 2, 'x'), '', cell(ratio('traced'), 2, 'x'), '', '', '']);
    summary.models[name][label] = { eager: ratio('eager'), traced: ratio('traced') };
  }
  for (const backend of tfjs ? ['wasm', 'cpu'] : []) {
    const label = `  TF.js ${backend}${tfjs[backend].simd ? ' (SIMD)' : ''}, eager`;
    const result = tfjs[backend], failure = result.error ?? result[name].error;
    if (failure) {
      console.log(`${label.padEnd(labelWidth)} fails: ${failure}`);
      summary.models[name][`TF.js ${backend}`] = { error: failure };
      continue;
    }
    const { timing, losses } = result[name];
    const jsEager = runs[0].js[name].eager.losses;
    const compared = losses.slice(0, jsEager.length);
    const distance = Math.max(...compared.map((v, i) => Math.abs(v - jsEager[i]) / (1 + Math.abs(v))));
    const over = timing.median_ms / median(summary.models[name]['WASM JS'].eager_ms);
    row(label, [timing.median_ms.toFixed(3), timing.p90_ms.toFixed(3), '', '', '', gflops(spec.flops, timing.median_ms).toFixed(1)]);
    console.log(`    TF.js ${backend} / Tracelab WASM JS eager ${over.toFixed(2)}x; its losses at ${compared.length} steps vs ` +
                `Tracelab JS eager's: largest |difference| / (1 + |loss|) ${distance.toExponential(1)} ` +
                `(${distance <= 1e-4 ? 'agree' : 'DISAGREE'} within 1e-4)`);
    summary.models[name][`TF.js ${backend}`] = { ...timing, over_js_eager: over, loss_distance: distance };
  }
}
if (options.models.includes('ragged')) {
  row('ragged step (1, X, 20), Adam, function mode', ['', '', 'steady µs', '', '', '']);
  const traced = {
    'native C++': perRun((r) => r.native.models.ragged.traced.median_ms),
    'WASM C++': perRun((r) => r.wasm.models.ragged.traced.median_ms),
    'WASM JS': perRun((r) => r.js.ragged.traced.median_ms),
  };
  for (const [runner, values] of Object.entries(traced)) row(`  ${runner}`, ['', '', cell(values.map((v) => v * 1000), 2), '', '', '']);
  const ratio = (a, b) => traced[a].map((v, i) => v / traced[b][i]);
  row('  WASM C++ / native C++', ['', '', cell(ratio('WASM C++', 'native C++'), 2, 'x'), '', '', '']);
  row('  WASM JS / WASM C++', ['', '', cell(ratio('WASM JS', 'WASM C++'), 2, 'x'), '', '', '']);
  summary.models.ragged = { traced_ms: traced };
}

const kernelRows = runs[0].native.kernels ?? [];
if (kernelRows.length) {
  console.log();
  row('kernel (same GEMM size)', ['native GFLOP/s', 'op/mm', 'WASM GFLOP/s', 'op/mm', 'WASM/native', '']);
  kernelRows.forEach((kernel, k) => {
    const of = (platform) => perRun((r) => r[platform].kernels[k]);
    const opGflops = (platform) => of(platform).map((e) => gflops(e.flops, e.op.median_ms));
    const opOverMatmul = (platform) => of(platform).map((e) => e.matmul.median_ms / e.op.median_ms);
    const slower = perRun((r) => r.wasm.kernels[k].op.median_ms / r.native.kernels[k].op.median_ms);
    row(kernel.name, [cell(opGflops('native'), 1), cell(opOverMatmul('native'), 2), cell(opGflops('wasm'), 1),
                      cell(opOverMatmul('wasm'), 2), cell(slower, 2, 'x'), '']);
    summary.kernels.push({ name: kernel.name, flops: kernel.flops, native_gflops: opGflops('native'),
                           native_op_over_matmul: opOverMatmul('native'), wasm_gflops: opGflops('wasm'),
                           wasm_op_over_matmul: opOverMatmul('wasm'), wasm_over_native: slower });
  });
  console.log('(op/mm: the op\'s GFLOP/s over the matmul\'s of the same GEMM size, as the twin prints it; ' +
              'WASM/native: the op\'s time in WASM over its time natively)');
}

console.log();
for (const line of checks) console.log(line);
if (options.json)
  writeFileSync(options.json, `${JSON.stringify({
    node: process.versions.node, steps: options.steps, warmup: options.warmup, runs: options.runs,
    builds: Object.fromEntries(Object.entries(builds).map(([k, file]) => [k, { file, built: built(file) }])),
    ...summary, tfjs, raw: runs }, null, 1)}\n`);
if (failed) {
  console.error('models_bench.mjs: the losses check failed (see above)');
  process.exit(1);
}
