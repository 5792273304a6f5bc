// The creation and misc groups' (wasm/js/tfjs/creation.mjs, misc.mjs) checks that tfjs_diff's cases cannot state:
// the Tensor methods that are no op (x.buffer(), x.bufferSync(), x.bytes(), x.throwIfDisposed()) against TF.js'
// cpu backend, einsum on the equations TF.js gets wrong and its gradients (TF.js has none) against TF.js' matMul and
// sum, the errors einsum shares with TF.js, seeded draws, and the errors for bad arguments. Needs TensorFlow.js
// (bench/js), as tests/js/tfjs_diff.test.mjs does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installed, missing, skip, tf } from './tfjs_oracle.mjs';

const { loadTracelabForCompat } = await import('../../scripts/tfjs_compat.mjs');


// The tensors the method tests read: [values, shape, dtype].
const INPUTS = [
  [[1.5, -2, 0, 3.25, 1e-3, -7], [2, 3], 'float32'], [[4, -1, 0], [3], 'int32'], [[true, false, false, true], [2, 2], 'bool'],
  [[2.5], [], 'float32'], [[], [0, 2], 'float32'], [[1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2], 'int32'],
];
const close = (got, want, what) => {
  assert.deepEqual(got.shape, want.shape, `${what}: shape`);
  const g = got.dataSync(), w = want.dataSync();
  for (let k = 0; k < w.length; ++k) assert.ok(Math.abs(g[k] - w[k]) <= 1e-4 + 1e-4 * Math.abs(w[k]), `${what}: element ${k} is ${g[k]}, TF.js ${w[k]}`);
};

