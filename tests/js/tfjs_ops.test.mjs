// The TF.js functions of wasm/js/tfjs_ops.mjs against TensorFlow.js 4.22's cpu backend in the same process: each
// case is one function of a library (`lib` is tl or tf: the spelling is the same), run on the same inputs in both;
// values agree within float32 tolerance (NaN with NaN, ±inf exactly), gradients of a weighted sum of the outputs
// agree (tl.grads vs tf.grads), and the case run inside a tl.function gives the eager values. Needs TensorFlow.js
// (bench/js, installed by scripts/setup.sh test): without it the tests are skipped, or fail when
// TRACELAB_REQUIRE_TFJS or CI is set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { skip, tf } from './tfjs_oracle.mjs';

const repo = new URL('../..', import.meta.url).pathname;
const dist = process.env.TRACELAB_DIST ?? join(repo, 'build/wasm/dist');
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab({ autograph: false });

/** float32 tolerance (about 3 ulp), relative to the magnitude (at least 1) of TF.js' value. */
const TOLERANCE = 4e-7;
const EDGES = [0, -0.5, 0.5, 1.5, 2.5, -1.5, -2.5, 8388607.5, -8388607.5, 1e10, -1e10, Infinity, -Infinity, NaN, 3.7, -3.7, 1e-8];

function assertClose(actual, expected, where, tolerance = TOLERANCE) {
  assert.equal(actual.length, expected.length, `${where}: ${actual.length} values, TF.js has ${expected.length}`);
  for (let i = 0; i < expected.length; ++i) {
    const a = Number(actual[i]), b = Number(expected[i]);
    if (Number.isNaN(b) || !Number.isFinite(b)) {
      assert.ok(Object.is(a, b) || (a === b), `${where}[${i}]: ${a}, TF.js ${b}`);
      continue;
    }
    assert.ok(Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b)), `${where}[${i}]: ${a}, TF.js ${b}`);
  }
}

/** The tensors of an output (a tensor, an array of them, or an object of them), in a fixed order. */
const tensorsOf = (out) => (Array.isArray(out) ? out.flatMap(tensorsOf)
  : out && typeof out === 'object' && !('dtype' in out) ? Object.keys(out).sort().flatMap((k) => tensorsOf(out[k])) : [out]);

function assertSame(tlOut, tfOut, where, tolerance) {
  const a = tensorsOf(tlOut), b = tensorsOf(tfOut);
  assert.equal(a.length, b.length, `${where}: ${a.length} outputs, TF.js has ${b.length}`);
  a.forEach((t, i) => {
    assert.deepEqual(t.shape, b[i].shape, `${where}: output ${i} shape`);
    assert.equal(t.dtype, b[i].dtype, `${where}: output ${i} dtype`);
    assertClose(t.dataSync(), b[i].dataSync(), `${where}: output ${i}`, tolerance);
  });
}

const make = (lib, [values, shape, dtype = 'float32']) => lib.tensor(values, shape, dtype);
const seq = (n, scale = 1, shift = 0) => Array.from({ length: n }, (_, i) => ((i * 7) % 11 - 5) * scale + shift);

