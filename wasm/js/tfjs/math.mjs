// TF.js functions: the math group (see GROUPS in wasm/js/tfjs_ops.mjs). The elementwise math (sin, mod, isNaN,
// softplus, ...) are registry ops with TF.js' names in wasm/js/ops.mjs; here are the composites of them: sums of
// lists, activations, products and logical reductions, cumulative products, bitwise and, norms.
import { DTypeError, InvalidArgument, ShapeError } from '../errors.mjs';
import { describeValue } from '../values.mjs';

/** {name: {fn, method}} for tl and the Tensor methods; `kit` is tfjs_ops.mjs' helpers. */
export function makeMathOps(tl, kit) {
  const { tensorOf, floatOf, known, axisOf, axesOf, numberOf, tidy, sliceAxis, reverseAxis, zeroGradient } = kit;
  const sameShape = (a, b) => a.length === b.length && a.every((d, i) => d === b[i]);
  const flag = (what, root, value) => {
    if (typeof value !== 'boolean') throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected a boolean`);
    return value;
  };
  /** x padded along `axis` with `before` and `after` entries of `value`. */
  const padWith = (x, axis, before, after, value) =>
    tl.op('pad', [x], { paddings: x.shape.flatMap((_, i) => (i === axis ? [before, after] : [0, 0])), constant_value: value });

  const addN = (tensors) => tidy(() => {
    const what = 'tl.addN';
    if (!Array.isArray(tensors)) throw new InvalidArgument(`${what}: tensors is ${describeValue(tensors)}; expected an array of tensors`);
    if (tensors.length === 0) throw new InvalidArgument(`${what}: got no tensors; expected at least one`);
    const xs = tensors.map((t, k) => tensorOf(what, `tensors[${k}]`, t));
    for (const [k, x] of xs.entries()) {
      if (!sameShape(x.shape, xs[0].shape))
        throw new ShapeError(`${what}: tensors[${k}] has shape [${x.shape}] and tensors[0] [${xs[0].shape}]; expected equal shapes`);
      if (x.dtype !== xs[0].dtype) throw new DTypeError(`${what}: tensors[${k}] is ${x.dtype} and tensors[0] ${xs[0].dtype}; expected one dtype`);
    }
    return xs.length === 1 ? tl.op('identity', [xs[0]]) : xs.reduce((sum, x) => tl.add(sum, x));
  });

  // log(sigmoid(x)) = -softplus(-x): finite for large |x|.
  const logSigmoid = (value) => tidy(() => tl.neg(tl.softplus(tl.neg(floatOf('tl.logSigmoid', 'x', value)))));

  const prelu = (value, alpha) => tidy(() => {
    const what = 'tl.prelu', x = floatOf(what, 'x', value), a = floatOf(what, 'alpha', alpha);
    return tl.where(tl.greater(x, 0), x, tl.mul(a, x));
  });

  // min(relu(x), 6): the gradient is 1 on (0, 6] as TF.js'; int32 stays int32.
  const relu6 = (value) => tidy(() => {
    const x = tensorOf('tl.relu6', 'x', value, 'float32');
    return tl.minimum(tl.relu(x), tl.scalar(6, x.dtype));
  });

  // 1 where x > 0, alpha elsewhere, NaN for NaN; gradient 0 (TF.js'). int32 truncates alpha, as TF.js stores it.
  const step = (value, alpha = 0) => tidy(() => {
    const what = 'tl.step', x = tensorOf(what, 'x', value, 'float32');
    if (x.dtype === 'bool') throw new DTypeError(`${what}: x is bool; expected float32 or int32`);
    const a = numberOf(what, 'alpha', alpha), float = x.dtype === 'float32' ? x : tl.cast(x, 'float32');
    const below = tl.where(tl.isNaN(float), float, tl.mul(tl.onesLike(float), a));
    const s = zeroGradient(float, tl.where(tl.greater(float, 0), tl.onesLike(float), below));
    return x.dtype === 'float32' ? s : tl.cast(s, x.dtype);
  });

  /**
   * x's axes `axes` moved last and merged into one: [outer, n] (the kept dims merged into outer), with the shapes
   * the reduction gives back (keepDims or not).
   */
  const reducedRows = (what, x, axis, keepDims) => {
    const shape = known(what, x), axes = [...new Set(axesOf(what, axis, x.rank))];
    const kept = shape.map((_, i) => i).filter((i) => !axes.includes(i));
    const moved = kept.length === 0 || axes.length === 0 || axes.every((a, k) => a === x.rank - axes.length + k) ? x
      : tl.transpose(x, [...kept, ...axes]);
    const outer = kept.reduce((p, i) => p * shape[i], 1), n = axes.reduce((p, i) => p * shape[i], 1);
    const out = flag(what, 'keepDims', keepDims) ? shape.map((d, i) => (axes.includes(i) ? 1 : d)) : kept.map((i) => shape[i]);
    return { rows: tl.reshape(moved, [outer, n]), n, out };
  };

  // The product of each row by halves (log2 n multiplications), so that its gradient is the ops' even with zeros.
  const prod = (value, axis = null, keepDims = false) => tidy(() => {
    const what = 'tl.prod';
    let x = tensorOf(what, 'x', value);
    if (x.dtype === 'bool') x = tl.cast(x, 'int32');  // TF.js: a product of bools counts in int32
    let { rows, n, out } = reducedRows(what, x, axis, keepDims);
    if (n === 0) return tl.broadcastTo(tl.scalar(1, x.dtype), out);
    for (; n > 1; n = Math.ceil(n / 2)) {
      if (n % 2 === 1) rows = padWith(rows, 1, 0, 1, 1);
      const half = Math.ceil(n / 2);
      rows = tl.mul(sliceAxis(rows, 1, 0, half), sliceAxis(rows, 1, half, half));
    }
    return tl.reshape(rows, out);
  });

  // all / any of bools: the min / max of them as int32 (all of nothing is true, any of nothing false, as TF's).
  const logical = (name, reduce, test) => (value, axis = null, keepDims = false) => tidy(() => {
    const what = `tl.${name}`, x = tensorOf(what, 'x', value, 'bool');
    if (x.dtype !== 'bool') throw new DTypeError(`${what}: x is ${x.dtype}; expected bool`);
    return test(reduce(tl.cast(x, 'int32'), axis, flag(what, 'keepDims', keepDims)));
  });
  const all = logical('all', tl.min, (m) => tl.notEqual(m, 0));
  const any = logical('any', tl.max, (m) => tl.greater(m, 0));

  // argMax of an order-reversing map: -x for float32, -1 - x for int32 (no overflow at INT32_MIN); first index of ties.
  const argMin = (value, axis = 0) => tidy(() => {
    const what = 'tl.argMin';
    let x = tensorOf(what, 'x', value);
    if (x.dtype === 'bool') x = tl.cast(x, 'int32');
    const a = axisOf(what, 'axis', axis, Math.max(x.rank, 1));
    return tl.argMax(x.dtype === 'int32' ? tl.sub(tl.scalar(-1, 'int32'), x) : tl.neg(x), a);
  });

  // max + log(sum(exp(x - max))), the max held constant (its gradient cancels).
  const logSumExp = (value, axis = null, keepDims = false) => tidy(() => {
    const what = 'tl.logSumExp', x = floatOf(what, 'x', value);
    const axes = axesOf(what, axis, x.rank), keep = flag(what, 'keepDims', keepDims);
    if (axes.length === 0) return tl.op('identity', [x]);
    const top = tl.stopGradient(tl.max(x, axes, true));
    const result = tl.add(tl.log(tl.sum(tl.exp(tl.sub(x, top)), axes, true)), top);
    return keep ? result : tl.squeeze(result, axes);
  });

  // Hillis-Steele scan: after the step of shift s every entry holds the product of the 2s entries ending at it.
  const cumprod = (value, axis = 0, exclusive = false, reverse = false) => tidy(() => {
    const what = 'tl.cumprod', x = tensorOf(what, 'x', value);
    if (x.dtype === 'bool') throw new DTypeError(`${what}: x is bool; expected float32 or int32`);
    if (x.rank === 0) throw new InvalidArgument(`${what}: x is a scalar; expected rank >= 1`);
    flag(what, 'exclusive', exclusive);
    flag(what, 'reverse', reverse);
    const a = axisOf(what, 'axis', axis, x.rank), n = known(what, x)[a];
    if (n === 0) return tl.op('identity', [x]);
    let y = reverse ? reverseAxis(x, a) : x;
    if (exclusive) y = padWith(sliceAxis(y, a, 0, n - 1), a, 1, 0, 1);
    for (let s = 1; s < n; s *= 2) y = tl.mul(y, padWith(sliceAxis(y, a, 0, n - s), a, s, 0, 1));
    return reverse ? reverseAxis(y, a) : y;
  });

  // Bit k (k < 31) of an int32 in two's complement is mod(floorDiv(x, 2^k), 2); bit 31 is x < 0 (worth INT32_MIN).
  const bitwiseAnd = (xValue, yValue) => tidy(() => {
    const what = 'tl.bitwiseAnd', x = tensorOf(what, 'x', xValue, 'int32'), y = tensorOf(what, 'y', yValue, 'int32');
    if (x.dtype !== 'int32' || y.dtype !== 'int32') throw new DTypeError(`${what}: x is ${x.dtype} and y ${y.dtype}; expected int32`);
    if (!sameShape(x.shape, y.shape)) throw new ShapeError(`${what}: x has shape [${x.shape}] and y [${y.shape}]; expected equal shapes`);
    const int = (v) => tl.scalar(v, 'int32'), two = int(2);
    const both = tl.logicalAnd(tl.less(x, 0), tl.less(y, 0));
    let result = tl.where(both, int(-(2 ** 31)), tl.zerosLike(x));
    for (let k = 0; k < 31; ++k) {
      const bit = (v) => tl.mod(tl.floorDiv(v, int(2 ** k)), two);
      result = tl.add(result, tl.mul(tl.mul(bit(x), bit(y)), int(2 ** k)));
    }
    return result;
  });

  const euclideanNorm = (value, axis = null, keepDims = false) => tl.norm(value, 'euclidean', axis, keepDims);

  return {
    addN: { fn: addN, method: false },
    logSigmoid: { fn: logSigmoid, method: true },
    prelu: { fn: prelu, method: true },
    relu6: { fn: relu6, method: true },
    step: { fn: step, method: true },
    prod: { fn: prod, method: true },
    all: { fn: all, method: true },
    any: { fn: any, method: true },
    argMin: { fn: argMin, method: true },
    logSumExp: { fn: logSumExp, method: true },
    cumprod: { fn: cumprod, method: true },
    bitwiseAnd: { fn: bitwiseAnd, method: false },
    euclideanNorm: { fn: euclideanNorm, method: true },
  };
}
