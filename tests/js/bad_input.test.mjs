// Bad input through the JS bridge: every row of tests/bad_input_rows.json (the table the C++ test runs natively and
// in WASM) made from JavaScript. Each call must throw the row's Error subclass with its message (the `js` wording
// where the row gives one); afterwards tl still computes and the variable the checkpoint rows restore into is
// unchanged. The table in docs/reliability.md must be the one scripts/bad_input_table.mjs makes from the JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { renderTable, spliceTable } from '../../scripts/bad_input_table.mjs';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();
const table = JSON.parse(readFileSync(new URL('../bad_input_rows.json', import.meta.url), 'utf8'));

test('bad input: each row of tests/bad_input_rows.json throws its Error subclass from JS and tl keeps working', () => {
  const x = tl.tensor([[1, 2], [3, 4]]);
  const i = tl.tensor([1, 2, 3], [3], 'int32');
  const w = tl.variable(tl.tensor([1, 2]), true, 'w');
  const w3 = tl.variable(tl.tensor([1, 2, 3]), true, 'w');
  const good = tl.checkpoint.save([w]);
  const scale = tl.function((a) => a.mul(w), { inputSignature: [new tl.TensorSpec([null, 2], 'float32', 'x')], name: 'scale' });
  tl.tidy(() => scale(tl.ones([1, 2])));
  const saved = tl.savedModel.save({ scale });
  const loaded = tl.savedModel.load(saved);
  const sig2 = tl.function((a) => a, { inputSignature: [new tl.TensorSpec([null]), new tl.TensorSpec([null])], name: 'sig2' });
  const sigVec = tl.function((a) => a.mul(2), { inputSignature: [new tl.TensorSpec([null])], name: 'sig_vec' });
  const sigAny = tl.function((a) => a, { inputSignature: [new tl.TensorSpec([null])], name: 'sig_any' });
  let leaked = null;  // a symbolic tensor kept from inside a trace, used after it (tracing.symbolic-escaped)
  const leak = tl.function((a) => { leaked = a.mul(2); return a; }, { name: 'leak' });
  tl.tidy(() => leak(tl.ones([2])));
  // A tl.function's three ways of being called, f(...), f.dataSync(...) and f.arraySync(...), with the arguments
  // args() makes: each must throw the row's error.
  const everyCall = (f, args) => [() => f(...args()), () => f.dataSync(...args()), () => f.arraySync(...args())];
  const branchy = tl.function((a) => (a.greater(0).dataSync()[0] ? a : a.neg()), { name: 'branchy' });
  let created = 0;
  const makeVar = tl.function((a) => {
    const v = tl.variable(tl.ones(a.shape), true, 'v');   // a new variable on every trace: the check trace throws
    created += 1;
    return a.mul(v);
  }, { name: 'make_var' });
  let late = null;  // created once, but by the trace of a later call (size 2), not the first
  const lateVar = tl.function((a) => {
    if (a.shape[0] === 2 && late === null) late = tl.variable(tl.ones([2]), true, 'late');
    return late === null ? a : a.mul(late);
  }, { name: 'late_var' });
  tl.tidy(() => lateVar(tl.tensor([2])));
  const thrower = tl.function((a, scale) => {
    if (scale < 0) throw new tl.InvalidArgument('thrower: negative input');
    return a.mul(scale);
  }, { name: 'thrower' });
  const condDtypes = tl.function((a) => tl.cond(tl.sum(a).greater(0), () => a, () => tl.cast(a, 'int32')), { name: 'cond_dtypes' });
  const condShapes = tl.function((a) => tl.cond(tl.sum(a).greater(0), () => a, () => tl.concat([a, a], 0)), { name: 'cond_shapes' });
  let flakySeen = 0;
  function* sensor() {
    yield [tl.tensor([1])];
    yield [tl.tensor([2])];
    throw new Error('sensor: read failed at element 2');
  }
  const flaky = tl.data.fromGenerator(sensor, [new tl.TensorSpec([1])]);
  const disposed = () => { const t = tl.ones([2]); t.dispose(); return t; };
  const tape = (fn) => { const t = new tl.GradientTape(); try { return fn(t); } finally { t.dispose(); } };
  const step = tl.function((a) => tl.ops.checkNumerics(tl.log(a), { message: 'loss' }), { name: 'step' });
  const ragged = (config) => tl.experiments.runRagged(config);

  const calls = {
    'ops.add-broadcast': () => tl.add(tl.zeros([2, 3]), tl.zeros([4])),
    'ops.matmul-inner': () => tl.matMul(tl.ones([2, 3]), tl.ones([4, 5])),
    'ops.matmul-rank1': () => tl.matMul(tl.zeros([3]), tl.zeros([3])),
    'ops.add-dtypes': () => tl.runOp('add', [{ shape: [3], values: [0, 0, 0] }, { dtype: 'int32', shape: [3], values: [1, 2, 3] }]),  // the core's rule: tl.add promotes
    'ops.exp-int': () => tl.exp(i),
    'ops.reshape-size': () => tl.reshape(x, [3]),
    'ops.reshape-two-unknown': () => tl.reshape(x, [-1, -1]),
    'ops.reduce-axis': () => tl.sum(x, 5),
    'ops.transpose-perm': () => tl.transpose(x, [0, 0]),
    'ops.concat-rank': () => tl.concat([x, tl.zeros([2])], 0),
    'ops.gather-range': () => tl.gather(x, tl.tensor([0, 7], [2], 'int32')),
    'ops.gather-float': () => tl.gather(x, tl.tensor([0])),
    'ops.conv2d-rank': () => tl.conv2d(tl.zeros([3, 3, 1]), tl.zeros([2, 2, 1, 1])),
    'ops.conv2d-channels': () => tl.conv2d(tl.zeros([1, 3, 3, 2]), tl.zeros([2, 2, 1, 1])),
    'ops.broadcast-to': () => tl.broadcastTo(tl.zeros([2]), [3]),
    'ops.broadcast-to-negative': () => tl.broadcastTo(tl.zeros([1]), [-1]),
    'ops.range-int-fraction': () => tl.range(0.5, 3, 1, 'int32'),
    'ops.range-step-zero': () => tl.range(5, 0, 0),
    'ops.segment-range': () => tl.ops.unsortedSegmentSum(tl.zeros([3]), tl.tensor([0, 5, 1], [3], 'int32'), { num_segments: 4 }),
    'ops.unknown-op': () => tl.op('nope', [x]),
    'ops.input-count': () => tl.op('add', [x]),
    'ops.unknown-attr': () => tl.op('add', [x, x], { axis: 1 }),
    'ops.attr-type': () => tl.op('reduce_sum', [x], { keepdims: 'yes' }),
    'ops.released-tensor': () => tl.add(disposed(), x),
    'bridge.non-tensor': [() => tl.add(x, 'x'), () => tl.add(x, { a: 1 }), () => tl.add(x, undefined), () => tl.add(x, null)],
    'bridge.bad-shape': () => tl.tensor([1, 2], [3]),
    'bridge.negative-shape': () => tl.zeros([2, -3]),
    'bridge.string-values': () => tl.tensor(['a', 'b']),
    'bridge.bigint-values': () => tl.tensor([1n, 2n]),
    'bridge.ragged-values': () => tl.tensor([[1, 2], [3]]),
    'bridge.null-values': [() => tl.tensor([[1, null]]), () => tl.tensor([[1, undefined]]), () => tl.tensor([[1, {}]])],
    'bridge.op-input-values': () => tl.add(tl.ones([2]), [1, 'a']),
    'bridge.int32-fraction': () => tl.tensor([1.5], [1], 'int32'),
    'bridge.shape-values': [() => tl.zeros([2, 1.5]), () => tl.zeros([2, NaN]), () => tl.zeros([2, '3'])],
    'bridge.dtype-name': () => tl.zeros([2], 'float64'),
    'bridge.axis-type': () => tl.sum(x, '0'),
    'bridge.attr-dtype': () => tl.op('cast', [x], { dtype: 'float64' }),
    'bridge.pad-number': () => tl.conv2d(tl.ones([1, 3, 3, 1]), tl.ones([2, 2, 1, 1]), 1, 1),
    'bridge.cond-plain-pred': () => tl.cond(true, () => tl.scalar(1), () => tl.scalar(2)),
    'bridge.batch-fraction': () => tl.data.range(5).batch(2.5),
    'bridge.hyperparameter-string': () => tl.train.adam('0.1'),
    'bridge.checkpoint-not-array': () => tl.checkpoint.save(w),
    'bridge.random-huge': () => tl.randomUniform([2 ** 20, 2 ** 20]),
    'options.unknown': () => tl.function(function double(a) { return a.mul(2); }, { inputSignatur: [new tl.TensorSpec([2])] }),
    'options.unknown-layer': () => tl.layers.dense({ units: 2, inputShape: [3] }),
    'options.value-kind': () => new tl.GradientTape({ persistent: 'yes' }),
    'options.unconnected-gradients': () => tape((t) => { const a = tl.tensor([1]); t.watch(a); return t.gradient(tl.scalar(1), a, { unconnectedGradients: 'zeros' }); }),
    'options.maximum-iterations': () => tl.whileLoop((v) => v.less(5), (v) => [v.add(1)], [tl.scalar(0)], { maximumIterations: 1.5 }),
    'memory.zeros-huge': () => tl.zeros([2 ** 20, 2 ** 20]),
    'memory.size-overflow': () => tl.zeros([2 ** 62, 16]),
    'memory.broadcast-huge': () => tl.add(tl.zeros([2 ** 20, 1]), tl.zeros([1, 2 ** 20])),
    'autodiff.unwatched': () => tape((t) => { const a = tl.tensor([1]); t.watch(a); return t.gradient(a.mul(a), tl.tensor([2])); }),
    'autodiff.second-gradient': () => tape((t) => {
      const a = tl.tensor([1]); t.watch(a); const y = a.mul(a); t.gradient(y, a); return t.gradient(y, a);
    }),
    'autodiff.watch-int': () => tape((t) => t.watch(i)),
    'autodiff.int-target': () => tape((t) => { const a = tl.tensor([1]); t.watch(a); return t.gradient(tl.cast(a.mul(a), 'int32'), a); }),
    'autodiff.no-target': () => tape((t) => { const a = tl.tensor([1]); t.watch(a); return t.gradient(undefined, a); }),
    'variables.assign-shape': () => w.assign(tl.zeros([3])),
    'variables.assign-dtype': () => w.assign(tl.zeros([2], 'int32')),
    'variables.assign-add-shape': () => w.assignAdd(tl.zeros([2, 2])),
    'variables.assign-sub-dtype': () => w.assignSub(tl.zeros([2], 'int32')),
    'variables.assign-add-broadcast': () => w.assignAdd(tl.zeros([3])),
    'tracing.too-few-args': everyCall(sig2, () => [tl.ones([2])]),
    'tracing.too-many-args': everyCall(sig2, () => [tl.ones([2]), tl.ones([2]), tl.ones([2])]),
    'tracing.signature-rank': everyCall(sigVec, () => [tl.ones([2, 2])]),
    'tracing.signature-dtype': everyCall(sigVec, () => [i]),
    'tracing.non-tensor-argument': everyCall(sigAny, () => ['x']),
    'tracing.released-argument': everyCall(sigVec, () => [disposed()]),
    'tracing.symbolic-value': () => branchy(tl.scalar(1)),
    'tracing.symbolic-escaped': () => tl.add(leaked, x),
    'tracing.variable-every-trace': () => makeVar(tl.tensor([1, 2])),
    'tracing.variable-on-retrace': () => lateVar(tl.tensor([1, 2])),
    'tracing.throwing-body': () => thrower(tl.ones([2]), -1),
    'control.cond-predicate': () => tl.cond(tl.ones([2]), () => tl.scalar(1), () => tl.scalar(2)),
    'control.while-dtype': () => tl.whileLoop((v) => tl.less(v, 3), (v) => [tl.cast(v, 'int32')], [tl.scalar(0)]),
    'control.cond-dtypes': () => condDtypes(tl.ones([2])),
    'control.cond-shapes': () => condShapes(tl.ones([2])),
    'control.branch-disposed': () => { const gone = disposed(); return tl.cond(tl.scalar(true), () => gone, () => gone); },
    'datasets.range-step-zero': () => tl.data.range(0, 5, 0),
    'datasets.slices-of-scalar': () => tl.data.fromTensorSlices([tl.scalar(1)]),
    'datasets.generator-throws': () => flaky.forEach(() => { flakySeen += 1; }),
    'datasets.generator-restarts': () => {
      assert.equal(flakySeen, 2);
      flakySeen = 0;
      flaky.forEach(() => { flakySeen += 1; });
    },
    'datasets.infinite-for-each': () => tl.data.range(3).repeat().forEach(() => {}),
    'checkpoints.truncated': () => tl.checkpoint.restore([w], good.slice(0, good.length >> 1)),
    'checkpoints.crc': () => { const bad = good.slice(); bad[bad.length - 3] ^= 0x10; tl.checkpoint.restore([w], bad); },
    'checkpoints.not-a-checkpoint': () => tl.checkpoint.restore([w], new Uint8Array(64).fill(0x42)),
    'checkpoints.wrong-shape': () => tl.checkpoint.restore([w], tl.checkpoint.save([w3])),
    'saved-models.truncated': () => tl.savedModel.load(saved.slice(0, 100)),
    'saved-models.not-a-saved-model': () => tl.savedModel.load(new Uint8Array(64).fill(0x42)),
    'saved-models.header-crc': () => { const bad = saved.slice(); bad[30] ^= 0x04; tl.savedModel.load(bad); },
    'saved-models.value-crc': () => { const bad = saved.slice(); bad[bad.length - 3] ^= 0x10; tl.savedModel.load(bad); },
    'saved-models.signature': () => loaded.functions.scale(tl.ones([3, 5])),
    'numerics.nan-inf-data': () => tl.ops.checkNumerics(tl.tensor([[1, NaN], [3, Infinity], [NaN, 6]]), { message: 'training batch 7' }),
    'numerics.nan-loss-traced': () => step(tl.tensor([-1])),
    'numerics.int': () => tl.ops.checkNumerics(i, { message: 'ids' }),
    'experiment.warmup-range': () => ragged({ warmupSteps: 100001 }),
    'page.steps-zero': () => ragged({ steps: 0 }),
    'page.x-reversed': () => ragged({ minLength: 8, maxLength: 3 }),
    'page.hidden-empty': () => ragged({ hiddenUnits: [] }),
    'page.learning-rate-zero': () => ragged({ learningRate: 0 }),
    'page.no-modes': () => ragged({ modes: [] }),
    'page.unknown-mode': () => ragged({ modes: ['fast'] }),
    'page.unknown-optimizer': () => ragged({ optimizer: 'lbfgs' }),
    'page.too-much-data': () => ragged({ steps: 50000, batchSize: 64, maxLength: 64, features: 256 }),
  };

  const listed = new Set();
  for (const row of table.rows) {
    assert.ok(!listed.has(row.id), `${row.id} is listed twice`);
    listed.add(row.id);
    if (row.only && !row.only.includes('js')) {
      assert.ok(!(row.id in calls), `a JS call for ${row.id}, which does not run in JS`);
      continue;
    }
    assert.ok(row.id in calls, `no JS call for ${row.id}`);
    const message = row.js ?? row.message;
    for (const call of [calls[row.id]].flat()) {
      const before = tl.memory().numTensors;
      assert.throws(() => tl.tidy(call), (e) => {
        assert.ok(e instanceof tl.TracelabError, `${row.id}: ${e.name} is not a TracelabError: ${e.message}`);
        assert.equal(e.name, row.kind, `${row.id}: ${e.message}`);
        assert.ok(e.message.includes(message), `${row.id}: "${e.message}" does not contain "${message}"`);
        return true;
      }, row.id);
      assert.deepEqual(tl.tidy(() => tl.ones([2]).add(1).arraySync()), [2, 2], row.id);
      assert.deepEqual(tl.tidy(() => w.read().arraySync()), [1, 2], row.id);
      assert.equal(tl.memory().numTensors, before, `${row.id}: the failed call leaked tensors`);
    }
  }
  for (const id of Object.keys(calls)) assert.ok(listed.has(id), `${id} is not in the table`);
  assert.equal(table.rows.length, 103);   // pinned: a new row (or a dropped one) updates it on purpose
  assert.equal(Object.keys(calls).length, 103);
  assert.equal(flakySeen, 2);
  assert.equal(created, 1);
  assert.deepEqual(tl.tidy(() => thrower(tl.ones([2]), 3).arraySync()), [3, 3]);
  assert.equal(thrower.tracingCount, 1);
  for (const t of [x, i]) t.dispose();
  for (const v of [w, w3]) v.dispose();
  for (const f of [sig2, sigVec, sigAny, leak, branchy, makeVar, lateVar, thrower, condDtypes, condShapes, step, scale]) f.dispose();
  for (const v of loaded.variables) v.dispose();
  loaded.dispose();
  flaky.dispose();
});

test('docs/reliability.md holds the table made from tests/bad_input_rows.json', () => {
  const docs = readFileSync(new URL('../../docs/reliability.md', import.meta.url), 'utf8');
  assert.equal(spliceTable(docs, renderTable(table)), docs,
               'the table is stale: run node scripts/bad_input_table.mjs');
});