// name: {run(lib, ...xs), inputs: [[values, shape, dtype?], ...], grad: differentiable (float inputs only)}.
const CASES = {
  'floor: edge values': { run: (lib, x) => lib.floor(x), inputs: [[EDGES, [EDGES.length]]], grad: true },
  'ceil: edge values': { run: (lib, x) => lib.ceil(x), inputs: [[EDGES, [EDGES.length]]], grad: true },
  'round: half to even, edge values': { run: (lib, x) => lib.round(x), inputs: [[EDGES, [EDGES.length]]], grad: true },
  'round: int32 as it is': { run: (lib, x) => lib.round(x), inputs: [[[1, -2, 3], [3], 'int32']] },
  // sign(NaN) is NaN, TF.js' 0 (NOTES in scripts/tfjs_compat.mjs; tests/js/tfjs_diff.test.mjs checks it).
  'sign: edge values': { run: (lib, x) => lib.sign(x), inputs: [[EDGES.filter((v) => !Number.isNaN(v)), [EDGES.length - 1]]], grad: true },
  'sign: int32': { run: (lib, x) => lib.sign(x), inputs: [[[4, -2, 0], [3], 'int32']] },
  'leakyRelu: default alpha': { run: (lib, x) => lib.leakyRelu(x), inputs: [[EDGES, [EDGES.length]]], grad: true },
  'leakyRelu: alpha 0.01, method, 2-d': { run: (lib, x) => x.leakyRelu(0.01), inputs: [[seq(12), [3, 4]]], grad: true },
  'elu: edge values': { run: (lib, x) => lib.elu(x), inputs: [[EDGES, [EDGES.length]]], grad: true },
  'elu: gradient at large positives': { run: (lib, x) => x.elu(), inputs: [[[100, 200, -100, 0], [4]]], grad: true },
  'selu: edge values': { run: (lib, x) => lib.selu(x), inputs: [[EDGES, [EDGES.length]]], grad: true },
  'selu: method, 3-d': { run: (lib, x) => x.selu(), inputs: [[seq(24, 0.3), [2, 3, 4]]], grad: true },
  'tile: 2-d': { run: (lib, x) => lib.tile(x, [2, 3]), inputs: [[seq(6), [2, 3]]], grad: true },
  'tile: 1-d method, reps 1 and 0': { run: (lib, x) => [x.tile([1]), x.tile([0])], inputs: [[seq(4), [4]]], grad: true },
  'tile: int32 3-d': { run: (lib, x) => lib.tile(x, [1, 2, 2]), inputs: [[seq(8), [2, 2, 2], 'int32']] },
  'pad: 2-d, constant': { run: (lib, x) => lib.pad(x, [[1, 0], [2, 3]], 7), inputs: [[seq(6), [2, 3]]], grad: true },
  'pad: 1-d method': { run: (lib, x) => x.pad([[0, 2]]), inputs: [[seq(3), [3]]], grad: true },
  'split: even, axis 1': { run: (lib, x) => lib.split(x, 2, 1), inputs: [[seq(12), [3, 4]]], grad: true },
  'split: sizes with -1, axis -1': { run: (lib, x) => x.split([1, -1, 1], -1), inputs: [[seq(15), [3, 5]]], grad: true },
  'unstack: axis 0 and 1': { run: (lib, x) => [...lib.unstack(x), ...x.unstack(1)], inputs: [[seq(6), [2, 3]]], grad: true },
  'linspace: 0..1 in 5, 3..-2 in 7, one value': {
    run: (lib) => [lib.linspace(0, 1, 5), lib.linspace(3, -2, 7), lib.linspace(4, 9, 1)], inputs: [] },
  'batchNorm: 2-d, rank-1 moments, offset and scale': {
    run: (lib, x, m, v, o, s) => lib.batchNorm(x, m, v, o, s, 0.01),
    inputs: [[seq(12), [4, 3]], [[0.5, -1, 2], [3]], [[1, 0.25, 4], [3]], [[0.1, 0.2, 0.3], [3]], [[2, -1, 0.5], [3]]], grad: true },
  'batchNorm: 4-d method, no offset or scale, default epsilon': {
    run: (lib, x, m, v) => x.batchNorm(m, v), inputs: [[seq(16), [1, 2, 2, 4]], [seq(4, 0.1), [4]], [[1, 2, 3, 4], [4]]] },
  'moments: all axes': { run: (lib, x) => lib.moments(x), inputs: [[seq(12, 0.5), [3, 4]]], grad: true },
  'moments: axis 0 keepDims, axes [0, 2]': {
    run: (lib, x) => [lib.moments(x, 0, true), lib.moments(x, [0, 2])], inputs: [[seq(24, 0.5, 1), [2, 3, 4]]], grad: true },
  'norm: euclidean, 1, inf, -inf over a vector': {
    run: (lib, x) => [lib.norm(x), lib.norm(x, 1), x.norm(Infinity), lib.norm(x, -Infinity), lib.norm(x, 2)],
    inputs: [[seq(7, 0.5, 0.1), [7]]], grad: true },
  'norm: matrix axes, keepDims, fro, 1, inf': {
    run: (lib, x) => [lib.norm(x, 'fro', [0, 1]), lib.norm(x, 1, [0, 1]), lib.norm(x, Infinity, [0, 1], true),
                      lib.norm(x, -Infinity, [0, 1]), lib.norm(x, 'euclidean', 1, true), lib.norm(x, 2, -1)],
    inputs: [[seq(12, 0.5, 0.1), [3, 4]]], grad: true },
  'norm: scalar and 3-d without axis': { run: (lib, s, x) => [lib.norm(s), lib.norm(x)],
    inputs: [[-3, []], [seq(8, 0.25, 0.1), [2, 2, 2]]], grad: true },
  'dot: vector·vector, vector·matrix, matrix·vector, matrix·matrix': {
    run: (lib, v, m, w) => [lib.dot(v, v), lib.dot(v, m), lib.dot(m.transpose(), v), v.dot(v), lib.dot(m, w)],
    inputs: [[seq(3), [3]], [seq(12, 0.5), [3, 4]], [seq(8, 0.25), [4, 2]]], grad: true },
  'outerProduct': { run: (lib, a, b) => lib.outerProduct(a, b), inputs: [[seq(3), [3]], [seq(4, 0.5), [4]]], grad: true },
  'cumsum: axis 0, exclusive, reverse, both': {
    run: (lib, x) => [lib.cumsum(x), lib.cumsum(x, 0, true), lib.cumsum(x, 0, false, true), x.cumsum(0, true, true)],
    inputs: [[seq(9, 0.5, 0.25), [9]]], grad: true },
  'cumsum: 2-d axis 1 and 0, with inf': {
    run: (lib, x) => [lib.cumsum(x, 1), lib.cumsum(x, 0)], inputs: [[[1, Infinity, 2, -1, 3, 4, 5, 6], [2, 4]]] },
  'cumsum: int32': { run: (lib, x) => lib.cumsum(x, 1), inputs: [[seq(10), [2, 5], 'int32']] },
  'topk: k 1, 3 and all, ties and infinities': {
    run: (lib, x) => [lib.topk(x), lib.topk(x, 3), x.topk(6)], inputs: [[[2, -Infinity, 5, 2, Infinity, 5], [6]]] },
  'topk: 2-d rows': { run: (lib, x) => lib.topk(x, 2), inputs: [[seq(12, 0.5, 0.1), [3, 4]]] },
  'topk: int32, k 0': { run: (lib, x) => [lib.topk(x, 2), lib.topk(x, 0)], inputs: [[[3, 1, 4, 1, 5, 9], [2, 3], 'int32']] },
};

