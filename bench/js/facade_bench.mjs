// A tl.function call from JavaScript taken apart around the ragged train step: the same step called by the core
// (tl.experiments.timeCalls, each call timed in C++ as the runner times its steps), then from JavaScript with the
// JavaScript API's layers added one at a time, each call timed in JavaScript as ragged_js_bench times its steps.
// A benchmark that prints figures, not a test.
//   node bench/js/facade_bench.mjs [--steps 20000] [--rounds 5] [--warmup 2000]
// The levels, each a fresh model and tl.function (default options) trained from the same initial weights:
//   the bare crossing: the argument handles written to the staging area by hand, core.functionCallStaged, the loss
//     read from the heap at the address the results name, core.tensorDispose: the bridge and nothing else;
//   + tidy: the same inside tl.tidy (an empty scope);
//   + the result as a Tensor: engine.wrapResult makes the loss a Tensor in the scope, which disposes it;
//   + dataSync: the loss read with dataSync()[0];
//   the API: tl.tidy(() => f(x, y).dataSync()[0]), through the tl.function's own call (its argument checks);
//   the API with recordTimings true: the same, each call timed into its record (two clock reads from WebAssembly);
//   the function's dataSync: f.dataSync(x, y)[0], the API's call that returns the results' values (no result
//     handle, no Tensor, no tidy).
// The levels run one after the other in every round, each round starting one level further on (after a warm-up
// round of --warmup steps each, untimed); a level's ratio to the core's is taken within a round, and the figures
// printed are medians over the rounds with the rounds' range. The engine's internals come from
// tl[Symbol.for('tracelab.internals')], which is not API.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { raggedExamples, raggedModel, raggedSignature, raggedStep } from './ragged_model.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).reduce(
  (pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
const steps = Number(args.steps ?? 20000);
const rounds = Number(args.rounds ?? 5);
const warmup = Number(args.warmup ?? 2000);
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
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

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
const wrapped = (handle, x, y) => engine.wrapResult(core.functionCallStaged(handle, engine.stage([x, y])));

// Per level: (f, handle, x, y) => the loss, as a number.
const levels = {
  'the bare crossing': (f, h, x, y) => bare(h, x, y),
  '+ tidy': (f, h, x, y) => tl.tidy(() => bare(h, x, y)),
  '+ the result as a Tensor': (f, h, x, y) => tl.tidy(() => core.HEAPF32[wrapped(h, x, y).dataAddress / 4]),
  '+ dataSync': (f, h, x, y) => tl.tidy(() => wrapped(h, x, y).dataSync()[0]),
  'the API': (f, h, x, y) => tl.tidy(() => f(x, y).dataSync()[0]),
  'the API, recordTimings true': (f, h, x, y) => tl.tidy(() => f(x, y).dataSync()[0]),
  "the function's dataSync": (f, h, x, y) => f.dataSync(x, y)[0],
};
const names = ['core (timeCalls)', ...Object.keys(levels)];

/** Trains a fresh model for `count` steps at one level: per step its time in µs and (from JS) its loss. */
function run(name, count) {
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
  return { us: median(times.subarray(50)), losses };
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
console.log(`${'level'.padEnd(30)} ${'us/step'.padStart(8)} ${'x core'.padStart(7)} ${'rounds'.padStart(13)} ${'+ over the level above'.padStart(23)}`);
let previous = null;
for (const name of names) {
  const r = ratios(name), added = previous === null ? '' : `${((median(r) - median(ratios(previous))) * 100).toFixed(1)}%`;
  console.log(`${name.padEnd(30)} ${median(us[name]).toFixed(2).padStart(8)} ${median(r).toFixed(3).padStart(7)} ${range(r).padStart(13)} ${added.padStart(23)}`);
  previous = name;
}
const values = Object.values(lossAt100);
console.log(`\nthe loss at step 100, every JavaScript level: ${values.every((v) => v === values[0]) ? 'equal' : 'DIFFERENT'} ` +
            `(${values[0]?.toFixed(6)})`);
tl.dispose([xs, ys]);
