// Tensor handles and their lifetimes: tensors are small objects holding a handle into the core's table; data is
// copied out on request. tidy() disposes what a function created (except what it returns or keep()s); a
// FinalizationRegistry releases handles of tensors that were garbage-collected without dispose() — a safety
// net, not the plan: GC may run late or never, so dispose() or tidy() what you create.
import { guard, guardCall, InvalidArgument, OperatorNotAllowedInGraphError, translate } from './errors.mjs';

/** The dtype codes of results_of (wasm/tensor_api.cpp): the names by code, and the codes by name. */
const DTYPE_CODES = ['float32', 'int32', 'bool'];
export const DTYPE_CODE = Object.freeze(Object.fromEntries(DTYPE_CODES.map((name, code) => [name, code])));

/** How many slots arraySync's nested arrays may have beyond what the values need (a zero-size tensor's). */
const NESTED_SLOTS_LIMIT = 2 ** 24;

/** How many handles one release call takes at most (the core's staging area holds up to a million). */
const RELEASE_BATCH = 65536;

/**
 * How many tensors made outside every scope wait at most before they are put under the FinalizationRegistry (see
 * Engine.track); a synchronous loop that makes more registers them then rather than at its end.
 */
const UNREGISTERED_LIMIT = 1024;

/** Tensor.tracked: not under the safety net, waiting to be registered (Engine.track), registered. */
const UNTRACKED = 0, WAITING = 1, REGISTERED = 2;

/**
 * Marks tl.Variable (wasm/js/autodiff.mjs), a Tensor whose `id` is a variable handle, not a tensor handle: its
 * values are read through read() each time, so every use of a tensor handle asks isVariable first.
 */
export const VARIABLE = Symbol('tracelab.variable');

/** True for a tl.Variable (of any loaded core). */
export function isVariable(value) {
  return value instanceof Tensor && value[VARIABLE] === true;
}

/** Owns the handle bookkeeping of one loaded core. */
export class Engine {
  constructor(core) {
    this.core = core;
    this.scopes = [];      // tidy scopes: arrays of tensors created inside
    this.live = 0;         // tensors created and not disposed (JS side)
    this.collected = 0;    // handles released by the FinalizationRegistry
    this.tracing = 0;      // > 0 while tl.function traces a JS function (tl.autograph asks)
    this.traceNames = [];  // the names of the tl.functions being traced, innermost last
    this.callbackError = null;  // the last error a trampoline's function threw (see relay)
    this.stagingAddress = 0;    // the core's staging area (stage) and how many handles it holds
    this.stagingSize = 0;
    this.registry = new FinalizationRegistry((id) => {
      if (core.tensorDispose(id)) this.collected += 1;
    });
    this.waiting = [];  // tensors that outlive every scope, not registered yet (track)
    this.registerWaiting = () => {
      const waiting = this.waiting;
      this.waiting = [];
      for (const tensor of waiting) {
        if (tensor.isDisposed) continue;
        this.registry.register(tensor, tensor.id, tensor);
        tensor.tracked = REGISTERED;
      }
    };
  }

  /**
   * Writes the handles of `items` (live Tensors or Variables; null is written as 0, no handle; numbers as they are)
   * to the core's staging area, so that the call that follows passes only their count: one bridge crossing with numbers instead of an
   * array (functionCallStaged, opCallStaged, tapeGradientStaged, optimizerApplyStaged).
   */
  stage(items) {
    const n = items.length;
    const at = this.reserve(n), heap = this.core.HEAPF64;
    for (let i = 0; i < n; ++i) {
      const item = items[i];
      heap[at + i] = typeof item === 'number' ? item : item === null ? 0 : item.id;
    }
    return n;
  }

  /**
   * The staging area grown to hold `n` numbers; returns its index into HEAPF64 (valid until the next call that may
   * allocate in the core: read HEAPF64 afresh after it, as memory growth replaces the view).
   */
  reserve(n) {
    if (n > this.stagingSize) {
      this.stagingAddress = guard(() => this.core.stagingAddress(Math.max(n, 16)));
      this.stagingSize = Math.max(n, 16);
    }
    return this.stagingAddress / 8;
  }

