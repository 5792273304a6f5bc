// Ops in TF.js' spelling. Every registry op (but the structured ones, whose nodes hold sub-graphs: cond,
// while_loop, while_grad, dataset_loop, fused_elementwise) is callable by name (tl.op('reduce_sum', [x], {axes: [1]})) and as a
// camelCase function taking tensors then an optional attribute object (tl.ops.clipByValue(x, lo, hi)); the
// common ones also have TF.js' positional signatures (tl.sum(x, axis, keepDims), tl.matMul(a, b, tA, tB)) and
// chainable methods (x.add(y).relu()). Numbers, arrays and typed arrays become tensors of the first tensor's dtype
// (wasm/js/values.mjs converts them, or says which element it cannot).
import { guard, InvalidArgument } from './errors.mjs';
import { Tensor } from './tensor.mjs';
import { describeValue, isTensorLike } from './values.mjs';

const camel = (name) => name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const axes = (axis) => (axis === undefined || axis === null ? [] : Array.isArray(axis) ? axis : [axis]);

/** Builds the op functions for one engine; `isVariable` tells which values are tl.Variables (read as tensors). */
export function makeOps(engine, makeTensor, isVariable) {
  const core = engine.core;
  const infos = new Map(core.opNames().map((name) => [name, core.opInfo(name)]));

  /**
   * A Tensor for any accepted input: a Tensor, a Variable (read now), or a number, boolean, (nested) array or typed
   * array converted by toTensorData (wasm/js/values.mjs) to `dtype`, or to the dtype it infers when undefined.
   */
  function toTensor(value, dtype, what) {
    if (value instanceof Tensor) {
      value.checkAlive(what);
      return value;
    }
    if (isVariable(value)) return value.read();
    if (isTensorLike(value)) return makeTensor(value, undefined, dtype, { what, root: 'value' });
    throw new InvalidArgument(`${what}: expected a tensor (or a number, boolean, array or typed array), got ` +
                              describeValue(value));
  }

  /** Runs registry op `name`; returns one tensor, or an array when the op has several outputs. */
  function op(name, inputs, attrs = {}) {
    const info = infos.get(name);
    if (!info) throw new InvalidArgument(`unknown op '${name}'`);
    if (info.subgraphs > 0)
      throw new InvalidArgument(`${name}: a structured op (each node holds ${info.subgraphs} sub-graph(s)); ` +
        'it is made by tl.cond, tl.whileLoop, a traced dataset loop or the graph optimizer, not called by name');
    if (!Array.isArray(inputs)) throw new InvalidArgument(`${name}: inputs must be an array`);
    const firstTensor = inputs.find((x) => x instanceof Tensor || isVariable(x));
    const dtype = firstTensor ? firstTensor.dtype : undefined;
    const made = [];
    const tensors = inputs.map((x, i) => {
      const t = toTensor(x, dtype, `${name}: input ${i}`);
      if (t !== x && !(x instanceof Tensor)) made.push(t);
      return t;
    });
    try {
      const outputs = engine.wrapResults(guard(() => core.opCall(name, tensors.map((t) => t.id), attrs)));
      return info.outputs === 1 ? outputs[0] : outputs;
    } finally {
      for (const t of made) t.dispose();
    }
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
  const unary = ['neg', 'abs', 'exp', 'log', 'sqrt', 'square', 'relu', 'sigmoid', 'tanh', 'softmax', 'logicalNot'];
  const binary = ['add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'equal', 'notEqual', 'less', 'lessEqual',
                  'greater', 'greaterEqual', 'logicalAnd', 'logicalOr', 'logicalXor'];
  const api = {
    op,
    ops,
    matMul: (a, b, transposeA = false, transposeB = false) =>
      op('matmul', [a, b], { transpose_a: transposeA, transpose_b: transposeB }),
    sum: (x, axis, keepDims = false) => op('reduce_sum', [x], { axes: axes(axis), keepdims: keepDims }),
    mean: (x, axis, keepDims = false) => op('reduce_mean', [x], { axes: axes(axis), keepdims: keepDims }),
    max: (x, axis, keepDims = false) => op('reduce_max', [x], { axes: axes(axis), keepdims: keepDims }),
    min: (x, axis, keepDims = false) => op('reduce_min', [x], { axes: axes(axis), keepdims: keepDims }),
    argMax: (x, axis = 0) => op('argmax', [x], { axis }),
    reshape: (x, shape) => op('reshape', [x], { shape }),
    transpose: (x, perm) => op('transpose', [x], perm ? { perm } : {}),
    expandDims: (x, axis = 0) => op('expand_dims', [x], { axis }),
    squeeze: (x, axis) => op('squeeze', [x], { axes: axes(axis) }),
    concat: (tensors, axis = 0) => op('concat', tensors, { axis }),
    stack: (tensors, axis = 0) => op('stack', tensors, { axis }),
    slice: (x, begin, size) => op('slice', [x], { begin, size }),
    gather: (x, indices, axis = 0) => op('gather', [x, toTensor(indices, 'int32', 'gather: indices')], { axis }),
    oneHot: (indices, depth, onValue = 1, offValue = 0) =>
      op('one_hot', [toTensor(indices, 'int32', 'oneHot: indices')], { depth, on_value: onValue, off_value: offValue }),
    cast: (x, dtype) => op('cast', [x], { dtype }),
    broadcastTo: (x, shape) => op('broadcast_to', [x], { shape }),
    where: (condition, a, b) => op('where', [condition, a, b]),
    clipByValue: (x, lo, hi) => op('clip_by_value', [x, lo, hi]),
    logSoftmax: (x, axis = -1) => op('log_softmax', [x], { axis }),
    zerosLike: (x) => op('zeros_like', [x]),
    onesLike: (x) => op('ones_like', [x]),
    stopGradient: (x) => op('stop_gradient', [x]),
    conv2d: (x, filter, strides = 1, pad = 'valid') =>
      op('conv2d', [x, filter], { strides: Array.isArray(strides) ? strides : [strides, strides], padding: pad.toUpperCase() }),
    maxPool: (x, filterSize, strides, pad = 'valid') => pool('max_pool2d', x, filterSize, strides, pad),
    avgPool: (x, filterSize, strides, pad = 'valid') => pool('avg_pool2d', x, filterSize, strides, pad),
  };
  function pool(name, x, filterSize, strides, pad) {
    const pair = (v) => (Array.isArray(v) ? v : [v, v]);
    return op(name, [x], { ksize: pair(filterSize), strides: pair(strides ?? filterSize), padding: pad.toUpperCase() });
  }
  const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);  // logicalNot -> logical_not
  for (const name of unary) api[name] = (x) => op(snake(name), [x]);
  for (const name of binary) api[name] = (a, b) => op(snake(name), [a, b]);
  api.softmax = (x, axis = -1) => op('softmax', [x], { axis });

  // Chainable methods: x.add(y), x.matMul(w), x.sum(1), x.reshape([2, 3]), ...
  const methods = [...unary, ...binary, 'matMul', 'sum', 'mean', 'max', 'min', 'argMax', 'reshape', 'transpose',
                   'expandDims', 'squeeze', 'slice', 'gather', 'cast', 'broadcastTo', 'clipByValue', 'logSoftmax',
                   'softmax', 'stopGradient'];
  engine.ops = api;
  for (const name of methods)  // dispatch through the tensor's own engine: several modules may be loaded
    Tensor.prototype[name] = function method(...args) { return this.engine.ops[name](this, ...args); };
  return { api, toTensor };
}
