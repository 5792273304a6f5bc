// A short soak (bench/js/soak.mjs runs the long one): 3000 steps of each of the six ragged modes in the WASM core,
// one runRagged call per mode. Between the midpoint and the end the WASM heap must not grow (the progress
// samples and the runner's own heap fields: malloc's bytes in use, to the byte), the live tensor handles must not
// change, and each mode traces as often as the CLI says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { EXPECTED_TRACES, MODES, soakMode } from '../../bench/js/soak.mjs';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();
const STEPS = 3000;

for (const mode of MODES) {
  test(`soak: ${STEPS} steps of ${mode} leave the heap and the live tensors as they were at the midpoint`, () => {
    const r = soakMode(tl, mode, STEPS);
    const at = Object.fromEntries(r.samples.map((s) => [s.at, s]));
    assert.equal(r.steps, STEPS);
    assert.equal(r.traceCount, EXPECTED_TRACES[mode]);
    assert.equal(r.runnerHeap.check_step, 1000);
    assert.ok(r.runnerHeap.bytes_at_check > 0);
    assert.equal(r.runnerHeap.bytes_at_end, r.runnerHeap.bytes_at_check);
    if (mode !== 'loop') {  // loop reports once, at the end
      assert.equal(at['50%'].step, STEPS / 2);
      assert.equal(at['100%'].heapBytes, at['50%'].heapBytes);
      assert.equal(at['100%'].tensors, at['50%'].tensors);
    }
    assert.equal(at['100%'].step, STEPS);
    assert.equal(r.after.tensors, at.start.tensors);
    assert.equal(r.after.memoryBytes, at['100%'].memoryBytes);
    assert.deepEqual(r.failures, []);
  });
}