  /** Wraps a new core handle as a Tensor tracked by the current tidy scope. */
  wrap(id) {
    const { shape, dtype, symbolic } = guard(() => this.core.tensorMeta(id));
    return this.adopt(id, shape, dtype, symbolic);
  }

  /**
   * The tensors of a core call's results, read in one go from the buffer whose address the call returned
   * (results_of in wasm/tensor_api.cpp): count, then per tensor its handle, dtype, symbolic flag, the address of
   * its values, rank and dims. Handle 0 (no tensor) reads as null.
   */
  wrapResults(address) {
    const heap = this.core.HEAPF64;
    let at = address / 8;
    const count = heap[at++];
    const tensors = new Array(count);
    for (let i = 0; i < count; ++i) {
      tensors[i] = this.tensorAt(heap, at);
      at += 5 + heap[at + 4];
    }
    return tensors;
  }

  /** The first tensor of a core call's results (a call with one result: a layer, a loss, a one-output op). */
  wrapResult(address) {
    return this.tensorAt(this.core.HEAPF64, address / 8 + 1);
  }

  /**
   * The values of a core call's results as data_of wrote them (wasm/tensor_api.cpp: count, then per result its dtype
   * code, the byte address of its values, their count, rank and dims; no handles): per result a typed array copy
   * (`arrays` false) or what Tensor.arraySync gives (`arrays` true: a number or boolean for a scalar, nested arrays
   * otherwise), null for no tensor. `dataResult` reads the first.
   */
  dataResults(address, arrays) {
    const heap = this.core.HEAPF64;
    let at = address / 8;
    const count = heap[at++];
    const values = new Array(count);
    for (let i = 0; i < count; ++i) {
      values[i] = this.dataAt(heap, at, arrays);
      at += 4 + heap[at + 3];
    }
    return values;
  }

  dataResult(address, arrays) {
    return this.dataAt(this.core.HEAPF64, address / 8 + 1, arrays);
  }

  /** The values whose data_of entry starts at HEAPF64 index `at` (dtype -1: null), as dataResults reads them. */
  dataAt(heap, at, arrays) {
    const code = heap[at];
    if (code < 0) return null;
    const dtype = DTYPE_CODES[code], address = heap[at + 1], rank = heap[at + 3];
    if (!arrays) return valuesAt(this.core, dtype, address, heap[at + 2]);
    if (rank === 0) return scalarAt(this.core, dtype, address);  // a loss: a number, nothing allocated
    const shape = dimsAt(heap, at + 4, rank);
    return nestedArray(valuesAt(this.core, dtype, address, heap[at + 2]), shape, dtype, 'arraySync');
  }

  /** The tensor whose results entry starts at HEAPF64 index `at` (handle 0: null). */
  tensorAt(heap, at) {
    const id = heap[at];
    if (id === 0) return null;
    const rank = heap[at + 4], d = at + 5;
    const shape = rank === 0 ? [] : rank === 1 ? [dimOf(heap[d])] : rank === 2 ? [dimOf(heap[d]), dimOf(heap[d + 1])]
      : rank === 3 ? [dimOf(heap[d]), dimOf(heap[d + 1]), dimOf(heap[d + 2])] : dimsAt(heap, d, rank);
    return this.adopt(id, shape, DTYPE_CODES[heap[at + 1]], heap[at + 2] !== 0, heap[at + 3]);
  }

  /**
   * A Tensor for a handle the core just made, with its meta and, when known, the byte address of its values (0:
   * dataSync asks the core).
   */
  adopt(id, shape, dtype, symbolic, dataAddress = 0) {
    const tensor = new Tensor(this, id, shape, dtype, symbolic, dataAddress);
    if (symbolic) tensor.traceName = this.traceNames.length > 0 ? this.traceNames[this.traceNames.length - 1] : null;
    this.live += 1;
    // Inside a scope the scope disposes the tensor or hands it on (tidy registers what outlives every scope).
    if (this.scopes.length > 0) this.scopes[this.scopes.length - 1].push(tensor);
    else this.track(tensor);
    return tensor;
  }

