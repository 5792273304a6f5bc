// Differential tests against TensorFlow.js: every op docs/tfjs-compat.md marks supported (scripts/tfjs_compat.mjs
// decides, so new ops join by themselves) runs through Tracelab and through TF.js' cpu backend in this process on the
// same inputs — several shapes, broadcasting, edge values (0, negatives, ±inf, NaN), empty tensors — and must give
// the same shape, dtype and values (float32: |a - b| <= 1e-5 + 1e-5·|b|, ±inf and NaN exactly), the same gradients
// (tf.grads against tl.grads, of sum(y · w) for a fixed w, on the cases without edge values), and, traced by
// tl.function, the eager values. A supported op with no case here fails, as does a supported Tensor method whose op
// has cases and that answers differently. Where Tracelab differs on purpose (NOTES in scripts/tfjs_compat.mjs, shown in
// docs/tfjs-compat.md) the case checks Tracelab's documented answer instead; any other difference fails. Needs
// TensorFlow.js (bench/js, installed by scripts/setup.sh test): without it the tests fail when TRACELAB_REQUIRE_TFJS or CI is set (scripts/test.sh), and are skipped otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { installed as oracleInstalled, missing, skip, tf } from './tfjs_oracle.mjs';

const { COMMAND, NOTES, TFJS_CORE, compatTable, loadTracelabForCompat } = await import('../../scripts/tfjs_compat.mjs');

// The compatibility table reads TF.js' declarations (tfjs-core's dist/index.d.ts) as well as running TF.js.
const installed = oracleInstalled && existsSync(`${TFJS_CORE}/dist/index.d.ts`);

// ---------------------------------------------------------------------------------------------------------------
// Inputs. f(shape, values?) float32, i(shape, values?) int32, b(shape, values?) bool; without values, deterministic
// ones spread over [lo, hi) (no ties, no zeros: gradients of max, abs, relu are then defined the same way).

let seed = 7;
const next = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
const sizeOf = (shape) => shape.reduce((a, n) => a * n, 1);
const spread = (n, lo, hi) => Array.from({ length: n }, () => {
  const v = lo + (hi - lo) * next();
  return Math.round((Math.abs(v) < 0.05 ? v + 0.1 : v) * 1000) / 1000;
});
const f = (shape, values, [lo, hi] = [-2, 2]) => ({ dtype: 'float32', shape, values: values ?? spread(sizeOf(shape), lo, hi) });
const pos = (shape, lo = 0.2, hi = 3) => f(shape, undefined, [lo, hi]);
const held = (spec) => ({ ...spec, held: true });  // a float input the gradient holds constant (a loss' weights)
const i = (shape, values) => ({ dtype: 'int32', shape,
                                values: values ?? Array.from({ length: sizeOf(shape) }, () => Math.floor(next() * 9) - 4) });
const b = (shape, values) => ({ dtype: 'bool', shape, values: values ?? Array.from({ length: sizeOf(shape) }, () => next() < 0.5) });
const EDGE = [0, -0, 1, -1, 2.5, -3.5, 0.5, -0.5, 1.5, Infinity, -Infinity, NaN];
const edge = (values = EDGE) => ({ ...f([values.length], values), edge: true });

// Case lists shared by op families. A case: {in: [input specs], args: [non-tensor arguments], grad: false to skip
// the gradient (with the reason beside it), differs: the one respect in which Tracelab differs on purpose (NOTES in
// scripts/tfjs_compat.mjs says why): {throws: error class} | {values: Tracelab's values} | {dtype: Tracelab's dtype} |
// {grads: Tracelab's gradient values per float input, null for a null gradient} | {read: what a reading method gives}}.
// Inputs with edge values get no gradient.
const unaryCases = (domain = [-2, 2], edges = EDGE) => [
  { in: [f([5], undefined, domain)] },
  { in: [f([2, 3], undefined, domain)] },
  { in: [f([2, 1, 3], undefined, domain)] },
  { in: [f([], [Math.round((domain[0] * 0.3 + domain[1] * 0.7) * 1000) / 1000])] },
  { in: [f([0, 3])] },
  { in: [edge(edges)] },
];
// broadcastGrad: false where TF.js' gradient of a broadcast input fails (its maximum / minimum / squaredDifference
// gradients do not reduce to the input's shape: "Error in gradient for op Maximum").
const binaryCases = (domain = [-2, 2], other = domain, broadcastGrad = true) => [
  { in: [f([2, 3], undefined, domain), f([2, 3], undefined, other)] },
  { in: [f([2, 3], undefined, domain), f([3], undefined, other)], grad: broadcastGrad },
  { in: [f([2, 1], undefined, domain), f([1, 3], undefined, other)], grad: broadcastGrad },
  { in: [f([], [1.5]), f([2, 2], undefined, other)], grad: broadcastGrad },
  { in: [f([0, 3]), f([3], undefined, other)] },
  { in: [edge(), edge([...EDGE].reverse())] },
  { in: [edge(), edge(EDGE.map(() => 0))] },
];
const intBinaryCases = () => [{ in: [i([2, 3]), i([2, 3])] }, { in: [i([2, 3]), i([3])] }];
const logicalCases = () => [{ in: [b([2, 3]), b([2, 3])] }, { in: [b([2, 3]), b([3])] }, { in: [b([0]), b([0])] }];
const reductionCases = (x = () => f([2, 3, 4])) => [
  { in: [x()] }, { in: [x()], args: [0] }, { in: [x()], args: [1] }, { in: [x()], args: [-1] },
  { in: [x()], args: [[0, 2]] }, { in: [x()], args: [1, true] }, { in: [x()], args: [null, true] },
  { in: [f([5])], args: [0] },
];
// The reduction cases on bools (tf.all, tf.any take bool tensors only).
const boolReductionCases = () => reductionCases(() => b([2, 3, 4])).map((c) => (c.in[0].dtype === 'bool' ? c : { ...c, in: [b([5])] }));
// floor(a / b) of two float32 input specs, broadcast: the values Tracelab's floorDiv must give.
const floorDivided = ([a, b]) => {
  const rank = Math.max(a.shape.length, b.shape.length), pad = (s) => [...Array(rank - s.length).fill(1), ...s];
  const sa = pad(a.shape), sb = pad(b.shape), out = sa.map((d, k) => (d === 1 ? sb[k] : d));
  const offset = (s, index) => index.reduce((o, v, k) => o * s[k] + (s[k] === 1 ? 0 : v), 0);
  return Array.from({ length: sizeOf(out) }, (_, j) => {
    const index = [];
    for (let k = rank - 1, rest = j; k >= 0; --k, rest = Math.floor(rest / out[k + 1])) index[k] = rest % out[k];
    return Math.floor(Math.fround(a.values[offset(sa, index)]) / Math.fround(b.values[offset(sb, index)]));
  });
};
const comparison = { cases: () => [...binaryCases(), ...intBinaryCases()], grad: false };
const unary = (domain, edges) => ({ cases: () => unaryCases(domain, edges) });
const binary = (domain, other, broadcastGrad) => ({ cases: () => [...binaryCases(domain, other, broadcastGrad), ...intBinaryCases()] });

