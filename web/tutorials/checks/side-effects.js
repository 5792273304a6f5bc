// Lesson 4's live checks: each reads what really happened in the run — counted and captured lines, returned
// values, the error caught, the op nodes of the traced graph.
import { countOps, expect, linesOf } from './expect.js';

const { that, times } = expect;
const json = (value) => JSON.stringify(value);

/** tl.print's text for x = [i, i+1], i = from..to-1 (a float32 1 prints as "1."). */
const printedInputs = (from, to) => Array.from({ length: to - from }, (_, k) => `tl.print: x = [${from + k}. ${from + k + 1}.]`);

export const checks = {
  'print-vs-tlprint': (run) => {
    const { counts, result } = run;
    const printed = linesOf(run, 'print');
    return that(
      counts.log === 1 && counts.print === 5 && json(printed) === json(printedInputs(0, 5)) && result?.tracingCount === 1,
      'console.log ran 1 time, tl.print ran 5 times (x = [0 1] … [4 5]): the JavaScript ran once (the trace), the graph five times.',
      `console.log ran ${times(counts.log)} and tl.print ${times(counts.print)} (${json(printed)}), tracingCount ` +
        `${result?.tracingCount}; with one trace and five calls expect 1, 5 and 1.`);
  },
  'run-eagerly': (run) => {
    const { counts, result } = run;
    const logged = linesOf(run, 'log'), printed = linesOf(run, 'print');
    const expectedLog = Array(4).fill('console.log: running the JavaScript, x of shape [2]');
    return that(
      json(logged) === json(expectedLog) && counts.log === 4 && json(printed) === json(printedInputs(0, 4)) &&
        counts.print === 4 && result?.eagerTracingCount === 0 && result.tracingCount === 1 && result.stillEager === false,
      'Eagerly, console.log ran on each of the 3 calls and nothing traced (tracingCount 0); switched off, the next ' +
        'call traced (console.log a 4th time, tracingCount 1).',
      `Expected 4 console.log and 4 tl.print lines, tracingCount 0 then 1, and the switch off again; got ` +
        `${times(counts.log)} console.log, ${times(counts.print)} tl.print, tracingCount ${result?.eagerTracingCount} ` +
        `then ${result?.tracingCount}, functionsRunEagerly() ${result?.stillEager}.`);
  },
  'variable-inside': ({ result }) => that(
    result?.failedOnFirstCall === true &&
      /'counter'\) was created on a trace where variable creation is not allowed/.test(result.message) &&
      /outside the function, or only once/.test(result.message) && result.onceTraces === 2 &&
      json(result.onceResult) === '6' && result.tracesAfter === 2,
    'The every-trace version failed on its first call (its check trace made a second variable), and the error ' +
    'says where to create it; the create-once version traced twice on its first call, then gave 6 without tracing.',
    `Expected the first call to fail and the create-once function to trace twice, then give 6; got ` +
      `${json(result?.message)}, ${result?.onceTraces} traces, ${json(result?.onceResult)}, ${result?.tracesAfter} traces.`),
  'variable-outside': ({ result }) => that(
    json(result?.scalar) === '2' && json(result.vector) === '[2,3]' && result.traces === 2 && json(result.after) === '[11,12]',
    'Two traces (two shapes); the assigned value 10 was read by the graph without retracing.',
    `Expected 2, [2,3], then [11,12] from 2 traces; got ${json(result?.scalar)}, ${json(result?.vector)}, ` +
      `${json(result?.after)} from ${result?.traces}.`),
  'host-if': ({ result }) => that(
    result?.errorName === 'OperatorNotAllowedInGraphError' && /symbolic tensor f32\[\]/.test(result.message) &&
      /tl\.autograph/.test(result.message),
    'Reading the traced tensor\'s value failed with OperatorNotAllowedInGraphError, naming the symbolic f32[] and tl.autograph.',
    `Expected an OperatorNotAllowedInGraphError about a symbolic f32[] that names tl.autograph; got ` +
      `${result?.errorName}: ${json(result?.message)}.`),
  cond: ({ result }) => {
    const cond = result?.graph ? countOps(result.graph, 'cond') : { top: 0 };
    return that(
      json(result?.values) === '[3,2,0.5]' && result.traces === 1 && cond.top === 1,
      'One trace, one cond node, |x| right for negative and positive inputs: the branch is chosen when the graph runs.',
      `Expected [3, 2, 0.5] from 1 trace with one cond node; got ${json(result?.values)} from ${result?.traces}, ${cond.top} cond.`);
  },
  'while-loop': ({ result }) => {
    const loop = result?.graph ? countOps(result.graph, 'while_loop') : { top: 0 };
    return that(
      json(result?.counts) === '[10,9,0]' && result.traces === 1 && loop.top === 1,
      'One trace, one while_loop node, three different trip counts (10, 9, 0): the loop runs inside the graph.',
      `Expected [10, 9, 0] from 1 trace with one while_loop; got ${json(result?.counts)} from ${result?.traces}, ` +
        `${loop.top} while_loop.`);
  },
  assertions: ({ result }) => {
    const asserts = result?.graph ? countOps(result.graph, 'assert_positive') : { top: 0 };
    const near = (got, want) => Array.isArray(got) && got.length === want.length &&
      got.every((v, i) => Math.abs(v - want[i]) < 1e-6);
    const expected = 'InvalidArgument: assert_positive: log needs positive inputs: condition x > 0 did not hold ' +
      'element-wise at 1 of 2 elements, the first at index [1] (x = -2); x = f32[2] [1 -2]';
    return that(
      result?.message === expected && result.traces === 1 && asserts.top === 1 &&
        near(result.good, [0, Math.log(2)]) && near(result.again, [0, Math.log(4)]),
      'One trace with one assert_positive node; the call with -2 failed when the graph ran, naming the message, the ' +
      'failing element and the values; the calls before and after it gave their logs.',
      `Expected ${json(expected)} from the second call, logs of [1, 2] and [1, 4] around it, 1 trace and one ` +
        `assert_positive node; got ${json(result?.message)}, ${json(result?.good)}, ${json(result?.again)}, ` +
        `${result?.traces} traces, ${asserts.top} assert_positive.`);
  },
};
