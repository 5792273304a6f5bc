// Bad input through the JS bridge, one table: each row makes one bad call, checks the Error subclass name and a
// message substring, then checks that tl still computes (and that the variable the checkpoint rows restore into is
// unchanged).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

test('bad input: each JS row throws the documented Error subclass and tl keeps working', () => {
  const w = tl.variable(tl.tensor([1, 2]), true, 'bad_input_w');
  const good = tl.checkpoint.save([w]);
  const sig = tl.function((x) => tl.sum(x), { inputSignature: [new tl.TensorSpec([null])], name: 'sig' });
  const disposed = tl.tensor([1, 2]);
  disposed.dispose();
  function* broken() { yield [tl.ones([1, 2])]; throw new RangeError('generator failed mid-epoch'); }
  const bad = tl.data.fromGenerator(broken, [new tl.TensorSpec([null, 2])]);
  const rows = [
    ['matMul inner dims', () => tl.matMul(tl.ones([2, 3]), tl.ones([2, 3])), 'ShapeError', /matmul: inner dimensions must agree/],
    ['add f32 + i32', () => tl.add(tl.ones([2]), tl.tensor([1, 2], [2], 'int32')), 'DTypeError', /add: inputs must have the same dtype/],
    ['unknown op', () => tl.op('no_such_op', []), 'InvalidArgument', /unknown op 'no_such_op'/],
    ['attr of the wrong type', () => tl.op('reduce_sum', [tl.ones([2])], { keepdims: 'yes' }), 'InvalidArgument', /attribute 'keepdims' must be of type bool/],
    ['tl.tensor shape does not fit the values', () => tl.tensor([1, 2], [3]), 'ShapeError', /./],
    ['string where a tensor is required', () => tl.add(tl.ones([1]), 'x'), 'InvalidArgument', /expected a tensor/],
    ['object where a tensor is required', () => tl.add(tl.ones([1]), { a: 1 }), 'InvalidArgument', /expected a tensor/],
    ['undefined where a tensor is required', () => tl.add(tl.ones([1]), undefined), 'InvalidArgument', /expected a tensor/],
    ['disposed tensor', () => disposed.dataSync(), 'InvalidArgument', /disposed/],
    ['huge broadcast', () => tl.broadcastTo(tl.scalar(1), [1 << 20, 1 << 20]), 'OutOfMemory', /out of memory/],
    ['signature rank mismatch', () => sig(tl.ones([2, 2])), 'InvalidArgument', /does not match the input signature/],
    ['checkNumerics on NaN', () => tl.ops.checkNumerics(tl.tensor([1, NaN, Infinity]), { message: 'batch' }), 'InvalidArgument', /check_numerics: batch: found 1 NaN and 1 Inf values in f32\[3\] \(first at flat index 1\)/],
    ['generator throws mid-iteration', () => bad.toArray(), 'InvalidArgument', /generator failed mid-epoch/],
    ['corrupt checkpoint', () => { const c = good.slice(); c[c.length - 3] ^= 0xff; tl.checkpoint.restore([w], c); }, 'InvalidArgument', /checkpoint:/],
  ];
  for (const [what, call, name, message] of rows) {
    assert.throws(() => tl.tidy(call), (e) => e instanceof Error && e.name === name && message.test(e.message), what);
    assert.deepEqual(tl.tidy(() => tl.ones([2]).add(1).arraySync()), [2, 2], what);
    assert.deepEqual(tl.tidy(() => w.read().arraySync()), [1, 2], what);
  }
  assert.ok(rows.length >= 12);
  w.dispose();
});
