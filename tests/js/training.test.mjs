// Training from JavaScript with the core's Keras-style stack: layers and models, losses, optimizers (eager and
// inside tl.function), metrics, checkpoints to bytes, summaries, and tl.data pipelines (also as one graph node).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

test('layers: XOR with Dense layers, Adam inside tl.function, accuracy 1; summary, params, checkpoint round trip', () => {
  const model = tl.sequential({ layers: [tl.layers.dense({ units: 8, activation: 'tanh', seed: 11 }), tl.layers.dense({ units: 1, seed: 12 })] });
  const x = tl.tensor([[0, 0], [0, 1], [1, 0], [1, 1]]);
  const y = tl.tensor([[0], [1], [1], [0]]);
  const optimizer = tl.train.adam(0.05);
  const step = tl.function((a, b) => {
    const tape = new tl.GradientTape();
    const loss = tl.losses.binaryCrossentropy(b, model.apply(a, { training: true }), { fromLogits: true });
    const vars = model.trainableWeights;
    const grads = tape.gradient(loss, vars);
    tape.dispose();
    optimizer.applyGradients(grads.map((g, i) => [g, vars[i]]));
    return loss;
  }, { name: 'xor_step' });
  let loss = 1;
  for (let i = 0; i < 300; ++i) loss = tl.tidy(() => step(x, y).dataSync()[0]);
  assert.ok(loss < 0.05, `loss ${loss}`);
  assert.equal(step.tracingCount, 2);  // the first trace created Adam's slots: that call traced again, as TF does
  assert.equal(step.concreteFunctions().length, 1);
  assert.equal(model.countParams(), 33);
  assert.match(model.summary(), /Total params: 33/);
  const accuracy = tl.metrics.binaryAccuracy({ threshold: 0 });
  tl.tidy(() => accuracy.updateState(y, model.apply(x)));
  assert.equal(tl.tidy(() => accuracy.result().dataSync()[0]), 1);

  const bytes = tl.checkpoint.save(model.variables);
  assert.ok(bytes instanceof Uint8Array && bytes.length > 100);
  const kernel = model.variables[0];
  const saved = tl.tidy(() => kernel.read().arraySync());
  tl.tidy(() => kernel.assign(tl.zerosLike(kernel.read())));
  tl.checkpoint.restore(model.variables, bytes.buffer);
  assert.deepEqual(tl.tidy(() => kernel.read().arraySync()), saved);
  const corrupt = bytes.slice();
  corrupt[corrupt.length - 3] ^= 0xff;
  assert.throws(() => tl.checkpoint.restore(model.variables, corrupt), { name: 'InvalidArgument' });
  assert.deepEqual(tl.tidy(() => kernel.read().arraySync()), saved);  // untouched by the failed restore
  tl.dispose([x, y]);
});

test('optimizers: minimize, sgd / momentum / rmsprop, losses by name, metrics, summaries', () => {
  const w = tl.variable(tl.tensor([1, -2]), true, 'w_min');
  const sgd = tl.train.sgd(0.1);
  const before = tl.tidy(() => tl.sum(tl.square(w.read())).dataSync()[0]);
  for (let i = 0; i < 20; ++i) tl.tidy(() => sgd.minimize(() => tl.sum(tl.square(w.read())), false, [w]));
  const after = tl.tidy(() => tl.sum(tl.square(w.read())).dataSync()[0]);
  assert.ok(after < before * 0.05, `${before} -> ${after}`);
  for (const optimizer of [tl.train.momentum(0.1, 0.9), tl.train.rmsprop(0.01)]) {
    const cost = tl.tidy(() => optimizer.minimize(() => tl.sum(tl.square(w.read())), true, [w]).dataSync()[0]);
    assert.ok(Number.isFinite(cost));
    assert.ok(optimizer.getWeights().length >= 1);
  }
  tl.tidy(() => {
    assert.equal(tl.losses.meanSquaredError(tl.tensor([[1], [2]]), tl.tensor([[1], [4]])).dataSync()[0], 2);
    assert.ok(tl.losses.sparseCategoricalCrossentropy(tl.tensor([1], [1], 'int32'), tl.tensor([[0, 10]]), { fromLogits: true }).dataSync()[0] < 1e-3);
  });
  const mean = tl.metrics.mean();
  tl.tidy(() => { mean.updateState(tl.tensor([1, 2, 3])); mean.updateState(tl.tensor([6])); });
  assert.equal(tl.tidy(() => mean.result().dataSync()[0]), 3);
  mean.resetState();
  assert.equal(tl.tidy(() => mean.result().dataSync()[0]), 0);
  const writer = tl.summary.scalarWriter();
  writer.scalar('loss', 0.5, 1);
  assert.match(writer.toJSONL(), /"tag":"loss","value":0.5/);
  assert.throws(() => tl.layers.dense({ units: 0 }).apply(tl.ones([1, 2])), tl.TracelabError);
  w.dispose();
});

