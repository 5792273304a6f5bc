// Soak: the ragged experiment for many steps in the WASM core under Node, one mode at a time, watching memory.
// At 1%, 50% and 100% of each mode's steps (from runRagged's progress reports) it samples the heap's bytes in use
// (malloc's count, tl.memory().heapBytesInUse), the linear memory's size, the live tensor and variable handles of
// the JS API and the traces so far; with the runner's own heap fields (bytes in use after step 1000 and after the
// last) it checks the mode reaches a steady state: bytes in use at 50% == at the end, to the byte, runner heap at
// its check step == at the end, live tensors unchanged, the linear memory not grown by the run's end, the expected
// trace count.
// Prints a table; exits 1 when a check fails.
//   node bench/js/soak.mjs [--steps 200000] [--modes eager,function,...] [--json soak.json]
// `loop` runs the whole loop as one graph call, so it reports once, at the end: its 1% / 50% columns are empty
// and its midpoint check is the runner's (heap after step 1000 vs after the last).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const MODES = ['eager', 'function', 'signature', 'relaxed', 'loop', 'bucketed'];
export const EXPECTED_TRACES = { eager: 0, function: 10, signature: 1, relaxed: 2, loop: 1, bucketed: 4 };

/** Runs `steps` steps of one mode; returns its samples, the runner's figures and the failed checks. */
export function soakMode(tl, mode, steps, seed = 42) {
  const sample = (at, step, traces) => {
    const m = tl.memory();
    return { at, step, heapBytes: m.heapBytesInUse, memoryBytes: m.wasmHeapBytes, tensors: m.numTensors,
             variables: m.numVariables, traces };
  };
  const targets = [['1%', Math.max(1, Math.round(steps / 100))], ['50%', Math.round(steps / 2)], ['100%', steps]];
  const samples = [sample('start', 0, 0)];
  let traces = 0;
  const progressEvery = Math.max(1, Math.floor(steps / 100));
  const started = performance.now();
  const result = tl.experiments.runRagged({ steps, modes: [mode], seed }, {
    progressEvery,
    onProgress: (report) => {
      traces += report.tracedSteps.length;
      // A target is sampled by the first report at or after it, unless that report is a whole window past it
      // (loop's one report at the end is not its 1% or 50%).
      while (targets.length && report.stepsDone >= targets[0][1]) {
        const [at, step] = targets.shift();
        if (report.stepsDone - step < progressEvery || step === steps) samples.push(sample(at, report.stepsDone, traces));
      }
    },
  });
  const wallMs = performance.now() - started;
  const run = result.modes[0];
  const after = sample('after', steps, run.trace_count);
  const byName = Object.fromEntries(samples.map((s) => [s.at, s]));
  const failures = [];
  const fail = (what) => failures.push(`${mode}: ${what}`);
  if (run.steps !== steps) fail(`ran ${run.steps} of ${steps} steps`);
  if (run.trace_count !== EXPECTED_TRACES[mode]) fail(`${run.trace_count} traces, expected ${EXPECTED_TRACES[mode]}`);
  if (byName['50%'] && byName['50%'].heapBytes !== byName['100%'].heapBytes)
    fail(`bytes in use went from ${byName['50%'].heapBytes} at 50% to ${byName['100%'].heapBytes} at the end`);
  if (after.memoryBytes !== byName['100%'].memoryBytes)
    fail(`linear memory grew from ${byName['100%'].memoryBytes} bytes at the run's end to ${after.memoryBytes} after it`);
  if (run.heap.bytes_at_check !== run.heap.bytes_at_end)
    fail(`runner heap (bytes in use) went from ${run.heap.bytes_at_check} bytes after step ${run.heap.check_step} to ${run.heap.bytes_at_end}`);
  for (const s of [...samples.slice(1), after])
    if (s.tensors !== samples[0].tensors) fail(`${s.tensors} live tensors at ${s.at}, ${samples[0].tensors} at the start`);
  return {
    mode, steps: run.steps, samples, after, runnerHeap: run.heap, traceCount: run.trace_count,
    concreteFunctions: run.concrete_functions.length, steadyMedianUs: run.steady_median_us, medianUs: run.median_us,
    p99Us: run.p99_us, totalMs: run.total_ms, wallMs, failures,
  };
}

/** Soaks every mode in turn, one runRagged call each. */
export function soak(tl, { steps, modes = MODES, seed = 42, onMode } = {}) {
  const results = [];
  for (const mode of modes) {
    results.push(soakMode(tl, mode, steps, seed));
    onMode?.(results.at(-1));
  }
  return results;
}

const mib = (bytes) => (bytes === undefined ? '—' : (bytes / 2 ** 20).toFixed(2));

/** The table: one row per mode, heap in MiB. */
export function table(results) {
  const header = ['mode', 'steps', 'heap start', '1%', '50%', 'end', 'runner @check', 'runner end', 'tensors s/1/50/end',
                  'vars', 'traces', 'concrete', 'steady µs', 'p99 µs', 'total s', 'ok'];
  const rows = results.map((r) => {
    const at = Object.fromEntries(r.samples.map((s) => [s.at, s]));
    const tensors = ['start', '1%', '50%', '100%'].map((k) => at[k]?.tensors ?? '—').join('/');
    return [r.mode, r.steps, mib(at.start.heapBytes), mib(at['1%']?.heapBytes), mib(at['50%']?.heapBytes),
            mib(at['100%']?.heapBytes), `${mib(r.runnerHeap.bytes_at_check)} @${r.runnerHeap.check_step}`,
            mib(r.runnerHeap.bytes_at_end), tensors, at['100%']?.variables ?? '—', r.traceCount, r.concreteFunctions,
            r.steadyMedianUs.toFixed(1), r.p99Us.toFixed(1), (r.totalMs / 1000).toFixed(1),
            r.failures.length ? 'NO' : 'yes'].map(String);
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

async function main() {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
  const steps = Number(args.steps ?? 200000);
  const modes = args.modes ? args.modes.split(',') : MODES;
  const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
  const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
  const tl = await loadTracelab();
  console.log(`soak: ${steps} steps × ${modes.join(', ')} (WASM core from ${dist}, node ${process.version}); heap: ` +
              'MiB in use (malloc\'s count)');
  const started = performance.now();
  const results = soak(tl, {
    steps, modes,
    onMode: (r) => console.log(`  ${r.mode}: ${(r.wallMs / 1000).toFixed(1)} s, in use ${mib(r.samples[0].heapBytes)} → ${mib(r.after.heapBytes)} MiB, ` +
                               `memory ${mib(r.after.memoryBytes)} MiB, ` +
                               `${r.traceCount} traces, steady ${r.steadyMedianUs.toFixed(1)} µs${r.failures.length ? ', FAILED' : ''}`),
  });
  const totalS = (performance.now() - started) / 1000;
  console.log(`\n${table(results)}\n\ntotal ${totalS.toFixed(1)} s`);
  const failures = results.flatMap((r) => r.failures);
  for (const f of failures) console.log(`FAIL ${f}`);
  if (!failures.length) console.log('stable: bytes in use at 50% == at the end, runner heap at its check == at the end, live tensors unchanged, memory not grown after the run, trace counts as expected');
  if (args.json) {
    writeFileSync(args.json, JSON.stringify({ format: 'tracelab.soak/1', steps, node: process.version, totalS, ok: !failures.length, failures, modes: results }, null, 1));
    console.log(`wrote ${args.json}`);
  }
  process.exitCode = failures.length ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
