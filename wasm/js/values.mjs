// The one conversion of a JavaScript value to a tensor's data: tl.tensor, tl.scalar and every op argument,
// variable value, loss input and dataset element that is not already a tensor come through toTensorData. It
// either converts as TF.js documents for tf.tensor or throws an Error subclass naming the caller, the offending
// value's path (values[1][0]) and what was expected:
//   numbers, booleans          a scalar; the first leaf decides the inferred dtype (a boolean: bool, else float32)
//                              and the two may mix, as in TF.js (true is 1 in a float32 tensor, 2 is true in a bool one)
//   nested arrays              one dim per level; every element of a level must have the same length
//   typed arrays               a vector, also as the innermost level of nested arrays; Int32Array, Uint8Array and
//                              Uint8ClampedArray make int32 tensors, the other kinds float32 (TF.js' inference)
//   a dtype given              the values convert to it: booleans are 1 / 0, numbers are bools by `!== 0`; an int32
//                              value must be an integer in int32's range (TF refuses 2.5 as an int32; a truncation
//                              would be a silent wrong answer)
// Strings (Tracelab has no string dtype), BigInts, null, undefined, objects, functions, tensors inside arrays and
// ragged nesting are errors.
import { DTypeError, InvalidArgument, ShapeError } from './errors.mjs';
import { isVariable, Tensor } from './tensor.mjs';

/** The typed arrays TF.js makes int32 tensors of; other (non-BigInt) typed arrays make float32 ones. */
const INT32_ARRAYS = [Int32Array, Uint8Array, Uint8ClampedArray];
const DTYPES = ['float32', 'int32', 'bool'];
const INT32_MIN = -(2 ** 31), INT32_MAX = 2 ** 31 - 1;

const isTypedArray = (value) => ArrayBuffer.isView(value) && !(value instanceof DataView);
const isBigIntArray = (value) => value instanceof BigInt64Array || value instanceof BigUint64Array;

/** How an error message names a value: "the string 'a'", "the BigInt 1n", "null", "an object". */
export function describeValue(value) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'undefined': return 'undefined';
    case 'string': return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)
      .replace(/^"|"$/g, "'")}`;
    case 'bigint': return `the BigInt ${value}n`;
    case 'number': return `the number ${value}`;
    case 'boolean': return `the boolean ${value}`;
    case 'function': return 'a function';
    case 'symbol': return 'a symbol';
    default: break;
  }
  if (value instanceof Tensor) return isVariable(value) ? `the tl.Variable '${value.name}'` : 'a tl.Tensor';
  if (Array.isArray(value)) return `an array of ${value.length} element${value.length === 1 ? '' : 's'}`;
  if (isTypedArray(value)) return `a ${value.constructor.name} of ${value.length} element${value.length === 1 ? '' : 's'}`;
  const name = value?.constructor?.name;
  return name && name !== 'Object' ? `a ${name}` : 'an object';
}

/** True for what toTensorData may accept at the top: a number, a boolean, an array or a typed array. */
export function isTensorLike(value) {
  return typeof value === 'number' || typeof value === 'boolean' || Array.isArray(value) || isTypedArray(value);
}

/** The dtype TF.js infers for values: the first leaf decides (bool for a boolean), typed arrays by their kind. */
export function inferDtype(values) {
  let v = values;
  while (Array.isArray(v) && v.length > 0) v = v[0];
  if (typeof v === 'boolean') return 'bool';
  if (isTypedArray(v)) return INT32_ARRAYS.some((Kind) => v instanceof Kind) ? 'int32' : 'float32';
  return 'float32';
}

/**
 * Converts `values` (see the file comment) into {data, dims, dtype}: `data` a Float32Array, Int32Array or Uint8Array
 * (bool) of the flattened values, `dims` the nesting's shape. `dtype` undefined infers it. Errors begin with
 * `what` ("tl.tensor") and name positions from `root` ("values"); `single`: a scalar is expected (toScalarData).
 */
export function toTensorData(values, dtype, { what = 'tl.tensor', root = 'values', single = false } = {}) {
  const target = toDtype(dtype ?? inferDtype(values), { what });
  const dims = dimsOf(values);
  const size = dims.reduce((a, b) => a * b, 1);
  const data = target === 'float32' ? new Float32Array(size) : target === 'int32' ? new Int32Array(size) : new Uint8Array(size);
  let next = 0;
  const fail = (Class, text) => { throw new Class(`${what}: ${text}`); };
  const store = (value, path) => {
    if (typeof value === 'boolean') data[next++] = value ? 1 : 0;
    else if (typeof value === 'number') data[next++] = leafNumber(value, target, path, fail);
    else leafError(value, path, fail, path === root && !single);
  };
  // Walks level `depth` of the nesting at `path`, checking it against `dims` (made from the first elements).
  const walk = (value, path, depth) => {
    if (depth === dims.length) {
      if (Array.isArray(value) || isTypedArray(value))
        fail(ShapeError, `${path} is ${describeValue(value)} where ${firstPath(root, depth)} is a single value ` +
                         '(ragged nesting; use equal lengths)');
      store(value, path);
      return;
    }
    if (isBigIntArray(value))
      fail(DTypeError, `${path} is a ${value.constructor.name}; expected numbers (convert it with Array.from(${path}, Number), ` +
                       'exact up to 2^53)');
    if (!Array.isArray(value) && !isTypedArray(value)) {
      if (typeof value === 'number' || typeof value === 'boolean')
        fail(ShapeError, `${path} is ${describeValue(value)} where ${firstPath(root, depth)} has ${dims[depth]} ` +
                         `element${dims[depth] === 1 ? '' : 's'} (ragged nesting; use equal lengths)`);
      leafError(value, path, fail, path === root);
    }
    if (value.length !== dims[depth])
      fail(ShapeError, `${path} has ${value.length} element${value.length === 1 ? '' : 's'} where ` +
                       `${firstPath(root, depth)} has ${dims[depth]} (ragged nesting; use equal lengths)`);
    if (isTypedArray(value) && depth === dims.length - 1) {
      if (target === 'float32' || (target === 'int32' && value instanceof Int32Array)) {
        data.set(value, next);  // exact (float32 rounds as Math.fround does), one copy
        next += value.length;
      } else {
        for (let i = 0; i < value.length; ++i) data[next++] = leafNumber(Number(value[i]), target, `${path}[${i}]`, fail);
      }
      return;
    }
    const leaves = depth === dims.length - 1 && target === 'float32';
    for (let i = 0; i < value.length; ++i) {
      const element = value[i];
      if (leaves && typeof element === 'number') data[next++] = element;  // the common case, no path string made
      else walk(element, `${path}[${i}]`, depth + 1);
    }
  };
  walk(values, root, 0);
  return { data, dims, dtype: target };
}

/** toTensorData for a single value (tl.scalar, tl.fill): an array or typed array is an InvalidArgument. */
export function toScalarData(value, dtype, { what, root = 'value' }) {
  if (Array.isArray(value) || isTypedArray(value))
    throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected a number or boolean`);
  return toTensorData(value, dtype, { what, root, single: true });
}

