// The ragged model's train step driven from JavaScript, against the same step driven from C++ (the runner) and
// the same model in TensorFlow.js (cpu and wasm backends), all in one Node process, on the same examples from the
// same initial weights. Prints median step times and ratios; a benchmark, not a test.
//   node bench/js/ragged_js_bench.mjs [--steps 2000] [--rounds 3] [--warmup 2000] [--tfjs-steps 500] [--json out.json]
//                                     [--pairs 40] [--pair-steps 2000]
// Both drivers warm up first (--warmup steps per mode, untimed, on throwaway models): V8 runs WebAssembly on
// baseline code for the first seconds of a process, and without a warm-up whichever mode runs first pays for it.
// Then --rounds rounds each time every C++ and JS mode for --steps steps, one after the other: a JS/C++ ratio is
// taken within a round (two measurements minutes apart see different machine states), and the figures printed are
// the medians over the rounds, with the rounds' range. Last, --pairs pairs of short blocks set the JS-driven calls
// of a tl.function beside the runner's step and beside the core's own loop of calls of such a function, a block of
// each in turn, each block from a fresh start: ratios a machine whose speed moves from second to second still
// measures (part 3 below).
// The first run with --tfjs-steps above 0 installs TensorFlow.js (npm ci --prefix bench/js; not part of the setup).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { raggedExamples, raggedModel, raggedSignature, raggedStep, WIDTHS } from './ragged_model.mjs';
import { median, pairRatio, runPairs } from './stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
const steps = Number(args.steps ?? 2000);
const rounds = Number(args.rounds ?? 3);
const warmup = Number(args.warmup ?? 2000);
const tfjsSteps = Number(args['tfjs-steps'] ?? 500);
const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

const config = { steps, examples: Math.min(steps, 1000), seed: 42 };
const data = tl.experiments.raggedData(config);
const kernels = tl.experiments.raggedKernels(config);
const steady = (times, skip) => median(times.slice(skip));

/** The same step as TF.js users write it: optimizer.minimize (the gradients stay in the core). */
function minimizeStep(model, optimizer) {
  const vars = model.trainableWeights;
  return (x, y) => optimizer.minimize(() => tl.losses.meanSquaredError(y, tl.reshape(model.apply(tl.max(x, 1, true)), [-1])), true, vars);
}

// The examples as tensors, made once and used by every JS mode, as the runner makes its examples once per run and
// trains every mode on them.
const { xs, ys } = raggedExamples(tl, data);

/** Runs `step` on the examples (xs[k], ys[k]) in turn, timing each call (including reading the loss). */
function timeSteps(count, step, xs, ys) {
  const times = new Float64Array(count), losses = new Float64Array(count);
  for (let i = 0; i < count; ++i) {
    const k = i % xs.length;
    const start = performance.now();
    losses[i] = tl.tidy(() => step(xs[k], ys[k]).dataSync()[0]);
    times[i] = (performance.now() - start) * 1000;
  }
  return { times, losses };
}

/**
 * The same, the loss read with the tl.function's own dataSync (its values, no result tensor). A loop of its own, not
 * timeSteps with the loss's reading passed in: a call through a function value in the timed region would add to
 * every row.
 */
function timeDataSteps(count, step, xs, ys) {
  const times = new Float64Array(count), losses = new Float64Array(count);
  for (let i = 0; i < count; ++i) {
    const k = i % xs.length;
    const start = performance.now();
    losses[i] = step.dataSync(xs[k], ys[k])[0];
    times[i] = (performance.now() - start) * 1000;
  }
  return { times, losses };
}

/** The same, the loss read as a number by the tl.function's arraySync (nothing allocated for it); its own loop too. */
function timeArraySteps(count, step, xs, ys) {
  const times = new Float64Array(count), losses = new Float64Array(count);
  for (let i = 0; i < count; ++i) {
    const k = i % xs.length;
    const start = performance.now();
    losses[i] = step.arraySync(xs[k], ys[k]);
    times[i] = (performance.now() - start) * 1000;
  }
  return { times, losses };
}

const results = {};  // per figure: {us: one median per round, loss: the first round's losses}
const record = (name, us, loss) => {
  results[name] ??= { us: [], loss };
  results[name].us.push(us);
};

// 1. C++-driven (the runner): eager, function, signature.
function runCpp(round) {
  const cpp = tl.experiments.runRagged({ ...config, warmupSteps: round === 0 ? warmup : 0,
                                         modes: ['eager', 'function', 'signature'] });
  for (const m of cpp.modes) record(`C++ ${m.mode}`, m.steady_median_us, m.loss);
}

