// Loads the Tracelab WebAssembly core in a browser, a worker or Node >= 20, with no flags, and returns the
// TF.js-style API (docs/js-api.md).
//
//   import { loadTracelab } from './tracelab.mjs';
//   const tl = await loadTracelab();
//   const y = tl.tidy(() => tl.tensor([1, 2, 3, 4], [2, 2]).matMul(tl.ones([2, 2])));
//
// Browsers, workers and Node import the same ES-module build of the core (tracelab.core.mjs). A browser or worker
// lets it fetch tracelab.core.wasm from this folder; Node hands it the bytes read with fs, so the module's
// browser-only loading code never runs there.
import { makeAutodiff } from './js/autodiff.mjs';
import { makeAutograph } from './js/autograph.mjs';
import { makeData } from './js/data.mjs';
import * as errors from './js/errors.mjs';
import { makeExperiments } from './js/experiment.mjs';
import { concreteRef, makeFunction } from './js/function.mjs';
import { makeNN } from './js/nn.mjs';
import { makeOps } from './js/ops.mjs';
import { makeSavedModel } from './js/saved_model.mjs';
import { makeTfjsOps } from './js/tfjs_ops.mjs';
import { DTYPE_CODE, Engine, Tensor } from './js/tensor.mjs';
import { checkOptions, describeValue, toDtype, toShape, toScalarData, toTensorData } from './js/values.mjs';

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string' &&
               typeof window === 'undefined' && typeof importScripts !== 'function';

async function instantiate() {
  const { default: factory } = await import('./tracelab.core.mjs');
  if (isNode) {
    const { readFile } = await import('node:fs/promises');
    return factory({ wasmBinary: await readFile(new URL('./tracelab.core.wasm', import.meta.url)) });
  }
  return factory({ locateFile: (file) => new URL(file, import.meta.url).href });
}

/**
 * The core as the facade calls it. The Emscripten module keeps its properties in dictionary mode, where every
 * look-up is a hash probe, and the facade makes several per call; so its functions are copied into an object of
 * their own (fast properties: inline-cached look-ups), and its memory views are read through getters that take
 * the module's new view after memory growth, which detaches the old one (its length drops to 0).
 */
function bridge(module) {
  const core = Object.fromEntries(Object.keys(module).filter((key) => typeof module[key] === 'function')
                                    .map((key) => [key, module[key]]));
  const view = (name) => {
    let current = module[name];
    return { get: () => (current.length !== 0 ? current : (current = module[name])), enumerable: true };
  };
  return Object.defineProperties(core, { HEAPF64: view('HEAPF64'), HEAPF32: view('HEAPF32'), HEAP32: view('HEAP32'),
                                         HEAPU8: view('HEAPU8') });
}

/**
 * Loads the core once and returns its API. `autograph: false` leaves out AutoGraph's converter (its JavaScript
 * parser, ~140 KB to load and compile); the runtime converted code calls is always there. The converter loads
 * alongside the WebAssembly core.
 */
