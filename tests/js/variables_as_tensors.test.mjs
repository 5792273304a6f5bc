// tl.Variable is a tl.Tensor (as tf.Variable extends tf.Tensor): every Tensor method and every op takes it and reads
// its current value, inside tl.function through a read node of the graph; tapes and optimizers keep working; no
// tensor leaks. Binary ops promote mixed dtypes as TF.js does (bool < int32 < float32), checked against TF.js 4.22's
// cpu backend in this process. The Tensor methods come from the one table of ops.mjs (engine.addOps extends it) and
// are the TF.js Tensor methods of the tl functions. Without bench/js/node_modules the TF.js comparisons are skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab({ autograph: false });

const benchJs = fileURLToPath(new URL('../../bench/js/package.json', import.meta.url));
const tfjsMissing = existsSync(new URL('../../bench/js/node_modules/@tensorflow/tfjs', import.meta.url)) ? false
  : 'TensorFlow.js is not installed in bench/js/node_modules (scripts/setup.sh test, or npm ci --prefix bench/js)';
let tf = null;
if (!tfjsMissing) {
  const log = console.log;  // TF.js' note about tfjs-node on loading
  console.log = () => {};
  try {
    tf = createRequire(benchJs)('@tensorflow/tfjs');
    await tf.setBackend('cpu');
  } finally {
    console.log = log;
  }
}

const numTensors = () => tl.memory().numTensors;
/** {dtype, shape, values} of a tensor (TF.js' or Tracelab's), values as a plain array. */
const read = (t) => ({ dtype: t.dtype, shape: [...t.shape], values: Array.from(t.dataSync(), Number) });

