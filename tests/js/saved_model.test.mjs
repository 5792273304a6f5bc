// tl.savedModel from JavaScript: a traced predict and Adam train step saved to bytes and loaded back give the same
// results bit for bit, the loaded train step keeps training the restored (shared) variables, signatures are checked,
// a loaded function saves again, and bad bytes are InvalidArgument errors that leave tl working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

function trained() {
  const model = tl.sequential({ layers: [tl.layers.dense({ units: 6, activation: 'tanh', seed: 11 }), tl.layers.dense({ units: 1, seed: 12 })] });
  const optimizer = tl.train.adam(0.05);
  const predict = tl.function((x) => model.apply(x), { name: 'predict', inputSignature: [new tl.TensorSpec([null, 2], 'float32', 'x')] });
  const trainStep = tl.function((x, y) => {
    const tape = new tl.GradientTape();
    const loss = tl.losses.meanSquaredError(y, model.apply(x));
    const vars = model.trainableWeights;
    const grads = tape.gradient(loss, vars);
    tape.dispose();
    optimizer.applyGradients(grads.map((g, i) => [g, vars[i]]));
    return loss;
  }, { name: 'train_step' });
  return { model, predict, trainStep };
}

const x = tl.tensor([[0, 0], [0, 1], [1, 0], [1, 1], [0.5, 0.2], [0.1, 0.9], [0.3, 0.3], [0.8, 0.1]]);
const y = tl.tensor([[0], [1], [1], [0], [0.3], [0.8], [0.1], [0.7]]);
const bits = (t) => Array.from(new Uint32Array(t.dataSync().buffer.slice(0)));

test('savedModel: save, load, bit-identical predictions, a loaded train step keeps training shared variables', () => {
  const { predict, trainStep } = trained();
  tl.tidy(() => trainStep(x, y));   // traces the step once: one concrete function
  const bytes = tl.savedModel.save({ predict, train_step: trainStep });
  assert.ok(bytes instanceof Uint8Array);
  assert.deepEqual(Array.from(bytes.slice(0, 6)), Array.from('TLSAVE', (c) => c.charCodeAt(0)));
  const loaded = tl.savedModel.load(bytes);
  assert.deepEqual(Object.keys(loaded.functions), ['predict', 'train_step']);
  assert.deepEqual(loaded.signatures.predict.inputs, [{ name: 'x', dtype: 'float32', shape: [-1, 2] }]);
  assert.equal(loaded.functions.predict.signature, 'predict(x: float32 (None, 2)) -> (float32 (None, 1))');
  assert.deepEqual(bits(loaded.functions.predict(x)), bits(predict(x)));
  // 4 model variables + Adam's iterations and two slots per variable, each restored once.
  assert.equal(loaded.variables.length, 13);
  const losses = [];
  for (let i = 0; i < 30; ++i) {
    const original = trainStep(x, y), again = loaded.functions.train_step(x, y);
    assert.deepEqual(bits(again), bits(original));
    losses.push(again.dataSync()[0]);
    tl.dispose([original, again]);
  }
  assert.ok(losses.at(-1) < 0.5 * losses[0], `losses ${losses[0]} -> ${losses.at(-1)}`);
  // predict reads what train_step updated: the same variables.
  assert.deepEqual(bits(loaded.functions.predict(x)), bits(predict(x)));
  // A loaded function saves again.
  const again = tl.savedModel.load(tl.savedModel.save({ predict: loaded.functions.predict }));
  assert.deepEqual(bits(again.functions.predict(x)), bits(predict(x)));
  loaded.dispose();
  again.dispose();
  assert.throws(() => loaded.functions.predict(x), { name: 'InvalidArgument', message: 'tl.savedModel: the model was disposed' });
});

test('savedModel: loaded functions check their signature; bad bytes are clear errors', () => {
  const { predict } = trained();
  const model = tl.savedModel.load(tl.savedModel.save({ predict: predict.getConcreteFunction(new tl.TensorSpec([null, 2], 'float32', 'x')) }));
  assert.throws(() => model.functions.predict(tl.ones([3, 5])), {
    name: 'InvalidArgument',
    message: "saved_model: function 'predict': argument 'x' expects float32 (None, 2), got float32 (3, 5)",
  });
  assert.throws(() => model.functions.predict(x, x), tl.InvalidArgument);
  assert.throws(() => model.functions.predict(tl.ones([2, 2], 'int32')), /expects float32 \(None, 2\), got int32 \(2, 2\)/);
  assert.equal(model.functions.predict([[1, 2]]).shape.join(), '1,1');   // arrays become tensors
  const bytes = tl.savedModel.save({ predict });
  assert.throws(() => tl.savedModel.load(bytes.slice(0, bytes.length >> 1)), { name: 'InvalidArgument', message: /truncated/ });
  assert.throws(() => tl.savedModel.load(new Uint8Array(64).fill(0x42)),
                { name: 'InvalidArgument', message: 'saved_model: not a tracelab saved model (bad magic or shorter than 20 bytes)' });
  assert.throws(() => tl.savedModel.load('not bytes'), tl.InvalidArgument);
  assert.throws(() => tl.savedModel.save({ f: (a) => a }), { name: 'InvalidArgument', message: /'f' must be a tl.function/ });
  const untraced = tl.function((a) => a.mul(2));
  assert.throws(() => tl.savedModel.save({ double: untraced }), { message: /'double' has 0 concrete functions/ });
  assert.deepEqual(Array.from(tl.tensor([1, 2]).mul(2).dataSync()), [2, 4]);   // tl still works
});

test('savedModel: a saved model loads in another module instance (no shared state)', async () => {
  const { predict } = trained();
  const bytes = tl.savedModel.save({ predict });
  const other = await loadTracelab();
  const model = other.savedModel.load(bytes);
  const input = other.tensor([[0.25, 0.75]]);
  assert.deepEqual(bits(model.functions.predict(input)), bits(predict(tl.tensor([[0.25, 0.75]]))));
});

test('savedModel: the ragged runner saves each traced mode\'s step; the loaded step trains on as the run would', () => {
  const config = { steps: 20, modes: ['eager', 'signature', 'loop'], seed: 9, saveModels: true };
  const result = tl.experiments.runRagged(config);
  assert.equal(result.modes[0].savedModel, null);   // eager: no graph
  assert.equal(result.modes[2].savedModel, null);   // loop: its dataset_loop cannot be saved
  const model = tl.savedModel.load(result.modes[1].savedModel);
  assert.equal(model.functions.train_step.signature, 'train_step(x: float32 (None, None, 20), y: float32 (None,)) -> (float32 ())');
  // Step 21 of a longer run equals the loaded step applied to example 21: the variables (Adam's included) are the
  // ones the run left.
  const longer = tl.experiments.runRagged({ ...config, steps: 21, modes: ['signature'], saveModels: false });
  const example = tl.experiments.raggedData({ ...config, steps: 21 })[20];
  const x = tl.tensor(example.x, [1, example.length, 20]), y = tl.tensor(example.y, [1]);
  assert.equal(model.functions.train_step(x, y).dataSync()[0], Math.fround(longer.modes[0].loss[20]));
  assert.equal(longer.modes[0].savedModel, undefined);   // only asked for with saveModels
  model.dispose();
});
