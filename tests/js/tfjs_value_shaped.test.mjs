// The TF.js functions whose result depends on the input's values in a way a graph cannot hold, where they go beyond
// what tests/js/tfjs_diff.test.mjs compares with TF.js: the value-shaped ones (unique, the Async ones, tl.sparse.*, the
// ragged ones of wasm/js/tfjs/gather.mjs; non-max suppression of wasm/js/tfjs/image.mjs) throw an OperatorNotAllowedInGraphError naming them inside a tl.function, the Async ones reject their
// promise (rather than throw) on bad input, and out-of-range indices are an InvalidArgument naming the function,
// eagerly and traced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = new URL('../..', import.meta.url).pathname;
const dist = process.env.TRACELAB_DIST ?? join(repo, 'build/wasm/dist');
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab({ autograph: false });

const int = (values, shape) => tl.tensor(values, shape, 'int32');
const named = (name, ErrorClass) => (error) => error instanceof ErrorClass && error.message.includes(name);

// name: a call of it on tensors made from x (float32 [3, 2]); the sync ones throw inside a trace.
const VALUE_SHAPED = {
  'tl.unique': (x) => tl.unique(x).values,
  'tl.sparse.sparseFillEmptyRows': (x) => tl.sparse.sparseFillEmptyRows(int([0, 0], [1, 2]), tl.reshape(x, [-1]).slice([0], [1]), int([2, 2], [2]), 0).outputValues,
  'tl.sparse.sparseReshape': (x) => tl.sparse.sparseReshape(tl.cast(tl.slice(x, [0, 0], [1, 2]), 'int32'), int([2, 3], [2]), int([-1], [1])).outputIndices,
  'tl.sparse.sparseSegmentSum': (x) => tl.sparse.sparseSegmentSum(x, int([0, 2], [2]), int([0, 1], [2])),
  'tl.sparse.sparseSegmentMean': (x) => tl.sparse.sparseSegmentMean(x, int([0, 2], [2]), int([0, 1], [2])),
  'tl.raggedGather': (x) => tl.raggedGather([int([0, 1, 3], [3])], x, int([1], [1]), 1).outputDenseValues,
  'tl.raggedRange': (x) => tl.raggedRange(tl.reshape(x, [-1]), 5, 1).rtDenseValues,
  'tl.raggedTensorToTensor': (x) => tl.raggedTensorToTensor(int([-1, -1], [2]), tl.reshape(x, [-1]), 0, [int([0, 2, 6], [3])], ['ROW_SPLITS']),
  'tl.image.nonMaxSuppression': (x) => tl.image.nonMaxSuppression(tl.concat([x, x], 1), tl.reshape(tl.slice(x, [0, 0], [3, 1]), [-1]), 2),
  'tl.image.nonMaxSuppressionWithScore': (x) => tl.image.nonMaxSuppressionWithScore(tl.concat([x, x], 1), tl.reshape(tl.slice(x, [0, 0], [3, 1]), [-1]), 2).selectedIndices,
  'tl.image.nonMaxSuppressionPadded': (x) => tl.image.nonMaxSuppressionPadded(tl.concat([x, x], 1), tl.reshape(tl.slice(x, [0, 0], [3, 1]), [-1]), 2).selectedIndices,
};
const ASYNC = {
  'tl.whereAsync': (x) => tl.whereAsync(tl.greater(x, 0)),
  'tl.booleanMaskAsync': (x) => tl.booleanMaskAsync(x, tl.tensor([true, false, true])),
  'tl.setdiff1dAsync': (x) => tl.setdiff1dAsync(tl.reshape(x, [-1]), tl.tensor([1])),
  'tl.inTopKAsync': (x) => tl.inTopKAsync(x, int([0, 1, 0], [3])),
  'tl.image.nonMaxSuppressionAsync': (x) => tl.image.nonMaxSuppressionAsync(tl.concat([x, x], 1), tl.reshape(tl.slice(x, [0, 0], [3, 1]), [-1]), 2),
  'tl.image.nonMaxSuppressionWithScoreAsync': (x) => tl.image.nonMaxSuppressionWithScoreAsync(tl.concat([x, x], 1), tl.reshape(tl.slice(x, [0, 0], [3, 1]), [-1]), 2).then((r) => r.selectedIndices),
  'tl.image.nonMaxSuppressionPaddedAsync': (x) => tl.image.nonMaxSuppressionPaddedAsync(tl.concat([x, x], 1), tl.reshape(tl.slice(x, [0, 0], [3, 1]), [-1]), 2).then((r) => r.selectedIndices),
};
const x = () => tl.tensor([[1, 2], [3, 4], [5, 6]]);

