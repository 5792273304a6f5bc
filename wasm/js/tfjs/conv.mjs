// TF.js functions: the conv group (see GROUPS in wasm/js/tfjs_ops.mjs). Convolutions, pooling and TF.js' fused ops
// as composites of the registry's conv2d, conv2d_backprop_input, max_pool2d and avg_pool2d, channels last only:
//   - a dilated convolution is the convolution with the dilated filter (zeros between the taps);
//   - a numeric or explicit pad is a pad op (zeros, -inf for max) before a 'valid' op; avg pooling then divides the
//     window sums of x by those of ones, so padding cells are not counted (as TF.js does);
//   - depthwiseConv2d, dilation2d and maxPoolWithArgmax gather the cells of each window tap (two strided gathers per
//     tap, kh * kw taps) and combine the taps: a sum of taps times their filter rows, a max of taps plus the filter,
//     a max and an argmax. The work is that of a direct kernel; the height and width must be known;
//   - 3-D ops fold the output depth into the batch and add (or take the max of) one 2-D op per depth tap;
// Window geometry (output sizes, padding before and after, dimRoundingMode) follows TF.js' conv_util.
import { InvalidArgument, ShapeError } from '../errors.mjs';
import { Tensor } from '../tensor.mjs';
import { describeValue, toInteger } from '../values.mjs';

