// tl.customGrad against TensorFlow.js 4.22's tf.customGrad (cpu backend, same process): f(...inputs, save) returns
// {value, gradFunc}; the value is the result and the tape takes gradFunc(dy, saved) as the inputs' gradients instead
// of the gradient of f's ops. Each case runs the same function in both libraries and compares values and gradients
// (tl.grad / tl.grads / tl.valueAndGrads / GradientTape vs tf.grad / tf.grads / tf.valueAndGrads). Also: calls chained
// through each other, a non-persistent tape released after its gradient, TF.js' argument checks as errors, and what
// Tracelab does not do (inside a tl.function; second order through gradFunc), each a clear error. Needs TensorFlow.js
// (bench/js, installed by scripts/setup.sh test): without it the comparisons are skipped, or fail when
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

const read = (t) => (Array.isArray(t) ? t.map(read) : { shape: t.shape, dtype: t.dtype, values: Array.from(t.dataSync()) });

function assertClose(got, want, where) {
  if (Array.isArray(want)) {
    assert.equal(got.length, want.length, `${where}: ${got.length} results, TF.js ${want.length}`);
    want.forEach((w, i) => assertClose(got[i], w, `${where}[${i}]`));
    return;
  }
  assert.deepEqual(got.shape, want.shape, `${where}: shape`);
  assert.equal(got.dtype, want.dtype, `${where}: dtype`);
  want.values.forEach((b, i) => {
    const a = got.values[i];
    assert.ok(Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b)), `${where}[${i}]: ${a}, TF.js ${b}`);
  });
}

/**
 * The custom functions, each made for a library: a value whose gradFunc differs from the gradient of f's ops, so a
 * tape that used f's ops would give other numbers.
 */
const CUSTOM = {
  // A straight-through estimator: round forward, identity backward (f's ops have a zero gradient).
  straightThrough: (lib) => lib.customGrad((x) => ({ value: lib.round(x), gradFunc: (dy) => dy })),
  // A clipped gradient: square forward, the gradient clipped to [-1, 1] and scaled by |x| (saved).
  clippedSquare: (lib) => lib.customGrad((x, save) => {
    save([x]);
    return { value: x.square(), gradFunc: (dy, [saved]) => [lib.clipByValue(dy.mul(saved.abs()), -1, 1)] };
  }),
  // Two inputs, a saved intermediate: value a*b, gradients 2*dy*b*exp(a*b)/exp(a*b) and 3*dy.
  twoInputs: (lib) => lib.customGrad((a, b, save) => {
    const e = a.mul(b).exp();
    save([b, e]);
    return { value: a.mul(b), gradFunc: (dy, [sb, se]) => [dy.mul(sb).mul(2).mul(se).div(se), dy.mul(3)] };
  }),
};

const tensors = (lib) => ({
  x: lib.tensor([-2.7, -0.4, 0.6, 1.5, 3.2]),
  a: lib.tensor([[1, 2], [-0.5, 3]]),
  b: lib.tensor([[0.3, -1], [2, 0.25]]),
});

/** The cases: run(lib, custom, inputs) returns a value or values; the same code in both libraries. */
const CASES = {
  'straight-through: value and tl.grad': (lib, { straightThrough }, { x }) => {
    const f = straightThrough(lib);
    return [f(x), lib.grad((v) => f(v).mul(v).sum())(x)];
  },
  'clipped square: valueAndGrad, weighted sum of the output': (lib, { clippedSquare }, { x }) => {
    const f = clippedSquare(lib);
    const { value, grad } = lib.valueAndGrad((v) => f(v).mul(lib.tensor([1, 2, 3, 4, 5])).sum())(x);
    return [value, grad];
  },
  'two inputs: grads of a function of the output': (lib, { twoInputs }, { a, b }) => {
    const f = twoInputs(lib);
    return lib.grads((p, q) => f(p, q).square().sum())([a, b]);
  },
  'two inputs: chained, one call feeding the next': (lib, { twoInputs }, { a, b }) => {
    const f = twoInputs(lib);
    return lib.grads((p, q) => f(p, f(p, q)).sum())([a, b]);
  },
  'mixed with ordinary ops around the call': (lib, { clippedSquare, straightThrough }, { x }) => {
    const f = clippedSquare(lib), g = straightThrough(lib);
    return lib.grad((v) => lib.tanh(g(f(v.mul(0.5)).add(v))).sum())(x);
  },
};

