// Loads the Tracelab WebAssembly core in a browser, a worker or Node >= 20, with no flags, and returns the
// TF.js-style API (docs/js-api.md).
//
//   import { loadTracelab } from './tracelab.mjs';
//   const tl = await loadTracelab();
//   const y = tl.tidy(() => tl.tensor([1, 2, 3, 4], [2, 2]).matMul(tl.ones([2, 2])));
//
// Browsers and workers import the ES-module build; Node loads the CommonJS build and is handed the .wasm
// bytes read with fs, because Emscripten 3.1.6 would otherwise try to fetch() a file path under Node 20.
import { makeAutodiff } from './js/autodiff.mjs';
import { makeAutograph } from './js/autograph.mjs';
import { makeData } from './js/data.mjs';
import * as errors from './js/errors.mjs';
import { makeExperiments } from './js/experiment.mjs';
import { makeFunction } from './js/function.mjs';
import { makeNN } from './js/nn.mjs';
import { makeOps } from './js/ops.mjs';
import { makeSavedModel } from './js/saved_model.mjs';
import { Engine, Tensor } from './js/tensor.mjs';
import { toScalarData, toTensorData } from './js/values.mjs';

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string' &&
               typeof window === 'undefined' && typeof importScripts !== 'function';

async function instantiate() {
  if (isNode) {
    const { createRequire } = await import('node:module');
    const { readFile } = await import('node:fs/promises');
    const require = createRequire(import.meta.url);
    const factory = require('./tracelab.node.cjs');
    const wasmBinary = await readFile(new URL('./tracelab.node.wasm', import.meta.url));
    return factory({ wasmBinary });
  }
  const { default: factory } = await import('./tracelab.web.mjs');
  return factory({ locateFile: (file) => new URL(file, import.meta.url).href });
}

/**
 * Loads the core once and returns its API. `autograph: false` leaves out AutoGraph's converter (its JavaScript
 * parser, ~140 KB to load and compile); the runtime converted code calls is always there. The converter loads
 * alongside the WebAssembly core.
 */
export async function loadTracelab({ autograph = true } = {}) {
  const converter = autograph ? import('./js/autograph/converter.mjs') : null;
  const core = await instantiate();
  const engine = new Engine(core);
  let toTensorRef = null;
  const autodiff = makeAutodiff(engine, (...args) => toTensorRef(...args));
  const { make: makeTensor, ...creation } = makeCreation(engine);
  const { api: ops, toTensor } = makeOps(engine, makeTensor, autodiff.isVariable);
  toTensorRef = toTensor;
  const traced = makeFunction(engine, autodiff.isVariable);
  const nn = makeNN(engine, toTensor, autodiff.fromHandle, autodiff.api.GradientTape);
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
    ...errors,
    Tensor,
    /** Runs fn and disposes every tensor it created except what it returns (or keep()s). */
    tidy: (fn) => engine.tidy(fn),
    /** Exempts a tensor from the enclosing tidy(). */
    keep: (tensor) => { tensor.kept = true; return tensor; },
    /** Disposes tensors (and arrays / objects of them). */
    dispose: (value) => {
      const all = new Set();
      const walk = (v) => {
        if (v instanceof Tensor) all.add(v);
        else if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') Object.values(v).forEach(walk);
      };
      walk(value);
      for (const t of all) t.dispose();
    },
    /** {numTensors, numBytes, numVariables, numTapes, wasmHeapBytes, collectedByGC}. */
    memory: () => ({ ...core.memory(), collectedByGC: engine.collected }),
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
    savedModel: makeSavedModel(engine, toTensor, autodiff.fromHandle),
    experiments: makeExperiments(core),
    data: makeData(engine, toTensor),
  };
  /** AutoGraph: JavaScript `if` / loops / `&&` over tensors as graph control flow (convert, toCode, toFunction). */
  tl.autograph = makeAutograph(tl, engine, converter ? await converter : null);
  return tl;
}

function makeCreation(engine) {
  const core = engine.core;
  // Every JS value becomes tensor data through toTensorData (wasm/js/values.mjs); `what` and `root` name the
  // caller and the argument in its errors ("add: input 1: value[0] is the string 'a'; ...").
  const make = (values, shape, dtype, { what = 'tl.tensor', root = 'values' } = {}) => {
    const { data, dims, dtype: made } = toTensorData(values, dtype, { what, root });
    return engine.wrap(errors.guard(() => core.tensorNew(data, shape ?? dims, made)));
  };
  const filled = (shape, value, dtype) => engine.wrap(errors.guard(() => core.tensorFill(shape, value, dtype)));
  let seed = 1;
  const nextRandom = () => {  // mulberry32: a small seeded generator for JS-side random tensors
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    make,
    /**
     * tl.tensor(values, shape?, dtype?): numbers, booleans, nested arrays, flat arrays with a shape, typed arrays;
     * the dtype is inferred when not given (bool for booleans, int32 for Int32Array / Uint8Array, else float32).
     */
    tensor: (values, shape, dtype) => make(values, shape, dtype),
    scalar: (value, dtype) => {
      const { data, dtype: made } = toScalarData(value, dtype, { what: 'tl.scalar' });
      return engine.wrap(errors.guard(() => core.tensorNew(data, [], made)));
    },
    zeros: (shape, dtype = 'float32') => filled(shape, 0, dtype),
    ones: (shape, dtype = 'float32') => filled(shape, 1, dtype),
    /** A tensor of `shape` holding `value` (a number or boolean, converted to `dtype` as tl.tensor converts). */
    fill: (shape, value, dtype = 'float32') => filled(shape, toScalarData(value, dtype, { what: 'tl.fill' }).data[0], dtype),
    /** [start, stop) in steps of `step` (TF.js' tl.range). */
    range: (start, stop, step = 1, dtype = 'float32') =>
      engine.wrap(errors.guard(() => core.tensorRange(start, stop, step, dtype))),
    /** Uniform in [minval, maxval); `seed` makes it repeatable. */
    randomUniform: (shape, minval = 0, maxval = 1, dtype = 'float32', newSeed) => {
      if (newSeed !== undefined) seed = newSeed;
      const n = shape.reduce((a, b) => a * b, 1);
      const values = Array.from({ length: n }, () => minval + (maxval - minval) * nextRandom());
      return make(dtype === 'int32' ? values.map(Math.floor) : values, shape, dtype);
    },
    /** Normal(mean, stdDev) by Box-Muller; `seed` makes it repeatable. */
    randomNormal: (shape, mean = 0, stdDev = 1, dtype = 'float32', newSeed) => {
      if (newSeed !== undefined) seed = newSeed;
      const n = shape.reduce((a, b) => a * b, 1);
      const values = Array.from({ length: n }, () =>
        mean + stdDev * Math.sqrt(-2 * Math.log(1 - nextRandom())) * Math.cos(2 * Math.PI * nextRandom()));
      return make(dtype === 'int32' ? values.map(Math.trunc) : values, shape, dtype);
    },
  };
}