export async function loadTracelab(options) {
  const { autograph = true } = checkOptions(options, { autograph: 'boolean' }, { what: 'loadTracelab' });
  const converter = autograph ? import('./js/autograph/converter.mjs') : null;
  const core = bridge(await instantiate());
  errors.registerCore(core);
  const engine = new Engine(core);
  let toTensorRef = null;
  const autodiff = makeAutodiff(engine, (...args) => toTensorRef(...args));
  const { make: makeTensor, ...creation } = makeCreation(engine);
  const { api: ops, toTensor, withTensors } = makeOps(engine, makeTensor, autodiff.isVariable);
  toTensorRef = toTensor;
  const traced = makeFunction(engine, autodiff.isVariable);
  const nn = makeNN(engine, withTensors, autodiff.fromHandle, autodiff.api.GradientTape, autodiff.isVariable,
                  autodiff.variableNamed);
  let logHandler = null;
  const tl = {
    /** The core's version, e.g. "0.1.0". */
    version: core.version(),
    /** Every op in the registry, in registry order. */
    opNames: () => core.opNames(),
    /** One op's description: {name, doc, inputs, outputs, attrs: [{name, type, required}], differentiable}. */
    opInfo: (name) => errors.guard(() => core.opInfo(name)),
    /**
     * Plain-data op call: [{dtype = 'float32', shape, values}] -> {dtype, shape, values} (values copied out); the
     * values convert as tl.tensor's do (wasm/js/values.mjs), errors naming inputs[i].values.
     */
    runOp: (name, inputs, attrs = {}) => {
      const plain = Array.isArray(inputs) ? inputs.map((input, i) => (input && typeof input === 'object' && 'values' in input
        ? { ...input, values: toTensorData(input.values, input.dtype ?? 'float32', { what: name, root: `inputs[${i}].values` }).data }
        : input)) : inputs;
      return errors.guard(() => core.runOp(name, plain, attrs));
    },
    ...creation,
    ...ops,
    ...autodiff.api,
    ...traced,
    ...nn,
    TracelabError: errors.TracelabError,
    ShapeError: errors.ShapeError,
    DTypeError: errors.DTypeError,
    InvalidArgument: errors.InvalidArgument,
    OutOfMemory: errors.OutOfMemory,
    OperatorNotAllowedInGraphError: errors.OperatorNotAllowedInGraphError,
    ConversionError: errors.ConversionError,
    Tensor,
    /** Runs fn and disposes every tensor it created except what it returns (or keep()s). */
    tidy: (fn) => engine.tidy(fn),
    /** Exempts a tensor from the enclosing tidy(). */
    keep: (tensor) => { tensor.kept = true; return tensor; },
    /** Disposes tensors (and arrays / objects of them), their handles released in one bridge crossing. */
    dispose: (value) => {
      const all = new Set();
      const walk = (v) => {
        if (v instanceof Tensor) {
          if (!v.isDisposed) all.add(v);
        } else if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') Object.values(v).forEach(walk);
      };
      walk(value);
      if (all.size > 0) engine.disposeAll([...all]);
    },
    /** {numTensors, numBytes, numVariables, numTapes, wasmHeapBytes, heapBytesInUse, collectedByGC, stackPointer}. */
    memory: () => ({ ...core.memory(), collectedByGC: engine.collected, stackPointer: core.stackSave() }),
    /**
     * Receives every log message (tl.print output, retracing warnings) as handler(level, text), level 'print',
     * 'info' or 'warning'; null restores the default (console). A handler that throws is ignored.
     */
    setLogHandler: (handler) => {
      logHandler = handler;
      core.setLogSink(handler ? (level, text) => {
        try { logHandler(level, level === 'print' ? text : errors.inJavaScriptTerms(text)); } catch { /* ignored */ }
      } : null);
    },
    /**
     * tf.config: runFunctionsEagerly(true) makes every tl.function run its fn on every call as plain JavaScript on
     * concrete tensors (no trace, no cache, no call records: console.log and breakpoints work), for debugging;
     * functionsRunEagerly() tells which. Per loaded core; false by default.
     */
    config: {
      runFunctionsEagerly: (enabled) => {
        if (typeof enabled !== 'boolean') throw new errors.InvalidArgument('tl.config.runFunctionsEagerly: expected a boolean');
        core.configRunFunctionsEagerly(enabled);
      },
      functionsRunEagerly: () => core.configFunctionsRunEagerly(),
    },
    /**
     * tf.saved_model: save({name: tl.function | concrete function | loaded function}) -> Uint8Array (the graphs and
     * the variables they capture); load(bytes) -> {functions, signatures, variables, dispose()}.
     */
    savedModel: makeSavedModel(engine, withTensors, autodiff.fromHandle),
    experiments: makeExperiments(engine),
    data: makeData(engine, toTensor, withTensors),
  };
  /** AutoGraph: JavaScript `if` / loops / `&&` over tensors as graph control flow (convert, toCode, toFunction). */
  tl.autograph = makeAutograph(tl, engine, converter ? await converter : null);
  installTfjsOps(tl, engine);
  // The engine, the core's functions and a tl.function's core handle, for the benchmark that takes a call through
  // the API apart (bench/js/facade_bench.mjs), and the retracing detectors' reset for the cell worker. Not part of
  // the API: no checks, no stability.
  Object.defineProperty(tl, Symbol.for('tracelab.internals'), {
    value: Object.freeze({ core, engine, functionHandle: (f) => f[concreteRef]?.function,
                           // The tutorials' cell worker before each cell: its code is evaluated anew, so its
                           // tl.functions count retraces afresh, as a re-run notebook cell's tf.functions do.
                           resetRetracingDetectors: () => core.functionResetRetracingDetectors() }),
  });
  return tl;
}

