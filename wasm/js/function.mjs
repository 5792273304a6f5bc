// tl.function: a JavaScript function traced through the core into a graph. Tensors in the arguments enter the
// trace key by shape and dtype, JS numbers, booleans and strings by value, variables by identity — TF's rules.
// On a new key the callback runs once with symbolic tensors (its ops become graph nodes; console.log runs only
// then, tl.print every call); later calls with a matching key only run the graph.
import { guard, inJavaScriptTerms, InvalidArgument, OperatorNotAllowedInGraphError } from './errors.mjs';
import { allLiveTensors, isVariable as isAnyVariable, Tensor } from './tensor.mjs';
import { checkOptions, describeValue, toDtype, toShape } from './values.mjs';

/** How a tl.function call's results are read: as tensors, as typed arrays of their values, as arraySync's arrays. */
const TENSORS = 0, VALUES = 1, ARRAYS = 2;

/** A TensorSpec: the shape (null or -1 = any size) and dtype a signature accepts. */
export class TensorSpec {
  constructor(shape, dtype = 'float32', name = null) {
    const what = 'tl.TensorSpec';
    this.shape = toShape(shape, { what, unknown: true });
    this.dtype = toDtype(dtype, { what });
    if (name !== null && typeof name !== 'string')
      throw new InvalidArgument(`${what}: name is ${describeValue(name)}; expected a string or null`);
    this.name = name;
  }
}