test('Optimizer.minimize: the same bits as tape.gradient + applyGradients; default varList, traced, bad input', () => {
  const make = () => [tl.variable(tl.tensor([[0.5, -1], [2, 0.25]]), true, 'mw'), tl.variable(tl.tensor([0.1, -0.3]), true, 'mb')];
  const x = tl.keep(tl.tensor([[1, 2], [3, -1], [0.5, 0.5]]));
  const lossOf = (w, b) => tl.mean(tl.square(tl.relu(tl.add(tl.matMul(x, w.read()), b.read()))));
  const [w1, b1] = make(), [w2, b2] = make(), [w3, b3] = make();
  const adam1 = tl.train.adam(0.05), adam2 = tl.train.adam(0.05), adam3 = tl.train.adam(0.05);
  for (let i = 0; i < 5; ++i) {
    tl.tidy(() => {  // the long way: gradients into JS and back
      const tape = new tl.GradientTape();
      const loss = lossOf(w1, b1);
      const grads = tape.gradient(loss, [w1, b1]);
      tape.dispose();
      adam1.applyGradients([[grads[0], w1], [grads[1], b1]]);
    });
    tl.tidy(() => adam2.minimize(() => lossOf(w2, b2), false, [w2, b2]));
    const cost = tl.tidy(() => adam3.minimize(() => lossOf(w3, b3), true).dataSync()[0]);  // the variables f read
    assert.ok(Number.isFinite(cost));
  }
  for (const [a, b] of [[w1, w2], [w1, w3], [b1, b2], [b1, b3]])
    assert.deepEqual(tl.tidy(() => a.read().dataSync()), tl.tidy(() => b.read().dataSync()));
  assert.equal(tl.tidy(() => adam3.getWeights()[0].read().dataSync()[0]), 5);  // iterations

  // Inside tl.function: the update becomes graph nodes, the same values again.
  const [w4, b4] = make(), adam4 = tl.train.adam(0.05);
  const step = tl.function(() => adam4.minimize(() => lossOf(w4, b4), true), { name: 'minimize_step' });
  for (let i = 0; i < 5; ++i) tl.tidy(() => step());
  assert.deepEqual(tl.tidy(() => w4.read().dataSync()), tl.tidy(() => w1.read().dataSync()));

  const live = tl.memory().numTensors;
  assert.throws(() => adam1.minimize(42), /Optimizer.minimize: f is the number 42; expected a function returning the loss/);
  assert.throws(() => adam1.minimize(() => 3), /Optimizer.minimize: f returned the number 3; expected the loss, a tensor/);
  assert.throws(() => adam1.minimize(() => lossOf(w1, b1), false, []), /Optimizer.minimize: varList is empty/);
  assert.throws(() => adam1.minimize(() => lossOf(w1, b1), false, [x]), /Optimizer.minimize: varList\[0\] is .*expected a tl.Variable/);
  // f reads no variable: Keras' error, nothing applied
  assert.throws(() => tl.tidy(() => adam1.minimize(() => tl.sum(x))), /Adam: no gradients provided for any variable: \[\]/);
  assert.equal(tl.memory().numTensors, live);  // failed calls leave no tensors behind
  assert.deepEqual(tl.tidy(() => adam1.getWeights()[0].read().dataSync()[0]), 5);  // and no step applied
  step.dispose();
  tl.dispose([x, w1, b1, w2, b2, w3, b3, w4, b4]);
});