for (const [name, run] of Object.entries(CASES)) {
  test(`customGrad: ${name}, as TF.js`, { skip }, () => {
    const want = tf.tidy(() => read(run(tf, CUSTOM, tensors(tf))));
    const before = tl.memory().numTensors;
    const got = tl.tidy(() => read(run(tl, CUSTOM, tensors(tl))));
    assertClose(got, want, name);
    assert.equal(tl.memory().numTensors, before, `${name}: every tensor disposed`);
  });
}

test('customGrad: a GradientTape (non-persistent, then persistent) takes gradFunc, and releases the call', { skip }, () => {
  const x = tl.tensor([-2.7, 0.6, 3.2]);
  const f = CUSTOM.clippedSquare(tl);
  const want = tf.tidy(() => read(tf.grad((v) => CUSTOM.clippedSquare(tf)(v).sum())(tf.tensor([-2.7, 0.6, 3.2]))));
  const tape = new tl.GradientTape();
  tape.watch(x);
  const y = f(x).sum();
  assertClose(read(tape.gradient(y, x)), want, 'non-persistent');
  assert.throws(() => tape.gradient(y, x), { name: 'InvalidArgument', message: /a non-persistent tape computes one gradient/ });
  assert.throws(() => tape.watch(x), { name: 'InvalidArgument', message: /the tape is closed/ });
  tape.dispose();
  const persistent = new tl.GradientTape({ persistent: true });
  persistent.watch(x);
  const z = f(x).sum();
  for (let i = 0; i < 2; ++i) assertClose(read(persistent.gradient(z, x)), want, `persistent, call ${i}`);
  persistent.dispose();
  assert.equal(tl.memory().numTapes, 0);
});

test('customGrad: without a tape it is f\'s value; with one, f\'s own ops are not differentiated', () => {
  tl.tidy(() => {
    const f = tl.customGrad((x) => ({ value: x.mul(x), gradFunc: (dy) => dy.mul(100) }));
    assert.deepEqual(f(tl.tensor([2, 3])).arraySync(), [4, 9]);
    assert.deepEqual(tl.grad((x) => f(x).sum())(tl.tensor([2, 3])).arraySync(), [100, 100]);
    // A target that does not depend on the call: gradFunc is not called.
    let called = 0;
    const g = tl.customGrad((x) => ({ value: x.neg(), gradFunc: (dy) => { called += 1; return dy; } }));
    const [dx] = tl.grads((x) => { g(x); return x.sum(); })([tl.tensor([1, 2])]);
    assert.deepEqual(dx.arraySync(), [1, 1]);
    assert.equal(called, 0);
  });
});

