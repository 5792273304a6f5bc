// Lesson 7 — AutoGraph in JavaScript, as a program. The lesson's other examples are C++; this one is JavaScript
// because C++ has no AutoGraph: a compiled program's source cannot be rewritten at run time, so C++ code writes
// tl::cond and tl::while_loop itself (examples/side_effects.cpp).
//
// Plain functions with `if`, `for...of`, `while` and `for` over tensors are converted by tl.autograph.toFunction
// (which converts fn.toString() and evaluates the text with `tl` and the given names in scope), then run eagerly and
// through tl.function:
//   1. sign with if / else if: one trace serves every input; the graph holds a cond inside a cond.
//   2. the sum of the even entries of a vector, for...of + if: one trace for every length (a while_loop that
//      computes its trip count in the graph, a cond in its body).
//   3. Collatz steps, a while loop whose trip count depends on the value: one while_loop node.
//   4. fizzbuzz with tl.print: the graph prints the same lines as the eager call, on every call.
//   5. the same sign function unconverted: `if (tensor)` tests an object, always true — the first branch, always.
//   6. JavaScript's `x > 0` on a traced tensor: OperatorNotAllowedInGraphError pointing to tl.autograph.
//   7. a variable assigned in one branch only: ConversionError with the line and column.
// Each converted function's text (tl.autograph.toCode) and each graph are printed. The program checks every claim
// against plain JavaScript answers and exits 1 if one fails.
//
// Run: node examples/autograph.mjs [--fizzbuzz 15]      (needs the WASM build: build/wasm/dist, or TRACELAB_DIST)
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const USAGE = `usage: node examples/autograph.mjs [--fizzbuzz N]
  AutoGraph in JavaScript: if / for / while over tensors converted, run eagerly and traced, checked
  --fizzbuzz N   count fizzbuzz up to N (default 15, [1, 1000])
  -h, --help     this text`;

/** --fizzbuzz N from argv; exits 2 with the usage on a bad flag, 0 on --help. */
function parseFlags(argv) {
  let fizzbuzzCount = 15;
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '-h' || argv[i] === '--help') {
      console.log(USAGE);
      process.exit(0);
    }
    const value = Number(argv[i + 1]);
    if (argv[i] === '--fizzbuzz' && Number.isInteger(value) && value >= 1 && value <= 1000) {
      fizzbuzzCount = value;
      i += 1;
    } else {
      const problem = argv[i] === '--fizzbuzz' ? `--fizzbuzz must be an integer in [1, 1000], got ${argv[i + 1] ?? 'nothing'}`
        : `unknown flag ${argv[i]}`;
      console.error(`autograph: ${problem}\n${USAGE}`);
      process.exit(2);
    }
  }
  return { fizzbuzzCount };
}

const { fizzbuzzCount } = parseFlags(process.argv.slice(2));
const dist = process.env.TRACELAB_DIST ?? fileURLToPath(new URL('../build/wasm/dist', import.meta.url));
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

let failures = 0;
/** Prints a labelled check and counts a failure. */
function check(holds, what) {
  console.log(`  check: ${what}: ${holds ? 'ok' : 'FAILED'}`);
  if (!holds) failures += 1;
}

/** How many `op` nodes a graph (docs/graph.md's JSON) holds at its top level and inside its nodes' sub-graphs. */
function countOps(graphJson, op) {
  const count = { top: 0, inside: 0 };
  const walk = (graph, depth) => {
    for (const node of graph.nodes) {
      if (node.kind === 'op' && node.op === op) count[depth === 0 ? 'top' : 'inside'] += 1;
      for (const subgraph of node.subgraphs ?? []) walk(subgraph, depth + 1);
    }
  };
  walk(JSON.parse(graphJson), 0);
  return count;
}

const indent = (text) => text.replace(/^/gm, '   ');
const value = (tensor) => tensor.arraySync();

/** Calls fn eagerly and traced on each argument list; prints and returns the rows {label, eager, traced}. */
function eagerAndTraced(fn, traced, argLists, label) {
  const rows = argLists.map((args) => tl.tidy(() => {
    const tensors = args.map((a) => tl.tensor(a));
    return { label: label(args), eager: value(fn(...tensors)), traced: value(traced(...tensors)) };
  }));
  for (const row of rows) console.log(`   ${row.label}: eager ${row.eager}, traced ${row.traced}`);
  return rows;
}

// The functions of the lesson, as written. This file is not converted: each is converted below by toFunction.
function sign(x) {
  if (x.greater(0)) {
    return tl.scalar(1);
  } else if (x.less(0)) {
    return tl.scalar(-1);
  }
  return tl.scalar(0);
}

