// Two builds of the JS package in one Node process, timed block by block in alternation: the ragged train step
// driven from JavaScript (as ragged_js_bench.mjs writes it) and from C++ (the runner), in each build.
//
//   node bench/js/compare_builds.mjs --a /tmp/before/dist --b build/wasm/dist [--mode eager|function|signature]
//                                    [--blocks 8] [--steps N]
//
// A facade or bridge change moves the JS-driven step by a few percent, less than two runs of the same build
// minutes apart differ on this machine; alternating blocks of the two builds in one process puts both under the
// same machine state. Each build has its own module instance (its own WebAssembly memory) and its own model. Every
// block times --steps steps (default 10000 eager, 30000 traced) after three untimed blocks per build, and runs the
// C++ runner once per build for the same mode. Printed: the medians over the blocks with their range, B/A, the
// median and quartiles of the blocks' own B/A ratios (each B block beside its A block: what a machine whose speed
// moves between blocks still compares), and each build's JS/C++ ratio.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { raggedExamples, raggedModel, raggedSignature, raggedStep } from './ragged_model.mjs';
import { median, quartiles } from './stats.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
if (!args.a || !args.b) {
  console.error('usage: node bench/js/compare_builds.mjs --a DIST --b DIST [--mode eager|function|signature] [--blocks N] [--steps N]');
  process.exit(2);
}
const mode = args.mode ?? 'eager';
if (!['eager', 'function', 'signature'].includes(mode)) {
  console.error(`--mode is '${mode}'; expected eager, function or signature`);
  process.exit(2);
}
const blocks = Number(args.blocks ?? 8);
const steps = Number(args.steps ?? (mode === 'eager' ? 10000 : 30000));
const config = { steps: 1000, examples: 1000, seed: 42 };

/** One build: its model and examples, a JS block runner and a C++ runner. */
async function load(dist) {
  const { loadTracelab } = await import(pathToFileURL(resolve(dist, 'tracelab.mjs')).href);
  const tl = await loadTracelab({ autograph: false });
  const data = tl.experiments.raggedData(config);
  const kernels = tl.experiments.raggedKernels(config);
  const body = raggedStep(tl, raggedModel(tl, kernels), tl.train.adam(0.01));
  const step = mode === 'eager' ? body
    : tl.function(body, { maxRetracingWarnings: 0,
                          inputSignature: mode === 'signature' ? raggedSignature(tl) : undefined });
  const { xs, ys } = raggedExamples(tl, data);
  return {
    js(count) {
      const times = new Float64Array(count);
      for (let i = 0; i < count; ++i) {
        const k = i % xs.length;
        const start = performance.now();
        tl.tidy(() => step(xs[k], ys[k]).dataSync()[0]);
        times[i] = (performance.now() - start) * 1000;
      }
      return median(times.subarray(50));
    },
    cpp: () => tl.experiments.runRagged({ ...config, steps: 10000, warmupSteps: 0, modes: [mode] }).modes[0].steady_median_us,
  };
}

const a = await load(args.a), b = await load(args.b);
for (let i = 0; i < 3; ++i) { a.js(steps); b.js(steps); }
const us = { a: [], b: [], aCpp: [], bCpp: [] };
for (let block = 0; block < blocks; ++block) {
  // Alternating which build goes first, so that neither always runs right after the other's C++ run.
  if (block % 2 === 0) { us.a.push(a.js(steps)); us.b.push(b.js(steps)); } else { us.b.push(b.js(steps)); us.a.push(a.js(steps)); }
  us.aCpp.push(a.cpp());
  us.bCpp.push(b.cpp());
}
const show = (v) => `${median(v).toFixed(2)} (${Math.min(...v).toFixed(2)}-${Math.max(...v).toFixed(2)})`;
console.log(`${mode}: ${blocks} alternating blocks of ${steps} steps per build, steady medians in us/step\n`);
console.log(`           JS-driven           C++-driven          JS / C++`);
console.log(`A ${args.a}\n           ${show(us.a).padEnd(20)}${show(us.aCpp).padEnd(20)}${(median(us.a) / median(us.aCpp)).toFixed(3)}`);
console.log(`B ${args.b}\n           ${show(us.b).padEnd(20)}${show(us.bCpp).padEnd(20)}${(median(us.b) / median(us.bCpp)).toFixed(3)}`);
const [first, middle, third] = quartiles(us.b.map((b, i) => b / us.a[i])).map((q) => q.toFixed(3));
console.log(`\nJS-driven B / A: ${(median(us.b) / median(us.a)).toFixed(3)}; block by block (each block's B beside ` +
            `its A): median ${middle}, quartiles ${first}-${third}`);
