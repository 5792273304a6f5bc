// tfjs_diff cases for the ops of wasm/js/tfjs/gather.mjs, in the form of CASES in tests/js/tfjs_diff.test.mjs;
// `k` holds its input helpers (f, i, b, pos, held, edge, unaryCases, ...).
//
// TF.js defines no gradient for tensorScatterUpdate, sparseToDense, bincount, denseBincount, unique, the sparse and
// the ragged functions ("gradient function not found"): those cases compare values only. The functions whose
// result's shape depends on the input's values run eagerly only (traced: false); that inside a tl.function they throw
// an error naming them is checked by tests/js/tfjs_async_ops.test.mjs. The Async functions' promises are awaited
// (async: true).

// The harness' gradient weights: it differentiates sum(y · w) with w_j = 0.5 + ((7j) mod 5) / 4.
const weight = (j) => 0.5 + ((j * 7) % 5) / 4;
const sizeOf = (shape) => shape.reduce((a, d) => a * d, 1);
/** The rows of int32 indices [..., K] as row-major offsets into dims (K of them), and the row count. */
const offsets = (indices, dims) => {
  const k = dims.length, rows = sizeOf(indices.shape.slice(0, -1));
  return Array.from({ length: rows }, (_, r) => dims.reduce((at, d, j) => at * d + indices.values[r * k + j], 0));
};
// TF.js 4.22 has no gradient for gatherND and scatterND: Tracelab's (NOTES) is checked against these references.
/** d sum(gatherND(x, indices) · w) / dx: each weight added to the element of x it was gathered from. */
const gatherNDGrad = ({ in: [x, indices] }) => {
  const k = indices.shape[indices.shape.length - 1], inner = sizeOf(x.shape.slice(k)), grad = new Array(sizeOf(x.shape)).fill(0);
  offsets(indices, x.shape.slice(0, k)).forEach((at, r) => { for (let q = 0; q < inner; ++q) grad[at * inner + q] += weight(r * inner + q); });
  return [grad];
};
/** d sum(scatterND(indices, updates, shape) · w) / dupdates: the weight of the element each update lands in. */
const scatterNDGrad = ({ in: [indices, updates], args: [shape] }) => {
  const k = indices.shape[indices.shape.length - 1], inner = sizeOf(shape.slice(k)), grad = new Array(sizeOf(updates.shape));
  offsets(indices, shape.slice(0, k)).forEach((at, r) => { for (let q = 0; q < inner; ++q) grad[r * inner + q] = weight(at * inner + q); });
  return [grad];
};
const withGrads = (reference) => (c) => ({ ...c, differs: { grads: reference(c) } });

