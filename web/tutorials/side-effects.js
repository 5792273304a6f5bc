// Lesson 4's live checks: each reads what really happened in the run (counted lines, returned values).
import { expect, startTutorial } from './tutorial.js';

const { that, times } = expect;

startTutorial({
  'print-vs-tlprint': ({ counts, result }) => that(
    counts.log === 1 && counts.print === 5 && result?.tracingCount === 1,
    'console.log ran 1 time, tl.print ran 5 times: the JavaScript ran once (the trace), the graph five times.',
    `console.log ran ${times(counts.log)} and tl.print ${times(counts.print)}; with one trace and five calls expect 1 and 5.`),
  'variable-inside': ({ result }) => that(
    result?.failedOnFirstCall && /was created on a trace where variable creation is not allowed/.test(result.message) &&
      /outside the function, or only once/.test(result.message) && result.onceTraces === 2 &&
      result.onceResult === 6 && result.tracesAfter === 2,
    'The first call of the every-trace version failed on its check trace, and the error says where to create the ' +
    'variable; the create-once version traced twice on its first call, then ran without tracing.',
    `Expected the first call to fail (${result?.message ?? 'it did not'}) and the create-once function to trace ` +
    `twice, then give 6; got ${result?.onceTraces} traces, ${result?.onceResult}, ${result?.tracesAfter} traces.`),
  'variable-outside': ({ result }) => that(
    result?.traces === 2 && JSON.stringify(result.after) === '[11,12]',
    'Two traces (two shapes); the assigned value 10 was read by the graph without retracing.',
    `Expected 2 traces and [11, 12] after the assign; got ${result?.traces} and ${JSON.stringify(result?.after)}.`),
  'host-if': ({ result }) => that(
    result?.errorName === 'OperatorNotAllowedInGraphError',
    'Reading a traced tensor\'s value failed with OperatorNotAllowedInGraphError.',
    `Expected OperatorNotAllowedInGraphError, got ${result?.errorName}.`),
  cond: ({ result }) => that(
    JSON.stringify(result?.values) === '[3,2,0.5]' && result.traces === 1,
    'One trace computed |x| for negative and positive inputs: the branch is chosen when the graph runs.',
    `Expected [3, 2, 0.5] from 1 trace; got ${JSON.stringify(result?.values)} from ${result?.traces}.`),
  'while-loop': ({ result }) => that(
    JSON.stringify(result?.counts) === '[10,9,0]' && result.traces === 1,
    'One trace, three different trip counts (10, 9, 0): the loop runs inside the graph.',
    `Expected [10, 9, 0] from 1 trace; got ${JSON.stringify(result?.counts)} from ${result?.traces}.`),
});