/** {name: {fn, method}} for tl and the Tensor methods; `kit` is tfjs_ops.mjs' helpers. */
export function makeConvOps(tl, kit) {
  const { floatOf, known, tidy } = kit;

  // ---- arguments --------------------------------------------------------------------------------------------------
  /** n positive integers from a number or an array of n. */
  const tuple = (what, root, value, n) => {
    const list = Array.isArray(value) ? value : new Array(n).fill(value);
    if (list.length !== n) throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected a positive integer or ${n} of them`);
    return list.map((v, i) => toInteger(v, { what, root: Array.isArray(value) ? `${root}[${i}]` : root, min: 1 }));
  };
  const format = (what, dataFormat, expected) => {
    if (dataFormat !== undefined && dataFormat !== null && dataFormat !== expected)
      throw new InvalidArgument(`${what}: dataFormat is ${describeValue(dataFormat)}; only '${expected}' (channels last) is supported`);
  };
  const ROUNDING = { floor: Math.floor, round: Math.round, ceil: Math.ceil };
  /** The pad argument: 'valid' | 'same' | a number | explicit [[0, 0], [top, bottom], [left, right], [0, 0]]. */
  const padOf = (what, pad, { numbers = true, explicit = true, spatial = 2 } = {}) => {
    if (pad === 'valid' || pad === 'same') return pad;
    if (numbers && typeof pad === 'number') return toInteger(pad, { what, root: 'pad', min: 0 });
    const pairs = spatial + 2;
    if (explicit && Array.isArray(pad) && pad.length === pairs && pad.every((p) => Array.isArray(p) && p.length === 2)) {
      const flat = pad.map((p, i) => p.map((v, j) => toInteger(v, { what, root: `pad[${i}][${j}]`, min: 0 })));
      if (flat[0].some((v) => v) || flat[pairs - 1].some((v) => v))
        throw new InvalidArgument(`${what}: pad ${describeValue(pad)} pads the batch or channel dimension; expected [0, 0] there`);
      return flat.slice(1, pairs - 1);
    }
    const kinds = ["'valid'", "'same'", ...(numbers ? ['a non-negative integer'] : []),
                   ...(explicit ? [`${pairs} pairs [before, after]`] : [])];
    throw new InvalidArgument(`${what}: pad is ${describeValue(pad)}; expected ${kinds.join(' or ')}`);
  };
  const roundingOf = (what, mode, pad) => {
    if (mode === undefined || mode === null) return Math.trunc;
    if (!Object.hasOwn(ROUNDING, mode))
      throw new InvalidArgument(`${what}: dimRoundingMode is ${describeValue(mode)}; expected 'floor', 'round' or 'ceil'`);
    if (typeof pad !== 'number')
      throw new InvalidArgument(`${what}: pad must be an integer when dimRoundingMode is given, got ${describeValue(pad)}`);
    return ROUNDING[mode];
  };
  const stridesOrDilations = (what, strides, dilations) => {
    if (strides.some((s) => s > 1) && dilations.some((d) => d > 1))
      throw new InvalidArgument(`${what}: either strides or dilations must be 1, got strides [${strides}] and dilations [${dilations}]`);
  };

  /**
   * The windows along one spatial dim: {before, after, out}. `k` is the effective (dilated) window size; `after` may
   * be negative (the input's last cells lie past the last window).
   */
  const windows = (what, size, k, stride, pad, dim, round) => {
    let before = 0, out;
    if (pad === 'valid') out = Math.ceil((size - k + 1) / stride);
    else if (pad === 'same') {
      out = Math.ceil(size / stride);
      before = Math.floor(Math.max(0, (out - 1) * stride + k - size) / 2);
    } else if (typeof pad === 'number') {
      before = pad;
      out = round((size - k + 2 * pad) / stride + 1);
    } else {
      before = pad[dim][0];
      out = round((size - k + pad[dim][0] + pad[dim][1]) / stride + 1);
    }
    if (!(out > 0)) throw new ShapeError(`${what}: a window of ${k} does not fit a dimension of ${size} with pad ${describeValue(pad)}`);
    return { before, after: (out - 1) * stride + k - size - before, out };
  };
  /** x padded with `value` along axes[i] by geo[i] (cut where `after` is negative): each window then lies inside. */
  const padWindows = (x, axes, geo, value = 0) => {
    const paddings = x.shape.flatMap(() => [0, 0]);
    axes.forEach((a, i) => { paddings[2 * a] = geo[i].before; paddings[2 * a + 1] = Math.max(0, geo[i].after); });
    let y = paddings.some((p) => p) ? tl.op('pad', [x], { paddings, constant_value: value }) : x;
    if (geo.some((g) => g.after < 0)) {
      const size = y.shape.map((d, a) => (axes.includes(a) ? d + Math.min(0, geo[axes.indexOf(a)].after) : -1));
      y = tl.slice(y, y.shape.map(() => 0), size);
    }
    return y;
  };
  /** x of rank `rank` or one less (no batch): a batched x and a function that drops the batch again. */
  const batched = (what, root, x, rank) => {
    if (x.rank === rank) return [x, (y) => y];
    if (x.rank === rank - 1) return [tl.expandDims(x, 0), (y) => tl.squeeze(y, [0])];
    throw new ShapeError(`${what}: ${root} has rank ${x.rank} (shape [${x.shape}]); expected rank ${rank - 1} or ${rank}`);
  };
  const rankOf = (what, root, t, rank) => {
    if (t.rank !== rank) throw new ShapeError(`${what}: ${root} has shape [${t.shape}]; expected rank ${rank}`);
    return t.shape;
  };
  const addAll = (list) => list.reduce((a, b) => tl.add(a, b));
  const ints = (values) => tl.tensor(Int32Array.from(values), [values.length], 'int32');
  const range = (n, start, step) => ints(Array.from({ length: n }, (_, i) => start + i * step));
  /** The spatial dims of x (NHWC or NDHWC), which must be known with the channels (the batch may be unknown). */
  const spatial = (what, x) => {
    if (x.shape.slice(1).some((d) => d < 0))
      throw new ShapeError(`${what}: needs known ${x.rank === 5 ? 'depth, ' : ''}height, width and channels, got [${x.shape}]`);
    return x.shape.slice(1, -1);
  };
  /**
   * The window taps of NHWC x4 padded with `fill`: for tap (i, j) of a k[0] x k[1] window (dilated by d), the
   * [n, outHeight, outWidth, c] cells it covers, by two strided gathers; returns {taps (row-major), geo}.
   */
  const windowTaps = (what, x4, k, strides, d, pad, round, fill) => {
    const [h, w] = spatial(what, x4);
    const geo = [0, 1].map((i) => windows(what, [h, w][i], (k[i] - 1) * d[i] + 1, strides[i], pad, i, round));
    const padded = padWindows(x4, [1, 2], geo, fill);
    const taps = [];
    for (let i = 0; i < k[0]; ++i) {
      const rows = tl.gather(padded, range(geo[0].out, i * d[0], strides[0]), 1);
      for (let j = 0; j < k[1]; ++j) taps.push(tl.gather(rows, range(geo[1].out, j * d[1], strides[1]), 2));
    }
    return { taps, geo };
  };

  // ---- 2-D convolutions -------------------------------------------------------------------------------------------
  /** The filter [kh, kw, ...] with dilation - 1 zeros between its taps along axes 0 and 1. */
  const dilateFilter = (filter, dilations) => {
    let f = filter;
    dilations.forEach((d, a) => {
      if (d === 1) return;
      const shape = f.shape, k = shape[a];
      const spread = tl.reshape(f, [...shape.slice(0, a + 1), 1, ...shape.slice(a + 1)]);
      const padded = tl.op('pad', [spread], { paddings: spread.shape.flatMap((_, i) => (i === a + 1 ? [0, d - 1] : [0, 0])) });
      const merged = tl.reshape(padded, shape.map((n, i) => (i === a ? k * d : n)));
      f = tl.slice(merged, shape.map(() => 0), shape.map((n, i) => (i === a ? (k - 1) * d + 1 : n)));
    });
    return f;
  };
  /** conv2d of NHWC x4 and an HWIO filter with TF.js' strides, pad, dilations and rounding. */
  const conv2dOf = (what, x4, filter, strides, pad, dilations, round) => {
    rankOf(what, 'filter', filter, 4);
    if (x4.shape[3] >= 0 && x4.shape[3] !== filter.shape[2])
      throw new ShapeError(`${what}: x has ${x4.shape[3]} channels (shape [${x4.shape}]); the filter [${filter.shape}] expects ${filter.shape[2]}`);
    stridesOrDilations(what, strides, dilations);
    const f = dilateFilter(filter, dilations);
    if (pad === 'valid' || pad === 'same') return tl.op('conv2d', [x4, f], { strides, padding: pad.toUpperCase() });
    const [h, w] = spatial(what, x4);
    const geo = [0, 1].map((i) => windows(what, [h, w][i], f.shape[i], strides[i], pad, i, round));
    return tl.op('conv2d', [padWindows(x4, [1, 2], geo), f], { strides, padding: 'VALID' });
  };
  const conv2d = (what, value, filterValue, strides = 1, pad = 'valid', dataFormat, dilations = 1, dimRoundingMode) => {
    format(what, dataFormat, 'NHWC');
    const [x4, unbatch] = batched(what, 'x', floatOf(what, 'x', value), 4);
    const p = padOf(what, pad), round = roundingOf(what, dimRoundingMode, pad);
    return unbatch(conv2dOf(what, x4, floatOf(what, 'filter', filterValue), tuple(what, 'strides', strides, 2), p,
                            tuple(what, 'dilations', dilations ?? 1, 2), round));
  };

  const conv1d = (value, filterValue, stride = 1, pad = 'valid', dataFormat = 'NWC', dilation = 1, dimRoundingMode) => tidy(() => {
    const what = 'tl.conv1d';
    format(what, dataFormat, 'NWC');
    const [x3, unbatch] = batched(what, 'x', floatOf(what, 'x', value), 3);
    const filter = floatOf(what, 'filter', filterValue), fs = rankOf(what, 'filter', filter, 3);
    let p = padOf(what, pad, { explicit: false });
    const round = roundingOf(what, dimRoundingMode, pad);
    if (typeof p === 'number') p = [[0, 0], [p, p]];  // the width only (TF.js' conv1d pads a height of 1 too and fails)
    const s = toInteger(stride, { what, root: 'stride', min: 1 }), d = toInteger(dilation ?? 1, { what, root: 'dilation', min: 1 });
    const y = conv2dOf(what, tl.expandDims(x3, 1), tl.reshape(filter, [1, ...fs]), [1, s], p, [1, d], round);
    return unbatch(tl.squeeze(y, [1]));
  });

  /** The gradient of conv2d with respect to its input of shape `sizes` (NHWC), applied to dy. */
  const conv2dTransposeOf = (what, dy, filter, sizes, strides, pad, round) => {
    const [fh, fw, outDepth, inDepth] = rankOf(what, 'filter', filter, 4);
    if (dy.shape[3] !== inDepth)
      throw new ShapeError(`${what}: x has ${dy.shape[3]} channels (shape [${dy.shape}]); the filter [${filter.shape}] expects ${inDepth}`);
    if (sizes[3] !== outDepth)
      throw new ShapeError(`${what}: outputShape [${sizes}] has ${sizes[3]} channels; the filter [${filter.shape}] makes ${outDepth}`);
    if (sizes[0] !== dy.shape[0]) throw new ShapeError(`${what}: outputShape [${sizes}] has batch ${sizes[0]}; x has ${dy.shape[0]}`);
    const geo = [0, 1].map((i) => windows(what, sizes[i + 1], [fh, fw][i], strides[i], pad, i, round));
    if (geo.some((g, i) => g.out !== dy.shape[i + 1]))
      throw new ShapeError(`${what}: x [${dy.shape}] does not have the ${geo.map((g) => g.out)} windows that the filter ` +
                           `[${filter.shape}], strides [${strides}] and pad ${describeValue(pad)} make of outputShape [${sizes}]`);
    if (pad === 'valid' || pad === 'same')
      return tl.op('conv2d_backprop_input', [filter, dy], { input_sizes: sizes, strides, padding: pad.toUpperCase() });
    // The transpose of "pad, then a 'valid' conv2d": the 'valid' transpose onto the padded size, then the pad cut off.
    const full = [sizes[0], ...geo.map((g, i) => (g.out - 1) * strides[i] + [fh, fw][i]), sizes[3]];
    const y = tl.op('conv2d_backprop_input', [filter, dy], { input_sizes: full, strides, padding: 'VALID' });
    const cut = geo.map((g) => ({ before: 0, after: Math.max(0, -g.after) }));
    return tl.slice(padWindows(y, [1, 2], cut), [0, geo[0].before, geo[1].before, 0], sizes);
  };
  const conv2dTranspose = (value, filterValue, outputShape, strides, pad, dimRoundingMode) => tidy(() => {
    const what = 'tl.conv2dTranspose';
    const [dy, unbatch] = batched(what, 'x', floatOf(what, 'x', value), 4);
    known(what, dy);
    if (!Array.isArray(outputShape) || (outputShape.length !== 3 && outputShape.length !== 4))
      throw new InvalidArgument(`${what}: outputShape is ${describeValue(outputShape)}; ` +
                                'expected [batch, height, width, channels] or [height, width, channels]');
    const sizes = outputShape.map((d, i) => toInteger(d, { what, root: `outputShape[${i}]`, min: 1 }));
    const sizes4 = sizes.length === 3 ? [1, ...sizes] : sizes;
    return unbatch(conv2dTransposeOf(what, dy, floatOf(what, 'filter', filterValue), sizes4, tuple(what, 'strides', strides, 2),
                                     padOf(what, pad), roundingOf(what, dimRoundingMode, pad)));
  });

  /** Each tap's [n, oh, ow, c] cells times its filter row [c, m], added up: output channel k * m + j. */
  const depthwiseOf = (what, x4, filter, strides, pad, dilations, round) => {
    const [kh, kw, c, m] = rankOf(what, 'filter', filter, 4);
    if (x4.shape[3] !== c)
      throw new ShapeError(`${what}: x has ${x4.shape[3]} channels (shape [${x4.shape}]); the filter [${filter.shape}] expects ${c}`);
    stridesOrDilations(what, strides, dilations);
    const { taps, geo } = windowTaps(what, x4, [kh, kw], strides, dilations, pad, round, 0);
    const terms = taps.map((t, q) => tl.mul(tl.expandDims(t, 4),
                                            tl.reshape(tl.slice(filter, [Math.floor(q / kw), q % kw, 0, 0], [1, 1, c, m]), [c, m])));
    return tl.reshape(addAll(terms), [-1, geo[0].out, geo[1].out, c * m]);
  };
  const depthwiseConv2d = (value, filterValue, strides, pad, dataFormat, dilations = 1, dimRoundingMode) => tidy(() => {
    const what = 'tl.depthwiseConv2d';
    format(what, dataFormat, 'NHWC');
    const [x4, unbatch] = batched(what, 'x', floatOf(what, 'x', value), 4);
    return unbatch(depthwiseOf(what, x4, floatOf(what, 'filter', filterValue), tuple(what, 'strides', strides, 2),
                               padOf(what, pad), tuple(what, 'dilations', dilations ?? 1, 2), roundingOf(what, dimRoundingMode, pad)));
  });

  const separableConv2d = (value, depthwiseValue, pointwiseValue, strides, pad, dilation = 1, dataFormat) => tidy(() => {
    const what = 'tl.separableConv2d';
    format(what, dataFormat, 'NHWC');
    const [x4, unbatch] = batched(what, 'x', floatOf(what, 'x', value), 4);
    const depthwise = floatOf(what, 'depthwiseFilter', depthwiseValue), pointwise = floatOf(what, 'pointwiseFilter', pointwiseValue);
    const ds = rankOf(what, 'depthwiseFilter', depthwise, 4), ps = rankOf(what, 'pointwiseFilter', pointwise, 4);
    if (ps[0] !== 1 || ps[1] !== 1 || ps[2] !== ds[2] * ds[3])
      throw new ShapeError(`${what}: pointwiseFilter is [${ps}]; expected [1, 1, ${ds[2] * ds[3]}, outChannels] after depthwiseFilter [${ds}]`);
    const y = depthwiseOf(what, x4, depthwise, tuple(what, 'strides', strides, 2), padOf(what, pad, { numbers: false, explicit: false }),
                          tuple(what, 'dilation', dilation ?? 1, 2), Math.trunc);
    return unbatch(tl.op('conv2d', [y, pointwise], { strides: [1, 1], padding: 'VALID' }));
  });

  // ---- pooling ----------------------------------------------------------------------------------------------------
  /** Window sums / maxima of NHWC x4 over a 'valid' grid (x4 already padded so that every window lies inside). */
  const validPool = (type, x4, k, strides) => {
    const y = tl.op(type === 'max' ? 'max_pool2d' : 'avg_pool2d', [x4], { ksize: k, strides, padding: 'VALID' });
    return type === 'max' ? y : tl.mul(y, k[0] * k[1]);
  };
  /** TF.js' maxPool / avgPool with any pad: padding cells are never the max and never counted in the mean. */
  const pool2dOf = (what, type, x4, k, strides, pad, round) => {
    if (pad === 'valid' || pad === 'same')
      return tl.op(type === 'max' ? 'max_pool2d' : 'avg_pool2d', [x4], { ksize: k, strides, padding: pad.toUpperCase() });
    const [h, w] = spatial(what, x4);
    const geo = [0, 1].map((i) => windows(what, [h, w][i], k[i], strides[i], pad, i, round));
    if (type === 'max') return validPool('max', padWindows(x4, [1, 2], geo, -Infinity), k, strides);
    const counts = validPool('avg', padWindows(tl.ones([1, h, w, 1]), [1, 2], geo), k, strides);
    return tl.div(validPool('avg', padWindows(x4, [1, 2], geo), k, strides), counts);
  };
  // space_to_batch / batch_to_space of NHWC x4 with block b and paddings p (TF.js' pool with dilations uses them).
  const spaceToBatch = (x4, b, p) => {
    const padded = tl.op('pad', [x4], { paddings: [0, 0, ...p[0], ...p[1], 0, 0] });
    const [n, h, w, c] = padded.shape;
    const split = tl.reshape(padded, [n, h / b[0], b[0], w / b[1], b[1], c]);
    return tl.reshape(tl.transpose(split, [2, 4, 0, 1, 3, 5]), [b[0] * b[1] * n, h / b[0], w / b[1], c]);
  };
  const batchToSpace = (y, b, crops, n) => {
    const [, h, w, c] = y.shape;
    const split = tl.transpose(tl.reshape(y, [b[0], b[1], n, h, w, c]), [2, 3, 0, 4, 1, 5]);
    const full = tl.reshape(split, [n, h * b[0], w * b[1], c]);
    return tl.slice(full, [0, crops[0][0], crops[1][0], 0], [n, h * b[0] - crops[0][0] - crops[0][1], w * b[1] - crops[1][0] - crops[1][1], c]);
  };
  const pool = (value, windowShape, poolingType, pad, dilations, strides, dimRoundingMode) => tidy(() => {
    const what = 'tl.pool';
    const [x4, unbatch] = batched(what, 'input', floatOf(what, 'input', value), 4);
    if (poolingType !== 'max' && poolingType !== 'avg')
      throw new InvalidArgument(`${what}: poolingType is ${describeValue(poolingType)}; expected 'max' or 'avg'`);
    const k = tuple(what, 'windowShape', windowShape, 2), s = tuple(what, 'strides', strides ?? 1, 2);
    const d = tuple(what, 'dilations', dilations ?? 1, 2), p = padOf(what, pad === 0 ? 'valid' : pad);
    const round = roundingOf(what, dimRoundingMode, pad);
    stridesOrDilations(what, s, d);
    if (d[0] === 1 && d[1] === 1) return unbatch(pool2dOf(what, poolingType, x4, k, s, p, round));
    // As TF.js (and TF's nn.pool): pool the space-to-batch of x, whose 'same' padding cells are zeros, then undo it.
    const [n, h, w] = known(what, x4);
    const base = k.map((kk, i) => {
      const extra = p === 'same' ? (kk - 1) * d[i] : 0;
      return [Math.floor(extra / 2), extra - Math.floor(extra / 2)];
    });
    const extraEnd = [h, w].map((size, i) => (d[i] - ((size + base[i][0] + base[i][1]) % d[i])) % d[i]);
    const paddings = base.map((b, i) => [b[0], b[1] + extraEnd[i]]);
    const y = pool2dOf(what, poolingType, spaceToBatch(x4, d, paddings), k, s, 'valid', round);
    return unbatch(batchToSpace(y, d, extraEnd.map((e) => [0, e]), n));
  });

  const dilation2d = (value, filterValue, strides, pad, dilations = 1, dataFormat = 'NHWC') => tidy(() => {
    const what = 'tl.dilation2d';
    format(what, dataFormat, 'NHWC');
    const [x4, unbatch] = batched(what, 'x', floatOf(what, 'x', value), 4);
    const filter = floatOf(what, 'filter', filterValue), [fh, fw, c] = rankOf(what, 'filter', filter, 3);
    if (x4.shape[3] !== c)
      throw new ShapeError(`${what}: x has ${x4.shape[3]} channels (shape [${x4.shape}]); the filter [${filter.shape}] has ${c}`);
    const { taps } = windowTaps(what, x4, [fh, fw], tuple(what, 'strides', strides, 2), tuple(what, 'dilations', dilations ?? 1, 2),
                                padOf(what, pad, { numbers: false, explicit: false }), Math.trunc, -Infinity);
    const shifted = taps.map((t, q) => tl.add(t, tl.reshape(tl.slice(filter, [Math.floor(q / fw), q % fw, 0], [1, 1, c]), [c])));
    return unbatch(tl.max(tl.stack(shifted, 0), 0));
  });

  const maxPoolWithArgmax = (value, filterSize, strides, pad, includeBatchInIndex = false) => tidy(() => {
    const what = 'tl.maxPoolWithArgmax';
    const x = floatOf(what, 'x', value);
    rankOf(what, 'x', x, 4);
    const [n, h, w, c] = known(what, x);
    if (typeof includeBatchInIndex !== 'boolean')
      throw new InvalidArgument(`${what}: includeBatchInIndex is ${describeValue(includeBatchInIndex)}; expected a boolean`);
    const k = tuple(what, 'filterSize', filterSize, 2), s = tuple(what, 'strides', strides, 2);
    const { taps, geo } = windowTaps(what, x, k, s, [1, 1], padOf(what, pad, { explicit: false }), Math.trunc, -Infinity);
    const stacked = tl.stack(taps, 0);
    // The first tap (row-major) holding the max, as TF.js' kernel; its flat index ((b * h + row) * w + col) * c + channel.
    const tap = tl.argMax(stacked, 0);
    const row = tl.add(tl.gather(ints(taps.map((_, q) => Math.floor(q / k[1]))), tap),
                       tl.reshape(range(geo[0].out, -geo[0].before, s[0]), [geo[0].out, 1, 1]));
    const col = tl.add(tl.gather(ints(taps.map((_, q) => q % k[1])), tap), tl.reshape(range(geo[1].out, -geo[1].before, s[1]), [geo[1].out, 1]));
    const int = (v) => tl.scalar(v, 'int32');
    let index = tl.add(tl.mul(tl.add(tl.mul(row, int(h)), col), int(c)), range(c, 0, 1));
    if (includeBatchInIndex) index = tl.add(index, tl.reshape(range(n, 0, h * w * c), [n, 1, 1, 1]));
    return { result: tl.max(stacked, 0), indexes: index };
  });

  // ---- 3-D (NDHWC): one 2-D op per depth tap, the output depth folded into the batch -----------------------------
  const volume = (what, value, root = 'x') => batched(what, root, floatOf(what, root, value), 5);
  /** x5's depth padded by geo, then for depth tap t the [n * outDepth, h, w, c] slices it covers. */
  const depthTaps = (x5, geo, k, stride, dilation, value) => {
    const padded = padWindows(x5, [1], [geo], value), [, , h, w, c] = x5.shape;
    return Array.from({ length: k }, (_, t) =>
      tl.reshape(tl.gather(padded, range(geo.out, t * dilation, stride), 1), [-1, h, w, c]));
  };
  const unfold = (y, od) => tl.reshape(y, [-1, od, ...y.shape.slice(1)]);

  const conv3d = (value, filterValue, strides, pad, dataFormat = 'NDHWC', dilations = 1) => tidy(() => {
    const what = 'tl.conv3d';
    format(what, dataFormat, 'NDHWC');
    const [x5, unbatch] = volume(what, value), filter = floatOf(what, 'filter', filterValue);
    const fs = rankOf(what, 'filter', filter, 5), [depth] = spatial(what, x5);
    if (x5.shape[4] !== fs[3])
      throw new ShapeError(`${what}: x has ${x5.shape[4]} channels (shape [${x5.shape}]); the filter [${fs}] expects ${fs[3]}`);
    const s = tuple(what, 'strides', strides, 3), d = tuple(what, 'dilations', dilations ?? 1, 3);
    const p = padOf(what, pad, { numbers: false, explicit: false });
    stridesOrDilations(what, s, d);
    const geo = windows(what, depth, (fs[0] - 1) * d[0] + 1, s[0], p, 0, Math.trunc);
    const ys = depthTaps(x5, geo, fs[0], s[0], d[0], 0).map((t, i) =>
      conv2dOf(what, t, tl.reshape(tl.slice(filter, [i, 0, 0, 0, 0], [1, ...fs.slice(1)]), fs.slice(1)), s.slice(1), p, d.slice(1), Math.trunc));
    return unbatch(unfold(addAll(ys), geo.out));
  });

  const conv3dTranspose = (value, filterValue, outputShape, strides, pad) => tidy(() => {
    const what = 'tl.conv3dTranspose';
    const [dy, unbatch] = volume(what, value), filter = floatOf(what, 'filter', filterValue);
    const fs = rankOf(what, 'filter', filter, 5), [n, od, oh, ow, inDepth] = known(what, dy);
    if (!Array.isArray(outputShape) || (outputShape.length !== 4 && outputShape.length !== 5))
      throw new InvalidArgument(`${what}: outputShape is ${describeValue(outputShape)}; ` +
                                'expected [batch, depth, height, width, channels] or [depth, height, width, channels]');
    const sizes = outputShape.map((v, i) => toInteger(v, { what, root: `outputShape[${i}]`, min: 1 }));
    const [, depth, height, width, outDepth] = sizes.length === 4 ? [n, ...sizes] : sizes;
    if (inDepth !== fs[4]) throw new ShapeError(`${what}: x has ${inDepth} channels (shape [${dy.shape}]); the filter [${fs}] expects ${fs[4]}`);
    const s = tuple(what, 'strides', strides, 3), p = padOf(what, pad, { numbers: false, explicit: false });
    const geo = windows(what, depth, fs[0], s[0], p, 0, Math.trunc);
    if (geo.out !== od)
      throw new ShapeError(`${what}: x [${dy.shape}] has depth ${od}; the filter, strides and pad make ${geo.out} of outputShape [${outputShape}]`);
    const full = (od - 1) * s[0] + fs[0], flat = tl.reshape(dy, [n * od, oh, ow, inDepth]);
    // Depth tap t's transpose lands on padded depths t, t + stride, ...: spread by the stride, shift by t, add.
    const parts = Array.from({ length: fs[0] }, (_, t) => {
      const f = tl.reshape(tl.slice(filter, [t, 0, 0, 0, 0], [1, ...fs.slice(1)]), fs.slice(1));
      const z = tl.reshape(conv2dTransposeOf(what, flat, f, [n * od, height, width, outDepth], s.slice(1), p, Math.trunc),
                           [n, od, 1, height, width, outDepth]);
      const gaps = tl.op('pad', [z], { paddings: [0, 0, 0, 0, 0, s[0] - 1, 0, 0, 0, 0, 0, 0] });
      const spread = tl.reshape(gaps, [n, od * s[0], height, width, outDepth]);
      const used = tl.slice(spread, [0, 0, 0, 0, 0], [n, (od - 1) * s[0] + 1, height, width, outDepth]);
      return tl.op('pad', [used], { paddings: [0, 0, t, full - t - used.shape[1], 0, 0, 0, 0, 0, 0] });
    });
    const cut = padWindows(addAll(parts), [1], [{ before: 0, after: Math.max(0, -geo.after) }]);
    return unbatch(tl.slice(cut, [0, geo.before, 0, 0, 0], [n, depth, height, width, outDepth]));
  });

  /** TF.js' maxPool3d / avgPool3d: windows over depth, height and width, padding never the max nor counted. */
  const pool3d = (type) => (value, filterSize, strides, pad, dimRoundingMode, dataFormat = 'NDHWC') => tidy(() => {
    const what = type === 'max' ? 'tl.maxPool3d' : 'tl.avgPool3d';
    format(what, dataFormat, 'NDHWC');
    const [x5, unbatch] = volume(what, value);
    const [depth, h, w] = spatial(what, x5);
    const k = tuple(what, 'filterSize', filterSize, 3), s = tuple(what, 'strides', strides, 3);
    const p = padOf(what, pad, { explicit: false }), round = roundingOf(what, dimRoundingMode, pad);
    const geo = [depth, h, w].map((size, i) => windows(what, size, k[i], s[i], p, i, round));
    const fill = type === 'max' ? -Infinity : 0;
    const sums = (x) => depthTaps(padWindows(x, [2, 3], geo.slice(1), fill), geo[0], k[0], s[0], 1, fill)
      .map((t) => validPool(type, t, k.slice(1), s.slice(1)));
    if (type === 'max') return unbatch(unfold(tl.max(tl.stack(sums(x5), 0), 0), geo[0].out));
    const counts = unfold(addAll(sums(tl.ones([1, depth, h, w, 1]))), geo[0].out);
    return unbatch(tl.div(unfold(addAll(sums(x5)), geo[0].out), counts));
  });

  // ---- normalization and fused ops --------------------------------------------------------------------------------
  const localResponseNormalization = (value, depthRadius = 5, bias = 1, alpha = 1, beta = 0.5) => tidy(() => {
    const what = 'tl.localResponseNormalization';
    const x = floatOf(what, 'x', value);
    if (x.rank !== 3 && x.rank !== 4) throw new ShapeError(`${what}: x has rank ${x.rank} (shape [${x.shape}]); expected rank 3 or 4`);
    const shape = known(what, x), r = toInteger(depthRadius, { what, root: 'depthRadius', min: 0 });
    for (const [root, v] of [['bias', bias], ['alpha', alpha], ['beta', beta]]) kit.numberOf(what, root, v);
    const c = shape[shape.length - 1];
    // The sum of squares over channels [k - r, k + r]: a (2r + 1)-tall window sum over the channels as rows.
    const squares = tl.reshape(tl.square(x), [-1, c, 1, 1]);
    const padded = tl.op('pad', [squares], { paddings: [0, 0, r, r, 0, 0, 0, 0] });
    const sums = tl.reshape(validPool('avg', padded, [2 * r + 1, 1], [1, 1]), shape);
    return tl.mul(x, tl.pow(tl.add(tl.mul(sums, alpha), bias), -beta));
  });

  const ACTIVATIONS = ['linear', 'relu', 'relu6', 'elu', 'leakyrelu', 'prelu', 'sigmoid'];
  /** TF.js' applyActivation of fused ops. */
  const activate = (what, y, activation, preluWeights, leakyreluAlpha) => {
    const negative = (slope) => tl.where(tl.greater(y, 0), y, tl.mul(y, slope));
    switch (activation) {
      case 'linear': return y;
      case 'relu': return tl.relu(y);
      case 'relu6': return tl.minimum(tl.relu(y), 6);
      case 'elu': return tl.where(tl.greater(y, 0), y, tl.sub(tl.exp(tl.minimum(y, 0)), 1));
      case 'sigmoid': return tl.sigmoid(y);
      case 'leakyrelu': return negative(kit.numberOf(what, 'leakyreluAlpha', leakyreluAlpha ?? 0.2));
      case 'prelu':
        if (preluWeights === undefined || preluWeights === null)
          throw new InvalidArgument(`${what}: activation 'prelu' needs preluActivationWeights`);
        return negative(floatOf(what, 'preluActivationWeights', preluWeights));
      default:
        throw new InvalidArgument(`${what}: activation is ${describeValue(activation)}; expected ${ACTIVATIONS.map((a) => `'${a}'`).join(', ')}`);
    }
  };
  const finish = (what, y, { bias, activation = 'linear', preluActivationWeights, leakyreluAlpha }) => {
    const withBias = bias === undefined || bias === null ? y : tl.add(y, floatOf(what, 'bias', bias));
    return activate(what, withBias, activation ?? 'linear', preluActivationWeights, leakyreluAlpha);
  };
  const options = (what, args) => {
    if (args === null || typeof args !== 'object' || Array.isArray(args) || args instanceof Tensor)
      throw new InvalidArgument(`${what}: expected one object of named arguments, got ${describeValue(args)}`);
    return args;
  };
  const fusedMatMul = (args) => tidy(() => {
    const what = 'tl.fused.matMul', o = options(what, args);
    const y = tl.matMul(floatOf(what, 'a', o.a), floatOf(what, 'b', o.b), o.transposeA ?? false, o.transposeB ?? false);
    return finish(what, y, o);
  });
  const fusedConv2d = (args) => tidy(() => {
    const what = 'tl.fused.conv2d', o = options(what, args);
    return finish(what, conv2d(what, o.x, o.filter, o.strides, o.pad, o.dataFormat, o.dilations ?? 1, o.dimRoundingMode), o);
  });
  const fusedDepthwiseConv2d = (args) => tidy(() => {
    const what = 'tl.fused.depthwiseConv2d', o = options(what, args);
    const x = depthwiseConv2d(o.x, o.filter, o.strides, o.pad, o.dataFormat, o.dilations ?? 1, o.dimRoundingMode);
    return finish(what, x, o);
  });

  return {
    conv1d: { fn: conv1d, method: true },
    conv2dTranspose: { fn: conv2dTranspose, method: true },
    depthwiseConv2d: { fn: depthwiseConv2d, method: true },
    separableConv2d: { fn: separableConv2d, method: true },
    pool: { fn: pool, method: true },
    dilation2d: { fn: dilation2d, method: true },
    maxPoolWithArgmax: { fn: maxPoolWithArgmax, method: false },
    conv3d: { fn: conv3d, method: false },
    conv3dTranspose: { fn: conv3dTranspose, method: false },
    maxPool3d: { fn: pool3d('max'), method: false },
    avgPool3d: { fn: pool3d('avg'), method: false },
    localResponseNormalization: { fn: localResponseNormalization, method: true },
    'fused.matMul': { fn: fusedMatMul, method: false },
    'fused.conv2d': { fn: fusedConv2d, method: false },
    'fused.depthwiseConv2d': { fn: fusedDepthwiseConv2d, method: false },
  };
}