  /**
   * Puts a tensor that outlives every scope under the FinalizationRegistry's safety net. Registering (and
   * unregistering on dispose) costs ~0.2-0.5 us a tensor, more than a small op, so tensors wait in a list and are
   * registered together when the running JavaScript is done (a microtask), or once UNREGISTERED_LIMIT of them wait.
   * A tensor disposed before then is never registered; one that is dropped is collected after its registration.
   */
  track(tensor) {
    if (tensor.tracked !== UNTRACKED || tensor.isDisposed) return;
    tensor.tracked = WAITING;
    if (this.waiting.length === 0) queueMicrotask(this.registerWaiting);
    this.waiting.push(tensor);
    if (this.waiting.length >= UNREGISTERED_LIMIT) this.registerWaiting();
  }

  /** Forgets a tensor whose handle the core already released (symbolic tensors after a trace). */
  forget(tensor) {
    if (tensor.isDisposed) return;
    tensor.isDisposed = true;
    this.live -= 1;
    if (tensor.tracked === REGISTERED) this.registry.unregister(tensor);
  }

  /**
   * A trampoline for the core: (ids) => {outputs: [ids]} | {error}. `fn` gets the tensors for `ids` as separate
   * arguments (through `makeArgs` when given) and returns a tensor, an array of tensors or nothing. Tensors
   * made during the call are disposed afterwards; the core releases the inputs and the handles of the returned outputs. The
   * trampoline's `structure` says what `fn` returned last: 'single', 'array' or 'none' (undefined before a call);
   * `runs` counts the calls that returned.
   */
  trampoline(fn, name, makeArgs = (tensors) => tensors) {
    const trampoline = (ids) => {
      const inputs = ids.map((id) => this.wrap(id));
      const scope = [];
      this.scopes.push(scope);
      let outputs = [];
      try {
        const result = fn(...makeArgs(inputs));
        outputs = result === undefined ? [] : Array.isArray(result) ? result : [result];
        // A variable returned stands for its value: read now (in this scope, so the read's handle is handed over).
        if (outputs.some(isVariable)) outputs = outputs.map((out) => (isVariable(out) ? out.read() : out));
        for (const [i, out] of outputs.entries()) {
          if (!(out instanceof Tensor)) throw new InvalidArgument(`${name}: output ${i} is not a tensor`);
          out.checkAlive(`${name}: output ${i}`);  // e.g. a captured tensor disposed before the branch returned it
        }
        trampoline.structure = result === undefined ? 'none' : Array.isArray(result) ? 'array' : 'single';
        trampoline.runs += 1;
        // The core releases the handles it gets back. A tensor made in this call hands over its own handle; one
        // that lives on after the call (an input, or a tensor captured from outside, e.g. `() => x` in tl.cond)
        // hands over a second handle, so the caller's tensor stays usable.
        const own = new Set(scope);
        return { outputs: outputs.map((t) => (own.delete(t) ? t.id : this.core.tensorRetain(t.id))) };
      } catch (error) {
        outputs = [];
        this.callbackError = error;
        const e = translate(error);
        return { error: { name: e?.name ?? 'Error', message: String(e?.message ?? e) } };
      } finally {
        this.scopes.pop();
        const handedOver = new Set(outputs.filter((t) => scope.includes(t)));
        for (const t of scope) if (!handedOver.has(t)) t.dispose();
        for (const t of [...inputs, ...handedOver]) this.forget(t);
      }
    };
    trampoline.runs = 0;
    return trampoline;
  }

  /**
   * Runs fn (a core call that may run trampolines); when a trampoline's function threw, the core reports only the
   * error's name and message, so the error it threw is rethrown itself, class and stack intact.
   */
  relay(fn) {
    this.callbackError = null;
    try {
      return guard(fn);
    } catch (error) {
      throw this.relayed(error);
    }
  }

