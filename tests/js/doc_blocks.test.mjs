// Every "```js runnable" block of README.md and docs/ runs under node as an ES module and exits 0; where a
// "```text output" block follows it, its standard output is exactly that text (trailing whitespace of the whole
// output ignored). Each block is written to build/doc-blocks/js/<name>.mjs, where `import ... from 'tracelab'`
// finds the built npm package (TRACELAB_DIST, or build/wasm/dist) through node_modules/tracelab. The C++ blocks run
// in ctest (tests/docs/CMakeLists.txt); scripts/doc_blocks.mjs finds both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT, findBlocks } from '../../scripts/doc_blocks.mjs';

// The number of JS runnable blocks in README.md and docs/: update it when adding or removing one, so that a block
// the extractor stops finding (a changed fence) fails here. The C++ count is in tests/docs/CMakeLists.txt.
const EXPECTED_JS_BLOCKS = 16;

const dist = resolve(process.env.TRACELAB_DIST ?? fileURLToPath(new URL('../../build/wasm/dist', import.meta.url)));
const work = join(ROOT, 'build', 'doc-blocks', 'js');
const blocks = findBlocks();
const jsBlocks = blocks.filter((block) => block.lang === 'js');

/** build/doc-blocks/js/node_modules/tracelab as a link to `dist`, made anew if it points elsewhere. */
function linkPackage() {
  const link = join(work, 'node_modules', 'tracelab');
  mkdirSync(join(work, 'node_modules'), { recursive: true });
  if (existsSync(link) || lstatSync(link, { throwIfNoEntry: false })) {
    if (lstatSync(link).isSymbolicLink() && readlinkSync(link) === dist) return;
    rmSync(link, { recursive: true, force: true });
  }
  symlinkSync(dist, link, 'dir');
}

test('doc blocks: the number of js runnable blocks found in README.md and docs/', () => {
  const where = jsBlocks.map((block) => `${block.file}:${block.line}`).join(', ');
  assert.equal(jsBlocks.length, EXPECTED_JS_BLOCKS,
               `found ${jsBlocks.length} js runnable blocks (${where}); EXPECTED_JS_BLOCKS says ${EXPECTED_JS_BLOCKS}`);
});

test('doc blocks: the built package is there', () => {
  assert.ok(existsSync(join(dist, 'package.json')), `no npm package at ${dist}: build the wasm preset first`);
});

for (const block of jsBlocks) {
  test(`doc block ${block.file}:${block.line} (${block.name}) runs${block.expected !== null ? ' and prints its output block' : ''}`, () => {
    linkPackage();
    const file = join(work, `${block.name}.mjs`);
    writeFileSync(file, block.code);
    const run = spawnSync(process.execPath, [file], { cwd: work, encoding: 'utf8', timeout: 120_000 });
    const context = `${block.file}:${block.line}, run as ${file}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    assert.equal(run.error, undefined, `${context}\n${run.error}`);
    assert.equal(run.status, 0, `exit code ${run.status} (signal ${run.signal}): ${context}`);
    if (block.expected !== null) {
      assert.equal(run.stdout.trimEnd(), block.expected.trimEnd(),
                   `${block.file}:${block.line}: the output differs from the doc's text output block`);
    }
  });
}
