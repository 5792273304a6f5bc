// What the lesson docs (docs/tutorials/) quote from the tutorial pages is what the pages hold: every code block
// introduced by "The `NAME` cell (...):" is cell NAME's code, character for character, and the list of cells and
// what each checks names every cell of the page once, in page order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LESSONS } from '../../web/tutorials/lessons.js';
import { cellsOf } from './lesson_cells.mjs';

const docs = fileURLToPath(new URL('../../docs/tutorials/', import.meta.url));
const docFiles = readdirSync(docs).filter((file) => /^\d\d-.*\.md$/.test(file)).sort();

test('tutorial docs: one doc per lesson, in order', () => {
  assert.equal(docFiles.length, LESSONS.length, docFiles.join(' '));
});

let quoted = 0;
LESSONS.forEach((lesson, i) => {
  test(`tutorial docs: ${docFiles[i]} quotes ${lesson.page}'s cells as they are and lists every cell`, () => {
    const text = readFileSync(docs + docFiles[i], 'utf8');
    const cells = new Map(cellsOf(lesson.page).map(({ name, code }) => [name, code]));
    for (const [, name, code] of text.matchAll(/^The `([a-z0-9-]+)` cell \([^\n]*\):\n\n```js\n([\s\S]*?)\n```$/gm)) {
      assert.ok(cells.has(name), `${docFiles[i]} quotes a cell '${name}' that ${lesson.page} does not have`);
      assert.equal(code, cells.get(name), `${docFiles[i]}: the quoted '${name}' cell differs from ${lesson.page}'s`);
      quoted += 1;
    }
    const listed = [...text.matchAll(/^\* `([a-z0-9-]+)` — /gm)].map(([, name]) => name);
    assert.deepEqual(listed, [...cells.keys()], `${docFiles[i]}: the list of cells and what each checks`);
  });
});

test('tutorial docs: the number of quoted cells', () => {
  assert.equal(quoted, 14);   // pinned: a quote added or dropped updates it on purpose
});
