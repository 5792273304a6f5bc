// The served page in headless Chromium: the server answers on 127.0.0.1, the .wasm is application/wasm,
// and the page shows the matmul the WASM core computed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');

test('page: loads the WASM core and shows the value it computed', { timeout: 120_000 }, async (t) => {
  const server = await startServer({ port: 0, mounts: [{ prefix: '/lib/', root: dist }, { prefix: '/', root: join(root, 'web') }] });
  t.after(() => server.close());
  const base = `http://127.0.0.1:${server.address().port}`;

  const wasm = await fetch(`${base}/lib/tracelab.web.wasm`);
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  assert.equal((await fetch(`${base}/../package.json`)).status, 404);

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  t.after(() => browser.close());
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  await page.goto(`${base}/`);
  await page.waitForFunction(() => document.getElementById('status').textContent !== 'loading the WebAssembly core…');
  assert.equal(await page.textContent('#status'), 'ready', problems.join('\n'));
  assert.match(await page.textContent('#version'), /^\d+\.\d+\.\d+$/);
  assert.equal(await page.getAttribute('#matmul', 'data-values'), '58,64,139,154');
  assert.match(await page.textContent('#bad-call'), /^ShapeError: matmul: inner dimensions must agree/);
  assert.deepEqual(problems, []);
});