  /** relay(() => f(a, b)) without the closure. */
  relayCall(f, a, b) {
    this.callbackError = null;
    try {
      return guardCall(f, a, b);  // f takes two arguments
    } catch (error) {
      throw this.relayed(error);
    }
  }

  /** The error a relayed call throws: the trampoline's own when the core reported that one. */
  relayed(error) {
    const original = this.callbackError;
    this.callbackError = null;
    return original && original.message === error.message ? translate(original) : error;
  }

  tidy(fn) {
    if (typeof fn !== 'function') throw new InvalidArgument('tidy: expected a function');
    const scope = [];
    this.scopes.push(scope);
    let result;
    try {
      result = fn();
    } finally {
      this.scopes.pop();
      this.endScope(scope, result);
    }
    return result;
  }

  /**
   * Ends a tidy scope: what `result` holds (nothing, as a training step's loss value usually is; one tensor; or a
   * set) and what was kept moves to the enclosing scope (or under the FinalizationRegistry); the rest is disposed,
   * its handles staged as they are found and released in one crossing per RELEASE_BATCH of them.
   */
  endScope(scope, result) {
    let kept = null;
    if (result instanceof Tensor) kept = result;
    else if (result !== null && typeof result === 'object') collectTensors(result, kept = new Set());
    // (Guarded: an array read at index -1 takes V8's slow, generic path.)
    const parent = this.scopes.length > 0 ? this.scopes[this.scopes.length - 1] : undefined;
    const n = scope.length, batch = Math.min(n, RELEASE_BATCH);
    const at = this.reserve(batch);
    let heap = this.core.HEAPF64, staged = 0, dropped = 0;
    for (let i = 0; i < n; ++i) {
      const tensor = scope[i];
      if (tensor.isDisposed) continue;
      if (tensor.kept || (kept !== null && (kept === tensor || (kept instanceof Set && kept.has(tensor))))) {
        if (parent && !tensor.kept) parent.push(tensor);
        else this.track(tensor);
        scope[i] = null;
        continue;
      }
      if (staged === batch) {
        this.core.tensorDisposeStaged(staged);
        staged = 0;
        heap = this.core.HEAPF64;
      }
      heap[at + staged++] = tensor.id;
      ++dropped;
    }
    if (dropped === 0) return;
    this.core.tensorDisposeStaged(staged);
    for (let i = 0; i < n; ++i) {
      const tensor = scope[i];
      if (tensor !== null) this.forget(tensor);
    }
  }

  /**
   * Disposes live tensors, their handles staged: one bridge crossing per RELEASE_BATCH of them. A variable among them
   * is disposed by its own dispose().
   */
  disposeAll(tensors) {
    if (tensors.some(isVariable)) {
      for (const v of tensors) if (isVariable(v)) v.dispose();
      tensors = tensors.filter((t) => !isVariable(t));
    }
    for (let from = 0; from < tensors.length; from += RELEASE_BATCH) {
      const part = tensors.length <= RELEASE_BATCH ? tensors : tensors.slice(from, from + RELEASE_BATCH);
      this.core.tensorDisposeStaged(this.stage(part));
      for (const tensor of part) this.forget(tensor);
    }
  }
}

/**
 * A copy of `size` values of `dtype` at byte `address` in the core's memory: a Float32Array, Int32Array or Uint8Array
 * (bool).
 */
function valuesAt(core, dtype, address, size) {
  if (dtype === 'float32') {
    if (size > 8) return core.HEAPF32.slice(address / 4, address / 4 + size);
    // A few values (a loss): copied one by one into a new array, which V8 makes faster than slice does.
    const out = new Float32Array(size), heap = core.HEAPF32;
    for (let i = 0, at = address / 4; i < size; ++i) out[i] = heap[at + i];
    return out;
  }
  if (dtype === 'int32') return core.HEAP32.slice(address / 4, address / 4 + size);
  return core.HEAPU8.slice(address, address + size);
}

