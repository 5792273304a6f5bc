// A tl.function that returns a structure of tensors, as tf.function returns dicts: plain objects ({loss, logits}) and
// arrays nested at any depth come back in the structure fn returned, from the graph as from the trace; the trace
// key, and so the retracing count, does not depend on it; gradients flow through each leaf; f.dataSync and
// f.arraySync keep the structure. Leaves follow TF's rule for a tf.function's outputs: a number or boolean becomes a
// constant tensor, null and undefined stay as they are (TF's None), anything else is an error naming its path. A
// saved model keeps the leaves flat, in nest's order (arrays in order, objects by sorted key).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

/** The structure with each tensor replaced by {dtype, shape, values}: comparable with deepEqual. */
const readAll = (value) => (value instanceof tl.Tensor ? { dtype: value.dtype, shape: value.shape, values: value.arraySync() }
  : Array.isArray(value) ? value.map(readAll)
  : value !== null && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, readAll(v)]))
  : value);

/** A small model's step: logits, loss, and a nested record of both. */
const model = (x, w) => {
  const logits = tl.matMul(x, w);
  const loss = logits.square().mean();
  return { logits, loss, parts: [logits.sum(), { max: logits.max(), min: [logits.min()] }] };
};
const x = tl.tensor([[1, 2], [3, -1]]), w = tl.tensor([[0.5], [-1]]);

test('function structures: an object of tensors and nested arrays / objects come back as fn returned them', () => {
  tl.tidy(() => {
    const f = tl.function(model);
    const eager = readAll(model(x, w));
    const first = f(x, w), second = f(x, w);
    assert.deepEqual(readAll(first), eager, 'the traced call');
    assert.deepEqual(readAll(second), eager, 'a call of the cached graph');
    assert.deepEqual(Object.keys(second), ['logits', 'loss', 'parts'], "fn's key order");
    // Keys in another order than sorted: the leaves are flattened by sorted key and rebuilt in fn's order.
    const g = tl.function((a) => ({ zeta: a.neg(), alpha: a.square(), mid: [a.add(1)] }));
    g(x);
    const out = g(x);
    assert.deepEqual(Object.keys(out), ['zeta', 'alpha', 'mid']);
    assert.deepEqual(readAll(out), readAll({ zeta: x.neg(), alpha: x.square(), mid: [x.add(1)] }));
    // A structure of arrays only: arrays of arrays.
    const h = tl.function((a) => [[a.sum()], [a.max(), [a.min()]]]);
    h(x);
    assert.deepEqual(readAll(h(x)), readAll([[x.sum()], [x.max(), [x.min()]]]));
  });
});

test('function structures: the retracing count does not change, and each concrete function keeps its structure', () => {
  tl.tidy(() => {
    const f = tl.function(model);
    for (let i = 0; i < 3; ++i) f(x, w);
    assert.equal(f.tracingCount, 1);
    f(tl.ones([3, 2]), w);
    assert.equal(f.tracingCount, 2);
    assert.deepEqual(f.calls.map((c) => c.traced), [true, false, false, true]);
    // Two concrete functions of different structures: each call gets the structure of the one it ran.
    const g = tl.function((a) => (a.rank === 1 ? { neg: a.neg() } : [a.square(), { sum: a.sum() }]));
    const v = tl.tensor([1, 2]);
    for (let i = 0; i < 2; ++i) {
      assert.deepEqual(readAll(g(v)), { neg: readAll(v.neg()) });
      assert.deepEqual(readAll(g(x)), [readAll(x.square()), { sum: readAll(x.sum()) }]);
    }
    assert.equal(g.tracingCount, 2);
    // A concrete function traced by getConcreteFunction, then called.
    const k = tl.function((a) => ({ double: a.mul(2) }));
    k.getConcreteFunction(new tl.TensorSpec([2]));
    assert.deepEqual(readAll(k(v)), { double: readAll(v.mul(2)) });
    assert.equal(k.tracingCount, 1);
  });
});

