// The TF.js programs of examples/tfjs run unchanged on Tracelab (its 'tracelab/tfjs' entry) and on TensorFlow.js' cpu
// backend, in this process, with the same steps: on each, the loss must fall (the last below the first / FALLS_BY);
// Tracelab's loss must agree with TF.js' at every step within LOSS_TOLERANCE (float32 sums in another order: the
// measured relative differences are below 3e-5 at any step, 1e-6 at the last; the last alone would not do, as a
// converged regression reaches the same minimum with another learning rate); and a program, which disposes of
// everything it makes, must leave the tensor count where it found it. On Tracelab each also runs with its step under
// tf.function (the programs' `traced` option): one trace, the eager losses. Needs TensorFlow.js (bench/js, installed by
// scripts/setup.sh test): without it the tests fail when TRACELAB_REQUIRE_TFJS or CI is set, and are skipped otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { installed, missing, skip, tf as tfjs } from './tfjs_oracle.mjs';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;

const FALLS_BY = 5;             // last loss < first loss / FALLS_BY, on both libraries
const LOSS_TOLERANCE = 1e-4;    // |tracelab - tfjs| <= LOSS_TOLERANCE · |tfjs|, at each step

// Each program and its steps (the whole file runs in about 3 s).
const PROGRAMS = { regression: 200, cnn: 30, dense_grads: 200 };


if (!installed) {
  test('tfjs-examples: TensorFlow.js is installed', { skip }, () => assert.fail(missing));
} else {
  const tracelab = await import(pathToFileURL(`${dist}/tfjs.mjs`).href);

  // Runs a program's main on one library: its losses, how many tensors it left behind, or the error it threw.
  const run = async (tf, main, steps, traced = false) => {
    const before = tf.memory().numTensors;
    try {
      const { losses, tracedSteps } = await main(tf, { steps, traced });
      return { losses, tracedSteps, leaked: tf.memory().numTensors - before };
    } catch (error) {
      return { error };
    }
  };
  const falls = (losses) => {
    assert.equal(losses.length > 1 && losses.every(Number.isFinite), true, `losses: ${losses}`);
    assert.ok(losses.at(-1) < losses[0] / FALLS_BY,
              `the loss fell from ${losses[0]} to ${losses.at(-1)}, not below 1/${FALLS_BY} of it`);
  };

  for (const [name, steps] of Object.entries(PROGRAMS)) {
    const { main } = await import(`../../examples/tfjs/${name}.mjs`);
    const reference = await run(tfjs, main, steps);
    const ours = await run(tracelab, main, steps);

    test(`${name}: trains on TF.js and leaves no tensor behind`, () => {
      if (reference.error) throw reference.error;
      falls(reference.losses);
      assert.equal(reference.leaked, 0, 'tensors left behind on TF.js');
    });
    test(`${name}: trains on Tracelab as on TF.js (${steps} steps)`, () => {
      if (ours.error) throw ours.error;
      falls(ours.losses);
      assert.equal(ours.losses.length, reference.losses.length);
      ours.losses.forEach((a, step) => {
        const b = reference.losses[step];
        const relative = Math.abs(a - b) / Math.abs(b);
        assert.ok(relative <= LOSS_TOLERANCE,
                  `step ${step}: loss ${a} on Tracelab, ${b} on TF.js ` +
                  `(relative difference ${relative} > ${LOSS_TOLERANCE})`);
      });
    });
    test(`${name}: leaves no tensor behind on Tracelab`, () => {
      if (ours.error) throw ours.error;
      assert.equal(ours.leaked, 0, 'tensors left behind on Tracelab');
    });
    // The page's second run (web/tfjs-programs.html): the step under tf.function traces once and gives the eager
    // losses, bit for bit (the same kernels in the same order).
    const traced = await run(tracelab, main, steps, true);
    test(`${name}: under tf.function traces once and gives the eager losses`, () => {
      if (traced.error) throw traced.error;
      assert.deepEqual(traced.tracedSteps, [0], 'the steps that traced');
      assert.deepEqual(traced.losses, ours.losses);
      assert.equal(traced.leaked, 0, 'tensors left behind under tf.function');
    });
  }
}