/** The value of a scalar of `dtype` at byte `address` in the core's memory: a number (a boolean for bool). */
function scalarAt(core, dtype, address) {
  return dtype === 'float32' ? core.HEAPF32[address / 4] : dtype === 'int32' ? core.HEAP32[address / 4]
    : core.HEAPU8[address] !== 0;
}

/**
 * `values` (a tensor's, flat) nested as arrays of `shape` (booleans for bool), as Tensor.arraySync gives them: a
 * scalar's value itself. A zero-size shape can ask for far more nesting than it has values ([2 ** 40, 0] would be 2^40
 * empty arrays), so a nesting of more than NESTED_SLOTS_LIMIT slots (and more than the values need) is an
 * InvalidArgument naming `what`.
 */
function nestedArray(values, shape, dtype, what) {
  let slots = 0, level = 1;
  for (const d of shape) { level *= d; slots += level; }
  if (slots > Math.max(values.length * shape.length, NESTED_SLOTS_LIMIT))
    throw new InvalidArgument(`${what}: a tensor of shape [${shape}] would be ${slots} nested array slots ` +
                              `for its ${values.length} values (at most ${NESTED_SLOTS_LIMIT}); read .shape and dataSync()`);
  const flat = Array.from(values, (v) => (dtype === 'bool' ? v !== 0 : v));
  const nest = (offset, dims) => {
    if (dims.length === 0) return flat[offset];
    const stride = dims.slice(1).reduce((a, b) => a * b, 1);
    return Array.from({ length: dims[0] }, (_, i) => nest(offset + i * stride, dims.slice(1)));
  };
  return nest(0, shape);
}

/**
 * A dim read from HEAPF64 (-1: unknown): one that fits in int32 as a small integer (`| 0`), which keeps a shape an
 * array of small integers; a larger one (a zero-size tensor's other dims may be) as the number it is.
 */
function dimOf(value) {
  const small = value | 0;
  return small === value ? small : value;
}

/** The `rank` dims a results entry holds from HEAPF64 index `at`. */
function dimsAt(heap, at, rank) {
  const shape = [];
  for (let d = 0; d < rank; ++d) shape.push(dimOf(heap[at + d]));
  return shape;
}

/**
 * True for a Tensor that is not disposed and not a variable: a call can pass its handle as it is (Engine.stage),
 * nothing to convert or read.
 */
export function isLiveTensor(value) {
  return value instanceof Tensor && !value.isDisposed && value[VARIABLE] !== true;
}

/** True when every item is a live Tensor. */
export function allLiveTensors(items) {
  for (const item of items) if (!isLiveTensor(item)) return false;
  return true;
}

function collectTensors(value, into) {
  if (value instanceof Tensor) into.add(value);
  else if (Array.isArray(value)) for (const v of value) collectTensors(v, into);
  else if (value && typeof value === 'object' && value.constructor === Object)
    for (const v of Object.values(value)) collectTensors(v, into);
}

/** dtypes as the core prints them in shapes: f32[2,3]. */
const SHORT_DTYPE = { float32: 'f32', int32: 'i32', bool: 'bool' };

/** A tensor: shape, dtype and a handle to its values in the WASM core. */
export class Tensor {
  constructor(engine, id, shape, dtype, symbolic, dataAddress = 0) {
    this.engine = engine;
    this.id = id;
    /** The dims, e.g. [2, 3]. */
    this.shape = shape;
    /** 'float32', 'int32' or 'bool'. */
    this.dtype = dtype;
    /** True while a tl.function traces: the tensor stands for a graph value and has no data. */
    this.symbolic = symbolic;
    this.isDisposed = false;
    this.kept = false;
    this.tracked = UNTRACKED;  // under the FinalizationRegistry, or waiting to be (Engine.track)
    this.dataAddress = dataAddress;  // the byte address of the values in the core's memory, when known (0: ask)
    /** For a symbolic tensor: the name of the tl.function whose trace made it (null if unknown). */
    this.traceName = null;
  }

  get rank() { return this.shape.length; }
  get size() {
    let size = 1;
    for (const d of this.shape) size *= d;
    return size;
  }

