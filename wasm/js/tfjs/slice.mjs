// TF.js functions: the slice group (see GROUPS in wasm/js/tfjs_ops.mjs) — slicing, joining and rearranging, made of
// the registry's slice, gather, pad, concat, reshape, transpose and broadcast_to, so each runs eagerly, has the
// gradient of those ops and is traced by tl.function.
//
//   tl.stridedSlice(x, [0, -1], [2, 0], [1, -1]);        // x[0:2, ::-1] but the first column
//   tl.mirrorPad(x, [[1, 1], [2, 2]], 'reflect');
//
// A stride other than 1 (or a negative one) is a gather of the strided indices after one slice of the span; a
// reverse is a gather of the reversed indices; mirrorPad gathers each padded axis once.
import { InvalidArgument, ShapeError, DTypeError } from '../errors.mjs';
import { describeValue, toInteger } from '../values.mjs';

const NEW_AXIS = -1;  // in stridedSlice's final dims: an axis of size 1 that x does not have

/** {name: {fn, method}} for tl and the Tensor methods; `kit` is tfjs_ops.mjs' helpers. */
export function makeSliceOps(tl, kit) {
  const { tensorOf, known, axisOf, axesOf, tidy, reverseAxis } = kit;
  const identity = (x) => tl.op('identity', [x]);
  const ranked = (what, x, rank) => {
    if (x.rank !== rank) throw new ShapeError(`${what}: x has rank ${x.rank} (shape [${x.shape}]); expected rank ${rank}`);
    return x;
  };
  const integerList = (what, root, value, length, min) => {
    if (!Array.isArray(value)) throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected an array of integers`);
    if (length !== undefined && value.length !== length)
      throw new InvalidArgument(`${what}: ${root} has ${value.length} entries; expected ${length}`);
    return value.map((v, i) => toInteger(v, { what, root: `${root}[${i}]`, min }));
  };
  const pairsOf = (what, root, value, count) => {
    if (!Array.isArray(value) || value.length !== count || !value.every((p) => Array.isArray(p) && p.length === 2))
      throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected ${count} pairs [before, after]`);
    return value.map((p, i) => integerList(what, `${root}[${i}]`, p, 2, 0));
  };

  // concat1d ... concat4d: TF.js' concat of tensors of one dtype (TF.js converts the others to the first's dtype,
  // truncating floats; here that is a DTypeError, as in TF).
  const concatN = (rank) => (tensors, axis = 0) => tidy(() => {
    const what = `tl.concat${rank}d`;
    if (!Array.isArray(tensors) || tensors.length === 0)
      throw new InvalidArgument(`${what}: tensors is ${describeValue(tensors)}; expected a non-empty array of tensors`);
    const xs = tensors.map((t, k) => tensorOf(what, `tensors[${k}]`, t));
    const other = xs.findIndex((x) => x.dtype !== xs[0].dtype);
    if (other >= 0)
      throw new DTypeError(`${what}: tensors[0] is ${xs[0].dtype} and tensors[${other}] ${xs[other].dtype}; ` +
                           'expected one dtype (cast first)');
    return tl.concat(xs, rank === 1 ? 0 : axis ?? 0);
  });

  // pad1d takes one pair [before, after]; pad2d ... pad4d one pair per dimension.
  const padN = (rank) => (value, paddings, constantValue = 0) => tidy(() => {
    const what = `tl.pad${rank}d`, x = ranked(what, tensorOf(what, 'x', value), rank);
    const pairs = rank === 1 ? pairsOf(what, 'paddings', [paddings], 1) : pairsOf(what, 'paddings', paddings, rank);
    return tl.pad(x, pairs, constantValue);
  });

  const reverse = (value, axis) => tidy(() => {
    const what = 'tl.reverse', x = tensorOf(what, 'x', value);
    if (x.rank === 0) return identity(x);
    const axes = axesOf(what, axis, x.rank);
    const twice = axes.find((a, k) => axes.indexOf(a) !== k);
    if (twice !== undefined) throw new InvalidArgument(`${what}: axis ${describeValue(axis)} names dimension ${twice} twice`);
    known(what, x);
    return axes.length === 0 ? identity(x) : axes.reduce((y, a) => reverseAxis(y, a), x);
  });
  const reverseN = (rank) => (value, axis) => {
    const what = `tl.reverse${rank}d`;
    return tidy(() => reverse(ranked(what, tensorOf(what, 'x', value), rank), rank === 1 ? 0 : axis));
  };

  // TF.js' slice parameters: a number begin is [begin, 0, ...], a number size [size, -1, ...]; missing trailing
  // entries begin at 0 and run to the end (size -1).
  const sliceN = (rank) => (value, begin, size) => tidy(() => {
    const what = `tl.slice${rank}d`, x = ranked(what, tensorOf(what, 'x', value), rank);
    const filled = (root, v, fill, min) => {
      const list = typeof v === 'number' ? [toInteger(v, { what, root, min })]
        : v === undefined || v === null ? [] : integerList(what, root, v, undefined, min);
      if (list.length > rank) throw new InvalidArgument(`${what}: ${root} has ${list.length} entries; expected at most ${rank}`);
      return [...list, ...new Array(rank - list.length).fill(fill)];
    };
    const b = filled('begin', begin, 0, 0), n = filled('size', size, -1, -1), shape = known(what, x);
    b.forEach((at, i) => {
      if (at > shape[i] || (n[i] !== -1 && at + n[i] > shape[i]))
        throw new InvalidArgument(`${what}: begin [${b}] with size [${n}] runs past dimension ${i} of x (shape [${shape}])`);
    });
    return tl.slice(x, b, n);
  });

  const stridedSlice = (value, begin, end, strides, beginMask = 0, endMask = 0, ellipsisMask = 0, newAxisMask = 0,
                        shrinkAxisMask = 0) => tidy(() => {
    const what = 'tl.stridedSlice', x = tensorOf(what, 'x', value);
    const masks = { beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask };
    for (const [root, m] of Object.entries(masks)) masks[root] = toInteger(m ?? 0, { what, root, min: 0 });
    const b = integerList(what, 'begin', begin);
    const e = integerList(what, 'end', end, b.length);
    const s = strides === undefined || strides === null ? b.map(() => 1) : integerList(what, 'strides', strides, b.length);
    const { dims, finalShape } = stridedSpec(what, known(what, x), b, e, s, masks);
    // One slice of the span each dimension reads, then a gather of the strided (or reversed) indices in it.
    const starts = [], spans = [];
    for (const d of dims) {
      const span = d.size === 0 ? 0 : (d.size - 1) * Math.abs(d.stride) + 1;
      starts.push(d.size === 0 ? 0 : d.stride > 0 ? d.begin : d.begin - span + 1);
      spans.push(span);
    }
    let y = tl.slice(x, starts, spans);
    dims.forEach((d, axis) => {
      if (d.stride === 1 || d.size <= 1) return;
      const step = d.stride, first = step > 0 ? 0 : spans[axis] - 1;
      y = tl.gather(y, tl.tensor(Int32Array.from({ length: d.size }, (_, k) => first + k * step), [d.size], 'int32'), axis);
    });
    return tl.reshape(y, finalShape);
  });

  const mirrorPad = (value, paddings, mode) => tidy(() => {
    const what = 'tl.mirrorPad';
    if (mode !== 'reflect' && mode !== 'symmetric')
      throw new InvalidArgument(`${what}: mode is ${describeValue(mode)}; expected 'reflect' or 'symmetric'`);
    const x = tensorOf(what, 'x', value);
    if (x.rank === 0) throw new InvalidArgument(`${what}: x is a scalar; mirrorPad needs a tensor of rank >= 1`);
    const shape = known(what, x), pairs = pairsOf(what, 'paddings', paddings, x.rank), offset = mode === 'reflect' ? 1 : 0;
    pairs.forEach(([before, after], i) => {
      if (before > shape[i] - offset || after > shape[i] - offset)
        throw new InvalidArgument(`${what}: paddings[${i}] [${before}, ${after}] exceeds ${shape[i] - offset}, the most ` +
                                  `${mode} padding allows for dimension ${i} of size ${shape[i]}`);
    });
    // Along each padded axis one gather: the mirrored indices before, the axis, the mirrored indices after.
    const padded = pairs.reduce((y, [before, after], axis) => {
      if (before === 0 && after === 0) return y;
      const n = shape[axis];
      const indices = [...Array.from({ length: before }, (_, k) => before - k - 1 + offset),
                       ...Array.from({ length: n }, (_, k) => k),
                       ...Array.from({ length: after }, (_, k) => n - 1 - k - offset)];
      return tl.gather(y, tl.tensor(Int32Array.from(indices), [indices.length], 'int32'), axis);
    }, x);
    return padded === x ? identity(x) : padded;
  });

  const blockShapeOf = (what, value, x) => {
    const block = integerList(what, 'blockShape', value, undefined, 1);
    if (block.length === 0) throw new InvalidArgument(`${what}: blockShape is empty; expected at least one block size`);
    if (x.rank < block.length + 1)
      throw new ShapeError(`${what}: x has rank ${x.rank}; expected at least ${block.length + 1} ` +
                           '(a batch dimension and one per block size)');
    return block;
  };

  // [batch, spatial..., rest...] padded, each spatial dim split in (dim / block, block), the blocks moved in front
  // of the batch and merged into it.
  const spaceToBatchND = (value, blockShape, paddings) => tidy(() => {
    const what = 'tl.spaceToBatchND', x = tensorOf(what, 'x', value);
    const block = blockShapeOf(what, blockShape, x), m = block.length, shape = known(what, x);
    const pairs = pairsOf(what, 'paddings', paddings, m);
    const padded = pairs.map(([before, after], i) => shape[i + 1] + before + after);
    padded.forEach((p, i) => {
      if (p % block[i] !== 0)
        throw new ShapeError(`${what}: dimension ${i + 1} of x padded is ${p}, not divisible by blockShape[${i}] ${block[i]}`);
    });
    const rest = shape.slice(m + 1);
    const y = tl.pad(x, [[0, 0], ...pairs, ...rest.map(() => [0, 0])]);
    const split = tl.reshape(y, [shape[0], ...padded.flatMap((p, i) => [p / block[i], block[i]]), ...rest]);
    const perm = [...block.map((_, i) => 2 * i + 2), 0, ...block.map((_, i) => 2 * i + 1), ...rest.map((_, i) => 2 * m + 1 + i)];
    const batch = shape[0] * block.reduce((a, n) => a * n, 1);
    return tl.reshape(tl.transpose(split, perm), [batch, ...padded.map((p, i) => p / block[i]), ...rest]);
  });

  // The inverse: the batch split in (blocks..., batch / prod(blocks)), each block interleaved after its spatial dim,
  // then the crops sliced off.
  const batchToSpaceND = (value, blockShape, crops) => tidy(() => {
    const what = 'tl.batchToSpaceND', x = tensorOf(what, 'x', value);
    const block = blockShapeOf(what, blockShape, x), m = block.length, shape = known(what, x);
    const pairs = pairsOf(what, 'crops', crops, m), prod = block.reduce((a, n) => a * n, 1);
    if (shape[0] % prod !== 0)
      throw new ShapeError(`${what}: the batch of x (${shape[0]}) is not divisible by the product of blockShape (${prod})`);
    const spatial = shape.slice(1, m + 1), rest = shape.slice(m + 1), full = spatial.map((d, i) => d * block[i]);
    pairs.forEach(([before, after], i) => {
      if (before + after > full[i])
        throw new ShapeError(`${what}: crops[${i}] [${before}, ${after}] remove more than dimension ${i + 1} of the result (${full[i]})`);
    });
    const split = tl.reshape(x, [...block, shape[0] / prod, ...shape.slice(1)]);
    const perm = [m, ...block.flatMap((_, i) => [m + 1 + i, i]), ...rest.map((_, i) => 2 * m + 1 + i)];
    const merged = tl.reshape(tl.transpose(split, perm), [shape[0] / prod, ...full, ...rest]);
    return tl.slice(merged, [0, ...pairs.map(([before]) => before), ...rest.map(() => 0)],
                    [-1, ...pairs.map(([before, after], i) => full[i] - before - after), ...rest.map(() => -1)]);
  });

  // NHWC: [b, h, w, (i, j, c)] -> [b, h, i, w, j, c] -> [b, h * s, w * s, c] (TF's DCR order); NCHW through NHWC.
  const depthToSpace = (value, blockSize, dataFormat = 'NHWC') => tidy(() => {
    const what = 'tl.depthToSpace', x = ranked(what, tensorOf(what, 'x', value), 4);
    if (dataFormat !== 'NHWC' && dataFormat !== 'NCHW')
      throw new InvalidArgument(`${what}: dataFormat is ${describeValue(dataFormat)}; expected 'NHWC' or 'NCHW'`);
    const size = toInteger(blockSize, { what, root: 'blockSize', min: 2 });
    const nhwc = dataFormat === 'NHWC' ? x : tl.transpose(x, [0, 2, 3, 1]);
    const [batch, height, width, depth] = known(what, nhwc);
    if (depth % (size * size) !== 0)
      throw new ShapeError(`${what}: the depth of x (${depth}) is not divisible by blockSize * blockSize (${size * size})`);
    const split = tl.reshape(nhwc, [batch, height, width, size, size, depth / (size * size)]);
    const y = tl.reshape(tl.transpose(split, [0, 1, 3, 2, 4, 5]), [batch, height * size, width * size, depth / (size * size)]);
    return dataFormat === 'NHWC' ? y : tl.transpose(y, [0, 3, 1, 2]);
  });

  // The shape two shapes broadcast to: the shorter padded with leading 1s, then each 1 takes the other's size; an
  // assert op checks (eagerly, and in a tl.function each time it runs) that the sizes agree or one is 1.
  const broadcastArgs = (s0, s1) => tidy(() => {
    const what = 'tl.broadcastArgs';
    const [a, b] = [['s0', s0], ['s1', s1]].map(([root, v]) => {
      const t = tensorOf(what, root, v, 'int32');
      if (t.dtype !== 'int32') throw new DTypeError(`${what}: ${root} is ${t.dtype}; expected an int32 tensor`);
      if (t.rank !== 1) throw new ShapeError(`${what}: ${root} has rank ${t.rank}; expected a vector (rank 1)`);
      return t;
    });
    const n = Math.max(known(what, a)[0], known(what, b)[0]);
    const [x, y] = [a, b].map((t) => (t.shape[0] === n ? t : tl.pad(t, [[n - t.shape[0], 0]], 1)));
    const ok = tl.logicalOr(tl.equal(x, y), tl.logicalOr(tl.equal(x, 1), tl.equal(y, 1)));
    tl.op('assert', [ok, x, y], { message: `${what}: the shapes cannot be broadcast together (sizes differ where neither is 1)` });
    return tl.where(tl.equal(x, 1), y, x);
  });

  // x itself when its shape is compatible with `shape` (null: any size); inside a tl.function the traced shape is
  // checked, where an unknown size passes.
  const ensureShape = (value, shape) => {
    const what = 'tl.ensureShape', x = tensorOf(what, 'x', value);
    if (!Array.isArray(shape)) throw new InvalidArgument(`${what}: shape is ${describeValue(shape)}; expected an array of sizes (or null)`);
    const wanted = shape.map((d, i) => (d === null || d === undefined ? null : toInteger(d, { what, root: `shape[${i}]`, min: 0 })));
    const fits = wanted.length === x.rank && wanted.every((d, i) => d === null || x.shape[i] < 0 || d === x.shape[i]);
    if (!fits) {
      const show = (dims) => `[${dims.map((d) => (d === null || d < 0 ? '?' : d)).join(', ')}]`;
      throw new ShapeError(`${what}: x has shape ${show(x.shape)}, not compatible with the expected shape ${show(wanted)}`);
    }
    return x;
  };

  const meshgrid = (x, y, options = {}) => tidy(() => {
    const what = 'tl.meshgrid';
    if (options === null || typeof options !== 'object')
      throw new InvalidArgument(`${what}: options is ${describeValue(options)}; expected {indexing}`);
    const { indexing = 'xy' } = options;
    if (indexing !== 'xy' && indexing !== 'ij')
      throw new InvalidArgument(`${what}: indexing is ${describeValue(indexing)}; expected 'xy' or 'ij'`);
    if (x === undefined) return [];
    const tx = tensorOf(what, 'x', x, 'float32');
    if (y === undefined) return [tx];
    const ty = tensorOf(what, 'y', y, 'float32');
    const w = known(what, tx).reduce((p, d) => p * d, 1), h = known(what, ty).reduce((p, d) => p * d, 1);
    if (indexing === 'xy') return [tl.broadcastTo(tl.reshape(tx, [1, w]), [h, w]), tl.broadcastTo(tl.reshape(ty, [h, 1]), [h, w])];
    return [tl.broadcastTo(tl.reshape(tx, [w, 1]), [w, h]), tl.broadcastTo(tl.reshape(ty, [1, h]), [w, h])];
  });

  const entries = {
    reverse: { fn: reverse, method: true },
    stridedSlice: { fn: stridedSlice, method: true },
    mirrorPad: { fn: mirrorPad, method: true },
    spaceToBatchND: { fn: spaceToBatchND, method: true },
    batchToSpaceND: { fn: batchToSpaceND, method: true },
    depthToSpace: { fn: depthToSpace, method: true },
    broadcastArgs: { fn: broadcastArgs, method: false },
    ensureShape: { fn: ensureShape, method: false },
    meshgrid: { fn: meshgrid, method: false },
  };
  for (const rank of [1, 2, 3, 4]) {
    entries[`concat${rank}d`] = { fn: concatN(rank), method: false };
    entries[`pad${rank}d`] = { fn: padN(rank), method: false };
    entries[`reverse${rank}d`] = { fn: reverseN(rank), method: false };
    entries[`slice${rank}d`] = { fn: sliceN(rank), method: false };
  }
  return entries;
}

