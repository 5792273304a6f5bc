// Shared by the browser tests: the site served on 127.0.0.1 as scripts/serve.sh serves it (siteMounts: web/ at /, the
// WASM build at /lib/, examples/tfjs at /examples/tfjs/) and Debian's
// Chromium driven by playwright-core (headless; never downloads a browser). Both close when the test ends.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { siteMounts, startServer } from '../../scripts/serve.mjs';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
/** Screenshots and downloads of the browser tests. */
export const artifacts = join(root, 'build/test-artifacts');
mkdirSync(artifacts, { recursive: true });

/** Starts the server and the browser for test `t`; returns {base (the server's URL), browser}. */
export async function launch(t) {
  const server = await startServer({ port: 0, mounts: siteMounts(dist) });
  t.after(() => server.close());
  return { base: `http://127.0.0.1:${server.address().port}`, browser: await launchBrowser(t) };
}

/**
 * Collects what `page` reports as wrong into the returned array: uncaught errors, console errors and
 * Content-Security-Policy violations (reported from every document the page loads after this call).
 */
export async function watchProblems(page) {
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation',
    (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.sample}`)));
  return problems;
}

/** Starts headless Chromium alone for test `t` (for a test that serves other folders); returns the browser. */
export async function launchBrowser(t) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  t.after(() => browser.close());
  return browser;
}