/**
 * Adds the TF.js functions of wasm/js/tfjs_ops.mjs: each entry to the ops table (engine.addOps: the Tensor method
 * where TF.js has one) and as tl.<name>; tfjs-core's losses beside the Keras ones of tl.losses (meanSquaredError takes
 * both signatures), tl.util and tl.Reduction.
 */
function installTfjsOps(tl, engine) {
  const { entries, losses, util, Reduction } = makeTfjsOps(tl);
  const flat = Object.fromEntries(Object.entries(entries).filter(([name]) => !name.includes('.')));
  engine.addOps(flat);
  for (const [name, { fn }] of Object.entries(flat)) if (fn !== undefined) tl[name] = fn;
  // 'image.flipLeftRight': a member of the namespace tl.image (made here when tl has none).
  for (const [path, { fn, method }] of Object.entries(entries).filter(([name]) => name.includes('.'))) {
    if (method) throw new Error(`installTfjsOps: '${path}' is in a namespace, so it has no Tensor method`);
    const [space, name] = path.split('.');
    tl[space] ??= {};
    tl[space][name] = fn;
  }
  const kerasMeanSquaredError = tl.losses.meanSquaredError;
  const isOptions = (v) => v !== null && typeof v === 'object' &&
                            (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);
  tl.losses = {
    ...tl.losses,
    ...losses,
    meanSquaredError: (labels, predictions, weightsOrOptions, reduction) =>
      ((weightsOrOptions === undefined || isOptions(weightsOrOptions)) && reduction === undefined
        ? kerasMeanSquaredError(labels, predictions, weightsOrOptions)
        : losses.meanSquaredError(labels, predictions, weightsOrOptions, reduction)),
  };
  tl.util = util;
  tl.Reduction = Reduction;
}

/** Tensors up to this many dims + values are made through the staging area (one crossing with numbers). */
const STAGED_TENSOR_LIMIT = 4096;

