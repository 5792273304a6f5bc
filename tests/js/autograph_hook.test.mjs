// tl.autograph's Node module hook: `node --import <dist>/js/autograph/register.mjs app.mjs` converts the ES modules
// marked 'use autograph' as they load — a whole module, or single functions — and leaves every other module as Node
// loaded it (unmarked text, node_modules, CommonJS). The fixtures are written to a temporary folder and run in child
// processes, each printing a JSON report as its last line of output. convert(source, { marked: true }), the
// conversion the hook applies, is tested directly first.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const distUrl = pathToFileURL(dist).href;
const { convert } = await import(`${distUrl}/js/autograph/converter.mjs`);
const { SourceMapGenerator } = await import(`${distUrl}/js/autograph-sourcemap.mjs`);
const { SourceMapConsumer } = createRequire(import.meta.url)('../../node_modules/source-map-js');

const folder = mkdtempSync(join(tmpdir(), 'tracelab-hook-'));
after(() => rmSync(folder, { recursive: true, force: true }));

/** Writes `files` ({path under the temporary folder: text}); returns the absolute path of each, in order. */
function write(files) {
  return Object.entries(files).map(([name, text]) => {
    const path = join(folder, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  });
}

/** Runs `node [--enable-source-maps] --import register.mjs entry`, which must exit with 0; its last line of output, parsed. */
function run(entry, { sourceMaps = false } = {}) {
  const register = `${distUrl}/js/autograph/register.mjs`;
  const args = [...(sourceMaps ? ['--enable-source-maps'] : []), '--import', register, entry];
  const { status, stdout, stderr } = spawnSync(process.execPath, args, { cwd: folder, encoding: 'utf8' });
  assert.equal(status, 0, `${entry} exited with ${status}:\n${stderr}`);
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

/** `text` as a regular expression that matches it literally (paths hold dots). */
const literally = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** 1-based line and column of the first `snippet` in `text`. */
function positionOf(text, snippet) {
  const before = text.slice(0, text.indexOf(snippet)).split('\n');
  return { line: before.length, column: before.at(-1).length + 1 };
}

const loadTl = `import { loadTracelab } from '${distUrl}/tracelab.mjs';\n\nconst tl = await loadTracelab();\n`;

test('autograph/convert marked: only a marked module or marked functions convert; unmarked text comes back as is', () => {
  const unmarked = '// no directive here\nexport function f(x) {   if (x) return 1; /* kept */ return 2 }\n';
  assert.equal(convert(unmarked, { marked: true }), unmarked);
  // The directive's text outside a directive prologue marks nothing: a string value, a comment, after a statement.
  const notPrologue = "const note = 'use autograph'; // 'use autograph'\n" +
                      "function f(x) { g(); 'use autograph'; if (x) return 1; return 2; }\n";
  assert.equal(convert(notPrologue, { marked: true }), notPrologue);

  const wholeText = '"use strict";\n"use autograph";\nlet s = 0;\nif (a) s = 1;\nfunction f(x) { return x && g(x); }';
  const wholeModule = convert(wholeText, { marked: true });
  assert.match(wholeModule, /^"use strict";\n"use autograph";\n/);   // the directive stays: a string statement
  assert.match(wholeModule, /tl\.autograph\.ifStmt\(a, /);             // top-level code converts ...
  assert.match(wholeModule, /tl\.autograph\.and\(x, \(\) => g\(x\)/);  // ... and every function

  const functions = convert(`
    function marked(x) {
      'use autograph';
      const inner = (t) => (t ? 1 : 2);
      if (x) return inner(x);
      return 0;
    }
    function plain(x) { if (x) return 1; return 2; }
    class Model {
      call(x) { 'use autograph'; while (x) x = step(x); return x; }
      other(x) { return x || 0; }
    }
    function* counter(x) { 'use autograph'; if (x) yield 1; }
    async function later(p) { 'use autograph'; if (await p) return [1].map((v) => (v ? v : 0)); }
    if (top) plain(1);`, { marked: true });
  const part = (from, to) => functions.slice(functions.indexOf(from), to ? functions.indexOf(to) : undefined);
  assert.match(part('function marked', 'function plain'), /tl\.autograph\.ifExp\(t, [^]*tl\.autograph\.ifStmt\(x, /);
  assert.doesNotMatch(part('function plain', 'class Model'), /tl\.autograph/);
  assert.match(part('call(x)', 'other(x)'), /tl\.autograph\.whileStmt\(/);
  assert.doesNotMatch(part('other(x)', 'function*'), /tl\.autograph/);
  assert.doesNotMatch(part('function*', 'async function'), /tl\.autograph/);    // generators stay as written, as convert does
  assert.match(part('async function', 'if (top)'), /if \(await p\)[^]*tl\.autograph\.ifExp\(v, /);   // async: its nested functions
  assert.match(part('if (top)'), /^if \(top\) plain\(1\);/);                    // the unmarked top level stays JavaScript

  assert.throws(() => convert('f();', { marked: 'yes' }), { name: 'InvalidArgument', message: /marked must be true or false, got string/ });
  assert.throws(() => convert("'use autograph';\nif (", { marked: true, filename: 'broken.mjs' }), /broken\.mjs: Unexpected token \(2:4\)/);
});

test('autograph/convert marked with a sourceMap: every statement and call of the source is mapped back', () => {
  const source = "function check(x) {\n  'use autograph';\n  if (x.less(0)) {\n    throw new RangeError('negative');\n  }\n  return x;\n}\n";
  const map = new SourceMapGenerator({ file: 'check.mjs' });
  const code = convert(source, { marked: true, sourceMap: map });
  // Read back as Node reads it for a stack frame: the last mapping at or before the generated position.
  const consumer = new SourceMapConsumer(map.toJSON());
  for (const snippet of ['throw new RangeError', 'new RangeError', 'x.less(0)', 'return x;']) {
    const generated = positionOf(code, snippet);
    const original = consumer.originalPositionFor({ line: generated.line, column: generated.column - 1 });
    const expected = positionOf(source, snippet);
    assert.deepEqual([original.source, original.line, original.column + 1], ['check.mjs', expected.line, expected.column], snippet);
  }
  assert.match(code, /tl\.autograph\.ifStmt\(x\.less\(0\)/);
});

test('autograph/hook: a marked module converts whole — a tensor if is one cond node, a tensor while one while_loop', () => {
  const text = `'use autograph';
${loadTl}
function sign(x) {
  if (x.greater(0)) return tl.scalar(1);
  return tl.scalar(-1);
}

function collatz(start) {
  let n = start;
  let steps = tl.scalar(0);
  while (n.greater(1)) {
    const half = tl.cast(tl.cast(n.div(2), 'int32'), 'float32');
    if (tl.equal(n, half.mul(2))) n = half; else n = n.mul(3).add(1);
    steps = steps.add(1);
  }
  return steps;
}

// Top-level code converts too: an eager tensor condition is read (false), not tested as an object (always true).
let topLevel = 'not run';
if (tl.scalar(0).greater(1)) topLevel = 'run';

const tracedSign = tl.function(sign);
const tracedCollatz = tl.function(collatz);
const value = (t) => t.dataSync()[0];
console.log(JSON.stringify({
  signs: [3, -2].map((x) => value(tracedSign(tl.scalar(x)))),
  steps: [6, 27].map((n) => value(tracedCollatz(tl.scalar(n)))),
  traces: [tracedSign.tracingCount, tracedCollatz.tracingCount],
  signGraph: tracedSign.concreteFunctions()[0].graph,
  collatzGraph: tracedCollatz.concreteFunctions()[0].graph,
  topLevel,
}));
`;
  const [entry] = write({ 'marked.mjs': text });
  const report = run(entry);
  assert.deepEqual(report.signs, [1, -1]);
  assert.deepEqual(report.steps, [8, 111]);
  assert.deepEqual(report.traces, [1, 1]);                     // one trace serves both arguments
  assert.equal(report.signGraph.match(/= cond /g).length, 1);
  assert.equal(report.collatzGraph.match(/= while_loop /g).length, 1);
  assert.match(report.collatzGraph.slice(report.collatzGraph.indexOf('while_loop')), /= cond /);
  assert.equal(report.topLevel, 'not run');
});

test('autograph/hook: a function-level directive converts that function (and the functions in it) only', () => {
  const text = `${loadTl}
export function marked(x) {
  'use autograph';
  const pick = (t) => (t.greater(0) ? tl.scalar(1) : tl.scalar(-1));
  if (x.greater(0)) return pick(x);
  return pick(x).mul(10);
}

export function plain(x) {
  if (x.greater(0)) return tl.scalar(1);
  return tl.scalar(-1);
}

console.log(JSON.stringify({
  marked: tl.function(marked)(tl.scalar(-3)).dataSync()[0],
  plain: plain(tl.scalar(-3)).dataSync()[0],
  markedText: marked.toString(),
  plainText: plain.toString(),
}));
`;
  const [entry] = write({ 'functions.mjs': text });
  const report = run(entry);
  assert.equal(report.marked, -10);
  assert.match(report.markedText, /tl\.autograph\.ifExp\(t\.greater\(0\)[^]*tl\.autograph\.ifStmt\(x\.greater\(0\)/);
  // The unmarked function stays JavaScript: its test of a tensor object is always true, so the first branch runs.
  assert.equal(report.plain, 1);
  assert.doesNotMatch(report.plainText, /tl\.autograph/);
  assert.match(report.plainText, /if \(x\.greater\(0\)\) return tl\.scalar\(1\);/);
});

test('autograph/hook: unmarked modules, node_modules and CommonJS load exactly as written', () => {
  const plainText = 'function f(x) {   if (x) return 1; /* kept */ return 2 }';
  const mentionText = "function g(x) { const note = 'use autograph'; if (x) return 1; return 2; }";
  const packageText = "function h(x) { 'use autograph'; if (x) return 1; return 2; }";
  const commonText = "function k(x) { 'use autograph'; if (x) return 1; return 2; }";
  const [entry] = write({
    'unmarked_main.mjs': `import { f } from './plain.mjs';
import { g } from './mentions.mjs';
import { h } from 'marked-package';
import k from './legacy.cjs';
import { m } from './typed/lib.js';
console.log(JSON.stringify({ texts: [f, g, h, k].map(String), typed: String(m) }));
`,
    'plain.mjs': `// An ordinary module.\nexport ${plainText}\n`,
    'mentions.mjs': `// Names 'use autograph' only in a comment and a string.\nexport ${mentionText}\n`,
    // Converted, it would fail: it declares no tl.
    'node_modules/marked-package/package.json': '{ "name": "marked-package", "type": "module", "exports": "./index.js" }',
    'node_modules/marked-package/index.js': `'use autograph';\nexport ${packageText}\n`,
    'legacy.cjs': `'use autograph';\nmodule.exports = ${commonText};\n`,
    'typed/package.json': '{ "type": "module" }',
    'typed/lib.js': `${loadTl}\nexport function m(x) { 'use autograph'; if (x.greater(0)) return 1; return 2; }\n`,
  });
  const report = run(entry);
  assert.deepEqual(report.texts, [plainText, mentionText, packageText, commonText]);
  assert.match(report.typed, /tl\.autograph\.ifStmt/);   // .js in a "type": "module" package is an ES module
});

test('autograph/hook: a ConversionError from a marked module names its file, line and column', () => {
  const text = `'use autograph';
${loadTl}
function oneBranch(x) {
  let y;
  if (x.greater(0)) {
    y = x.mul(2);
  }
  return y;
}

try {
  tl.function(oneBranch)(tl.scalar(1));
} catch (error) {
  const { name, message, construct, line, column, filename } = error;
  console.log(JSON.stringify({ name, message, construct, line, column, filename }));
}
`;
  const [entry] = write({ 'one_branch.mjs': text });
  const { line, column } = positionOf(text, 'if (x.greater(0))');
  assert.deepEqual(run(entry), {
    name: 'ConversionError', construct: 'if statement', line, column, filename: entry,
    message: `cannot convert if statement at line ${line}, column ${column} of ${entry}: 'y' must also be defined in the ` +
             'else branch (it is used after the if statement)',
  });
});

test('autograph/hook: converted code with no tl declared, or text acorn cannot parse, fails the import with the place', () => {
  const noTl = "export function double(x) {\n  'use autograph';\n  if (x.greater(0)) return x.mul(2);\n  return x;\n}\n";
  const [entry, noTlPath, , brokenPath] = write({
    'import_errors.mjs': `const report = {};
for (const name of ['no_tl.mjs', 'tl_parameter.mjs', 'broken.mjs']) {
  try {
    await import('./' + name);
    report[name] = 'loaded';
  } catch ({ name: kind, message, line, column, filename }) {
    report[name] = { kind, message, line, column, filename };
  }
}
console.log(JSON.stringify(report));
`,
    'no_tl.mjs': noTl,
    // tl as a parameter of an enclosing function is in scope: this module loads.
    'tl_parameter.mjs': "export function make(tl) {\n  return (x) => {\n    'use autograph';\n" +
                        '    if (x.greater(0)) return x;\n    return x.neg();\n  };\n}\n',
    'broken.mjs': "'use autograph';\nexport function f(x) { return x +; }\n",
  });
  const report = run(entry);
  const { kind, message, line, column, filename } = report['no_tl.mjs'];
  assert.deepEqual({ kind, line, column, filename }, { kind: 'ConversionError', line: 3, column: 3, filename: noTlPath });
  assert.match(message, new RegExp(`^cannot convert if statement at line 3, column 3 of ${literally(noTlPath)}: converted, it ` +
                                   "calls tl\\.autograph\\.ifStmt, but no variable 'tl' is declared in the module .*" +
                                   'declare one at module scope: `const tl = await loadTracelab\\(\\);`'));
  assert.equal(report['tl_parameter.mjs'], 'loaded');
  assert.equal(report['broken.mjs'].kind, 'SyntaxError');
  assert.match(report['broken.mjs'].message,
               new RegExp(`^${literally(brokenPath)}:2:34: Unexpected token \\(AutoGraph parses a module .* with acorn`));
});

test('autograph/hook: with --enable-source-maps, a stack through converted code names the original lines', () => {
  const text = `'use autograph';
${loadTl}
function check(x) {
  if (x.less(0)) {
    throw new RangeError('negative input');
  }
  return x;
}

try {
  check(tl.scalar(-1));
} catch (error) {
  console.log(JSON.stringify({ stack: error.stack }));
}
`;
  const [entry] = write({ 'stack.mjs': text });
  const at = (snippet) => { const { line, column } = positionOf(text, snippet); return `stack.mjs:${line}:${column}`; };
  const frames = run(entry, { sourceMaps: true }).stack.split('\n').filter((l) => l.includes('stack.mjs:'));
  assert.equal(frames.length, 3, frames.join('\n'));
  assert.ok(frames[0].endsWith(`${at('new RangeError')})`), frames[0]);          // the throw, inside the branch closure
  assert.ok(frames[1].includes(`at check (`) && frames[1].endsWith(`${at('if (x.less(0))')})`), frames[1]);  // the converted if
  assert.ok(frames[2].endsWith(`${at('check(tl.scalar(-1))')})`), frames[2]);     // the top-level call
});
