// TF.js functions of the gather group whose result's shape depends on the input's values (unique, the Async ones,
// tl.sparse.*, the ragged ones): they read their inputs' values in JS, so they run eagerly only (inside a tl.function
// they throw OperatorNotAllowedInGraphError naming the function); the values they move go through gather,
// unsorted_segment_sum or where, so a tape differentiates them. Made by makeGatherOps (wasm/js/tfjs/gather.mjs), which
// hands over its index helpers.
import { InvalidArgument, ShapeError, DTypeError, OperatorNotAllowedInGraphError } from '../errors.mjs';
import { describeValue, toInteger } from '../values.mjs';
import { sameShape, sizeOf } from './shapes.mjs';

/** The functions whose result's shape depends on the values of their inputs: eager only. */
export function makeValueShapedOps(tl, kit, { ints, intOf, numericOf, segmentSum, writeRows }) {
  const { tensorOf, known, axisOf, tidy } = kit;
  /** The values of tensors, read in JS; while a tl.function traces (even on constants), an error naming the function. */
  const read = (what, ...tensors) => {
    for (const t of tensors)
      if (t.symbolic || t.engine.tracing > 0)
        throw new OperatorNotAllowedInGraphError(`${what}: the shape of its result depends on the values of its inputs, so it cannot ` +
                                                 'run inside a tl.function (a graph needs its shapes when traced); call it outside the function');
    return tensors.map((t) => t.dataSync());
  };
  const intVector = (what, root, value) => {
    const t = intOf(what, root, value);
    if (t.rank !== 1) throw new ShapeError(`${what}: ${root} has shape [${t.shape}]; expected a vector`);
    return t;
  };
  const intMatrix = (what, root, value) => {
    const t = intOf(what, root, value);
    if (t.rank !== 2) throw new ShapeError(`${what}: ${root} has shape [${t.shape}]; expected a matrix`);
    return t;
  };

  // Slices along axis keyed by their values' strings (as TF.js' kernel: NaN equals NaN, -0 equals 0), in order of
  // first appearance; the values are gathered from x.
  const unique = (xValue, axis = 0) => tidy(() => {
    const what = 'tl.unique', x = tensorOf(what, 'x', xValue);
    known(what, x);
    if (x.rank < 1) throw new ShapeError(`${what}: x is a scalar; expected rank >= 1`);
    const a = axisOf(what, 'axis', axis, x.rank), [values] = read(what, x);
    const outer = x.shape.slice(0, a).reduce((p, d) => p * d, 1), n = x.shape[a];
    const inner = x.shape.slice(a + 1).reduce((p, d) => p * d, 1);
    const seen = new Map(), indices = new Int32Array(n), first = [];
    for (let i = 0; i < n; ++i) {
      const parts = [];
      for (let m = 0; m < outer; ++m) for (let q = 0; q < inner; ++q) parts.push(values[(m * n + i) * inner + q]);
      const key = parts.map(String).join(',');
      if (!seen.has(key)) {
        seen.set(key, first.length);
        first.push(i);
      }
      indices[i] = seen.get(key);
    }
    return { values: tl.gather(x, ints(first), a), indices: tl.tensor(indices, [n], 'int32') };
  });

  // The coordinates [count, rank] of the true elements, in row-major order.
  const whereAsync = async (conditionValue) => tidy(() => {
    const what = 'tl.whereAsync', condition = tensorOf(what, 'condition', conditionValue, 'bool');
    if (condition.dtype !== 'bool') throw new DTypeError(`${what}: condition is ${condition.dtype}; expected bool`);
    const shape = known(what, condition), [values] = read(what, condition), coordinates = [];
    let count = 0;
    for (let j = 0; j < values.length; ++j) {
      if (!values[j]) continue;
      count++;
      for (let k = shape.length - 1, rest = j, at = coordinates.length; k >= 0; --k) {
        coordinates[at + k] = rest % shape[k];
        rest = Math.floor(rest / shape[k]);
      }
    }
    return ints(coordinates, [count, shape.length]);
  });

  const booleanMaskAsync = async (tensorValue, maskValue, axis = 0) => tidy(() => {
    const what = 'tl.booleanMaskAsync', x = tensorOf(what, 'tensor', tensorValue), mask = tensorOf(what, 'mask', maskValue, 'bool');
    known(what, x);
    if (mask.dtype !== 'bool') throw new DTypeError(`${what}: mask is ${mask.dtype}; expected bool`);
    if (mask.rank === 0) throw new ShapeError(`${what}: mask is a scalar; expected rank >= 1`);
    const a = toInteger(axis ?? 0, { what, root: 'axis', min: 0 });
    if (!sameShape(x.shape.slice(a, a + mask.rank), mask.shape))
      throw new ShapeError(`${what}: mask has shape [${mask.shape}]; expected the dims ${a}.. of tensor [${x.shape}]`);
    const [values] = read(what, mask), keep = [];
    for (let j = 0; j < values.length; ++j) if (values[j]) keep.push(j);
    const flat = tl.reshape(x, [...x.shape.slice(0, a), mask.size, ...x.shape.slice(a + mask.rank)]);
    return tl.gather(flat, ints(keep), a);
  });

  const setdiff1dAsync = async (xValue, yValue) => tidy(() => {
    const what = 'tl.setdiff1dAsync', x = tensorOf(what, 'x', xValue), y = tensorOf(what, 'y', yValue);
    if (x.dtype !== y.dtype) throw new DTypeError(`${what}: x is ${x.dtype} and y ${y.dtype}; expected the same dtype`);
    if (x.rank !== 1 || y.rank !== 1) throw new ShapeError(`${what}: x [${x.shape}] and y [${y.shape}] must be vectors`);
    const [xs, ys] = read(what, x, y), drop = new Set(ys), values = [], indices = [];
    xs.forEach((v, j) => { if (!drop.has(v)) { values.push(v); indices.push(j); } });
    return [tl.tensor(x.dtype === 'bool' ? values.map(Boolean) : values, [values.length], x.dtype), ints(indices)];
  });

  // Per row: whether the target's index is among the k largest predictions (a stable sort: ties go to the lower index).
  const inTopKAsync = async (predictionsValue, targetsValue, k = 1) => tidy(() => {
    const what = 'tl.inTopKAsync', predictions = numericOf(what, 'predictions', predictionsValue);
    const targets = intOf(what, 'targets', targetsValue);
    if (predictions.rank < 2) throw new ShapeError(`${what}: predictions have rank ${predictions.rank}; expected rank >= 2`);
    if (!sameShape(predictions.shape.slice(0, -1), targets.shape))
      throw new ShapeError(`${what}: targets have shape [${targets.shape}]; expected the dims of predictions [${predictions.shape}] but the last`);
    const last = predictions.shape[predictions.rank - 1], kk = toInteger(k, { what, root: 'k', min: 1 });
    if (kk > last) throw new InvalidArgument(`${what}: k is ${kk}; expected at most the last dimension of predictions (${last})`);
    const [p, t] = read(what, predictions, targets), hits = [];
    for (let row = 0; row < t.length; ++row) {
      const order = Array.from({ length: last }, (_, j) => j).sort((i, j) => p[row * last + j] - p[row * last + i]);
      hits.push(order.slice(0, kk).includes(t[row]));
    }
    return tl.tensor(hits, targets.shape, 'bool');
  });

  // tl.sparse: COO tensors as (indices [n, rank], values [n], dense shape).
  const sparseFillEmptyRows = (indicesValue, valuesValue, denseShapeValue, defaultValue) => tidy(() => {
    const what = 'tl.sparse.sparseFillEmptyRows', indices = intMatrix(what, 'indices', indicesValue);
    const values = tensorOf(what, 'values', valuesValue), denseShape = intVector(what, 'denseShape', denseShapeValue);
    if (values.rank !== 1) throw new ShapeError(`${what}: values have shape [${values.shape}]; expected a vector`);
    const fill = tensorOf(what, 'defaultValue', defaultValue, values.dtype);
    if (fill.rank !== 0) throw new ShapeError(`${what}: defaultValue has shape [${fill.shape}]; expected a scalar`);
    if (fill.dtype !== values.dtype)
      throw new DTypeError(`${what}: defaultValue is ${fill.dtype} and values ${values.dtype}; expected the same dtype`);
    const [ix, shape] = read(what, indices, denseShape), [count, rank] = indices.shape, rows = shape[0];
    const rowOf = (i) => ix[i * rank];
    for (let i = 0; i < count; ++i)
      if (rowOf(i) < 0 || rowOf(i) >= rows) throw new InvalidArgument(`${what}: indices[${i}] has row ${rowOf(i)}; expected one in [0, ${rows})`);
    // Each entry keeps its order within its row; an empty row gets one entry [row, 0, ...] = defaultValue.
    const perRow = new Array(rows).fill(0);
    for (let i = 0; i < count; ++i) perRow[rowOf(i)]++;
    const start = [], empty = [];
    let total = 0;
    for (let r = 0; r < rows; ++r) { start.push(total); empty.push(perRow[r] === 0); total += Math.max(perRow[r], 1); }
    const placed = new Array(rows).fill(0), reverse = [], source = new Array(total).fill(count), outIndices = new Array(total * rank).fill(0);
    for (let i = 0; i < count; ++i) {
      const at = start[rowOf(i)] + placed[rowOf(i)]++;
      reverse.push(at);
      source[at] = i;
      for (let j = 0; j < rank; ++j) outIndices[at * rank + j] = ix[i * rank + j];
    }
    for (let r = 0; r < rows; ++r) if (empty[r]) outIndices[start[r] * rank] = r;
    const withDefault = tl.concat([values, tl.reshape(fill, [1])], 0);
    return { outputIndices: ints(outIndices, [total, rank]), outputValues: tl.gather(withDefault, ints(source)),
             emptyRowIndicator: tl.tensor(empty, [rows], 'bool'), reverseIndexMap: ints(reverse) };
  });

  const sparseReshape = (indicesValue, inputShapeValue, newShapeValue) => tidy(() => {
    const what = 'tl.sparse.sparseReshape', indices = intMatrix(what, 'inputIndices', indicesValue);
    const inputShape = intVector(what, 'inputShape', inputShapeValue), newShape = intVector(what, 'newShape', newShapeValue);
    const [ix, from, to] = read(what, indices, inputShape, newShape).map((v) => Array.from(v));
    const dense = sizeOf(from), unknown = to.indexOf(-1);
    if (to.filter((d) => d === -1).length > 1) throw new InvalidArgument(`${what}: newShape [${to}] has more than one -1`);
    to.forEach((d, i) => { if (d < -1) throw new InvalidArgument(`${what}: newShape[${i}] is ${d}; expected a size or -1`); });
    const product = sizeOf(to.filter((d) => d !== -1));
    if (unknown >= 0) {
      if (product <= 0) throw new InvalidArgument(`${what}: newShape [${to}] has a -1 and a 0; the -1 cannot be inferred`);
      if (dense % product !== 0)
        throw new InvalidArgument(`${what}: inputShape [${from}] has ${dense} elements, not a multiple of ${product} (newShape [${to}])`);
      to[unknown] = dense / product;
    }
    if (sizeOf(to) !== dense) throw new InvalidArgument(`${what}: inputShape [${from}] has ${dense} elements and newShape [${to}] ${sizeOf(to)}`);
    const [n, rank] = indices.shape;
    if (rank !== from.length) throw new ShapeError(`${what}: inputIndices have ${rank} coordinates; inputShape [${from}] has ${from.length} dims`);
    const stridesOf = (shape) => shape.map((_, k) => sizeOf(shape.slice(k + 1)));
    const inStrides = stridesOf(from), outStrides = stridesOf(to), out = [];
    for (let i = 0; i < n; ++i) {
      let offset = 0;
      for (let j = 0; j < rank; ++j) offset += ix[i * rank + j] * inStrides[j];
      for (const s of outStrides) { out.push(Math.trunc(offset / s)); offset %= s; }
    }
    return { outputIndices: ints(out, [n, to.length]), outputShape: ints(to) };
  });

  // Rows of data at indices, summed (or averaged) per segment id; the ids are sorted, the result has a row per id up
  // to the last (rows without entries are 0). Gather and unsorted_segment_sum carry the gradient.
  const sparseSegment = (what, mean) => (dataValue, indicesValue, idsValue) => tidy(() => {
    const data = numericOf(what, 'data', dataValue);
    const indices = intVector(what, 'indices', indicesValue), ids = intVector(what, 'segmentIds', idsValue);
    if (data.rank < 1) throw new ShapeError(`${what}: data is a scalar; expected rank >= 1`);
    if (ids.shape[0] !== indices.shape[0])
      throw new ShapeError(`${what}: segmentIds [${ids.shape}] and indices [${indices.shape}] must have the same length`);
    const [ix, sid] = read(what, indices, ids), n = ix.length, rows = n > 0 ? sid[n - 1] + 1 : 0;
    for (let i = 0; i < n; ++i) {
      if (sid[i] < 0 || (i > 0 && sid[i] < sid[i - 1]))
        throw new InvalidArgument(`${what}: segmentIds must be non-negative and sorted; segmentIds[${i}] is ${sid[i]}`);
      if (ix[i] < 0 || ix[i] >= data.shape[0]) throw new InvalidArgument(`${what}: indices[${i}] = ${ix[i]} is not in [0, ${data.shape[0]})`);
    }
    const sums = segmentSum(tl.gather(data, indices, 0), ids, rows);
    if (!mean) return sums;
    const counts = new Array(rows).fill(0);
    for (const s of sid) counts[s]++;
    const divisor = tl.tensor(counts.map((c) => Math.max(c, 1)), [rows, ...data.shape.slice(1).map(() => 1)], data.dtype);
    // TF.js' int32 kernel stores the quotient in an Int32Array: truncated toward zero.
    return data.dtype === 'int32' ? tl.cast(tl.div(tl.cast(sums, 'float32'), tl.cast(divisor, 'float32')), 'int32') : tl.div(sums, divisor);
  });

  // The rows of a ragged tensor (nested row splits + dense values) at indices, as TF.js' RaggedGather kernel.
  const raggedGather = (splitsValue, valuesValue, indicesValue, outputRaggedRank) => tidy(() => {
    const what = 'tl.raggedGather';
    if (!Array.isArray(splitsValue) || splitsValue.length === 0)
      throw new InvalidArgument(`${what}: paramsNestedSplits is ${describeValue(splitsValue)}; expected a non-empty array of int32 vectors`);
    const splitTensors = splitsValue.map((s, i) => intVector(what, `paramsNestedSplits[${i}]`, s));
    const params = tensorOf(what, 'paramsDenseValues', valuesValue), indices = intOf(what, 'indices', indicesValue);
    known(what, params);
    if (params.rank === 0) throw new ShapeError(`${what}: paramsDenseValues is a scalar; expected rank >= 1`);
    const splits = read(what, ...splitTensors).map((s) => Array.from(s)), [ix] = read(what, indices);
    const numParams = splits[0].length - 1, numValues = params.shape[0];
    ix.forEach((v, i) => { if (v < 0 || v >= numParams) throw new InvalidArgument(`${what}: indices[${i}] = ${v} is not in [0, ${numParams})`); });
    splits.forEach((s, d) => {
      const end = d === splits.length - 1 ? numValues : splits[d + 1].length;
      if (s.length === 0 || s[0] < 0 || s[s.length - 1] > end || s.some((v, j) => j > 0 && s[j - 1] > v))
        throw new InvalidArgument(`${what}: paramsNestedSplits[${d}] is not sorted within [0, ${end}]`);
    });
    const outer = indices.shape.length - 1, out = Array.from({ length: outer + splits.length }, () => [0]);
    for (let d = 0, rows = 1; d < outer; ++d) {
      rows *= indices.shape[d];
      for (let r = 1; r <= rows; ++r) out[d].push(r * indices.shape[d + 1]);
    }
    const take = [];
    for (const index of ix) {
      let start = index, limit = index + 1;
      splits.forEach((s, d) => {
        const o = out[d + outer], shift = o[o.length - 1] - s[start];
        for (let j = start; j < limit; ++j) o.push(s[j + 1] + shift);
        [start, limit] = [s[start], s[limit]];
      });
      for (let j = start; j < limit; ++j) take.push(j);
    }
    if (outputRaggedRank !== undefined && toInteger(outputRaggedRank, { what, root: 'outputRaggedRank', min: 0 }) !== out.length)
      throw new InvalidArgument(`${what}: outputRaggedRank is ${outputRaggedRank}; these inputs give ${out.length} (indices rank - 1 + splits)`);
    return { outputNestedSplits: out.map((s) => ints(s)), outputDenseValues: tl.gather(params, ints(take), 0) };
  });

  // Row r: start[r], start[r] + delta[r], ... below limit[r] (above, for a negative delta), as TF.js' kernel adds.
  const raggedRange = (startsValue, limitsValue, deltasValue) => tidy(() => {
    const what = 'tl.raggedRange', starts = numericOf(what, 'starts', startsValue);
    const limits = numericOf(what, 'limits', limitsValue, starts.dtype), deltas = numericOf(what, 'deltas', deltasValue, starts.dtype);
    for (const [root, t] of [['limits', limits], ['deltas', deltas]])
      if (t.dtype !== starts.dtype) throw new DTypeError(`${what}: starts is ${starts.dtype} and ${root} ${t.dtype}; expected the same dtype`);
    const all = [['starts', starts], ['limits', limits], ['deltas', deltas]];
    for (const [root, t] of all) if (t.rank > 1) throw new ShapeError(`${what}: ${root} has shape [${t.shape}]; expected a scalar or vector`);
    const lengths = new Set(all.filter(([, t]) => t.rank === 1).map(([, t]) => t.shape[0]));
    if (lengths.size > 1)
      throw new ShapeError(`${what}: starts [${starts.shape}], limits [${limits.shape}] and deltas [${deltas.shape}] must have the same length`);
    const rows = lengths.size === 0 ? 1 : [...lengths][0], [s, l, d] = read(what, starts, limits, deltas);
    const at = (v, r) => (v.length === 1 && rows !== 1 ? v[0] : v[r]);
    const splits = [0], values = [];
    for (let r = 0; r < rows; ++r) {
      const start = at(s, r), limit = at(l, r), delta = at(d, r);
      if (delta === 0) throw new InvalidArgument(`${what}: deltas[${r}] is 0; expected a non-zero step`);
      const size = (delta > 0 && limit < start) || (delta < 0 && limit > start) ? 0 : Math.ceil(Math.abs((limit - start) / delta));
      for (let i = 0, v = start; i < size; ++i, v += delta) values.push(v);
      splits.push(values.length);
    }
    return { rtNestedSplits: ints(splits), rtDenseValues: tl.tensor(values, [values.length], starts.dtype) };
  });

  // A ragged tensor (values, row partitions) as a dense tensor of `shape` (-1 dims: the widest row), defaultValue
  // elsewhere: each row of values gets its place among the output rows (raggedPlaces), then writeRows puts it there.
  const raggedTensorToTensor = (shapeValue, valuesValue, defaultValue, partitionValues, partitionTypes) => tidy(() => {
    const what = 'tl.raggedTensorToTensor', shapeT = intOf(what, 'shape', shapeValue);
    const values = tensorOf(what, 'values', valuesValue);
    known(what, values);
    if (values.rank < 1) throw new ShapeError(`${what}: values is a scalar; expected rank >= 1`);
    const fill = tensorOf(what, 'defaultValue', defaultValue, values.dtype);
    if (fill.dtype !== values.dtype)
      throw new DTypeError(`${what}: defaultValue is ${fill.dtype} and values ${values.dtype}; expected the same dtype`);
    if (fill.rank >= values.rank)
      throw new ShapeError(`${what}: defaultValue has shape [${fill.shape}]; expected a rank below that of values [${values.shape}]`);
    if (!Array.isArray(partitionValues) || !Array.isArray(partitionTypes) || partitionTypes.length !== partitionValues.length ||
        partitionTypes.length === 0)
      throw new InvalidArgument(`${what}: rowPartitionTensors and rowPartitionTypes must be non-empty arrays of the same length`);
    partitionTypes.forEach((type, d) => {
      if (!(type === 'FIRST_DIM_SIZE' ? d === 0 : type === 'ROW_SPLITS' || (type === 'VALUE_ROWIDS' && d > 0)))
        throw new InvalidArgument(`${what}: rowPartitionTypes[${d}] is ${describeValue(type)}; expected 'FIRST_DIM_SIZE' or ` +
                                  "'ROW_SPLITS' first, then 'VALUE_ROWIDS' or 'ROW_SPLITS'");
    });
    const partitionTensors = partitionValues.map((t, d) => intOf(what, `rowPartitionTensors[${d}]`, t));
    const [shapeRead, ...partitions] = read(what, shapeT, ...partitionTensors).map((v) => Array.from(v));
    if (shapeT.rank === 0 && shapeRead[0] !== -1)
      throw new InvalidArgument(`${what}: shape is the scalar ${shapeRead[0]}; only -1 (unknown) is a scalar shape`);
    if (partitions[0].length === 0) throw new InvalidArgument(`${what}: rowPartitionTensors[0] is empty; expected at least one element`);
    // Levels: [first dim size?, then one partition per ragged dimension].
    const levels = partitionTypes.map((type, d) => ({ type, p: partitions[d], root: `rowPartitionTensors[${d}]` }));
    const first = levels[0].type === 'FIRST_DIM_SIZE' ? levels.shift().p[0] : levels[0].p.length - 1;
    const out = denseShape(what, shapeT.rank === 0 ? null : shapeRead, values.shape, first, levels);
    const places = raggedPlaces(what, out, first, levels);
    // Values past the last row are not used, as in TF.
    if (places.length > values.shape[0])
      throw new InvalidArgument(`${what}: the row partitions place ${places.length} values; values have ${values.shape[0]}`);
    while (places.length < values.shape[0]) places.push(-1);
    const rows = sizeOf(out.slice(0, levels.length + 1)), inner = out.slice(levels.length + 1);
    const fillShape = [...new Array(inner.length + 1 - fill.rank).fill(1), ...fill.shape];
    const base = tl.broadcastTo(tl.reshape(fill, fillShape), [rows, ...inner]);
    return tl.reshape(writeRows(base, values, ints(places.map((at) => (at < 0 ? rows : at)))), out);
  });

  return {
    unique: { fn: unique, method: true },
    whereAsync: { fn: whereAsync, method: false },
    booleanMaskAsync: { fn: booleanMaskAsync, method: false },
    setdiff1dAsync: { fn: setdiff1dAsync, method: false },
    inTopKAsync: { fn: inTopKAsync, method: false },
    'sparse.sparseFillEmptyRows': { fn: sparseFillEmptyRows, method: false },
    'sparse.sparseReshape': { fn: sparseReshape, method: false },
    'sparse.sparseSegmentMean': { fn: sparseSegment('tl.sparse.sparseSegmentMean', true), method: false },
    'sparse.sparseSegmentSum': { fn: sparseSegment('tl.sparse.sparseSegmentSum', false), method: false },
    raggedGather: { fn: raggedGather, method: false },
    raggedRange: { fn: raggedRange, method: false },
    raggedTensorToTensor: { fn: raggedTensorToTensor, method: false },
  };
}

