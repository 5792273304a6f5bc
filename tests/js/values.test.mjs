// The conversion of JavaScript values to tensors (wasm/js/values.mjs) through tl.tensor, op inputs, variables and
// datasets: each accepted kind converts exactly, with TF.js' inferred dtype; each rejected kind throws its Error
// subclass naming the caller, the argument and the offending value's path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

/** {dtype, shape, values} of a tensor, its values as a plain array. */
const read = (t) => ({ dtype: t.dtype, shape: t.shape, values: Array.from(t.dataSync()) });

test('values: numbers, booleans and nested arrays convert exactly, with the dtype TF.js infers', () => {
  tl.tidy(() => {
    assert.deepEqual(read(tl.tensor(2.5)), { dtype: 'float32', shape: [], values: [2.5] });
    assert.deepEqual(read(tl.tensor(true)), { dtype: 'bool', shape: [], values: [1] });
    assert.deepEqual(read(tl.tensor([true, false, true])), { dtype: 'bool', shape: [3], values: [1, 0, 1] });
    assert.deepEqual(read(tl.tensor([[1, 2, 3], [4, 5, 6]])), { dtype: 'float32', shape: [2, 3], values: [1, 2, 3, 4, 5, 6] });
    assert.deepEqual(read(tl.tensor([[[1], [2]], [[3], [4]]])), { dtype: 'float32', shape: [2, 2, 1], values: [1, 2, 3, 4] });
    assert.deepEqual(read(tl.tensor([[1, 2], [3, 4]], [4])), { dtype: 'float32', shape: [4], values: [1, 2, 3, 4] });
    assert.deepEqual(read(tl.tensor([])), { dtype: 'float32', shape: [0], values: [] });
    assert.deepEqual(read(tl.tensor([[], []])), { dtype: 'float32', shape: [2, 0], values: [] });
    assert.deepEqual(read(tl.tensor([NaN, -Infinity])).values, [NaN, -Infinity]);
    assert.deepEqual(read(tl.tensor([-2147483648, 2147483647], [2], 'int32')).values, [-2147483648, 2147483647]);
    assert.deepEqual(read(tl.scalar(7, 'int32')), { dtype: 'int32', shape: [], values: [7] });
    assert.deepEqual(read(tl.scalar(false)), { dtype: 'bool', shape: [], values: [0] });
    assert.deepEqual(read(tl.fill([2], 3.5)), { dtype: 'float32', shape: [2], values: [3.5, 3.5] });
    assert.deepEqual(read(tl.fill([2], true, 'bool')), { dtype: 'bool', shape: [2], values: [1, 1] });
    assert.deepEqual(read(tl.fill([1], 2, 'bool')), { dtype: 'bool', shape: [1], values: [1] });
    // Mixes, as TF.js converts them: the first leaf decides the dtype; true is 1, a non-zero number is true.
    assert.deepEqual(read(tl.tensor([1, true, false])), { dtype: 'float32', shape: [3], values: [1, 1, 0] });
    assert.deepEqual(read(tl.tensor([true, 2, 0])), { dtype: 'bool', shape: [3], values: [1, 1, 0] });
    assert.deepEqual(read(tl.tensor([0, 3, -1], [3], 'bool')).values, [0, 1, 1]);
    assert.deepEqual(read(tl.tensor([true, false], [2], 'int32')), { dtype: 'int32', shape: [2], values: [1, 0] });
  });
});