// The cases per op, by its path under tf (tf.losses.meanSquaredError: 'losses.meanSquaredError'). An entry: {cases,
// call?: (lib, inputs, args) => output(s) (default: lib[path](...inputs, ...args)), grad: false for ops without
// gradients, random: {check} for ops whose values are draws, traced: false when tl.function cannot run it, method:
// (inputs, args) => the Tensor method's call when it is not inputs[0].op(...the rest), async: true for ops that return
// a Promise (compared on the awaited values only)}.
// Ops TF.js has and Tracelab does not yet have may be listed: they are run once Tracelab has them.
const CASES = {
  // Arithmetic and basic math
  add: binary(), sub: binary(), mul: binary(),
  div: { cases: () => [...binaryCases([-2, 2], [0.5, 2]),
                       { in: [i([2, 3]), i([2, 3], [1, 2, 3, 4, 5, 6])], differs: { throws: 'DTypeError' } }] },
  // TF.js cannot differentiate divNoNan ("gradient function not found for Equal"): values only here; the gradient is
  // checked natively (tests/gradient_test.cpp, ops_math_test.cpp).
  divNoNan: { cases: () => binaryCases([-2, 2], [0.5, 2]), grad: false },
  // TF.js' cpu backend gives int32 for float32 inputs (a TF.js bug: its webgl backend and TF give float32), ±inf and
  // NaN then 0: Tracelab's float32 values are floor(a / b), computed here.
  floorDiv: { cases: () => [...binaryCases([-5, 5], [0.5, 2]).map((c) => ({ ...c, differs: { dtype: 'float32', values: floorDivided(c.in) } })),
                            { in: [i([2, 3]), i([2, 3], [1, 2, -3, 4, -5, 6])] },
                            { in: [i([2], [5, 3]), i([2], [0, 1])], differs: { throws: 'InvalidArgument' } }], grad: false },
  mod: { cases: () => [...binaryCases([-5, 5], [0.5, 2]), { in: [i([2, 3]), i([2, 3], [1, 2, -3, 4, -5, 6])] },
                       { in: [i([2], [5, 3]), i([2], [0, 1])], differs: { throws: 'InvalidArgument' } }] },
  pow: { cases: () => [...binaryCases([0.2, 2], [-2, 2]).filter((c) => !c.in[0].edge),
                       { in: [edge([0, -0, 2, -1, 2.5, -3.5, Infinity, -Infinity, NaN, NaN]),
                              edge([NaN, -Infinity, Infinity, 2, -0.5, 3, 2, -1, 0, 1])] },
                       { in: [edge([1, 1, 1]), edge([Infinity, -Infinity, NaN])], differs: { values: [1, 1, 1] } },
                       { in: [i([3], [2, 3, -2]), i([3], [2, 1, 0])] }] },
  maximum: binary(undefined, undefined, false), minimum: binary(undefined, undefined, false),
  squaredDifference: binary(undefined, undefined, false),
  atan2: { cases: () => binaryCases() },
  addN: { cases: () => [{ in: [f([2, 3]), f([2, 3]), f([2, 3])] }, { in: [f([4])] }], call: (lib, xs) => lib.addN(xs) },
  abs: { cases: () => [...unaryCases(), { in: [f([3], [0, 1, -1])], differs: { grads: [[0, 1, -1.5]] } }] },
  neg: unary(), exp: unary(), expm1: unary(), square: unary(),
  // sign(NaN) is NaN (TF's), TF.js' 0.
  sign: { cases: () => [...unaryCases().filter((c) => !c.in[0].edge), { in: [i([6], [-3, 0, 4, -1, 2, 0])] },
                        { in: [edge()], differs: { values: EDGE.map((v) => (v > 0 ? 1 : v < 0 ? -1 : v === 0 ? 0 : NaN)) } }], grad: false },
  log: unary([0.2, 4]), log1p: unary([-0.5, 3]), sqrt: unary([0.2, 4]), rsqrt: unary([0.2, 4]), reciprocal: unary([0.5, 3]),
  sin: unary(), cos: unary(), tan: unary([-1, 1]), asin: unary([-0.9, 0.9]), acos: unary([-0.9, 0.9]), atan: unary(),
  sinh: unary(), cosh: unary(), tanh: unary(), asinh: unary(), acosh: unary([1.2, 4]), atanh: unary([-0.9, 0.9]),
  floor: { ...unary(), grad: false }, ceil: { ...unary(), grad: false },
  round: { cases: () => [...unaryCases(), { in: [edge([0.5, 1.5, 2.5, -0.5, -2.5, 3.4999998, 8388609, -16777215])] },
                         { in: [i([4])] }], grad: false },
  erf: unary(), sigmoid: unary(), logSigmoid: unary(), softplus: unary(),
  relu: unary(), relu6: { cases: () => unaryCases([-3, 8]) }, elu: unary(), selu: unary(),
  leakyRelu: { cases: () => [...unaryCases(), { in: [f([2, 3])], args: [0.3] }] },
  prelu: { cases: () => [{ in: [f([2, 3]), f([3], [0.1, 0.2, 0.3])] }] },
  step: { cases: () => [...unaryCases(), { in: [f([4])], args: [0.5] }], grad: false },
  isNaN: { ...unary(), grad: false }, isInf: { ...unary(), grad: false }, isFinite: { ...unary(), grad: false },
  clipByValue: { cases: () => [{ in: [f([2, 3])], args: [-0.5, 0.5] }, { in: [edge()], args: [-1, 1] }, { in: [f([0])], args: [0, 1] }] },
  // Comparison and logic
  equal: comparison, notEqual: comparison, less: comparison, lessEqual: comparison, greater: comparison, greaterEqual: comparison,
  logicalAnd: { cases: logicalCases, grad: false }, logicalOr: { cases: logicalCases, grad: false },
  logicalXor: { cases: logicalCases, grad: false },
  logicalNot: { cases: () => [{ in: [b([2, 3])] }, { in: [b([0])] }], grad: false },
  where: { method: ([condition, a, b]) => a.where(condition, b),
           cases: () => [{ in: [b([2, 3]), f([2, 3]), f([2, 3])] }, { in: [b([3]), f([2, 3]), f([2, 3])] },
                         { in: [b([2, 3]), i([2, 3]), i([2, 3])] }] },
  // Reductions
  sum: { cases: () => [...reductionCases(), { in: [f([0, 3])], args: [0] }, { in: [i([2, 3])], args: [1] }] },
  mean: { cases: () => reductionCases() },
  max: { cases: () => [...reductionCases(), { in: [i([2, 3])], args: [1] }] },
  min: { cases: () => [...reductionCases(), { in: [i([2, 3])], args: [1] }] },
  // TF.js' prod gradient fails on a negative axis ("rank of input 3 must match length of perm 0,1,2,-1"): no gradient there.
  prod: { cases: () => reductionCases().map((c) => (c.args?.[0] === -1 ? { ...c, grad: false } : c)) },
  logSumExp: { cases: () => reductionCases() },
  all: { cases: () => boolReductionCases(), grad: false },
  any: { cases: () => boolReductionCases(), grad: false },
  argMax: { cases: () => [{ in: [f([2, 3, 4])] }, { in: [f([2, 3, 4])], args: [1] }, { in: [f([2, 3, 4])], args: [-1] },
                          { in: [i([5])] }], grad: false },
  argMin: { cases: () => [{ in: [f([2, 3, 4])] }, { in: [f([2, 3, 4])], args: [2] }, { in: [i([5])] }], grad: false },
  // TF.js' cumsum gradient fails on a non-last axis ("gradient of input 'x' has shape '3,2'"): no gradient there.
  cumsum: { cases: () => [{ in: [f([5])] }, { in: [f([2, 3])], args: [1] }, { in: [f([2, 3])], args: [0], grad: false },
                          { in: [f([2, 3])], args: [1, true, true] }] },
  // TF.js has no gradient for cumprod (its tf.grads throws): values only.
  cumprod: { cases: () => [{ in: [f([5])] }, { in: [f([2, 3])], args: [1] }, { in: [f([2, 3])], args: [0, true] },
                           { in: [f([4])], args: [0, true, true] }, { in: [i([2, 3])], args: [1, false, true] }], grad: false },
  // TF.js (softmax, logSoftmax) supports the last axis only.
  softmax: { cases: () => [{ in: [f([5])] }, { in: [f([2, 3])] }, { in: [f([2, 3])], args: [-1] }, { in: [f([2, 3, 4])], args: [2] }] },
  logSoftmax: { cases: () => [{ in: [f([5])] }, { in: [f([2, 3])] }, { in: [f([2, 3, 4])], args: [-1] }] },
  // Matrices and convolutions
  matMul: { cases: () => [{ in: [f([2, 3]), f([3, 4])] }, { in: [f([3, 2]), f([3, 4])], args: [true, false] },
                          { in: [f([2, 3]), f([4, 3])], args: [false, true] }, { in: [f([2, 2, 3]), f([2, 3, 4])] },
                          { in: [f([0, 3]), f([3, 2])] }, { in: [i([2, 3]), i([3, 2])], differs: { throws: 'DTypeError' } }] },
  dot: { cases: () => [{ in: [f([3]), f([3])] }, { in: [f([2, 3]), f([3])] }] },
  outerProduct: { cases: () => [{ in: [f([3]), f([2])] }] },
  conv2d: { cases: () => [{ in: [f([1, 5, 5, 2]), f([3, 3, 2, 3])], args: [1, 'valid'] },
                          { in: [f([2, 5, 5, 1]), f([2, 2, 1, 2])], args: [2, 'same'] },
                          { in: [f([1, 6, 6, 1]), f([3, 3, 1, 1])], args: [[2, 1], 'valid'] }] },
  maxPool: { cases: () => [{ in: [f([1, 4, 4, 2])], args: [2, 2, 'valid'] }, { in: [f([2, 5, 5, 1])], args: [3, 2, 'same'] }] },
  // With 'same' padding TF.js' avgPool gradient divides by the whole window at the padded border (0.5 / 9 where its
  // own forward pass, TF and Tracelab divide by the 4 elements inside): no gradient compared there.
  avgPool: { cases: () => [{ in: [f([1, 4, 4, 2])], args: [2, 2, 'valid'] }, { in: [f([2, 5, 5, 1])], args: [3, 2, 'same'], grad: false },
                           { in: [f([1, 6, 6, 1])], args: [3, 3, 'same'] }] },
  // Shapes, slicing and joining
  reshape: { cases: () => [{ in: [f([2, 3])], args: [[3, 2]] }, { in: [f([2, 3])], args: [[-1]] }, { in: [i([4])], args: [[2, 2]] },
                           { in: [f([0, 3])], args: [[3, 0]] }] },
  transpose: { cases: () => [{ in: [f([2, 3])] }, { in: [f([2, 3, 4])], args: [[1, 2, 0]] }, { in: [i([2, 3])] }] },
  expandDims: { cases: () => [{ in: [f([2, 3])] }, { in: [f([2, 3])], args: [1] }, { in: [f([2, 3])], args: [-1] }] },
  squeeze: { cases: () => [{ in: [f([1, 2, 1, 3])] }, { in: [f([1, 2, 1, 3])], args: [[2]] }, { in: [f([1, 3])], args: [[0]] }] },
  concat: { cases: () => [{ in: [f([2, 3]), f([2, 3])] }, { in: [f([2, 3]), f([2, 1])], args: [1] }, { in: [f([2, 3]), f([0, 3])] },
                          { in: [i([2]), i([3])] }], call: (lib, xs, args) => lib.concat(xs, ...args) },
  stack: { cases: () => [{ in: [f([2, 3]), f([2, 3])] }, { in: [f([2, 3]), f([2, 3])], args: [2] }, { in: [i([2]), i([2])] }],
           call: (lib, xs, args) => lib.stack(xs, ...args) },
  unstack: { cases: () => [{ in: [f([3, 2])] }, { in: [f([2, 3])], args: [1] }] },
  split: { cases: () => [{ in: [f([4, 2])], args: [2] }, { in: [f([2, 6])], args: [[1, 2, 3], 1] }] },
  slice: { cases: () => [{ in: [f([3, 4])], args: [[1, 0], [2, 3]] }, { in: [f([3, 4])], args: [[0, 1], [-1, 2]] },
                         { in: [f([3, 4])], args: [[1, 1], [0, 2]] }, { in: [i([5])], args: [[1], [3]] }] },
  gather: { cases: () => [{ in: [f([4, 3]), i([2], [3, 1])] }, { in: [f([4, 3]), i([2, 2], [0, 2, 1, 1])], args: [1] },
                          { in: [f([4, 3]), i([0], [])] }] },
  tile: { cases: () => [{ in: [f([2, 3])], args: [[2, 1]] }, { in: [f([3])], args: [[3]] }] },
  pad: { cases: () => [{ in: [f([2, 3])], args: [[[1, 0], [0, 2]]] }, { in: [f([2, 3])], args: [[[1, 1], [1, 1]], 2.5] }] },
  broadcastTo: { cases: () => [{ in: [f([3])], args: [[2, 3]] }, { in: [f([2, 1])], args: [[2, 4]] }, { in: [i([1])], args: [[3]] }] },
  cast: { cases: () => [{ in: [f([2, 3])], args: ['int32'], grad: false }, { in: [i([2, 3])], args: ['float32'], grad: false },
                        { in: [f([5], [0, 1, -2, 0.5, NaN])], args: ['bool'], grad: false }, { in: [b([3])], args: ['float32'] },
                        { in: [f([2, 3])], args: ['float32'] }] },
  oneHot: { cases: () => [{ in: [i([3], [0, 2, 1])], args: [3], differs: { dtype: 'float32' } },
                          { in: [i([2, 2], [0, 5, -1, 1])], args: [4, 2, -1], differs: { dtype: 'float32' } }], grad: false },
  zerosLike: { cases: () => [{ in: [f([2, 3])], differs: { grads: [null] } }, { in: [i([2])] }, { in: [b([2])] }] },
  onesLike: { cases: () => [{ in: [f([2, 3])], differs: { grads: [null] } }, { in: [i([2])] }, { in: [b([2])] }] },
  identity: { cases: () => [{ in: [f([2, 3])] }] },
  // Creation
  tensor: { cases: () => [{ in: [], args: [[[1, 2], [3, 4]]] }, { in: [], args: [[1, 2, 3, 4], [2, 2], 'int32'] },
                          { in: [], args: [[true, false]] }, { in: [], args: [[], [0]] }] },
  scalar: { cases: () => [{ in: [], args: [3.5] }, { in: [], args: [3, 'int32'] }, { in: [], args: [true] }] },
  zeros: { cases: () => [{ in: [], args: [[2, 3]] }, { in: [], args: [[2], 'int32'] }, { in: [], args: [[0, 2]] }] },
  ones: { cases: () => [{ in: [], args: [[2, 3]] }, { in: [], args: [[2], 'int32'] }, { in: [], args: [[2], 'bool'] }] },
  fill: { cases: () => [{ in: [], args: [[2, 3], 1.5] }, { in: [], args: [[2], 4, 'int32'] }] },
  range: { cases: () => [{ in: [], args: [0, 5] }, { in: [], args: [1, 2, 0.25] }, { in: [], args: [5, 0, -2] },
                         { in: [], args: [0, 5, 1, 'int32'] }, { in: [], args: [3, 3] }] },
  linspace: { cases: () => [{ in: [], args: [0, 1, 5] }, { in: [], args: [-2, 2, 1] }] },
  variable: { cases: () => [{ in: [f([2, 3])] }, { in: [i([3])] }], grad: false, traced: false },
  randomUniform: { cases: () => [{ in: [], args: [[200, 5]] }, { in: [], args: [[1000], -3, 2] }, { in: [], args: [[1000], 0, 10, 'int32'] }],
                   random: { check: uniformCheck } },
  randomNormal: { cases: () => [{ in: [], args: [[2000]] }, { in: [], args: [[2000], 3, 0.5] }], random: { check: normalCheck } },
  tensor1d: { cases: () => [{ in: [], args: [[1, 2, 3]] }, { in: [], args: [[1, 2], 'int32'] }] },
  tensor2d: { cases: () => [{ in: [], args: [[[1, 2], [3, 4]]] }, { in: [], args: [[1, 2, 3, 4, 5, 6], [3, 2], 'int32'] }] },
  tensor3d: { cases: () => [{ in: [], args: [[[[1], [2]], [[3], [4]]]] }, { in: [], args: [[1, 2, 3, 4], [1, 2, 2]] }] },
  tensor4d: { cases: () => [{ in: [], args: [[[[[1, 2]]]]] }, { in: [], args: [[1, 2, 3, 4], [1, 1, 2, 2], 'int32'] }] },
  // Normalization and statistics
  // Without offset and scale TF.js' batchNorm gradient throws (it reads the missing scale): no gradient there.
  batchNorm: { cases: () => [{ in: [f([2, 3]), f([3]), pos([3]), f([3]), pos([3])] }, { in: [f([2, 2, 3]), f([3]), pos([3])], grad: false },
                             { in: [f([2, 3]), f([3]), pos([3]), f([3]), pos([3])], args: [0.01] }] },
  moments: { cases: () => [{ in: [f([2, 3, 4])] }, { in: [f([2, 3, 4])], args: [[0, 1]] }, { in: [f([2, 3])], args: [1, true] }] },
  norm: { cases: () => [{ in: [f([2, 3])] }, { in: [f([2, 3])], args: ['euclidean', 1] }, { in: [f([2, 3])], args: [1, 0, true] },
                        { in: [f([2, 3])], args: [Infinity, 1] }, { in: [f([2, 3])], args: ['fro', [0, 1]] }, { in: [f([4])], args: [2] }] },
  topk: { cases: () => [{ in: [f([6])], args: [3] }, { in: [f([2, 5])], args: [2] }, { in: [i([5], [3, 1, 4, 1, 5])], args: [2] }], grad: false },
  dropout: { cases: () => [{ in: [pos([2000])], args: [0.25] }, { in: [pos([10, 100])], args: [0.5, [10, 1]] }], random: { check: dropoutCheck },
             traced: false },
  // Losses: (labels, predictions, weights?, ..., reduction?); reductions as tf.Reduction's numbers (NONE 0, MEAN 1,
  // SUM 2, SUM_BY_NONZERO_WEIGHTS 3, the default).
  ...lossCases(),
};

