// TF.js functions: the image group (see GROUPS in wasm/js/tfjs_ops.mjs) — tl.image.*, tl.linalg.* and tl.diag.
//
// Every image op reads pixels with gather: the image flattened to [batch * height * width, channels] and an int32
// index (b * height + y) * width + x per output pixel, computed with tensor ops from the sampling positions (float32;
// TF.js' kernels use float64). So the ops run eagerly, trace into graph nodes (even where the positions depend on
// tensor values: the boxes of cropAndResize, the transforms of transform) and differentiate through gather
// (unsorted_segment_sum) and the interpolation weights. Positions outside the image are clamped before the gather
// and masked after it. Positions that depend on the shapes and numbers only (resizes, rotations) are computed in JS,
// per row and column or per pixel, as TF.js' kernels compute them.
// Non-max suppression selects boxes by their values (its output length depends on them): it reads them, runs
// eagerly only and names itself inside tl.function.
//
//   tl.image.resizeBilinear(images, [8, 8], false, true);
//   tl.image.nonMaxSuppression(boxes, scores, 10, 0.5);    // int32 indices
//   const [q, r] = tl.linalg.qr(a);
import { InvalidArgument, ShapeError, DTypeError } from '../errors.mjs';
import { describeValue, toInteger } from '../values.mjs';
import { makeSuppression } from './nms.mjs';

const GRAY_WEIGHTS = [0.2989, 0.5870, 0.1140];  // CCIR 601 luma, as TF.js
const FULL_OPACITY = 255;                        // rotateWithOffset's fill of channel 3 given three fill values