/**
 * TF's strided-slice rules (tf.strided_slice, TF.js' slice_util.sliceInfo): the sparse begin / end / strides with
 * their masks made dense — an ellipsis (explicit, else implied at the end) covers the dimensions no entry names, a
 * new axis adds a size-1 dimension, a shrink axis takes one index and drops the dimension. Returns per dimension of x
 * {begin, stride, size} (begin canonical: in range, negative indices counted from the end) and the result's shape.
 */
function stridedSpec(what, shape, begin, end, strides, { beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask }) {
  const bit = (mask, i) => Math.floor(mask / 2 ** i) % 2 === 1;
  if (ellipsisMask & (ellipsisMask - 1)) throw new InvalidArgument(`${what}: ellipsisMask ${ellipsisMask} has more than one bit set`);
  let count = begin.length, ellipsis = ellipsisMask, newAfterEllipsis = 0, seen = false;
  for (let i = 0; i < count; ++i) {
    if (seen && bit(newAxisMask, i)) newAfterEllipsis++;
    if (bit(ellipsis, i)) seen = true;
  }
  if (!seen) ellipsis += 2 ** count++;
  const rank = shape.length, dense = [], final = [];
  for (let i = 0; i < count; ++i) {
    if (bit(ellipsis, i)) {
      const next = Math.min(rank - (count - i) + 1 + newAfterEllipsis, rank);
      while (dense.length < next) {
        final.push(dense.length);
        dense.push({ begin: 0, end: 0, stride: 1, beginMasked: true, endMasked: true, shrink: false });
      }
    } else if (bit(newAxisMask, i)) {
      final.push(NEW_AXIS);
    } else {
      if (dense.length === rank)
        throw new InvalidArgument(`${what}: entry ${i} of begin / end / strides indexes dimension ${rank}, but x has rank ${rank}`);
      const shrink = bit(shrinkAxisMask, i);
      if (!shrink) final.push(dense.length);
      dense.push({ begin: begin[i], end: end[i], stride: strides[i], beginMasked: bit(beginMask, i), endMasked: bit(endMask, i), shrink });
    }
  }
  const dims = dense.map((d, axis) => {
    const n = shape[axis], stride = d.stride;
    if (stride === 0) throw new InvalidArgument(`${what}: the stride of dimension ${axis} is 0; expected a non-zero stride`);
    if (d.shrink) {
      if (stride < 0)
        throw new InvalidArgument(`${what}: dimension ${axis} is shrunk (one index) but its stride is ${stride}; ` +
                                  'expected a positive stride');
      const at = d.begin < 0 ? n + d.begin : d.begin;
      if (at < 0 || at >= n) throw new InvalidArgument(`${what}: index ${d.begin} is out of range for dimension ${axis} of size ${n}`);
      return { begin: at, stride: 1, size: 1 };
    }
    // In range: [0, n] going forward, [-1, n - 1] going backward (-1: one before the first).
    const lo = stride > 0 ? 0 : -1, hi = stride > 0 ? n : n - 1;
    const canonical = (index, masked, isEnd) => {
      if (masked) return (stride > 0) === isEnd ? hi : lo;
      const forward = index < 0 ? n + index : index;
      return Math.min(Math.max(forward, lo), hi);
    };
    const first = canonical(d.begin, d.beginMasked, false), length = canonical(d.end, d.endMasked, true) - first;
    const size = length === 0 || (length < 0) !== (stride < 0) ? 0 : Math.ceil(length / stride);
    return { begin: first, stride, size };
  });
  return { dims, finalShape: final.map((axis) => (axis === NEW_AXIS ? 1 : dims[axis].size)) };
}