/** Whether c is a multiple of k: c / k, cut to an integer, times k is c again (Tracelab has no modulo op). */
const isMultiple = (c, k) => tl.equal(tl.cast(tl.cast(c.div(k), 'int32'), 'float32').mul(k), c);

function sumEven(items) {
  let total = tl.scalar(0);
  for (const c of items) {
    if (isMultiple(c, 2)) {
      total = total.add(c);
    }
  }
  return total;
}

function collatzSteps(start) {
  let n = start;
  let steps = tl.scalar(0);
  while (n.greater(1)) {
    const half = tl.cast(tl.cast(n.div(2), 'int32'), 'float32');
    n = tl.equal(half.mul(2), n) ? half : n.mul(3).add(1);
    steps = steps.add(1);
  }
  return steps;
}

function fizzbuzz(n) {
  for (let i = tl.scalar(1); !i.greater(n); i = i.add(1)) {
    if (isMultiple(i, 15)) {
      tl.print('FizzBuzz');
    } else if (isMultiple(i, 3)) {
      tl.print('Fizz');
    } else if (isMultiple(i, 5)) {
      tl.print('Buzz');
    } else {
      tl.print(i);
    }
  }
}

function positivePart(x) {
  if (x > 0) {
    return x;
  }
  return tl.zerosLike(x);
}

function clipAt(x, limit) {
  let y;
  if (x.greater(limit)) {
    y = limit;
  }
  return y;
}

function signs() {
  console.log('1. sign with if / else if');
  const converted = tl.autograph.toFunction(sign);
  console.log(`   tl.autograph.toCode(sign):\n${indent(tl.autograph.toCode(sign))}`);
  const traced = tl.function(converted);
  const rows = eagerAndTraced(converted, traced, [[3], [-2], [0]], ([x]) => `sign(${x})`);
  const graph = traced.concreteFunctions()[0];
  console.log(indent(graph.graph));
  const cond = countOps(graph.graphJson, 'cond');
  check(rows.every((row, i) => row.eager === Math.sign([3, -2, 0][i]) && row.traced === row.eager), 'eager and traced give the sign');
  check(traced.tracingCount === 1, `one trace for ${rows.length} calls (${traced.tracingCount})`);
  check(cond.top === 1 && cond.inside === 1, `a cond at the top, a cond inside its else branch (${cond.top}, ${cond.inside})`);
  traced.dispose();
}

function evenSums() {
  console.log('2. the sum of the even entries: for...of over a tensor, with an if');
  const converted = tl.autograph.toFunction(sumEven, { isMultiple });
  console.log(`   tl.autograph.toCode(sumEven):\n${indent(tl.autograph.toCode(sumEven))}`);
  const traced = tl.function(converted, { inputSignature: [new tl.TensorSpec([null])] });
  const inputs = [[1, 2, 3, 4, 5], [10, 11, 12, 13, 14, 15, 16, 17], [7]];
  const rows = eagerAndTraced(converted, traced, inputs.map((items) => [items]), ([items]) => `sumEven([${items}])`);
  const graph = traced.concreteFunctions()[0];
  console.log(indent(graph.graph));
  const expected = inputs.map((items) => items.filter((c) => c % 2 === 0).reduce((a, b) => a + b, 0));
  check(rows.every((row, i) => row.eager === expected[i] && row.traced === expected[i]), `eager and traced sums are ${expected}`);
  check(traced.tracingCount === 1, `one trace for ${inputs.length} lengths (${traced.tracingCount})`);
  const loop = countOps(graph.graphJson, 'while_loop');
  const cond = countOps(graph.graphJson, 'cond');
  check(loop.top === 1 && cond.inside === 1, `one while_loop holding a cond (${loop.top}, ${cond.inside})`);
  traced.dispose();
}

function collatz() {
  console.log('3. Collatz steps: a while loop whose trip count depends on the value');
  const converted = tl.autograph.toFunction(collatzSteps);
  console.log(`   tl.autograph.toCode(collatzSteps):\n${indent(tl.autograph.toCode(collatzSteps))}`);
  const traced = tl.function(converted);
  const starts = [6, 7, 27, 1];
  const rows = eagerAndTraced(converted, traced, starts.map((s) => [s]), ([s]) => `collatzSteps(${s})`);
  const graph = traced.concreteFunctions()[0];
  console.log(indent(graph.graph));
  const plainSteps = (n) => (n <= 1 ? 0 : 1 + plainSteps(n % 2 === 0 ? n / 2 : 3 * n + 1));
  check(rows.every((row, i) => row.eager === plainSteps(starts[i]) && row.traced === row.eager),
        `eager and traced count ${starts.map(plainSteps)} steps`);
  check(traced.tracingCount === 1, `one trace for ${starts.length} trip counts (${traced.tracingCount})`);
  check(countOps(graph.graphJson, 'while_loop').top === 1, 'one while_loop node');
  traced.dispose();
}