const LOSS_INPUTS = [[seq(12, 0.1, 0.5), [3, 4]], [seq(12, 0.15, 0.41), [3, 4]], [[1, 0, 2], [3, 1]]];
// Each loss with its own arguments; r the reduction (undefined: the default).
const LOSSES = {
  absoluteDifference: (lib, l, p, w, r) => lib.losses.absoluteDifference(l, p, w, r),
  meanSquaredError: (lib, l, p, w, r) => lib.losses.meanSquaredError(l, p, w, r),
  hingeLoss: (lib, l, p, w, r) => lib.losses.hingeLoss(l, p, w, r),
  cosineDistance: (lib, l, p, w, r) => lib.losses.cosineDistance(l, p, 1, w, r),
  huberLoss: (lib, l, p, w, r) => lib.losses.huberLoss(l, p, w, 0.1, r),
  logLoss: (lib, l, p, w, r) => lib.losses.logLoss(l, lib.sigmoid(p), w, 1e-4, r),
  sigmoidCrossEntropy: (lib, l, p, w, r) => lib.losses.sigmoidCrossEntropy(l, p, w, 0.1, r),
  softmaxCrossEntropy: (lib, l, p, w, r) =>
    lib.losses.softmaxCrossEntropy(lib.softmax(l), p, w && lib.reshape(w, [3]), 0.2, r),
};
for (const [name, loss] of Object.entries(LOSSES)) {
  CASES[`losses.${name}: no weights, weights, every reduction`] = {
    run: (lib, l, p, w) => [loss(lib, l, p), loss(lib, l, p, w), ...[0, 1, 2, 3].map((r) => loss(lib, l, p, w, r))],
    // TF.js' softmaxCrossEntropy gradient is dy * (softmax - labels), the derivative for the logits only when each
    // row of labels adds up to 1 (the labels here are softmaxes), and not the derivative for the labels: left out.
    inputs: LOSS_INPUTS, grad: true, differentiable: name === 'softmaxCrossEntropy' ? [1] : [0, 1] };
}
CASES['losses.computeWeightedLoss: every reduction, zero weights'] = {
  run: (lib, losses, w) => [lib.losses.computeWeightedLoss(losses), ...[0, 1, 2, 3].map((r) => lib.losses.computeWeightedLoss(losses, w, r))],
  inputs: [[seq(6, 0.5, 3), [2, 3]], [[0, 2, 1], [1, 3]]], grad: true, differentiable: [0] };

