// A tl.function call from JavaScript taken apart around the ragged train step: the same step called by the core
// (tl.experiments.timeCalls, each call timed in C++ as the runner times its steps), then from JavaScript with the
// JavaScript API's layers added one at a time, each call timed in JavaScript as ragged_js_bench times its steps.
// A benchmark that prints figures, not a test.
//   node bench/js/facade_bench.mjs [--steps 20000] [--rounds 5] [--warmup 2000] [--pairs 30] [--pair-steps 2000]
// The levels, each a fresh model and tl.function (default options) trained from the same initial weights:
//   the bare crossing: the argument handles written to the staging area by hand, core.functionCallStaged, the loss
//     read from the heap at the address the results name, core.tensorDispose: the bridge and nothing else;
//   + tidy: the same inside tl.tidy (an empty scope);
//   + the result as a Tensor: engine.wrapResult makes the loss a Tensor in the scope, which disposes it;
//   + dataSync: the loss read with dataSync()[0];
//   the API: tl.tidy(() => f(x, y).dataSync()[0]), through the tl.function's own call (its argument checks);
//   the API with recordTimings true: the same, each call timed into its record (two clock reads from WebAssembly);
//   the bare values crossing: the handles staged by hand, core.functionCallStagedData, the loss read from the heap as
//     a number: the one crossing f.dataSync and f.arraySync make, and the least any JavaScript caller pays;
//   the function's dataSync: f.dataSync(x, y)[0], the API's call that returns the results' values (no result
//     handle, no Tensor, no tidy);
//   the function's arraySync: f.arraySync(x, y), the loss as a number (the API's leanest call).
// The levels run one after the other in every round, each round starting one level further on (after a warm-up
// round of --warmup steps each, untimed); a level's ratio to the core's is taken within a round, and the figures
// printed are medians over the rounds with the rounds' range. Then --pairs pairs of short blocks (--pair-steps
// steps; 0 pairs skips them) set the runner's step, the core's loop, the bare values crossing, the function's
// arraySync, the bare crossing and the API side by side, the order turning each pair, every block from a fresh start
// (examples, model, function) as ragged_js_bench's paired blocks are, each block's figure the median of its steps
// after the first pass over the examples; printed: the medians of the pairs' ratios, with quartiles. Last, what a
// user pays per call from JavaScript, for the two calls a user makes (f.arraySync and the API's Tensor-returning
// call), each against the target of issue 60:
//   JS over C++: the call's block minus the core's loop's block, in µs per call (the median of the pairs'
//     differences, with quartiles), at most TARGET_US;
//   over the bare crossing (the bare values crossing: the one crossing, handles staged by hand): the median of the
//     pairs' ratios, with quartiles, at most TARGET_RATIO.
// Each figure is printed 'met' or 'missed' from its median in that run. The engine's internals come from
// tl[Symbol.for('tracelab.internals')], which is not API.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { raggedExamples, raggedModel, raggedSignature, raggedStep } from './ragged_model.mjs';
import { median, pairDifferences, pairRatio, pairRatios, runPairs } from './stats.mjs';

/** What a user may pay per call from JavaScript over the same call made by the core (issue 60's target), µs. */
const TARGET_US = 0.6;
/** The most the API's call may take over the bare values crossing, as a ratio of their step times. */
const TARGET_RATIO = 1.03;