function makeCreation(engine) {
  const core = engine.core;
  // Every JS value becomes tensor data through toTensorData (wasm/js/values.mjs); `what` and `root` name the
  // caller and the argument in its errors ("add: input 1: value[0] is the string 'a'; ...").
  const make = (values, shape, dtype, { what = 'tl.tensor', root = 'values' } = {}) => {
    const dims = shape === undefined || shape === null ? undefined : toShape(shape, { what });
    const { data, dims: nested, dtype: made } = toTensorData(values, dtype === undefined ? undefined : toDtype(dtype, { what }),
                                                             { what, root });
    const size = dims?.reduce((a, b) => a * b, 1);
    if (dims && size !== data.length)
      throw new errors.ShapeError(`${what}: ${data.length} value${data.length === 1 ? ' does' : 's do'} not fill shape [${dims}] ` +
                                  `(${size} element${size === 1 ? '' : 's'})`);
    return newTensor(data, dims ?? nested, made, what);
  };
  /** A tensor of checked data (a typed array) and dims; a small one through the staging area (dims, then values). */
  const newTensor = (data, dims, dtype, what) => {
    if (data.length + dims.length > STAGED_TENSOR_LIMIT)
      return engine.wrap(errors.guardNamed(what, () => core.tensorNew(data, dims, dtype)));
    const at = engine.reserve(dims.length + data.length), heap = core.HEAPF64;
    for (let i = 0; i < dims.length; ++i) heap[at + i] = dims[i];
    heap.set(data, at + dims.length);
    return engine.wrapResult(errors.guardNamed(what, () => core.tensorNewStaged(DTYPE_CODE[dtype], dims.length, data.length)));
  };
  // Shapes and dtypes are checked here (naming the API and the argument's path) before the core sees them.
  const filled = (what, shape, value, dtype) => {
    const dims = toShape(shape, { what });
    return engine.wrap(errors.guardNamed(what, () => core.tensorFill(dims, value, toDtype(dtype, { what }))));
  };
  const number = (what, root, value) => {
    if (typeof value !== 'number') throw new errors.InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected a number`);
    return value;
  };
  let seed = 1;
  const nextRandom = () => {  // mulberry32: a small seeded generator for JS-side random tensors
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // Checks a random tensor's arguments (the numbers named in `numbers`), sets the seed when given; its size.
  const randomSetup = (what, shape, dtype, newSeed, numbers) => {
    const dims = toShape(shape, { what });
    toDtype(dtype, { what });
    for (const [name, value] of Object.entries(numbers)) number(what, name, value);
    if (newSeed !== undefined) {
      if (!Number.isSafeInteger(newSeed)) throw new errors.InvalidArgument(`${what}: seed is ${describeValue(newSeed)}; expected an integer`);
      seed = newSeed;
    }
    const size = dims.reduce((a, b) => a * b, 1);
    // The values are made in JavaScript: a size no typed array can hold is refused as the core refuses it.
    if (size > 2 ** 31 - 1)
      throw new errors.OutOfMemory(`${what}: shape [${dims}] has ${size} elements, more than this platform can address`);
    return size;
  };
  return {
    make,
    /**
     * tl.tensor(values, shape?, dtype?): numbers, booleans, nested arrays, flat arrays with a shape, typed arrays;
     * the dtype is inferred when not given (bool for booleans, int32 for Int32Array / Uint8Array, else float32).
     */
    tensor: (values, shape, dtype) => make(values, shape, dtype),
    scalar: (value, dtype) => {
      const what = 'tl.scalar';
      const { data, dtype: made } = toScalarData(value, dtype === undefined ? undefined : toDtype(dtype, { what }), { what });
      return newTensor(data, [], made, what);
    },
    zeros: (shape, dtype = 'float32') => filled('tl.zeros', shape, 0, dtype),
    ones: (shape, dtype = 'float32') => filled('tl.ones', shape, 1, dtype),
    /** A tensor of `shape` holding `value` (a number or boolean, converted to `dtype` as tl.tensor converts). */
    fill: (shape, value, dtype = 'float32') =>
      filled('tl.fill', shape, toScalarData(value, toDtype(dtype, { what: 'tl.fill' }), { what: 'tl.fill' }).data[0], dtype),
    /** [start, stop) in steps of `step` (TF.js' tl.range). */
    range: (start, stop, step = 1, dtype = 'float32') => {
      const what = 'tl.range';
      return engine.wrap(errors.guard(() => core.tensorRange(number(what, 'start', start), number(what, 'stop', stop),
                                                            number(what, 'step', step), toDtype(dtype, { what }))));
    },
    /** Uniform in [minval, maxval); `seed` makes it repeatable. */
    randomUniform: (shape, minval = 0, maxval = 1, dtype = 'float32', newSeed) => {
      const n = randomSetup('tl.randomUniform', shape, dtype, newSeed, { minval, maxval });
      const values = Float64Array.from({ length: n }, () => minval + (maxval - minval) * nextRandom());
      return make(dtype === 'int32' ? values.map(Math.floor) : values, shape, dtype, { what: 'tl.randomUniform' });
    },
    /** Normal(mean, stdDev) by Box-Muller; `seed` makes it repeatable. */
    randomNormal: (shape, mean = 0, stdDev = 1, dtype = 'float32', newSeed) => {
      const n = randomSetup('tl.randomNormal', shape, dtype, newSeed, { mean, stdDev });
      const values = Float64Array.from({ length: n }, () =>
        mean + stdDev * Math.sqrt(-2 * Math.log(1 - nextRandom())) * Math.cos(2 * Math.PI * nextRandom()));
      return make(dtype === 'int32' ? values.map(Math.trunc) : values, shape, dtype, { what: 'tl.randomNormal' });
    },
  };
}