test('gather ops: the value-shaped functions run eagerly and throw inside a tl.function, naming themselves', () => {
  for (const [name, call] of Object.entries(VALUE_SHAPED)) {
    tl.tidy(() => assert.ok(call(x()) instanceof tl.Tensor, `${name} runs eagerly`));
    const traced = tl.function(call);
    assert.throws(() => traced(x()), named(name, tl.OperatorNotAllowedInGraphError), name);
  }
});

test('gather ops: the Async functions resolve eagerly and reject inside a tl.function, naming themselves', async () => {
  for (const [name, call] of Object.entries(ASYNC)) {
    const input = x();
    const result = call(input);
    assert.ok(result instanceof Promise, `${name} returns a Promise`);
    const value = await result;
    assert.ok((Array.isArray(value) ? value[0] : value) instanceof tl.Tensor, `${name} resolves to a tensor`);
    tl.dispose([input, value]);
    let pending = null;
    const traced = tl.function((t) => { pending = call(t); return tl.abs(t); });
    tl.dispose(traced(x()));
    await assert.rejects(pending, named(name, tl.OperatorNotAllowedInGraphError), name);
  }
});

test('gather ops: an Async function rejects its promise on bad input (no synchronous throw)', async () => {
  const bad = tl.tensor([1, 0]);  // float32, not bool
  let promise;
  assert.doesNotThrow(() => { promise = tl.whereAsync(bad); });
  await assert.rejects(promise, named('tl.whereAsync', tl.DTypeError));
  await assert.rejects(tl.inTopKAsync(tl.tensor([[1, 2]]), int([0], [1]), 3), named('tl.inTopKAsync', tl.InvalidArgument));
  bad.dispose();
});

test('gather ops: out-of-range indices are an InvalidArgument naming the function, eager and traced', () => {
  // [0, 2] into [2, 2] is the offset 2, inside the 4 elements: only the per-coordinate check catches it.
  const cases = {
    'tl.gatherND': [(t, i) => tl.gatherND(t, i), () => [tl.ones([2, 2]), int([[0, 2]], [1, 2])]],
    'tl.scatterND': [(u, i) => tl.scatterND(i, u, [2, 2]), () => [tl.ones([1]), int([[0, 2]], [1, 2])]],
    'tl.tensorScatterUpdate': [(t, i) => tl.tensorScatterUpdate(t, i, tl.ones([1])), () => [tl.ones([4]), int([[-1]], [1, 1])]],
    'tl.sparseToDense': [(v, i) => tl.sparseToDense(i, v, [3]), () => [tl.ones([2]), int([0, 3], [2])]],
    'tl.bincount': [(w, i) => tl.bincount(i, w, 3), () => [tl.ones([2]), int([0, -1], [2])]],
  };
  for (const [name, [call, inputs]] of Object.entries(cases)) {
    const eager = inputs(), traced = tl.function(call), graphInputs = inputs();
    assert.throws(() => call(...eager), named(name, tl.InvalidArgument), `${name} eagerly`);
    assert.throws(() => traced(...graphInputs), named(name, tl.InvalidArgument), `${name} traced`);
    tl.dispose([...eager, ...graphInputs]);
  }
});