const withLib = (lib, c) => () => {
  const xs = c.inputs.map((spec) => make(lib, spec));
  return { xs, out: c.run(lib, ...xs) };
};

/**
 * d sum_i(output_i * weights_i) / d inputs, in either library: the inputs c.differentiable lists (all by default;
 * TF.js differentiates no loss with respect to its weights), the others held constant.
 */
const weightedGrads = (lib, c, xs) => {
  const which = c.differentiable ?? xs.map((_, i) => i);
  return lib.grads((...chosen) => {
    const inputs = xs.map((x, i) => (which.includes(i) ? chosen[which.indexOf(i)] : x));
    const outs = tensorsOf(c.run(lib, ...inputs));
    return outs.map((t) => lib.sum(lib.mul(t, lib.tensor(seq(t.size, 0.3, 1), t.shape))))
      .reduce((a, b) => lib.add(a, b));
  })(which.map((i) => xs[i]));
};

for (const [name, c] of Object.entries(CASES)) {
  test(`tfjs ops/${name}: values as TF.js' cpu backend`, { skip }, () => {
    const expected = tf.tidy(withLib(tf, c));
    tl.tidy(() => assertSame(withLib(tl, c)().out, expected.out, name));
    tf.dispose(expected);
  });
  test(`tfjs ops/${name}: a tl.function gives the eager values`, { skip }, () => {
    tl.tidy(() => {
      const { xs, out } = withLib(tl, c)();
      const traced = tl.function((...inputs) => tensorsOf(c.run(tl, ...inputs)));
      const got = traced(...xs);
      const eager = tensorsOf(out);
      assert.equal(got.length, eager.length);
      got.forEach((t, i) => assertSame(t, eager[i], `${name} traced`, 0));
    });
  });
  if (!c.grad) continue;
  test(`tfjs ops/${name}: gradients as TF.js'`, { skip }, () => {
    const expected = tf.tidy(() => weightedGrads(tf, c, c.inputs.map((spec) => make(tf, spec))));
    tl.tidy(() => {
      const got = weightedGrads(tl, c, c.inputs.map((spec) => make(tl, spec)));
      got.forEach((g, i) => assertSame(g, expected[i], `${name}: d/d input ${i}`, 1e-5));
    });
    tf.dispose(expected);
  });
}

test('tfjs ops/tensor1d..4d: values, shapes, dtypes, and their errors', { skip }, () => {
  tl.tidy(() => {
    const pairs = [[(lib) => lib.tensor1d([1, 2, 3]), 't1'], [(lib) => lib.tensor1d([1, 2], 'int32'), 't1 int'],
                   [(lib) => lib.tensor2d([[1, 2], [3, 4]]), 't2'], [(lib) => lib.tensor2d([1, 2, 3, 4, 5, 6], [3, 2]), 't2 flat'],
                   [(lib) => lib.tensor3d([[[1], [2]]], undefined, 'int32'), 't3'], [(lib) => lib.tensor4d([1, 2], [1, 1, 2, 1]), 't4']];
    for (const [f, where] of pairs) assertSame(f(tl), f(tf), where, 0);
  });
  assert.throws(() => tl.tensor1d([[1]]), { name: 'InvalidArgument', message: /tl\.tensor1d/ });
  assert.throws(() => tl.tensor2d([1, 2]), { name: 'InvalidArgument', message: /tl\.tensor2d: flat values need a shape/ });
  assert.throws(() => tl.tensor2d([1, 2], [2]), { name: 'ShapeError', message: /tl\.tensor2d: shape/ });
  assert.throws(() => tl.tensor3d([[1, 2]]), { name: 'ShapeError', message: /tl\.tensor3d: values have rank 2/ });
});

