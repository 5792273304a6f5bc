// TF.js functions: the creation group (see GROUPS in wasm/js/tfjs_ops.mjs). Tensors made from JS values (clone,
// eye, tensor5d, tensor6d, buffer and the TensorBuffer of x.buffer()) and random draws.
//
// Draws: randomStandardNormal and randomUniformInt are tl.randomNormal and tl.randomUniform; truncatedNormal and
// randomGamma take their numbers from a small generator (mulberry32) started by one draw of tl.randomUniform, so a
// seed makes them repeatable and, without one, they follow tl.randomUniform's stream. As tl.randomUniform's, their
// values are made in JavaScript: inside a tl.function they are drawn once, at trace time. multinomial is ops on the
// logits (softmax, cumsum, a comparison with uniform draws), so it traces with them.
import { InvalidArgument, ShapeError, DTypeError } from '../errors.mjs';
import { Tensor } from '../tensor.mjs';
import { describeValue, toDtype, toInteger, toShape } from '../values.mjs';

const TYPED = { float32: Float32Array, int32: Int32Array, bool: Uint8Array };

/** The strides of a shape as TF.js' TensorBuffer has them: one per dim but the last (in elements). */
const stridesOf = (shape) => {
  const strides = new Array(Math.max(shape.length - 1, 0));
  for (let i = shape.length - 2, s = 1; i >= 0; --i) strides[i] = s *= shape[i + 1];
  return strides;
};

/**
 * TF.js' TensorBuffer: a mutable typed array of a shape (tl.buffer, x.buffer(), x.bufferSync()); set / get by
 * coordinates, toTensor() makes a tensor of the values.
 */
export class TensorBuffer {
  #tl;  // the API whose tensors toTensor makes (private: the fields are TF.js' own, in its order)
  constructor(tl, shape, dtype, values) {
    this.#tl = tl;
    this.dtype = dtype;
    this.shape = shape.slice();
    this.size = shape.reduce((a, d) => a * d, 1);
    this.values = values ?? new TYPED[dtype](this.size);
    this.strides = stridesOf(shape);
  }
  get rank() { return this.shape.length; }
  /** The flat index of coordinates (one per dim; none for a scalar), each checked against its dim. */
  locToIndex(locs) {
    if (locs.length === 0 && this.rank <= 1) locs = [0];
    if (locs.length !== Math.max(this.rank, 1))
      throw new InvalidArgument(`TensorBuffer: ${locs.length} coordinates for a buffer of rank ${this.rank}; expected ${this.rank}`);
    let index = 0;
    for (let i = 0; i < locs.length; ++i) {
      const loc = locs[i], size = this.rank === 0 ? 1 : this.shape[i];
      if (!Number.isInteger(loc) || loc < 0 || loc >= size)
        throw new InvalidArgument(`TensorBuffer: coordinate ${i} is ${describeValue(loc)}; expected an integer in [0, ${size}) ` +
                                  `(shape [${this.shape}])`);
      index += i < this.strides.length ? loc * this.strides[i] : loc;
    }
    return index;
  }
  /** The coordinates of a flat index. */
  indexToLoc(index) {
    if (this.rank === 0) return [];
    const locs = new Array(this.rank);
    for (let i = 0; i < this.rank - 1; ++i) {
      locs[i] = Math.floor(index / this.strides[i]);
      index -= locs[i] * this.strides[i];
    }
    locs[this.rank - 1] = index;
    return locs;
  }
  /** Sets the value at the coordinates locs. */
  set(value, ...locs) {
    this.values[this.locToIndex(locs)] = value;
  }
  /** The value at the coordinates locs. */
  get(...locs) {
    return this.values[this.locToIndex(locs)];
  }
  /** A new tensor of the values. */
  toTensor() {
    return this.#tl.tensor(this.values, this.shape, this.dtype);
  }
}