test('function structures: f.dataSync and f.arraySync keep the structure', () => {
  tl.tidy(() => {
    const f = tl.function(model);
    const eager = readAll(model(x, w));
    for (let i = 0; i < 2; ++i) {  // the traced call, then the staged one
      const arrays = f.arraySync(x, w);
      assert.deepEqual(arrays, { logits: eager.logits.values, loss: eager.loss.values,
                                 parts: [eager.parts[0].values, { max: eager.parts[1].max.values, min: [eager.parts[1].min[0].values] }] });
      const data = f.dataSync(x, w);
      assert.ok(data.logits instanceof Float32Array && data.parts[1].min[0] instanceof Float32Array);
      assert.deepEqual(Array.from(data.logits), eager.logits.values.flat());
    }
    // Arguments that are not all tensors take the other path, with the same result.
    const g = tl.function((a, k) => ({ scaled: a.mul(k), rows: [a.sum(1)] }));
    assert.deepEqual(g.arraySync(x, 2), { scaled: x.mul(2).arraySync(), rows: [x.sum(1).arraySync()] });
  });
});

test('function structures: gradients flow through a leaf of the structure', () => {
  tl.tidy(() => {
    const f = tl.function(model);
    const lossOf = (fn) => (v) => fn(x, v).loss;
    const [traced] = tl.grads(lossOf(f))([w]);
    const [eager] = tl.grads(lossOf(model))([w]);
    assert.deepEqual(readAll(traced), readAll(eager));
    // A tape over a call, the target another leaf, the variable captured by the function.
    const v = tl.variable(tl.tensor([[1], [2]]), true, 'structures/v');
    const g = tl.function((a) => ({ out: { y: tl.matMul(a, v).sum() } }));
    const tape = new tl.GradientTape();
    const result = g(x);
    const [dv] = tape.gradient(result.out.y, [v]);
    tape.dispose();
    assert.deepEqual(dv.arraySync(), [[4], [1]]);
    v.dispose();
  });
});

test('function structures: numbers and booleans become constant tensors, null and undefined stay, other leaves fail', () => {
  tl.tidy(() => {
    const f = tl.function((a) => ({ y: a.neg(), scale: 2.5, step: 3, done: true, none: null, nothing: undefined, list: [1, a] }));
    for (let i = 0; i < 2; ++i) {
      const out = f(x);
      assert.deepEqual(readAll(out), {
        y: readAll(x.neg()),
        scale: { dtype: 'float32', shape: [], values: 2.5 },
        step: { dtype: 'float32', shape: [], values: 3 },  // a number is float32, as TF.js infers it
        done: { dtype: 'bool', shape: [], values: true },
        none: null,
        nothing: undefined,
        list: [{ dtype: 'float32', shape: [], values: 1 }, readAll(x)],
      });
      assert.ok(Object.hasOwn(out, 'nothing'));
    }
    const bad = [
      [() => ({ a: 'text' }), /^bad: result\.a is the string 'text'; a tl\.function returns tensors, numbers or booleans/],
      [() => [tl.scalar(1), { f: () => 1 }], /^bad: result\[1\]\.f is a function;/],
      [() => ({ m: new Map() }), /^bad: result\.m is a Map;/],
      [() => ({ 'odd key': [1n] }), /^bad: result\["odd key"\]\[0\] is the BigInt 1n;/],
    ];
    for (const [fn, message] of bad) {
      const g = tl.function(fn, { name: 'bad' });
      assert.throws(() => g(), { name: 'InvalidArgument', message });
      assert.equal(g.tracingCount, 0, 'a failed trace caches nothing');
    }
  });
});

test('function structures: the same structures when functions run eagerly', () => {
  tl.config.runFunctionsEagerly(true);
  try {
    tl.tidy(() => {
      const f = tl.function(model);
      assert.deepEqual(readAll(f(x, w)), readAll(model(x, w)));
      assert.deepEqual(f.arraySync(x, w).parts[1].min, [readAll(model(x, w)).parts[1].min[0].values]);
    });
  } finally {
    tl.config.runFunctionsEagerly(false);
  }
});

test('function structures: a saved model keeps the leaves flat, in nest order', () => {
  tl.tidy(() => {
    const f = tl.function((a) => ({ sq: a.square(), neg: a.neg(), both: [a.add(1), a] }),
                          { inputSignature: [new tl.TensorSpec([null])] });
    const loaded = tl.savedModel.load(tl.savedModel.save({ f }));
    const v = tl.tensor([1, 2]);
    const out = loaded.functions.f(v);
    // Sorted keys: both (two leaves), neg, sq.
    assert.deepEqual(out.map((t) => t.arraySync()), [[2, 3], [1, 2], [-1, -2], [1, 4]]);
    assert.equal(loaded.signatures.f.outputs.length, 4);
    loaded.dispose();
  });
});