/** Whether `value` is a plain object (a literal, or made by Object.create(null)): a dict in nested arguments. */
const isPlainObject = (value) => value !== null && typeof value === 'object' &&
  (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

/** Whether a signature entry is a TensorSpec or arrays / plain objects of them (a nested input signature). */
const isSignatureEntry = (value) => value instanceof TensorSpec ||
  (Array.isArray(value) && value.every(isSignatureEntry)) ||
  (isPlainObject(value) && Object.values(value).every(isSignatureEntry));

/** The placeholder of a leaf in a structure's template (ArgStructure::kLeaf in the core). */
const LEAF = '\x1f';
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const keyText = (key) => (IDENTIFIER.test(key) ? key : JSON.stringify(key));
const pathOf = (parent, key) => (typeof key === 'number' ? `${parent}[${key}]`
  : IDENTIFIER.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`);

/**
 * A call's arguments flattened as TensorFlow's nest flattens them: arrays in order, plain objects by sorted key
 * (so {x, y} and {y, x} are one structure, as dicts are in TF), anything else a leaf. Returns {leaves: [{value,
 * path}], structure}: the template of the call with LEAF in each leaf's place, e.g. "(\x1f, {x: \x1f})" — its
 * array lengths and object keys are part of the trace key — or '' when no argument nests.
 */
function flattenArgs(args) {
  const leaves = [];
  let nested = false;
  const walk = (value, path) => {
    if (Array.isArray(value)) {
      nested = true;
      return `[${value.map((v, i) => walk(v, pathOf(path, i))).join(', ')}]`;
    }
    if (isPlainObject(value)) {
      nested = true;
      return `{${Object.keys(value).sort().map((k) => `${keyText(k)}: ${walk(value[k], pathOf(path, k))}`).join(', ')}}`;
    }
    leaves.push({ value, path });
    return LEAF;
  };
  const text = `(${args.map((a, i) => walk(a, `args[${i}]`)).join(', ')})`;
  return { leaves, structure: nested ? text : '' };
}

/**
 * `args` with their tensor and TensorSpec leaves replaced, in flattenArgs' order, by `symbolic`; variables stay
 * themselves (the trace reads them through read nodes).
 */
function rebuildArgs(args, symbolic) {
  let next = 0;
  const walk = (value) => {
    if (Array.isArray(value)) return value.map(walk);
    if (isPlainObject(value)) {
      const done = Object.fromEntries(Object.keys(value).sort().map((k) => [k, walk(value[k])]));
      return Object.fromEntries(Object.keys(value).map((k) => [k, done[k]]));  // the caller's key order
    }
    return (value instanceof Tensor && !isAnyVariable(value)) || value instanceof TensorSpec ? symbolic[next++] : value;
  };
  return args.map(walk);
}

/** A leaf's place in an output template (flattenOutputs). */
const OUTPUT = Symbol('tracelab.output');

/**
 * What fn returned, flattened for the core as TensorFlow's nest flattens a tf.function's outputs: arrays in order,
 * plain objects by sorted key, tensors (and variables, read by the trampoline) the leaves; a number or boolean
 * becomes a constant tensor of the dtype TF.js infers (`constant`), as TF converts a Python number to a tensor;
 * null and undefined stay as they are (TF's None), with no output. Anything else is an InvalidArgument naming its
 * path. Returns null for what the trampoline takes as it is (a tensor, an array of tensors, or undefined), else
 * {leaves, template}: the result with OUTPUT in each leaf's place, and `key`, its text (equal for equal structures).
 */
function flattenOutputs(result, name, constant) {
  if (result === undefined || result instanceof Tensor || (Array.isArray(result) && result.every((r) => r instanceof Tensor)))
    return null;
  const leaves = [];
  const walk = (value, path) => {
    if (value instanceof Tensor) {
      leaves.push(value);
      return [OUTPUT, '#'];
    }
    if (typeof value === 'number' || typeof value === 'boolean') {
      leaves.push(constant(value));
      return [OUTPUT, '#'];
    }
    if (value === null || value === undefined) return [value, String(value)];
    if (Array.isArray(value)) {
      const parts = value.map((v, i) => walk(v, pathOf(path, i)));
      return [parts.map((p) => p[0]), `[${parts.map((p) => p[1]).join(', ')}]`];
    }
    if (isPlainObject(value)) {
      const keys = Object.keys(value).sort();
      const parts = Object.fromEntries(keys.map((k) => [k, walk(value[k], pathOf(path, k))]));
      const template = Object.fromEntries(Object.keys(value).map((k) => [k, parts[k][0]]));  // the caller's key order
      return [template, `{${keys.map((k) => `${keyText(k)}: ${parts[k][1]}`).join(', ')}}`];
    }
    throw new InvalidArgument(`${name}: ${path} is ${describeValue(value)}; a tl.function returns tensors, numbers or ` +
                              'booleans (made constant tensors), null or undefined, or arrays / plain objects of them');
  };
  const [template, key] = walk(result, 'result');
  return { leaves, template, key };
}

/** `template` (flattenOutputs) with its leaves, in flattening order, taken from `outputs` (tensors or their values). */
function rebuildOutputs(template, outputs) {
  let next = 0;
  const walk = (value) => {
    if (value === OUTPUT) return outputs[next++];
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || value === undefined) return value;
    const done = Object.fromEntries(Object.keys(value).sort().map((k) => [k, walk(value[k])]));
    return Object.fromEntries(Object.keys(value).map((k) => [k, done[k]]));
  };
  return walk(template);
}

/** A result (a tensor, undefined, or arrays / plain objects of tensors) with `of` applied to each tensor. */
const mapResult = (result, of) => (result instanceof Tensor ? of(result)
  : Array.isArray(result) ? result.map((r) => mapResult(r, of))
  : isPlainObject(result) ? Object.fromEntries(Object.entries(result).map(([k, r]) => [k, mapResult(r, of)]))
  : result);

/**
 * Checks that a call's arguments nest as a nested input signature does (TF's TypeError when they do not), naming
 * the first place they differ: "args[0].y is missing", "args[1] has 3 elements; the input signature has 2".
 */
function checkSignatureStructure(signature, args, name) {
  const fail = (message) => { throw new TypeError(`${name}: ${message}`); };
  const walk = (spec, value, path) => {
    if (spec instanceof TensorSpec) {
      if (Array.isArray(value) || isPlainObject(value))
        fail(`${path} is ${Array.isArray(value) ? 'an array' : 'an object'}; the input signature has a tensor there`);
    } else if (Array.isArray(spec)) {
      if (!Array.isArray(value)) fail(`${path} is ${describeValue(value)}; the input signature has an array of ${spec.length} there`);
      if (value.length !== spec.length) fail(`${path} has ${value.length} elements; the input signature has ${spec.length}`);
      spec.forEach((s, i) => walk(s, value[i], pathOf(path, i)));
    } else {
      if (!isPlainObject(value)) fail(`${path} is ${describeValue(value)}; the input signature has an object with keys ` +
                                      `{${Object.keys(spec).sort().join(', ')}} there`);
      const missing = Object.keys(spec).filter((k) => !(k in value)).sort();
      const extra = Object.keys(value).filter((k) => !(k in spec)).sort();
      if (missing.length) fail(`${pathOf(path, missing[0])} is missing; the input signature's keys are {${Object.keys(spec).sort().join(', ')}}`);
      if (extra.length) fail(`${pathOf(path, extra[0])} is not in the input signature, whose keys are {${Object.keys(spec).sort().join(', ')}}`);
      for (const k of Object.keys(spec).sort()) walk(spec[k], value[k], pathOf(path, k));
    }
  };
  if (args.length !== signature.length)
    fail(`the input signature has ${signature.length} argument(s), the call passes ${args.length}`);
  signature.forEach((spec, i) => walk(spec, args[i], `args[${i}]`));
}

