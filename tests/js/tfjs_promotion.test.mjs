// A plain value (a number, boolean, array or typed array) beside a tensor in a promoting op, against TensorFlow.js
// 4.22's cpu backend in the same process. TF.js converts the value to a tensor of the dtype it infers (a number or a
// numeric array: float32; a boolean or boolean array: bool; an Int32Array or Uint8Array: int32; a Float32Array:
// float32) and then upcasts both inputs (bool < int32 < float32): int32.add(2) and int32.mul(0.5) are float32,
// int32.add(true) stays int32, bool.add(1) is float32. The grid is tensor dtype × value kind × op × order (value
// second as in x.add(v), first as in tl.add(v, x)); each cell compares dtype and values with TF.js, eagerly and inside
// a tl.function. Where the promoted dtype is one TF refuses for the op, Tracelab's core keeps TF's rule and throws
// (DIFFERENCES below); TF.js computes something. Needs TensorFlow.js (bench/js, installed by scripts/setup.sh test):
// without it the tests are skipped, or fail when TRACELAB_REQUIRE_TFJS or CI is set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { skip, tf } from './tfjs_oracle.mjs';

const repo = new URL('../..', import.meta.url).pathname;
const dist = process.env.TRACELAB_DIST ?? join(repo, 'build/wasm/dist');
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab({ autograph: false });

/** The tensors of the grid: [values, dtype]. */
const TENSORS = { float32: [[1.5, -2], 'float32'], int32: [[3, -4], 'int32'], bool: [[true, false], 'bool'] };

const tensorOf = (lib, dtype) => lib.tensor(TENSORS[dtype][0], undefined, TENSORS[dtype][1]);

/** The plain values of the grid (made anew for each call) and the dtype TF.js infers for each. */
const VALUES = {
  'an integer number': { make: () => 2, dtype: 'float32' },
  'a fraction': { make: () => 0.5, dtype: 'float32' },
  'a negative fraction': { make: () => -1.5, dtype: 'float32' },
  'a boolean': { make: () => true, dtype: 'bool' },
  'an array of integers': { make: () => [1, 2], dtype: 'float32' },
  'an array of fractions': { make: () => [1.5, 2], dtype: 'float32' },
  'an array of booleans': { make: () => [true, false], dtype: 'bool' },
  'an Int32Array': { make: () => new Int32Array([1, 2]), dtype: 'int32' },
  'a Uint8Array': { make: () => new Uint8Array([1, 2]), dtype: 'int32' },
  'a Float32Array': { make: () => new Float32Array([0.5, 2]), dtype: 'float32' },
};

const COMPARISONS = ['less', 'lessEqual', 'greater', 'greaterEqual', 'equal', 'notEqual'];
const OPS = ['add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'mod', 'floorDiv', 'squaredDifference', 'atan2',
             'divNoNan', ...COMPARISONS];
/** The ops TF refuses on integers (TF.js computes them in int32). */
const FLOAT_ONLY = ['div', 'atan2', 'divNoNan'];
const RANK = { bool: 0, int32: 1, float32: 2 };
const upcast = (a, b) => (RANK[a] >= RANK[b] ? a : b);

/**
 * Where Tracelab keeps TensorFlow's rule and TF.js computes anyway: the error Tracelab throws for the cell, or null
 * when both compute. (TF refuses arithmetic and ordering on bool; TF.js runs them on bytes, so bool.sub(true) holds
 * 255 and bool.maximum(true) is int32. TF's div, atan2 and divNoNan take no integers; TF.js computes them in int32.
 * TF refuses an integer to a negative integer power and an integer division by zero; TF.js gives 1 or 0.)
 */
function refusalOf({ op, dtype, kind, valueFirst }) {
  const promoted = upcast(TENSORS[dtype][1], VALUES[kind].dtype);
  if (promoted === 'bool' && op !== 'equal' && op !== 'notEqual') return { name: 'DTypeError', message: /must be float32/ };
  if (promoted === 'int32' && FLOAT_ONLY.includes(op)) return { name: 'DTypeError', message: /input 0 must be float32, got int32/ };
  const second = Array.from(valueFirst ? TENSORS[dtype][0] : [VALUES[kind].make()].flat(), Number);
  if (promoted === 'int32' && op === 'pow' && second.some((e) => e < 0))
    return { name: 'InvalidArgument', message: /^pow: integers to negative integer powers are not allowed/ };
  if (promoted === 'int32' && (op === 'mod' || op === 'floorDiv') && second.includes(0))
    return { name: 'InvalidArgument', message: /integer division by zero/ };
  return null;
}

/**
 * What TF.js gives for the cell, but floorDiv in float32: TF.js' cpu backend returns int32 there (a TF.js bug: its
 * webgl backend and TF give float32, as tests/js/tfjs_diff.test.mjs notes), so the reference is floor(div).
 */
const reference = (cell, x) => {
  const promoted = upcast(TENSORS[cell.dtype][1], VALUES[cell.kind].dtype);
  if (cell.op !== 'floorDiv' || promoted !== 'float32') return callOf(cell)(tf, x);
  return tf.floor(callOf({ ...cell, op: 'div' })(tf, x));
};

/** dtype, shape and values of a result of either library. */
const read = (t) => ({ dtype: t.dtype, shape: t.shape, values: Array.from(t.dataSync(), Number) });

function assertSame(got, want, where) {
  assert.equal(got.dtype, want.dtype, `${where}: dtype ${got.dtype}, TF.js ${want.dtype}`);
  assert.deepEqual(got.shape, want.shape, `${where}: shape`);
  want.values.forEach((b, i) => {
    const a = got.values[i];
    assert.ok(Number.isNaN(b) ? Number.isNaN(a) : a === b || Math.abs(a - b) <= 4e-7 * Math.max(1, Math.abs(b)),
              `${where}[${i}]: ${a}, TF.js ${b}`);
  });
}

