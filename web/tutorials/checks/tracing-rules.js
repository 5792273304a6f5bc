// Lesson 3's live checks: trace counts, which calls traced, the values computed, and the signatures and graphs as
// the engine reports them.
import { expect } from './expect.js';

const { that } = expect;
const json = (value) => JSON.stringify(value);

export const checks = {
  dtypes: ({ result }) => {
    const signatures = String(result?.signatures ?? '');
    const dtypes = [...signatures.matchAll(/arg0: (\w+) Tensor, shape=\(2,\)/g)].map((m) => m[1]);
    return that(
      json(result?.values) === '[[2,4],[3,5],[6,8]]' && result.traces === 2 && json(dtypes) === '["int32","float32"]',
      'Two concrete functions, int32 then float32; the third call (int32 again) reused the first graph.',
      `Expected [2,4], [3,5], [6,8] from 2 traces (int32, float32); got ${json(result?.values)} from ` +
        `${result?.traces} traces with signatures ${json(dtypes)}.`);
  },
  'numbers-vs-tensors': ({ result }) => that(
    result?.numberTraces === 3 && result.tensorTraces === 1 && json(result.numberTraced) === '[true,true,true,false]' &&
      json(result.tensorTraced) === '[true,false,false,false]',
    'Numbers: 3 traces, one per distinct value (the second 2 reused a graph). Tensors: 1 trace for every value.',
    `Expected 3 traces (calls 1-3) and 1 (call 1); got ${result?.numberTraces} (${json(result?.numberTraced)}) and ` +
      `${result?.tensorTraces} (${json(result?.tensorTraced)}).`),
  variables: ({ result }) => that(
    json(result?.before) === '[2,4]' && json(result.afterAssign) === '[10,20]' && result.tracesAfterAssign === 1 &&
      json(result.withSecond) === '[3,6]' && result.traces === 2,
    'The assigned value was read without retracing (still 1 trace); a different variable made the second trace.',
    `Expected [2,4], then [10,20] with 1 trace, then [3,6] with 2; got ${json(result?.before)}, ` +
      `${json(result?.afterAssign)} with ${result?.tracesAfterAssign}, ${json(result?.withSecond)} with ${result?.traces}.`),
  concrete: ({ result }) => that(
    result?.traces === 1 && /m: float32 Tensor, shape=\(None, 3\)/.test(result.signature) &&
      /%0: f32\[\?,3\] \{name="m"\}/.test(result.graph),
    'One trace for the signature (None, 3); the graph takes f32[?,3], any number of rows.',
    `Expected one trace with m: (None, 3) and an f32[?,3] input; got ${result?.traces} traces, ` +
      `signature ${json(result?.signature)}.`),
  warning: ({ result, counts, outputs }) => {
    const warnings = (outputs ?? []).filter((o) => o.kind === 'warning' && /calls to <step> triggered tl\.function retracing/.test(o.text));
    return that(
      result?.traces === 12 && counts.warning === 2 && warnings.length === 2,
      '12 calls, 12 traces, and the retracing warning twice (then the function stops warning).',
      `Expected 12 traces and 2 retracing warnings naming <step>; got ${result?.traces} traces, ${counts.warning} ` +
        `warnings (${warnings.length} about <step>).`);
  },
  'loop-warning': ({ result, counts, outputs }) => {
    const warnings = (outputs ?? []).filter((o) => o.kind === 'warning').map((o) => o.text);
    const aboutLoop = warnings.filter((w) => /calls to <madeInLoop> triggered tl\.function retracing/.test(w));
    return that(
      result?.loopTraces === 7 && result.onceTraces === 1 && counts.warning === 2 && aboutLoop.length === 2 &&
        /^5 out of the last 5 calls to <madeInLoop>/.test(aboutLoop[0]),
      '7 functions made in the loop, one trace each, share one count: warned from the fifth ("5 out of the last 5 ' +
        'calls"), twice. The function made once traced once.',
      `Expected 7 traces in the loop, 1 for the function made once, and 2 warnings about <madeInLoop> starting "5 out ` +
        `of the last 5"; got ${result?.loopTraces} and ${result?.onceTraces} traces, ${counts.warning} warnings ` +
        `(${json(warnings.map((w) => w.slice(0, 45)))}).`);
  },
  'nested-args': ({ result }) => {
    const reasons = result?.reasons ?? [];
    return that(
      json(result?.traced) === '[true,false,true,true]' && /^args\[0\]\.x: dim 0 changed 3 -> 4/.test(reasons[2]) &&
        /^argument structure changed \(\{x: \*, y: \*\}, \[\*, \*\]\) -> \(\{mask: \*, x: \*, y: \*\}, \[\*, \*\]\)/.test(reasons[3]) &&
        /^\(\{x: TensorSpec\(shape=\(3,\).*\}, \[TensorSpec\(shape=\(\)/.test(result.key) && result.value === 45 &&
        result.fixedTraces === 1 && result.error === "TypeError: fixed: args[0].y is missing; the input signature's keys are {x, y}",
      'Keys in another order reused the graph; a new shape at args[0].x and a new key (mask) retraced. The signature\'s ' +
        'function traced once and refused the call without y, naming args[0].y.',
      `Expected calls 1, 3, 4 to trace (dim 0 of args[0].x, then the structure), a loss of 45 from 1 trace, and a ` +
        `TypeError naming args[0].y; got ${json(result?.traced)}, reasons ${json(reasons)}, ${result?.value} from ` +
        `${result?.fixedTraces} traces, error ${json(result?.error)}.`);
  },
  'nested-gradients': ({ result }) => {
    const eager = result?.eager ?? {}, traced = result?.traced ?? {};
    const filled = eager.dx?.length === 3 && eager.dw?.length === 3 && eager.gradOfInner?.length === 3 &&
      Number.isFinite(eager.value) && [eager.dx, eager.dw, eager.gradOfInner].flat().every(Number.isFinite);
    return that(
      filled && json(eager) === json(traced) && json(result.traces) === '[1,1,1]',
      'outer(x), d/dx and d/dw through outer and inner, and the gradient taken inside gradOfInner all equal the eager ' +
        'results bit for bit; each function traced once.',
      `Expected the traced results to equal the eager ones exactly, one trace each; got eager ${json(eager)}, ` +
        `traced ${json(traced)}, traces ${json(result?.traces)}.`);
  },
};
