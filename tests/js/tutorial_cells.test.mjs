// The tutorials' cells as the cell worker runs them (web/tutorials/convert-cell.js): every cell of every lesson
// converts with AutoGraph and compiles as the body of an async function; a converted cell decides a tensor `if` by
// the tensor's value; an error is reported at the line the reader wrote, not the converted text's. The cells'
// results are checked by tutorial_checks.test.mjs, and in the browser (tests/browser/tutorials.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LESSONS } from '../../web/tutorials/lessons.js';
import { convertCell, errorLine } from '../../web/tutorials/convert-cell.js';
import { cellsOf } from './lesson_cells.mjs';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();
const AsyncFunction = (async () => {}).constructor;

/** Runs a cell's code converted, as the worker does; resolves to {result} or {error, line}. */
async function run(code, show = {}, shared = {}) {
  const { text, lines } = convertCell(tl, code);
  try {
    return { result: await new AsyncFunction('tl', 'show', 'shared', text)(tl, show, shared) };
  } catch (error) {
    return { error, line: errorLine(error, lines) };
  }
}

test('tutorial cells: every cell of every lesson converts and compiles as the worker runs it', () => {
  let cells = 0;
  let converted = 0;
  for (const lesson of LESSONS) {
    const found = cellsOf(lesson.page);
    assert.ok(found.length >= 3, `${lesson.page}: ${found.length} cells`);
    for (const { name, code } of found) {
      const { text, lines } = convertCell(tl, code);
      assert.doesNotThrow(() => new AsyncFunction('tl', 'show', 'shared', text), `${lesson.page} ${name}`);
      assert.ok(lines.size > 0, `${lesson.page} ${name}: the map from converted lines to the cell's`);
      if (/tl\.autograph\.\w+Stmt|tl\.autograph\.(and|or|not|ifExp)\(/.test(text)) converted += 1;
      cells += 1;
    }
  }
  assert.ok(converted > 0 && converted < cells, `${converted} of ${cells} cells hold a converted construct`);
});

test('tutorial cells: a converted cell decides a tensor if by its value; plain code keeps its meaning', async () => {
  const sign = `const x = tl.scalar(-2);\nlet s;\nif (x.greater(0)) s = 'positive';\nelse s = 'negative';\nreturn s;`;
  assert.deepEqual(await run(sign), { result: 'negative' });
  // Unconverted, the tensor is an object and always truthy: the reason the worker converts.
  assert.equal(await new AsyncFunction('tl', sign)(tl), 'positive');
  const plain = `let n = 0;\nconst seen = [];\nfor (let i = 0; i < 4; ++i) { if (i % 2) continue; seen.push(i); n += i; }\n` +
                `await null;\nreturn { n, seen, either: seen.length > 5 || 'short' };`;
  assert.deepEqual(await run(plain), { result: { n: 2, seen: [0, 2], either: 'short' } });
  assert.deepEqual((await run('return shared.x = 1;', {}, {})).result, 1);
});

test('tutorial cells: an error is reported at the cell\'s own line, after converted constructs that span many', async () => {
  const code = [
    'const x = tl.scalar(3);',                 // 1
    'let total = tl.scalar(0);',               // 2
    'for (const v of tl.tensor([1, 2, 3])) {', // 3
    '  if (v.greater(1)) total = total.add(v);', // 4
    '}',                                       // 5
    'while (total.greater(10)) total = total.sub(1);', // 6
    'x.noSuchMethod();',                       // 7
  ].join('\n');
  const { error, line } = await run(code);
  assert.ok(error instanceof TypeError, String(error));
  assert.equal(line, 7);
  const { text } = convertCell(tl, code);
  assert.ok(text.split('\n').length > code.split('\n').length, 'the converted text is longer than the cell');
  // A ConversionError carries the line it names; a syntax error the parser's.
  const oneBranch = await run('const f = tl.function((x) => {\n  let y;\n  if (x.greater(0)) y = x;\n  return y;\n});\nf(tl.scalar(1));');
  assert.equal(oneBranch.error.name, 'ConversionError');
  assert.equal(oneBranch.line, 3);
  assert.match(oneBranch.error.message, /at line 3, column 3 of this cell: 'y' must also be defined in the else branch/);
  assert.throws(() => convertCell(tl, 'let a = 1;\nlet = = 2;'), (e) => e instanceof SyntaxError && errorLine(e) === 2);
});