  /**
   * Throws if the tensor's handle is gone: disposed, or a symbolic tensor whose trace has ended (the trace releases
   * every symbolic tensor it made; one kept in an outer variable is a graph value used outside its function).
   */
  checkAlive(what) {
    if (!this.isDisposed) return;
    if (this.symbolic) {
      const owner = this.traceName === null ? 'a tl.function' : `tl.function '${this.traceName}'`;
      throw new InvalidArgument(`${what}: the tensor is a symbolic tensor of ${owner} used outside its trace (a graph ` +
                                'tensor kept from inside the function); return it from the function instead');
    }
    throw new InvalidArgument(`${what}: the tensor was disposed`);
  }

  /** The values as a typed array copy (Float32Array, Int32Array or Uint8Array for bool). */
  dataSync() {
    this.checkAlive('dataSync');
    const core = this.engine.core;
    // The values' address (they never move while the tensor lives), asked for when the core did not say: copied
    // out right away.
    const address = this.dataAddress !== 0 ? this.dataAddress : guardCall(core.tensorData, this.id);
    return valuesAt(core, this.dtype, address, this.size);
  }
  /** The values, as a promise (the work is synchronous; TF.js' asynchronous spelling). */
  async data() { return this.dataSync(); }
  /** The values as nested arrays (a scalar's value itself); nestedArray says which shapes are refused. */
  arraySync() {
    return nestedArray(this.dataSync(), this.shape, this.dtype, 'arraySync');
  }
  async array() { return this.arraySync(); }
  /** TensorFlow's printed form: tl.Tensor(shape=(2, 2), dtype=float32, values=[[1. 2.] [3. 4.]]). */
  toString() {
    this.checkAlive('toString');
    return guard(() => this.engine.core.tensorStr(this.id));
  }
  print() { console.log(this.toString()); }
  /**
   * What JavaScript makes of a tensor in `t > 0`, `Number(t)`, `t + 1` or `${t}`: the printed form, as for any
   * object — except that a symbolic tensor (tl.function tracing) used as a number or in `+` / `==` is an
   * OperatorNotAllowedInGraphError: the result would be decided once, at trace time, and silently baked into the graph.
   */
  [Symbol.toPrimitive](hint) {
    if (!this.symbolic) return this.toString();
    this.checkAlive(hint === 'string' ? 'String(tensor)' : 'a JavaScript conversion');
    const what = `a symbolic tensor ${SHORT_DTYPE[this.dtype] ?? this.dtype}[${this.shape.map((d) => (d < 0 ? '?' : d)).join(',')}]`;
    if (hint === 'string')
      throw new OperatorNotAllowedInGraphError(
        `${what} was turned into a string (a template string or String()) while its function is being traced: it ` +
        'has no value yet, so the text would be decided once, at trace time. t.toString() gives its printed form; ' +
        "tl.print('x =', t) prints its value every time the graph runs; for if / while on a tensor convert the code " +
        'with tl.autograph');
    throw new OperatorNotAllowedInGraphError(
      `${what} was used as a JavaScript value (a comparison, arithmetic or Number()) while its function is being ` +
      'traced: that would be decided once, at trace time. Use tensor ops (t.greater(0), t.add(1)), and for if / ' +
      'while on a tensor convert the code with tl.autograph');
  }
  /**
   * A new tl.Variable holding this tensor's values (cast to `dtype` when given): TF.js' x.variable(), tl.variable(x,
   * trainable, name).
   */
  variable(trainable = true, name = undefined, dtype = undefined) {
    const engine = this.engine;
    if (dtype === undefined || dtype === this.dtype) return engine.variable(this, trainable, name);
    const value = engine.ops.cast(this, dtype);
    try {
      return engine.variable(value, trainable, name);
    } finally {
      value.dispose();
    }
  }
  /** Releases the values (idempotent). */
  dispose() {
    if (this.isDisposed) return;
    this.engine.core.tensorDispose(this.id);
    this.engine.forget(this);
  }
}