// The cases of the ops in wasm/js/tfjs/*.mjs, one file per group (tests/js/tfjs_cases/), built from the helpers
// above; a path cased twice is an error.
const GROUP_CASES = await Promise.all(['math', 'conv', 'image', 'slice', 'gather', 'creation', 'misc']
  .map(async (group) => [group, (await import(`./tfjs_cases/${group}.mjs`)).default]));
const CASE_KIT = { f, i, b, pos, held, edge, EDGE, unaryCases, binaryCases, intBinaryCases, logicalCases, reductionCases,
                   unary, binary, comparison, uniformCheck, normalCheck };
for (const [group, make] of GROUP_CASES) {
  for (const [path, entry] of Object.entries(make(CASE_KIT))) {
    if (Object.hasOwn(CASES, path)) throw new Error(`tfjs_diff: tests/js/tfjs_cases/${group}.mjs cases ${path}, which has cases already`);
    CASES[path] = entry;
  }
}

function lossCases() {
  const both = (labels = () => f([4, 3]), predictions = () => f([4, 3])) => [
    { in: [labels(), predictions()] },
    { in: [labels(), predictions(), held(f([4, 1], [1, 0, 2, 0.5]))] },
    { in: [labels(), predictions()], args: [undefined, 0] },
    { in: [labels(), predictions()], args: [undefined, 1] },
    { in: [labels(), predictions()], args: [undefined, 2] },
  ];
  const probabilities = () => f([4, 3], undefined, [0.05, 0.95]);
  const oneHot = () => f([4, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0]);
  return {
    'losses.meanSquaredError': { cases: () => [...both(), { in: [f([5]), f([5])] }] },
    'losses.absoluteDifference': { cases: () => both() },
    'losses.computeWeightedLoss': { cases: () => [{ in: [f([4, 3])] }, { in: [f([4, 3]), held(f([4, 1], [1, 0, 2, 0.5]))] },
                                                  { in: [f([4, 3])], args: [undefined, 2] }] },
    'losses.cosineDistance': { cases: () => [{ in: [f([4, 3]), f([4, 3])], args: [1] }, { in: [f([4, 3]), f([4, 3])], args: [0] }] },
    'losses.hingeLoss': { cases: () => both(() => f([4, 3], [1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0])) },
    'losses.huberLoss': { cases: () => [...both(), { in: [f([4, 3]), f([4, 3], undefined, [-4, 4])], args: [undefined, 0.5] }] },
    'losses.logLoss': { cases: () => both(probabilities, probabilities) },
    'losses.sigmoidCrossEntropy': { cases: () => [...both(probabilities), { in: [probabilities(), f([4, 3])], args: [undefined, 0.1] }] },
    // TF.js' gradient with respect to the labels is (labels - softmax(logits)), not -logSoftmax(logits) (a TF.js bug:
    // central differences of its own loss agree with Tracelab's): the labels are held.
    'losses.softmaxCrossEntropy': { cases: () => [...both(() => held(oneHot())), { in: [held(oneHot()), f([4, 3])], args: [undefined, 0.1] }] },
  };
}

