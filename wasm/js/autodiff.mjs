// Variables and gradients: tl.variable, tl.GradientTape (the tape the articles use) and TF.js' tl.grads /
// tl.valueAndGrads / tl.variableGrads, all on the core's one tape, and TF.js' tl.customGrad, whose JavaScript
// gradFunc the JS tape applies around the core's backward passes.
import { guard, guardCall, InvalidArgument, ShapeError } from './errors.mjs';
import { isLiveTensor, Tensor, VARIABLE } from './tensor.mjs';
import { checkOptions, describeValue } from './values.mjs';

/** The options of tl.GradientTape and of its gradient(), and how errors name them. */
const TAPE_OPTIONS = { persistent: 'boolean', watchAccessedVariables: 'boolean' };
const TAPE_WHAT = { what: 'tl.GradientTape' };
const GRADIENT_OPTIONS = { unconnectedGradients: (v) => (v === 'none' || v === 'zero' ? null : "'none' or 'zero'") };
const GRADIENT_WHAT = { what: 'GradientTape.gradient' };
const CUSTOM_WHAT = 'tl.customGrad';

export function makeAutodiff(engine, toTensor) {
  const core = engine.core;
  const variablesById = new Map();

  /**
   * A mutable tensor with a name (tf.Variable): a Tensor that goes wherever a tensor goes. Its `id` is the core's
   * variable handle, not a tensor handle; what reads its values (ops, methods, dataSync, toString) reads the current
   * value through read() each time, and inside a tl.function that read is a read node of the graph. Its shape and
   * dtype are fixed: assign() checks them.
   */
  class Variable extends Tensor {
    constructor(initial, trainable = true, name = undefined, handle = undefined) {
      let id = handle;
      if (handle === undefined) {
        if (name === undefined) name = unusedName();
        if (typeof trainable !== 'boolean')
          throw new InvalidArgument(`tl.variable: trainable is ${describeValue(trainable)}; expected a boolean`);
        if (typeof name !== 'string') throw new InvalidArgument(`tl.variable: name is ${describeValue(name)}; expected a string`);
        const value = toTensor(initial, undefined, 'variable');
        try {
          id = guard(() => core.variableNew(value.id, name, trainable));
        } finally {
          if (value !== initial) value.dispose();
        }
      }
      const info = core.variableInfo(id);
      super(engine, id, info.shape, info.dtype, false);
      this.name = info.name;
      this.trainable = info.trainable;
      variablesById.set(id, this);
    }
    /** The current value (a new tensor; inside a tl.function, a read node of the graph). */
    read() {
      this.check();
      return engine.wrapResult(guardCall(core.variableRead, this.id));
    }
    /** fn(value) on the current value, which is disposed afterwards. */
    withValue(fn) {
      const value = this.read();
      try {
        return fn(value);
      } finally {
        value.dispose();
      }
    }
    dataSync() { return this.withValue((value) => value.dataSync()); }
    toString() { return this.withValue((value) => value.toString()); }
    [Symbol.toPrimitive](hint) { return this.withValue((value) => value[Symbol.toPrimitive](hint)); }
    /** Replaces the value (same shape and dtype). */
    assign(value) { this.update(value, 'assign'); }
    assignAdd(delta) { this.update(delta, 'add'); }
    assignSub(delta) { this.update(delta, 'sub'); }
    update(value, how) {
      this.check();
      const t = toTensor(value, this.dtype, `Variable '${this.name}'.assign`);
      try {
        guard(() => core.variableAssign(this.id, t.id, how));
      } finally {
        if (t !== value) t.dispose();
      }
    }
    check() {
      if (this.isDisposed) throw new InvalidArgument(`Variable '${this.name}' was disposed`);
    }
    checkAlive(what) {
      if (this.isDisposed) throw new InvalidArgument(`${what}: Variable '${this.name}' was disposed`);
    }
    dispose() {
      if (this.isDisposed) return;
      core.variableDispose(this.id);
      variablesById.delete(this.id);
      this.isDisposed = true;
    }
  }

  Variable.prototype[VARIABLE] = true;

  const source = (s) => {
    if (s instanceof Variable) return { kind: 'variable', id: s.id };
    if (s instanceof Tensor) {
      s.checkAlive('GradientTape: a source');
      return { kind: 'tensor', id: s.id };
    }
    throw new InvalidArgument(`GradientTape: sources must be tensors or variables, got ${describeValue(s)}`);
  };

  /** The JS tapes now recording, oldest first: a tl.customGrad call is recorded on each. */
  const recordingTapes = new Set();

  /**
   * Records ops from construction until stopRecording() (or dispose()); gradient() differentiates them. The core's
   * tape is persistent in any case, since a tl.customGrad call recorded on it takes several backward passes; a tape
   * made non-persistent releases it after its first gradient(), as the core's own non-persistent tape does.
   */
  class GradientTape {
    constructor(options) {
      const { persistent = false, watchAccessedVariables = true } =
        options === undefined ? {} : checkOptions(options, TAPE_OPTIONS, TAPE_WHAT);
      this.id = guardCall(core.tapeNew, true, watchAccessedVariables);
      this.persistent = persistent;
      this.closed = false;      // released: after a non-persistent tape's gradient(), or dispose()
      this.recording = true;
      this.customs = [];        // the tl.customGrad calls recorded, in call order (customCall)
      this.watchedAfterClose = null;  // watchedVariables() of a closed non-persistent tape
      this.outerLost = false;   // an inner tape applied a custom gradient this tape recorded (see customGradient)
      recordingTapes.add(this);
    }
    watch(...sources) {
      if (this.closed)
        throw new InvalidArgument('GradientTape.watch: the tape is closed (a non-persistent tape is released by its gradient call)');
      guard(() => core.tapeWatch(this.id, sources.flat().map(source)));
    }
    stopRecording() {
      if (this.closed) return;
      guard(() => core.tapeStop(this.id));
      this.recording = false;
      recordingTapes.delete(this);
    }
    /**
     * d target / d sources: one tensor (or null when the target does not depend on it) per source; `sources`
     * may be a single tensor/variable (then one result) or an array.
     */
    gradient(target, sources, options) {
      if (this.closed)
        throw new InvalidArgument('GradientTape.gradient: a non-persistent tape computes one gradient and is then released; ' +
                                  'use new tl.GradientTape({persistent: true}) to call gradient() several times');
      const unconnectedGradients = options === undefined ? 'none'
        : (checkOptions(options, GRADIENT_OPTIONS, GRADIENT_WHAT).unconnectedGradients ?? 'none');
      const list = Array.isArray(sources) ? sources : [sources];
      if (!(target instanceof Tensor) || target instanceof Variable) {
        const got = target === null ? 'null' : target instanceof Variable ? 'a variable (read() it)' : typeof target;
        throw new InvalidArgument(`GradientTape.gradient: the target must be a tensor, got ${got}`);
      }
      target.checkAlive('GradientTape.gradient: the target');
      const zero = unconnectedGradients === 'zero';
      const grads = this.customs.length === 0 ? this.coreGradient(target, list, zero) : this.customGradient(target, list, zero);
      if (!this.persistent) this.release(true);  // after a failed call the tape stays usable, as the core's does
      return Array.isArray(sources) ? grads : grads[0];
    }
    /** The core's backward pass: d target / d each of `list` (tensors and variables). */
    coreGradient(target, list, zero) {
      let grads;
      let variables = 0, liveTensors = 0;  // how many sources are variables, how many live tensors
      for (const s of list) {
        if (s instanceof Variable) ++variables;
        else if (isLiveTensor(s)) ++liveTensors;
      }
      if (variables === list.length || liveTensors === list.length) {
        // All variables or all live tensors: their handles through the staging area, the gradients in one go.
        const ofVariables = list.length > 0 && variables === list.length;
        grads = engine.wrapResults(guardCall(core.tapeGradientStaged, this.id, target.id, engine.stage(list), ofVariables, zero));
      } else {
        const ids = guard(() => core.tapeGradient(this.id, target.id, list.map(source), zero));
        grads = ids.map((id) => (id === null ? null : engine.wrap(id)));
      }
      return grads;
    }
    /**
     * The gradient through the tl.customGrad calls this tape recorded. Each call's output was cut from its inputs
     * (customCall), so the core's pass does not reach its inputs through it; its gradFunc gives the inputs'
     * gradients dx from the output's gradient dy instead. A call's dy may flow through later calls, so the calls are
     * taken last to first: dy is the core's gradient of the running target for the output, and the target then
     * gains sum(x * stopGradient(dx)) for each float32 input x, whose gradient for x is dx. One core pass per call
     * whose output the target depends on, and one for the sources.
     */
    customGradient(target, list, zero) {
      if (!this.recording)
        throw new InvalidArgument('GradientTape.gradient: the tape recorded a tl.customGrad call and has stopped recording; ' +
                                  'its gradFunc is applied by recording a few ops, so call gradient() before stopRecording()');
      if (this.outerLost)
        throw new InvalidArgument(`GradientTape.gradient: an inner tape applied the gradFunc of a ${CUSTOM_WHAT} call this tape ` +
                                  'recorded; a gradient through gradFunc (second order) is not supported');
      for (const other of recordingTapes)  // outer tapes that recorded a call lose its gradFunc's second order
        if (other !== this && other.customs.some((c) => this.customs.includes(c))) other.outerLost = true;
      const { op } = engine.ops;
      const sumAll = (t) => op('reduce_sum', [t], { axes: [], keepdims: false });
      const made = [];  // the running targets and the calls' gradients: disposed at the end
      let total = target;
      try {
        if (target.dtype === 'float32') made.push(total = sumAll(target));
        for (let c = this.customs.length - 1; c >= 0; --c) {
          const call = this.customs[c];
          if (call.output.dtype !== 'float32') continue;
          const [dy] = this.coreGradient(total, [call.output], false);
          if (dy === null) continue;  // the target does not depend on this call
          made.push(dy);
          // gradFunc's tensors, the dx among them, are the pass's to dispose (a dx it did not make, such as dy, a
          // saved or a captured tensor, is not in the scope).
          const scope = [];
          engine.scopes.push(scope);
          let dxs;
          try {
            dxs = call.backward(dy);
          } finally {
            engine.scopes.pop();
            made.push(...scope);
          }
          for (const [i, x] of call.inputs.entries()) {
            if (x.dtype !== 'float32' || dxs[i] === null) continue;
            const sum = total;
            made.push(total = engine.tidy(() => op('add', [sum, sumAll(op('mul', [x, op('stop_gradient', [dxs[i]])]))])));
          }
        }
        return this.coreGradient(total, list, zero);
      } finally {
        engine.disposeAll([...new Set(made)].filter((t) => !t.isDisposed));
      }
    }
    /** The variables this tape watched (read while recording), in first-read order. */
    watchedVariables() {
      if (this.closed) return (this.watchedAfterClose ?? []).map(fromHandle);
      return guard(() => core.tapeWatched(this.id)).map(fromHandle);
    }
    /** Frees the core's tape and the custom calls' tensors; `keepWatched`: watchedVariables() still answers. */
    release(keepWatched) {
      if (this.closed) return;
      if (keepWatched) this.watchedAfterClose = guard(() => core.tapeWatched(this.id));
      this.closed = true;
      this.recording = false;
      recordingTapes.delete(this);
      core.tapeDispose(this.id);
      for (const call of this.customs) call.release();
      this.customs = [];
    }
    dispose() { this.release(false); }
  }

  /**
   * TF.js' customGrad: customGrad(f)(...inputs) runs f(...inputs, save), which returns {value, gradFunc}; the value
   * is the result, and on a tape gradFunc(dy, saved) gives the inputs' gradients (one tensor, or an array of one
   * per input) from the value's gradient dy, in place of the gradient of f's ops. save(tensors) hands tensors to
   * gradFunc. f runs on its inputs cut from the recording tapes (stopGradient), so its ops are not recorded; each
   * recording tape watches the value and records the call (customGradient applies it). Eager only: a tl.function's
   * graph cannot hold the JavaScript gradFunc.
   */
  function customGrad(f) {
    if (typeof f !== 'function')
      throw new InvalidArgument(`${CUSTOM_WHAT}: f is ${describeValue(f)}; expected a function (...inputs, save) => {value, gradFunc}`);
    return (...args) => {
      if (engine.tracing > 0)
        throw new InvalidArgument(`${CUSTOM_WHAT}: called while tl.function '${engine.traceNames[engine.traceNames.length - 1]}' ` +
                                  'traces; a graph cannot hold the JavaScript gradFunc, so a custom gradient runs eagerly only');
      args.forEach((x, i) => {
        if (!(x instanceof Tensor))
          throw new InvalidArgument(`${CUSTOM_WHAT}: input ${i} is ${describeValue(x)}; expected a tensor (TF.js: the args ` +
                                    'passed in customGrad(f)(x1, x2, ...) must all be tensors)');
        x.checkAlive(`${CUSTOM_WHAT}: input ${i}`);
      });
      const tapes = [...recordingTapes];
      const { op } = engine.ops;
      // What a recorded call keeps while a tape holds it: the cut inputs f saw (gradFunc may close over them) and
      // the call's own handles.
      const own = [];
      let call = null;
      try {
        return engine.tidy(() => {
          const inputs = args.map((x) => (x instanceof Variable ? x.read() : x));
          const cut = tapes.length === 0 ? inputs : inScope(own, () => inputs.map((x) => op('stop_gradient', [x])));
          let saved = [];
          const save = (tensors) => {
            if (!Array.isArray(tensors) || !tensors.every((t) => t instanceof Tensor))
              throw new InvalidArgument(`${CUSTOM_WHAT}: save takes an array of tensors, got ${describeValue(tensors)}`);
            saved = tensors.map((t) => (cut.includes(t) ? inputs[cut.indexOf(t)] : t));  // an input saved is the input
          };
          const result = f(...cut, save);
          const { value, gradFunc } = result !== null && typeof result === 'object' ? result : {};
          if (!(value instanceof Tensor))
            throw new InvalidArgument(`${CUSTOM_WHAT}: f returned ${describeValue(result)}; expected {value, gradFunc} with ` +
                                      `value a tensor (value is ${describeValue(value)})`);
          if (typeof gradFunc !== 'function')
            throw new InvalidArgument(`${CUSTOM_WHAT}: f returned {value, gradFunc} with gradFunc ${describeValue(gradFunc)}; ` +
                                      'expected a function (dy, saved) => gradients');
          if (tapes.length === 0) return value;
          // A new tensor for the value, so watching it watches nothing else (f may return one of its inputs).
          const output = op('stop_gradient', [value]);
          call = customCall(own, inputs, output, saved, gradFunc);
          for (const tape of tapes) {
            if (output.dtype === 'float32') guard(() => core.tapeWatch(tape.id, [{ kind: 'tensor', id: output.id }]));
            call.holders += 1;
            tape.customs.push(call);
          }
          return output;
        });
      } catch (error) {
        if (call === null || call.holders === 0) engine.disposeAll(own.filter((t) => !t.isDisposed));
        throw error;
      }
    };
  }

  /** fn() with the tensors it makes put in `scope` (not the current tidy's). */
  function inScope(scope, fn) {
    engine.scopes.push(scope);
    try {
      return fn();
    } finally {
      engine.scopes.pop();
    }
  }

  /**
   * One recorded tl.customGrad call: its inputs, output and saved tensors (handles of its own in `own`, kept while a
   * tape holds the call) and backward(dy), gradFunc's gradients checked: one per input, each null or of its input's shape.
   */
  function customCall(own, inputs, output, saved, gradFunc) {
    const keep = (t) => inScope(own, () => engine.wrap(core.tensorRetain(t.id)));
    const call = { inputs: inputs.map(keep), output: keep(output), saved: saved.map(keep), holders: 0 };
    call.release = () => {
      if (--call.holders === 0) engine.disposeAll(own.filter((t) => !t.isDisposed));
    };
    call.backward = (dy) => {
      const got = gradFunc(dy, call.saved);
      const dxs = got instanceof Tensor ? [got] : got;
      if (!Array.isArray(dxs) || dxs.length !== call.inputs.length)
        throw new InvalidArgument(`${CUSTOM_WHAT}: gradFunc returned ${describeValue(got)}; expected ${call.inputs.length} ` +
                                  `gradient${call.inputs.length === 1 ? '' : 's'}, one per input (a tensor or an array of tensors)`);
      return dxs.map((dx, i) => {
        if (dx === null || dx === undefined) return null;
        if (!(dx instanceof Tensor))
          throw new InvalidArgument(`${CUSTOM_WHAT}: gradFunc's gradient ${i} is ${describeValue(dx)}; expected a tensor`);
        const x = call.inputs[i];
        if (dx.shape.length !== x.shape.length || dx.shape.some((d, k) => d !== x.shape[k]))
          throw new ShapeError(`${CUSTOM_WHAT}: gradFunc's gradient ${i} has shape [${dx.shape}]; expected input ${i}'s shape [${x.shape}]`);
        return dx;
      });
    };
    return call;
  }

  /** A name no live variable has: 'Variable', then 'Variable_1', 'Variable_2', ... (as TF names them). */
  function unusedName(base = 'Variable') {
    const taken = new Set([...variablesById.values()].map((v) => v.name));
    if (!taken.has(base)) return base;
    for (let n = 1; ; ++n) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
  }

  /** The live variable named `name` (TF.js looks gradients up by name); an InvalidArgument for none or several. */
  function variableNamed(name, what) {
    const found = [...variablesById.values()].filter((v) => v.name === name);
    if (found.length !== 1)
      throw new InvalidArgument(`${what}: ${found.length === 0 ? 'no' : found.length} live variables named ` +
                                `${describeValue(name)}; expected exactly one`);
    return found[0];
  }

  /** f(...args) in a tidy scope: what f creates and does not return is disposed (TF.js tidies f in its gradients). */
  const tidied = (f, args = []) => engine.tidy(() => f(...args));
  /** Disposes a gradient function's value unless it is one of the inputs or a variable. */
  const release = (value, inputs) => {
    if (value instanceof Tensor && !(value instanceof Variable) && !inputs.includes(value)) value.dispose();
  };

  /** The JS Variable for a core variable handle (one object per handle). */
  function fromHandle(id) {
    return variablesById.get(id) ?? new Variable(undefined, undefined, undefined, id);
  }

  /** Runs fn under a tape and disposes the tape afterwards. */
  function withTape(fn) {
    const tape = new GradientTape({ persistent: true });
    try {
      return fn(tape);
    } finally {
      tape.dispose();
    }
  }

  const api = {
    Variable,
    GradientTape,
    customGrad,
    variable: (initial, trainable = true, name = undefined) => new Variable(initial, trainable, name),
    /** TF.js: grads(f)(xs) -> d f(...xs) / d xs. */
    grads: (f) => (xs) => withTape((tape) => {
      tape.watch(xs);
      const y = tidied(f, xs);
      try {
        return tape.gradient(y, xs);
      } finally {
        release(y, xs);
      }
    }),
    /** TF.js: valueAndGrads(f)(xs) -> {value, grads}. */
    valueAndGrads: (f) => (xs) => withTape((tape) => {
      tape.watch(xs);
      const value = tidied(f, xs);
      return { value, grads: tape.gradient(value, xs) };
    }),
    /** TF.js: variableGrads(f, varList) -> {value, grads: {name: tensor}} for the trainable variables f reads. */
    variableGrads: (f, varList) => withTape((tape) => {
      const value = tidied(f);
      const vars = varList ?? [...variablesById.values()].filter((v) => v.trainable && !v.isDisposed);
      const grads = {};
      tape.gradient(value, vars, { unconnectedGradients: 'zero' }).forEach((g, i) => { grads[vars[i].name] = g; });
      return { value, grads };
    }),
  };
  engine.variable = api.variable;  // Tensor.variable()
  return { api, isVariable: (v) => v instanceof Variable, fromHandle, variableNamed };
}
