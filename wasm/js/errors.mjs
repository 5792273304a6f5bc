// Errors from the core arrive as JS Errors named after the C++ class; these subclasses let callers test with
// instanceof (tl.ShapeError, ...) and keep the core's message word for word.

/** The base of every Tracelab error. */
export class TracelabError extends Error {
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
}
/** Shapes that do not fit an op (matmul's inner dims, broadcasting, a signature's fixed dim). */
export class ShapeError extends TracelabError {}
/** Wrong dtypes (int32 where float32 is needed, mixed dtypes). */
export class DTypeError extends TracelabError {}
/** Bad arguments: unknown op or attribute, a disposed tensor, a bad configuration. */
export class InvalidArgument extends TracelabError {}
/** A tensor too large to allocate; the module keeps working. */
export class OutOfMemory extends TracelabError {}
/** Reading values of a symbolic tensor while a function is traced. */
export class OperatorNotAllowedInGraphError extends TracelabError {}
/**
 * AutoGraph could not make graph control flow of a construct (tl.autograph): "cannot convert <construct> at line L,
 * column C: <reason>". `construct`, `line`, `column` (from 1) and `filename` (or null) say where.
 */
export class ConversionError extends TracelabError {
  constructor(message, { construct = null, line = null, column = null, filename = null } = {}) {
    super(message);
    Object.assign(this, { construct, line, column, filename });
  }
}

const byName = { ShapeError, DTypeError, InvalidArgument, OutOfMemory, OperatorNotAllowedInGraphError, ConversionError };

/** The subclass for a core error (by its name); other values are returned unchanged. */
export function translate(error) {
  if (error instanceof TracelabError) return error;
  const Class = error && byName[error.name];
  if (!Class) return error;
  const translated = new Class(error.message);
  return translated;
}

/**
 * The loaded cores, for their stack pointers. A C++ error reaches JavaScript as a JS exception thrown from inside
 * the WebAssembly call (wasm/guard.h), and such an exception unwinds the call's frames without restoring the
 * module's stack pointer (a WebAssembly global): each error would leak its frames' stack, and after enough errors
 * (about a million calls with the JS fuzzer) the 5 MB stack runs into the static data below it and memory is
 * corrupted. guard() puts every core's stack pointer back to what it was before the call when the call throws.
 *
 * Reading a stack pointer is a call into the module, so guard() reads none for an outermost call: with no core
 * call running, every core's stack pointer is the one it had when it was registered (a call that returns puts it
 * back, one that throws is put back here). Only a guard() nested in a running core call (a traced function's
 * body, a log handler) saves them.
 */
const cores = [];
const baselines = [];  // each core's stack pointer with none of its calls running
let depth = 0;         // guard() calls running

/** Registers a loaded core (the loader calls it once per instance, with none of the core's calls running). */
export function registerCore(core) {
  cores.push(core);
  baselines.push(core.stackSave());
}

const saveStacks = () => (cores.length === 1 ? cores[0].stackSave() : cores.map((core) => core.stackSave()));
const restoreStacks = (saved) => {
  if (cores.length === 1) cores[0].stackRestore(Array.isArray(saved) ? saved[0] : saved);
  else cores.forEach((core, i) => { if (i < saved.length) core.stackRestore(saved[i]); });
};

/** Calls fn(); a core error is rethrown as its subclass, with the cores' stacks as they were before the call. */
export function guard(fn) {
  return guardCall(fn);
}

/**
 * guard(() => f(a, b, c, d, e)) without the closure: the hot calls (one per op, per function call, per read) pass the
 * core's function and its arguments.
 */
export function guardCall(f, a, b, c, d, e) {
  const saved = depth === 0 ? baselines : saveStacks();
  const count = arguments.length - 1;  // the core's functions check how many arguments they get
  depth += 1;
  try {
    return count === 0 ? f() : count === 1 ? f(a) : count === 2 ? f(a, b) : count === 3 ? f(a, b, c)
      : count === 4 ? f(a, b, c, d) : f(a, b, c, d, e);
  } catch (error) {
    restoreStacks(saved);
    throw translate(error);
  } finally {
    depth -= 1;
  }
}

/**
 * guard(fn) for a call the core does not know the JS name of (tensorFill is tl.zeros, tl.ones and tl.fill): a core
 * error is rethrown as its subclass with `what` before its message ("tl.zeros: out of memory: ...").
 */
export function guardNamed(what, fn) {
  try {
    return guard(fn);
  } catch (e) {
    if (!(e instanceof TracelabError) || e.message.startsWith(`${what}: `)) throw e;
    throw new e.constructor(`${what}: ${e.message}`);
  }
}

const HOST_KINDS = { float: 'number', int: 'number', bool: 'boolean', string: 'string' };

/**
 * The core words its retrace reasons and warnings for C++ callers ("a C++ float is part of the trace key",
 * "tl::function"); from JavaScript the same facts read in JavaScript's terms.
 */
export function inJavaScriptTerms(text) {
  return String(text)
    .replace(/a C\+\+ (float|int|bool|string)\b/g, (_, kind) => `a JavaScript ${HOST_KINDS[kind]}`)
    .replace(/C\+\+ numbers/g, 'JavaScript numbers')
    .replace(/tl::function/g, 'tl.function')
    .replace('docs/tracing.md (tracing rules)', 'docs/js-api.md (tracing rules)');
}