// Draws are compared by what they must satisfy: the shape and dtype as TF.js', and the values in range / moments.
function dropoutCheck(got, args, inputs) {
  const [rate] = args, x = inputs[0].values;
  let dropped = 0;
  for (let j = 0; j < x.length; ++j) {
    if (got.values[j] === 0) dropped++;
    else if (Math.abs(got.values[j] - x[j] / (1 - rate)) > 1e-5 * Math.abs(x[j] / (1 - rate)))
      return `element ${j} is ${got.values[j]}, neither 0 nor x / (1 - rate)`;
  }
  return Math.abs(dropped / x.length - rate) > 0.1 ? `${dropped} of ${x.length} dropped, rate ${rate}` : null;
}
function uniformCheck(got, args) {
  const [, lo = 0, hi = 1] = args;
  for (const v of got.values) if (!(v >= lo && v < hi)) return `value ${v} outside [${lo}, ${hi})`;
  const mean = got.values.reduce((a, v) => a + v, 0) / got.values.length;
  const expected = got.dtype === 'int32' ? (lo + hi - 1) / 2 : (lo + hi) / 2;
  return Math.abs(mean - expected) > 0.1 * (hi - lo) ? `mean ${mean}, expected about ${expected}` : null;
}
function normalCheck(got, args) {
  const [, mean = 0, std = 1] = args;
  const n = got.values.length, m = got.values.reduce((a, v) => a + v, 0) / n;
  const s = Math.sqrt(got.values.reduce((a, v) => a + (v - m) ** 2, 0) / n);
  return Math.abs(m - mean) > 5 * std / Math.sqrt(n) || Math.abs(s - std) > 0.1 * std ? `mean ${m}, std ${s}; expected ${mean}, ${std}` : null;
}

