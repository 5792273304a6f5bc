// TF.js functions that ordinary models use, as composites of the registry ops: every one runs eagerly, is recorded
// by a tape (its gradient is the gradient of the ops it is made of) and becomes graph nodes inside a tl.function.
// Also TF.js' function-transforming gradients (tl.grad, tl.valueAndGrad), tl.losses of tfjs-core, tl.nextFrame
// and tl.util's basics.
//
//   const extra = makeTfjsOps(tl);         // {entries: {name: {fn, method}}, losses, util, Reduction}
//   extra.entries.selu.fn(tl.tensor([-1, 2]));
import { InvalidArgument, ShapeError, DTypeError } from './errors.mjs';
import { Tensor } from './tensor.mjs';
import { describeValue, isTensorLike, toInteger } from './values.mjs';
import { makeConvOps } from './tfjs/conv.mjs';
import { makeCreationOps } from './tfjs/creation.mjs';
import { makeGatherOps } from './tfjs/gather.mjs';
import { makeImageOps } from './tfjs/image.mjs';
import { makeMathOps } from './tfjs/math.mjs';
import { makeMiscOps } from './tfjs/misc.mjs';
import { makeSliceOps } from './tfjs/slice.mjs';

/**
 * The groups of TF.js functions in wasm/js/tfjs/: each make(tl, kit) returns {name: {fn, method}} as `entries`
 * below; a name with a dot ('image.flipLeftRight') is a member of a namespace of tl (tl.image.flipLeftRight) and
 * has no method.
 */
const GROUPS = [makeMathOps, makeConvOps, makeImageOps, makeSliceOps, makeGatherOps, makeCreationOps, makeMiscOps];

const SELU_SCALE = 1.0507009873554804934193349852946;
const SELU_ALPHA = 1.6732632423543772848170429916717;

/** TF.js' loss reductions (tf.Reduction). */
export const Reduction = Object.freeze({ NONE: 0, MEAN: 1, SUM: 2, SUM_BY_NONZERO_WEIGHTS: 3 });