/** {name: {fn, method}} for tl and the Tensor methods; `kit` is tfjs_ops.mjs' helpers. */
export function makeImageOps(tl, kit) {
  const { tensorOf, floatOf, known, numberOf, tidy, reverseAxis } = kit;
  const int = (v) => tl.scalar(v, 'int32');
  const float = (x) => (x.dtype === 'float32' ? x : tl.cast(x, 'float32'));
  const rankOf = (what, root, x, ranks) => {
    if (!ranks.includes(x.rank)) throw new ShapeError(`${what}: ${root} has rank ${x.rank} (shape [${x.shape}]); expected rank ${ranks.join(' or ')}`);
    return known(what, x);
  };
  const booleanOf = (what, root, v) => {
    if (typeof v !== 'boolean') throw new InvalidArgument(`${what}: ${root} is ${describeValue(v)}; expected a boolean`);
    return v;
  };
  const oneOf = (what, root, v, choices) => {
    if (!choices.includes(v)) throw new InvalidArgument(`${what}: ${root} is ${describeValue(v)}; expected ${choices.map((c) => `'${c}'`).join(', ')}`);
    return v;
  };
  const sizeOf = (what, root, size, min) => {
    if (!Array.isArray(size) || size.length !== 2) throw new InvalidArgument(`${what}: ${root} is ${describeValue(size)}; expected [height, width]`);
    return size.map((n, i) => toInteger(n, { what, root: `${root}[${i}]`, min }));
  };
  /** JS numbers as a float32 (or int32) tensor of `shape`. */
  const values = (list, shape, dtype = 'float32') => tl.tensor(dtype === 'int32' ? Int32Array.from(list) : Float32Array.from(list), shape, dtype);
  const iota = (n, shape, dtype) => values(Array.from({ length: n }, (_, k) => k), shape, dtype);
  const floor = (x) => tl.floor(x), ceil = (x) => tl.ceil(x);
  const roundHalfUp = (x) => floor(tl.add(x, 0.5));  // Math.round
  const trunc = (x) => tl.where(tl.less(x, 0), ceil(x), floor(x));
  const within = (v, lo, hi) => tl.logicalAnd(tl.greaterEqual(v, lo), tl.lessEqual(v, hi));
  /** An integral float position as an int32 index clamped to [0, n - 1]. */
  const indexOf = (v, n) => tl.cast(tl.clipByValue(v, 0, Math.max(n - 1, 0)), 'int32');

  /** Reads pixels of x [B, H, W, C]: b, y, x int32 broadcasting to the output's leading dims -> [..., C]. */
  const reader = (x) => {
    const [B, H, W, C] = x.shape, flat = tl.reshape(x, [B * H * W, C]);
    return (b, yi, xi) => tl.gather(flat, tl.add(tl.mul(tl.add(tl.mul(b, int(H)), yi), int(W)), xi), 0);
  };
  const lastAxis = (t) => tl.expandDims(t, -1);

  // -- Flips and colours -------------------------------------------------------------------------------------------

  const flipLeftRight = (image) => tidy(() => {
    const what = 'tl.image.flipLeftRight', x = floatOf(what, 'image', image);
    rankOf(what, 'image', x, [4]);
    return reverseAxis(x, 2);
  });

  const grayscaleToRGB = (image) => tidy(() => {
    const what = 'tl.image.grayscaleToRGB', x = tensorOf(what, 'image', image);
    const shape = rankOf(what, 'image', x, [2, 3, 4, 5, 6]);
    if (shape[x.rank - 1] !== 1) throw new ShapeError(`${what}: the last dimension of image [${shape}] is ${shape[x.rank - 1]}; expected 1 (grayscale)`);
    return tl.tile(x, shape.map((_, i) => (i === x.rank - 1 ? 3 : 1)));
  });

  const rgbToGrayscale = (image) => tidy(() => {
    const what = 'tl.image.rgbToGrayscale', x = tensorOf(what, 'image', image);
    const shape = rankOf(what, 'image', x, [2, 3, 4, 5, 6]);
    if (shape[x.rank - 1] !== 3) throw new ShapeError(`${what}: the last dimension of image [${shape}] is ${shape[x.rank - 1]}; expected 3 (RGB)`);
    const gray = tl.sum(tl.mul(float(x), values(GRAY_WEIGHTS, [3])), -1, true);
    return x.dtype === 'float32' ? gray : tl.cast(gray, x.dtype);
  });

  // -- Resizing ----------------------------------------------------------------------------------------------------

  // The source positions of one axis resized from n to size, as TF.js' kernels compute them.
  const sourceRatio = (n, size, alignCorners) =>
    (alignCorners && size > 1 ? n - 1 : n) / (alignCorners && size > 1 ? size - 1 : size);
  const bilinearAxis = (n, size, alignCorners, halfPixelCenters) => {
    const ratio = sourceRatio(n, size, alignCorners), lo = [], hi = [], frac = [];
    for (let r = 0; r < size; ++r) {
      const s = halfPixelCenters ? ratio * (r + 0.5) - 0.5 : ratio * r;
      lo.push(Math.max(0, Math.floor(s)));
      hi.push(Math.min(n - 1, Math.ceil(s)));
      frac.push(s - lo[r]);
    }
    return { lo, hi, frac };
  };
  const nearestAxis = (n, size, alignCorners, halfPixelCenters) => {
    const ratio = sourceRatio(n, size, alignCorners);
    return Array.from({ length: size }, (_, r) => {
      const s = halfPixelCenters ? ratio * (r + 0.5) : ratio * r;
      const k = Math.min(n - 1, alignCorners ? Math.round(s) : Math.floor(s));
      return halfPixelCenters ? Math.max(0, k) : k;
    });
  };
  // (images, size, alignCorners, halfPixelCenters) checked; fn(x4d, size, flags) on a rank-4 batch.
  const resizing = (name, resize) => (images, size, alignCorners = false, halfPixelCenters = false) => tidy(() => {
    const what = `tl.image.${name}`, x = tensorOf(what, 'images', images);
    rankOf(what, 'images', x, [3, 4]);
    if (x.dtype === 'bool') throw new DTypeError(`${what}: images is bool; expected float32 or int32`);
    const [h, w] = sizeOf(what, 'size', size, 0);
    booleanOf(what, 'alignCorners', alignCorners);
    booleanOf(what, 'halfPixelCenters', halfPixelCenters);
    if (alignCorners && halfPixelCenters) throw new InvalidArgument(`${what}: alignCorners and halfPixelCenters are both true; at most one may be`);
    const batch = x.rank === 3 ? tl.expandDims(x, 0) : x;
    const y = resize(batch, [h, w], alignCorners, halfPixelCenters);
    return x.rank === 3 ? tl.squeeze(y, [0]) : y;
  });
  // top = tl + (tr - tl) * colFrac, bottom likewise, top + (bottom - top) * rowFrac: TF.js' order of operations.
  const resizeBilinear = resizing('resizeBilinear', (x, [h, w], alignCorners, halfPixelCenters) => {
    const [, H, W] = x.shape, xf = float(x);
    const rows = bilinearAxis(H, h, alignCorners, halfPixelCenters), cols = bilinearAxis(W, w, alignCorners, halfPixelCenters);
    const colFrac = values(cols.frac, [1, 1, w, 1]), rowFrac = values(rows.frac, [1, h, 1, 1]);
    const lerpCols = (r) => {
      const left = tl.gather(r, values(cols.lo, [w], 'int32'), 2), right = tl.gather(r, values(cols.hi, [w], 'int32'), 2);
      return tl.add(left, tl.mul(tl.sub(right, left), colFrac));
    };
    const top = lerpCols(tl.gather(xf, values(rows.lo, [h], 'int32'), 1));
    const bottom = lerpCols(tl.gather(xf, values(rows.hi, [h], 'int32'), 1));
    return tl.add(top, tl.mul(tl.sub(bottom, top), rowFrac));
  });
  const resizeNearestNeighbor = resizing('resizeNearestNeighbor', (x, [h, w], alignCorners, halfPixelCenters) => {
    const [, H, W] = x.shape;
    const rows = values(nearestAxis(H, h, alignCorners, halfPixelCenters), [h], 'int32');
    const cols = values(nearestAxis(W, w, alignCorners, halfPixelCenters), [w], 'int32');
    return tl.gather(tl.gather(x, rows, 1), cols, 2);
  });

  // -- Crops, rotations, projective transforms ---------------------------------------------------------------------

  const cropAndResize = (image, boxes, boxInd, cropSize, method = 'bilinear', extrapolationValue = 0) => tidy(() => {
    const what = 'tl.image.cropAndResize', x = tensorOf(what, 'image', image, 'float32');
    const [B, H, W] = rankOf(what, 'image', x, [4]);
    const bx = floatOf(what, 'boxes', boxes), bi = tensorOf(what, 'boxInd', boxInd, 'int32');
    const [N] = known(what, bx);
    if (bx.rank !== 2 || bx.shape[1] !== 4) throw new ShapeError(`${what}: boxes has shape [${bx.shape}]; expected [numBoxes, 4]`);
    if (bi.dtype !== 'int32') throw new DTypeError(`${what}: boxInd is ${bi.dtype}; expected int32`);
    if (bi.rank !== 1 || bi.shape[0] !== N) throw new ShapeError(`${what}: boxInd has shape [${bi.shape}]; expected [${N}] (one per box)`);
    const [ch, cw] = sizeOf(what, 'cropSize', cropSize, 1);
    oneOf(what, 'method', method, ['bilinear', 'nearest']);
    const fill = numberOf(what, 'extrapolationValue', extrapolationValue);
    const corner = (k) => tl.reshape(tl.slice(bx, [0, k], [N, 1]), [N, 1, 1]);
    // y1 * (n - 1) + i * ((y2 - y1) * (n - 1) / (crop - 1)), or the box's middle for a crop of 1.
    const positions = (lo, hi, n, crop, shape) => (crop > 1
      ? tl.add(tl.mul(lo, n - 1), tl.mul(iota(crop, shape), tl.div(tl.mul(tl.sub(hi, lo), n - 1), crop - 1)))
      : tl.mul(tl.mul(tl.add(lo, hi), 0.5), n - 1));
    const ys = positions(corner(0), corner(2), H, ch, [1, ch, 1]), xs = positions(corner(1), corner(3), W, cw, [1, 1, cw]);
    const read = reader(float(x));
    const inBatch = tl.logicalAnd(tl.greaterEqual(bi, int(0)), tl.less(bi, int(B)));
    const b = tl.reshape(tl.where(inBatch, bi, int(0)), [N, 1, 1]);
    let y;
    if (method === 'nearest') {
      y = read(b, indexOf(roundHalfUp(ys), H), indexOf(roundHalfUp(xs), W));
    } else {
      const top = floor(ys), left = floor(xs);
      const yLerp = lastAxis(tl.sub(ys, top)), xLerp = lastAxis(tl.sub(xs, left));
      const t = indexOf(top, H), bo = indexOf(ceil(ys), H);
      const l = indexOf(left, W), r = indexOf(ceil(xs), W);
      const lerp = (yi) => { const a = read(b, yi, l); return tl.add(a, tl.mul(tl.sub(read(b, yi, r), a), xLerp)); };
      const upper = lerp(t);
      y = tl.add(upper, tl.mul(tl.sub(lerp(bo), upper), yLerp));
    }
    const inside = lastAxis(tl.logicalAnd(within(ys, 0, H - 1), within(xs, 0, W - 1)));
    y = tl.where(inside, y, tl.scalar(fill, 'float32'));
    // A box of an image outside the batch stays zero, as TF.js' kernel leaves it.
    return tl.where(tl.reshape(inBatch, [N, 1, 1, 1]), y, tl.scalar(0, 'float32'));
  });

  const rotateWithOffset = (image, radians, fillValue = 0, center = 0.5) => tidy(() => {
    const what = 'tl.image.rotateWithOffset', x = floatOf(what, 'image', image);
    const [B, H, W, C] = rankOf(what, 'image', x, [4]);
    numberOf(what, 'radians', radians);
    const pair = (root, v, n) => {
      if (typeof v === 'number') return new Array(n).fill(v);
      if (Array.isArray(v) && v.length === n && v.every((e) => typeof e === 'number')) return v;
      throw new InvalidArgument(`${what}: ${root} is ${describeValue(v)}; expected a number or ${n} numbers`);
    };
    const fills = typeof fillValue === 'number' ? new Array(C).fill(fillValue)
      : pair('fillValue', fillValue, 3).concat(C > 3 ? [FULL_OPACITY] : []).slice(0, C);
    if (fills.length !== C) throw new ShapeError(`${what}: fillValue has 3 values for an image of ${C} channels; expected a number`);
    const [cx, cy] = pair('center', center, 2).map((c, i) => c * (i === 0 ? W : H));
    // The source pixel of each output pixel, in float64 as TF.js' kernel computes it (a rotation by a right angle
    // lands on half pixels, where float32 would round the other way): an index map of one image's pixels.
    const sin = Math.sin(radians), cos = Math.cos(radians), source = new Int32Array(H * W), inside = new Int32Array(H * W);
    for (let row = 0; row < H; ++row) {
      for (let col = 0; col < W; ++col) {
        const sx = Math.round((col - cx) * cos - (row - cy) * sin + cx), sy = Math.round((col - cx) * sin + (row - cy) * cos + cy);
        const k = row * W + col;
        inside[k] = sx >= 0 && sx < W && sy >= 0 && sy < H ? 1 : 0;
        source[k] = inside[k] ? sy * W + sx : 0;
      }
    }
    const pixels = tl.reshape(x, [B, H * W, C]);
    const y = tl.reshape(tl.gather(pixels, tl.tensor(source, [H * W], 'int32'), 1), [B, H, W, C]);
    const mask = tl.cast(tl.tensor(inside, [1, H, W, 1], 'int32'), 'bool');
    return tl.where(mask, y, values(fills, [C], x.dtype));
  });

  // transform's fill modes: where a coordinate outside [0, n - 1] maps to (TF.js' mapCoord).
  const mapCoord = (c, n, mode) => {
    if (mode === 'constant') return c;
    if (n <= 1 || mode === 'nearest') return tl.clipByValue(c, 0, Math.max(n - 1, 0));
    let mapped;
    if (mode === 'reflect') {
      const sz2 = 2 * n;
      const low = tl.add(tl.mul(trunc(tl.div(tl.neg(c), sz2)), sz2), c);
      const below = tl.where(tl.less(low, -n), tl.add(low, sz2), tl.sub(tl.neg(low), 1));
      const high = tl.sub(c, tl.mul(trunc(tl.div(c, sz2)), sz2));
      const above = tl.where(tl.greaterEqual(high, n), tl.sub(sz2 - 1, high), high);
      mapped = tl.where(tl.less(c, 0), below, tl.where(tl.greater(c, n - 1), above, c));
    } else {  // wrap
      const sz = n - 1;
      const below = tl.add(c, tl.mul(tl.add(trunc(tl.div(tl.neg(c), sz)), 1), n));
      const above = tl.sub(c, tl.mul(trunc(tl.div(c, sz)), n));
      mapped = tl.where(tl.less(c, 0), below, tl.where(tl.greater(c, n - 1), above, c));
    }
    return tl.clipByValue(mapped, 0, n - 1);
  };
  const transform = (image, transforms, interpolation = 'nearest', fillMode = 'constant', fillValue = 0, outputShape) => tidy(() => {
    const what = 'tl.image.transform', x = floatOf(what, 'image', image);
    const [B, H, W] = rankOf(what, 'image', x, [4]);
    const t = floatOf(what, 'transforms', transforms);
    if (t.rank !== 2 || t.shape[1] !== 8 || (t.shape[0] !== B && t.shape[0] !== 1))
      throw new ShapeError(`${what}: transforms has shape [${t.shape}]; expected [${B}, 8] or [1, 8]`);
    oneOf(what, 'interpolation', interpolation, ['nearest', 'bilinear']);
    oneOf(what, 'fillMode', fillMode, ['constant', 'reflect', 'wrap', 'nearest']);
    const fill = tl.scalar(numberOf(what, 'fillValue', fillValue), x.dtype);
    const [h, w] = outputShape === undefined || outputShape === null ? [H, W] : sizeOf(what, 'outputShape', outputShape, 0);
    const T = t.shape[0], a = (k) => tl.reshape(tl.slice(t, [0, k], [T, 1]), [T, 1, 1]);
    const ox = iota(w, [1, 1, w]), oy = iota(h, [1, h, 1]);
    const affine = (k) => tl.add(tl.add(tl.mul(a(k), ox), tl.mul(a(k + 1), oy)), a(k + 2));
    const projection = tl.add(tl.add(tl.mul(a(6), ox), tl.mul(a(7), oy)), 1);
    const defined = tl.notEqual(projection, 0), p = tl.where(defined, projection, tl.onesLike(projection));
    const sx = mapCoord(tl.div(affine(0), p), W, fillMode), sy = mapCoord(tl.div(affine(3), p), H, fillMode);
    const read = reader(x), b = tl.reshape(iota(B, [B], 'int32'), [B, 1, 1]);
    // A pixel at an integral (yi, xi): the image's, or fillValue outside it.
    const at = (yi, xi) => tl.where(lastAxis(tl.logicalAnd(within(yi, 0, H - 1), within(xi, 0, W - 1))),
                                    read(b, indexOf(yi, H), indexOf(xi, W)), fill);
    let y;
    if (interpolation === 'nearest') {
      y = at(roundHalfUp(sy), roundHalfUp(sx));
    } else {
      const y0 = floor(sy), x0 = floor(sx), y1 = tl.add(y0, 1), x1 = tl.add(x0, 1);
      const wx0 = lastAxis(tl.sub(x1, sx)), wx1 = lastAxis(tl.sub(sx, x0));
      const wy0 = lastAxis(tl.sub(y1, sy)), wy1 = lastAxis(tl.sub(sy, y0));
      const across = (yi) => tl.add(tl.mul(wx0, at(yi, x0)), tl.mul(wx1, at(yi, x1)));
      y = tl.add(tl.mul(wy0, across(y0)), tl.mul(wy1, across(y1)));
    }
    return tl.where(lastAxis(defined), y, fill);
  });

  // -- Thresholds --------------------------------------------------------------------------------------------------

  // Otsu's threshold of a 256-bin histogram: the first bin k maximizing wF·wB·(mF - mS)² over the split [0, k] |
  // (k, 255], -1 when none is positive (TF.js' otsu, its loop over k as cumulative sums).
  const otsu = (histogram, total) => {
    const bins = histogram.shape[0], k = iota(bins, [bins]);
    const upper = tl.cast(tl.lessEqual(tl.reshape(k, [bins, 1]), tl.reshape(k, [1, bins])), 'float32');
    const cumulative = (v) => tl.reshape(tl.matMul(tl.reshape(v, [1, bins]), upper), [bins]);
    const count = cumulative(histogram), weighted = cumulative(tl.mul(histogram, k));
    const head = (v) => tl.slice(v, [0], [bins - 1]);
    const first = head(count), firstSum = head(weighted);
    const all = tl.slice(count, [bins - 1], [1]), allSum = tl.slice(weighted, [bins - 1], [1]);
    const second = tl.sub(all, first);
    const meanFirst = tl.div(firstSum, first), meanSecond = tl.div(tl.sub(allSum, firstSum), second);
    const spread = tl.square(tl.sub(meanFirst, meanSecond));
    const between = tl.mul(tl.mul(tl.div(first, total), tl.div(second, total)), spread);
    const positive = tl.where(tl.greater(between, 0), between, tl.scalar(-1, 'float32'));  // NaN (an empty class): -1
    const best = tl.max(positive), at = head(k);
    const firstBest = tl.min(tl.where(tl.equal(positive, best), at, tl.scalar(bins, 'float32')));
    return tl.reshape(tl.where(tl.greater(best, 0), firstBest, tl.scalar(-1, 'float32')), [1]);
  };
  const threshold = (image, method = 'binary', inverted = false, threshValue = 0.5) => tidy(() => {
    const what = 'tl.image.threshold', x = tensorOf(what, 'image', image);
    const [H, W, C] = rankOf(what, 'image', x, [3]);
    if (C !== 3 && C !== 1) throw new ShapeError(`${what}: image has ${C} channels; expected 3 (RGB) or 1 (grayscale)`);
    if (x.dtype !== 'float32' && x.dtype !== 'int32') throw new DTypeError(`${what}: image is ${x.dtype}; expected float32 or int32`);
    oneOf(what, 'method', method, ['binary', 'otsu']);
    booleanOf(what, 'inverted', inverted);
    numberOf(what, 'threshValue', threshValue);
    let gray = float(x);
    if (C === 3) {
      const channel = (c) => tl.mul(tl.slice(gray, [0, 0, c], [H, W, 1]), GRAY_WEIGHTS[c]);
      gray = tl.add(tl.add(channel(0), channel(1)), channel(2));
    }
    let level = tl.mul(values([threshValue], [1]), 255);
    if (method === 'otsu') {
      // The histogram of the rounded values in [0, 255]; others go to a 257th bin, dropped.
      const bin = tl.cast(tl.round(tl.reshape(gray, [-1])), 'int32');
      const ids = tl.where(tl.logicalAnd(tl.greaterEqual(bin, int(0)), tl.lessEqual(bin, int(255))), bin, int(256));
      const counts = tl.op('unsorted_segment_sum', [tl.onesLike(float(ids)), ids], { num_segments: 257 });
      level = otsu(tl.slice(counts, [0], [256]), H * W);
    }
    const chosen = inverted ? tl.lessEqual(gray, level) : tl.greater(gray, level);
    return tl.cast(tl.mul(tl.cast(chosen, 'int32'), int(255)), 'int32');
  });

  return {
    'image.flipLeftRight': { fn: flipLeftRight },
    'image.grayscaleToRGB': { fn: grayscaleToRGB },
    'image.rgbToGrayscale': { fn: rgbToGrayscale },
    'image.resizeBilinear': { fn: resizeBilinear },
    'image.resizeNearestNeighbor': { fn: resizeNearestNeighbor },
    'image.cropAndResize': { fn: cropAndResize },
    'image.rotateWithOffset': { fn: rotateWithOffset },
    'image.transform': { fn: transform },
    'image.threshold': { fn: threshold },
    // TF.js' Tensor has these two as methods (x.resizeBilinear(size, ...)); tl has them in tl.image only.
    resizeBilinear: { method: (x, ...rest) => resizeBilinear(x, ...rest) },
    resizeNearestNeighbor: { method: (x, ...rest) => resizeNearestNeighbor(x, ...rest) },
    ...makeSuppression(tl, kit),
    ...makeLinalg(tl, kit),
  };
}