// The Tensor methods that are no op of tf: their cases, in the CASES form; `read: true` for the methods that return
// the values (arrays, typed arrays, or their promises) rather than a tensor. A supported method that is neither
// here nor an op with cases fails the test, as an op does.
const METHOD_CASES = {
  as1D: { cases: () => [{ in: [f([2, 3])] }] },
  as2D: { cases: () => [{ in: [f([6])], args: [3, 2] }] },
  as3D: { cases: () => [{ in: [f([6])], args: [1, 3, 2] }] },
  as4D: { cases: () => [{ in: [f([6])], args: [1, 3, 2, 1] }] },
  as5D: { cases: () => [{ in: [f([6])], args: [1, 3, 1, 2, 1] }] },
  asScalar: { cases: () => [{ in: [f([1, 1])] }] },
  asType: { cases: () => [{ in: [f([3], [1.5, -2, 0])], args: ['int32'] }, { in: [i([3])], args: ['bool'] }] },
  flatten: { cases: () => [{ in: [f([2, 3])] }, { in: [i([2, 1, 2])] }] },
  reshapeAs: { cases: () => [{ in: [f([2, 3]), f([3, 2])] }] },
  toBool: { cases: () => [{ in: [f([3], [0, 2, -0.5])] }] },
  toFloat: { cases: () => [{ in: [i([3])] }, { in: [b([2])] }] },
  toInt: { cases: () => [{ in: [f([4], [1.7, -1.7, 0, 3])] }] },
  array: { read: true, cases: () => [{ in: [f([2, 3])] }, { in: [i([3])] }, { in: [f([], [2.5])] },
                                      { in: [b([2], [true, false])], differs: { read: [true, false] } }] },
  arraySync: { read: true, cases: () => [{ in: [f([2, 3])] }, { in: [i([3])] }, { in: [f([0, 2])] },
                                          { in: [b([2, 1], [false, true])], differs: { read: [[false], [true]] } }] },
  data: { read: true, cases: () => [{ in: [f([2, 3])] }, { in: [i([3])] }, { in: [b([2])] }] },
  dataSync: { read: true, cases: () => [{ in: [f([2, 3])] }, { in: [i([3])] }, { in: [b([2])] }] },
  dispose: { read: true, cases: () => [{ in: [f([2, 3])] }] },
  bufferSync: { read: true, cases: () => [{ in: [f([2, 3])] }, { in: [i([3])] }, { in: [b([2, 2])] }, { in: [f([], [1.5])] }] },
  bytes: { read: true, cases: () => [{ in: [f([2, 3])] }, { in: [i([3])] }, { in: [b([2])] }] },
  throwIfDisposed: { read: true, cases: () => [{ in: [f([2])] }] },
};

