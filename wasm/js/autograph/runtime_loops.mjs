// tl.autograph's loops. A loop runs as JavaScript until its condition is a symbolic tensor; from then on the rest
// of it is one tl.whileLoop whose loop variables are the loop's state (TF's AutoGraph decides on the first
// test; deciding on each test also lets a loop whose flag turns symbolic mid-way finish in the graph).
// `for...of` over a tensor walks its first dimension: eagerly row by row, while tracing a tl.whileLoop over an
// index with gather; over a tl.data Dataset inside tl.function it is the dataset's in-graph forEach.
import { Tensor } from '../tensor.mjs';
import { InvalidArgument } from '../errors.mjs';
import { kindOf, loopInputs, loopLayouts, loopOutputs, shapeText, subject, subshape, unflatten } from './runtime_state.mjs';

export function makeLoops(rt) {
  const { tl } = rt;
  const fail = (where) => (reason) => rt.fail(where, reason);

  /** A tensor or plain value as the loop's predicate tensor. */
  const asPredicate = (value, where) =>
    (value instanceof Tensor ? rt.predicate(value, where) : tl.scalar(Boolean(value), 'bool'));

  /** Traces one iteration in a loop that never runs (maximumIterations 0) and returns its state's kinds. */
  function firstIteration(body, state, init) {
    let after = null;
    rt.probing += 1;
    try {
      tl.whileLoop(() => tl.scalar(false, 'bool'), () => {
        state.set(init);
        inScope(null, body);
        after = state.get().slice(0, state.nouts).map((v) => kindOf(v));
        return [];
      }, [], { maximumIterations: 0 });
    } finally {
      rt.probing -= 1;
      state.set(init);
    }
    return after;
  }

  /** The rest of a loop as one tl.whileLoop over the state's live variables. */
  function stagedWhile(test, body, state, where, maximumIterations = -1) {
    const init = state.get();
    const live = init.slice(0, state.nouts);
    const rest = init.slice(state.nouts);
    const layouts = loopLayouts(live, state.names, () => firstIteration(body, state, init), fail(where));
    const enter = (vars) => state.set([...unflatten(vars, layouts, live), ...rest]);
    const cond = (...vars) => {
      enter(vars);
      return asPredicate(test(), where);
    };
    const step = (...vars) => {
      enter(vars);
      const scope = { entry: vars, invariants: [], where };
      inScope(scope, body);
      return loopOutputs(tl, state.get().slice(0, state.nouts), vars, layouts, live, state.names, fail(where), scope.invariants);
    };
    const inputs = loopInputs(tl, live, layouts);
    const outputs = tl.whileLoop(cond, step, inputs, { maximumIterations });
    enter(outputs);
  }

  /**
   * Runs `body` with `scope` as the loop setLoopOptions speaks to: a staged loop's iteration ({entry: the loop
   * variables as it entered, invariants: shapes by entry index, where}), or null for a loop that runs as JavaScript
   * (and for a probe), whose options change nothing.
   */
  function inScope(scope, body, ...args) {
    if (rt.loopScope === scope) return body(...args);
    const outer = rt.loopScope;
    rt.loopScope = scope;
    try {
      return body(...args);
    } finally {
      rt.loopScope = outer;
    }
  }

  /** A plain loop's body: inside a staged loop, its setLoopOptions are its own (and change nothing). */
  const plainBody = (body, ...args) => (rt.loopScope ? inScope(null, body, ...args) : body(...args));

  /** `state()` makes the state accessors: only a staged loop needs them. */
  function runWhile(test, body, state, where) {
    for (;;) {
      const c = test();
      if (c instanceof Tensor) {
        if (rt.predicate(c, where).symbolic) return rt.probing > 0 ? plainBody(body) : stagedWhile(test, body, state(), where);
        if (!rt.truth(c)) return;
      } else if (!c) {
        return;
      }
      plainBody(body);
    }
  }

  /**
   * tl.autograph.setLoopOptions({ shapeInvariants: [[variable, shape], ...] }), at the top of a loop's body (TF's
   * tf.autograph.experimental.set_loop_options): each named loop variable may change the dims given as null (or
   * -1) from one iteration to the next. Eagerly, and in a loop that runs as JavaScript, it changes nothing.
   */
  function setLoopOptions(options) {
    const pairs = loopOptionPairs(options);
    const scope = rt.loopScope;
    if (!scope) return;
    pairs.forEach(([value, shape], i) => {
      const k = scope.entry.indexOf(value);
      if (k < 0)
        rt.fail(scope.where, `shapeInvariants[${i}] is not one of the loop's variables as this iteration entered it; call ` +
                             'setLoopOptions at the top of the loop body, before the variable is assigned');
      const dims = shape.map((d) => (d === null ? -1 : d));
      if (!subshape(value.shape, dims))
        rt.fail(scope.where, `shapeInvariants[${i}] gives shape ${shapeText(dims)} for a variable of shape ${shapeText(value.shape)}; ` +
                             'keep its rank and its known dims, with null where a dim may change');
      scope.invariants[k] = dims;
    });
  }

  /** The [tensor, shape] pairs of setLoopOptions' argument, checked. */
  function loopOptionPairs(options) {
    const what = 'tl.autograph.setLoopOptions';
    if (options === null || typeof options !== 'object') throw new InvalidArgument(`${what}: expected an options object, got ${options}`);
    const unknown = Object.keys(options).filter((key) => key !== 'shapeInvariants');
    if (unknown.length) throw new InvalidArgument(`${what}: unknown option '${unknown[0]}' (the one option is shapeInvariants)`);
    const pairs = options.shapeInvariants ?? [];
    if (!Array.isArray(pairs)) throw new InvalidArgument(`${what}: shapeInvariants must be an array of [tensor, shape] pairs`);
    pairs.forEach((pair, i) => {
      const ok = Array.isArray(pair) && pair.length === 2 && pair[0] instanceof Tensor && Array.isArray(pair[1]) &&
                 pair[1].every((d) => d === null || (Number.isInteger(d) && d >= -1));
      if (!ok) throw new InvalidArgument(`${what}: shapeInvariants[${i}] must be [tensor, shape] with shape an array of ` +
                                         'non-negative integers and nulls, e.g. [s, [null, 3]]');
    });
    return pairs;
  }

  /** while (test()) body(). */
  function whileStmt(test, body, getState, setState, names, nouts, where) {
    runWhile(test, body, () => rt.stateAccess(getState, setState, names, nouts), where);
  }

  /** do body() while (test()). */
  function doWhileStmt(test, body, getState, setState, names, nouts, where) {
    plainBody(body);
    runWhile(test, body, () => rt.stateAccess(getState, setState, names, nouts), where);
  }

  /** A tensor's rows (eagerly). */
  function* rows(t, where) {
    if (t.rank === 0) rt.fail(where, `cannot iterate over a ${t.dtype} scalar tensor; a for...of loop walks a tensor's first dimension`);
    for (let i = 0; i < t.shape[0]; ++i) {
      const index = tl.scalar(i, 'int32');
      const row = tl.gather(t, index);
      index.dispose();
      yield row;
    }
  }

  /** The length of a tensor's first dimension as an int32 scalar (computed in the graph when unknown). */
  function lengthOf(t, where) {
    if (t.rank === 0) rt.fail(where, `cannot iterate over a ${t.dtype} scalar tensor; a for...of loop walks a tensor's first dimension`);
    if (t.shape[0] >= 0) return { tensor: tl.scalar(t.shape[0], 'int32'), known: t.shape[0] };
    const asFloat = tl.cast(t, 'float32');
    const perRow = t.rank === 1 ? asFloat : tl.max(asFloat, Array.from({ length: t.rank - 1 }, (_, i) => i + 1));
    return { tensor: tl.cast(tl.sum(tl.onesLike(perRow)), 'int32'), known: -1 };
  }

  /** for (x of tensor) while tracing: TF's loop over an index, the index one more loop variable. */
  function tensorFor(t, extraTest, body, state, where) {
    const n = lengthOf(t, where);
    let index = tl.scalar(0, 'int32');
    const indexed = {
      get: () => [index, ...state.get()],
      set: (values) => { index = values[0]; state.set(values.slice(1)); },
      names: ['iteration index', ...state.names],
      nouts: state.nouts + 1,
    };
    const test = () => {
      const more = tl.less(index, n.tensor);
      if (!extraTest) return more;
      const extra = extraTest();
      if (!(extra instanceof Tensor)) return extra ? more : tl.scalar(false, 'bool');
      return tl.where(more, rt.predicate(extra, where), more);
    };
    const step = () => {
      body(tl.gather(t, index));
      index = index.add(tl.scalar(1, 'int32'));  // a plain 1 would be float32 (TF.js' promotion)
    };
    if (rt.probing > 0) step();
    else stagedWhile(test, step, indexed, where, n.known);
  }

  /** for (x of dataset) inside tl.function: Dataset.forEach, ONE graph node, which carries no state. */
  function datasetFor(dataset, extraTest, body, state, where) {
    const node = 'inside tl.function a loop over a tl.data Dataset runs as one graph node (Dataset.forEach), which';
    if (extraTest) rt.fail(where, `${node} cannot stop early: 'break' and 'return' in it are not supported`);
    if (state.nouts > 0)
      rt.fail(where, `${node} carries no loop variables, but ${subject(state.names[0])} is assigned in it and used after ` +
                     'it; accumulate in a tl.Variable (assign, assignAdd) instead');
    const init = state.get();
    dataset.forEach((...components) => { plainBody(body, components); });
    state.set(init);
  }

  /** A plain iteration; once the extra test (the loop's flags) is symbolic, each further body runs under it (`state()`
   *  makes the state accessors). */
  function plainFor(iterable, extraTest, body, state, where) {
    let guard = null;
    const proceed = () => {
      if (!extraTest) return true;
      const extra = extraTest();
      if (!(extra instanceof Tensor)) return Boolean(extra);
      if (rt.predicate(extra, where).symbolic) guard = extra;
      return guard !== null || rt.truth(extra);
    };
    if (!proceed()) return;
    for (const item of iterable) {
      if (guard) rt.branch(guard, () => plainBody(body, item), null, state(), where);
      else plainBody(body, item);
      if (!proceed()) break;
    }
  }

  /** for (item of iterable) body(item), with the loop's flags in extraTest(). */
  function forOfStmt(iterable, extraTest, body, getState, setState, names, nouts, where) {
    const state = () => rt.stateAccess(getState, setState, names, nouts);
    if (iterable instanceof Tensor) {
      if (iterable.symbolic || rt.engine.tracing > 0) return tensorFor(iterable, extraTest, body, state(), where);
      return plainFor(rows(iterable, where), extraTest, body, state, where);
    }
    if (iterable instanceof tl.data.Dataset && rt.engine.tracing > 0) return datasetFor(iterable, extraTest, body, state(), where);
    return plainFor(iterable, extraTest, body, state, where);
  }

  function* keysOf(object) {
    for (const key in object) yield key;
  }

  /** for (key in object) body(key): always plain (keys are strings), with the loop's flags in extraTest(). */
  function forInStmt(object, extraTest, body, getState, setState, names, nouts, where) {
    plainFor(keysOf(object), extraTest, body, () => rt.stateAccess(getState, setState, names, nouts), where);
  }

  /** The iterable of a for...of loop that stays plain JavaScript: a symbolic tensor is the ConversionError. */
  function iter(iterable, where, reason) {
    if (!(iterable instanceof Tensor)) return iterable;
    if (iterable.symbolic) rt.fail(where, reason);
    return rows(iterable, where);
  }

  return { whileStmt, doWhileStmt, forOfStmt, forInStmt, iter, setLoopOptions };
}