function fizzbuzzes(n) {
  console.log(`4. fizzbuzz up to ${n} with tl.print`);
  const converted = tl.autograph.toFunction(fizzbuzz, { isMultiple });
  console.log(`   tl.autograph.toCode(fizzbuzz):\n${indent(tl.autograph.toCode(fizzbuzz))}`);
  const lines = [];
  tl.setLogHandler((level, text) => { if (level === 'print') lines.push(text); });
  let eager;
  let tracedLines;
  let traced;
  try {
    tl.tidy(() => converted(tl.scalar(n)));
    eager = lines.splice(0);
    traced = tl.function(converted);
    tl.tidy(() => traced(tl.scalar(n)));
    tl.tidy(() => traced(tl.scalar(n)));
    tracedLines = lines.splice(0);
  } finally {
    tl.setLogHandler(null);
  }
  console.log(`   eagerly: ${eager.join(' ')}`);
  const expected = Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    return i % 15 === 0 ? 'FizzBuzz' : i % 3 === 0 ? 'Fizz' : i % 5 === 0 ? 'Buzz' : `${i}.`;   // a float32 prints as "1."
  });
  check(JSON.stringify(eager) === JSON.stringify(expected), `eagerly, tl.print ran ${eager.length} times with the fizzbuzz lines`);
  check(JSON.stringify(tracedLines) === JSON.stringify([...expected, ...expected]),
        `two traced calls printed the same lines twice (${tracedLines.length} lines)`);
  const graph = traced.concreteFunctions()[0].graphJson;
  check(traced.tracingCount === 1 && countOps(graph, 'while_loop').top === 1 && countOps(graph, 'print').inside === 4,
        'one trace: a while_loop holding the four print nodes');
  traced.dispose();
}

function withoutConversion() {
  console.log('5. the same sign function, not converted');
  const traced = tl.function(sign);
  const rows = eagerAndTraced(sign, traced, [[3], [-2], [0]], ([x]) => `sign(${x})`);
  const graph = traced.concreteFunctions()[0];
  console.log(indent(graph.graph));
  check(rows.every((row) => row.eager === 1 && row.traced === 1), '`if (tensor)` took the first branch for every input');
  const cond = countOps(graph.graphJson, 'cond');
  check(cond.top + cond.inside === 0, 'the graph has no cond');
  traced.dispose();
}

function javascriptOperator() {
  console.log('6. JavaScript\'s > on a traced tensor');
  const converted = tl.autograph.toFunction(positivePart);
  let error = null;
  try {
    tl.function(converted)(tl.scalar(3));
  } catch (caught) {
    error = caught;
    console.log(`   ${error.name}: ${error.message}`);
  }
  check(error instanceof tl.OperatorNotAllowedInGraphError && /tl\.autograph/.test(error.message),
        'OperatorNotAllowedInGraphError pointing to tl.autograph');
}

function conversionError() {
  console.log('7. a variable assigned in one branch only');
  const converted = tl.autograph.toFunction(clipAt);
  let error = null;
  try {
    tl.function(converted)(tl.scalar(5), tl.scalar(2));
  } catch (caught) {
    error = caught;
    console.log(`   ${error.name}: ${error.message}`);
  }
  // Lines count from the function's first line (toCode's text); the if is where clipAt's text has it.
  const text = clipAt.toString().split('\n');
  const line = text.findIndex((l) => /\bif \(/.test(l)) + 1;
  const column = text[line - 1].indexOf('if (') + 1;
  check(error instanceof tl.ConversionError && error.construct === 'if statement' && error.line === line &&
        error.column === column && /'y' must also be defined in the else branch/.test(error.message),
        `ConversionError at the if (line ${line}, column ${column}) naming 'y'`);
}

signs();
evenSums();
collatz();
fizzbuzzes(fizzbuzzCount);
withoutConversion();
javascriptOperator();
conversionError();
console.log(failures === 0 ? 'every check holds' : `${failures} check(s) FAILED`);
process.exit(failures === 0 ? 0 : 1);