/** The new API entries for `tl`: {entries: {name: {fn, method}}, losses, util, Reduction}. */
export function makeTfjsOps(tl) {
  const isVariable = (v) => v instanceof tl.Variable;

  /** A tensor for argument `root` of `what` (tensors pass through; variables are read; plain values converted). */
  const tensorOf = (what, root, value, dtype) => {
    if (value instanceof Tensor) {
      value.checkAlive(`${what}: ${root}`);
      return value;
    }
    if (isVariable(value)) return value.read();
    if (!isTensorLike(value))
      throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected a tensor (or a number, boolean, array or typed array)`);
    return tl.tensor(value, undefined, dtype);
  };
  const floatOf = (what, root, value) => {
    const x = tensorOf(what, root, value, 'float32');
    if (x.dtype !== 'float32') throw new DTypeError(`${what}: ${root} is ${x.dtype}; expected float32`);
    return x;
  };
  const known = (what, x) => {
    if (x.shape.some((d) => d < 0)) throw new ShapeError(`${what}: needs a fully known shape, got [${x.shape}]`);
    return x.shape;
  };
  const axisOf = (what, root, value, rank) => {
    const a = toInteger(value, { what, root });
    if (a < -rank || a >= rank) throw new InvalidArgument(`${what}: ${root} ${a} is out of range for rank ${rank} (expected [${-rank}, ${rank}))`);
    return a < 0 ? a + rank : a;
  };
  const numberOf = (what, root, value) => {
    if (typeof value !== 'number') throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected a number`);
    return value;
  };
  const tidy = (fn) => tl.tidy(fn);

  // Slices of x along `axis`: begin, size there; everything elsewhere.
  const sliceAxis = (x, axis, begin, size) =>
    tl.slice(x, x.shape.map((_, i) => (i === axis ? begin : 0)), x.shape.map((d, i) => (i === axis ? size : d)));
  const padAxis = (x, axis, before, after) =>
    tl.op('pad', [x], { paddings: x.shape.flatMap((_, i) => (i === axis ? [before, after] : [0, 0])) });
  const reverseAxis = (x, axis) => {
    const n = x.shape[axis];
    return tl.gather(x, tl.tensor(Int32Array.from({ length: n }, (_, i) => n - 1 - i)), axis);
  };
  const allTrue = (x) => tl.cast(tl.onesLike(x), 'bool');
  /** value, with a zero gradient with respect to x (TF.js' gradient of piecewise constant functions: step). */
  const zeroGradient = (x, value) => tl.where(allTrue(x), tl.stopGradient(value), x);

  const leakyRelu = (value, alpha = 0.2) => tidy(() => {
    const x = floatOf('tl.leakyRelu', 'x', value);
    return tl.where(tl.greater(x, 0), x, tl.mul(x, numberOf('tl.leakyRelu', 'alpha', alpha)));
  });
  // exp of min(x, 0): the unused branch stays finite, so its zero gradient is not 0 * inf.
  const expm1Negative = (x) => tl.sub(tl.exp(tl.minimum(x, 0)), 1);
  const elu = (value) => tidy(() => {
    const x = floatOf('tl.elu', 'x', value);
    return tl.where(tl.greater(x, 0), x, expm1Negative(x));
  });
  const selu = (value) => tidy(() => {
    const x = floatOf('tl.selu', 'x', value);
    return tl.mul(tl.where(tl.greater(x, 0), x, tl.mul(expm1Negative(x), SELU_ALPHA)), SELU_SCALE);
  });

  const tile = (value, reps) => tidy(() => {
    const what = 'tl.tile', x = tensorOf(what, 'x', value);
    if (!Array.isArray(reps)) throw new InvalidArgument(`${what}: reps is ${describeValue(reps)}; expected an array of integers`);
    if (reps.length !== x.rank) throw new ShapeError(`${what}: reps has ${reps.length} entries; expected one per dimension of x (rank ${x.rank})`);
    const shape = known(what, x), r = reps.map((n, i) => toInteger(n, { what, root: `reps[${i}]`, min: 0 }));
    // [d0, d1] -> [1, d0, 1, d1] -> broadcast to [r0, d0, r1, d1] -> [r0 * d0, r1 * d1]
    const spread = tl.reshape(x, shape.flatMap((d) => [1, d]));
    const tiled = tl.broadcastTo(spread, shape.flatMap((d, i) => [r[i], d]));
    return tl.reshape(tiled, shape.map((d, i) => d * r[i]));
  });

  const pad = (value, paddings, constantValue = 0) => tidy(() => {
    const what = 'tl.pad', x = tensorOf(what, 'x', value);
    if (x.rank === 0) throw new InvalidArgument(`${what}: x is a scalar; pad needs a tensor of rank >= 1`);
    if (!Array.isArray(paddings) || paddings.length !== x.rank || !paddings.every((p) => Array.isArray(p) && p.length === 2))
      throw new InvalidArgument(`${what}: paddings is ${describeValue(paddings)}; expected ${x.rank} pairs [before, after]`);
    const flat = paddings.flatMap((p, i) => p.map((n, j) => toInteger(n, { what, root: `paddings[${i}][${j}]`, min: 0 })));
    return tl.op('pad', [x], { paddings: flat, constant_value: numberOf(what, 'constantValue', constantValue) });
  });

  const split = (value, numOrSizeSplits, axis = 0) => tidy(() => {
    const what = 'tl.split', x = tensorOf(what, 'x', value);
    const a = axisOf(what, 'axis', axis, x.rank), n = known(what, x)[a];
    let sizes;
    if (Array.isArray(numOrSizeSplits)) {
      sizes = numOrSizeSplits.map((s, i) => toInteger(s, { what, root: `numOrSizeSplits[${i}]`, min: -1 }));
      const unknown = sizes.filter((s) => s === -1).length;
      if (unknown > 1) throw new InvalidArgument(`${what}: numOrSizeSplits [${sizes}] has more than one -1`);
      const total = sizes.reduce((s, v) => s + (v === -1 ? 0 : v), 0);
      if (unknown === 1 && total <= n) sizes = sizes.map((s) => (s === -1 ? n - total : s));
      if (sizes.reduce((s, v) => s + v, 0) !== n)
        throw new ShapeError(`${what}: the sizes [${numOrSizeSplits}] do not add up to dimension ${a} of x (${n})`);
    } else {
      const k = toInteger(numOrSizeSplits, { what, root: 'numOrSizeSplits', min: 1 });
      if (n % k !== 0) throw new ShapeError(`${what}: ${k} splits do not evenly divide dimension ${a} of x (${n})`);
      sizes = new Array(k).fill(n / k);
    }
    let begin = 0;
    return sizes.map((size) => { const part = sliceAxis(x, a, begin, size); begin += size; return part; });
  });

  const unstack = (value, axis = 0) => tidy(() => {
    const what = 'tl.unstack', x = tensorOf(what, 'x', value);
    if (x.rank === 0) throw new InvalidArgument(`${what}: x is a scalar; expected rank >= 1`);
    const a = axisOf(what, 'axis', axis, x.rank), shape = known(what, x);
    const rest = shape.filter((_, i) => i !== a);
    return Array.from({ length: shape[a] }, (_, i) => tl.reshape(sliceAxis(x, a, i, 1), rest));
  });

  const linspace = (start, stop, num) => {
    const what = 'tl.linspace';
    numberOf(what, 'start', start);
    numberOf(what, 'stop', stop);
    const n = toInteger(num, { what, root: 'num' });
    if (n <= 0) throw new InvalidArgument(`${what}: num is ${n}; the number of values must be positive`);
    // TF.js' kernel: float32 steps added one after another.
    const values = new Float32Array(n), step = (stop - start) / (n - 1);
    values[0] = start;
    for (let i = 1; i < n; ++i) values[i] = values[i - 1] + step;
    return tl.tensor(values, [n], 'float32');
  };

  const dropout = (value, rate, noiseShape, seed) => tidy(() => {
    const what = 'tl.dropout', x = floatOf(what, 'x', value);
    numberOf(what, 'rate', rate);
    if (!(rate >= 0 && rate < 1)) throw new InvalidArgument(`${what}: rate is ${rate}; expected a number in [0, 1)`);
    if (rate === 0) return tl.op('identity', [x]);
    const shape = known(what, x);
    let noise = shape;
    if (noiseShape !== undefined && noiseShape !== null) {
      if (!Array.isArray(noiseShape) || noiseShape.length !== shape.length)
        throw new InvalidArgument(`${what}: noiseShape is ${describeValue(noiseShape)}; expected ${shape.length} dims`);
      noise = noiseShape.map((d, i) => (d === null || d === undefined ? shape[i] : toInteger(d, { what, root: `noiseShape[${i}]`, min: 0 })));
    }
    if (seed !== undefined && !Number.isSafeInteger(seed)) throw new InvalidArgument(`${what}: seed is ${describeValue(seed)}; expected an integer`);
    const keep = 1 - rate;
    const multiplier = tl.div(tl.floor(tl.add(tl.randomUniform(noise, 0, 1, 'float32', seed), keep)), keep);
    return tl.mul(x, multiplier);
  });

  const batchNorm = (value, mean, variance, offset, scale, varianceEpsilon = 0.001) => tidy(() => {
    const what = 'tl.batchNorm', x = floatOf(what, 'x', value);
    const m = floatOf(what, 'mean', mean), v = floatOf(what, 'variance', variance);
    const o = offset === undefined || offset === null ? null : floatOf(what, 'offset', offset);
    const s = scale === undefined || scale === null ? null : floatOf(what, 'scale', scale);
    for (const [name, t] of [['variance', v], ['offset', o], ['scale', s]])
      if (t !== null && t.rank !== m.rank) throw new ShapeError(`${what}: mean is rank ${m.rank} and ${name} rank ${t.rank}; expected equal ranks`);
    let y = tl.div(tl.sub(x, m), tl.sqrt(tl.add(v, numberOf(what, 'varianceEpsilon', varianceEpsilon ?? 0.001))));
    if (s !== null) y = tl.mul(y, s);
    return o === null ? y : tl.add(y, o);
  });

  const axesOf = (what, axis, rank) => {
    if (axis === undefined || axis === null) return Array.from({ length: rank }, (_, i) => i);
    const list = Array.isArray(axis) ? axis : [axis];
    return list.map((a, i) => axisOf(what, Array.isArray(axis) ? `axis[${i}]` : 'axis', a, rank));
  };
  const moments = (value, axis = null, keepDims = false) => tidy(() => {
    const what = 'tl.moments', x = floatOf(what, 'x', value);
    if (typeof keepDims !== 'boolean') throw new InvalidArgument(`${what}: keepDims is ${describeValue(keepDims)}; expected a boolean`);
    const axes = axesOf(what, axis, x.rank);
    const mean = tl.mean(x, axes, true);
    const variance = tl.mean(tl.square(tl.sub(x, tl.stopGradient(mean))), axes, keepDims);
    return { mean: keepDims ? mean : tl.squeeze(mean, axes), variance };
  });

  const norm = (value, ord = 'euclidean', axis = null, keepDims = false) => tidy(() => {
    const what = 'tl.norm', x = floatOf(what, 'x', value);
    if (typeof keepDims !== 'boolean') throw new InvalidArgument(`${what}: keepDims is ${describeValue(keepDims)}; expected a boolean`);
    const bad = () => new InvalidArgument(`${what}: ord is ${describeValue(ord)}; expected 'euclidean', 'fro', 1, 2, Infinity or -Infinity`);
    const axes = axis === null || axis === undefined ? null : axesOf(what, axis, x.rank);
    let result;
    if (x.rank === 0) {
      result = tl.abs(x);
    } else if (axes === null || axes.length === 1) {
      const v = axes === null ? tl.reshape(x, [-1]) : x, a = axes ?? [0];
      if (ord === 1) result = tl.sum(tl.abs(v), a);
      else if (ord === Infinity) result = tl.max(tl.abs(v), a);
      else if (ord === -Infinity) result = tl.min(tl.abs(v), a);
      else if (ord === 'euclidean' || ord === 2) result = tl.sqrt(tl.sum(tl.square(v), a));
      else throw bad();
    } else if (axes.length === 2) {
      const [a0, a1] = axes;
      if (ord === 1) result = tl.max(tl.sum(tl.abs(x), a0), a1 > a0 ? a1 - 1 : a1);
      else if (ord === Infinity) result = tl.max(tl.sum(tl.abs(x), a1), a0 > a1 ? a0 - 1 : a0);
      else if (ord === -Infinity) result = tl.min(tl.sum(tl.abs(x), a1), a0 > a1 ? a0 - 1 : a0);
      else if (ord === 'fro' || ord === 'euclidean') result = tl.sqrt(tl.sum(tl.square(x), axes));
      else throw bad();
    } else {
      throw new InvalidArgument(`${what}: axis is ${describeValue(axis)}; expected null, one axis or two`);
    }
    if (!keepDims) return result;
    const kept = axes ?? x.shape.map((_, i) => i);
    return tl.reshape(result, x.shape.map((d, i) => (kept.includes(i) ? 1 : d)));
  });

  const topk = (value, k = 1, sorted = true) => tidy(() => {
    const what = 'tl.topk', x = tensorOf(what, 'x', value);
    if (x.rank === 0) throw new InvalidArgument(`${what}: x is a scalar; expected rank >= 1`);
    if (typeof sorted !== 'boolean') throw new InvalidArgument(`${what}: sorted is ${describeValue(sorted)}; expected a boolean`);
    const n = known(what, x)[x.rank - 1];
    const kk = toInteger(k, { what, root: 'k', min: 0 });
    if (kk > n) throw new InvalidArgument(`${what}: k is ${kk}; expected at most the last dimension (${n})`);
    // rank[i] = #{j: x[j] > x[i], or x[j] == x[i] and j < i}: the place of x[i] in the stable descending order.
    const xi = tl.expandDims(x, -1), xj = tl.expandDims(x, -2);
    const earlier = tl.tensor(Array.from({ length: n * n }, (_, q) => q % n < Math.floor(q / n)), [n, n], 'bool');
    const before = tl.logicalOr(tl.greater(xj, xi), tl.logicalAnd(tl.equal(xj, xi), earlier));
    const rank = tl.sum(tl.cast(before, 'int32'), -1);
    const places = tl.equal(tl.expandDims(rank, -1), tl.range(0, n, 1, 'int32'));  // [..., i, place]
    const position = tl.expandDims(tl.range(0, n, 1, 'int32'), -1);  // i, down the i axis
    const indices = tl.sum(tl.where(places, position, tl.zerosLike(position)), x.rank - 1);
    const values = tl.sum(tl.where(places, xi, tl.zerosLike(xi)), x.rank - 1);
    const first = (t) => sliceAxis(t, x.rank - 1, 0, kk);
    return { values: first(values), indices: first(indices) };
  });

  const cumsum = (value, axis = 0, exclusive = false, reverse = false) => tidy(() => {
    const what = 'tl.cumsum', x = tensorOf(what, 'x', value);
    if (x.dtype === 'bool') throw new DTypeError(`${what}: x is bool; expected float32 or int32`);
    if (x.rank === 0) throw new InvalidArgument(`${what}: x is a scalar; expected rank >= 1`);
    for (const [name, flag] of [['exclusive', exclusive], ['reverse', reverse]])
      if (typeof flag !== 'boolean') throw new InvalidArgument(`${what}: ${name} is ${describeValue(flag)}; expected a boolean`);
    const a = axisOf(what, 'axis', axis, x.rank), n = known(what, x)[a];
    if (n === 0) return tl.op('identity', [x]);
    // Hillis-Steele: after the step of shift s every entry holds the sum of the 2s entries ending at it.
    let y = reverse ? reverseAxis(x, a) : x;
    if (exclusive) y = padAxis(sliceAxis(y, a, 0, n - 1), a, 1, 0);
    for (let s = 1; s < n; s *= 2) y = tl.add(y, padAxis(sliceAxis(y, a, 0, n - s), a, s, 0));
    return reverse ? reverseAxis(y, a) : y;
  });

  const dot = (a, b) => tidy(() => {
    const what = 'tl.dot', t1 = tensorOf(what, 't1', a), t2 = tensorOf(what, 't2', b);
    if (![1, 2].includes(t1.rank) || ![1, 2].includes(t2.rank))
      throw new ShapeError(`${what}: inputs must be rank 1 or 2, got ranks ${t1.rank} and ${t2.rank}`);
    const inner1 = t1.shape[t1.rank - 1], inner2 = t2.shape[0];
    if (inner1 !== inner2) throw new ShapeError(`${what}: inner dimensions must match, got [${t1.shape}] and [${t2.shape}]`);
    const m1 = t1.rank === 1 ? tl.reshape(t1, [1, -1]) : t1, m2 = t2.rank === 1 ? tl.reshape(t2, [-1, 1]) : t2;
    const product = tl.matMul(m1, m2);
    if (t1.rank === 1 && t2.rank === 1) return tl.reshape(product, []);
    if (t1.rank === 1) return tl.reshape(product, [t2.shape[1]]);
    return t2.rank === 1 ? tl.reshape(product, [t1.shape[0]]) : product;
  });

  const outerProduct = (a, b) => tidy(() => {
    const what = 'tl.outerProduct', v1 = tensorOf(what, 'v1', a), v2 = tensorOf(what, 'v2', b);
    if (v1.rank !== 1 || v2.rank !== 1) throw new ShapeError(`${what}: inputs must be rank 1, got ranks ${v1.rank} and ${v2.rank}`);
    return tl.matMul(tl.reshape(v1, [-1, 1]), tl.reshape(v2, [1, -1]));
  });

  const tensorN = (rank) => (values, shape, dtype) => {
    const what = `tl.tensor${rank}d`;
    if (rank === 1 && shape !== undefined && typeof shape === 'string') [shape, dtype] = [undefined, shape];
    if (shape !== undefined && shape !== null && (!Array.isArray(shape) || shape.length !== rank))
      throw new ShapeError(`${what}: shape is ${describeValue(shape)}; expected ${rank} dims`);
    const flat = ArrayBuffer.isView(values) || (Array.isArray(values) && values.every((v) => !Array.isArray(v) && !ArrayBuffer.isView(v)));
    if (rank > 1 && flat && (shape === undefined || shape === null))
      throw new InvalidArgument(`${what}: flat values need a shape of ${rank} dims`);
    if (rank === 1 && !flat) throw new InvalidArgument(`${what}: values must be a flat array or a typed array`);
    const t = tl.tensor(values, shape ?? undefined, dtype);
    if (t.rank !== rank) {
      t.dispose();
      throw new ShapeError(`${what}: values have rank ${t.rank}; expected ${rank}`);
    }
    return t;
  };

  // TF.js' gradient transforms on the core's tape: d sum(f(x) * dy) / dx, dy = ones when not given.
  const differentiate = (what, f, xs, dy, withValue) => {
    const tape = new tl.GradientTape({ persistent: true });
    try {
      tape.watch(xs);
      const y = f(...xs);
      if (!(y instanceof Tensor)) throw new InvalidArgument(`${what}: f must return a tensor, got ${describeValue(y)}`);
      let grads;
      try {
        const target = tidy(() => {
          if (dy === undefined || dy === null) return tl.sum(y);
          const d = floatOf(what, 'dy', dy);
          if (d.shape.length !== y.shape.length || d.shape.some((s, i) => s !== y.shape[i]))
            throw new ShapeError(`${what}: dy has shape [${d.shape}]; expected the shape of f's result [${y.shape}]`);
          return tl.sum(tl.mul(y, d));
        });
        grads = tape.gradient(target, xs);
        target.dispose();
        if (grads.some((g) => g === null))
          throw new InvalidArgument(`${what}: the result of f does not depend on x (f must compute it from x with tensor ops)`);
      } catch (error) {
        y.dispose();
        throw error;
      }
      if (!withValue) y.dispose();
      return { value: y, grads };
    } finally {
      tape.dispose();
    }
  };
  const single = (what, x) => {
    if (!(x instanceof Tensor)) throw new InvalidArgument(`${what}: x is ${describeValue(x)}; expected a tensor`);
    return [x];
  };
  const functionOf = (what, f) => {
    if (typeof f !== 'function') throw new InvalidArgument(`${what}: f is ${describeValue(f)}; expected a function`);
    return f;
  };
  const grad = (f) => {
    functionOf('tl.grad', f);
    return (x, dy) => differentiate('tl.grad', f, single('tl.grad', x), dy, false).grads[0];
  };
  const valueAndGrad = (f) => {
    functionOf('tl.valueAndGrad', f);
    return (x, dy) => {
      const { value, grads } = differentiate('tl.valueAndGrad', f, single('tl.valueAndGrad', x), dy, true);
      return { value, grad: grads[0] };
    };
  };

  // What the group modules (wasm/js/tfjs/*.mjs) build on.
  const kit = { tensorOf, floatOf, known, axisOf, axesOf, numberOf, tidy, sliceAxis, reverseAxis, zeroGradient };
  const entries = {
    tensor1d: { fn: tensorN(1), method: false },
    tensor2d: { fn: tensorN(2), method: false },
    tensor3d: { fn: tensorN(3), method: false },
    tensor4d: { fn: tensorN(4), method: false },
    grad: { fn: grad, method: false },
    valueAndGrad: { fn: valueAndGrad, method: false },
    tile: { fn: tile, method: true },
    pad: { fn: pad, method: true },
    split: { fn: split, method: true },
    unstack: { fn: unstack, method: true },
    linspace: { fn: linspace, method: false },
    dropout: { fn: dropout, method: false },
    batchNorm: { fn: batchNorm, method: true },
    moments: { fn: moments, method: false },
    norm: { fn: norm, method: true },
    leakyRelu: { fn: leakyRelu, method: true },
    elu: { fn: elu, method: true },
    selu: { fn: selu, method: true },
    topk: { fn: topk, method: true },
    cumsum: { fn: cumsum, method: true },
    dot: { fn: dot, method: true },
    outerProduct: { fn: outerProduct, method: false },
    nextFrame: { fn: nextFrame, method: false },
  };
  for (const make of GROUPS) {
    for (const [name, entry] of Object.entries(make(tl, kit))) {
      if (Object.hasOwn(entries, name)) throw new Error(`tfjs_ops: '${name}' is made twice (${make.name})`);
      entries[name] = entry;
    }
  }
  return { entries, losses: makeLosses(tl, tensorOf, axisOf), util: makeUtil(), Reduction };
}

