// Property-based fuzzing of the JS API (the properties and generators are in fuzz/api_fuzz.mjs). The fuzzer runs in
// a worker thread so that this thread can stop a case that hangs: a case running longer than the per-case limit
// fails the test, naming the property, the seed and the case's index. The run is seeded, so it is the same every
// time: TRACELAB_FUZZ_SEED (default 24), TRACELAB_FUZZ_RUNS cases per property (default 2000),
// TRACELAB_FUZZ_SECONDS to run for a time instead (scripts/fuzz.sh js 120), TRACELAB_FUZZ_PATH to replay one
// counterexample (fast-check's path from a failure report), TRACELAB_FUZZ_PROPERTY to run one property,
// TRACELAB_FUZZ_STEPS for longer call sequences (default 8), TRACELAB_FUZZ_PRINT=1 to print the case at a path that
// is one index (a hung case's), not run it (a failure's report prints its shrunk counterexample itself);
// TRACELAB_FUZZ_TRACE_FROM=N writes every sequence from case N on, with its steps and memory, to stderr at once, and
// any failing sequence as it fails (for a run whose shrinking hangs after the module was damaged).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const env = (name) => (process.env[name] === undefined || process.env[name] === '' ? undefined : process.env[name]);
const seed = Number(env('TRACELAB_FUZZ_SEED') ?? 24);
const seconds = env('TRACELAB_FUZZ_SECONDS') === undefined ? undefined : Number(env('TRACELAB_FUZZ_SECONDS'));
const runs = seconds === undefined ? Number(env('TRACELAB_FUZZ_RUNS') ?? 2000) : undefined;
const CASE_LIMIT_MS = 20000;  // one case (a call sequence of at most 8 steps, or one function) takes milliseconds

test(`fuzz: the JS API under fast-check (seed ${seed}, ${seconds ? `${seconds} s` : `${runs} cases per property`})`, { timeout: ((seconds ?? 60) + 300) * 1000 }, async () => {
  const worker = new Worker(new URL('./fuzz/api_fuzz.mjs', import.meta.url), {
    workerData: { dist, seed, runs, seconds, path: env('TRACELAB_FUZZ_PATH'), only: env('TRACELAB_FUZZ_PROPERTY'),
                  steps: env('TRACELAB_FUZZ_STEPS') === undefined ? undefined : Number(env('TRACELAB_FUZZ_STEPS')) },
  });
  const started = performance.now();
  let current = null, lastBeat = performance.now();
  const done = [];
  const outcome = await new Promise((resolve) => {
    const watchdog = setInterval(() => {
      if (performance.now() - lastBeat < CASE_LIMIT_MS) return;
      clearInterval(watchdog);
      worker.terminate();
      resolve({ hung: current });
    }, 500);
    worker.on('message', (message) => {
      lastBeat = performance.now();
      if (message.type === 'case') current = message;
      else if (message.type === 'done') done.push(message);
      else if (message.type === 'fail' || message.type === 'end') { clearInterval(watchdog); resolve(message); }
    });
    worker.on('error', (error) => { clearInterval(watchdog); resolve({ type: 'error', error }); });
    worker.on('exit', (code) => { clearInterval(watchdog); resolve({ type: 'exit', code }); });
  });
  await worker.terminate();
  const total = done.reduce((n, d) => n + d.runs, 0);
  const elapsed = (performance.now() - started) / 1000;
  for (const d of done)
    console.log(`fuzz ${d.property}: ${d.runs} cases in ${(d.ms / 1000).toFixed(1)} s (${(d.runs / (d.ms / 1000)).toFixed(1)} cases/s), ` +
                `${d.calls} API calls, ${d.threw} of them threw a named error; WASM heap ${d.heapMiB} MiB after it`);
  console.log(`fuzz: ${total} cases in ${elapsed.toFixed(1)} s with the module load (seed ${seed})`);
  if (outcome.hung)
    assert.fail(`fuzz ${outcome.hung.property}: case ${outcome.hung.index} ran longer than ${CASE_LIMIT_MS / 1000} s (seed ${seed}; ` +
                `replay: TRACELAB_FUZZ_SEED=${seed} TRACELAB_FUZZ_PROPERTY=${outcome.hung.property} TRACELAB_FUZZ_PATH=${outcome.hung.index})`);
  if (outcome.type === 'fail')
    assert.fail(`fuzz ${outcome.property}: ${outcome.report}\nreplay: TRACELAB_FUZZ_SEED=${seed} ` +
                `TRACELAB_FUZZ_PROPERTY=${outcome.property} TRACELAB_FUZZ_PATH=${outcome.path}`);
  if (outcome.type === 'error') throw outcome.error;
  assert.equal(outcome.type, 'end', `the fuzz worker exited early (code ${outcome.code})`);
  assert.ok(total > 0);
});

// The leaks the fuzzer found (its property: tl.memory() is back at its baseline once a sequence's tensors are
// disposed), each kept as a named case: a tensor the API made from a plain value and never disposed.
test('fuzz regression: tensors made from plain values are disposed (fromTensorSlices, losses, metrics, layers, gather, oneHot, a failed op)', async () => {
  const { pathToFileURL } = await import('node:url');
  const { join } = await import('node:path');
  const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
  const tl = await loadTracelab({ autograph: false });
  const x = tl.tensor([[1, 2], [3, 4]]);
  const metric = tl.metrics.mean();
  const layer = tl.layers.dense({ units: 1, seed: 1 });
  const calls = {
    'tl.data.fromTensorSlices([[1, 2, 3]])': () => tl.data.fromTensorSlices([[1, 2, 3]]).dispose(),
    'tl.losses.meanSquaredError([1, 2], [1, 3])': () => tl.losses.meanSquaredError([1, 2], [1, 3]).dispose(),
    'metric.updateState([1, 2])': () => metric.updateState([1, 2]),
    'layer.apply([[1, 2]])': () => layer.apply([[1, 2]]).dispose(),
    'tl.gather(x, [0, 1])': () => tl.gather(x, [0, 1]).dispose(),
    'tl.oneHot([0, 1], 2)': () => tl.oneHot([0, 1], 2).dispose(),
    'tl.where(0, undefined, undefined) (fails on input 1)': () => assert.throws(() => tl.where(0, undefined, undefined), tl.InvalidArgument),
    'tl.oneHot([], undefined) (fails on depth)': () => assert.throws(() => tl.oneHot([], undefined), tl.InvalidArgument),
  };
  for (const [name, call] of Object.entries(calls)) {
    const before = tl.memory().numTensors;
    call();
    assert.equal(tl.memory().numTensors, before, `${name} leaked a tensor`);
  }
  metric.dispose();
  layer.dispose();
  x.dispose();
});
