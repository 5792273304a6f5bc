// Lesson 3's live checks: trace counts and signatures as the engine reports them.
import { expect, startTutorial } from './tutorial.js';

const { that } = expect;

startTutorial({
  dtypes: ({ result }) => that(
    result?.traces === 2 && /int32/.test(result.signatures) && /float32/.test(result.signatures),
    'Two concrete functions, one per dtype; calling again with a known dtype and shape reused its graph.',
    `Expected 2 traces (int32 and float32); got ${result?.traces}.`),
  'numbers-vs-tensors': ({ result }) => that(
    result?.numberTraces === 3 && result.tensorTraces === 1,
    'Numbers: 3 traces, one per distinct value. Tensors: 1 trace for every value.',
    `Expected 3 and 1 traces; got ${result?.numberTraces} and ${result?.tensorTraces}.`),
  variables: ({ result }) => that(
    result?.traces === 2 && JSON.stringify(result.afterAssign) === '[10,20]',
    'The assigned value was read without retracing; a different variable made the second trace.',
    `Expected 2 traces and [10, 20]; got ${result?.traces} and ${JSON.stringify(result?.afterAssign)}.`),
  concrete: ({ result }) => that(
    result?.traces === 1 && /None, 3/.test(result.signature) && /f32\[\?,3\]/.test(result.graph),
    'One trace for the signature (None, 3); the graph works for any number of rows.',
    'Expected one trace with a (None, 3) signature and an f32[?,3] input.'),
  warning: ({ result, counts }) => that(
    result?.traces === 12 && counts.warning === 2,
    '12 calls, 12 traces, and the retracing warning twice (then the function stops warning).',
    `Expected 12 traces and 2 warnings; got ${result?.traces} traces and ${counts.warning} warnings.`),
});
