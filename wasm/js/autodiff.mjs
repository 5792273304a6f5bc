// Variables and gradients: tl.variable, tl.GradientTape (the tape the articles use) and TF.js' tl.grads /
// tl.valueAndGrads / tl.variableGrads, all on the core's one tape.
import { guard, guardCall, InvalidArgument } from './errors.mjs';
import { isLiveTensor, Tensor, VARIABLE } from './tensor.mjs';
import { checkOptions, describeValue } from './values.mjs';

/** The options of tl.GradientTape and of its gradient(), and how errors name them. */
const TAPE_OPTIONS = { persistent: 'boolean', watchAccessedVariables: 'boolean' };
const TAPE_WHAT = { what: 'tl.GradientTape' };
const GRADIENT_OPTIONS = { unconnectedGradients: (v) => (v === 'none' || v === 'zero' ? null : "'none' or 'zero'") };
const GRADIENT_WHAT = { what: 'GradientTape.gradient' };

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

  /** Records ops from construction until stopRecording() (or dispose()); gradient() differentiates them. */
  class GradientTape {
    constructor(options) {
      if (options === undefined) {
        this.id = guardCall(core.tapeNew, false, true);
        return;
      }
      const { persistent = false, watchAccessedVariables = true } = checkOptions(options, TAPE_OPTIONS, TAPE_WHAT);
      this.id = guardCall(core.tapeNew, persistent, watchAccessedVariables);
    }
    watch(...sources) { guard(() => core.tapeWatch(this.id, sources.flat().map(source))); }
    stopRecording() { guard(() => core.tapeStop(this.id)); }
    /**
     * d target / d sources: one tensor (or null when the target does not depend on it) per source; `sources`
     * may be a single tensor/variable (then one result) or an array.
     */
    gradient(target, sources, options) {
      const unconnectedGradients = options === undefined ? 'none'
        : (checkOptions(options, GRADIENT_OPTIONS, GRADIENT_WHAT).unconnectedGradients ?? 'none');
      const list = Array.isArray(sources) ? sources : [sources];
      if (!(target instanceof Tensor) || target instanceof Variable) {
        const got = target === null ? 'null' : target instanceof Variable ? 'a variable (read() it)' : typeof target;
        throw new InvalidArgument(`GradientTape.gradient: the target must be a tensor, got ${got}`);
      }
      target.checkAlive('GradientTape.gradient: the target');
      const zero = unconnectedGradients === 'zero';
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
      return Array.isArray(sources) ? grads : grads[0];
    }
    /** The variables this tape watched (read while recording), in first-read order. */
    watchedVariables() { return guard(() => core.tapeWatched(this.id)).map(fromHandle); }
    dispose() { core.tapeDispose(this.id); }
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
