// The state a staged statement pipes through tl.cond / tl.whileLoop: each variable's value is a *leaf* (a tensor,
// a number or a boolean — numbers and booleans become tensors in the graph, as TF's AutoGraph converts Python
// values), an array of leaves, undefined, or any other value, which may pass through unchanged. A layout records
// each variable's kind and its leaves' dtypes and shapes; the checks here give TensorFlow's messages, naming the
// variable, the branch or the iteration.
import { Tensor } from '../tensor.mjs';

const isLeaf = (v) => v instanceof Tensor || typeof v === 'number' || typeof v === 'boolean';
const isLeafArray = (v) => Array.isArray(v) && v.every(isLeaf);

/** A shape as TensorFlow prints it: (2, 3), (None, 3), (). */
export const shapeText = (shape) => `(${shape.map((d) => (d < 0 ? 'None' : d)).join(shape.length === 1 ? '' : ', ')}${shape.length === 1 ? ',' : ''})`;

/** 'y' for a user's variable, "the return value" for one the converter made. */
export const subject = (name) => (name.includes(' ') ? `the ${name}` : `'${name}'`);

export function describeValue(v) {
  if (v instanceof Tensor) return `a ${v.dtype} tensor of shape ${shapeText(v.shape)}`;
  if (v === undefined || v === null) return String(v);
  if (Array.isArray(v)) return isLeafArray(v) ? `an array of ${v.length} tensor${v.length === 1 ? '' : 's'}` : 'an array of non-tensors';
  if (typeof v === 'number' || typeof v === 'boolean') return `the ${typeof v} ${v}`;
  if (typeof v === 'string') return "a string (JavaScript's + on a tensor makes one: use .add())";
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

const metaOf = (v, dtype) => (v instanceof Tensor ? { dtype: v.dtype, shape: v.shape }
  : { dtype: typeof v === 'boolean' ? 'bool' : dtype ?? 'float32', shape: [] });

/** A leaf as a tensor of `dtype` (numbers and booleans become scalars). */
export function asTensor(tl, v, dtype) {
  if (v instanceof Tensor) return v;
  return tl.scalar(v, typeof v === 'boolean' ? 'bool' : dtype ?? 'float32');
}

/** {kind: 'leaf' | 'array' | 'undefined' | 'other', metas, text} of a value; `hints` give numbers their dtype. */
export function kindOf(v, hints = []) {
  if (isLeaf(v)) return { kind: 'leaf', metas: [metaOf(v, hints[0])], text: describeValue(v) };
  if (isLeafArray(v)) return { kind: 'array', metas: v.map((x, j) => metaOf(x, hints[j])), text: describeValue(v) };
  return { kind: v === undefined ? 'undefined' : 'other', metas: [], text: describeValue(v) };
}

const compatible = (a, b) => a.length === b.length && a.every((d, i) => d < 0 || b[i] < 0 || d === b[i]);
/** left is at least as specific as right (right's unknown dims accept anything). */
export const subshape = (left, right) => left.length === right.length && right.every((d, i) => d < 0 || d === left[i]);

/** The tensors of a value laid out as `layout` (a 'same' or undefined value has none). */
export function leaves(tl, v, layout) {
  if (layout.kind === 'leaf') return [asTensor(tl, v, layout.metas[0].dtype)];
  if (layout.kind === 'array') return v.map((x, j) => asTensor(tl, x, layout.metas[j].dtype));
  return [];
}

/** The values for `layouts` from a flat list of tensors; 'same' values come from `initial`. */
export function unflatten(tensors, layouts, initial) {
  let next = 0;
  return layouts.map((layout, i) => {
    if (layout.kind === 'leaf') return tensors[next++];
    if (layout.kind === 'array') { next += layout.metas.length; return tensors.slice(next - layout.metas.length, next); }
    return layout.kind === 'undefined' ? undefined : initial[i];
  });
}

/**
 * One branch of a staged if: its values' layouts, checked against the branch traced first (`record`), and
 * their tensors (the branch's outputs). `fail(reason)` throws the ConversionError.
 */
export function branchOutputs(tl, values, initial, names, branch, record, fail) {
  const layouts = values.map((v, i) => {
    const other = record.first?.[i];
    const hints = other?.metas.map((m) => m.dtype) ?? (initial[i] instanceof Tensor ? [initial[i].dtype] : []);
    const layout = kindOf(v, hints);
    if (layout.kind !== 'other') return layout;
    if (v === initial[i]) return { ...layout, kind: 'same' };
    return fail(`${subject(names[i])} is ${layout.text} in the ${branch} branch; a tensor condition can only choose ` +
                'between tensors, numbers and booleans (or arrays of them)');
  });
  if (!record.first) Object.assign(record, { first: layouts, branch });
  else layouts.forEach((l, i) => compareBranches(record.first[i], l, names[i], record.branch, branch, fail));
  return layouts.flatMap((l, i) => leaves(tl, values[i], l));
}

function compareBranches(a, b, name, branchA, branchB, fail) {
  if (a.kind === b.kind && (a.kind === 'undefined' || a.kind === 'same')) return;
  const isReturn = name === 'return value';
  if (a.kind === 'undefined' || b.kind === 'undefined') {
    const missing = a.kind === 'undefined' ? branchA : branchB;
    fail(isReturn ? `the ${missing} branch must also have a return statement`
                  : `${subject(name)} must also be defined in the ${missing} branch (it is used after the if statement)`);
  }
  if (a.kind !== b.kind || a.metas.length !== b.metas.length) {
    fail(isReturn ? `the ${branchA} branch returns ${a.text} but the ${branchB} branch returns ${b.text}; both must return the same structure`
                  : `${subject(name)} is ${a.text} in the ${branchA} branch but ${b.text} in the ${branchB} branch; both ` +
                    'branches must give it the same structure');
  }
  a.metas.forEach((ma, j) => {
    const mb = b.metas[j];
    const what = a.kind === 'array' ? `element ${j} of ${subject(name)}` : subject(name);
    if (ma.dtype !== mb.dtype) fail(`${what} has dtype ${ma.dtype} in the ${branchA} branch, but ${mb.dtype} in the ${branchB} branch`);
    if (!compatible(ma.shape, mb.shape))
      fail(`${what} has shape ${shapeText(ma.shape)} in the ${branchA} branch, but ${shapeText(mb.shape)} in the ${branchB} branch`);
  });
}

/**
 * The layouts of a tensor loop's variables. Undefined ones (a `let` assigned only in the loop, the return value
 * of an early return) take their kind from `firstIteration()` — one iteration traced in a sandbox — and enter
 * the loop as zeros of that kind (TF's placeholder values), their shapes checked against what it found.
 */
export function loopLayouts(values, names, firstIteration, fail) {
  const layouts = values.map((v) => {
    const layout = kindOf(v);
    return layout.kind === 'other' ? { ...layout, kind: 'same' } : layout;
  });
  if (!layouts.some((l) => l.kind === 'undefined')) return layouts;
  const after = firstIteration();
  return layouts.map((l, i) => {
    if (l.kind !== 'undefined') return l;
    if (after[i].kind !== 'leaf' && after[i].kind !== 'array')
      fail(`${subject(names[i])} must be defined before the loop (it is ${after[i].text} after one iteration)`);
    return { ...after[i], placeholder: true };
  });
}

/** The tensors a loop starts from (zeros for a placeholder, unknown dims as 0). */
export function loopInputs(tl, values, layouts) {
  return layouts.flatMap((l, i) => (l.placeholder
    ? l.metas.map((m) => tl.zeros(m.shape.map((d) => Math.max(d, 0)), m.dtype))
    : leaves(tl, values[i], l)));
}

/** One iteration's result as loop outputs, checked against the iteration's entry (`entry`, flat tensors). */
export function loopOutputs(tl, exit, entry, layouts, initial, names, fail, invariants = []) {
  let next = 0;
  return layouts.flatMap((layout, i) => {
    const v = exit[i];
    if (layout.kind === 'same') {
      if (v !== initial[i]) fail(`${subject(names[i])} is ${describeValue(initial[i])} before the loop and changes in it; a ` +
                                 'tensor loop can only carry tensors, numbers and booleans (or arrays of them)');
      return [];
    }
    const got = kindOf(v, layout.metas.map((m) => m.dtype));
    if (got.kind !== layout.kind || got.metas.length !== layout.metas.length)
      fail(`${subject(names[i])} is ${v === undefined ? 'undefined' : got.text} at the end of an iteration but ` +
           `${layout.kind === 'leaf' ? 'a tensor' : `an array of ${layout.metas.length} tensors`} before the loop`);
    const tensors = leaves(tl, v, layout);
    tensors.forEach((t, j) => checkIteration(entry[next + j], t, invariants[next + j] ?? (layout.placeholder ? layout.metas[j].shape : null),
                                             layout.kind === 'array' ? `element ${j} of ${subject(names[i])}` : subject(names[i]), fail));
    next += tensors.length;
    return tensors;
  });
}

function checkIteration(before, after, invariant, what, fail) {
  if (before.dtype !== after.dtype)
    fail(`${what} has dtype ${before.dtype} before the loop, but dtype ${after.dtype} after one iteration`);
  if (!subshape(after.shape, invariant ?? before.shape))
    fail(`${what} has shape ${shapeText(invariant ?? before.shape)} before the loop, but shape ${shapeText(after.shape)} ` +
         'after one iteration; a tensor loop keeps the shapes of its variables unless relaxed: call ' +
         "tl.autograph.setLoopOptions({ shapeInvariants: [[variable, shape]] }) at the top of the loop's body, " +
         'with null for each dimension that may change');
}
