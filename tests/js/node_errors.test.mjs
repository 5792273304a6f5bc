// A Node program's own errors stay its own: a program that loads Tracelab and then throws (at top level, in a timer,
// inside a tl.function body, inside an onProgress callback of tl.experiments.runRagged), leaves a core error uncaught,
// or leaves a promise rejected, ends as any Node program does: Node's message naming the error, exit code 1, a short
// stderr. No handler of the core's runs (an Emscripten build for Node installs process.on('uncaughtException') and
// exits 7), and no error is thrown from the core's glue, whose one ~100 KB minified line Node would print as the
// error's source line. Each case runs in a child `node` on a small script in a temp folder, through the main entry
// and through 'tracelab/tfjs'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
const url = (file) => JSON.stringify(pathToFileURL(join(dist, file)).href);

/** How each entry binds `tl`, the API, at the top of a script. */
const ENTRIES = {
  main: `import { loadTracelab } from ${url('tracelab.mjs')};\nconst tl = await loadTracelab();\n`,
  tfjs: `import * as tl from ${url('tfjs.mjs')};\n`,
};

/** Each case's script after the entry's lines, and the message of the error it leaves uncaught. */
const CASES = {
  'a throw at top level after ops ran': {
    body: "tl.tidy(() => tl.add(tl.tensor([1, 2]), 1).dataSync());\nthrow new Error('user error at top level');\n",
    message: 'user error at top level',
  },
  'a throw in a setTimeout callback after ops ran': {
    body: "setTimeout(() => {\n  tl.tidy(() => tl.matMul(tl.ones([2, 2]), tl.ones([2, 2])).dataSync());\n" +
          "  throw new Error('user error in a timer');\n}, 1);\n",
    message: 'user error in a timer',
  },
  'an unhandled Promise.reject': {
    body: "tl.tensor([1]).dispose();\nPromise.reject(new Error('user rejection left unhandled'));\n",
    message: 'user rejection left unhandled',
  },
  'a throw inside a tl.function body': {
    body: "const f = tl.function((x) => { if (x.shape[0] === 2) throw new Error('user error in a traced body'); return x; });\n" +
          'f(tl.tensor([1, 2]));\n',
    message: 'user error in a traced body',
  },
  'an uncaught ShapeError of a bad op call': {
    body: 'tl.matMul(tl.ones([2, 3]), tl.ones([2, 3]));\n',
    message: 'matmul: inner dimensions must agree',
  },
  'a throw from runRagged\'s onProgress callback': {
    body: "tl.experiments.runRagged({ steps: 10, modes: ['eager'] },\n" +
          "  { progressEvery: 5, onProgress: () => { throw new Error('user error in onProgress'); } });\n",
    message: 'user error in onProgress',
  },
};

/** Runs `node script` to its end: {code, stdout, stderr}. */
const run = (script) => new Promise((resolve, reject) => {
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  child.on('error', reject);
  child.on('close', (code) => resolve({ code, stdout, stderr }));
});

const folder = mkdtempSync(join(tmpdir(), 'tracelab-node-errors-'));
test.after(() => rmSync(folder, { recursive: true, force: true }));

for (const [entry, prologue] of Object.entries(ENTRIES)) {
  for (const [name, { body, message }] of Object.entries(CASES)) {
    test(`node errors (${entry} entry): ${name} ends with Node's message and exit code 1`, async () => {
      const script = join(folder, `${entry}-${name.replace(/\W+/g, '_')}.mjs`);
      writeFileSync(script, prologue + body);
      const { code, stdout, stderr } = await run(script);
      const report = `exit ${code}; stderr (${stderr.length} bytes) begins:\n${stderr.slice(0, 600)}`;
      assert.equal(code, 1, report);
      assert.ok(stderr.length < 2048, report);
      assert.match(stderr, new RegExp(`Error: ${message}`), report);
      assert.equal(stdout, '', report);
    });
  }
}

test('node errors: a program that ends normally after loading exits 0 with nothing on stderr', async () => {
  for (const [entry, prologue] of Object.entries(ENTRIES)) {
    const script = join(folder, `${entry}-clean.mjs`);
    writeFileSync(script, `${prologue}console.log(Array.from(tl.add(tl.tensor([1, 2]), 1).dataSync()).join(' '));\n`);
    assert.deepEqual(await run(script), { code: 0, stdout: '2 3\n', stderr: '' }, entry);
  }
});