test('tfjs ops/grad, valueAndGrad, grads, valueAndGrads: as TF.js, with and without dy', { skip }, () => {
  const f = (lib) => (x) => lib.mul(lib.square(x), x);
  const x = [1, -2, 3], dy = [0.5, 2, -1];
  tl.tidy(() => {
    assertSame(tl.grad(f(tl))(tl.tensor(x)), tf.grad(f(tf))(tf.tensor(x)), 'grad');
    assertSame(tl.grad(f(tl))(tl.tensor(x), tl.tensor(dy)), tf.grad(f(tf))(tf.tensor(x), tf.tensor(dy)), 'grad with dy');
    const a = tl.valueAndGrad(f(tl))(tl.tensor(x), tl.tensor(dy)), b = tf.valueAndGrad(f(tf))(tf.tensor(x), tf.tensor(dy));
    assertSame([a.value, a.grad], [b.value, b.grad], 'valueAndGrad');
    const g = (lib) => (p, q) => lib.sum(lib.mul(p, lib.exp(q)));
    assertSame(tl.grads(g(tl))([tl.tensor(x), tl.tensor(dy)]), tf.grads(g(tf))([tf.tensor(x), tf.tensor(dy)]), 'grads');
    const c = tl.valueAndGrads(g(tl))([tl.tensor(x), tl.tensor(dy)]), d = tf.valueAndGrads(g(tf))([tf.tensor(x), tf.tensor(dy)]);
    assertSame([c.value, ...c.grads], [d.value, ...d.grads], 'valueAndGrads');
  });
  // A result that does not depend on x: an error, as TF.js throws.
  assert.throws(() => tf.grad(() => tf.scalar(2))(tf.tensor([1])));
  assert.throws(() => tl.grad(() => tl.scalar(2))(tl.tensor([1])), { name: 'InvalidArgument', message: /tl\.grad: the result of f does not depend on x/ });
  assert.throws(() => tl.grad((x) => x)([1, 2]), { name: 'InvalidArgument', message: /tl\.grad: x is/ });
  assert.throws(() => tl.grad(3), { name: 'InvalidArgument', message: /tl\.grad: f is/ });
  assert.throws(() => tl.grad((x) => x)(tl.tensor([1]), tl.tensor([1, 2])), { name: 'ShapeError', message: /tl\.grad: dy has shape \[2\]/ });
  assert.throws(() => tl.grad(() => 3)(tl.tensor([1])), { name: 'InvalidArgument', message: /tl\.grad: f must return a tensor/ });
  assert.throws(() => tl.valueAndGrad(null), { name: 'InvalidArgument', message: /tl\.valueAndGrad: f is null/ });
  const before = tl.memory().numTensors, x1 = tl.tensor([1, 2]), dy3 = tl.ones([3]);
  assert.throws(() => tl.valueAndGrad((t) => tl.square(t))(x1, dy3), { name: 'ShapeError' });
  tl.dispose([x1, dy3]);
  assert.equal(tl.memory().numTensors, before, 'a failed call leaves no tensors behind');
});

test('tfjs ops/dropout: zeros or x / (1 - rate), about rate dropped, noiseShape, seed repeats, rate 0', { skip }, () => {
  tl.tidy(() => {
    const x = tl.ones([200, 50]);
    const y = tl.dropout(x, 0.3, undefined, 7).dataSync();
    const dropped = y.filter((v) => v === 0).length / y.length;
    assert.ok(y.every((v) => v === 0 || Math.abs(v - 1 / 0.7) < 1e-6), 'entries 0 or 1 / keep');
    assert.ok(Math.abs(dropped - 0.3) < 0.02, `dropped ${dropped}`);
    assert.deepEqual(tl.dropout(x, 0.3, undefined, 7).dataSync(), y, 'a seed repeats');
    const rows = tl.dropout(x, 0.5, [200, 1], 3).arraySync();
    assert.ok(rows.every((row) => row.every((v) => v === row[0])), 'noiseShape [200, 1]: one draw per row');
    assert.deepEqual(tl.dropout(tl.tensor([1, 2]), 0).dataSync(), new Float32Array([1, 2]));
    const g = tl.grad((t) => tl.dropout(t, 0.5, undefined, 11))(x).dataSync();
    assert.deepEqual(g, tl.dropout(x, 0.5, undefined, 11).dataSync(), 'gradient: the mask times 1 / keep');
  });
  assert.throws(() => tl.dropout(tl.ones([2]), 1), { name: 'InvalidArgument', message: /tl\.dropout: rate is 1; expected a number in \[0, 1\)/ });
  assert.throws(() => tl.dropout(tl.ones([2], 'int32'), 0.5), { name: 'DTypeError', message: /tl\.dropout: x is int32/ });
});

