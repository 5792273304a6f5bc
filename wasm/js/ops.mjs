// Ops in TF.js' spelling. Every registry op (but the structured ones, whose nodes hold sub-graphs: cond,
// while_loop, while_grad, dataset_loop, fused_elementwise) is callable by name (tl.op('reduce_sum', [x], {axes: [1]})) and as a
// camelCase function taking tensors then an optional attribute object (tl.ops.clipByValue(x, lo, hi)); the
// common ones also have TF.js' positional signatures (tl.sum(x, axis, keepDims), tl.matMul(a, b, tA, tB)), made
// from one table with the chainable methods (x.add(y).relu()) — the table engine.addOps extends. Numbers, arrays
// and typed arrays become tensors of the first tensor's dtype (wasm/js/values.mjs converts them, or says which
// element it cannot). Inputs of different dtypes in a binary op are promoted as TF.js promotes them (PROMOTED), a
// plain value counting with the dtype TF.js infers for it (a number: float32, so int32.add(1.5) is float32).
import { guardCall, InvalidArgument } from './errors.mjs';
import { allLiveTensors, DTYPE_CODE, isVariable as isAnyVariable, Tensor } from './tensor.mjs';
import { describeValue, inferDtype, integers, isTensorLike, toAxes, toDtype, toInteger, toShape } from './values.mjs';

const camel = (name) => name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

/**
 * The registry ops whose inputs at these positions are brought to one dtype in JavaScript before the core runs
 * them, as TF.js' makeTypesMatch does (upcastType: bool < int32 < float32): int32.add(float32) is a float32 add,
 * int32.less(float32) compares in float32. The core keeps TensorFlow's rule (equal dtypes or a DTypeError). Names the
 * registry lacks are TF.js' other promoting ops, promoted once they are registered.
 */
const PROMOTED = new Map([
  ...['add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'equal', 'not_equal', 'less', 'less_equal', 'greater',
      'greater_equal', 'matmul', 'mod', 'floor_div', 'squared_difference', 'atan2', 'div_no_nan']
    .map((name) => [name, [0, 1]]),
  ['where', [1, 2]],
]);

/** The dtypes in promotion order (TF.js' upcastType). */
const DTYPE_RANK = { bool: 0, int32: 1, float32: 2 };

/**
 * The names an op method may not take: Tensor's own members (its methods before any op method is added, and its
 * fields) and tl.Variable's, which would hide the method.
 */
const RESERVED = new Set([
  ...Object.getOwnPropertyNames(Tensor.prototype),
  'engine', 'id', 'shape', 'dtype', 'symbolic', 'isDisposed', 'kept', 'tracked', 'dataAddress', 'traceName',
  'name', 'trainable', 'read', 'assign', 'assignAdd', 'assignSub', 'update', 'check', 'withValue',
]);