// ---------------------------------------------------------------------------------------------------------------
// Comparison

const RTOL = 1e-5, ATOL = 1e-5;
const lookUp = (lib, path) => path.split('.').reduce((value, key) => value?.[key], lib);
const plain = (t) => (t === null || t === undefined ? null : { shape: [...t.shape], dtype: t.dtype, values: Array.from(t.dataSync(), Number) });
// An op's outputs: one tensor, an array of them, or an object of them (topk's {values, indices}) by key.
const outputs = (y) => (Array.isArray(y) ? y : y && y.constructor === Object ? Object.keys(y).sort().map((k) => y[k]) : [y]);
const results = (y) => outputs(y).map(plain);
results.raw = outputs;
const show = (v) => (Object.is(v, -0) ? '-0' : String(v));

/** Why two plain results differ, or null. */
function differ(got, want, what) {
  if (got.length !== want.length) return `${what}: ${got.length} outputs, TF.js ${want.length}`;
  for (let k = 0; k < want.length; ++k) {
    const g = got[k], w = want[k], at = want.length > 1 ? `${what}[${k}]` : what;
    if (g === null || w === null) {
      if (g !== w) return `${at}: ${g === null ? 'null' : `[${g.values.map(show)}]`}, TF.js ${w === null ? 'null' : `[${w.values.map(show)}]`}`;
      continue;
    }
    if (JSON.stringify(g.shape) !== JSON.stringify(w.shape)) return `${at}: shape [${g.shape}], TF.js [${w.shape}]`;
    if (g.dtype !== w.dtype) return `${at}: dtype ${g.dtype}, TF.js ${w.dtype}`;
    for (let j = 0; j < w.values.length; ++j) {
      const a = g.values[j], e = w.values[j];
      const same = Number.isNaN(e) ? Number.isNaN(a) : !Number.isFinite(e) ? a === e : Math.abs(a - e) <= ATOL + RTOL * Math.abs(e);
      if (!same) return `${at}: element ${j} is ${show(a)}, TF.js ${show(e)} (values [${g.values.map(show)}], TF.js [${w.values.map(show)}])`;
    }
  }
  return null;
}

