// Lesson 7's live checks: each reads what really happened in the run — the values the cell returned (eager and
// traced side by side), its tracing counts, the op nodes of its traced graph (docs/graph.md's JSON, walked into the
// sub-graphs of cond and while_loop), the tl.print lines it produced, the error it caught — and compares them with
// an answer computed here in plain JavaScript.
import { countOps, expect } from './expect.js';

const { that, times } = expect;

/** The rows whose eager and traced values differ from `expected(row)`, as text for a message ('' when none). */
function mismatches(rows, key, expected) {
  return (rows ?? []).filter((row) => row.eager !== expected(row[key]) || row.traced !== expected(row[key]))
    .map((row) => `${key} ${JSON.stringify(row[key])}: eager ${row.eager}, traced ${row.traced}, expected ${expected(row[key])}`)
    .join('; ');
}

const isEven = (value) => value % 2 === 0;

function collatzSteps(start) {
  let steps = 0;
  for (let n = start; n > 1; n = isEven(n) ? n / 2 : 3 * n + 1) steps += 1;
  return steps;
}

/** The lines fizzbuzz(n) prints: a word, or the number (tl.print writes a float32 1 as "1."). */
const fizzbuzzLines = (n) => Array.from({ length: n }, (_, k) => {
  const i = k + 1;
  return i % 15 === 0 ? 'FizzBuzz' : i % 3 === 0 ? 'Fizz' : i % 5 === 0 ? 'Buzz' : i;
});