test('tfjs ops/errors: TF.js\' checks as Tracelab errors naming the function', { skip }, () => {
  const x = tl.tensor([[1, 2], [3, 4]]);
  const cases = [
    [() => tl.tile(x, [2]), 'ShapeError', /tl\.tile: reps has 1 entries; expected one per dimension of x \(rank 2\)/],
    [() => tl.tile(x, [1, -1]), 'InvalidArgument', /tl\.tile: reps\[1\]/],
    [() => tl.pad(tl.scalar(1), []), 'InvalidArgument', /tl\.pad: x is a scalar/],
    [() => tl.pad(x, [[1, 1]]), 'InvalidArgument', /tl\.pad: paddings is .*expected 2 pairs/],
    [() => tl.split(x, 3), 'ShapeError', /tl\.split: 3 splits do not evenly divide dimension 0 of x \(2\)/],
    [() => tl.split(x, [1, -1, -1], 1), 'InvalidArgument', /more than one -1/],
    [() => tl.split(x, [1, 2], 1), 'ShapeError', /do not add up to dimension 1/],
    [() => tl.unstack(x, 2), 'InvalidArgument', /tl\.unstack: axis 2 is out of range for rank 2/],
    [() => tl.linspace(0, 1, 0), 'InvalidArgument', /tl\.linspace: num is 0/],
    [() => tl.batchNorm(x, [1, 2], [[1, 2]]), 'ShapeError', /tl\.batchNorm: mean is rank 1 and variance rank 2/],
    [() => tl.norm(x, 3), 'InvalidArgument', /tl\.norm: ord is the number 3/],
    [() => tl.norm(tl.ones([2, 2, 2]), 'fro', [0, 1, 2]), 'InvalidArgument', /tl\.norm: axis/],
    [() => tl.floor(tl.tensor([1], [1], 'int32')), 'DTypeError', /floor: input 0 must be float32, got int32/],
    [() => tl.ceil('a'), 'InvalidArgument', /ceil: input 0: expected a tensor .*got the string 'a'/],
    [() => tl.sign(tl.tensor([true])), 'DTypeError', /sign: input 0 must be float32 or int32, got bool/],
    [() => tl.elu(tl.tensor([1], [1], 'int32')), 'DTypeError', /tl\.elu: x is int32/],
    [() => tl.topk(tl.scalar(1)), 'InvalidArgument', /tl\.topk: x is a scalar/],
    [() => tl.topk(x, 3), 'InvalidArgument', /tl\.topk: k is 3; expected at most the last dimension \(2\)/],
    [() => tl.topk(x, -1), 'InvalidArgument', /tl\.topk: k/],
    [() => tl.cumsum(x, 2), 'InvalidArgument', /tl\.cumsum: axis 2 is out of range/],
    [() => tl.cumsum(x, 0, 1), 'InvalidArgument', /tl\.cumsum: exclusive is the number 1/],
    [() => tl.dot(tl.ones([2, 2, 2]), x), 'ShapeError', /tl\.dot: inputs must be rank 1 or 2, got ranks 3 and 2/],
    [() => tl.dot(x, tl.ones([3])), 'ShapeError', /tl\.dot: inner dimensions must match, got \[2,2\] and \[3\]/],
    [() => tl.outerProduct(x, tl.ones([2])), 'ShapeError', /tl\.outerProduct: inputs must be rank 1, got ranks 2 and 1/],
    [() => tl.losses.absoluteDifference(x, tl.ones([2])), 'ShapeError', /tl\.losses\.absoluteDifference: labels have shape \[2,2\] and predictions \[2\]/],
    [() => tl.losses.meanSquaredError(x, x, null, 7), 'InvalidArgument', /tl\.losses\.meanSquaredError: reduction is the number 7/],
    [() => tl.losses.huberLoss(x, x, undefined, 'a'), 'InvalidArgument', /tl\.losses\.huberLoss: delta/],
  ];
  for (const [f, name, message] of cases) assert.throws(f, { name, message });
  x.dispose();
});