// 2. JS-driven: eager (tape.gradient + applyGradients, as the C++ runner writes it), eager with optimizer.minimize
//    (TF.js' spelling, as the TF.js rows below use it), tl.function, tl.function with a signature (each with the
//    options a tl.function has by default: 100 call records, untimed), each of these two twice more with the loss
//    read by the function's own dataSync (step.dataSync(x, y)[0]: its values as a Float32Array, no result tensor, no
//    tidy) and arraySync (step.arraySync(x, y): the loss as a number, as the runner's step returns it as a float), the
//    signature once more with each call timed into its record (recordTimings true: two clock reads per call). Last,
//    the default signature function called by the core itself in a loop (tl.experiments.timeCalls, each call timed
//    in C++ as the runner times its steps): the same JS-built graph without JavaScript between the calls, so the JS
//    row over this one is what the bridge and the JavaScript API add.
function runJs(mode, count) {
  const model = raggedModel(tl, kernels);
  const optimizer = tl.train.adam(0.01);
  const body = mode === 'eager, minimize' ? minimizeStep(model, optimizer) : raggedStep(tl, model, optimizer);
  const signature = mode.startsWith('signature') ? raggedSignature(tl) : undefined;
  const step = mode.startsWith('eager') ? body
    : tl.function(body, { name: 'train_step', maxRetracingWarnings: 0, inputSignature: signature,
                          ...(mode === 'signature, recordTimings true' ? { recordTimings: true } : {}) });
  const run = mode.endsWith('from C++') ? { times: tl.experiments.timeCalls(step, examples, count), losses: [] }
    : mode.endsWith('f.dataSync') ? timeDataSteps(count, step, xs, ys)
    : mode.endsWith('f.arraySync') ? timeArraySteps(count, step, xs, ys) : timeSteps(count, step, xs, ys);
  model.dispose();
  step.dispose?.();
  return run;
}
const jsModes = ['eager', 'eager, minimize', 'function', 'function, f.dataSync', 'function, f.arraySync', 'signature',
                 'signature, f.dataSync', 'signature, f.arraySync', 'signature, recordTimings true', 'signature, from C++'];
const examples = xs.map((x, k) => [x, ys[k]]);  // the argument lists of tl.experiments.timeCalls
for (let round = 0; round < rounds; ++round) {
  runCpp(round);
  for (const mode of jsModes) {
    if (round === 0)  // as the runner warms up
      for (let done = 0; done < warmup; done += 100) runJs(mode, Math.min(100, warmup - done));
    const { times, losses } = runJs(mode, steps);
    record(mode.endsWith('from C++') ? 'JS-built signature from C++' : `JS ${mode}`, steady(times, 50), Array.from(losses));
  }
}

// 3. Paired blocks: per mode, short blocks of --pair-steps steps in turn, the order turning each pair: the runner's
//    C++-driven step, one tl.function called by the core in a loop (tl.experiments.timeCalls), from JavaScript by
//    f.arraySync, by f.dataSync and by the Tensor-returning call. The rounds above run each mode for a whole --steps;
//    on a machine whose speed changes within a second, a round's C++ and JS runs can fall in different states.
//    Blocks a few tens of milliseconds long, side by side, see the same state: the figures printed are the medians
//    of the pairs' ratios over --pairs pairs, with quartiles. Every block starts as a run of the runner starts (the
//    examples made anew as tensors, a fresh model from the same kernels, a fresh tl.function), so all five train
//    along the same losses, and each block's figure is the median of its steps after the first pass over the
//    examples: the first pass traces, and runs on memory just written (the examples, the model, the plans), which
//    in a block of a few thousand steps weighs more than in a long run.
const pairs = Number(args.pairs ?? 40), pairSteps = Number(args['pair-steps'] ?? 2000);
const pairExamples = Math.min(config.examples, Math.floor(pairSteps / 2));  // at least two passes per block
const pairConfig = { ...config, steps: pairSteps, examples: pairExamples };
const pairData = pairs > 0 ? tl.experiments.raggedData(pairConfig) : [];
/** A block's figure: the median of the times of its steps after the first pass (none of them trace). */
const blockMedian = (times) => median(times.slice(pairExamples));
const paired = {};
for (const mode of pairs > 0 ? ['function', 'signature'] : []) {
  const concrete = mode === 'signature' ? 1 : new Set(pairData.map((e) => e.length)).size;
  /** Times `run(step, xs, ys)` on fresh examples, model and tl.function; checks that only the first pass traced. */
  const fresh = (run) => {
    const { xs, ys } = raggedExamples(tl, pairData);
    const model = raggedModel(tl, kernels);
    const step = tl.function(raggedStep(tl, model, tl.train.adam(0.01)),
                             { name: 'train_step', maxRetracingWarnings: 0,
                               inputSignature: mode === 'signature' ? raggedSignature(tl) : undefined });
    try {
      const times = run(step, xs, ys);
      const made = step.concreteFunctions().length;
      if (made !== concrete)
        throw new Error(`paired blocks, ${mode}: ${made} concrete functions, expected ${concrete}`);
      return blockMedian(times);
    } finally {
      model.dispose();
      step.dispose();
      tl.dispose([xs, ys]);
    }
  };
  const blocks = {
    runner: () => blockMedian(tl.experiments.runRagged({ ...pairConfig, warmupSteps: 0, modes: [mode] })
      .modes[0].step_us),
    core: () => fresh((step, xs, ys) => tl.experiments.timeCalls(step, xs.map((x, k) => [x, ys[k]]), pairSteps)),
    'f.dataSync': () => fresh((step, xs, ys) => timeDataSteps(pairSteps, step, xs, ys).times),
    'f.arraySync': () => fresh((step, xs, ys) => timeArraySteps(pairSteps, step, xs, ys).times),
    'f(x, y)': () => fresh((step, xs, ys) => timeSteps(pairSteps, step, xs, ys).times),
  };
  paired[mode] = runPairs(blocks, pairs);  // per block, one median per pair
}