async function run() {
  const tl = await loadTracelabForCompat();

  test('tfjs-methods-extra: x.bufferSync() and x.buffer() give the TensorBuffer TF.js gives', async () => {
    for (const [values, shape, dtype] of INPUTS) {
      const what = `${dtype}[${shape}]`;
      for (const read of [(t) => t.bufferSync(), (t) => t.buffer()]) {
        const x = tl.tensor(values, shape, dtype), y = tf.tensor(values, shape, dtype);
        const [mine, theirs] = [await read(x), await read(y)];
        for (const key of ['shape', 'dtype', 'size', 'rank', 'strides']) assert.deepEqual(mine[key], theirs[key], `${what}: ${key}`);
        assert.equal(mine.values.constructor, theirs.values.constructor, `${what}: the values' type`);
        assert.deepEqual(Array.from(mine.values), Array.from(theirs.values), `${what}: values`);
        for (let index = 0; index < theirs.size; ++index) {
          const locs = theirs.indexToLoc(index);
          assert.deepEqual(mine.indexToLoc(index), locs, `${what}: indexToLoc(${index})`);
          assert.equal(mine.locToIndex(locs), theirs.locToIndex(locs), `${what}: locToIndex(${locs})`);
          assert.equal(mine.get(...locs), theirs.get(...locs), `${what}: get(${locs})`);
        }
        // TF.js' set on a scalar's buffer throws (it asks for 1 coordinate and then for none): not compared.
        if (theirs.size > 0 && theirs.rank > 0) {
          const before = Array.from(x.dataSync()), last = theirs.indexToLoc(theirs.size - 1);
          for (const b of [mine, theirs]) b.set(1, ...last);
          const [t, u] = [mine.toTensor(), theirs.toTensor()];
          assert.deepEqual([t.shape, t.dtype, Array.from(t.dataSync())], [u.shape, u.dtype, Array.from(u.dataSync())], `${what}: toTensor after set`);
          // The buffer holds a copy: x keeps its values. (TF.js' cpu backend hands out the tensor's own array, so
          // a set there changes y as well: a TF.js bug, not compared.)
          assert.deepEqual(Array.from(x.dataSync()), before, `${what}: x after set`);
          t.dispose();
          u.dispose();
        }
        x.dispose();
        y.dispose();
      }
    }
  });

  test('tfjs-methods-extra: x.bytes() gives the bytes TF.js gives (4 per float32 and int32, 1 per bool)', async () => {
    for (const [values, shape, dtype] of INPUTS) {
      const x = tl.tensor(values, shape, dtype), y = tf.tensor(values, shape, dtype);
      const [mine, theirs] = [await x.bytes(), await y.bytes()];
      assert.equal(mine.constructor, Uint8Array);
      assert.deepEqual(Array.from(mine), Array.from(theirs), `${dtype}[${shape}]`);
      x.dispose();
      y.dispose();
    }
  });

  test('tfjs-methods-extra: x.throwIfDisposed() throws once the tensor is disposed, as TF.js', () => {
    const x = tl.tensor([1, 2]), y = tf.tensor([1, 2]);
    assert.equal(x.throwIfDisposed(), undefined);
    assert.equal(y.throwIfDisposed(), undefined);
    x.dispose();
    y.dispose();
    assert.throws(() => y.throwIfDisposed(), /disposed/);
    assert.throws(() => x.throwIfDisposed(), { name: 'InvalidArgument', message: /x\.throwIfDisposed: the tensor was disposed/ });
    assert.throws(() => x.bufferSync(), { name: 'InvalidArgument', message: /x\.bufferSync: the tensor was disposed/ });
    assert.throws(() => x.clone(), { name: 'InvalidArgument' });
    return assert.rejects(x.bytes(), { name: 'InvalidArgument', message: /x\.bytes: the tensor was disposed/ });
  });

  // Equations TF.js' einsum gets wrong, and ones it gets right, each against the same sum written with TF.js'
  // mul / matMul / sum; the gradients (TF.js' einsum has none) against tf.grads of that sum.
  const A = [[0.5, -1, 2], [1.5, 0.25, -0.75]], B = [[1, -2], [0.5, 3], [-1, 0.25]], V = [0.3, -0.6, 0.9], W = [2, -1, 0.5, 1.5];
  const EINSUMS = [
    ['ij,j->j', [A, V], (t, a, v) => t.mul(t.sum(a, 0), v)],
    ['ij,jk->k', [A, B], (t, a, b) => t.matMul(t.sum(a, 0, true), b).reshape([2])],
    ['ij,jk->', [A, B], (t, a, b) => t.sum(t.matMul(a, b))],
    ['ij,k->i', [A, W], (t, a, w) => t.mul(t.sum(a, 1), t.sum(w))],
    ['ij,kl->jl', [A, B], (t, a, b) => t.matMul(t.sum(a, 0, true).transpose(), t.sum(b, 0, true))],
    ['ij,jk->ki', [A, B], (t, a, b) => t.matMul(a, b).transpose()],
    ['ij,ij->i', [A, A], (t, a, c) => t.sum(t.mul(a, c), 1)],
    ['ij->', [A], (t, a) => t.sum(a)],
  ];
  test('tfjs-methods-extra: einsum gives the sums TF.js computes with matMul and sum, where its einsum is wrong too', () => {
    for (const [equation, values, reference] of EINSUMS) {
      const xs = values.map((v) => tl.tensor(v)), ys = values.map((v) => tf.tensor(v));
      const got = tl.einsum(equation, ...xs), want = reference(tf, ...ys);
      close(got, want, equation);
      // d sum(einsum · w) / d operands, w fixed.
      const weights = Array.from({ length: want.size }, (_, k) => 0.5 + (k % 3) / 2);
      const mine = tl.grads((...ds) => tl.sum(tl.mul(tl.einsum(equation, ...ds), tl.tensor(weights, want.shape))))(xs);
      const theirs = tf.grads((...ds) => tf.sum(tf.mul(reference(tf, ...ds), tf.tensor(weights, want.shape))))(ys);
      mine.forEach((g, k) => close(g, theirs[k], `${equation}: gradient of operand ${k}`));
      tl.dispose([...xs, got, ...mine]);
      tf.dispose([...ys, want, ...theirs]);
    }
  });

  test('tfjs-methods-extra: einsum refuses what TF.js refuses, naming tl.einsum', () => {
    const bad = [['ij', [[2, 2]]], ['ij->ij->ij', [[2, 2]]], ['...i->i', [[2, 2]]], ['ii->i', [[2, 2]]], ['i,i,i->i', [[2], [2], [2]]],
                 ['i->j', [[2]]], ['ij,jk->ik', [[2, 3], [2, 3]]], ['ij,jk->ik', [[2, 3]]]];
    for (const [equation, shapes] of bad) {
      assert.throws(() => tf.einsum(equation, ...shapes.map((s) => tf.ones(s))), Error, `TF.js accepts ${equation}`);
      const xs = shapes.map((s) => tl.ones(s));
      assert.throws(() => tl.einsum(equation, ...xs), { message: /^tl\.einsum: / }, equation);
      tl.dispose(xs);
    }
  });

  test('tfjs-methods-extra: a seed repeats a draw; draws without one differ', () => {
    const draws = {
      truncatedNormal: (seed) => tl.truncatedNormal([50], 1, 2, 'float32', seed),
      randomGamma: (seed) => tl.randomGamma([50], 0.7, 2, 'float32', seed),
      randomStandardNormal: (seed) => tl.randomStandardNormal([50], 'float32', seed),
      randomUniformInt: (seed) => tl.randomUniformInt([50], 0, 1000, seed),
      multinomial: (seed) => tl.multinomial(tl.tensor([[0, 0, 0, 0], [1, 2, 3, 4]]), 50, seed),
    };
    for (const [name, draw] of Object.entries(draws)) {
      const values = (seed) => tl.tidy(() => Array.from(draw(seed).dataSync()));
      assert.deepEqual(values(42), values(42), `${name}: seed 42 twice`);
      assert.notDeepEqual(values(42), values(43), `${name}: seeds 42 and 43`);
      assert.notDeepEqual(values(), values(), `${name}: two unseeded draws`);
    }
    // The rows of one multinomial draw are drawn apart (TF.js repeats one row's draws in every row).
    const rows = tl.tidy(() => tl.multinomial(tl.zeros([2, 4]), 50, 9).arraySync());
    assert.notDeepEqual(rows[0], rows[1]);
  });

  test('tfjs-methods-extra: multinomial traces: the logits are graph inputs, the draws fixed at trace time', () => {
    const sample = tl.function((logits) => tl.multinomial(logits, 200, 3));
    const [first, second] = tl.tidy(() => [sample(tl.tensor([[-30, 30, -30]])), sample(tl.tensor([[30, -30, -30]]))].map((t) => t.arraySync()));
    assert.ok(first[0].every((v) => v === 1), 'logits favouring class 1');
    assert.ok(second[0].every((v) => v === 0), 'logits favouring class 0');
    sample.dispose?.();
  });

  test('tfjs-methods-extra: bad arguments are clear errors naming the function', () => {
    const x2 = tl.ones([2, 2]), x3 = tl.ones([2, 2, 2]), v = tl.ones([3]), one = tl.ones([1]), x4 = tl.ones([1, 1, 1, 3]);
    const kernel = tl.ones([3, 6]), bias = tl.ones([6]), column = tl.ones([2, 1]), flags = tl.ones([1, 2], 'bool');
    const cases = [
      [() => tl.eye(2, 2, [1, 1, 1, 1]), 'InvalidArgument', /tl\.eye: batchShape has 4 dims/],
      [() => tl.eye(-1), 'InvalidArgument', /tl\.eye: numRows/],
      [() => tl.buffer([2, 2], 'float32', [1, 2, 3]), 'ShapeError', /tl\.buffer: values has 3 elements/],
      [() => tl.buffer([2], 'float32').get(2), 'InvalidArgument', /TensorBuffer: coordinate 0 is the number 2/],
      [() => tl.buffer([2, 2]).set(1, 0), 'InvalidArgument', /TensorBuffer: 1 coordinates for a buffer of rank 2/],
      [() => tl.tensor5d([1, 2]), 'InvalidArgument', /tl\.tensor5d: flat values need a shape/],
      [() => tl.tensor6d([[1]]), 'ShapeError', /tl\.tensor6d: values have rank 2/],
      [() => tl.truncatedNormal([2], 0, 1, 'bool'), 'DTypeError', /tl\.truncatedNormal: dtype is 'bool'/],
      [() => tl.randomUniformInt([2], 3, 3), 'InvalidArgument', /tl\.randomUniformInt: maxval 3 is not above minval 3/],
      [() => tl.randomGamma([2], 0), 'InvalidArgument', /tl\.randomGamma: alpha is 0/],
      [() => tl.rand([2], 3), 'InvalidArgument', /tl\.rand: randFunction is the number 3/],
      [() => tl.multinomial(x3, 2), 'ShapeError', /tl\.multinomial: logits have rank 3/],
      [() => tl.multinomial(one, 2), 'InvalidArgument', /tl\.multinomial: logits have 1 outcomes/],
      [() => tl.batchNorm2d(x3, v, v), 'ShapeError', /tl\.batchNorm2d: x has rank 3; expected rank 2/],
      [() => tl.batchNorm4d(x4, x2, v), 'ShapeError', /tl\.batchNorm4d: mean has rank 2; expected rank 4 or 1/],
      [() => tl.movingAverage(v, v, 0.9), 'InvalidArgument', /tl\.movingAverage: zeroDebias is true, so step is required/],
      [() => tl.movingAverage(v, x2, 0.9, 1), 'ShapeError', /tl\.movingAverage: v has shape \[3\] and x \[2,2\]/],
      [() => tl.basicLSTMCell(1, kernel, bias, x2, column, column), 'ShapeError',
       /tl\.basicLSTMCell: lstmKernel has shape \[3,6\]/],
      [() => tl.multiRNNCell([() => null], x2, [x2], [x2]), 'InvalidArgument', /tl\.multiRNNCell: lstmCells\[0\] returned null/],
      [() => tl.signal.frame(x2, 2, 1), 'ShapeError', /tl\.signal\.frame: signal has rank 2/],
      [() => tl.signal.frame(v, 0, 1), 'InvalidArgument', /tl\.signal\.frame: frameLength is the number 0/],
      [() => tl.signal.hannWindow(2.5), 'InvalidArgument', /tl\.cosineWindow: windowLength is the number 2\.5/],
      [() => tl.enclosingPowerOfTwo(0), 'InvalidArgument', /tl\.enclosingPowerOfTwo: value is 0/],
      [() => tl.einsum('ij->ji', flags), 'DTypeError', /tl\.einsum: a bool operand/],
    ];
    const before = tl.memory().numTensors;
    for (const [call, name, message] of cases) assert.throws(call, { name, message }, String(message));
    assert.equal(tl.memory().numTensors, before, 'a failing call leaks no tensor');
    tl.dispose([x2, x3, v, one, x4, kernel, bias, column, flags]);
  });
}

if (!installed) {
  test('tfjs-methods-extra: TensorFlow.js is installed', { skip }, () => assert.fail(missing));
} else {
  await run();
}