test('values: every typed array kind converts exactly (int32 for Int32Array, Uint8Array, Uint8ClampedArray)', () => {
  const kinds = [
    [Float32Array, 'float32'], [Float64Array, 'float32'], [Int8Array, 'float32'], [Int16Array, 'float32'],
    [Uint16Array, 'float32'], [Uint32Array, 'float32'], [Int32Array, 'int32'], [Uint8Array, 'int32'],
    [Uint8ClampedArray, 'int32'],
  ];
  tl.tidy(() => {
    for (const [Kind, dtype] of kinds) {
      assert.deepEqual(read(tl.tensor(new Kind([1, 2, 3, 4]))), { dtype, shape: [4], values: [1, 2, 3, 4] }, Kind.name);
      assert.deepEqual(read(tl.tensor(new Kind([1, 2, 3, 4]), [2, 2])).shape, [2, 2], Kind.name);
      assert.deepEqual(read(tl.tensor(new Kind([0, 5]), undefined, 'bool')).values, [0, 1], Kind.name);
    }
    assert.deepEqual(read(tl.tensor(new Float64Array([0.5, 1e300]))).values, [0.5, Infinity]);  // float32 rounding
    assert.deepEqual(read(tl.tensor(new Float32Array([1.5]))).values, [1.5]);
    assert.deepEqual(read(tl.tensor(new Float64Array([3, -4]), [2], 'int32')), { dtype: 'int32', shape: [2], values: [3, -4] });
    // Typed arrays as the innermost level of nested arrays.
    assert.deepEqual(read(tl.tensor([new Float32Array([1, 2]), new Float32Array([3, 4])])),
                     { dtype: 'float32', shape: [2, 2], values: [1, 2, 3, 4] });
    assert.deepEqual(read(tl.tensor([new Int32Array([1, 2]), [3, 4]])), { dtype: 'int32', shape: [2, 2], values: [1, 2, 3, 4] });
  });
});

test('values: op inputs, variables and dataset elements go through the same conversion', () => {
  tl.tidy(() => {
    const x = tl.tensor([1, 2]);
    assert.deepEqual(read(tl.add(x, [10, 20])).values, [11, 22]);
    assert.deepEqual(read(x.mul(new Float64Array([2, 3]))).values, [2, 6]);
    // A number at a promoted position is float32, as TF.js infers it (tests/js/tfjs_promotion.test.mjs has the grid).
    assert.deepEqual(read(tl.add(tl.tensor([1, 2], [2], 'int32'), 3)), { dtype: 'float32', shape: [2], values: [4, 5] });
    assert.deepEqual(read(tl.logicalAnd(tl.tensor([true, true]), [true, false])).values, [1, 0]);
    assert.deepEqual(read(tl.gather(tl.tensor([5, 6, 7]), [2, 0])).values, [7, 5]);
    assert.deepEqual(tl.runOp('neg', [{ shape: [2], values: new Float64Array([1, 2]) }]).values, new Float32Array([-1, -2]));
    assert.deepEqual(tl.runOp('neg', [{ dtype: 'int32', shape: [2], values: [[1], [2]] }]).values, new Int32Array([-1, -2]));
    assert.throws(() => tl.clipByValue(tl.tensor([1, 2], [2], 'int32'), 0.5, 3),
                  { name: 'InvalidArgument', message: 'clip_by_value: input 1: value is the number 0.5; an int32 tensor holds integers in [-2147483648, 2147483647]' });
    assert.throws(() => tl.add(x, [[1], [2, 3]]),
                  { name: 'ShapeError', message: 'add: input 1: value[1] has 2 elements where value[0] has 1 (ragged nesting; use equal lengths)' });
  });
  const v = tl.variable([[1, 2], [3, 4]]);
  assert.deepEqual(read(v.read()), { dtype: 'float32', shape: [2, 2], values: [1, 2, 3, 4] });
  assert.throws(() => v.assign([[1, 2], [3, 'x']]), {
    name: 'DTypeError',
    message: `Variable '${v.name}'.assign: value[1][1] is the string 'x'; expected a number or boolean (Tracelab has no string dtype)`,
  });
  v.dispose();
  assert.throws(() => tl.data.fromTensorSlices([[1, 2], [3, 1n]]), {
    name: 'DTypeError', message: /^fromTensorSlices: component 1: value\[1\] is the BigInt 1n; .*Number\(1n\)/,
  });
});