test('summary: the default writer (asDefault), the current step, false without a writer; scopes nest and restore', () => {
  tl.summary.setStep(null);
  assert.equal(tl.summary.scalar('loss', 1, 0), false);          // no default writer: nothing written
  const outer = tl.summary.scalarWriter(), inner = tl.summary.scalarWriter();
  const returned = outer.asDefault(() => {
    assert.throws(() => tl.summary.scalar('loss', 1), { name: 'InvalidArgument', message: /tl\.summary\.scalar\('loss'\): no step given/ });
    tl.summary.setStep(3);
    assert.equal(tl.summary.scalar('loss', 0.5), true);
    inner.asDefault(() => {
      tl.summary.scalar('inner', tl.scalar(0.25));                  // step 10, the scope's
      tl.summary.setStep(11);
      tl.summary.scalar('inner', 0.125);
    }, 10);
    assert.equal(tl.summary.getStep(), 3);                          // the inner scope restored the step it found
    assert.throws(() => inner.asDefault(() => { throw new Error('boom'); }, 20), /boom/);
    assert.equal(tl.summary.getStep(), 3);
    tl.summary.scalar('loss', 0.75, 4);                             // an explicit step wins
    return 'done';
  });
  assert.equal(returned, 'done');
  assert.equal(tl.summary.scalar('loss', 1, 5), false);           // the outer scope ended
  assert.equal(tl.summary.getStep(), 3);                          // asDefault without a step leaves the step alone
  const plain = (w) => w.records().map(({ step, tag, value }) => [step, tag, value]);
  assert.deepEqual(plain(outer), [[3, 'loss', 0.5], [4, 'loss', 0.75]]);
  assert.deepEqual(plain(inner), [[10, 'inner', 0.25], [11, 'inner', 0.125]]);
  // Per-epoch means with tl.metrics.mean, logged once per epoch at the epoch's step.
  const log = tl.summary.scalarWriter(), mean = tl.metrics.mean();
  log.asDefault(() => {
    for (const [epoch, losses] of [[1, [1, 2, 3]], [2, [0.5, 0.25]]]) {
      tl.summary.setStep(epoch);
      for (const loss of losses) tl.tidy(() => mean.updateState(tl.scalar(loss)));
      tl.tidy(() => tl.summary.scalar('train/loss', mean.result()));
      mean.resetState();
    }
  });
  assert.deepEqual(plain(log), [[1, 'train/loss', 2], [2, 'train/loss', 0.375]]);
  assert.throws(() => tl.summary.setStep(1.5), { name: 'InvalidArgument' });
  assert.throws(() => log.scalar('loss', tl.ones([2]), 1), { name: 'InvalidArgument', message: /expected a scalar/ });
  assert.throws(() => log.asDefault('not a function'), { name: 'InvalidArgument' });
  tl.summary.setStep(null);
});

