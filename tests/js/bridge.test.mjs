// The WASM core through the JS loader, in Node with no flags: values computed, errors as real JS Errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

const f32 = (shape, values) => ({ dtype: 'float32', shape, values });

test('bridge: version and registry are visible', () => {
  assert.match(tl.version, /^\d+\.\d+\.\d+$/);
  const names = tl.opNames();
  for (const op of ['add', 'matmul', 'reduce_max', 'conv2d', 'gather', 'softmax']) assert.ok(names.includes(op), op);
});

test('bridge: matmul computed in WASM', () => {
  const out = tl.runOp('matmul', [f32([2, 3], [1, 2, 3, 4, 5, 6]), f32([3, 2], [7, 8, 9, 10, 11, 12])]);
  assert.deepEqual(out.shape, [2, 2]);
  assert.ok(out.values instanceof Float32Array);
  assert.deepEqual(Array.from(out.values), [58, 64, 139, 154]);
});

test('bridge: attributes are converted by the op\'s declared types', () => {
  const out = tl.runOp('reduce_sum', [f32([2, 2], [1, 2, 3, 4])], { axes: [1], keepdims: true });
  assert.deepEqual(out.shape, [2, 1]);
  assert.deepEqual(Array.from(out.values), [3, 7]);
  assert.throws(() => tl.runOp('reduce_sum', [f32([2], [1, 2])], { keepdims: 'yes' }),
                { name: 'InvalidArgument', message: /reduce_sum: attribute 'keepdims' must be of type bool/ });
});

test('bridge: core errors arrive as JS Errors named after the C++ class, and the module keeps working', () => {
  assert.throws(() => tl.runOp('matmul', [f32([2, 3], [1, 2, 3, 4, 5, 6]), f32([2, 3], [1, 2, 3, 4, 5, 6])]),
                (error) => error instanceof Error && error.name === 'ShapeError' && /matmul: inner/.test(error.message));
  assert.throws(() => tl.runOp('add', [f32([2], [1, 2]), { dtype: 'int32', shape: [2], values: [1, 2] }]),
                { name: 'DTypeError' });
  assert.throws(() => tl.runOp('no_such_op', []), { name: 'InvalidArgument', message: /unknown op 'no_such_op'/ });
  assert.throws(() => tl.runOp('ones_like', [{ dtype: 'float32', shape: [1 << 20, 1 << 20], values: [] }]),
                { name: 'ShapeError' });
  assert.throws(() => tl.runOp('add', [f32([2], [1, 2])]), { name: 'InvalidArgument', message: /expected 2 inputs/ });
  assert.throws(() => tl.runOp('add', 'not an array'), { name: 'InvalidArgument' });
  const out = tl.runOp('add', [f32([2], [1, 2]), f32([], [10])]);
  assert.deepEqual(Array.from(out.values), [11, 12]);
});