/** The shape the first elements make: [2, 3] for [[1, 2, 3], ...]; a typed array ends the nesting. */
function dimsOf(values) {
  const dims = [];
  let v = values;
  while (Array.isArray(v) || isTypedArray(v)) {
    dims.push(v.length);
    if (isTypedArray(v) || v.length === 0) break;
    v = v[0];
  }
  return dims;
}

/** values[0][0] for depth 2: where the nesting's expected lengths were read. */
const firstPath = (root, depth) => root + '[0]'.repeat(depth);

function leafNumber(value, dtype, path, fail) {
  if (dtype === 'bool') return value !== 0 ? 1 : 0;
  if (dtype === 'int32' && !(Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX))
    fail(InvalidArgument, `${path} is ${describeValue(value)}; an int32 tensor holds integers in [${INT32_MIN}, ${INT32_MAX}]`);
  return value;
}

/** Throws for a value that is not a number or boolean at `path` (`top`: the whole value, not an element). */
function leafError(value, path, fail, top) {
  const expected = top ? 'a number, a boolean, an array or a typed array' : 'a number or boolean';
  if (typeof value === 'string')
    fail(DTypeError, `${path} is ${describeValue(value)}; expected ${expected} (Tracelab has no string dtype)`);
  if (typeof value === 'bigint')
    fail(DTypeError, `${path} is ${describeValue(value)}; expected ${expected} (convert it with Number(${value}n), ` +
                     'exact up to 2^53)');
  if (value instanceof Tensor)
    fail(InvalidArgument, `${path} is a tl.Tensor; expected ${expected} ` +
                          `(${top ? 'it is a tensor already' : 'tl.stack makes one tensor of several'})`);
  fail(InvalidArgument, `${path} is ${describeValue(value)}; expected ${expected}`);
}

// ---- shapes, dtypes, axes and options objects: the same rules for every API that takes them ----

/** What a dtype that is not Tracelab's is called instead, for the error's hint. */
const DTYPE_HINTS = {
  float64: "Tracelab computes in float32: use 'float32'",
  float16: "use 'float32'",
  int64: "use 'int32'",
  string: 'Tracelab has no string dtype',
  complex64: 'Tracelab has no complex dtype',
};

/** `dtype` checked: 'float32', 'int32' or 'bool', else an InvalidArgument naming `what` and `root`. */
export function toDtype(dtype, { what, root = 'dtype' }) {
  if (DTYPES.includes(dtype)) return dtype;
  const hint = typeof dtype === 'string' && DTYPE_HINTS[dtype] ? ` (${DTYPE_HINTS[dtype]})` : '';
  throw new InvalidArgument(`${what}: ${root} is ${describeValue(dtype)}; expected ${DTYPES.map((d) => `'${d}'`).join(', ')}${hint}`);
}

/**
 * `shape` checked: an array of non-negative integers, each naming its path (shape[1] is the number 1.5); with
 * `unknown`, null and -1 stand for any size (TensorSpecs, padded shapes) and come back as -1.
 */