/** {name: {fn, method}} for tl and the Tensor methods; `kit` is tfjs_ops.mjs' helpers. */
export function makeCreationOps(tl, kit) {
  const { tensorOf, floatOf, numberOf, tidy, sliceAxis } = kit;

  const seedOf = (what, seed) => {
    if (seed === undefined || seed === null) return undefined;
    if (!Number.isSafeInteger(seed)) throw new InvalidArgument(`${what}: seed is ${describeValue(seed)}; expected an integer`);
    return seed;
  };
  const drawnDtype = (what, dtype) => {
    const d = toDtype(dtype ?? 'float32', { what });
    if (d === 'bool') throw new DTypeError(`${what}: dtype is 'bool'; expected 'float32' or 'int32'`);
    return d;
  };
  // Uniform doubles in [0, 1) and standard normals from a mulberry32 generator started by one draw of
  // tl.randomUniform (with the seed when given).
  const generator = (what, seed) => {
    const start = tl.randomUniform([1], 0, 2 ** 31, 'int32', seedOf(what, seed));
    let state = start.dataSync()[0];
    start.dispose();
    const uniform = () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    // Marsaglia's polar method, as TF.js draws normals; the second value of a pair is kept for the next call.
    let spare = null;
    const normal = () => {
      if (spare !== null) {
        const value = spare;
        spare = null;
        return value;
      }
      let v1, v2, s;
      do {
        v1 = 2 * uniform() - 1;
        v2 = 2 * uniform() - 1;
        s = v1 * v1 + v2 * v2;
      } while (s >= 1 || s === 0);
      const factor = Math.sqrt(-2 * Math.log(s) / s);
      spare = v2 * factor;
      return v1 * factor;
    };
    return { uniform, normal };
  };
  /** A tensor of `shape` and `dtype` whose values are next() each (int32: rounded, as TF.js rounds them). */
  const drawn = (what, shape, dtype, next) => {
    const dims = toShape(shape, { what });
    const size = dims.reduce((a, d) => a * d, 1);
    const values = new TYPED[dtype](size);
    for (let i = 0; i < size; ++i) values[i] = dtype === 'int32' ? Math.round(next()) : next();
    return tl.tensor(values, dims, dtype);
  };

  const clone = (value) => tidy(() => tl.op('identity', [tensorOf('tl.clone', 'x', value)]));

  const eye = (numRows, numColumns, batchShape, dtype = 'float32') => tidy(() => {
    const what = 'tl.eye';
    const rows = toInteger(numRows, { what, root: 'numRows', min: 0 });
    const columns = numColumns === undefined || numColumns === null ? rows : toInteger(numColumns, { what, root: 'numColumns', min: 0 });
    const d = toDtype(dtype ?? 'float32', { what });
    let batch = [];
    if (batchShape !== undefined && batchShape !== null) {
      batch = toShape(batchShape, { what, root: 'batchShape' });
      if (batch.length < 1 || batch.length > 3)
        throw new InvalidArgument(`${what}: batchShape has ${batch.length} dims; expected 1, 2 or 3`);
    }
    const diagonal = tl.equal(tl.reshape(tl.range(0, rows, 1, 'int32'), [rows, 1]), tl.reshape(tl.range(0, columns, 1, 'int32'), [1, columns]));
    const matrix = tl.cast(diagonal, d);
    return batch.length === 0 ? matrix : tl.broadcastTo(matrix, [...batch, rows, columns]);
  });

  // tensor5d and tensor6d: nested values of that rank, or flat values with a shape of that rank.
  const tensorOfRank = (rank) => (values, shape, dtype) => {
    const what = `tl.tensor${rank}d`;
    if (shape !== undefined && shape !== null && (!Array.isArray(shape) || shape.length !== rank))
      throw new ShapeError(`${what}: shape is ${describeValue(shape)}; expected ${rank} dims`);
    const flat = ArrayBuffer.isView(values) || (Array.isArray(values) && values.every((v) => !Array.isArray(v) && !ArrayBuffer.isView(v)));
    if (flat && (shape === undefined || shape === null)) throw new InvalidArgument(`${what}: flat values need a shape of ${rank} dims`);
    const t = tl.tensor(values, shape ?? undefined, dtype);
    if (t.rank !== rank) {
      t.dispose();
      throw new ShapeError(`${what}: values have rank ${t.rank}; expected ${rank}`);
    }
    return t;
  };

  const buffer = (shape, dtype = 'float32', values) => {
    const what = 'tl.buffer';
    const dims = toShape(shape, { what }), d = toDtype(dtype ?? 'float32', { what });
    const size = dims.reduce((a, n) => a * n, 1);
    if (values !== undefined && values !== null) {
      if (!Array.isArray(values) && !ArrayBuffer.isView(values))
        throw new InvalidArgument(`${what}: values is ${describeValue(values)}; expected a flat array or typed array`);
      if (values.length !== size)
        throw new ShapeError(`${what}: values has ${values.length} elements; shape [${dims}] holds ${size}`);
    }
    return new TensorBuffer(tl, dims, d, values ?? undefined);
  };
  const readable = (what, x) => {
    if (x instanceof Tensor) x.checkAlive(what);
    return tensorOf(what, 'x', x);
  };
  const bufferOf = (what) => (x) => {
    const t = readable(what, x);
    return new TensorBuffer(tl, t.shape, t.dtype, t.dataSync());
  };
  const bufferSync = bufferOf('x.bufferSync');
  const bufferAsync = async (x) => bufferOf('x.buffer')(x);

  const truncatedNormal = (shape, mean = 0, stdDev = 1, dtype, seed) => {
    const what = 'tl.truncatedNormal', d = drawnDtype(what, dtype);
    const m = numberOf(what, 'mean', mean), s = numberOf(what, 'stdDev', stdDev);
    toShape(shape, { what });
    const { normal } = generator(what, seed);
    // A standard normal redrawn while it is more than 2 standard deviations from the mean.
    const truncated = () => {
      let z;
      do z = normal(); while (Math.abs(z) > 2);
      return m + s * z;
    };
    return drawn(what, shape, d, truncated);
  };

  const randomStandardNormal = (shape, dtype, seed) => {
    const what = 'tl.randomStandardNormal';
    return tl.randomNormal(shape, 0, 1, drawnDtype(what, dtype), seedOf(what, seed));
  };

  const randomUniformInt = (shape, minval, maxval, seed) => {
    const what = 'tl.randomUniformInt';
    const lo = toInteger(minval, { what, root: 'minval' }), hi = toInteger(maxval, { what, root: 'maxval' });
    if (hi <= lo) throw new InvalidArgument(`${what}: maxval ${hi} is not above minval ${lo}; draws are in [minval, maxval)`);
    return tl.randomUniform(shape, lo, hi, 'int32', seedOf(what, seed));
  };

  const rand = (shape, randFunction, dtype) => {
    const what = 'tl.rand', d = toDtype(dtype ?? 'float32', { what });
    if (typeof randFunction !== 'function') throw new InvalidArgument(`${what}: randFunction is ${describeValue(randFunction)}; expected a function`);
    const dims = toShape(shape, { what });
    // The typed array of the dtype converts each value as TF.js' does (Int32Array truncates).
    const values = new TYPED[d](dims.reduce((a, n) => a * n, 1));
    for (let i = 0; i < values.length; ++i) {
      const v = randFunction();
      if (typeof v !== 'number' && typeof v !== 'boolean') throw new InvalidArgument(`${what}: randFunction returned ${describeValue(v)}; expected a number`);
      values[i] = v;
    }
    return tl.tensor(values, dims, d);
  };

  // Marsaglia and Tsang (2000), "A Simple Method for Generating Gamma Variables", as TF.js' RandGamma: for alpha < 1
  // a draw of alpha + 1 times u^(1 / alpha). beta is the rate: the result is scaled by 1 / beta.
  const randomGamma = (shape, alpha, beta = 1, dtype = 'float32', seed) => {
    const what = 'tl.randomGamma', d = drawnDtype(what, dtype);
    const a = numberOf(what, 'alpha', alpha), b = numberOf(what, 'beta', beta ?? 1);
    if (!(a > 0)) throw new InvalidArgument(`${what}: alpha is ${a}; expected a positive number`);
    if (!(b > 0)) throw new InvalidArgument(`${what}: beta is ${b}; expected a positive number`);
    toShape(shape, { what });
    const { uniform, normal } = generator(what, seed);
    const dd = a < 1 ? a + 2 / 3 : a - 1 / 3, c = 1 / Math.sqrt(9 * dd);
    const gamma = () => {
      let v;
      for (;;) {
        let x;
        do {
          x = normal();
          v = 1 + c * x;
        } while (v <= 0);
        v = v * v * v;
        const x2 = x * x, u = uniform();
        if (u < 1 - 0.331 * x2 * x2 || Math.log(u) < 0.5 * x2 + dd * (1 - v + Math.log(v))) break;
      }
      let value = dd * v / b;
      if (a < 1) value *= Math.pow(uniform(), 1 / a);
      return value;
    };
    return drawn(what, shape, d, gamma);
  };

  // Sample k of row r is the first event whose cumulative probability exceeds a uniform draw u[r, k] (the last
  // event when none does): the number of the first n - 1 cumulative probabilities at or below u.
  const multinomial = (logits, numSamples, seed, normalized = false) => tidy(() => {
    const what = 'tl.multinomial', x = floatOf(what, 'logits', logits);
    if (x.rank !== 1 && x.rank !== 2) throw new ShapeError(`${what}: logits have rank ${x.rank}; expected rank 1 or 2`);
    if (x.size < 2) throw new InvalidArgument(`${what}: logits have ${x.size} outcomes; expected at least 2`);
    const samples = toInteger(numSamples, { what, root: 'numSamples', min: 0 });
    if (typeof normalized !== 'boolean') throw new InvalidArgument(`${what}: normalized is ${describeValue(normalized)}; expected a boolean`);
    const rows = x.rank === 1 ? tl.reshape(x, [1, -1]) : x;
    const [batch, events] = kit.known(what, rows);
    const probabilities = normalized ? rows : tl.softmax(rows);
    const cumulative = tl.cumsum(sliceAxis(probabilities, 1, 0, events - 1), 1);
    const u = tl.randomUniform([batch, samples], 0, 1, 'float32', seedOf(what, seed));
    const below = tl.lessEqual(tl.expandDims(cumulative, 1), tl.expandDims(u, 2));
    const result = tl.sum(tl.cast(below, 'int32'), 2);
    return x.rank === 1 ? tl.reshape(result, [samples]) : result;
  });

  return {
    clone: { fn: clone, method: true },
    eye: { fn: eye, method: false },
    tensor5d: { fn: tensorOfRank(5), method: false },
    tensor6d: { fn: tensorOfRank(6), method: false },
    buffer: { fn: buffer, method: bufferAsync },
    bufferSync: { method: bufferSync },
    truncatedNormal: { fn: truncatedNormal, method: false },
    randomStandardNormal: { fn: randomStandardNormal, method: false },
    randomUniformInt: { fn: randomUniformInt, method: false },
    rand: { fn: rand, method: false },
    randomGamma: { fn: randomGamma, method: false },
    multinomial: { fn: multinomial, method: false },
  };
}