test('variables as tensors: a Variable is a Tensor; its members and methods read the current value', () => {
  const v = tl.variable(tl.tensor([[1, 2], [3, 4]]), true, 'w');
  try {
    assert.ok(v instanceof tl.Tensor && v instanceof tl.Variable);
    assert.deepEqual([v.shape, v.dtype, v.rank, v.size, v.name, v.trainable], [[2, 2], 'float32', 2, 4, 'w', true]);
    const before = numTensors();
    assert.deepEqual(Array.from(v.dataSync()), [1, 2, 3, 4]);
    assert.deepEqual(v.arraySync(), [[1, 2], [3, 4]]);
    assert.match(v.toString(), /values=\[\[1\. 2\.\]/);
    assert.equal(`${v}`, v.toString());
    const printed = [];
    const log = console.log;
    console.log = (text) => printed.push(text);
    try { v.print(); } finally { console.log = log; }
    assert.deepEqual(printed, [v.toString()]);
    assert.equal(numTensors(), before, 'reads for dataSync, toString and print are disposed');

    tl.tidy(() => {
      assert.deepEqual(read(v.mul(2)), { dtype: 'float32', shape: [2, 2], values: [2, 4, 6, 8] });
      assert.deepEqual(read(v.add(1).square()).values, [4, 9, 16, 25]);
      assert.deepEqual(read(v.matMul(v)).values, [7, 10, 15, 22]);
      assert.deepEqual(read(v.sum(1)).values, [3, 7]);
      assert.deepEqual(read(v.reshape([4])).values, [1, 2, 3, 4]);
      assert.deepEqual(read(v.flatten()), { dtype: 'float32', shape: [4], values: [1, 2, 3, 4] });
      assert.deepEqual(read(v.asType('int32')).dtype, 'int32');
      // Every op accepts it, in any argument.
      assert.deepEqual(read(tl.add(1, v)).values, [2, 3, 4, 5]);
      assert.deepEqual(read(tl.concat([v, tl.ones([1, 2])])).shape, [3, 2]);
      assert.deepEqual(read(tl.stack([v, v])).shape, [2, 2, 2]);
      assert.deepEqual(read(tl.where(tl.tensor([[true, false], [false, true]]), v, tl.zeros([2, 2]))).values, [1, 0, 0, 4]);
      assert.deepEqual(read(tl.gather(v, [1])).values, [3, 4]);
      assert.deepEqual(read(tl.maximum(tl.zeros([2, 2]), v)).values, [1, 2, 3, 4]);
    });
    assert.equal(numTensors(), before, 'tidy disposes what the methods made and the reads of the variable');

    // After assign (and assignAdd, assignSub) every read sees the new value.
    tl.tidy(() => v.assign(tl.tensor([[5, 6], [7, 8]])));
    assert.deepEqual(Array.from(v.dataSync()), [5, 6, 7, 8]);
    v.assignAdd([[1, 1], [1, 1]]);
    tl.tidy(() => v.assignSub(tl.tensor([[2, 2], [2, 2]])));
    tl.tidy(() => assert.deepEqual(read(v.mul(1)).values, [4, 5, 6, 7]));
    assert.throws(() => tl.tidy(() => v.assign(tl.ones([3]))), { name: 'ShapeError' });
    assert.equal(numTensors(), before);
  } finally {
    v.dispose();
  }
  assert.ok(v.isDisposed);
  assert.throws(() => v.add(1), { name: 'InvalidArgument', message: /Variable 'w' was disposed/ });
  assert.throws(() => v.dataSync(), { name: 'InvalidArgument', message: /Variable 'w' was disposed/ });
  assert.throws(() => tl.mul(v, 2), { name: 'InvalidArgument', message: /Variable 'w' was disposed/ });
});

test('variables as tensors: tl.dispose disposes a variable as a variable; a variable in tidy stays', () => {
  const variables = tl.memory().numVariables, tensors = numTensors();
  const keep = tl.tensor([9]);
  const v = tl.tidy(() => tl.variable(tl.tensor([1, 2])));
  assert.equal(tl.memory().numVariables, variables + 1, 'tidy does not dispose a variable');
  assert.deepEqual(Array.from(v.dataSync()), [1, 2]);
  const t = tl.tensor([3]);
  tl.dispose([v, t]);
  assert.ok(v.isDisposed && t.isDisposed);
  assert.equal(tl.memory().numVariables, variables);
  assert.deepEqual(Array.from(keep.dataSync()), [9], 'an unrelated tensor keeps its values');
  keep.dispose();
  assert.equal(numTensors(), tensors);
});

test('variables as tensors: inside tl.function a variable is read through a read node, by identity, fresh each call', () => {
  const v = tl.variable(tl.tensor([1, 2]), true, 'v');
  const u = tl.variable(tl.tensor([10, 20]), true, 'u');
  try {
    const before = numTensors();
    const captured = tl.function((x) => v.mul(x).add(v));
    const x = tl.scalar(3);
    tl.tidy(() => {
      assert.deepEqual(read(captured(x)).values, [4, 8]);
      v.assign(tl.tensor([5, 6]));
      assert.deepEqual(read(captured(x)).values, [20, 24], 'the second call reads the assigned value');
    });
    assert.equal(captured.tracingCount, 1, 'assigning between calls does not retrace');
    const graph = captured.concreteFunctions()[0].graph;
    assert.match(graph, /= variable "v"/);
    assert.doesNotMatch(graph, /constant/, 'the variable is not captured as a constant of its value');

    // As an argument: keyed by identity, read fresh; returned: its value.
    const byArgument = tl.function((w, y) => w.square().sub(y));
    tl.tidy(() => {
      assert.deepEqual(read(byArgument(v, x)).values, [22, 33]);
      v.assign(tl.tensor([1, 1]));
      assert.deepEqual(read(byArgument(v, x)).values, [-2, -2]);
      assert.equal(byArgument.tracingCount, 1);
      assert.deepEqual(read(byArgument(u, x)).values, [97, 397]);
      assert.equal(byArgument.tracingCount, 2, 'another variable is another key');
      byArgument(v, x);
      assert.equal(byArgument.tracingCount, 2);
    });
    const identity = tl.function(() => u);
    tl.tidy(() => {
      assert.deepEqual(read(identity()).values, [10, 20]);
      u.assign(tl.tensor([7, 8]));
      assert.deepEqual(read(identity()).values, [7, 8]);
    });
    // tl.print and tl.cond take variables as they take tensors.
    const printed = [];
    tl.setLogHandler((level, text) => printed.push(text));
    try {
      const show = tl.function(() => { tl.print('u =', u); return u.sum(); });
      tl.tidy(() => { show(); });
    } finally {
      tl.setLogHandler(null);
    }
    assert.equal(printed.length, 1);
    assert.match(printed[0], /u = \[7\. 8\.\]/);
    const flag = tl.variable(true);
    tl.tidy(() => assert.deepEqual(read(tl.cond(flag, () => u.mul(2), () => u)).values, [14, 16]));
    flag.dispose();
    x.dispose();
    assert.equal(numTensors(), before);
  } finally {
    v.dispose();
    u.dispose();
  }
});

test('variables as tensors: gradients through methods called on a variable; optimizers', () => {
  const v = tl.variable(tl.tensor([1, -2, 3]), true, 'g');
  try {
    const before = numTensors();
    tl.tidy(() => {
      const tape = new tl.GradientTape();
      const y = v.square().mul(0.5).sum();
      const dv = tape.gradient(y, v);
      tape.dispose();
      assert.deepEqual(read(dv).values, [1, -2, 3]);
      const w = tl.tensor([2, 3, 4]);
      const { value, grads } = tl.variableGrads(() => v.mul(w).sum(), [v]);
      assert.equal(value.dataSync()[0], 2 - 6 + 12);
      assert.deepEqual(read(grads.g).values, [2, 3, 4]);
      assert.deepEqual(read(tl.grads((a) => a.mul(a).sum())([v])[0]).values, [2, -4, 6]);
    });
    assert.equal(numTensors(), before);
    const target = tl.tensor([0, 0, 1]);
    const sgd = tl.train.sgd(0.25);
    tl.tidy(() => sgd.minimize(() => v.sub(target).square().sum(), false, [v]));  // v - 0.25 * 2 (v - target)
    assert.deepEqual(Array.from(v.dataSync()), [0.5, -1, 2]);
    const step = tl.function(() => { sgd.minimize(() => v.sub(target).square().sum(), false, [v]); });
    step();
    step();
    assert.deepEqual(Array.from(v.dataSync()), [0.125, -0.25, 1.25]);
    step.dispose();
    target.dispose();
    assert.equal(numTensors(), before);
  } finally {
    v.dispose();
  }
  assert.throws(() => new tl.GradientTape().gradient(v, [v]), { name: 'InvalidArgument', message: /the target must be a tensor, got a variable/ });
});

test('variables as tensors: tl.Tensor methods are the TF.js methods of the tl functions, and more from engine.addOps', () => {
  const proto = tl.Tensor.prototype;
  for (const name of ['add', 'matMul', 'sum', 'conv2d', 'maxPool', 'avgPool', 'oneHot', 'zerosLike', 'onesLike', 'concat',
                      'stack', 'where', 'as1D', 'as2D', 'as3D', 'as4D', 'asScalar', 'asType', 'flatten'])
    assert.equal(typeof proto[name], 'function', `x.${name}`);
  tl.tidy(() => {
    const x = tl.tensor([1, 2, 3, 4]);
    assert.deepEqual(read(x.as2D(2, 2)).shape, [2, 2]);
    assert.deepEqual(read(x.as3D(1, 2, 2)).shape, [1, 2, 2]);
    assert.deepEqual(read(x.as4D(1, 1, 2, 2)).shape, [1, 1, 2, 2]);
    assert.deepEqual(read(x.as2D(2, 2).as1D()).shape, [4]);
    assert.deepEqual(read(tl.tensor([5]).asScalar()), { dtype: 'float32', shape: [], values: [5] });
    assert.throws(() => x.asScalar(), { name: 'InvalidArgument', message: /x\.asScalar: the tensor has shape \[4\]/ });
    assert.throws(() => x.as2D(2, 'a'), { name: 'InvalidArgument', message: /x\.as2D/ });
    assert.deepEqual(read(x.concat(x)).shape, [8]);
    assert.deepEqual(read(x.concat([x, x])).shape, [12]);
    assert.deepEqual(read(x.stack(x, 1)).shape, [4, 2]);
    assert.deepEqual(read(x.where(tl.tensor([true, false, true, false]), tl.zeros([4]))).values, [1, 0, 3, 0]);
    assert.deepEqual(read(tl.tensor([0, 2], undefined, 'int32').oneHot(3)).values, [1, 0, 0, 0, 0, 1]);
  });
  const variables = tl.memory().numVariables, tensors = numTensors();
  const source = tl.tensor([1.5, 2]);
  const w = source.variable(false, 'fromTensor', 'int32');
  assert.ok(w instanceof tl.Variable);
  assert.deepEqual([w.name, w.trainable, w.dtype, Array.from(w.dataSync())], ['fromTensor', false, 'int32', [1, 2]]);
  const copy = w.variable();
  assert.deepEqual([copy.name, copy.trainable, copy.dtype], ['Variable', true, 'int32']);
  w.dispose();
  copy.dispose();
  source.dispose();
  assert.deepEqual([tl.memory().numVariables, numTensors()], [variables, tensors]);

  // engine.addOps: a new function and its method in the same table, a custom method, the errors.
  const engine = tl.tensor(0).engine;
  const ops = engine.addOps({
    h6Double: { fn: (x) => tl.mul(x, 2), method: true },
    h6Second: { fn: (a, b) => tl.sub(b, a), method: (x, a) => tl.sub(x, a) },
    h6Only: { method: (x) => tl.neg(x) },
  });
  assert.equal(ops, engine.ops);
  tl.tidy(() => {
    const v = tl.variable(tl.tensor([1, 2]));
    assert.deepEqual(read(v.h6Double()).values, [2, 4]);
    assert.deepEqual(read(ops.h6Double(v)).values, [2, 4]);
    assert.deepEqual(read(v.h6Second(1)).values, [0, 1]);
    assert.deepEqual(read(ops.h6Second(1, v)).values, [0, 1]);
    assert.deepEqual(read(v.h6Only()).values, [-1, -2]);
    v.dispose();
  });
  assert.equal(ops.h6Only, undefined, 'a method-only entry makes no function');
  assert.throws(() => engine.addOps({ add: { fn: () => 0, method: true } }), { name: 'InvalidArgument', message: /'add' is in the table already/ });
  assert.throws(() => engine.addOps({ dataSync: { fn: () => 0, method: true } }), { name: 'InvalidArgument', message: /member of tl\.Tensor/ });
  assert.throws(() => engine.addOps({ assign: { method: () => 0 } }), { name: 'InvalidArgument', message: /member of tl\.Tensor or tl\.Variable/ });
  assert.throws(() => engine.addOps({ h6Bad: { fn: 3 } }), { name: 'InvalidArgument', message: /fn is the number 3/ });
  assert.throws(() => engine.addOps({ h6Bad: { method: true } }), { name: 'InvalidArgument', message: /no fn/ });
  assert.throws(() => engine.addOps({ h6Bad: { fn: () => 0, methd: true } }), { name: 'InvalidArgument', message: /unknown key 'methd'/ });
  assert.equal(engine.ops.h6Bad, undefined, 'a failed addOps adds nothing');
  engine.addOps({ h6Double: { fn: (x) => tl.mul(x, 3), method: true, replace: true } });
  tl.tidy(() => assert.deepEqual(read(tl.tensor([1]).h6Double()).values, [3]));
});

test('variables as tensors: the Tensor methods match TF.js: every tl function TF.js has as a method is one', { skip: tfjsMissing }, () => {
  const functionsOf = (proto) => Object.entries(Object.getOwnPropertyDescriptors(proto))
    .filter(([, d]) => typeof d.value === 'function').map(([k]) => k);
  const tfMethods = new Set(functionsOf(tf.Tensor.prototype));
  const missing = Object.keys(tl).filter((k) => typeof tl[k] === 'function' && tfMethods.has(k) && typeof tl.Tensor.prototype[k] !== 'function');
  assert.deepEqual(missing, [], 'tl functions TF.js has as Tensor methods, not methods here');
  const tracelabOnly = ['stopGradient'];  // Tracelab's own: TF.js has no tf.stopGradient
  const members = new Set(['constructor', 'checkAlive', 'dataSync', 'data', 'arraySync', 'array', 'toString', 'print', 'dispose']);
  const extra = functionsOf(tl.Tensor.prototype)
    .filter((k) => !members.has(k) && !k.startsWith('h6') && !tfMethods.has(k) && !tracelabOnly.includes(k));
  assert.deepEqual(extra, [], 'Tensor methods TF.js does not have');
  const check = (name, call) => {
    const ours = tl.tidy(() => read(call(tl))), theirs = tf.tidy(() => read(call(tf)));
    assert.deepEqual(ours, theirs, name);
  };
  check('as2D', (lib) => lib.tensor([1, 2, 3, 4, 5, 6]).as2D(3, 2));
  check('as3D', (lib) => lib.tensor([1, 2, 3, 4]).as3D(2, 1, 2));
  check('as4D', (lib) => lib.tensor([1, 2, 3, 4]).as4D(1, 2, 1, 2));
  check('as1D', (lib) => lib.tensor([[1, 2], [3, 4]]).as1D());
  check('asScalar', (lib) => lib.tensor([[7]]).asScalar());
  check('asType', (lib) => lib.tensor([1.5, -2.5]).asType('int32'));
  check('flatten', (lib) => lib.tensor([[[1], [2]], [[3], [4]]]).flatten());
  check('concat method', (lib) => lib.tensor([1, 2]).concat([lib.tensor([3]), lib.tensor([4, 5])]));
  check('stack method', (lib) => lib.tensor([1, 2]).stack(lib.tensor([3, 4]), 1));
  check('where method', (lib) => lib.tensor([1, 2, 3]).where(lib.tensor([true, false, true]), lib.tensor([9, 8, 7])));
  // (tl.oneHot makes float32, TF.js int32: the values compared.)
  check('oneHot method', (lib) => lib.tensor([1, 0], undefined, 'int32').oneHot(2, 5, -1).asType('float32'));
  check('variable method chain', (lib) => {
    const v = lib.variable(lib.tensor([1, -2, 3]));
    const y = v.add(1).square().sub(v.mul(2));
    v.dispose();
    return y;
  });
});

// Inputs of each dtype for the promotion checks.
const INPUTS = {
  float32: [1.5, -2, 3, 0.5],
  int32: [2, 1, -1, 3],
  bool: [true, false, true, false],
};
const PAIRS = [['int32', 'float32'], ['float32', 'int32'], ['bool', 'int32'], ['int32', 'bool'], ['bool', 'float32'],
               ['float32', 'bool']];
const BINARY = ['add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'equal', 'notEqual', 'less', 'lessEqual',
                'greater', 'greaterEqual'];

test('variables as tensors: binary ops promote mixed dtypes as TF.js does (bool < int32 < float32)', { skip: tfjsMissing }, () => {
  const problems = [];
  const compare = (what, call) => {
    let ours;
    try {
      ours = tl.tidy(() => read(call(tl)));
    } catch (error) {
      problems.push(`${what}: Tracelab throws ${error.name}: ${error.message}`);
      return;
    }
    const theirs = tf.tidy(() => read(call(tf)));
    try {
      assert.deepEqual(ours, theirs);
    } catch {
      problems.push(`${what}: ${JSON.stringify(ours)}, TF.js ${JSON.stringify(theirs)}`);
    }
  };
  for (const [da, db] of PAIRS) {
    for (const name of BINARY) {
      // pow and div of two int32 tensors are int32 ops (integer division and powers), not promotions: float pairs only.
      if ((name === 'div' || name === 'pow') && da !== 'float32' && db !== 'float32') continue;
      compare(`${name}(${da}, ${db})`, (lib) => lib[name](lib.tensor(INPUTS[da], [4], da), lib.tensor(INPUTS[db], [4], db)));
      compare(`${da}.${name}(${db})`, (lib) => lib.tensor(INPUTS[da], [4], da)[name](lib.tensor(INPUTS[db], [4], db)));
    }
    compare(`where(${da}, ${db})`, (lib) => lib.where(lib.tensor(INPUTS.bool), lib.tensor(INPUTS[da], [4], da), lib.tensor(INPUTS[db], [4], db)));
  }
  compare('matMul(int32, float32)', (lib) => lib.matMul(lib.tensor([[1, 2]], [1, 2], 'int32'), lib.tensor([[0.5], [1.5]])));
  compare('variable int32 . add(float32)', (lib) => {
    const v = lib.variable(lib.tensor([1, 2], [2], 'int32'));
    const y = v.add(lib.tensor([0.5, 0.25]));
    v.dispose();
    return y;
  });
  assert.deepEqual(problems, [], `promotion differs from TF.js:\n  ${problems.join('\n  ')}`);
});

test('variables as tensors: promotion is in JavaScript — traced, under a tape, no leaks; the core keeps TF\'s rule', () => {
  const before = numTensors();
  const i = tl.tensor([1, 2], [2], 'int32'), f = tl.tensor([0.5, 0.25]);
  const add = tl.function((a, b) => a.add(b));
  tl.tidy(() => {
    assert.deepEqual(read(add(i, f)), { dtype: 'float32', shape: [2], values: [1.5, 2.25] });
    assert.deepEqual(read(tl.less(i, f)), { dtype: 'bool', shape: [2], values: [0, 0] });
    assert.deepEqual(read(tl.greaterEqual(f, tl.tensor([0, 1], [2], 'int32'))).values, [1, 0]);
    const tape = new tl.GradientTape();
    tape.watch(f);
    const dy = tape.gradient(tl.mul(i, f).sum(), f);
    tape.dispose();
    assert.deepEqual(read(dy).values, [1, 2]);
  });
  // No tensor at the promoted positions: the plain values infer their dtype (float32), not the condition's.
  tl.tidy(() => assert.deepEqual(read(tl.where(tl.tensor([true, false]), 1, 2)), { dtype: 'float32', shape: [2], values: [1, 2] }));
  // The staged path (all live tensors of one dtype) and the promoted path leave no tensor behind.
  tl.tidy(() => { i.add(f); f.add(i); i.equal(f); tl.add(i, i); });
  i.dispose();
  f.dispose();
  assert.equal(numTensors(), before);
  // The core's own rule, through the plain-data call: equal dtypes or a DTypeError.
  assert.throws(() => tl.runOp('add', [{ dtype: 'float32', shape: [1], values: [1] }, { dtype: 'int32', shape: [1], values: [1] }]),
                { name: 'DTypeError', message: /add: inputs must have the same dtype, got float32 and int32/ });
  // Logical ops take bools only, as in TF.js: no promotion.
  assert.throws(() => tl.tidy(() => tl.logicalAnd(tl.tensor([true]), tl.tensor([1], [1], 'int32'))), { name: 'DTypeError' });
});