test('values: rejected kinds throw their Error subclass with the path', () => {
  const cases = [
    [() => tl.tensor(['a', 'b']), 'DTypeError', "tl.tensor: values[0] is the string 'a'; expected a number or boolean (Tracelab has no string dtype)"],
    [() => tl.tensor('abc'), 'DTypeError', "tl.tensor: values is the string 'abc'; expected a number, a boolean, an array or a typed array (Tracelab has no string dtype)"],
    [() => tl.tensor([1n, 2n]), 'DTypeError', 'tl.tensor: values[0] is the BigInt 1n; expected a number or boolean (convert it with Number(1n), exact up to 2^53)'],
    [() => tl.tensor(new BigInt64Array(2)), 'DTypeError', 'tl.tensor: values is a BigInt64Array; expected numbers (convert it with Array.from(values, Number), exact up to 2^53)'],
    [() => tl.tensor([[1, 2], [3]]), 'ShapeError', 'tl.tensor: values[1] has 1 element where values[0] has 2 (ragged nesting; use equal lengths)'],
    [() => tl.tensor([[1, 2], 3]), 'ShapeError', 'tl.tensor: values[1] is the number 3 where values[0] has 2 elements (ragged nesting; use equal lengths)'],
    [() => tl.tensor([1, [2]]), 'ShapeError', 'tl.tensor: values[1] is an array of 1 element where values[0] is a single value (ragged nesting; use equal lengths)'],
    [() => tl.tensor([[[1, 2], [3, 4]], [[5, 6], [7]]]), 'ShapeError', 'tl.tensor: values[1][1] has 1 element where values[0][0] has 2 (ragged nesting; use equal lengths)'],
    [() => tl.tensor([[1, 2], [3]], [3]), 'ShapeError', 'tl.tensor: values[1] has 1 element where values[0] has 2'],
    [() => tl.tensor([1, null]), 'InvalidArgument', 'tl.tensor: values[1] is null; expected a number or boolean'],
    [() => tl.tensor([1, undefined]), 'InvalidArgument', 'tl.tensor: values[1] is undefined; expected a number or boolean'],
    // eslint-disable-next-line no-sparse-arrays
    [() => tl.tensor([1, , 3]), 'InvalidArgument', 'tl.tensor: values[1] is undefined; expected a number or boolean'],
    [() => tl.tensor(null), 'InvalidArgument', 'tl.tensor: values is null; expected a number, a boolean, an array or a typed array'],
    [() => tl.tensor(undefined), 'InvalidArgument', 'tl.tensor: values is undefined; expected a number, a boolean, an array or a typed array'],
    [() => tl.tensor([{ a: 1 }]), 'InvalidArgument', 'tl.tensor: values[0] is an object; expected a number or boolean'],
    [() => tl.tensor([new Map()]), 'InvalidArgument', 'tl.tensor: values[0] is a Map; expected a number or boolean'],
    [() => tl.tensor([() => 1]), 'InvalidArgument', 'tl.tensor: values[0] is a function; expected a number or boolean'],
    [() => tl.tensor([tl.scalar(1)]), 'InvalidArgument', 'tl.tensor: values[0] is a tl.Tensor; expected a number or boolean (tl.stack makes one tensor of several)'],
    [() => tl.tensor([1.5], [1], 'int32'), 'InvalidArgument', 'tl.tensor: values[0] is the number 1.5; an int32 tensor holds integers in [-2147483648, 2147483647]'],
    [() => tl.tensor([2 ** 31], [1], 'int32'), 'InvalidArgument', 'tl.tensor: values[0] is the number 2147483648; an int32 tensor holds integers'],
    [() => tl.tensor(new Uint32Array([2 ** 32 - 1]), [1], 'int32'), 'InvalidArgument', 'tl.tensor: values[0] is the number 4294967295'],
    [() => tl.tensor([1], [1], 'float64'), 'InvalidArgument', "tl.tensor: dtype is the string 'float64'; expected 'float32', 'int32', 'bool' (Tracelab computes in float32: use 'float32')"],
    [() => tl.scalar('1'), 'DTypeError', "tl.scalar: value is the string '1'"],
    [() => tl.scalar([1, 2]), 'InvalidArgument', 'tl.scalar: value is an array of 2 elements; expected a number or boolean'],
    [() => tl.fill([2], 'a'), 'DTypeError', "tl.fill: value is the string 'a'; expected a number or boolean"],
    [() => tl.fill([2], 2n), 'DTypeError', 'tl.fill: value is the BigInt 2n; expected a number or boolean (convert it with Number(2n)'],
    [() => tl.fill([2], null), 'InvalidArgument', 'tl.fill: value is null; expected a number or boolean'],
    [() => tl.fill([2], 0.5, 'int32'), 'InvalidArgument', 'tl.fill: value is the number 0.5; an int32 tensor holds integers'],
    [() => tl.add(tl.ones([2]), [1, 'a']), 'DTypeError', "add: input 1: value[1] is the string 'a'; expected a number or boolean"],
    [() => tl.add(tl.ones([2]), 'a'), 'InvalidArgument', "add: input 1: expected a tensor (or a number, boolean, array or typed array), got the string 'a'"],
    [() => tl.runOp('neg', [{ shape: [2], values: [1, 'b'] }]), 'DTypeError', "neg: inputs[0].values[1] is the string 'b'; expected a number or boolean"],
    [() => tl.add(tl.ones([2]), 2n), 'InvalidArgument', 'add: input 1: expected a tensor (or a number, boolean, array or typed array), got the BigInt 2n'],
  ];
  const before = tl.memory().numTensors;
  for (const [call, name, message] of cases) {
    assert.throws(() => tl.tidy(call), (e) => {
      assert.ok(e instanceof tl.TracelabError, `${e.name}: ${e.message}`);
      assert.equal(e.name, name, e.message);
      assert.ok(e.message.startsWith(message), `"${e.message}" does not start with "${message}"`);
      return true;
    });
  }
  assert.equal(tl.memory().numTensors, before);
});