test('data: fromTensorSlices / fromGenerator, map, filter, shuffle, batch, paddedBatch, take, repeat; errors', () => {
  const xs = tl.tensor([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]]);
  const ys = tl.tensor([1, 2, 3, 4, 5]);
  const ds = tl.data.fromTensorSlices([xs, ys]).map((x, y) => [x.mul(10), y]).filter((x, y) => tl.greater(y, 1)).batch(2);
  assert.deepEqual(ds.elementSpec, [{ shape: [-1, 2], dtype: 'float32' }, { shape: [-1], dtype: 'float32' }]);
  const batches = tl.tidy(() => ds.toArray().map(([x, y]) => [x.arraySync(), y.arraySync()]));
  assert.deepEqual(batches, [[[[20, 20], [30, 30]], [2, 3]], [[[40, 40], [50, 50]], [4, 5]]]);
  const order = (seed) => tl.tidy(() => tl.data.fromTensorSlices(ys).shuffle(5, seed).toArray().map(([y]) => y.dataSync()[0]));
  assert.deepEqual(order(3), order(3));
  assert.deepEqual([...order(3)].sort(), [1, 2, 3, 4, 5]);
  assert.equal(tl.data.range(10).take(3).repeat(2).cardinality(), 6);

  function* ragged() {
    for (let n = 1; n <= 3; ++n) yield [tl.ones([n, 2]), n];
  }
  const gen = tl.data.fromGenerator(ragged, [new tl.TensorSpec([null, 2]), new tl.TensorSpec([], 'float32')]);
  const padded = tl.tidy(() => gen.paddedBatch(3, [[-1, 2], []], [-1, 0]).toArray().map(([x]) => x.arraySync()));
  assert.deepEqual(padded[0][0], [[1, 1], [-1, -1], [-1, -1]]);
  assert.equal(tl.tidy(() => gen.toArray().length), 3);  // every pass restarts the generator

  function* broken() { yield [tl.ones([1, 2]), 1]; throw new RangeError('generator failed mid-epoch'); }
  const bad = tl.data.fromGenerator(broken, [new tl.TensorSpec([null, 2]), new tl.TensorSpec([])]);
  assert.throws(() => tl.tidy(() => bad.toArray()), /generator failed mid-epoch/);
  function* wrong() { yield [tl.ones([1, 3]), 1]; }
  assert.throws(() => tl.tidy(() => tl.data.fromGenerator(wrong, [new tl.TensorSpec([null, 2]), new tl.TensorSpec([])]).toArray()),
                { name: 'ShapeError' });
  assert.deepEqual(tl.tidy(() => tl.ones([2]).arraySync()), [1, 1]);  // still working
  tl.dispose([xs, ys]);
});

test('data: a whole epoch as one graph node (forEach inside tl.function) equals the per-step loop', () => {
  const make = () => tl.variable(tl.tensor([[0.1], [-0.2]]), true, 'w_loop');
  const xs = tl.tensor([[1, 2], [3, 4], [5, 6], [7, 8]]);
  const ys = tl.tensor([[1], [0], [1], [0]]);
  const ds = tl.data.fromTensorSlices([xs, ys]).batch(1);
  const update = (w, x, y) => {
    const tape = new tl.GradientTape();
    const loss = tl.mean(tl.square(tl.matMul(x, w.read()).sub(y)));
    const g = tape.gradient(loss, w);
    tape.dispose();
    w.assignSub(g.mul(0.01));
  };
  const a = make(), b = make();
  const stepA = tl.function((x, y) => update(a, x, y), { name: 'per_step' });
  for (const [x, y] of ds) tl.tidy(() => { stepA(x, y); tl.dispose([x, y]); });
  const epoch = tl.function(() => { ds.forEach((x, y) => update(b, x, y)); }, { name: 'epoch' });
  epoch();
  assert.equal(epoch.tracingCount, 1);
  assert.match(epoch.concreteFunctions()[0].graph, /dataset_loop/);
  const va = tl.tidy(() => a.read().dataSync()), vb = tl.tidy(() => b.read().dataSync());
  for (let i = 0; i < va.length; ++i) assert.ok(Math.abs(va[i] - vb[i]) < 1e-6, `${va[i]} vs ${vb[i]}`);
  tl.dispose([xs, ys]);
});

