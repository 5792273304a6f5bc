// TF.js functions: the gather group (see GROUPS in wasm/js/tfjs_ops.mjs) — gathers and scatters by N-d indices,
// segment sums, sorted search, bin counts, and the functions whose result's shape depends on the input's values
// (unique, the Async ones, tl.sparse.*, the ragged ones: wasm/js/tfjs/value_shaped.mjs).
//
// The first kind are composites of the registry ops (gather, unsorted_segment_sum, where, ...), so they run eagerly,
// are differentiated by the tape and are traced by tl.function. An N-d index [i0, ..., iK-1] becomes the row-major
// offset i0·s0 + ... + iK-1·sK-1 into the first K dims, checked in range by assert ops (each time the code runs,
// traced too). The second kind read their inputs' values in JS (eager only: inside a tl.function they throw
// OperatorNotAllowedInGraphError naming the function); the values they move go through gather, unsorted_segment_sum
// or where, so a tape differentiates them (booleanMaskAsync as TF.js does; the sparse segment reductions, raggedGather
// and raggedTensorToTensor too, which TF.js 4.22 cannot differentiate).
//
//   tl.gatherND(x, tl.tensor([[1, 0]], [1, 2], 'int32'));   // x[1][0], as a tensor of shape [1]
//   const { values, indices } = tl.unique(tl.tensor([3, 1, 3]));
import { InvalidArgument, ShapeError, DTypeError } from '../errors.mjs';
import { describeValue, toInteger } from '../values.mjs';
import { makeValueShapedOps } from './value_shaped.mjs';
import { sameShape, sizeOf } from './shapes.mjs';

const bitLength = (n) => (n === 0 ? 0 : Math.floor(Math.log2(n)) + 1);