test('values: a symbolic tensor kept from a trace names its tl.function when used later', () => {
  let kept = null;
  const f = tl.function((a) => { kept = a.mul(2); return a.add(1); }, { name: 'f' });
  tl.tidy(() => f(tl.ones([2])));
  const expected = "the tensor is a symbolic tensor of tl.function 'f' used outside its trace (a graph tensor kept " +
                   'from inside the function); return it from the function instead';
  assert.throws(() => kept.dataSync(), { name: 'InvalidArgument', message: `dataSync: ${expected}` });
  assert.throws(() => kept.add(1), { name: 'InvalidArgument', message: `add: input 0: ${expected}` });
  assert.throws(() => `${kept}`, { name: 'InvalidArgument', message: `String(tensor): ${expected}` });
  // An input of the trace (wrapped before the function runs) names it too.
  let input = null;
  const g = tl.function((a) => { input = a; return a; }, { name: 'g' });
  tl.tidy(() => g(tl.ones([1])));
  assert.throws(() => input.dataSync(), { message: /symbolic tensor of tl.function 'g' used outside its trace/ });
  // A disposed eager tensor still says it was disposed.
  const t = tl.ones([1]);
  t.dispose();
  assert.throws(() => t.dataSync(), { name: 'InvalidArgument', message: 'dataSync: the tensor was disposed' });
  // A tl.function's arguments enter its trace key as they are (tensors by spec, numbers, booleans and strings by
  // value, arrays and plain objects by their structure and leaves); other values are refused, named as the
  // conversion names them, at their path when nested.
  assert.throws(() => f(new Map()), { name: 'InvalidArgument', message: /^f: argument 0 must be a tensor, .*, got a Map$/ });
  assert.throws(() => f([1, { w: new Map() }]), { name: 'InvalidArgument', message: /^f: args\[0\]\[1\]\.w must be a tensor, .*, got a Map$/ });
  assert.throws(() => f(3n), { name: 'InvalidArgument', message: /^f: argument 0 must be .*, got the BigInt 3n$/ });
  f.dispose();
  g.dispose();
});
