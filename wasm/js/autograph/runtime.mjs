// tl.autograph's runtime: what converted code calls. Each call decides when it runs, as TF's AutoGraph operators
// do: a plain JavaScript condition takes the plain JavaScript path; a tensor condition in eager mode is read (a
// bool scalar, else a ConversionError naming the construct and its line); a *symbolic* tensor — one exists only
// while tl.function traces — stages the statement as tl.cond / tl.whileLoop, with the statement's state
// variables as the branch outputs / loop variables.
import { ConversionError } from '../errors.mjs';
import { Tensor } from '../tensor.mjs';
import { makeLoops } from './runtime_loops.mjs';
import { branchOutputs, describeValue, unflatten } from './runtime_state.mjs';

/** The ConversionError "cannot convert <where>: <reason>", with construct, line, column and filename fields. */
export function conversionError(where, reason) {
  const m = /^(.*?)(?: at line (\d+), column (\d+)(?: of (.*))?)?$/s.exec(where);
  const number = (text) => (text ? Number(text) : null);
  return new ConversionError(`cannot convert ${where}: ${reason}`,
                             { construct: m[1], line: number(m[2]), column: number(m[3]), filename: m[4] ?? null });
}

/** The shared helpers of the runtime for one loaded module (`tl`, `engine`). */
function makeCore(tl, engine) {
  const rt = { tl, engine, probing: 0, loopScope: null };
  rt.fail = (where, reason) => { throw conversionError(where, reason); };
  rt.predicate = (value, where, what = 'the condition') => {
    if (value.dtype === 'bool' && value.rank === 0) return value;
    return rt.fail(where, `${what} must be a bool scalar tensor, got ${describeValue(value)}; compare it ` +
                          '(x.greater(0)) and reduce it (tl.sum, tl.max) first');
  };
  rt.truth = (t) => t.dataSync()[0] !== 0;
  rt.stateAccess = (getState, setState, names, nouts) => ({
    get: () => (getState ? getState() : []),
    set: (values) => setState?.(values),
    names: names ? names.split(',') : [],
    nouts,
  });
  rt.branch = (test, body, orelse, state, where) =>
    (rt.probing > 0 ? probeIf(body, orelse, state) : stagedIf(rt, test, body, orelse, state, where));
  return rt;
}

/** Staged if: tl.cond whose branches run the closures and output the state's live variables. */
function stagedIf(rt, test, body, orelse, state, where) {
  const init = state.get();
  const live = init.slice(0, state.nouts);
  const rest = init.slice(state.nouts);
  const record = { first: null };
  const fail = (reason) => rt.fail(where, reason);
  const branch = (fn, which) => () => {
    state.set(init);
    fn?.();
    return branchOutputs(rt.tl, state.get().slice(0, state.nouts), live, state.names, which, record, fail);
  };
  const outputs = rt.tl.cond(test, branch(body, 'main'), branch(orelse, 'else'));
  state.set([...unflatten(outputs, record.first, live), ...rest]);
}

/** While a loop's first iteration is traced for its variables' types, both branches run in line. */
function probeIf(body, orelse, state) {
  const init = state.get();
  body();
  const taken = state.get();
  state.set(init);
  orelse?.();
  const other = state.get();
  state.set(taken.map((v, i) => (v !== undefined ? v : other[i])));
}

function makeConditionals(rt) {
  const { tl } = rt;
  const isSymbolic = (test, where, what) => test instanceof Tensor && rt.predicate(test, where, what).symbolic;
  const plain = (test) => (test instanceof Tensor ? rt.truth(test) : test);

  /** if (test) body() else orelse(), over the state getState() / setState(values) names ("a,b"), nouts live. */
  function ifStmt(test, body, orelse, getState, setState, names, nouts, where) {
    if (!isSymbolic(test, where)) return void (plain(test) ? body() : orelse?.());
    rt.branch(test, body, orelse, rt.stateAccess(getState, setState, names, nouts), where);
  }

  /** test ? whenTrue() : whenFalse(). */
  function ifExp(test, whenTrue, whenFalse, where) {
    if (!isSymbolic(test, where)) return plain(test) ? whenTrue() : whenFalse();
    const record = { first: null };
    const fail = (reason) => rt.fail(where, reason);
    const branch = (fn, which) => () => branchOutputs(tl, [fn()], [undefined], ['value of the expression'], which, record, fail);
    const outputs = tl.cond(test, branch(whenTrue, 'main'), branch(whenFalse, 'else'));
    return unflatten(outputs, record.first, [undefined])[0];
  }

  const operand = (value, where, op) => {
    if (typeof value === 'boolean') return tl.scalar(value, 'bool');
    if (value instanceof Tensor && value.dtype === 'bool' && value.rank === 0) return value;
    return rt.fail(where, `the right operand of '${op}' must be a bool scalar tensor or a boolean when the left one is ` +
                          `a tensor, got ${describeValue(value)}`);
  };

  /** a && right(): a tensor `a` chooses with tl.cond, so right() still runs only when a is true. */
  function and(a, right, where) {
    if (!isSymbolic(a, where, 'the left operand')) return plain(a) ? right() : a;
    return tl.cond(a, () => [operand(right(), where, '&&')], () => [a])[0];
  }

  /** a || right(). */
  function or(a, right, where) {
    if (!isSymbolic(a, where, 'the left operand')) return plain(a) ? a : right();
    return tl.cond(a, () => [a], () => [operand(right(), where, '||')])[0];
  }

  /** !a: a bool tensor's logical not (element-wise), else JavaScript's. */
  function not(a, where) {
    if (!(a instanceof Tensor)) return !a;
    if (a.dtype !== 'bool') rt.fail(where, `the operand must be a bool tensor, got ${describeValue(a)}; compare it first (x.greater(0))`);
    return tl.equal(a, false);
  }

  /** The condition of a construct that stays plain JavaScript: a symbolic tensor there is the ConversionError. */
  function test(value, where, reason) {
    if (!(value instanceof Tensor)) return value;
    rt.predicate(value, where);
    if (value.symbolic) rt.fail(where, reason);
    return rt.truth(value);
  }

  return { ifStmt, ifExp, and, or, not, test };
}

/** The runtime object behind tl.autograph (besides convert / toCode, added by autograph.mjs). */
export function makeRuntime(tl, engine) {
  const rt = makeCore(tl, engine);
  return { ...makeConditionals(rt), ...makeLoops(rt) };
}