test('customGrad: TF.js\' checks, and gradFunc\'s results checked, as errors naming tl.customGrad', () => {
  tl.tidy(() => {
    const x = tl.tensor([1, 2]);
    const cases = [
      [() => tl.customGrad(3), /^tl\.customGrad: f is the number 3; expected a function/],
      [() => tl.customGrad((v) => v.exp())(x), /^tl\.customGrad: f returned a tl\.Tensor; expected \{value, gradFunc\}/],
      [() => tl.customGrad(() => ({ value: 3, gradFunc: (dy) => dy }))(x), /value is the number 3/],
      [() => tl.customGrad((v) => ({ value: v.exp() }))(x), /with gradFunc undefined; expected a function/],
      [() => tl.customGrad((v) => ({ value: v.exp(), gradFunc: (dy) => dy }))([1, 2]), /^tl\.customGrad: input 0 is an array of 2 elements; expected a tensor/],
      [() => tl.customGrad((v, save) => { save(v); return { value: v.exp(), gradFunc: (dy) => dy }; })(x), /save takes an array of tensors/],
      [() => tl.grad((v) => tl.customGrad((u) => ({ value: u.exp(), gradFunc: (dy) => [dy, dy] }))(v).sum())(x),
       /gradFunc returned an array of 2 elements; expected 1 gradient, one per input/],
      [() => tl.grad((v) => tl.customGrad((u) => ({ value: u.exp(), gradFunc: () => tl.ones([3]) }))(v).sum())(x),
       { name: 'ShapeError', message: "tl.customGrad: gradFunc's gradient 0 has shape [3]; expected input 0's shape [2]" }],
    ];
    for (const [run, expected] of cases)
      assert.throws(run, expected.name ? expected : { message: expected });
  });
  assert.equal(tl.memory().numTapes, 0, 'the failed calls left no tape behind');
});

test('customGrad: inside a tl.function, and second order through gradFunc, are clear errors', () => {
  tl.tidy(() => {
    const f = tl.customGrad((x) => ({ value: x.square(), gradFunc: (dy) => dy.mul(2) }));
    const traced = tl.function((x) => f(x), { name: 'step' });
    assert.throws(() => traced(tl.tensor([1, 2])),
                  { name: 'InvalidArgument', message: /^tl\.customGrad: called while tl\.function 'step' traces; a graph cannot hold the JavaScript gradFunc/ });
    const s = tl.customGrad((x) => ({ value: x.square(), gradFunc: (dy) => dy.mul(x).mul(2) }));
    assert.throws(() => tl.grad(tl.grad((x) => s(x).sum()))(tl.tensor([1, 2])),
                  { name: 'InvalidArgument', message: /a gradient through gradFunc \(second order\) is not supported/ });
  });
  assert.equal(tl.memory().numTapes, 0);
});

test('customGrad: a tape stopped before its gradient cannot apply gradFunc, and says so', () => {
  tl.tidy(() => {
    const f = tl.customGrad((x) => ({ value: x.square(), gradFunc: (dy) => dy }));
    const x = tl.tensor([1, 2]);
    const tape = new tl.GradientTape({ persistent: true });
    tape.watch(x);
    const y = f(x).sum();
    tape.stopRecording();
    assert.throws(() => tape.gradient(y, x), { name: 'InvalidArgument', message: /has stopped recording/ });
    tape.dispose();
  });
});

test('customGrad: Optimizer.minimize applies gradFunc\'s gradient, as TF.js\' minimize', { skip }, () => {
  const step = (lib, w) => {
    const f = CUSTOM.clippedSquare(lib);
    const optimizer = lib.train.sgd(0.1);
    for (let i = 0; i < 3; ++i) optimizer.minimize(() => f(w.mul(lib.tensor([1, -2, 0.5]))).sum());
    return read(w);
  };
  const want = step(tf, tf.variable(tf.tensor([0.4, 1.5, -3])));
  const w = tl.variable(tl.tensor([0.4, 1.5, -3]), true, 'custom_grad/w');
  assertClose(step(tl, w), want, 'w after 3 steps');
  w.dispose();
});

test('customGrad: the example of docs/js-api.md', () => {
  tl.tidy(() => {
    const straightThrough = tl.customGrad((x) => ({ value: tl.round(x), gradFunc: (dy) => dy }));
    const x = tl.tensor([0.25, 1.75]);
    assert.deepEqual(straightThrough(x).arraySync(), [0, 2]);
    assert.deepEqual(tl.grad((v) => straightThrough(v).mul(v).sum())(x).arraySync(), [0.25, 3.75]);
  });
});