/** Resolves on the next animation frame (browsers), else on the next turn of the event loop. */
function nextFrame() {
  return new Promise((resolve) => {
    if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => resolve());
    else if (typeof setImmediate === 'function') setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}

/** tfjs-core's tf.losses: (labels, predictions, ..., weights?, reduction = SUM_BY_NONZERO_WEIGHTS). */
function makeLosses(tl, tensorOf, axisOf) {
  const reductionOf = (what, r) => {
    if (r === undefined || r === null) return Reduction.SUM_BY_NONZERO_WEIGHTS;
    if (!Object.values(Reduction).includes(r)) throw new InvalidArgument(`${what}: reduction is ${describeValue(r)}; expected a tl.Reduction value`);
    return r;
  };
  const sameShape = (what, a, b) => {
    if (a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i]))
      throw new ShapeError(`${what}: labels have shape [${a.shape}] and predictions [${b.shape}]; expected equal shapes`);
  };
  const float = (what, root, v) => {
    const t = tensorOf(what, root, v, 'float32');
    return t.dtype === 'float32' ? t : tl.cast(t, 'float32');
  };
  const reduce = (what, losses, weights, reduction) => {
    const r = reductionOf(what, reduction);
    const w = weights === undefined || weights === null ? null : float(what, 'weights', weights);
    const weighted = w === null ? losses : tl.mul(losses, w);
    if (r === Reduction.NONE) return weighted;
    if (r === Reduction.SUM) return tl.sum(weighted);
    if (r === Reduction.MEAN) {
      if (w === null) return tl.mean(weighted);
      const result = tl.div(tl.sum(weighted), tl.sum(w)), factor = losses.size / w.size;
      return factor > 1 ? tl.div(result, factor) : result;
    }
    if (w === null) return tl.div(tl.sum(weighted), losses.size);
    const nonZero = tl.sum(tl.cast(tl.notEqual(tl.mul(w, tl.onesLike(losses)), 0), 'float32'));
    return tl.div(tl.sum(weighted), nonZero);
  };
  // A loss of (labels, predictions) pairs: elementwise(labels, predictions) reduced by weights and reduction.
  const pairLoss = (name, elementwise) => (labels, predictions, weights, reduction) => tl.tidy(() => {
    const what = `tl.losses.${name}`;
    const l = float(what, 'labels', labels), p = float(what, 'predictions', predictions);
    sameShape(what, l, p);
    return reduce(what, elementwise(l, p), weights, reduction);
  });
  const numberOf = (what, root, v) => {
    if (typeof v !== 'number') throw new InvalidArgument(`${what}: ${root} is ${describeValue(v)}; expected a number`);
    return v;
  };
  return {
    Reduction,
    computeWeightedLoss: (losses, weights, reduction) => tl.tidy(() => {
      const what = 'tl.losses.computeWeightedLoss';
      return reduce(what, float(what, 'losses', losses), weights, reduction);
    }),
    absoluteDifference: pairLoss('absoluteDifference', (l, p) => tl.abs(tl.sub(l, p))),
    meanSquaredError: pairLoss('meanSquaredError', (l, p) => tl.square(tl.sub(l, p))),
    hingeLoss: pairLoss('hingeLoss', (l, p) => tl.relu(tl.sub(1, tl.mul(tl.sub(tl.mul(l, 2), 1), p)))),
    cosineDistance: (labels, predictions, axis, weights, reduction) => tl.tidy(() => {
      const what = 'tl.losses.cosineDistance';
      const l = float(what, 'labels', labels), p = float(what, 'predictions', predictions);
      sameShape(what, l, p);
      const a = axisOf(what, 'axis', axis, l.rank);
      return reduce(what, tl.sub(1, tl.sum(tl.mul(l, p), a, true)), weights, reduction);
    }),
    huberLoss: (labels, predictions, weights, delta = 1.0, reduction) => tl.tidy(() => {
      const what = 'tl.losses.huberLoss';
      const l = float(what, 'labels', labels), p = float(what, 'predictions', predictions);
      sameShape(what, l, p);
      const d = numberOf(what, 'delta', delta), error = tl.abs(tl.sub(p, l));
      const quadratic = tl.minimum(error, d), linear = tl.sub(error, quadratic);
      return reduce(what, tl.add(tl.mul(tl.square(quadratic), 0.5), tl.mul(linear, d)), weights, reduction);
    }),
    logLoss: (labels, predictions, weights, epsilon = 1e-7, reduction) => tl.tidy(() => {
      const what = 'tl.losses.logLoss';
      const l = float(what, 'labels', labels), p = float(what, 'predictions', predictions);
      sameShape(what, l, p);
      const e = numberOf(what, 'epsilon', epsilon);
      const losses = tl.sub(tl.neg(tl.mul(l, tl.log(tl.add(p, e)))), tl.mul(tl.sub(1, l), tl.log(tl.add(tl.sub(1, p), e))));
      return reduce(what, losses, weights, reduction);
    }),
    sigmoidCrossEntropy: (multiClassLabels, logits, weights, labelSmoothing = 0, reduction) => tl.tidy(() => {
      const what = 'tl.losses.sigmoidCrossEntropy';
      let l = float(what, 'multiClassLabels', multiClassLabels);
      const x = float(what, 'logits', logits);
      sameShape(what, l, x);
      const s = numberOf(what, 'labelSmoothing', labelSmoothing);
      if (s > 0) l = tl.add(tl.mul(l, 1 - s), 0.5 * s);
      // max(x, 0) - x * z + log(1 + exp(-|x|)): no overflow for large |x|.
      const losses = tl.add(tl.sub(tl.relu(x), tl.mul(x, l)), tl.log(tl.add(tl.exp(tl.neg(tl.abs(x))), 1)));
      return reduce(what, losses, weights, reduction);
    }),
    softmaxCrossEntropy: (onehotLabels, logits, weights, labelSmoothing = 0, reduction) => tl.tidy(() => {
      const what = 'tl.losses.softmaxCrossEntropy';
      let l = float(what, 'onehotLabels', onehotLabels);
      const x = float(what, 'logits', logits);
      sameShape(what, l, x);
      const s = numberOf(what, 'labelSmoothing', labelSmoothing);
      if (s > 0) l = tl.add(tl.mul(l, 1 - s), s / l.shape[l.rank - 1]);
      const losses = tl.neg(tl.sum(tl.mul(l, tl.logSoftmax(x, -1)), -1));
      return reduce(what, losses, weights, reduction);
    }),
  };
}