/** tl.function's options and the kind of value each takes (checkOptions in wasm/js/values.mjs). */
const FUNCTION_OPTIONS = {
  inputSignature: (v) => (v === null || (Array.isArray(v) && v.every(isSignatureEntry))
    ? null : 'an array of tl.TensorSpec, or of arrays / plain objects of them (or null)'),
  reduceRetracing: 'boolean',
  name: 'string',
  maxRetracingWarnings: (v) => (Number.isInteger(v) && v >= -1 && v <= 2 ** 31 - 1
    ? null : 'a non-negative integer, or -1 for no limit'),
  argNames: ['string'],
  callHistory: 'count',
  recordTimings: 'boolean',
  onTrace: 'function',
  specializePlans: 'boolean',
  shareRetracingCount: 'boolean',
};

/** Where a tl.function and its concrete functions keep what tl.savedModel.save passes to the core. */
export const concreteRef = Symbol('tracelab.concreteFunction');

/** How many call records a tl.function keeps unless its `callHistory` option says otherwise. */
const DEFAULT_CALL_HISTORY = 100;
/**
 * Whether a call's record times its graph's run (`executeUs`) unless `recordTimings` says otherwise: no. The two
 * clock reads are each a call out of WebAssembly into JavaScript, ~0.1 µs apiece in a training loop (3-4% of the
 * ragged experiment's 7.6 µs step), on every call, for a figure most callers never read.
 */
const DEFAULT_RECORD_TIMINGS = false;

/**
 * This package's folder: stack frames in it are the library's, not the caller's. The folder above js/, or, in the
 * one-file bundle the playground's worker loads (tracelab.bundle.mjs, at the package's top), the bundle's folder.
 */
const PACKAGE_ROOT = new URL(/\/js\/function\.mjs$/.test(import.meta.url) ? '../' : './', import.meta.url).href;

/**
 * What a tl.function's frequent-retracing count is shared by. TensorFlow counts per Python function (by its
 * `__code__`), so tf.functions made anew in a loop from one `def` or `lambda` share a count and warn. A JS function
 * object has no such identity (an arrow function in a loop is a new object each time), so the count is shared by
 * fn's source text and the place tl.function was called from (the first stack frame outside this package): the
 * functions a loop makes share both and warn together; two functions of the same text made at different places
 * count apart. Without a stack (Error.stackTraceLimit = 0) the text alone.
 */