/** The 1-based line and column of the first `if (` in `code`, or null. */
function firstIf(code) {
  const lines = String(code ?? '').split('\n');
  for (let i = 0; i < lines.length; ++i) {
    const column = lines[i].search(/\bif\s*\(/);
    if (column >= 0) return { line: i + 1, column: column + 1 };
  }
  return null;
}

export const checks = {
  sign: ({ result }) => {
    const wrong = mismatches(result?.rows, 'x', Math.sign);
    const cond = countOps(result?.graph, 'cond');
    return that(
      result?.rows?.length > 1 && !wrong && result.traces === 1 && cond.top >= 1 && cond.inside >= 1,
      'Eager and traced agree with the sign of every input, from one trace; the graph holds ' +
        `${cond.top} cond at its top level and ${cond.inside} inside a branch (the else if).`,
      wrong ? `Wrong results: ${wrong}.`
        : `Expected one trace and a cond inside a cond; got ${times(result?.traces)} traced, ${cond.top} cond at the top, ${cond.inside} inside.`);
  },
  'sum-even': ({ result }) => {
    const wrong = mismatches(result?.rows, 'items', (items) => items.filter(isEven).reduce((a, b) => a + b, 0));
    const lengths = new Set((result?.rows ?? []).map((row) => row.items.length)).size;
    const loop = countOps(result?.graph, 'while_loop');
    const cond = countOps(result?.graph, 'cond');
    return that(
      !wrong && lengths > 1 && result.traces === 1 && loop.top === 1 && cond.inside >= 1,
      `Eager and traced sums are right for ${lengths} lengths from one trace: the for...of is ` +
        'a while_loop that computes its trip count in the graph, with the if as a cond in its body.',
      wrong ? `Wrong sums: ${wrong}.`
        : `Expected several lengths, one trace, one while_loop holding a cond; got ${lengths} lengths, ` +
          `${times(result?.traces)} traced, ${loop.top} while_loop, ${cond.inside} cond inside.`);
  },
  collatz: ({ result }) => {
    const wrong = mismatches(result?.rows, 'start', collatzSteps);
    const steps = new Set((result?.rows ?? []).map((row) => row.traced)).size;
    const loop = countOps(result?.graph, 'while_loop');
    return that(
      !wrong && steps > 1 && result.traces === 1 && loop.top === 1,
      `The step counts match a plain JavaScript Collatz loop, eagerly and traced; ${steps} different trip counts ` +
        'ran in one graph (one trace, one while_loop node).',
      wrong ? `Wrong step counts: ${wrong}.`
        : `Expected different trip counts from one trace and one while_loop; got ${steps} counts, ` +
          `${times(result?.traces)} traced, ${loop.top} while_loop.`);
  },
  fizzbuzz: ({ result, counts, outputs }) => {
    const printed = outputs.filter((output) => output.kind === 'print').map((output) => output.text);
    const expected = (result?.calls ?? []).flatMap(fizzbuzzLines);
    const wrong = expected.findIndex((line, i) => (typeof line === 'number' ? Number(printed[i]) !== line : printed[i] !== line));
    const loop = countOps(result?.graph, 'while_loop');
    const prints = countOps(result?.graph, 'print');
    return that(
      expected.length > 0 && printed.length === expected.length && counts.print === expected.length && wrong < 0 &&
        result.traces === 1 && loop.top === 1 && prints.inside >= 4,
      `tl.print ran ${times(counts.print)}, every line right, eager and traced alike; the graph (traced once) is a ` +
        `while_loop with the ${prints.inside} print nodes inside its conds.`,
      wrong >= 0 ? `Line ${wrong + 1} printed ${JSON.stringify(printed[wrong])}, expected ${JSON.stringify(expected[wrong])}.`
        : `Expected ${expected.length} tl.print lines from one trace and a while_loop holding print nodes; got ` +
          `${printed.length} lines, ${times(result?.traces)} traced, ${loop.top} while_loop, ${prints.inside} print nodes inside.`);
  },
  unconverted: ({ result }) => {
    const rows = result?.rows ?? [];
    const plain = rows.flatMap((row) => [row['unconverted, eager'], row['unconverted, traced']]);
    const oneBranch = new Set(plain).size === 1;
    const wrongSomewhere = rows.some((row) => row['unconverted, traced'] !== Math.sign(row.x));
    const convertedRight = rows.length > 1 && rows.every((row) => row['converted, traced'] === Math.sign(row.x));
    const plainConds = countOps(result?.plainGraph, 'cond');
    const convertedConds = countOps(result?.convertedGraph, 'cond');
    return that(
      oneBranch && wrongSomewhere && plainConds.top + plainConds.inside === 0 && convertedRight && convertedConds.top >= 1,
      `Unconverted, every input gave ${plain[0]} (the first branch) and the graph has no cond; converted, the signs ` +
        'are right and the graph chooses with a cond.',
      `Expected the unconverted function to take one branch for all inputs and the converted one to be right; got ` +
        `unconverted ${JSON.stringify(plain)}, converted ${JSON.stringify(rows.map((row) => row['converted, traced']))}.`);
  },
  'js-operator': ({ result }) => that(
    result?.errorName === 'OperatorNotAllowedInGraphError' && /tl\.autograph/.test(result.message),
    'The traced comparison failed with OperatorNotAllowedInGraphError, and the message points to tl.autograph.',
    `Expected an OperatorNotAllowedInGraphError that names tl.autograph; got ${result?.errorName}.`),
  'conversion-error': ({ result, code }) => {
    const at = firstIf(code);
    const where = at && result?.line === at.line && result.column === at.column &&
      result.message?.includes(`line ${at.line}, column ${at.column}`);
    const fixedRight = result?.rows?.length > 0 && result.rows.every((row) => row['clipAtFixed, traced'] === Math.min(row.x, row.limit));
    return that(
      result?.name === 'ConversionError' && result.construct === 'if statement' && where &&
        /'y' must also be defined in the else branch/.test(result.message) && fixedRight && result.traces === 1,
      `A ConversionError at the if statement of line ${at?.line}, column ${at?.column} of the cell, naming 'y'; ` +
        'with a value on both paths the function traces once and clips right.',
      `Expected a ConversionError about 'y' at the first if (line ${at?.line}, column ${at?.column}) and a working ` +
        `fix; got ${result?.name} at line ${result?.line}, column ${result?.column}, fix ${JSON.stringify(result?.rows)}.`);
  },
};