// An input as the failure shows it: dtype and shape, and the values when there are few (a repro at hand).
const describeInput = (s) => `${s.dtype}[${s.shape}]${s.values.length <= 12 ? ` ${JSON.stringify(s.values.map(show))}` : ''}`;
const describeCase = (c) => `(${[...c.in.map(describeInput), ...(c.args ?? []).map((a) => JSON.stringify(a))].join(', ')})`;

async function run() {
  const tl = await loadTracelabForCompat();
  const table = compatTable(tl);
  const supported = table.ops.filter((row) => row.status === 'supported');

  test('tfjs-diff: every supported op has cases here', () => {
    const without = supported.filter((row) => !CASES[row.path]).map((row) => row.name);
    assert.deepEqual(without, [], `supported ops without a case in tests/js/tfjs_diff.test.mjs: ${without.join(', ')}; add ` +
                                  'cases to CASES (or, when the op differs on purpose, a reason to DIFFERENT in scripts/tfjs_compat.mjs ' +
                                  `and re-run ${COMMAND})`);
  });

  const make = (lib, s) => lib.tensor(s.dtype === 'bool' ? s.values.map(Boolean) : s.values, s.shape, s.dtype);
  const callOf = (path, entry) => entry.call ?? ((lib, xs, args) => lookUp(lib, path)(...xs, ...args));

  /**
   * The mismatches of one case of an async op (TF.js' whereAsync, unique's async twins, ...): the awaited values as
   * TF.js'; such ops have no gradient and no graph form (their output's shape depends on the values).
   */
  async function checkAsyncCase(path, entry, c) {
    const call = callOf(path, entry), args = c.args ?? [];
    const where = `${path}${describeCase(c)}`;
    const run = async (lib) => {
      const xs = c.in.map((s) => make(lib, s));
      try {
        const y = await call(lib, xs, args);
        const r = results(y);
        lib.dispose(outputs(y).filter((t) => t !== null && t !== undefined));
        return r;
      } finally {
        lib.dispose(xs);
      }
    };
    let got;
    try {
      got = await run(tl);
    } catch (error) {
      return [`${where}: Tracelab throws ${error.name}: ${error.message}`];
    }
    const d = differ(got, await run(tf), 'values');
    return d ? [`${where}: ${d}`] : [];
  }

  /** The mismatches of one case, as strings. */
  function checkCase(path, entry, c) {
    const call = callOf(path, entry), args = c.args ?? [], differs = c.differs ?? {};
    const problems = [];
    const where = `${path}${describeCase(c)}`;
    if (c.differs && !NOTES[`tf.${path}`])
      problems.push(`${where}: marked differs, but NOTES in scripts/tfjs_compat.mjs says nothing about tf.${path}`);
    let eager;
    try {
      eager = tl.tidy(() => results(call(tl, c.in.map((s) => make(tl, s)), args)));
    } catch (error) {
      if (differs.throws && error.name === differs.throws) return problems;
      return [...problems, `${where}: Tracelab throws ${error.name}: ${error.message}`];
    }
    if (differs.throws) return [...problems, `${where}: Tracelab gives a result; expected a ${differs.throws} (NOTES)`];
    const want = tf.tidy(() => results(call(tf, c.in.map((s) => make(tf, s)), args)));
    if (differs.dtype) for (const r of want) r.dtype = differs.dtype;
    if (differs.values) want[0].values = differs.values;
    const noValues = (list) => list.map((r) => ({ ...r, values: [] }));
    if (entry.random) {
      const d = differ(noValues(eager), noValues(want), 'output') ?? entry.random.check(eager[0], args, c.in);
      if (d) problems.push(`${where}: ${d}`);
    } else {
      const d = differ(eager, want, 'values');
      if (d) problems.push(`${where}: ${d}`);
    }
    if (entry.traced !== false) {
      const traced = tl.function((...xs) => outputs(call(tl, xs, args)));
      try {
        const got = tl.tidy(() => results(traced(...c.in.map((s) => make(tl, s)))));
        const d = entry.random ? differ(noValues(got), noValues(eager), 'tl.function') : differ(got, eager, 'tl.function');
        if (d) problems.push(`${where}: ${d.replace('TF.js', 'eager')}`);
      } catch (error) {
        problems.push(`${where}: tl.function throws ${error.name}: ${error.message}`);
      } finally {
        traced.dispose?.();
      }
    }
    const floats = c.in.map((s, k) => (s.dtype === 'float32' && !s.held ? k : -1)).filter((k) => k >= 0);
    const gradient = entry.grad !== false && c.grad !== false && !entry.random && !c.in.some((s) => s.edge && !differs.grads) &&
                     floats.length > 0 && want.every((r) => r.dtype === 'float32' && r.values.length > 0);
    if (gradient) {
      // d/dx sum_k sum(y_k · w_k), the float inputs differentiated, the others held.
      const weights = want.map((r) => ({ dtype: 'float32', shape: r.shape, values: r.values.map((_, j) => 0.5 + ((j * 7) % 5) / 4) }));
      const grads = (lib) => lib.tidy(() => {
        const inputs = c.in.map((s) => make(lib, s));
        const ws = weights.map((w) => make(lib, w));
        const objective = (...ds) => {
          const xs = inputs.map((x, k) => (floats.includes(k) ? ds[floats.indexOf(k)] : x));
          const ys = results.raw(call(lib, xs, args));
          return ys.map((y, k) => lib.sum(lib.mul(y, ws[k]))).reduce((a, y) => lib.add(a, y));
        };
        return results(lib.grads(objective)(floats.map((k) => inputs[k])));
      });
      let wantGrads;
      try {
        wantGrads = differs.grads ? null : grads(tf);
      } catch (error) {  // a TF.js bug, or an op TF.js cannot differentiate: the case then says grad: false, and why
        return [...problems, `${where}: TF.js' gradient throws ${error.message}`];
      }
      if (differs.grads) wantGrads = differs.grads.map((v, k) => (v === null ? null : { ...want[0], shape: c.in[floats[k]].shape, values: v }));
      try {
        const d = differ(grads(tl), wantGrads, 'gradient');
        if (d) problems.push(`${where}: ${d}`);
      } catch (error) {
        problems.push(`${where}: tl.grads throws ${error.name}: ${error.message}`);
      }
    }
    return problems;
  }

  for (const row of supported) {
    const entry = CASES[row.path];
    if (!entry) continue;  // the test above names it
    test(`tfjs-diff: ${row.name}`, async () => {
      const before = tl.memory().numTensors;
      const problems = [];
      for (const c of entry.cases()) problems.push(...(entry.async ? await checkAsyncCase(row.path, entry, c) : checkCase(row.path, entry, c)));
      assert.deepEqual(problems, [], `${row.name} differs from TF.js:\n  ${problems.join('\n  ')}`);
      assert.equal(tl.memory().numTensors, before, `${row.name}: the cases leak Tracelab tensors`);
    });
  }

  // A supported Tensor method answers as TF.js' does: an op's method x.m(...rest) on the op's cases (or as its
  // entry's `method` calls it), the others on METHOD_CASES.
  const supportedMethods = table.methods.filter((row) => row.status === 'supported');
  test('tfjs-diff: every supported Tensor method has cases here', () => {
    const without = supportedMethods.filter((row) => !METHOD_CASES[row.path] && !CASES[row.path]).map((row) => row.name);
    assert.deepEqual(without, [], `supported Tensor methods without a case in tests/js/tfjs_diff.test.mjs: ${without.join(', ')}; ` +
                                  'add cases to METHOD_CASES (or, when the method differs on purpose, a reason to DIFFERENT in ' +
                                  `scripts/tfjs_compat.mjs and re-run ${COMMAND})`);
  });
  // What a reading method returns, comparable: typed arrays by their type and values, arrays element by element.
  const readable = (v) => (ArrayBuffer.isView(v) ? { [v.constructor.name]: Array.from(v) }
    : Array.isArray(v) ? v.map(readable) : v);
  test('tfjs-diff: Tensor methods of the supported ops', async () => {
    const problems = [];
    for (const row of supportedMethods) {
      const entry = METHOD_CASES[row.path] ?? CASES[row.path];
      if (!entry || entry.random || (entry.call && !entry.method)) continue;
      // An op's cases with a deliberate difference are checked through the function form; a reading method's give
      // Tracelab's values (differs.read) in place of TF.js'.
      for (const c of entry.cases().filter((k) => k.in.length > 0 && (!k.differs || k.differs.read))) {
        const args = c.args ?? [];
        const method = entry.method ?? (([x, ...rest], more) => x[row.path](...rest, ...more));
        const call = async (lib) => {
          const xs = c.in.map((s) => make(lib, s));
          try {
            const y = await method(xs, args);
            return entry.read ? { read: readable(y), disposed: xs[0].isDisposed } : results(y);
          } finally {
            lib.dispose(xs);
          }
        };
        try {
          const got = await call(tl), want = await call(tf);
          if (c.differs) {
            if (!NOTES[row.name])
              problems.push(`${row.name}${describeCase(c)}: marked differs, but NOTES in scripts/tfjs_compat.mjs says nothing about it`);
            want.read = c.differs.read;
          }
          const d = entry.read ? (JSON.stringify(got) === JSON.stringify(want) ? null : `${JSON.stringify(got)}, TF.js ${JSON.stringify(want)}`)
                               : differ(got, want, 'values');
          if (d) problems.push(`${row.name}${describeCase(c)}: ${d}`);
        } catch (error) {
          problems.push(`${row.name}${describeCase(c)}: Tracelab throws ${error.name}: ${error.message}`);
        }
      }
    }
    assert.deepEqual(problems, [], `Tensor methods differ from TF.js:\n  ${problems.join('\n  ')}`);
  });
}

if (!installed) {
  test('tfjs-diff: TensorFlow.js is installed', { skip }, () => assert.fail(missing));
} else {
  await run();
}