tl.dispose([xs, ys]);

// 4. TensorFlow.js 4.22, cpu and wasm backends (no tracing: every step runs op by op). Only this benchmark needs it
// (286 MB), so scripts/setup.sh leaves it out: the first run that compares installs it, from bench/js/package-lock.json.
const require = createRequire(import.meta.url);
const loadTfjs = () => {
  const module = require('@tensorflow/tfjs');
  require('@tensorflow/tfjs-backend-wasm');
  return module;
};
let tf = null;
if (tfjsSteps > 0) {
  try {
    tf = loadTfjs();
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND') throw error;
    console.log('TensorFlow.js is not installed; installing it once: npm ci --prefix bench/js (286 MB; --tfjs-steps 0 skips it)');
    const npm = spawnSync('npm', ['ci', '--prefix', dirname(fileURLToPath(import.meta.url)), '--no-audit', '--no-fund',
                                  '--loglevel=error'], { stdio: 'inherit' });
    if (npm.status !== 0)
      throw new Error(`npm ci --prefix bench/js failed (${npm.error?.message ?? `exit code ${npm.status}`}); ` +
                      'TensorFlow.js is needed for the comparison, --tfjs-steps 0 runs without it');
    tf = loadTfjs();
  }
}
if (tf && tfjsSteps > 0) {
  const wasmDir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
  require('@tensorflow/tfjs-backend-wasm').setWasmPaths(`${wasmDir}/`);
  for (const backend of ['cpu', 'wasm']) {
    // setBackend resolves to false (it does not throw) when the backend fails to initialize; TF.js then keeps the
    // backend it had, and a row labelled with this backend's name would time another one.
    if (!(await tf.setBackend(backend)) || tf.getBackend() !== backend) {
      console.log(`TF.js ${backend}: setBackend('${backend}') failed (the backend in use is ${tf.getBackend()}); no row for it`);
      continue;
    }
    await tf.ready();
    const weights = [];
    for (let i = 0; i + 1 < WIDTHS.length; ++i) {
      weights.push(tf.variable(tf.tensor2d(kernels[i], [WIDTHS[i], WIDTHS[i + 1]])));
      weights.push(tf.variable(tf.zeros([WIDTHS[i + 1]])));
    }
    const optimizer = tf.train.adam(0.01, 0.9, 0.999, 1e-7);
    const xs = data.map((e) => tf.tensor3d(e.x, [1, e.length, 20]));
    const ys = data.map((e) => tf.tensor1d(e.y));
    const times = new Float64Array(tfjsSteps), losses = new Float64Array(tfjsSteps);
    for (let i = 0; i < tfjsSteps; ++i) {
      const k = i % data.length;
      const start = performance.now();
      losses[i] = tf.tidy(() => optimizer.minimize(() => {
        // TF.js' matMul gradient fails for a rank-3 x rank-2 product: reshape the (1, 1, 20) max to (1, 20).
        let h = tf.max(xs[k], 1, true).reshape([1, 20]);
        for (let l = 0; l < 6; ++l) {
          h = tf.add(tf.matMul(h, weights[2 * l]), weights[2 * l + 1]);
          if (l < 5) h = tf.relu(h);
        }
        return tf.losses.meanSquaredError(ys[k], h.reshape([-1]));
      }, true, weights).dataSync()[0]);
      times[i] = (performance.now() - start) * 1000;
    }
    record(`TF.js ${backend}`, steady(times, 50), Array.from(losses));
    tf.dispose([xs, ys, weights]);
    optimizer.dispose();
  }
}