/**
 * The dense shape of a ragged tensor: `shape` (null: all unknown) with its -1 dims filled, the first by `first`, the
 * ragged ones by the widest row of their level, the inner ones from the values' dims.
 */
function denseShape(what, shape, valuesShape, first, levels) {
  const rank = levels.length + valuesShape.length, out = shape === null ? new Array(rank).fill(-1) : [...shape];
  if (out.length !== rank || out.some((d) => d < -1))
    throw new ShapeError(`${what}: shape [${shape}] must have ${rank} dims of size >= -1 (ragged rank ${levels.length} + the rank of values)`);
  valuesShape.slice(1).forEach((d, i) => {
    const at = levels.length + 1 + i;
    if (out[at] >= 0 && out[at] !== d) throw new ShapeError(`${what}: shape[${at}] is ${out[at]}; values [${valuesShape}] give ${d}`);
    out[at] = d;
  });
  if (out[0] < 0) out[0] = first;
  levels.forEach(({ type, p }, d) => {
    if (out[d + 1] >= 0) return;
    let widest = 0;
    if (type === 'ROW_SPLITS') for (let r = 0; r + 1 < p.length; ++r) widest = Math.max(widest, p[r + 1] - p[r]);
    else for (let i = 0, start = 0; i <= p.length; ++i) if (i === p.length || p[i] !== p[start]) [widest, start] = [Math.max(widest, i - start), i];
    out[d + 1] = widest;
  });
  return out;
}