/** {name: {fn, method}} for tl and the Tensor methods; `kit` is tfjs_ops.mjs' helpers. */
export function makeGatherOps(tl, kit) {
  const { tensorOf, known, axisOf, tidy, sliceAxis } = kit;
  const ints = (values, shape = [values.length]) => tl.tensor(Int32Array.from(values), shape, 'int32');
  const int = (v) => tl.scalar(v, 'int32');
  const intOf = (what, root, value) => {
    const t = tensorOf(what, root, value, 'int32');
    if (t.dtype !== 'int32') throw new DTypeError(`${what}: ${root} is ${t.dtype}; expected int32`);
    known(what, t);
    return t;
  };
  const numericOf = (what, root, value, dtype) => {
    const t = tensorOf(what, root, value, dtype);
    if (t.dtype === 'bool') throw new DTypeError(`${what}: ${root} is bool; expected float32 or int32`);
    known(what, t);
    return t;
  };
  const shapeOf = (what, root, value) => {
    if (!Array.isArray(value)) throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected an array of dims`);
    return value.map((d, i) => toInteger(d, { what, root: `${root}[${i}]`, min: 0 }));
  };
  const segmentSum = (data, ids, count) => tl.op('unsorted_segment_sum', [data, ids], { num_segments: count });

  /** The row-major offsets into `dims` of indices [..., K] (K = dims.length), after checking 0 <= index < dim. */
  const offsetsOf = (what, indices, dims) => {
    const outer = indices.shape.slice(0, -1);
    if (indices.size > 0) {
      tl.op('assert_non_negative', [indices], { message: `${what}: an index is negative` });
      tl.op('assert_less', [indices, ints(dims)], { message: `${what}: an index is out of range for the dims [${dims}]` });
    }
    if (dims.length === 0) return tl.zeros(outer, 'int32');
    const strides = dims.map((_, k) => sizeOf(dims.slice(k + 1)));
    return tl.sum(tl.mul(indices, ints(strides)), -1);
  };
  /** indices [..., K] and updates [..., ...shape[K:]] as TF.js' scatterND checks them; returns K. */
  const checkScatter = (what, indices, updates, shape) => {
    if (indices.rank < 1) throw new ShapeError(`${what}: indices is a scalar; expected rank >= 1 (its last dimension holds the coordinates)`);
    if (updates.rank < 1) throw new ShapeError(`${what}: updates is a scalar; expected rank >= 1`);
    if (shape.length < 1) throw new ShapeError(`${what}: the output shape is []; expected rank >= 1`);
    const k = indices.shape[indices.rank - 1];
    if (k > shape.length) throw new ShapeError(`${what}: indices have ${k} coordinates; the output shape [${shape}] has rank ${shape.length}`);
    const expected = [...indices.shape.slice(0, -1), ...shape.slice(k)];
    if (!sameShape(updates.shape, expected))
      throw new ShapeError(`${what}: updates have shape [${updates.shape}]; expected [${expected}] (indices [${indices.shape}], output [${shape}])`);
    return k;
  };

  const gatherND = (xValue, indicesValue) => tidy(() => {
    const what = 'tl.gatherND', x = tensorOf(what, 'x', xValue), indices = intOf(what, 'indices', indicesValue);
    known(what, x);
    if (indices.rank < 1) throw new ShapeError(`${what}: indices is a scalar; expected rank >= 1 (its last dimension holds the coordinates)`);
    const k = indices.shape[indices.rank - 1];
    if (k > x.rank) throw new ShapeError(`${what}: indices have ${k} coordinates (shape [${indices.shape}]); x has rank ${x.rank}`);
    const dims = x.shape.slice(0, k);
    return tl.gather(tl.reshape(x, [sizeOf(dims), ...x.shape.slice(k)]), offsetsOf(what, indices, dims), 0);
  });

  // The rows of updates summed into zeros of `shape` at their indices (duplicates add up).
  const scatterND = (indicesValue, updatesValue, shapeValue) => tidy(() => {
    const what = 'tl.scatterND', indices = intOf(what, 'indices', indicesValue);
    const updates = numericOf(what, 'updates', updatesValue), shape = shapeOf(what, 'shape', shapeValue);
    const k = checkScatter(what, indices, updates, shape), dims = shape.slice(0, k);
    const n = sizeOf(indices.shape.slice(0, -1));
    const offsets = tl.reshape(offsetsOf(what, indices, dims), [n]);
    return tl.reshape(segmentSum(tl.reshape(updates, [n, ...shape.slice(k)]), offsets, sizeOf(dims)), shape);
  });

  /**
   * base with the rows of updates written at indices [n, K]; of updates at the same index the last wins, as in
   * TF.js' kernels. An update some later one overwrites goes to an extra row, dropped (finding them compares every
   * pair: n² booleans).
   */
  const scatterUpdate = (what, base, indices, updates) => {
    const k = indices.shape[1], n = indices.shape[0], dims = base.shape.slice(0, k), inner = base.shape.slice(k);
    const rows = sizeOf(dims), offsets = tl.reshape(offsetsOf(what, indices, dims), [n]);
    const after = tl.tensor(Array.from({ length: n * n }, (_, p) => p % n > Math.floor(p / n)), [n, n], 'bool');
    const same = tl.logicalAnd(tl.equal(tl.reshape(offsets, [n, 1]), tl.reshape(offsets, [1, n])), after);
    const overwritten = tl.greater(tl.sum(tl.cast(same, 'int32'), 1), 0);
    const y = writeRows(tl.reshape(base, [rows, ...inner]), tl.reshape(updates, [n, ...inner]), tl.where(overwritten, int(rows), offsets));
    return tl.reshape(y, base.shape);
  };
  /** base [rows, ...] with updates[i] as row target[i], each row written at most once; target rows: dropped. */
  const writeRows = (base, updates, target) => {
    const rows = base.shape[0], inner = base.shape.slice(1);
    const numbers = base.dtype === 'bool' ? tl.cast(updates, 'int32') : updates;
    let written = sliceAxis(segmentSum(numbers, target, rows + 1), 0, 0, rows);
    if (base.dtype === 'bool') written = tl.cast(written, 'bool');
    const hit = tl.greater(sliceAxis(segmentSum(tl.onesLike(target), target, rows + 1), 0, 0, rows), 0);
    return tl.where(tl.reshape(hit, [rows, ...inner.map(() => 1)]), written, base);
  };

  const tensorScatterUpdate = (tensorValue, indicesValue, updatesValue) => tidy(() => {
    const what = 'tl.tensorScatterUpdate', base = tensorOf(what, 'tensor', tensorValue);
    const indices = intOf(what, 'indices', indicesValue), updates = tensorOf(what, 'updates', updatesValue);
    known(what, base);
    known(what, updates);
    const k = checkScatter(what, indices, updates, base.shape);
    if (base.dtype !== updates.dtype) throw new DTypeError(`${what}: tensor is ${base.dtype} and updates ${updates.dtype}; expected the same dtype`);
    const n = sizeOf(indices.shape.slice(0, -1));
    return scatterUpdate(what, base, tl.reshape(indices, [n, k]), tl.reshape(updates, [n, ...base.shape.slice(k)]));
  });

  const sparseToDense = (indicesValue, valuesValue, outputShape, defaultValue = 0) => tidy(() => {
    const what = 'tl.sparseToDense', shape = shapeOf(what, 'outputShape', outputShape);
    const indices = intOf(what, 'sparseIndices', indicesValue), values = tensorOf(what, 'sparseValues', valuesValue);
    known(what, values);
    if (indices.rank > 2) throw new ShapeError(`${what}: sparseIndices has shape [${indices.shape}]; expected a scalar, vector or matrix`);
    const count = indices.rank > 0 ? indices.shape[0] : 1, k = indices.rank > 1 ? indices.shape[1] : 1;
    if (shape.length !== k) throw new ShapeError(`${what}: outputShape [${shape}] has ${shape.length} dims; the indices have ${k} coordinates`);
    if (!(values.rank === 0 || (values.rank === 1 && values.shape[0] === count)))
      throw new ShapeError(`${what}: sparseValues has shape [${values.shape}]; expected [] or [${count}]`);
    const fill = tensorOf(what, 'defaultValue', defaultValue, values.dtype);
    if (fill.rank !== 0) throw new ShapeError(`${what}: defaultValue has shape [${fill.shape}]; expected a scalar`);
    if (fill.dtype !== values.dtype)
      throw new DTypeError(`${what}: defaultValue is ${fill.dtype} and sparseValues ${values.dtype}; expected the same dtype`);
    return scatterUpdate(what, tl.broadcastTo(fill, shape), tl.reshape(indices, [count, k]), tl.broadcastTo(values, [count]));
  });

  // TF.js drops the ids outside [0, numSegments): they go to an extra segment, dropped.
  const unsortedSegmentSum = (xValue, idsValue, numSegments) => tidy(() => {
    const what = 'tl.unsortedSegmentSum', x = numericOf(what, 'x', xValue), ids = intOf(what, 'segmentIds', idsValue);
    const n = toInteger(numSegments, { what, root: 'numSegments', min: 0 });
    if (x.rank < 1) throw new ShapeError(`${what}: x is a scalar; expected rank >= 1`);
    if (ids.rank !== 1 || ids.shape[0] !== x.shape[0])
      throw new ShapeError(`${what}: segmentIds has shape [${ids.shape}]; expected [${x.shape[0]}] (one id per row of x [${x.shape}])`);
    const inRange = tl.logicalAnd(tl.greaterEqual(ids, 0), tl.less(ids, n));
    return sliceAxis(segmentSum(x, tl.where(inRange, ids, int(n)), n + 1), 0, 0, n);
  });

  // Binary search per value, as TF.js' kernel (so unsorted sequences and NaN give its answers): the result has the
  // 2-D shape [rows, values per row] of TF.js, whatever the inputs' ranks.
  const search = (what, seqValue, valuesValue, side) => tidy(() => {
    let seq = numericOf(what, 'sortedSequence', seqValue), values = numericOf(what, 'values', valuesValue);
    if (side !== 'left' && side !== 'right') throw new InvalidArgument(`${what}: side is ${describeValue(side)}; expected 'left' or 'right'`);
    if (seq.rank < 1 || values.rank < 1)
      throw new ShapeError(`${what}: sortedSequence [${seq.shape}] and values [${values.shape}] must have rank >= 1`);
    const m = seq.shape[seq.rank - 1], count = values.shape[values.rank - 1];
    if (m === 0 || count === 0) throw new ShapeError(`${what}: sortedSequence [${seq.shape}] and values [${values.shape}] must not be empty`);
    const rows = seq.size / m;
    if (values.size / count !== rows)
      throw new ShapeError(`${what}: sortedSequence [${seq.shape}] has ${rows} rows and values [${values.shape}] ${values.size / count}; ` +
                           `expected the same`);
    if (seq.dtype !== values.dtype) [seq, values] = [tl.cast(seq, 'float32'), tl.cast(values, 'float32')];
    const flat = tl.reshape(seq, [rows * m]), v = tl.reshape(values, [rows, count]);
    const rowStart = ints(Array.from({ length: rows }, (_, r) => r * m), [rows, 1]);
    let left = tl.zeros([rows, count], 'int32'), right = tl.fill([rows, count], m, 'int32');
    for (let step = 0; step < bitLength(m); ++step) {  // each step halves right - left, from m to 0
      const active = tl.less(left, right);
      const mid = tl.cast(tl.mul(tl.cast(tl.add(left, right), 'float32'), 0.5), 'int32');
      const probe = tl.gather(flat, tl.add(rowStart, tl.minimum(mid, int(m - 1))));
      const up = side === 'left' ? tl.less(probe, v) : tl.lessEqual(probe, v);
      left = tl.where(tl.logicalAnd(active, up), tl.add(mid, int(1)), left);
      right = tl.where(tl.logicalAnd(active, tl.logicalNot(up)), mid, right);
    }
    return right;
  });

  /** Bins of x (rank 1, or 2 counted per row) in [0, size): weights summed (ones without weights); ids >= size dropped. */
  const countBins = (what, x, weights, size, binaryOutput, perRow) => {
    if (x.size > 0) tl.op('assert_non_negative', [x], { message: `${what}: x must be non-negative` });
    const rows = perRow ? x.shape[0] : 1, n = perRow ? x.shape[1] : x.size;
    const w = binaryOutput || weights.size === 0 ? tl.ones([rows * n], weights.dtype) : tl.reshape(weights, [rows * n]);
    let bins = tl.where(tl.less(x, size), x, int(size));
    if (perRow) bins = tl.add(bins, ints(Array.from({ length: rows }, (_, r) => r * (size + 1)), [rows, 1]));
    const sums = tl.reshape(segmentSum(w, tl.reshape(bins, [rows * n]), rows * (size + 1)), [rows, size + 1]);
    const counts = sliceAxis(sums, 1, 0, size);
    const y = binaryOutput ? tl.cast(tl.greater(counts, 0), weights.dtype) : counts;
    return tl.reshape(y, perRow ? [rows, size] : [size]);
  };
  const binArguments = (what, xValue, weightsValue, size) => {
    const x = intOf(what, 'x', xValue), weights = numericOf(what, 'weights', weightsValue);
    const s = toInteger(size, { what, root: 'size', min: 0 });
    if (weights.size !== x.size && weights.size !== 0)
      throw new ShapeError(`${what}: weights have shape [${weights.shape}]; expected the size of x [${x.shape}] or no elements`);
    return [x, weights, s];
  };
  const bincount = (xValue, weightsValue, size) => tidy(() => {
    const what = 'tl.bincount', [x, weights, s] = binArguments(what, xValue, weightsValue, size);
    return countBins(what, x, weights, s, false, false);
  });
  const denseBincount = (xValue, weightsValue, size, binaryOutput = false) => tidy(() => {
    const what = 'tl.denseBincount', [x, weights, s] = binArguments(what, xValue, weightsValue, size);
    if (x.rank > 2) throw new ShapeError(`${what}: x has rank ${x.rank}; expected rank 1 or 2`);
    if (typeof binaryOutput !== 'boolean') throw new InvalidArgument(`${what}: binaryOutput is ${describeValue(binaryOutput)}; expected a boolean`);
    return countBins(what, x, weights, s, binaryOutput, x.rank === 2);
  });

  return {
    gatherND: { fn: gatherND, method: false },
    scatterND: { fn: scatterND, method: false },
    tensorScatterUpdate: { fn: tensorScatterUpdate, method: false },
    sparseToDense: { fn: sparseToDense, method: false },
    unsortedSegmentSum: { fn: unsortedSegmentSum, method: true },
    searchSorted: { fn: (s, v, side = 'left') => search('tl.searchSorted', s, v, side), method: false },
    lowerBound: { fn: (s, v) => search('tl.lowerBound', s, v, 'left'), method: false },
    upperBound: { fn: (s, v) => search('tl.upperBound', s, v, 'right'), method: false },
    bincount: { fn: bincount, method: false },
    denseBincount: { fn: denseBincount, method: false },
    ...makeValueShapedOps(tl, kit, { ints, intOf, numericOf, segmentSum, writeRows }),
  };
}