/** One cell of the grid: [op, tensor dtype, value kind, valueFirst]. */
const CELLS = OPS.flatMap((op) => Object.keys(TENSORS).flatMap((dtype) => Object.keys(VALUES).flatMap((kind) =>
  [false, true].map((valueFirst) => ({ op, dtype, kind, valueFirst })))));
const callOf = ({ op, kind, valueFirst }) => (lib, x) => {
  const v = VALUES[kind].make();
  return valueFirst ? lib[op](v, x) : lib[op](x, v);
};
const nameOf = ({ op, dtype, kind, valueFirst }) => (valueFirst ? `${op}(${kind}, ${dtype})` : `${dtype}.${op}(${kind})`);

test('promotion: the grid covers every op it names', () => {
  for (const op of OPS) assert.equal(typeof tl[op], 'function', `tl.${op}`);
  assert.equal(CELLS.length, OPS.length * 3 * Object.keys(VALUES).length * 2);
});

test('promotion: TF.js promotes a plain value by the dtype it infers for it (the rule this file checks)', { skip }, () => {
  tf.tidy(() => {
    for (const cell of CELLS) {
      const promoted = upcast(TENSORS[cell.dtype][1], VALUES[cell.kind].dtype);
      const out = callOf(cell)(tf, tensorOf(tf, cell.dtype));
      const expected = COMPARISONS.includes(cell.op) ? 'bool' : promoted;
      // TF.js' own quirks: maximum and minimum cast bool inputs to int32 first; floorDiv's cpu kernel returns int32.
      const quirk = (promoted === 'bool' && (cell.op === 'maximum' || cell.op === 'minimum')) || cell.op === 'floorDiv'
        ? 'int32' : expected;
      assert.equal(out.dtype, quirk, `TF.js ${nameOf(cell)}`);
    }
  });
});

test('promotion: tensor dtype × plain value × op × order gives TF.js\' dtypes and values', { skip }, () => {
  let compared = 0, refused = 0;
  for (const cell of CELLS) {
    const where = nameOf(cell);
    const want = tf.tidy(() => read(reference(cell, tensorOf(tf, cell.dtype))));
    const refusal = refusalOf(cell);
    tl.tidy(() => {
      const x = tensorOf(tl, cell.dtype);
      if (refusal) {
        assert.throws(() => callOf(cell)(tl, x), refusal, where);
        ++refused;
        return;
      }
      assertSame(read(callOf(cell)(tl, x)), want, where);
      ++compared;
    });
  }
  assert.ok(compared > 600 && refused > 0, `${compared} compared, ${refused} refused`);
});

test('promotion: inside a tl.function a plain value promotes as it does eagerly', { skip }, () => {
  let traced = 0;
  for (const cell of CELLS) {
    if (refusalOf(cell)) continue;
    const where = `traced ${nameOf(cell)}`;
    const want = tf.tidy(() => read(reference(cell, tensorOf(tf, cell.dtype))));
    const f = tl.function((x) => callOf(cell)(tl, x));
    tl.tidy(() => assertSame(read(f(tensorOf(tl, cell.dtype))), want, where));
    ++traced;
  }
  assert.ok(traced > 500, `${traced} traced`);
});

test('promotion: where\'s values, matMul and ops of plain values only, as TF.js', { skip }, () => {
  const cases = {
    'where(bool, int32, 1.5)': (lib) => lib.where(lib.tensor([true, false], undefined, 'bool'),
                                                  lib.tensor([1, 2], undefined, 'int32'), 1.5),
    'where(bool, 2, int32)': (lib) => lib.where(lib.tensor([true, false], undefined, 'bool'), 2,
                                                lib.tensor([1, 2], undefined, 'int32')),
    'where(bool, true, int32)': (lib) => lib.where(lib.tensor([true, false], undefined, 'bool'), true,
                                                   lib.tensor([1, 2], undefined, 'int32')),
    'where(bool, 1.5, 2)': (lib) => lib.where(lib.tensor([true, false], undefined, 'bool'), 1.5, 2),
    'matMul(int32, numbers)': (lib) => lib.matMul(lib.tensor([[1, 2]], undefined, 'int32'), [[1.5], [2]]),
    'add(1, 2)': (lib) => lib.add(1, 2),
    'add(true, 2)': (lib) => lib.add(true, 2),
    'mul(Int32Array, true)': (lib) => lib.mul(new Int32Array([3, 4]), true),
    'int32 variable .add(0.5)': (lib) => lib.variable(lib.tensor([1, 2], undefined, 'int32')).add(0.5),
  };
  for (const [name, run] of Object.entries(cases)) {
    const want = tf.tidy(() => read(run(tf)));
    tl.tidy(() => assertSame(read(run(tl)), want, name));
  }
});

test('promotion: the example of the guide, and a gradient through a promoted input', { skip }, () => {
  tl.tidy(() => {
    assert.deepEqual(read(tl.tensor([1, 2], undefined, 'int32').add(1.5)), { dtype: 'float32', shape: [2], values: [2.5, 3.5] });
    // The float32 input of a promoted op gets its gradient as usual; the int32 one (cast) gets none, as in TF.js.
    const [gx] = tl.grads((x) => x.mul(new Int32Array([3, 4])).sum())([tl.tensor([1, 2])]);
    assert.deepEqual(read(gx), { dtype: 'float32', shape: [2], values: [3, 4] });
    const [gy] = tl.grads((y) => tl.mul([0.5, 2], y).sum())([tl.tensor([5, 6])]);
    assert.deepEqual(read(gy), { dtype: 'float32', shape: [2], values: [0.5, 2] });
  });
});
