// What JavaScript run between two calls of a tl.function does to the second call: the ragged train step (the
// signature function, configured as the C++ runner configures its own) called by the core one call at a time
// (tl.experiments.timeCalls with steps = 1, so each call is timed inside C++), and between two calls, outside
// their timing, one kind of work. A benchmark that prints figures, not a test.
//   node bench/js/between_calls_bench.mjs [--calls 10000] [--rounds 3]
// The kinds: nothing; reading a buffer (data the processor's caches must hold); one small function run 400 times
// (time spent in JavaScript, the same code over and over); 25, 100 or 400 distinct small functions run once each
// (code: what the instruction caches and branch predictors must hold); 2 KB of short-lived objects; and the
// JavaScript API's own path around a 1-op tl.function call (tidy, the call, dataSync). Printed per kind: the
// C++-timed call's median per round, the median over the rounds against "nothing", and the between-work's own time.
// Last, what the JavaScript API and the bridge crossing add to one call, as a share of the ragged step.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { raggedExamples, raggedModel, raggedSignature, raggedStep } from './ragged_model.mjs';
import { median } from './stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).reduce(
  (pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
const calls = Number(args.calls ?? 10000);
const rounds = Number(args.rounds ?? 3);
const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

const config = { steps: 1000, examples: 1000, seed: 42 };
const data = tl.experiments.raggedData(config);
const kernels = tl.experiments.raggedKernels(config);

// The model and step of ragged_js_bench.mjs.
const model = raggedModel(tl, kernels);
const signature = raggedSignature(tl);
const step = tl.function(raggedStep(tl, model, tl.train.adam(0.01)),
                         { name: 'train_step', inputSignature: signature, callHistory: 1, recordTimings: false });
const { xs, ys } = raggedExamples(tl, data);
const examples = xs.map((x, k) => [[x, ys[k]]]);  // one argument list per timeCalls call

// The kinds of work between calls. Each returns a number, summed into `sink`, so that none is optimized away.
const buffer = new Float64Array(32768);  // 256 KB
const read = (bytes) => () => {
  let sum = 0;
  for (let i = 0; i < bytes / 8; i += 8) sum += buffer[i];  // one read per 64-byte line
  return sum;
};
// 400 functions of the same shape, each compiled on its own (new Function): distinct machine code.
const functions = Array.from({ length: 400 }, (_, i) => new Function('a', 'b',
  `let s = a * ${i + 1} + b; for (let j = 0; j < 3; ++j) s = (s * ${(i % 7) + 2} + j) % ${1000 + i}; return s;`));
const distinct = (count) => () => {
  let sum = 0;
  for (let i = 0; i < count; ++i) sum = functions[i](i, sum);
  return sum;
};
const oneOp = tl.function((a) => tl.add(a, a), { callHistory: 1, recordTimings: false });
const small = tl.keep(tl.tensor([1, 2, 3, 4]));
const between = {
  'nothing': () => 0,
  'read 64 KB': read(65536),
  'read 256 KB': read(262144),
  'one function x400': () => {
    let sum = 0;
    for (let i = 0; i < 400; ++i) sum = functions[0](i, sum);
    return sum;
  },
  '25 functions': distinct(25),
  '100 functions': distinct(100),
  '400 functions': distinct(400),
  'allocate 2 KB': () => {
    let list = null;
    for (let i = 0; i < 40; ++i) list = { value: i, next: list, a: 1, b: 2 };  // 40 objects of 56 bytes
    return list.value;
  },
  'API around a 1-op call': () => tl.tidy(() => oneOp(small).dataSync()[0]),
};

let sink = 0;
/** The median C++-timed call over `count` calls with `work` run between each two. */
function run(work, count) {
  const us = new Float64Array(count);
  for (let i = 0; i < count; ++i) {
    us[i] = tl.experiments.timeCalls(step, examples[i % examples.length], 1)[0];
    sink += work();
  }
  return median(us);
}
/** The between-work's own time, µs per run. */
function own(work) {
  const count = 2000, start = performance.now();
  for (let i = 0; i < count; ++i) sink += work();
  return (performance.now() - start) * 1000 / count;
}

for (const work of Object.values(between)) run(work, 2000);  // warm-up: V8's optimizing tier for everything
const results = Object.fromEntries(Object.keys(between).map((name) => [name, []]));
for (let round = 0; round < rounds; ++round)
  for (const [name, work] of Object.entries(between)) results[name].push(run(work, calls));

console.log('the ragged step (signature, configured as the runner) called by the core one call at a time, ' +
            `Node ${process.versions.node}: ${rounds} rounds of ${calls} calls per kind; the call's C++-timed median ` +
            'per round\n');
console.log(`${'between two calls'.padEnd(24)} ${'us per call, by round'.padEnd(24)} ${'x nothing'.padStart(9)} ` +
            `${'its own us'.padStart(11)}`);
const base = median(results.nothing);
for (const [name, us] of Object.entries(results))
  console.log(`${name.padEnd(24)} ${us.map((u) => u.toFixed(2)).join(' ').padEnd(24)} ` +
              `${(median(us) / base).toFixed(3).padStart(9)} ${own(between[name]).toFixed(2).padStart(11)}`);

// What the JavaScript API adds to a call: the 1-op function called through it (tl.tidy, the call, dataSync: the
// path ragged_js_bench's step takes, each call timed in JavaScript as that benchmark times its steps) against the same
// function called by the core (timeCalls, each call timed in C++ as the runner times its steps), medians as there.
// Over the ragged step's C++-timed call, the difference is what a JS-driven step of that size pays over a C++-driven
// one before any effect on the step's own work.
const apiUs = [], coreUs = [];
const smallList = [[small]], times = new Float64Array(calls);
for (let round = 0; round < rounds + 1; ++round) {
  for (let i = 0; i < calls; ++i) {
    const start = performance.now();
    sink += tl.tidy(() => oneOp(small).dataSync()[0]);
    times[i] = (performance.now() - start) * 1000;
  }
  const core = median(tl.experiments.timeCalls(oneOp, smallList, calls));
  if (round > 0) {  // round 0 warms up
    apiUs.push(median(times));
    coreUs.push(core);
  }
}
const added = median(apiUs) - median(coreUs), overRounds = rounds === 1 ? 'one round' : `median of ${rounds} rounds`;
console.log(`\nthe 1-op call through the JavaScript API ${median(apiUs).toFixed(3)} us, by the core ` +
            `${median(coreUs).toFixed(3)} us (medians of ${calls} calls, ${overRounds}): the API and ` +
            `the crossing add ${added.toFixed(3)} us a call, ${(1 + added / base).toFixed(3)}x the ragged step's ` +
            `${base.toFixed(2)} us before any effect on the step's own work`);
if (!Number.isFinite(sink)) console.log(sink);  // keeps sink observable
tl.dispose([small, ...examples.flat(2)]);
model.dispose();
step.dispose();
oneOp.dispose();