test('compile and fitDataset: the same weights and epoch losses as the custom loop with a traced step; History; errors', () => {
  const data = () => {
    const x = tl.randomUniform([24, 3], -1, 1, 'float32', 3);
    const y = tl.cast(tl.greater(tl.sum(x, 1), 0), 'int32');
    return tl.data.fromTensorSlices([x, y]).shuffle(24, 5).batch(8);
  };
  const makeModel = () => tl.sequential({ layers: [tl.layers.dense({ units: 6, activation: 'relu', seed: 1 }),
                                                   tl.layers.dense({ units: 2, activation: 'softmax', seed: 2 })] });
  // The custom loop: a traced step, per-epoch mean of the batch losses.
  const loopModel = makeModel(), optimizer = tl.train.adam(0.05);
  const step = tl.function((x, y) => {
    const tape = new tl.GradientTape();
    const loss = tl.losses.sparseCategoricalCrossentropy(y, loopModel.apply(x, { training: true }));
    const vars = loopModel.trainableWeights;
    const grads = tape.gradient(loss, vars);
    tape.dispose();
    optimizer.applyGradients(grads.map((g, i) => [g, vars[i]]));
    return loss;
  });
  const mean = tl.metrics.mean(), loopLosses = [], train = data();
  for (let epoch = 0; epoch < 3; ++epoch) {
    for (const [x, y] of train) { tl.tidy(() => mean.updateState(step(x, y))); tl.dispose([x, y]); }
    loopLosses.push(tl.tidy(() => mean.result().dataSync()[0]));
    mean.resetState();
  }

  const model = makeModel();
  assert.throws(() => model.fitDataset(data()), /Sequential\.fitDataset: call compile\(\{optimizer, loss\}\) first/);
  model.compile({ optimizer: tl.train.adam(0.05), loss: 'sparseCategoricalCrossentropy', metrics: ['accuracy'] });
  const validation = tl.data.fromTensorSlices([tl.randomUniform([8, 3], -1, 1, 'float32', 4), tl.zeros([8], 'int32')]).batch(8);
  const history = model.fitDataset(data(), { epochs: 3, validationData: validation });
  assert.deepEqual(history.epoch, [0, 1, 2]);
  assert.deepEqual(Object.keys(history.history).sort(), ['accuracy', 'loss', 'val_accuracy', 'val_loss']);
  assert.deepEqual(history.history.loss, loopLosses);  // the same arithmetic: the same bits
  assert.equal(history.seconds.length, 3);
  const bits = (m) => m.trainableWeights.map((v) => Array.from(v.read().dataSync()));
  assert.deepEqual(bits(model), bits(loopModel));
  assert.deepEqual(model.fitTracingCounts, { train: 2, test: 1 });  // the slots: the train step traced twice, as TF does
  const evaluated = model.evaluateDataset(validation);
  assert.deepEqual(Object.keys(evaluated).sort(), ['accuracy', 'loss']);
  assert.ok(Math.abs(evaluated.loss - history.history.val_loss[2]) < 1e-6, `${evaluated.loss} ${history.history.val_loss[2]}`);

  assert.throws(() => model.compile({ optimizer: tl.train.sgd(), loss: 'hinge' }), /compile: unknown loss 'hinge'/);
  assert.throws(() => model.compile({ loss: 'meanSquaredError' }), /compile: an optimizer is required/);
  assert.throws(() => model.compile({ optimizer: tl.train.sgd(), loss: 'meanSquaredError', metrics: ['f1'] }), /compile: unknown metric 'f1'/);
  assert.throws(() => model.fitDataset(data(), { epochs: 0 }), /fitDataset: options\.epochs is the number 0; expected a positive integer/);
  assert.throws(() => model.fitDataset([1, 2]), /fitDataset: expected a tl\.data dataset/);
  assert.throws(() => model.compile({ optimizer: tl.train.sgd(), loss: 'meanSquaredError', epochs: 3 }), /unknown option 'epochs'/);
  // A failed compile leaves the model compiled as it was.
  assert.deepEqual(model.fitTracingCounts, { train: 2, test: 1 });
});