export default ({ f, i, b }) => {
  const noGradient = { grad: false };  // TF.js has no gradient for it (see above)
  const valueShaped = { traced: false };  // the result's shape depends on the values: eager only
  const awaited = { async: true, grad: false, traced: false };  // returns a Promise: the awaited values compared
  return {
    gatherND: { cases: () => [
      ...[{ in: [f([2, 2]), i([2, 2], [1, 0, 0, 1])] },
          { in: [f([3, 2, 2]), i([4, 1], [2, 0, 2, 1])] },  // whole rows, one twice: its gradient adds up
          { in: [f([2, 3, 2]), i([2, 2, 3], [0, 1, 1, 1, 2, 0, 0, 0, 0, 1, 0, 1])] },
          { in: [f([4]), i([2, 0], [])] }].map(withGrads(gatherNDGrad)),  // no coordinates: all of x per index
      { in: [f([2, 2]), i([0, 2], [])] },  // no indices
      { in: [i([3, 2]), i([2, 1], [2, 0])] },
      { in: [b([2, 2], [true, false, false, true]), i([2, 2], [0, 0, 0, 1])] },
    ] },
    scatterND: { cases: () => [
      ...[{ in: [i([3, 1], [0, 2, 0]), f([3])], args: [[4]] },  // a duplicate index: summed
          { in: [i([2, 2], [1, 0, 0, 1]), f([2, 3])], args: [[2, 2, 3]] },
          { in: [i([2, 1], [1, 1]), f([2, 2])], args: [[3, 2]] },
          { in: [i([2, 2, 1], [0, 3, 3, 1]), f([2, 2])], args: [[4]] },
          { in: [i([0, 1], []), f([0])], args: [[4]] }].map(withGrads(scatterNDGrad)),  // no updates: zeros
      { in: [i([2, 1], [0, 1]), i([2], [5, -2])], args: [[3]] },
    ] },
    tensorScatterUpdate: { ...noGradient, cases: () => [
      { in: [f([4]), i([3, 1], [0, 2, 0]), f([3])] },  // a duplicate index: the last update wins
      { in: [f([3, 2]), i([2, 1], [2, 0]), f([2, 2])] },
      { in: [f([2, 2]), i([2, 2], [1, 1, 0, 1]), f([2])] },
      { in: [i([4]), i([1, 1], [1]), i([1], [9])] },
      { in: [b([3], [true, true, false]), i([1, 1], [0]), b([1], [false])] },
      { in: [f([3]), i([0, 1], []), f([0])] },
    ] },
    sparseToDense: { ...noGradient, cases: () => [
      { in: [i([2], [0, 2]), f([2])], args: [[4]] },
      { in: [i([2], [0, 2]), f([2])], args: [[4], 1.5] },
      { in: [i([2], [1, 1]), f([2])], args: [[3]] },  // a duplicate index: the last value wins
      { in: [i([2, 2], [0, 1, 1, 0]), f([], [5])], args: [[2, 2]] },
      { in: [i([], [1]), f([], [5])], args: [[3]] },
      { in: [i([2], [3, 0]), i([2], [5, 6])], args: [[4], 1] },
      { in: [i([0], []), f([0])], args: [[2], -1] },
    ] },
    // TF.js' kernel returns float32 for int32 x (it multiplies by a float32 mask); Tracelab keeps int32, as TF does.
    unsortedSegmentSum: { cases: () => [
      { in: [f([5]), i([5], [0, 1, 0, 2, 1])], args: [3] },
      { in: [f([4, 3]), i([4], [2, 2, 0, 2])], args: [4] },
      { in: [f([4, 2, 2]), i([4], [1, 0, 1, 1])], args: [2] },
      // ids outside [0, numSegments) are dropped, and get a zero gradient (TF.js' gradient gathers at them and throws)
      { in: [f([4]), i([4], [0, -1, 5, 1])], args: [2], differs: { grads: [[weight(0), 0, 0, weight(1)]] } },
      { in: [f([0, 3]), i([0], [])], args: [2] },
      { in: [i([3], [1, 2, 3]), i([3], [0, 1, 0])], args: [2], differs: { dtype: 'int32' } },
    ] },
    // TF.js' result has the 2-D shape [rows, values per row] whatever the inputs' ranks.
    searchSorted: { cases: () => [
      { in: [f([5], [-1, 0, 0, 2.5, 7]), f([6], [-2, 0, 1, 2.5, 7, 9])] },
      { in: [f([5], [-1, 0, 0, 2.5, 7]), f([6], [-2, 0, 1, 2.5, 7, 9])], args: ['right'] },
      { in: [f([2, 3], [1, 2, 3, 4, 5, 6]), f([2, 2], [2, 3, 7, 4])], args: ['left'] },
      { in: [f([2, 2, 4]), f([2, 2, 3])], args: ['right'] },
      { in: [i([6], [1, 1, 2, 5, 5, 9]), i([4], [1, 5, 0, 10])] },
      { in: [f([1]), f([3], [0, -5, 5])] },
      { in: [f([4], [1, 2, 3, 4]), f([4], [NaN, Infinity, -Infinity, 2])] },
    ] },
    lowerBound: { cases: () => [{ in: [f([4], [1, 2, 2, 3]), f([4], [0, 2, 2.5, 9])] },
                                { in: [f([2, 3], [1, 2, 3, 4, 5, 6]), f([2, 1], [2, 7])] }, { in: [i([3], [1, 3, 5]), i([2], [3, 4])] }] },
    upperBound: { cases: () => [{ in: [f([4], [1, 2, 2, 3]), f([4], [0, 2, 2.5, 9])] },
                                { in: [f([2, 3], [1, 2, 3, 4, 5, 6]), f([2, 2], [2, 3, 7, 4])] }, { in: [i([3], [1, 3, 5]), i([2], [3, 4])] }] },
    bincount: { ...noGradient, cases: () => [
      { in: [i([6], [1, 1, 3, 0, 7, 2]), f([0])], args: [5] },  // an id past size is dropped
      { in: [i([4], [1, 1, 3, 0]), f([4])], args: [5] },
      { in: [i([4], [1, 1, 3, 0]), i([4], [1, 2, 3, 4])], args: [4] },
      { in: [i([2, 2], [1, 1, 3, 0]), f([0])], args: [4] },
      { in: [i([0], []), f([0])], args: [3] },
      { in: [i([3], [1, 0, 2]), f([0])], args: [0] },
    ] },
    // TF.js ignores binaryOutput for a vector x (its kernel's rank-1 path counts); Tracelab gives 1 per bin hit, as
    // TF and TF.js' own matrix path do.
    denseBincount: { ...noGradient, cases: () => [
      { in: [i([4], [1, 1, 3, 0]), f([0])], args: [5] },
      { in: [i([2, 2], [1, 1, 3, 0]), f([0])], args: [5] },
      { in: [i([2, 3], [1, 1, 3, 0, 4, 4]), f([2, 3])], args: [4] },
      { in: [i([2, 3], [1, 1, 3, 0, 4, 4]), f([2, 3])], args: [5, true] },
      { in: [i([4], [1, 1, 3, 9]), i([4], [1, 2, 3, 4])], args: [5] },
      { in: [i([4], [1, 1, 3, 0]), f([0])], args: [5, true], differs: { values: [1, 1, 0, 1, 0] } },
    ] },
    unique: { ...valueShaped, ...noGradient, cases: () => [
      { in: [f([7], [3, 1, 3, NaN, 0, -0, NaN])] },  // NaN equals NaN, -0 equals 0, as TF.js' string keys
      { in: [i([8], [4, 2, 4, 4, 1, 2, 7, 1])] },
      { in: [i([3, 2], [1, 2, 1, 2, 3, 4])] },
      { in: [i([2, 3], [1, 2, 1, 3, 4, 3])], args: [1] },
      { in: [f([2, 3, 2], [1, 2, 3, 4, 1, 2, 5, 6, 7, 8, 5, 6])], args: [-1] },
      { in: [b([3], [true, false, true])] },
      { in: [f([0])] },
    ] },
    whereAsync: { ...awaited, cases: () => [
      { in: [b([2, 3], [true, false, true, false, false, true])] },
      { in: [b([2, 2, 2], [false, true, false, false, true, true, false, false])] },
      { in: [b([3], [false, false, false])] },
      { in: [b([], [true])] },
      { in: [b([0, 2], [])] },
    ] },
    booleanMaskAsync: { ...awaited, cases: () => [
      { in: [f([3, 2]), b([3], [true, false, true])] },
      { in: [f([3, 2]), b([2], [false, true])], args: [1] },
      { in: [f([2, 2, 3]), b([2, 2], [true, false, false, true])] },
      { in: [i([4], [1, 2, 3, 4]), b([4], [false, false, false, false])] },
    ] },
    setdiff1dAsync: { ...awaited, cases: () => [
      { in: [f([5], [1, 2, 3, 4, 2]), f([2], [2, 5])] },
      { in: [i([3], [1, 2, 3]), i([0], [])] },
      { in: [i([3], [1, 2, 1]), i([2], [1, 2])] },
    ] },
    // Ties go to the lower index (TF.js sorts stably).
    inTopKAsync: { ...awaited, cases: () => [
      { in: [f([2, 3], [1, 5, 3, 4, 4, 1]), i([2], [1, 1])] },
      { in: [f([2, 3], [1, 5, 3, 4, 4, 1]), i([2], [2, 0])], args: [2] },
      { in: [f([2, 2, 4]), i([2, 2], [0, 3, 1, 2])], args: [3] },
    ] },
    'sparse.sparseFillEmptyRows': { ...valueShaped, ...noGradient, cases: () => [
      { in: [i([6, 2], [0, 0, 1, 0, 1, 3, 1, 4, 3, 2, 3, 3]), f([6]), i([2], [5, 6])], args: [-1] },
      { in: [i([2, 2], [1, 0, 0, 0]), i([2], [7, 8]), i([2], [2, 3])], args: [0] },  // rows out of order: sorted
      { in: [i([2, 2], [0, 0, 1, 0]), f([2]), i([2], [2, 3])], args: [0] },  // no empty rows
      { in: [i([0, 2], []), f([0]), i([2], [3, 2])], args: [2.5] },
    ] },
    'sparse.sparseReshape': { ...valueShaped, cases: () => [
      { in: [i([5, 3], [0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 2, 3]), i([3], [2, 3, 6]), i([2], [9, -1])] },
      { in: [i([2, 2], [0, 1, 1, 2]), i([2], [2, 3]), i([3], [3, 1, 2])] },
      { in: [i([0, 2], []), i([2], [2, 3]), i([1], [-1])] },
    ] },
    'sparse.sparseSegmentSum': { ...valueShaped, ...noGradient, cases: () => [
      { in: [f([3, 4]), i([2], [0, 1]), i([2], [0, 0])] },
      { in: [f([3, 4]), i([3], [0, 1, 2]), i([3], [0, 2, 2])] },  // segment 1 has no entries: zeros
      { in: [i([3, 2]), i([4], [0, 2, 2, 1]), i([4], [0, 0, 1, 1])] },
      { in: [f([4]), i([0], []), i([0], [])] },
    ] },
    'sparse.sparseSegmentMean': { ...valueShaped, ...noGradient, cases: () => [
      { in: [f([3, 4]), i([3], [0, 1, 2]), i([3], [0, 2, 2])] },
      { in: [f([4, 2]), i([4], [3, 0, 3, 1]), i([4], [1, 1, 1, 3])] },
      { in: [i([3, 2], [1, 2, -1, -4, 6, 7]), i([3], [0, 1, 2]), i([3], [0, 0, 0])] },  // int32: truncated
    ] },
    // call: the nested splits first, then the dense values and the indices; args: [splits count, outputRaggedRank];
    // the outputs as one list: the splits, then the dense values.
    raggedGather: { ...valueShaped, ...noGradient, call: (lib, xs, [count, rank]) => {
      const { outputNestedSplits, outputDenseValues } = lib.raggedGather(xs.slice(0, count), xs[count], xs[count + 1], rank);
      return [...outputNestedSplits, outputDenseValues];
    },
                    cases: () => [
      { in: [i([4], [0, 2, 3, 6]), f([6]), i([3], [2, 0, 2])], args: [1, 1] },
      { in: [i([3], [0, 2, 3]), i([4], [0, 1, 3, 4]), f([4, 2]), i([2, 2], [1, 0, 0, 1])], args: [2, 3] },
      { in: [i([3], [0, 0, 2]), i([2], [5, 6]), i([2], [0, 1])], args: [1, 1] },
    ] },
    // call: shape, values, defaultValue, then the row partitions; args: [rowPartitionTypes].
    raggedTensorToTensor: { ...valueShaped, ...noGradient,
                            call: (lib, [shape, values, fill, ...partitions], [types]) => lib.raggedTensorToTensor(shape, values, fill, partitions, types),
                            cases: () => [
      { in: [i([2], [4, 4]), f([9]), f([], [0.5]), i([1], [4]), i([9], [0, 0, 0, 2, 2, 2, 2, 3, 3])], args: [['FIRST_DIM_SIZE', 'VALUE_ROWIDS']] },
      { in: [i([2], [-1, -1]), f([5]), f([], [-1]), i([4], [0, 2, 2, 5])], args: [['ROW_SPLITS']] },
      { in: [i([2], [2, 2]), f([5]), f([], [-1]), i([4], [0, 2, 2, 5])], args: [['ROW_SPLITS']] },  // cut to the shape
      { in: [i([3], [3, 2, 3]), f([7]), f([], [0]), i([3], [0, 2, 3]), i([4], [0, 1, 3, 7])], args: [['ROW_SPLITS', 'ROW_SPLITS']] },
      { in: [i([3], [-1, -1, -1]), i([7]), i([], [9]), i([1], [2]), i([3], [0, 0, 1]), i([7], [0, 1, 1, 2, 2, 2, 2])],
        args: [['FIRST_DIM_SIZE', 'VALUE_ROWIDS', 'VALUE_ROWIDS']] },
      { in: [i([3], [-1, -1, 2]), f([3, 2]), f([], [0]), i([3], [0, 1, 3])], args: [['ROW_SPLITS']] },
      // TF.js 4.22 leaves zeros where a vector defaultValue belongs (its kernel copies it into a copy of the output)
      { in: [i([3], [-1, -1, 2]), f([3, 2], [1, 2, 3, 4, 5, 6]), f([2], [7, 8]), i([3], [0, 1, 3])], args: [['ROW_SPLITS']],
        differs: { values: [1, 2, 7, 8, 3, 4, 5, 6] } },
      { in: [i([2], [5, 1]), f([3]), f([], [0]), i([4], [0, 2, 2, 3])], args: [['ROW_SPLITS']] },
      { in: [i([2], [-1, -1]), f([3]), f([], [0]), i([3], [0, 2, 2])], args: [['ROW_SPLITS']] },  // values past the rows unused
      { in: [i([2], [-1, -1]), b([2], [true, false]), b([], [true]), i([3], [0, 1, 2])], args: [['ROW_SPLITS']] },
    ] },
    raggedRange: { ...valueShaped, ...noGradient, cases: () => [
      { in: [f([4], [0, 5, 8, 5]), f([4], [8, 7, 8, 1]), f([4], [2, 1, 1, -1])] },
      { in: [i([2], [0, 5]), i([], [10]), i([2], [3, 2])] },
      { in: [f([], [0.1]), f([2], [1, 0.5]), f([], [0.3])] },
      { in: [i([], [3]), i([], [3]), i([], [1])] },
    ] },
  };
};