/**
 * Per element of the innermost level, its row among the dense tensor's rows (the first levels.length + 1 dims of
 * `out` flattened), or -1 where the shape cuts it off; level by level from the outermost, as TF.js' kernel.
 */
function raggedPlaces(what, out, first, levels) {
  const multiplier = out.slice(0, levels.length + 1).map((_, d) => sizeOf(out.slice(d + 1, levels.length + 1)));
  let places = Array.from({ length: first }, (_, i) => (i < out[0] ? i * multiplier[0] : -1));
  levels.forEach(({ type, p, root }, d) => {
    const next = [], width = out[d + 1], step = multiplier[d + 1];
    if (type === 'ROW_SPLITS') {
      if (p.length - 1 > places.length) throw new InvalidArgument(`${what}: ${root} has ${p.length - 1} rows; the level above has ${places.length}`);
      for (let r = 0; r + 1 < p.length; ++r)
        for (let j = 0; j < p[r + 1] - p[r]; ++j) next.push(places[r] >= 0 && j < width ? places[r] + j * step : -1);
      if (p.some((v, i) => i > 0 && v < p[i - 1]) || next.length !== p[p.length - 1])
        throw new InvalidArgument(`${what}: ${root} [${p}] are not row splits (sorted, from 0)`);
    } else {
      for (let i = 0, column = 0; i < p.length; ++i) {
        if (p[i] < 0 || p[i] >= places.length) throw new InvalidArgument(`${what}: ${root}[${i}] = ${p[i]} is not in [0, ${places.length})`);
        column = i > 0 && p[i] === p[i - 1] ? column + 1 : 0;
        next.push(places[p[i]] >= 0 && column < width ? places[p[i]] + column * step : -1);
      }
    }
    places = next;
  });
  return places;
}