// Per figure the median over the rounds and their range; a ratio is taken round by round (TF.js runs once, after
// the rounds: its ratios use the rounds' medians).
const med = (name) => median(results[name].us);
const range = (values) => (values.length > 1 ? `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}` : '');
const base = med('C++ signature');
console.log(`ragged train step from JS, Node ${process.versions.node}: ${rounds} rounds of ${steps} steps per mode after ${warmup} warm-up steps per mode (TF.js ${tfjsSteps}); steady-state medians\n`);
console.log(`${'driver / mode'.padEnd(32)} ${'us/step'.padStart(8)} ${'rounds'.padStart(12)} ${'x C++ signature'.padStart(16)}  loss at step 100 (vs C++ eager)`);
const reference = results['C++ eager'].loss[100];
for (const [name, r] of Object.entries(results))
  console.log(`${name.padEnd(32)} ${med(name).toFixed(2).padStart(8)} ${range(r.us).padStart(12)} ${(med(name) / base).toFixed(2).padStart(16)}  ${r.loss.length > 100 ? `${r.loss[100].toFixed(6)} (${reference.toFixed(6)})` : '-'}`);
const perRound = (a, b) => results[a].us.map((us, i) => us / results[b].us[i]);
const ratio = (a, b) => {
  const each = perRound(a, b);
  return `${median(each).toFixed(2)}x${each.length > 1 ? ` (${range(each)})` : ''}`;
};
console.log(`\nJS-driven / C++-driven, round by round: function ${ratio('JS function', 'C++ function')}, the loss by f.dataSync ${ratio('JS function, f.dataSync', 'C++ function')}, by f.arraySync ${ratio('JS function, f.arraySync', 'C++ function')}; signature ${ratio('JS signature', 'C++ signature')}, the loss by f.dataSync ${ratio('JS signature, f.dataSync', 'C++ signature')}, by f.arraySync ${ratio('JS signature, f.arraySync', 'C++ signature')}, with each call timed into its record (recordTimings true) ${ratio('JS signature, recordTimings true', 'C++ signature')}; eager ${ratio('JS eager', 'C++ eager')}, with optimizer.minimize ${ratio('JS eager, minimize', 'C++ eager')}`);
console.log(`the JS-built signature function called from C++ (tl.experiments.timeCalls) ${ratio('JS-built signature from C++', 'C++ signature')} the runner's step; the JS-driven signature step ${ratio('JS signature', 'JS-built signature from C++')} that: what the bridge and the JavaScript API add`);
for (const [mode, us] of Object.entries(paired)) {
  const blockRatio = (a, b) => pairRatio(us[a], us[b]);  // block a's time over block b's, pair by pair
  console.log(`paired blocks, ${mode}: ${pairs} pairs of ${pairSteps} steps. JS-driven / the runner's C++-driven step: ` +
              `the loss by f.arraySync ${blockRatio('f.arraySync', 'runner')}, by f.dataSync ${blockRatio('f.dataSync', 'runner')}, ` +
              `by f(x, y) in tl.tidy ${blockRatio('f(x, y)', 'runner')}; JS-driven / the core's loop of calls of the same ` +
              `tl.function: f.arraySync ${blockRatio('f.arraySync', 'core')}, f.dataSync ${blockRatio('f.dataSync', 'core')}, ` +
              `f(x, y) ${blockRatio('f(x, y)', 'core')}; that loop / the runner's step ${blockRatio('core', 'runner')}`);
}
const over = (a, b) => med(a) / med(b);
for (const backend of ['cpu', 'wasm'].filter((b) => results[`TF.js ${b}`]))
  console.log(`TF.js ${backend} / Tracelab JS signature: ${over(`TF.js ${backend}`, 'JS signature').toFixed(0)}x; ` +
              `TF.js ${backend} / Tracelab JS eager: ${over(`TF.js ${backend}`, 'JS eager').toFixed(1)}x`);
if (args.json)
  writeFileSync(args.json, JSON.stringify(Object.fromEntries(Object.keys(results).map((k) => [k, { median: med(k), rounds: results[k].us }])), null, 1));