/** Builds the op functions for one engine; `isVariable` tells which values are tl.Variables (read as tensors). */
export function makeOps(engine, makeTensor, isVariable) {
  const core = engine.core;
  // index: the op's place in opNames(), by which opCallStaged names it.
  // promoted: the input positions PROMOTED brings to one dtype (null: none).
  const infos = new Map(core.opNames().map((name, index) => {
    const info = core.opInfo(name);
    return [name, { ...info, index, attrIndex: new Map(info.attrs.map((a, k) => [a.name, k])),
                    promoted: PROMOTED.get(name) ?? null }];
  }));

  /**
   * A Tensor for any accepted input: a Tensor, a Variable (read now), or a number, boolean, (nested) array or typed
   * array converted by toTensorData (wasm/js/values.mjs) to `dtype`, or to the dtype it infers when undefined.
   */
  function toTensor(value, dtype, what) {
    if (isVariable(value)) return value.read();  // first: a Variable is a Tensor without a tensor handle
    if (value instanceof Tensor) {
      value.checkAlive(what);
      return value;
    }
    if (isTensorLike(value)) return makeTensor(value, undefined, dtype, { what, root: 'value' });
    throw new InvalidArgument(`${what}: expected a tensor (or a number, boolean, array or typed array), got ` +
                              describeValue(value));
  }

  /**
   * fn(convert, scoped): `convert(value, dtype, what)` is toTensor, and the tensors it makes (from plain values, or a
   * variable's read) are disposed when fn returns or throws — also when a later conversion fails; so are the
   * tensors `scoped(make)` makes (a cast of an input).
   */
  function withTensors(fn) {
    const made = [];
    // A tensor made here lands in `made` and is disposed below, so it never needs the FinalizationRegistry's
    // safety net.
    const scoped = (make) => {
      engine.scopes.push(made);
      try {
        return make();
      } finally {
        engine.scopes.pop();
      }
    };
    const convert = (value, dtype, what) => {
      if (value instanceof Tensor && !isAnyVariable(value)) return toTensor(value, dtype, what);
      return scoped(() => toTensor(value, dtype, what));
    };
    try {
      return fn(convert, scoped);
    } finally {
      engine.disposeAll(made);
    }
  }

  /**
   * Runs registry op `name`; returns one tensor, or an array when the op has several outputs. Inputs that are not
   * tensors are converted to `dtypes[i]` when given (gather's indices: int32), else to the first tensor's dtype, and
   * disposed after the call — also when a later input or the call fails. At PROMOTED positions all inputs take the
   * highest of their dtypes (promotedDtype: a plain value counts with the dtype TF.js infers for it, so a number is
   * float32 and int32.add(1.5) is a float32 add, as in TF.js); a tensor of a lower dtype there is cast. Variables are read.
   */
  function op(name, inputs, attrs = {}, dtypes = []) {
    const info = infos.get(name);
    if (!info) throw new InvalidArgument(`unknown op '${name}'`);
    if (info.subgraphs > 0)
      throw new InvalidArgument(`${name}: a structured op (each node holds ${info.subgraphs} sub-graph(s)); ` +
        'it is made by tl.cond, tl.whileLoop, a traced dataset loop or the graph optimizer, not called by name');
    if (!Array.isArray(inputs)) throw new InvalidArgument(`${name}: inputs must be an array`);
    const promoted = info.promoted;
    if (allLiveTensors(inputs) && (promoted === null || inputs[promoted[0]]?.dtype === inputs[promoted[1]]?.dtype))
      return staged(info, inputs, attrs);
    checkAttrs(name, info, attrs);
    const firstTensor = inputs.find((x) => x instanceof Tensor);
    const dtype = firstTensor ? firstTensor.dtype : undefined;
    const upcast = promoted === null ? undefined : promotedDtype(inputs, promoted, dtypes);
    return withTensors((convert, scoped) => staged(info, inputs.map((x, i) => {
      const what = `${name}: input ${i}`;
      if (promoted === null || !promoted.includes(i)) return convert(x, dtypes[i] ?? dtype, what);
      const t = convert(x, upcast, what);  // a plain value straight to the promoted dtype: TF.js' inference, then cast
      return t.dtype === upcast ? t : scoped(() => staged(castInfo, [t], { dtype: upcast }));
    }), attrs));
  }

  const castInfo = infos.get('cast');

  /**
   * The highest dtype (upcastType) of the inputs at `positions`, as TF.js' convertToTensor then makeTypesMatch make it:
   * a tensor's (or variable's) own dtype, a plain value's `dtypes[i]` when given, else the dtype TF.js infers for it
   * (inferDtype: a number or numeric array float32, a boolean bool, an Int32Array or Uint8Array int32). Undefined when
   * no input there is a tensor or a plain value (the conversion then names the bad input).
   */
  function promotedDtype(inputs, positions, dtypes) {
    let dtype;
    for (const i of positions) {
      const x = inputs[i];
      const own = x instanceof Tensor ? x.dtype : isTensorLike(x) ? dtypes[i] ?? inferDtype(x) : undefined;
      if (own !== undefined && (dtype === undefined || DTYPE_RANK[own] > DTYPE_RANK[dtype])) dtype = own;
    }
    return dtype;
  }

  /**
   * The op on live tensors: input handles and attributes (encoded as numbers when they are of their declared types,
   * else passed as the object for the core to check) through the staging area, one crossing.
   */
  function staged(info, inputs, attrs) {
    const n = inputs.length;
    const words = attrWords(info, attrs);
    if (words < 0) {  // an unknown name or a bad dtype throws here; other mismatches are the core's to name
      checkAttrs(info.name, info, attrs);
      return outputsOf(info, guardCall(core.opCallStagedObject, info.index, engine.stage(inputs), attrs));
    }
    const at = engine.reserve(n + words), heap = core.HEAPF64;
    for (let i = 0; i < n; ++i) heap[at + i] = inputs[i].id;
    if (words > 0) writeAttrs(info, attrs, heap, at + n);
    return outputsOf(info, guardCall(core.opCallStaged, info.index, n, words));
  }

  const outputsOf = (info, address) => (info.outputs === 1 ? engine.wrapResult(address) : engine.wrapResults(address));

  /**
   * How many numbers the attributes take in the staging area (decode_attrs in wasm/tensor_api.cpp): per attribute
   * its index in info.attrs, then bool 0/1 | int | float | dtype code | ints as a count and the values. -1 when an
   * attribute is unknown, a string or not of its declared type: the core then checks the object and names the problem.
   */
  function attrWords(info, attrs) {
    if (attrs === undefined || attrs === null) return 0;
    let words = 0;
    for (const key in attrs) {
      if (!Object.hasOwn(attrs, key)) continue;
      const k = info.attrIndex.get(key), value = attrs[key];
      if (k === undefined) return -1;
      switch (info.attrs[k].type) {
        case 'bool': if (typeof value !== 'boolean') return -1; words += 2; break;
        case 'int': if (!Number.isSafeInteger(value)) return -1; words += 2; break;
        case 'float': if (typeof value !== 'number') return -1; words += 2; break;
        case 'dtype': if (!Object.hasOwn(DTYPE_CODE, value)) return -1; words += 2; break;
        case 'ints':
          if (!Array.isArray(value)) return -1;
          for (let i = 0; i < value.length; ++i) if (!Number.isSafeInteger(value[i])) return -1;
          words += 2 + value.length;
          break;
        default: return -1;
      }
    }
    return words;
  }

  /** Writes the attributes attrWords accepted, from heap index `at`. */
  function writeAttrs(info, attrs, heap, at) {
    for (const key in attrs) {
      if (!Object.hasOwn(attrs, key)) continue;
      const k = info.attrIndex.get(key), value = attrs[key];
      heap[at++] = k;
      switch (info.attrs[k].type) {
        case 'bool': heap[at++] = value ? 1 : 0; break;
        case 'dtype': heap[at++] = DTYPE_CODE[value]; break;
        case 'ints':
          heap[at++] = value.length;
          for (let i = 0; i < value.length; ++i) heap[at++] = value[i];
          break;
        default: heap[at++] = value;
      }
    }
  }

  /**
   * An op's attributes: a plain object of the op's attribute names; an unknown name is an error listing the accepted
   * ones, never ignored. A dtype attribute is checked as every dtype is (toDtype); the other types and all values
   * are the core's to check, naming the op and the attribute.
   */
  function checkAttrs(name, info, attrs) {
    if (attrs === undefined || attrs === null) return;
    if (typeof attrs !== 'object' || Array.isArray(attrs) || attrs instanceof Tensor)
      throw new InvalidArgument(`${name}: attributes are ${describeValue(attrs)}; expected an object {name: value}`);
    let dtypes = false;
    for (const key in attrs) {  // unknown names first: a misspelt one matters more than a bad value
      if (!Object.hasOwn(attrs, key)) continue;
      const k = info.attrIndex.get(key);
      if (k === undefined) {
        const accepted = info.attrs.map((a) => a.name);
        throw new InvalidArgument(`${name}: unknown attribute '${key}'; accepted attributes: ${accepted.join(', ') || 'none'}`);
      }
      dtypes = dtypes || info.attrs[k].type === 'dtype';
    }
    if (!dtypes) return;
    for (const spec of info.attrs)
      if (spec.type === 'dtype' && attrs[spec.name] !== undefined) toDtype(attrs[spec.name], { what: name, root: `attribute '${spec.name}'` });
  }

  // tl.ops.<camelName>(...inputs, attrs?) for every registry op that is not structured.
  const ops = {};
  for (const [name, info] of infos) {
    if (info.subgraphs > 0) continue;
    ops[camel(name)] = (...args) => {
      const last = args[args.length - 1];
      const hasAttrs = args.length > 0 && last && typeof last === 'object' && last.constructor === Object;
      return op(name, hasAttrs ? args.slice(0, -1) : args, hasAttrs ? last : {});
    };
  }

  // TF.js' positional signatures for the common ops.
  const unary = ['neg', 'abs', 'exp', 'log', 'sqrt', 'square', 'relu', 'sigmoid', 'tanh', 'softmax', 'logicalNot',
                 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'asinh', 'acosh', 'atanh', 'erf', 'expm1',
                 'log1p', 'reciprocal', 'rsqrt', 'softplus', 'floor', 'ceil', 'round', 'sign'];
  const binary = ['add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'equal', 'notEqual', 'less', 'lessEqual',
                  'greater', 'greaterEqual', 'logicalAnd', 'logicalOr', 'logicalXor', 'atan2', 'mod', 'floorDiv',
                  'squaredDifference', 'divNoNan'];
  // The positional arguments are checked here, named as the caller wrote them (tl.sum: axis[1] is the string '0');
  // ranges (an axis beyond the rank, a size that does not fit) are the core's to check, naming the op.
  const axis = (what, value, root = 'axis') => toInteger(value, { what, root });
  const flag = (what, root, value) => {
    if (typeof value !== 'boolean') throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected a boolean`);
    return value;
  };
  const ints = (what, root, value, min) => {
    if (!Array.isArray(value)) throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected an array of integers`);
    return integers(value, what, root, min ?? -Infinity);
  };
  const tensorList = (what, value) => {
    if (!Array.isArray(value)) throw new InvalidArgument(`${what}: tensors is ${describeValue(value)}; expected an array of tensors`);
    return value;
  };
  const padding = (what, value) => {
    if (value !== 'valid' && value !== 'same' && value !== 'VALID' && value !== 'SAME')
      throw new InvalidArgument(`${what}: pad is ${describeValue(value)}; expected 'valid' or 'same'`);
    return value.toUpperCase();
  };
  const pair = (what, root, v) => {
    if (Array.isArray(v)) return ints(what, root, v, 1);
    const n = toInteger(v, { what, root, min: 1 });
    return [n, n];
  };
  const reduce = (name, what) => {
    const where = { what };
    return (x, axes, keepDims = false) => op(name, [x], { axes: toAxes(axes, where), keepdims: flag(what, 'keepDims', keepDims) });
  };
  // The functions with TF.js' positional signatures (the table below makes tl.<name> and the methods of them).
  const fns = {
    matMul: (a, b, transposeA = false, transposeB = false) =>
      op('matmul', [a, b], { transpose_a: flag('tl.matMul', 'transposeA', transposeA),
                             transpose_b: flag('tl.matMul', 'transposeB', transposeB) }),
    sum: reduce('reduce_sum', 'tl.sum'),
    mean: reduce('reduce_mean', 'tl.mean'),
    max: reduce('reduce_max', 'tl.max'),
    min: reduce('reduce_min', 'tl.min'),
    argMax: (x, a = 0) => op('argmax', [x], { axis: axis('tl.argMax', a) }),
    reshape: (x, shape) => op('reshape', [x], { shape: ints('tl.reshape', 'shape', shape, -1) }),
    transpose: (x, perm) => op('transpose', [x], perm === undefined || perm === null ? {} : { perm: ints('tl.transpose', 'perm', perm) }),
    expandDims: (x, a = 0) => op('expand_dims', [x], { axis: axis('tl.expandDims', a) }),
    squeeze: (x, a) => op('squeeze', [x], { axes: toAxes(a, { what: 'tl.squeeze' }) }),
    concat: (tensors, a = 0) => op('concat', tensorList('tl.concat', tensors), { axis: axis('tl.concat', a) }),
    stack: (tensors, a = 0) => op('stack', tensorList('tl.stack', tensors), { axis: axis('tl.stack', a) }),
    slice: (x, begin, size) => op('slice', [x], { begin: ints('tl.slice', 'begin', begin),
                                                   size: ints('tl.slice', 'size', size, -1) }),
    gather: (x, indices, a = 0) => op('gather', [x, indices], { axis: axis('tl.gather', a) }, [undefined, 'int32']),
    oneHot: (indices, depth, onValue = 1, offValue = 0) =>
      op('one_hot', [indices], { depth: toInteger(depth, { what: 'tl.oneHot', root: 'depth', min: 0 }),
                                 on_value: onValue, off_value: offValue }, ['int32']),
    cast: (x, dtype) => op('cast', [x], { dtype: toDtype(dtype, { what: 'tl.cast' }) }),
    broadcastTo: (x, shape) => op('broadcast_to', [x], { shape: toShape(shape, { what: 'tl.broadcastTo' }) }),
    where: (condition, a, b) => op('where', [condition, a, b]),
    clipByValue: (x, lo, hi) => op('clip_by_value', [x, lo, hi]),
    logSoftmax: (x, a = -1) => op('log_softmax', [x], { axis: axis('tl.logSoftmax', a) }),
    zerosLike: (x) => op('zeros_like', [x]),
    onesLike: (x) => op('ones_like', [x]),
    stopGradient: (x) => op('stop_gradient', [x]),
    conv2d: (x, filter, strides = 1, pad = 'valid') =>
      op('conv2d', [x, filter], { strides: pair('tl.conv2d', 'strides', strides), padding: padding('tl.conv2d', pad) }),
    maxPool: (x, filterSize, strides, pad = 'valid') => pool('max_pool2d', x, filterSize, strides, pad),
    avgPool: (x, filterSize, strides, pad = 'valid') => pool('avg_pool2d', x, filterSize, strides, pad),
  };
  function pool(name, x, filterSize, strides, pad) {
    const what = name === 'max_pool2d' ? 'tl.maxPool' : 'tl.avgPool';
    return op(name, [x], { ksize: pair(what, 'filterSize', filterSize), strides: pair(what, 'strides', strides ?? filterSize),
                           padding: padding(what, pad) });
  }
  // tf.debugging's assertions (TF.js has none): graph ops with side effects and no outputs. Eagerly they throw at
  // once; in a tl.function they check each call's values and throw InvalidArgument on the bad call only.
  const api = { op, ops };
  const checked = (message, summarize) => (summarize === undefined ? { message } : { message, summarize });
  const binaryAssert = (name) => (x, y, message = '', summarize) => { op(name, [x, y], checked(message, summarize)); };
  const unaryAssert = (name) => (x, message = '', summarize) => { op(name, [x], checked(message, summarize)); };
  api.debugging = {
    assertEqual: binaryAssert('assert_equal'),
    assertLess: binaryAssert('assert_less'),
    assertLessEqual: binaryAssert('assert_less_equal'),
    assertGreater: binaryAssert('assert_greater'),
    assertGreaterEqual: binaryAssert('assert_greater_equal'),
    assertPositive: unaryAssert('assert_positive'),
    assertNonNegative: unaryAssert('assert_non_negative'),
    assertNear: (x, y, rtol, atol, message = '', summarize) => {
      const attrs = checked(message, summarize);
      if (rtol !== undefined) attrs.rtol = rtol;
      if (atol !== undefined) attrs.atol = atol;
      op('assert_near', [x, y], attrs);
    },
    assertRank: (x, rank, message = '') => {
      op('assert_rank', [x], { message, rank: toInteger(rank, { what: 'tl.debugging.assertRank', root: 'rank' }) });
    },
    assert: (condition, message, data = [], summarize) => {
      op('assert', [condition, ...tensorList('tl.debugging.assert', data)], checked(message ?? '', summarize), ['bool']);
    },
  };
  const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);  // logicalNot -> logical_not
  for (const name of unary) fns[name] = (x) => op(snake(name), [x]);
  for (const name of binary) fns[name] = (a, b) => op(snake(name), [a, b]);
  for (const [name, opName] of [['isNaN', 'is_nan'], ['isInf', 'is_inf'], ['isFinite', 'is_finite']])
    fns[name] = (x) => op(opName, [x]);
  fns.softmax = (x, a = -1) => op('softmax', [x], { axis: axis('tl.softmax', a) });

  // The one table of functions: every function of fns is tl.<name>, and a method x.<name>(...args) = fn(x, ...args)
  // but where TF.js has none (concat and stack take an array first, where a condition) or another signature.
  // (stopGradient is Tracelab's: TF.js has no such function.)
  const table = {};
  for (const [name, fn] of Object.entries(fns)) table[name] = { fn, method: true };
  // TF.js: x.concat(y | [y, z], axis) is concat([x, y, z], axis); x.stack likewise.
  const withThis = (what, x, more) => (more instanceof Tensor ? [x, more] : [x, ...tensorList(what, more)]);
  table.concat.method = (x, more, a = 0) => fns.concat(withThis('x.concat', x, more), a);
  table.stack.method = (x, more, a = 0) => fns.stack(withThis('x.stack', x, more), a);
  table.where.method = (x, condition, other) => fns.where(condition, x, other);  // TF.js: x.where(condition, other)
  // Methods only (TF.js has no tf.as1D): reshapes and casts.
  const reshapeTo = (what) => (x, ...dims) => fns.reshape(x, ints(what, 'the dims', dims, 1));
  Object.assign(table, {
    as1D: { method: (x) => fns.reshape(x, [-1]) },
    as2D: { method: reshapeTo('x.as2D') },
    as3D: { method: reshapeTo('x.as3D') },
    as4D: { method: reshapeTo('x.as4D') },
    as5D: { method: reshapeTo('x.as5D') },
    asScalar: {
      method: (x) => {
        if (x.shape.every((d) => d >= 0) && x.size !== 1)
          throw new InvalidArgument(`x.asScalar: the tensor has shape [${x.shape}] (${x.size} elements); ` +
                                    'expected one element');
        return fns.reshape(x, []);
      },
    },
    asType: { method: (x, dtype) => fns.cast(x, dtype) },
    flatten: { method: (x) => fns.reshape(x, [-1]) },
    reshapeAs: { method: (x, other) => fns.reshape(x, toTensorShape('x.reshapeAs', other)) },
    toFloat: { method: (x) => fns.cast(x, 'float32') },
    toInt: { method: (x) => fns.cast(x, 'int32') },
    toBool: { method: (x) => fns.cast(x, 'bool') },
  });
  function toTensorShape(what, value) {
    if (!(value instanceof Tensor)) throw new InvalidArgument(`${what}: x is ${describeValue(value)}; expected a tensor`);
    return value.shape;
  }

  engine.ops = api;
  engine.methods = {};  // a Tensor's methods call its own engine's: several modules may be loaded
  engine.addOps = addOps;

  /**
   * Adds functions to the table: `entries` is {name: {fn, method, replace}}. fn (a function) becomes tl.<name>;
   * method makes x.<name>(...args) on every Tensor (and Variable): true calls fn(x, ...args), a function calls
   * method(x, ...args), false or absent makes none. A name the table has already, or a member of Tensor, is an
   * InvalidArgument unless `replace` is true (a Tensor member never). Returns the engine's ops object (tl's ops).
   */
  function addOps(entries) {
    const what = 'engine.addOps';
    if (entries === null || typeof entries !== 'object' || Array.isArray(entries))
      throw new InvalidArgument(`${what}: entries is ${describeValue(entries)}; expected an object {name: {fn, method}}`);
    for (const [name, entry] of Object.entries(entries)) {
      const where = `${what}: '${name}'`;
      if (entry === null || typeof entry !== 'object')
        throw new InvalidArgument(`${where} is ${describeValue(entry)}; expected {fn, method}`);
      const { fn, method = false, replace = false } = entry;
      for (const key of Object.keys(entry))
        if (key !== 'fn' && key !== 'method' && key !== 'replace')
          throw new InvalidArgument(`${where}: unknown key '${key}'; expected fn, method, replace`);
      if (fn !== undefined && typeof fn !== 'function')
        throw new InvalidArgument(`${where}: fn is ${describeValue(fn)}; expected a function`);
      if (typeof method !== 'boolean' && typeof method !== 'function')
        throw new InvalidArgument(`${where}: method is ${describeValue(method)}; expected true, false or a function (x, ...args)`);
      if (method === true && fn === undefined) throw new InvalidArgument(`${where}: method is true but there is no fn`);
      if (fn === undefined && method === false) throw new InvalidArgument(`${where}: neither fn nor method`);
      if (typeof replace !== 'boolean')
        throw new InvalidArgument(`${where}: replace is ${describeValue(replace)}; expected a boolean`);
      if (!replace && (Object.hasOwn(api, name) || Object.hasOwn(engine.methods, name)))
        throw new InvalidArgument(`${where} is in the table already; pass replace: true to replace it`);
      if (method !== false && RESERVED.has(name))
        throw new InvalidArgument(`${where} is a member of tl.Tensor or tl.Variable, not an op method`);
    }
    for (const [name, { fn, method = false }] of Object.entries(entries)) {
      if (fn !== undefined) api[name] = fn;
      else delete api[name];
      if (method === false) {
        delete engine.methods[name];
        continue;
      }
      engine.methods[name] = method === true ? fn : method;
      if (!Object.hasOwn(Tensor.prototype, name)) {
        Tensor.prototype[name] = function method(...args) {
          const own = this.engine.methods[name];
          if (own === undefined)
            throw new InvalidArgument(`x.${name}: not a method of the tensors of this tensor's Tracelab module`);
          return own(this, ...args);
        };
      }
    }
    return api;
  }

  addOps(table);
  return { api, toTensor, withTensors };
}