test('tfjs ops/losses: the Keras-named tl.losses keep working beside tfjs-core\'s', () => {
  tl.tidy(() => {
    const y = tl.tensor([[0, 1], [1, 0]]), p = tl.tensor([[0.2, 0.8], [0.6, 0.4]]);
    assert.ok(Math.abs(tl.losses.meanSquaredError(y, p).dataSync()[0] - 0.1) < 1e-6, 'Keras mean squared error');
    assert.ok(Math.abs(tl.losses.meanSquaredError(y, p, { fromLogits: false }).dataSync()[0] - 0.1) < 1e-6);
    assert.ok(Math.abs(tl.losses.meanSquaredError(y, p, tl.tensor([[1], [0]])).dataSync()[0] - 0.04) < 1e-6, 'weighted');
    assert.equal(typeof tl.losses.categoricalCrossentropy, 'function');
    assert.equal(typeof tl.losses.sparseCategoricalCrossentropy, 'function');
    assert.equal(tl.losses.Reduction.SUM, tl.Reduction.SUM);
  });
});

test('tfjs ops/util and nextFrame: as tf.util', { skip }, async () => {
  assert.equal(tl.util.sizeFromShape([2, 3, 4]), tf.util.sizeFromShape([2, 3, 4]));
  assert.equal(tl.util.sizeFromShape([]), tf.util.sizeFromShape([]));
  const nested = [[1, [2, 3]], [new Float32Array([4, 5])], 6];
  assert.deepEqual(tl.util.flatten(nested), tf.util.flatten(nested));
  assert.deepEqual(tl.util.flatten(nested, [], true), tf.util.flatten(nested, [], true));
  assert.equal(tl.util.arraysEqual([1, 2], [1, 2]), true);
  assert.equal(tl.util.arraysEqual(new Int32Array([1, 2]), [1, 3]), false);
  assert.equal(tl.util.arraysEqual([1], [1, 2]), false);
  const a = Array.from({ length: 50 }, (_, i) => i);
  tl.util.shuffle(a);
  assert.deepEqual([...a].sort((p, q) => p - q), Array.from({ length: 50 }, (_, i) => i));
  assert.notDeepEqual(a, Array.from({ length: 50 }, (_, i) => i));
  const indices = tl.util.createShuffledIndices(40);
  assert.ok(indices instanceof Uint32Array);
  assert.deepEqual([...indices].sort((p, q) => p - q), Array.from({ length: 40 }, (_, i) => i));
  assert.throws(() => tl.util.assert(false, () => 'no good'), { name: 'InvalidArgument', message: 'no good' });
  tl.util.assert(true, () => 'unused');
  const t0 = tl.util.now();
  await tl.nextFrame();
  assert.ok(tl.util.now() >= t0);
});

test('tfjs ops/methods: the new Tensor methods exist and match the functions', () => {
  tl.tidy(() => {
    const x = tl.tensor([[1.5, -2.5], [0.5, 3]]);
    for (const name of ['floor', 'ceil', 'round', 'sign', 'elu', 'selu', 'leakyRelu'])
      assert.deepEqual(x[name]().dataSync(), tl[name](x).dataSync(), name);
    assert.deepEqual(x.tile([1, 2]).shape, [2, 4]);
    assert.equal(x.split(2).length, 2);
    assert.deepEqual(x.cumsum(1).dataSync(), tl.cumsum(x, 1).dataSync());
  });
});

test('tfjs ops/leaks: composites dispose their intermediates', () => {
  const before = tl.memory().numTensors;
  const x = tl.tensor([[1.5, -2.5, 3], [0.5, 3, -1]]);
  const outs = [tl.round(x), tl.topk(x, 2), tl.cumsum(x, 1), tl.norm(x), tl.split(x, 3, 1), tl.moments(x),
                tl.losses.huberLoss(x, x), tl.tile(x, [2, 1]), tl.grad((t) => tl.selu(t))(x)];
  const results = tensorsOf(outs).length;
  assert.equal(tl.memory().numTensors, before + 1 + results, 'only x and the results stay');
  tl.dispose([x, outs]);
  assert.equal(tl.memory().numTensors, before);
});
