// TF.js functions: the misc group (see GROUPS in wasm/js/tfjs_ops.mjs). Rank-checked batch norms, moving averages,
// TF.js' LSTM cells, einsum, the signal windows and frames, and the Tensor methods x.bytes() and x.throwIfDisposed().
//
// einsum follows what TF.js accepts (an explicit output after '->', at most two operands, no ellipsis, no label twice
// in one operand) and contracts two operands with one batched matMul: labels of one operand only and not in the
// output are summed first, then the operands are transposed to [batch, free, contracted] and [batch, contracted,
// free] and reshaped to matrices.
import { InvalidArgument, ShapeError, DTypeError } from '../errors.mjs';
import { Tensor } from '../tensor.mjs';
import { describeValue, toInteger } from '../values.mjs';

/** {name: {fn, method}} for tl and the Tensor methods; `kit` is tfjs_ops.mjs' helpers. */
export function makeMiscOps(tl, kit) {
  const { tensorOf, floatOf, known, numberOf, tidy } = kit;

  // batchNorm2d / 3d / 4d: x of that rank, the statistics of that rank or rank 1.
  const batchNormOfRank = (rank) => (x, mean, variance, offset, scale, varianceEpsilon) => tidy(() => {
    const what = `tl.batchNorm${rank}d`;
    const named = { x, mean, variance, offset, scale };
    for (const [name, value] of Object.entries(named)) {
      if ((name === 'offset' || name === 'scale') && (value === undefined || value === null)) continue;
      const t = floatOf(what, name, value);
      if (name === 'x' ? t.rank !== rank : t.rank !== rank && t.rank !== 1)
        throw new ShapeError(`${what}: ${name} has rank ${t.rank}; expected ${name === 'x' ? `rank ${rank}` : `rank ${rank} or 1`}`);
    }
    return tl.batchNorm(x, mean, variance, offset, scale, varianceEpsilon);
  });

  // v + (x - v) (1 - decay), divided by 1 - decay^step when zeroDebias (TF.js' movingAverage).
  const movingAverage = (v, x, decay, step, zeroDebias = true) => tidy(() => {
    const what = 'tl.movingAverage';
    const tv = floatOf(what, 'v', v), tx = floatOf(what, 'x', x), d = floatOf(what, 'decay', decay);
    if (tv.shape.length !== tx.shape.length || tv.shape.some((n, i) => n !== tx.shape[i]))
      throw new ShapeError(`${what}: v has shape [${tv.shape}] and x [${tx.shape}]; expected equal shapes`);
    if (typeof zeroDebias !== 'boolean') throw new InvalidArgument(`${what}: zeroDebias is ${describeValue(zeroDebias)}; expected a boolean`);
    let update = tl.mul(tl.sub(tx, tv), tl.sub(1, d));
    if (zeroDebias) {
      if (step === undefined || step === null) throw new InvalidArgument(`${what}: zeroDebias is true, so step is required`);
      update = tl.div(update, tl.sub(1, tl.pow(d, floatOf(what, 'step', step))));
    }
    return tl.add(tv, update);
  });

  // TF.js' basicLSTMCell: [data, h] · kernel + bias split into the gates i, j, f, o;
  // c' = sigmoid(i) tanh(j) + c sigmoid(forgetBias + f), h' = tanh(c') sigmoid(o).
  const basicLSTMCell = (forgetBias, lstmKernel, lstmBias, data, c, h) => tidy(() => {
    const what = 'tl.basicLSTMCell';
    const fb = floatOf(what, 'forgetBias', forgetBias), kernel = floatOf(what, 'lstmKernel', lstmKernel);
    const bias = floatOf(what, 'lstmBias', lstmBias), x = floatOf(what, 'data', data);
    const tc = floatOf(what, 'c', c), th = floatOf(what, 'h', h);
    for (const [name, t] of [['lstmKernel', kernel], ['data', x], ['c', tc], ['h', th]])
      if (t.rank !== 2) throw new ShapeError(`${what}: ${name} has rank ${t.rank}; expected rank 2`);
    const combined = tl.concat([x, th], 1);
    if (kernel.shape[0] !== combined.shape[1] || kernel.shape[1] % 4 !== 0)
      throw new ShapeError(`${what}: lstmKernel has shape [${kernel.shape}]; expected [${combined.shape[1]} (data and h columns), 4 * units]`);
    const gates = tl.add(tl.matMul(combined, kernel), bias);
    const units = kernel.shape[1] / 4;
    const [i, j, f, o] = [0, 1, 2, 3].map((k) => kit.sliceAxis(gates, 1, k * units, units));
    const newC = tl.add(tl.mul(tl.sigmoid(i), tl.tanh(j)), tl.mul(tc, tl.sigmoid(tl.add(fb, f))));
    const newH = tl.mul(tl.tanh(newC), tl.sigmoid(o));
    return [newC, newH];
  });

  // The cells one after another, each fed the h of the one before: [[c' per cell], [h' per cell]].
  const multiRNNCell = (lstmCells, data, c, h) => tidy(() => {
    const what = 'tl.multiRNNCell';
    if (!Array.isArray(lstmCells) || !lstmCells.every((cell) => typeof cell === 'function'))
      throw new InvalidArgument(`${what}: lstmCells is ${describeValue(lstmCells)}; expected an array of functions (data, c, h) => [c, h]`);
    for (const [name, list] of [['c', c], ['h', h]])
      if (!Array.isArray(list) || list.length !== lstmCells.length)
        throw new InvalidArgument(`${what}: ${name} is ${describeValue(list)}; expected an array of ${lstmCells.length} tensors (one per cell)`);
    let input = tensorOf(what, 'data', data);
    const newC = [], newH = [];
    lstmCells.forEach((cell, k) => {
      const out = cell(input, tensorOf(what, `c[${k}]`, c[k]), tensorOf(what, `h[${k}]`, h[k]));
      if (!Array.isArray(out) || out.length !== 2 || !out.every((t) => t instanceof Tensor))
        throw new InvalidArgument(`${what}: lstmCells[${k}] returned ${describeValue(out)}; expected [c, h], two tensors`);
      newC.push(out[0]);
      newH.push(out[1]);
      input = out[1];
    });
    return [newC, newH];
  });

  /** The parts of an einsum equation: {inputs: [labels per operand], output: labels}, checked as TF.js checks them. */
  const parseEquation = (what, equation, count) => {
    if (typeof equation !== 'string') throw new InvalidArgument(`${what}: equation is ${describeValue(equation)}; expected a string`);
    const text = equation.replace(/\s/g, '');
    const arrows = text.split('->').length - 1;
    if (arrows !== 1)
      throw new InvalidArgument(`${what}: equation '${equation}' has ${arrows} arrows; expected exactly one '->' (implicit output is not supported, as in TF.js)`);
    if (text.includes('...')) throw new InvalidArgument(`${what}: equation '${equation}' uses an ellipsis, which is not supported (as in TF.js)`);
    const [left, output] = text.split('->');
    const inputs = left.split(',');
    if (inputs.length !== count) throw new InvalidArgument(`${what}: equation '${equation}' has ${inputs.length} operands; got ${count} tensors`);
    if (count > 2) throw new InvalidArgument(`${what}: ${count} operands; at most 2 are supported (as in TF.js)`);
    for (const term of [...inputs, output]) {
      if (!/^[a-zA-Z]*$/.test(term)) throw new InvalidArgument(`${what}: equation '${equation}': '${term}' has a character that is not a letter`);
      if (new Set(term).size !== term.length)
        throw new InvalidArgument(`${what}: equation '${equation}': '${term}' has a label twice; repeated labels in one term are not supported (as in TF.js)`);
    }
    for (const label of output)
      if (!inputs.some((term) => term.includes(label)))
        throw new InvalidArgument(`${what}: equation '${equation}': the output label ${label} is in no operand`);
    return { inputs, output };
  };

  const einsum = (equation, ...tensors) => tidy(() => {
    const what = 'tl.einsum';
    const { inputs, output } = parseEquation(what, equation, tensors.length);
    let xs = tensors.map((t, k) => tensorOf(what, `tensors[${k}]`, t));
    if (xs.some((x) => x.dtype === 'bool')) throw new DTypeError(`${what}: a bool operand; expected float32 or int32`);
    if (xs.some((x) => x.dtype === 'float32')) xs = xs.map((x) => (x.dtype === 'float32' ? x : tl.cast(x, 'float32')));
    const sizes = new Map();
    xs.forEach((x, k) => {
      const shape = known(what, x);
      if (shape.length !== inputs[k].length)
        throw new ShapeError(`${what}: operand ${k} has rank ${shape.length}; '${inputs[k]}' names ${inputs[k].length} dims`);
      [...inputs[k]].forEach((label, axis) => {
        if (sizes.has(label) && sizes.get(label) !== shape[axis])
          throw new ShapeError(`${what}: label ${label} is ${sizes.get(label)} and ${shape[axis]} (axis ${axis} of operand ${k}, shape [${shape}])`);
        sizes.set(label, shape[axis]);
      });
    });
    // Each operand with the labels no other term has summed out.
    const terms = xs.map((x, k) => {
      const others = [output, ...inputs.filter((_, m) => m !== k)].join('');
      const labels = [...inputs[k]];
      const alone = labels.map((l, axis) => (others.includes(l) ? -1 : axis)).filter((axis) => axis >= 0);
      return { x: alone.length ? tl.sum(x, alone) : x, labels: labels.filter((l) => others.includes(l)) };
    });
    const arrange = (term, order) => {
      const perm = order.map((l) => term.labels.indexOf(l));
      return perm.every((p, i) => p === i) ? term.x : tl.transpose(term.x, perm);
    };
    const size = (labels) => labels.reduce((n, l) => n * sizes.get(l), 1);
    let result, labels;
    if (terms.length === 1) {
      [result, labels] = [terms[0].x, terms[0].labels];
    } else {
      const [a, b] = terms;
      const batch = a.labels.filter((l) => b.labels.includes(l) && output.includes(l));
      const contracted = a.labels.filter((l) => b.labels.includes(l) && !output.includes(l));
      const freeA = a.labels.filter((l) => !b.labels.includes(l)), freeB = b.labels.filter((l) => !a.labels.includes(l));
      const [nb, m, k, n] = [batch, freeA, contracted, freeB].map(size);
      const left = tl.reshape(arrange(a, [...batch, ...freeA, ...contracted]), [nb, m, k]);
      const right = tl.reshape(arrange(b, [...batch, ...contracted, ...freeB]), [nb, k, n]);
      // int32 has no matMul kernel: the products summed over the contracted axis.
      const product = left.dtype === 'float32' ? tl.matMul(left, right)
        : tl.sum(tl.mul(tl.reshape(left, [nb, m, k, 1]), tl.reshape(right, [nb, 1, k, n])), 2);
      labels = [...batch, ...freeA, ...freeB];
      result = tl.reshape(product, labels.map((l) => sizes.get(l)));
    }
    const y = arrange({ x: result, labels }, [...output]);
    return xs.includes(y) ? tl.op('identity', [y]) : y;
  });

  // signal.frame: frames of frameLength every frameStep along a 1-D signal (one gather); with padEnd, the frames
  // that start inside the signal and run past its end too, padded with padValue.
  const frame = (signal, frameLength, frameStep, padEnd = false, padValue = 0) => tidy(() => {
    const what = 'tl.signal.frame', x = tensorOf(what, 'signal', signal);
    if (x.rank !== 1) throw new ShapeError(`${what}: signal has rank ${x.rank}; expected rank 1`);
    const length = toInteger(frameLength, { what, root: 'frameLength', min: 1 });
    const step = toInteger(frameStep, { what, root: 'frameStep', min: 1 });
    if (typeof padEnd !== 'boolean') throw new InvalidArgument(`${what}: padEnd is ${describeValue(padEnd)}; expected a boolean`);
    const value = numberOf(what, 'padValue', padValue);
    const n = known(what, x)[0];
    const frames = padEnd ? Math.ceil(n / step) : n >= length ? Math.floor((n - length) / step) + 1 : 0;
    if (frames === 0) return tl.zeros([0, length], 'float32');  // TF.js' empty result is float32
    const end = (frames - 1) * step + length;
    const padded = end > n ? tl.op('pad', [x], { paddings: [0, end - n], constant_value: value }) : x;
    const indices = Int32Array.from({ length: frames * length }, (_, q) => Math.floor(q / length) * step + (q % length));
    return tl.gather(padded, tl.tensor(indices, [frames, length], 'int32'));
  });

  // a - b cos(2 pi i / (N - 1)) for odd N, / N for even N (TF.js' cosineWindow: periodic for an even length).
  const cosineWindow = (windowLength, a, b) => {
    const what = 'tl.cosineWindow';
    const n = toInteger(windowLength, { what, root: 'windowLength', min: 0 });
    numberOf(what, 'a', a);
    numberOf(what, 'b', b);
    const even = 1 - (n % 2), values = new Float32Array(n);
    for (let i = 0; i < n; ++i) values[i] = a - b * Math.cos((2 * Math.PI * i) / (n + even - 1));
    return tl.tensor(values, [n], 'float32');
  };

  // 2^N for the least integer N with 2^N >= value.
  const enclosingPowerOfTwo = (value) => {
    const v = numberOf('tl.enclosingPowerOfTwo', 'value', value);
    if (!(v > 0)) throw new InvalidArgument(`tl.enclosingPowerOfTwo: value is ${v}; expected a positive number`);
    return Math.floor(Math.pow(2, Math.ceil(Math.log(v) / Math.log(2))));
  };

  // x.bytes(): the bytes of the values' typed array (4 per float32 or int32, 1 per bool), as TF.js gives them.
  const bytes = async (x) => {
    if (x instanceof Tensor) x.checkAlive('x.bytes');
    const values = tensorOf('x.bytes', 'x', x).dataSync();
    return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  };
  const throwIfDisposed = (x) => {
    if (x instanceof Tensor) x.checkAlive('x.throwIfDisposed');
    else tensorOf('x.throwIfDisposed', 'x', x);
  };

  return {
    batchNorm2d: { fn: batchNormOfRank(2), method: false },
    batchNorm3d: { fn: batchNormOfRank(3), method: false },
    batchNorm4d: { fn: batchNormOfRank(4), method: false },
    movingAverage: { fn: movingAverage, method: false },
    basicLSTMCell: { fn: basicLSTMCell, method: false },
    multiRNNCell: { fn: multiRNNCell, method: false },
    einsum: { fn: einsum, method: false },
    'signal.frame': { fn: frame, method: false },
    'signal.hammingWindow': { fn: (windowLength) => cosineWindow(windowLength, 0.54, 0.46), method: false },
    'signal.hannWindow': { fn: (windowLength) => cosineWindow(windowLength, 0.5, 0.5), method: false },
    cosineWindow: { fn: cosineWindow, method: false },
    enclosingPowerOfTwo: { fn: enclosingPowerOfTwo, method: false },
    bytes: { method: bytes },
    throwIfDisposed: { method: throwIfDisposed },
  };
}