/** tf.util's basics. */
function makeUtil() {
  const what = 'tl.util';
  return {
    /** The number of elements of a shape (1 for []). */
    sizeFromShape: (shape) => {
      if (!Array.isArray(shape)) throw new InvalidArgument(`${what}.sizeFromShape: shape is ${describeValue(shape)}; expected an array`);
      return shape.reduce((a, b) => a * b, 1);
    },
    /** Nested arrays (and typed arrays inside them) as one flat array; skipTypedArray keeps typed arrays whole. */
    flatten: (arr, result = [], skipTypedArray = false) => {
      const walk = (v) => {
        if (Array.isArray(v) || (ArrayBuffer.isView(v) && !skipTypedArray)) for (const item of v) walk(item);
        else result.push(v);
      };
      walk(arr);
      return result;
    },
    /** Shuffles an array (or typed array) in place (Fisher-Yates, Math.random). */
    shuffle: (array) => {
      for (let i = array.length - 1; i > 0; --i) {
        const j = Math.floor(Math.random() * (i + 1));
        [array[i], array[j]] = [array[j], array[i]];
      }
    },
    /** [0, n) shuffled, as a Uint32Array. */
    createShuffledIndices: (n) => {
      const count = toInteger(n, { what: `${what}.createShuffledIndices`, root: 'n', min: 0 });
      const indices = Uint32Array.from({ length: count }, (_, i) => i);
      for (let i = count - 1; i > 0; --i) {
        const j = Math.floor(Math.random() * (i + 1));
        [indices[i], indices[j]] = [indices[j], indices[i]];
      }
      return indices;
    },
    /** Throws InvalidArgument with msg() when expr is falsy. */
    assert: (expr, msg) => {
      if (!expr) throw new InvalidArgument(typeof msg === 'function' ? msg() : String(msg));
    },
    /** True when two arrays (or typed arrays) have the same length and equal entries. */
    arraysEqual: (a, b) => {
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; ++i) if (a[i] !== b[i]) return false;
      return true;
    },
    /** A high-resolution time in milliseconds (performance.now()). */
    now: () => performance.now(),
  };
}