const root = fileURLToPath(new URL('../..', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).reduce(
  (pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
/** The option --name as a whole number, at least `least`; a clear error otherwise. */
function count(name, fallback, least) {
  const value = Number(args[name] ?? fallback);
  if (!Number.isInteger(value) || value < least)
    throw new Error(`facade_bench: --${name} is ${args[name]}; expected a whole number of at least ${least}`);
  return value;
}
const steps = count('steps', 20000, 101);
const rounds = count('rounds', 5, 1);
const warmup = count('warmup', 2000, 1);
const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();
const { core, engine, functionHandle } = tl[Symbol.for('tracelab.internals')];

const config = { steps: 1000, examples: 1000, seed: 42 };
const data = tl.experiments.raggedData(config);
const kernels = tl.experiments.raggedKernels(config);
const { xs, ys } = raggedExamples(tl, data);
const examples = xs.map((x, k) => [x, ys[k]]);
const signature = raggedSignature(tl);

/** The bridge alone: handles staged by hand, one call, the loss read from the heap, the result's handle released. */
function bare(handle, x, y) {
  const at = engine.reserve(2), staging = core.HEAPF64;
  staging[at] = x.id;
  staging[at + 1] = y.id;
  const address = core.functionCallStaged(handle, 2);
  const results = core.HEAPF64, entry = address / 8 + 1;  // count, then handle, dtype, symbolic, address, ...
  const loss = core.HEAPF32[results[entry + 3] / 4];
  core.tensorDispose(results[entry]);
  return loss;
}
/** The one crossing of f.arraySync alone: handles staged by hand, the results' values out, the loss read as a number. */
function bareValues(handle, x, y) {
  const at = engine.reserve(2), staging = core.HEAPF64;
  staging[at] = x.id;
  staging[at + 1] = y.id;
  const address = core.functionCallStagedData(handle, 2);
  const results = core.HEAPF64, entry = address / 8 + 1;  // count, then dtype, address, count, rank, dims
  return core.HEAPF32[results[entry + 1] / 4];
}
const wrapped = (handle, x, y) => engine.wrapResult(core.functionCallStaged(handle, engine.stage([x, y])));

// Per level: (f, handle, x, y) => the loss, as a number.
const levels = {
  'the bare crossing': (f, h, x, y) => bare(h, x, y),
  '+ tidy': (f, h, x, y) => tl.tidy(() => bare(h, x, y)),
  '+ the result as a Tensor': (f, h, x, y) => tl.tidy(() => core.HEAPF32[wrapped(h, x, y).dataAddress / 4]),
  '+ dataSync': (f, h, x, y) => tl.tidy(() => wrapped(h, x, y).dataSync()[0]),
  'the API': (f, h, x, y) => tl.tidy(() => f(x, y).dataSync()[0]),
  'the API, recordTimings true': (f, h, x, y) => tl.tidy(() => f(x, y).dataSync()[0]),
  'the bare values crossing': (f, h, x, y) => bareValues(h, x, y),
  "the function's dataSync": (f, h, x, y) => f.dataSync(x, y)[0],
  "the function's arraySync": (f, h, x, y) => f.arraySync(x, y),
};
const names = ['core (timeCalls)', ...Object.keys(levels)];

/**
 * Trains a fresh model for `count` steps at one level on the examples `on` (xs, ys, and the argument lists of
 * timeCalls): the median of its step times (µs) after the first `skip` steps, and (from JS) its losses.
 */
function run(name, count, skip = 50, on = { xs, ys, examples }) {
  const { xs, ys, examples } = on;
  const model = raggedModel(tl, kernels);
  const f = tl.function(raggedStep(tl, model, tl.train.adam(0.01)),
                        { name: 'train_step', inputSignature: signature, recordTimings: name.endsWith('recordTimings true') });
  let times, losses = null;
  if (name === 'core (timeCalls)') {
    times = tl.experiments.timeCalls(f, examples, count);
  } else {
    const level = levels[name], handle = functionHandle(f);
    times = new Float64Array(count);
    losses = new Float64Array(count);
    for (let i = 0; i < count; ++i) {
      const k = i % examples.length;
      const start = performance.now();
      losses[i] = level(f, handle, xs[k], ys[k]);
      times[i] = (performance.now() - start) * 1000;
    }
  }
  model.dispose();
  f.dispose();
  return { us: median(times.subarray(skip)), losses };
}

for (const name of names) run(name, warmup);  // V8 tiers up; every level's code is compiled before timing
const us = Object.fromEntries(names.map((n) => [n, []]));
const lossAt100 = {};
for (let round = 0; round < rounds; ++round)
  for (const name of names.map((_, i) => names[(i + round) % names.length])) {  // each round starts one level on
    const { us: stepUs, losses } = run(name, steps);
    us[name].push(stepUs);
    if (round === 0 && losses && losses.length > 100) lossAt100[name] = losses[100];
  }

const ratios = (name) => us[name].map((v, i) => v / us['core (timeCalls)'][i]);
const range = (v) => (v.length > 1 ? `${Math.min(...v).toFixed(3)}-${Math.max(...v).toFixed(3)}` : '');
console.log(`a tl.function call from JavaScript taken apart, ragged train step (signature), Node ${process.versions.node}: ` +
            `${rounds} rounds of ${steps} steps per level after ${warmup} warm-up steps; steady-state medians\n`);
console.log(`${'level'.padEnd(30)} ${'us/step'.padStart(8)} ${'x core'.padStart(7)} ${'rounds'.padStart(13)} ${'+ over the level it adds to'.padStart(28)}`);
// What each level adds to: the one above it, but for the values crossing (a second path from the core) and the two
// calls made of it.
const base = { 'the bare values crossing': 'core (timeCalls)', "the function's dataSync": 'the bare values crossing',
               "the function's arraySync": 'the bare values crossing' };
names.forEach((name, i) => {
  const under = base[name] ?? names[i - 1], r = ratios(name);
  const added = under === undefined ? '' : `${((median(r) - median(ratios(under))) * 100).toFixed(1)}%`;
  console.log(`${name.padEnd(30)} ${median(us[name]).toFixed(2).padStart(8)} ${median(r).toFixed(3).padStart(7)} ${range(r).padStart(13)} ${added.padStart(28)}`);
});
const values = Object.values(lossAt100);
console.log(`\nthe loss at step 100, every JavaScript level: ${values.every((v) => v === values[0]) ? 'equal' : 'DIFFERENT'} ` +
            `(${values[0]?.toFixed(6)})`);
tl.dispose([xs, ys]);

// Paired blocks: the runner's step (C++-driven, as ragged_js_bench's figure), the core's loop, the bare values
// crossing, the function's arraySync, the bare crossing and the API's Tensor-returning call, in short blocks side by
// side (see the header).
const pairs = count('pairs', 30, 0), pairSteps = count('pair-steps', 2000, 2);
if (pairs > 0) {
  const pairExamples = Math.min(1000, Math.floor(pairSteps / 2));  // the figure: the steps after the first pass
  const pairConfig = { steps: pairSteps, examples: pairExamples, seed: 42 };
  const pairData = tl.experiments.raggedData(pairConfig);
  const fresh = (name) => {
    const on = raggedExamples(tl, pairData);
    on.examples = on.xs.map((x, k) => [x, on.ys[k]]);
    try {
      return run(name, pairSteps, pairExamples, on).us;
    } finally {
      tl.dispose([on.xs, on.ys]);
    }
  };
  const blocks = {
    'the runner': () => median(tl.experiments.runRagged({ ...pairConfig, warmupSteps: 0, modes: ['signature'] })
      .modes[0].step_us.slice(pairExamples)),
    'core (timeCalls)': () => fresh('core (timeCalls)'),
    'the bare values crossing': () => fresh('the bare values crossing'),
    "the function's arraySync": () => fresh("the function's arraySync"),
    'the bare crossing': () => fresh('the bare crossing'),
    'the API': () => fresh('the API'),
  };
  const paired = runPairs(blocks, pairs);
  const blockRatio = (a, b) => pairRatio(paired[a], paired[b]);
  const coreUs = median(paired['core (timeCalls)']);
  console.log(`\npaired blocks: ${pairs} pairs of ${pairSteps} steps, each from a fresh start, timed after the first ` +
              `pass (the core's loop ${coreUs.toFixed(2)} us a step, median of the pairs). The core's loop / the ` +
              `runner's step ${blockRatio('core (timeCalls)', 'the runner')}; the bare values crossing / the core's ` +
              `loop ${blockRatio('the bare values crossing', 'core (timeCalls)')}, / the ` +
              `runner's step ${blockRatio('the bare values crossing', 'the runner')}; the function's arraySync / the ` +
              `runner's step ${blockRatio("the function's arraySync", 'the runner')}; the API / the runner's step ` +
              `${blockRatio('the API', 'the runner')}`);

  // What a user pays per call from JavaScript, against the target: the call's time over the core's own call of the
  // same function (µs, pair by pair), and over the one crossing any JavaScript caller makes (a ratio, pair by pair).
  const quartiles = ([first, middle, third], digits, unit) =>
    `${middle.toFixed(digits)}${unit} (quartiles ${first.toFixed(digits)}-${third.toFixed(digits)})`;
  const verdict = (value, target) => (value <= target ? 'met' : 'missed');
  const floor = pairDifferences(paired['the bare values crossing'], paired['core (timeCalls)']);
  console.log(`\nwhat a user pays per call from JavaScript, ${pairs} paired blocks; target: JS over C++ <= ` +
              `${TARGET_US} us per call and <= ${TARGET_RATIO}x the bare crossing (the bare values crossing itself: ` +
              `${quartiles(floor, 3, ' us')} over the core's loop)`);
  const calls = { 'f.arraySync(x, y)': "the function's arraySync", 'tl.tidy(() => f(x, y).dataSync()[0])': 'the API' };
  const verdicts = [];
  for (const [call, name] of Object.entries(calls)) {
    const over = pairDifferences(paired[name], paired['core (timeCalls)']);
    const ratio = pairRatios(paired[name], paired['the bare values crossing']);
    verdicts.push(verdict(over[1], TARGET_US), verdict(ratio[1], TARGET_RATIO));
    console.log(`  ${call.padEnd(38)} ${'JS over C++'.padEnd(20)} ${quartiles(over, 3, ' us').padEnd(32)} ` +
                `<= ${TARGET_US} us: ${verdicts.at(-2)}`);
    console.log(`  ${''.padEnd(38)} ${'/ the bare crossing'.padEnd(20)} ${quartiles(ratio, 3, 'x').padEnd(32)} ` +
                `<= ${TARGET_RATIO}x: ${verdicts.at(-1)}`);
  }
  console.log(`the Tensor-returning call over its own crossing (handles staged by hand, functionCallStaged, the loss ` +
              `read from the heap, tensorDispose): ${blockRatio('the API', 'the bare crossing')}`);
  console.log(`the target, both calls: ${verdicts.every((v) => v === 'met') ? 'met' : 'missed'}`);
}