// -- Linear algebra ---------------------------------------------------------------------------------------------------

/** tl.linalg.bandPart, gramSchmidt and qr (TF.js' Householder reflections, one column at a time), and tl.diag. */
function makeLinalg(tl, kit) {
  const { tensorOf, floatOf, known, tidy } = kit;
  const range = (n, shape) => tl.reshape(tl.range(0, n, 1, 'int32'), shape);
  const int = (v) => tl.scalar(v, 'int32');

  const bandPart = (a, numLower, numUpper) => tidy(() => {
    const what = 'tl.linalg.bandPart', x = tensorOf(what, 'a', a);
    if (x.rank < 2) throw new ShapeError(`${what}: a has rank ${x.rank} (shape [${x.shape}]); expected rank >= 2`);
    const [M, N] = known(what, x).slice(-2);
    const bound = (root, v, n, side) => {
      if (typeof v === 'number') {
        toInteger(v, { what, root });
        if (v > n) throw new InvalidArgument(`${what}: ${root} is ${v}, more than the ${n} ${side} of a`);
        return int(v < 0 ? n : v);
      }
      const t = tensorOf(what, root, v);
      if (t.dtype !== 'int32' || t.rank !== 0) throw new DTypeError(`${what}: ${root} is ${t.dtype}[${t.shape}]; expected a number or an int32 scalar`);
      return tl.where(tl.less(t, int(0)), int(n), tl.minimum(t, int(n)));
    };
    const lower = bound('numLower', numLower, M, 'rows'), upper = bound('numUpper', numUpper, N, 'columns');
    const offset = tl.sub(range(M, [M, 1]), range(N, [1, N]));  // i - j
    const inBand = tl.logicalAnd(tl.lessEqual(offset, lower), tl.greaterEqual(offset, tl.neg(upper)));
    return tl.where(inBand, x, tl.zerosLike(x));
  });

  const gramSchmidt = (xs) => tidy(() => {
    const what = 'tl.linalg.gramSchmidt', matrix = !Array.isArray(xs);
    let vectors;
    if (matrix) {
      const x = floatOf(what, 'xs', xs);
      if (x.rank !== 2) throw new ShapeError(`${what}: xs has shape [${x.shape}]; expected a matrix (or an array of vectors)`);
      vectors = tl.unstack(x, 0);
    } else {
      if (xs.length === 0) throw new InvalidArgument(`${what}: xs is an empty array; expected vectors`);
      vectors = xs.map((v, i) => floatOf(what, `xs[${i}]`, v));
      vectors.forEach((v, i) => {
        if (v.rank !== 1 || v.shape[0] !== vectors[0].shape[0])
          throw new ShapeError(`${what}: xs[${i}] has shape [${v.shape}]; expected [${vectors[0].shape}] like xs[0]`);
      });
    }
    const dim = known(what, vectors[0])[0];
    if (vectors.length > dim) throw new ShapeError(`${what}: ${vectors.length} vectors of ${dim} dimensions; expected at most ${dim}`);
    const ys = [];
    for (const v of vectors) {
      let x = v;
      for (const y of ys) x = tl.sub(x, tl.mul(tl.sum(tl.mul(y, x)), y));
      ys.push(tl.div(x, tl.norm(x, 'euclidean')));
    }
    return matrix ? tl.stack(ys, 0) : ys;
  });

  // One Householder step of TF.js' qr2d on column j: [q, r] -> [q, r] with r's column j zero below the diagonal.
  const householder = (q, r, j) => {
    const [m, n] = r.shape;
    const column = tl.slice(r, [j, j], [m - j, 1]), normX = tl.norm(column);
    const rjj = tl.slice(r, [j, j], [1, 1]);
    const s = tl.where(tl.greater(rjj, 0), tl.scalar(-1, 'float32'), tl.scalar(1, 'float32'));
    const u1 = tl.sub(rjj, tl.mul(s, normX));
    const one = tl.ones([1, 1]);
    const w = m - j === 1 ? one : tl.concat([one, tl.slice(tl.div(column, u1), [1, 0], [m - j - 1, 1])], 0);
    const tau = tl.neg(tl.div(tl.matMul(s, u1), normX)), tauW = tl.mul(tau, w);
    const below = tl.slice(r, [j, 0], [m - j, n]);
    const rNew = tl.sub(below, tl.matMul(tauW, tl.matMul(w, below, true, false)));
    const right = tl.slice(q, [0, j], [m, m - j]);
    const qNew = tl.sub(right, tl.matMul(tl.matMul(right, w), tauW, false, true));
    return [j === 0 ? qNew : tl.concat([tl.slice(q, [0, 0], [m, j]), qNew], 1),
            j === 0 ? rNew : tl.concat([tl.slice(r, [0, 0], [j, n]), rNew], 0)];
  };
  const qr2d = (x, fullMatrices) => {
    const [m, n] = x.shape;
    let q = tl.cast(tl.equal(range(m, [m, 1]), range(m, [1, m])), 'float32'), r = x;
    for (let j = 0; j < Math.min(m, n); ++j) [q, r] = householder(q, r, j);
    if (!fullMatrices && m > n) return [tl.slice(q, [0, 0], [m, n]), tl.slice(r, [0, 0], [n, n])];
    return [q, r];
  };
  const qr = (x, fullMatrices = false) => tidy(() => {
    const what = 'tl.linalg.qr', a = floatOf(what, 'x', x);
    if (a.rank < 2) throw new ShapeError(`${what}: x has rank ${a.rank} (shape [${a.shape}]); expected rank >= 2`);
    if (typeof fullMatrices !== 'boolean') throw new InvalidArgument(`${what}: fullMatrices is ${describeValue(fullMatrices)}; expected a boolean`);
    const shape = known(what, a), [m, n] = shape.slice(-2), outer = shape.slice(0, -2);
    if (a.rank === 2) return qr2d(a, fullMatrices);
    const parts = tl.unstack(tl.reshape(a, [-1, m, n]), 0).map((x2d) => qr2d(x2d, fullMatrices));
    const [qm, qn] = parts[0][0].shape, [rm, rn] = parts[0][1].shape;
    return [tl.reshape(tl.stack(parts.map((p) => p[0]), 0), [...outer, qm, qn]),
            tl.reshape(tl.stack(parts.map((p) => p[1]), 0), [...outer, rm, rn])];
  });

  const diag = (x) => tidy(() => {
    const what = 'tl.diag', t = tensorOf(what, 'x', x), shape = known(what, t), n = t.size;
    const flat = tl.reshape(t, [1, n]), onDiagonal = tl.equal(range(n, [n, 1]), range(n, [1, n]));
    return tl.reshape(tl.where(onDiagonal, flat, tl.zerosLike(flat)), [...shape, ...shape]);
  });

  return {
    'linalg.bandPart': { fn: bandPart },
    'linalg.gramSchmidt': { fn: gramSchmidt },
    'linalg.qr': { fn: qr },
    diag: { fn: diag, method: false },
  };
}
