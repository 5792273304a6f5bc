// tl.debugging (wasm/js/ops.mjs): the assertion ops through the JS facade. Eagerly they throw at once; in a
// tl.function the trace succeeds, the bad call throws InvalidArgument with the values, the next good call runs; a
// wrong rank fails while tracing; the arguments reach the op (message, summarize, tolerances, data).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

test('debugging: eagerly each assertion passes on good values and throws at once on bad ones', () => tl.tidy(() => {
  const x = tl.tensor([1, 2, 3]);
  assert.equal(tl.debugging.assertLess(x, 4, 'below 4'), undefined);
  tl.debugging.assertPositive(x);
  tl.debugging.assertNonNegative(tl.tensor([0, 1], [2], 'int32'));
  tl.debugging.assertEqual(x, [1, 2, 3]);
  tl.debugging.assertGreater(x, 0);
  tl.debugging.assertGreaterEqual(x, 1);
  tl.debugging.assertLessEqual(x, 3);
  tl.debugging.assertRank(x, 1);
  tl.debugging.assertNear(x, tl.tensor([1, 2, 3.05]), 0, 0.1);
  tl.debugging.assert(x.less(4), 'all below 4', [x]);
  assert.throws(() => tl.debugging.assertLess(x, 2, 'x must be below 2'), {
    name: 'InvalidArgument',
    message: 'assert_less: x must be below 2: condition x < y did not hold element-wise at 2 of 3 elements, the first ' +
             'at index [1] (x = 2, y = 2); x = f32[3] [1 2 3], y = f32[] [2]',
  });
  assert.throws(() => tl.debugging.assertPositive(tl.tensor([-1, -2, -3, -4]), '', 2), { message: /x = f32\[4\] \[-1 -2 \.\.\.\]$/ });
  assert.throws(() => tl.debugging.assertNear(x, tl.tensor([1, 2, 3.5]), 0, 0.1), { message: /\|x - y\| <= 0\.1 \+ 0 \* \|y\|/ });
  assert.throws(() => tl.debugging.assert(x.greater(1), 'all above 1', [x]), {
    message: 'assert: all above 1: the condition bool[3] is false at 1 of 3, the first at index [0]; data: f32[3] [1 2 3]',
  });
  assert.throws(() => tl.debugging.assertRank(x, 2, 'a matrix'), { name: 'InvalidArgument', message: /a matrix: x must have rank 2, got f32\[3\]/ });
  assert.throws(() => tl.debugging.assertRank(x, 1.5), { name: 'InvalidArgument', message: /tl\.debugging\.assertRank: rank/ });
  assert.throws(() => tl.debugging.assertLess(tl.tensor([true]), tl.tensor([false])), { name: 'DTypeError' });
}));

test('debugging: in a tl.function the trace succeeds, only the bad call throws, the next call runs', () => tl.tidy(() => {
  const printed = [];
  tl.setLogHandler((level, text) => printed.push(text));
  try {
    const safeLog = tl.function((x) => {
      tl.print('before', x);
      tl.debugging.assertPositive(x, 'log needs positive inputs');
      tl.print('after', x);
      return tl.log(x);
    });
    assert.deepEqual(safeLog(tl.tensor([1, 1])).arraySync(), [0, 0]);
    assert.throws(() => safeLog(tl.tensor([1, -2])), {
      name: 'InvalidArgument',
      message: 'assert_positive: log needs positive inputs: condition x > 0 did not hold element-wise at 1 of 2 ' +
               'elements, the first at index [1] (x = -2); x = f32[2] [1 -2]',
    });
    assert.deepEqual(safeLog(tl.tensor([1, 1])).arraySync(), [0, 0]);
    assert.equal(safeLog.tracingCount, 1);
    assert.deepEqual(printed, ['before [1. 1.]', 'after [1. 1.]', 'before [1. -2.]', 'before [1. 1.]', 'after [1. 1.]']);
    assert.match(safeLog.concreteFunctions()[0].graph, /assert_positive %0 \{message="log needs positive inputs"\}/);

    const matrixOnly = tl.function((x) => { tl.debugging.assertRank(x, 2); return x.add(1); });
    assert.throws(() => matrixOnly(tl.tensor([1, 2])), { message: /assert_rank: x must have rank 2, got f32\[2\]/ });
    assert.equal(matrixOnly.tracingCount, 0);
  } finally {
    tl.setLogHandler(null);
  }
}));