function retracingSource(fn) {
  const frames = String(new Error().stack ?? '').split('\n').map((line) => line.trim())
    .filter((line) => /:\d+:\d+\)?$/.test(line));
  const place = frames.find((line) => !line.includes(PACKAGE_ROOT)) ?? '';
  return `${place}\n${Function.prototype.toString.call(fn)}`;
}

export function makeFunction(engine, isVariable) {
  const core = engine.core;

  // `i` is the argument's index in a flat call, its path ("args[0].x") in a nested one.
  function describeArg(value, i, name) {
    const what = typeof i === 'number' ? `argument ${i}` : i;
    if (isVariable(value)) return { kind: 'variable', id: value.id };  // first: a Variable is a Tensor, keyed by identity
    if (value instanceof Tensor) {
      value.checkAlive(`${name}: ${what}`);
      return { kind: 'tensor', id: value.id };
    }
    if (value instanceof TensorSpec) return { kind: 'spec', shape: value.shape, dtype: value.dtype };
    if (typeof value === 'number') return { kind: 'number', value };
    if (typeof value === 'boolean') return { kind: 'bool', value };
    if (typeof value === 'string') return { kind: 'string', value };
    throw new InvalidArgument(`${name}: ${what} must be a tensor, a TensorSpec, a variable, a number, a ` +
                              `boolean or a string (or arrays / plain objects of them), got ${describeValue(value)}`);
  }

  /**
   * Wraps `fn` (tf.function). Options: inputSignature, reduceRetracing, name, maxRetracingWarnings, argNames,
   * callHistory (how many call records `calls` keeps: 100 by default, 0 for none), recordTimings (default false:
   * executeUs is 0; true times each call's graph into it, two clock reads per call), onTrace, specializePlans
   * (default true: a graph with unknown dims is planned per input shape; false: every shape rule on every call),
   * shareRetracingCount (default true: the retracing warning counts the calls of every tl.function of the same
   * source text and place together, as TensorFlow counts per Python function; false: this function alone).
   */
  function tfFunction(fn, options) {
    if (typeof fn !== 'function') throw new InvalidArgument(`tl.function: fn is ${describeValue(fn)}; expected a function`);
    const source = retracingSource(fn);
    const label = typeof options?.name === 'string' ? options.name : fn.name;
    options = checkOptions(options, FUNCTION_OPTIONS, { what: label ? `tl.function '${label}'` : 'tl.function' });
    const name = options.name ?? (fn.name || 'function');
    // onTrace reads the record of the call that traced, so it needs a history of at least one call.
    const wanted = options.callHistory ?? DEFAULT_CALL_HISTORY;
    const callHistory = options.onTrace && wanted === 0 ? 1 : wanted;
    let currentArgs = null;   // the JS arguments of the call being traced
    let returned = null;      // flattenOutputs of what fn returned in its last run (null: the trampoline's own)
    // A number or boolean in the result: a constant tensor (an identity of the value, converted as op inputs are).
    const constant = (value) => engine.ops.op('identity', [value]);
    // The core calls this on a miss with the symbolic inputs (one per tensor or TensorSpec argument, in order).
    const traced = (...args) => {  // called by the core only while it traces
      engine.tracing += 1;
      engine.traceNames.push(name);  // symbolic tensors made now remember the function (Tensor.traceName)
      returned = null;
      try {
        const result = fn(...args);
        returned = flattenOutputs(result, name, constant);
        return returned === null ? result : returned.leaves;
      } finally {
        engine.tracing -= 1;
        engine.traceNames.pop();
      }
    };
    // A trace the core starts by itself (tl.savedModel.save tracing the input signature) has no JS arguments: the
    // symbolic inputs are all of them.
    const trampoline = engine.trampoline(traced, name, (symbolic) => {
      for (const t of symbolic) t.traceName = name;  // wrapped before `traced` runs
      return currentArgs === null ? symbolic : rebuildArgs(currentArgs, symbolic);
    });
    // A nested input signature: the core gets its specs flat (named by their paths unless named) and the calls'
    // leaves, after the call's structure is checked against it here.
    const signature = options.inputSignature ?? null;
    const nestedSignature = signature !== null && !signature.every((s) => s instanceof TensorSpec);
    const flatSignature = nestedSignature
      ? flattenArgs(signature).leaves.map(({ value, path }) => new TensorSpec(value.shape, value.dtype, value.name ?? path))
      : signature;
    // The leaves of a call (or getConcreteFunction) as the core takes them, and their structure (null when flat).
    const coreArgs = (args) => {
      if (nestedSignature) {
        checkSignatureStructure(signature, args, name);
        return { leaves: flattenArgs(args).leaves.map(({ value, path }) => describeArg(value, path, name)), structure: null };
      }
      const flat = flattenArgs(args);
      if (flat.structure === '') return { leaves: args.map((a, i) => describeArg(a, i, name)), structure: null };
      return { leaves: flat.leaves.map(({ value, path }) => describeArg(value, path, name)),
               structure: { text: flat.structure, paths: flat.leaves.map((l) => l.path) } };
    };
    // Only a flat call of live tensors (to a function without a nested signature) takes the staged path.
    const stageable = (args) => !nestedSignature && allLiveTensors(args);
    const recordTimings = options.recordTimings ?? DEFAULT_RECORD_TIMINGS;
    const id = guard(() => core.functionNew({ ...options, name, inputSignature: flatSignature, callHistory,
                                              recordTimings, retracingSource: source },
                                            trampoline));
    const inJs = (record) => ({ ...record, reason: inJavaScriptTerms(record.reason), warning: inJavaScriptTerms(record.warning) });

    // What fn returned when each concrete function was traced ('single', 'array', 'none', or flattenOutputs' {template,
    // key} for any other structure), by concrete index: a call's results come back in the structure of the concrete
    // function it ran (TensorFlow's structured_outputs).
    const structures = [];
    let shared = null;  // the structure every concrete function has; null when they differ (or before a trace)
    const structureOfRun = () => returned ?? trampoline.structure;
    const keyOf = (structure) => (typeof structure === 'string' ? structure : structure.key);
    let runsSeen = 0, countSeen = 0;
    // After the trampoline ran (a trace by a call, getConcreteFunction or tl.savedModel.save, or a call run
    // eagerly), notes the structure of the concrete function the run traced, if it traced one.
    const noteRuns = () => {
      runsSeen = trampoline.runs;
      const { traced, count } = core.functionLastConcrete(id);
      if (count === countSeen || traced < 0) return;
      countSeen = count;
      const structure = structureOfRun();
      structures[traced] = structure;
      shared = structures.every((s) => keyOf(s) === keyOf(structure)) ? structure : null;
    };
    // A call's results, shaped as fn returned them when the concrete function that ran was traced (a tensor, an
    // array, nothing, or arrays / plain objects of tensors), or as it returned this time when the call ran fn (it traced, or ran eagerly): tensors
    // (`read` TENSORS), or their values as data_of wrote them, as typed arrays (VALUES) or as arraySync gives them
    // (ARRAYS). Read before any other core call.
    const resultsOf = (address, read) => {
      const ran = trampoline.runs !== runsSeen;
      let structure = ran ? structureOfRun() : shared;
      const single = structure === 'single';
      const outputs = read === TENSORS ? (single ? engine.wrapResult(address) : engine.wrapResults(address))
        : single ? engine.dataResult(address, read === ARRAYS) : engine.dataResults(address, read === ARRAYS);
      if (ran) noteRuns();
      else if (structure === null) structure = structures[core.functionLastConcrete(id).call];
      if (options.onTrace) {
        const last = core.functionLastCall(id);
        if (last && last.traced) {
          const { reason, warning, traceUs } = inJs(last);
          options.onTrace({ reason, warning, traceUs });
        }
      }
      if (structure?.template !== undefined) return rebuildOutputs(structure.template, outputs);
      return structure === 'none' ? undefined : structure === 'single' && !single ? outputs[0] : outputs;
    };
    const call = (...args) => {
      currentArgs = args;
      if (trampoline.runs !== runsSeen) noteRuns();  // a trace since the last call, e.g. by tl.savedModel.save
      try {
        const address = stageable(args)
          ? engine.relayCall(core.functionCallStaged, id, engine.stage(args))  // the common call: handles only, one crossing
          : engine.relay(() => {
            const { leaves, structure } = coreArgs(args);
            return core.functionCall(id, leaves, structure);
          });
        return resultsOf(address, TENSORS);
      } finally {
        currentArgs = null;
      }
    };
    // f.dataSync and f.arraySync: the call's results read as `read` says (VALUES or ARRAYS) without tensors: one
    // crossing, no handle or Tensor for a result. `method` names it in errors.
    const valuesCall = (read, method) => (...args) => {
      if (engine.tracing > 0)
        throw new OperatorNotAllowedInGraphError(
          `${name}.${method}() was called while a tl.function is being traced: the results are symbolic tensors ` +
          `there and have no values; call ${name}(...) for tensors`);
      if (!stageable(args))  // arguments that are not all tensors: the call as usual, its tensors read and disposed
        return engine.tidy(() => {
          const result = call(...args);
          return mapResult(result, (t) => (read === ARRAYS ? t.arraySync() : t.dataSync()));
        });
      currentArgs = args;
      if (trampoline.runs !== runsSeen) noteRuns();
      try {
        return resultsOf(engine.relayCall(core.functionCallStagedData, id, engine.stage(args)), read);
      } finally {
        currentArgs = null;
      }
    };
    /**
     * The call's results as values, without tensors: what `f(...args)` returns with each tensor replaced by its
     * dataSync() (a typed array copy; arrays / objects of them, or undefined, as f returns). One crossing, and no handle or
     * Tensor for a result. Inside another tl.function's trace there are no values: OperatorNotAllowedInGraphError.
     */
    call.dataSync = valuesCall(VALUES, 'dataSync');
    /**
     * The same with each tensor replaced by its arraySync(): a scalar's value as a number (a boolean for bool),
     * nested arrays otherwise. The way to read a training step's loss (Keras' train_on_batch and TF.js'
     * trainOnBatch return it as a number): nothing is allocated for a scalar.
     */
    call.arraySync = valuesCall(ARRAYS, 'arraySync');
    Object.defineProperties(call, {
      /** How many times fn was traced. */
      tracingCount: { get: () => core.functionInfo(id).tracingCount },
      /**
       * The records of the last `callHistory` calls, oldest first:
       * {index, traced, key, reason, warning, concreteIndex, traceUs, executeUs}.
       */
      calls: { get: () => guard(() => core.functionCalls(id)).map(inJs) },
    });
    /** Every concrete function's signature, TensorFlow's format. */
    call.prettyPrintedConcreteSignatures = () => core.functionInfo(id).signatures;
    // Each concrete function remembers which one it is, for tl.savedModel.save.
    const graphs = () => guard(() => core.functionGraphs(id)).map((c, concrete) =>
      Object.defineProperty(c, concreteRef, { value: { function: id, concrete } }));
    Object.defineProperty(call, concreteRef, { value: { function: id, concrete: -1 } });
    /** The concrete functions: {signature, graph, tracedGraph, graphJson, tracedGraphJson, passes}. */
    call.concreteFunctions = () => graphs();
    /** The concrete function for these arguments (tensors or TensorSpecs), traced if needed. */
    call.getConcreteFunction = (...args) => {
      currentArgs = args;
      try {
        const index = engine.relay(() => {
          const { leaves, structure } = coreArgs(args);
          return core.functionConcrete(id, leaves, structure);
        });
        return graphs()[index];
      } finally {
        currentArgs = null;
      }
    };
    call.clearCalls = () => guard(() => core.functionClearCalls(id));
    call.dispose = () => core.functionDispose(id);
    return call;
  }

  /**
   * fn(values): `values` is `items` with each variable replaced by its current value (a read, disposed when fn
   * returns or throws).
   */
  function withValues(items, fn) {
    if (!items.some(isVariable)) return fn(items);
    const reads = [];
    try {
      return fn(items.map((item) => {
        if (!isVariable(item)) return item;
        const value = item.read();
        reads.push(value);
        return value;
      }));
    } finally {
      for (const value of reads) value.dispose();
    }
  }

  /** tf.print: prints its arguments (tensors by value) every time it runs — also inside a traced graph. */
  function print(...args) {
    withValues(args, (values) => {
      let template = '';
      const tensors = [];
      for (const a of values) {
        if (template.length > 0) template += ' ';
        if (a instanceof Tensor) {
          template += '{}';
          tensors.push(a);
        } else {
          template += String(a).replaceAll('{', '{{');
        }
      }
      guard(() => core.opCall('print', tensors.map((t) => t.id), { template }));
    });
  }

  /**
   * tf.cond: trueFn() if pred (a bool scalar) else falseFn(); both return a tensor or arrays of equal length.
   * Eagerly a plain branch; inside tl.function one cond node holding both branches as sub-graphs.
   */
  function cond(pred, trueFn, falseFn) {
    if (isVariable(pred)) return withValues([pred], ([value]) => cond(value, trueFn, falseFn));
    if (!(pred instanceof Tensor))
      throw new InvalidArgument(`tl.cond: pred is ${describeValue(pred)}; expected a bool scalar tensor`);
    pred.checkAlive('tl.cond: pred');
    checkFunction('tl.cond', 'trueFn', trueFn);
    checkFunction('tl.cond', 'falseFn', falseFn);
    const whenTrue = engine.trampoline(trueFn, 'cond: trueFn'), whenFalse = engine.trampoline(falseFn, 'cond: falseFn');
    const ids = engine.relay(() => core.cond(pred.id, whenTrue, whenFalse));
    const structure = whenTrue.structure ?? whenFalse.structure;  // eagerly only one branch ran
    const outputs = ids.map((i) => engine.wrap(i));
    return structure === 'array' ? outputs : outputs[0];
  }

  /** tf.while_loop: while (cond(...vars)) vars = body(...vars); returns the final vars (an array). */
  function whileLoop(condFn, body, loopVars, options) {
    const what = 'tl.whileLoop';
    const { maximumIterations = -1 } = checkOptions(options, {
      maximumIterations: (v) => (Number.isSafeInteger(v) && v >= -1 ? null : 'a non-negative integer (or -1 for no limit)'),
    }, { what });
    checkFunction(what, 'cond', condFn);
    checkFunction(what, 'body', body);
    if (!Array.isArray(loopVars))
      throw new InvalidArgument(`${what}: loopVars is ${describeValue(loopVars)}; expected an array of tensors`);
    if (loopVars.some(isVariable)) return withValues(loopVars, (values) => whileLoop(condFn, body, values, options));
    loopVars.forEach((t, i) => {
      if (!(t instanceof Tensor)) throw new InvalidArgument(`${what}: loopVars[${i}] is ${describeValue(t)}; expected a tensor`);
      t.checkAlive(`${what}: loopVars[${i}]`);
    });
    const ids = engine.relay(() => core.whileLoop(engine.trampoline(condFn, 'whileLoop: cond'), engine.trampoline(body, 'whileLoop: body'),
                                           loopVars.map((t) => t.id), maximumIterations));
    return ids.map((i) => engine.wrap(i));
  }

  function checkFunction(what, root, value) {
    if (typeof value !== 'function') throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected a function`);
  }

  return { function: tfFunction, TensorSpec, print, cond, whileLoop };
}
