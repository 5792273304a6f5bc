// Tracelab leaves a page's global error handling to the page: loading the API (tracelab.mjs, or tracelab/tfjs
// through an import map) and running ops adds no 'error' or 'unhandledrejection' listener to the window or to a
// worker's `self`, and sets no window.onerror / onunhandledrejection (self.onerror in a worker). Each page wraps
// addEventListener before it imports the API, so a listener added while the modules load is seen too. And a
// TF.js program runs unchanged with "@tensorflow/tfjs" mapped to tracelab/tfjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.mjs';
import { dist, launchBrowser } from './launch.mjs';

// Records the event types of every addEventListener call on self (the window, or a worker's global scope).
const RECORDER = `
  const added = [];
  const addEventListener = self.addEventListener;
  self.addEventListener = function (type, ...rest) { added.push(type); return addEventListener.call(this, type, ...rest); };
  const handlers = () => ({ added: added.filter((type) => type === 'error' || type === 'unhandledrejection'),
                            onerror: self.onerror === null ? null : String(self.onerror),
                            onunhandledrejection: self.onunhandledrejection === null ? null : String(self.onunhandledrejection) });
`;
// Loads the API through `entry` ('main' or 'tfjs'), runs a few ops; the page's result: {handlers, values}.
const loadAndRun = (entry) => `
  const tl = ${entry === 'tfjs' ? "await import('/lib/tfjs.mjs')" : "await (await import('/lib/tracelab.mjs')).loadTracelab()"};
  const values = Array.from(tl.tidy(() => tl.matMul(tl.tensor([[1, 2], [3, 4]]), tl.ones([2, 1])).dataSync()));
  const f = tl.function((x) => x.mul(2));
  values.push(...f(tl.tensor([5])).dataSync());
`;

const FILES = {
  'main.html': `<!doctype html><script type="module">${RECORDER}${loadAndRun('main')}
    window.result = { handlers: handlers(), values };</script>`,
  'tfjs.html': `<!doctype html><script type="module">${RECORDER}${loadAndRun('tfjs')}
    window.result = { handlers: handlers(), values };</script>`,
  'worker.html': `<!doctype html><script type="module">
    const worker = new Worker('/worker.mjs', { type: 'module' });
    worker.onmessage = (event) => { window.result = event.data; };
    worker.onerror = (event) => { window.result = { failed: event.message ?? 'worker error' }; };</script>`,
  'worker.mjs': `${RECORDER}${loadAndRun('main')}
    postMessage({ handlers: handlers(), values });`,
  // A TF.js program as written for @tensorflow/tfjs: only the import map differs.
  'importmap.html': `<!doctype html>
    <script type="importmap">{ "imports": { "@tensorflow/tfjs": "/lib/tfjs.mjs" } }</script>
    <script type="module">
      import * as tf from '@tensorflow/tfjs';
      const a = tf.tensor([[1, 2, 3], [4, 5, 6]]);
      const b = tf.tensor([[1, -1], [0.5, 2], [3, 0]]);
      const c = tf.matMul(a, b);
      window.result = { shape: c.shape, values: Array.from(c.dataSync()), sum: tf.sum(c).dataSync()[0] };
    </script>`,
};

/** Serves FILES at / and the dist at /lib/, opens `page` in Chromium; resolves to its window.result. */
async function open(t, page) {
  const folder = mkdtempSync(join(tmpdir(), 'tracelab-global-handlers-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(folder, name), text);
  const server = await startServer({ port: 0, policy: false, mounts: [{ prefix: '/lib/', root: dist }, { prefix: '/', root: folder }] });
  t.after(() => server.close());
  const browser = await launchBrowser(t);
  const tab = await browser.newPage();
  // An uncaught error on the page fails at once instead of waiting out the timeout.
  const failed = new Promise((resolve, reject) => tab.on('pageerror', (error) => reject(new Error(`${page}: ${error.message}`))));
  await tab.goto(`http://127.0.0.1:${server.address().port}/${page}`);
  await Promise.race([tab.waitForFunction(() => window.result !== undefined || null, null, { timeout: 60_000 }), failed]);
  return tab.evaluate(() => window.result);
}

const NO_HANDLERS = { added: [], onerror: null, onunhandledrejection: null };
// [[1, 2], [3, 4]] @ [[1], [1]] = [3, 7]; then the tl.function's 5 * 2.
const VALUES = [3, 7, 10];

test('global handlers: loading tracelab.mjs on a page adds no error / unhandledrejection handler to the window', async (t) => {
  assert.deepEqual(await open(t, 'main.html'), { handlers: NO_HANDLERS, values: VALUES });
});

test('global handlers: loading tracelab.mjs in a module worker adds none to the worker\'s self', async (t) => {
  assert.deepEqual(await open(t, 'worker.html'), { handlers: NO_HANDLERS, values: VALUES });
});

test('global handlers: importing tracelab/tfjs on a page adds none either', async (t) => {
  assert.deepEqual(await open(t, 'tfjs.html'), { handlers: NO_HANDLERS, values: VALUES });
});

test('global handlers: a TF.js program runs with "@tensorflow/tfjs" mapped to tracelab/tfjs by an import map', async (t) => {
  // [[1, 2, 3], [4, 5, 6]] @ [[1, -1], [0.5, 2], [3, 0]] = [[11, 3], [24.5, 6]].
  assert.deepEqual(await open(t, 'importmap.html'), { shape: [2, 2], values: [11, 3, 24.5, 6], sum: 44.5 });
});