export function toShape(shape, { what, root = 'shape', unknown = false }) {
  const expected = unknown ? 'a non-negative integer, or null / -1 for any size' : 'a non-negative integer';
  if (!Array.isArray(shape) && !isTypedArray(shape))
    throw new InvalidArgument(`${what}: ${root} is ${describeValue(shape)}; expected an array of dims (each ${expected})`);
  return Array.from(shape, (d, i) => {
    if (unknown && (d === null || d === -1)) return -1;
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 0 || d >= 2 ** 63) {
      const bound = d >= 2 ** 63 ? ' (below 2^63: the core counts dims in int64)' : '';
      throw new InvalidArgument(`${what}: ${root}[${i}] is ${describeValue(d)}; expected ${expected}${bound}`);
    }
    return d;
  });
}

/** An integer argument (an axis, a count): `min` bounds it below; an InvalidArgument naming `what` and `root` else. */
export function toInteger(value, { what, root, min = -Infinity }) {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return value;
  const expected = min === -Infinity ? 'an integer' : min === 0 ? 'a non-negative integer' : min === 1 ? 'a positive integer'
    : `an integer >= ${min}`;
  throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected ${expected}`);
}

/**
 * A copy of an array's elements, each checked as toInteger (>= min); an element's name in an error is root[i], built
 * only then.
 */
export function integers(array, what, root, min) {
  const out = new Array(array.length);
  for (let i = 0; i < array.length; ++i) {
    const v = array[i];
    out[i] = Number.isSafeInteger(v) && v >= min ? v : toInteger(v, { what, root: `${root}[${i}]`, min });
  }
  return out;
}

/** One axis or several (an integer or an array of integers; undefined / null: none), each checked as toInteger. */
export function toAxes(axis, { what, root = 'axis' }) {
  if (axis === undefined || axis === null) return [];
  if (!Array.isArray(axis)) return [toInteger(axis, { what, root })];
  return integers(axis, what, root, -Infinity);
}

/**
 * The checks an options object's values get (checkOptions): a kind below, an array [kind] of such values, or a
 * function (value) returning null when it is fine, else what was expected.
 */
const OPTION_KINDS = {
  boolean: (v) => (typeof v === 'boolean' ? null : 'a boolean'),
  string: (v) => (typeof v === 'string' ? null : 'a string'),
  function: (v) => (typeof v === 'function' ? null : 'a function'),
  number: (v) => (typeof v === 'number' && !Number.isNaN(v) ? null : 'a number'),
  integer: (v) => (Number.isSafeInteger(v) ? null : 'an integer'),
  count: (v) => (Number.isSafeInteger(v) && v >= 0 ? null : 'a non-negative integer'),
  any: () => null,
};

/**
 * Checks an options object against `accepted` ({name: kind}, see OPTION_KINDS) and returns it (undefined: {}).
 * Not an object, an option that is not accepted (a misspelt one names the closest accepted name) or a value of the
 * wrong kind is an InvalidArgument naming `what`, the option's path and what is accepted: an unknown option is never
 * ignored, since it would silently leave a setting at its default. An option given as undefined counts as not given.
 */
export function checkOptions(options, accepted, { what, root = 'options' }) {
  if (options === undefined) return {};
  const names = Object.keys(accepted);
  const list = names.length > 0 ? names.join(', ') : 'none';
  if (options === null || typeof options !== 'object' || Array.isArray(options) || options instanceof Tensor)
    throw new InvalidArgument(`${what}: ${root} is ${describeValue(options)}; expected an object (accepted options: ${list})`);
  for (const name of Object.keys(options)) {  // unknown names first: a misspelt one matters more than a bad value
    if (Object.hasOwn(accepted, name)) continue;
    const near = closest(name, names);
    throw new InvalidArgument(`${what}: unknown option '${name}' in ${root}${near ? ` (did you mean '${near}'?)` : ''}; ` +
                              `accepted options: ${list}`);
  }
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const kind = accepted[name];
    const path = `${root}.${name}`;
    const fail = (at, v, expected) => { throw new InvalidArgument(`${what}: ${at} is ${describeValue(v)}; expected ${expected}`); };
    if (Array.isArray(kind)) {  // [kind]: an array of such values, each checked at its own path
      const check = OPTION_KINDS[kind[0]];
      if (!Array.isArray(value)) fail(path, value, `an array (each element ${check(undefined)})`);
      value.forEach((v, i) => { const expected = check(v); if (expected !== null) fail(`${path}[${i}]`, v, expected); });
      continue;
    }
    const expected = (typeof kind === 'function' ? kind : OPTION_KINDS[kind])(value);
    if (expected !== null) fail(path, value, expected);
  }
  return options;
}

/** The accepted name within edit distance 2 of `name` (case ignored), or null. */
function closest(name, names) {
  let best = null, bestDistance = 3;
  for (const candidate of names) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; ++i) {
    const next = [i];
    for (let j = 1; j <= b.length; ++j)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
