// The playground in headless Chromium (Debian's, driven by playwright-core): served on 127.0.0.1 with the .wasm
// as application/wasm; a 500-step run of all six modes draws 500 points per mode and one marker per trace; the
// summary, warnings and inspector fill; exports are valid JSON and CSV; Stop keeps the steps so far; invalid
// fields get a message; no console errors; no horizontal scroll at 375 px. Screenshots go to
// build/test-artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifacts, launch } from './launch.mjs';

async function open(t, { width = 1280, height = 900, query = '' } = {}) {
  const { base, browser } = await launch(t);
  const page = await browser.newPage({ viewport: { width, height }, acceptDownloads: true });
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  const started = Date.now();
  await page.goto(`${base}/${query}`);
  await page.waitForSelector('#run:not([disabled])', { timeout: 60_000 });
  return { page, base, problems, loadMs: Date.now() - started };
}

const dataset = (page, id) => page.evaluate((el) => ({ ...document.getElementById(el).dataset }), id);

test('page: served with the right types; a 500-step run of all modes draws every step and every trace', { timeout: 300_000 }, async (t) => {
  const { page, base, problems, loadMs } = await open(t, { query: '?steps=500' });
  const wasm = await fetch(`${base}/lib/tracelab.web.wasm`);
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  for (const escape of ['/%2e%2e/package-lock.json', '/..%2fpackage-lock.json', '/lib/..%2f..%2fpackage-lock.json'])
    assert.equal((await fetch(`${base}${escape}`)).status, 404, escape);   // nothing outside the mounted folders
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);  // 5 µs timers instead of 100 µs
  t.diagnostic(`load to interactive: ${loadMs} ms`);

  await page.click('#run');
  await page.waitForSelector('#summary tbody tr[data-mode="bucketed"]', { timeout: 240_000 });
  await page.waitForFunction(() => document.getElementById('chart-steps').dataset.pointsBucketed === '500');
  const steps = await dataset(page, 'chart-steps');
  for (const mode of ['Eager', 'Function', 'Signature', 'Relaxed', 'Loop', 'Bucketed']) assert.equal(steps[`points${mode}`], '500', mode);
  assert.equal(steps.markersFunction, '10');
  assert.equal(steps.markersSignature, '1');
  assert.equal(steps.markersRelaxed, '2');
  assert.equal(steps.markersLoop, '1');
  assert.equal(steps.markersBucketed, '4');
  assert.equal(steps.markersEager, '0');
  assert.equal((await dataset(page, 'chart-loss')).pointsLoop, '500');
  assert.equal(await page.locator('#summary tbody tr').count(), 6);
  assert.equal(await page.textContent('#summary tr[data-mode="function"] td:nth-child(6)'), '10');
  assert.match(await page.textContent('#warnings'), /triggered tl.function retracing/);
  assert.equal(await page.locator('#retraces tbody tr').count(), 10 + 1 + 2 + 1 + 4);

  // The inspector draws the selected concrete function's graph, optimized and as traced.
  await page.selectOption('#inspect-mode', 'signature');
  const optimized = Number((await dataset(page, 'inspect-graph')).nodes);
  assert.ok(optimized > 50, `nodes ${optimized}`);
  await page.check('#inspect-unoptimized');
  assert.ok(Number((await dataset(page, 'inspect-graph')).nodes) > optimized);
  assert.ok(await page.locator('#inspect-graph svg .node').count() > 50);
  assert.ok(await page.locator('#inspect-passes tbody tr').count() >= 6);

  // Exports: valid JSON (the runner's document) and CSV (one row per step).
  const [jsonDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  const document = JSON.parse(readFileSync(await jsonDownload.path(), 'utf8'));
  assert.equal(document.format, 'tracelab.ragged/1');
  assert.equal(document.modes.length, 6);
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  const lines = readFileSync(await csvDownload.path(), 'utf8').trim().split('\n');
  assert.equal(lines.length, 501);
  assert.match(lines[0], /^step,eager_us,eager_loss,eager_traced,function_us/);
  assert.equal(lines[1].split(',').length, 1 + 6 * 3);

  // Settings live in the URL, so a link reproduces the run.
  assert.match(page.url(), /steps=500/);
  await page.screenshot({ path: join(artifacts, 'playground-desktop.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('page: Stop keeps the steps so far; invalid fields show a message; 375 px has no horizontal scroll', { timeout: 300_000 }, async (t) => {
  const { page, problems } = await open(t, { width: 375, height: 800 });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));

  await page.fill('input[name=steps]', '0');
  await page.click('#run');
  assert.match(await page.textContent('#steps-error'), /from 100 to 50000/);
  assert.equal(await page.getAttribute('input[name=steps]', 'aria-invalid'), 'true');
  await page.fill('input[name=steps]', 'abc');
  await page.click('#run');
  assert.match(await page.textContent('#steps-error'), /whole number/);
  await page.fill('input[name=steps]', '50000');
  await page.fill('input[name=minLength]', '8');
  await page.fill('input[name=maxLength]', '3');
  await page.click('#run');
  assert.match(await page.textContent('#maxLength-error'), /reversed/);
  assert.equal(await page.locator('#summary tbody tr').count(), 0);  // nothing ran

  await page.fill('input[name=minLength]', '1');
  await page.fill('input[name=maxLength]', '10');
  await page.click('#run');
  assert.equal(await page.textContent('#steps-error'), '');
  await page.waitForFunction(() => Number(document.getElementById('chart-steps').dataset.pointsEager ?? 0) >= 500);
  await page.click('#stop');
  await page.waitForSelector('#summary tbody tr');
  assert.match(await page.textContent('#core-status'), /Stopped/);
  const points = Number((await dataset(page, 'chart-steps')).pointsEager);
  assert.ok(points >= 500 && points < 50000, `eager points ${points}`);
  assert.equal(await page.isDisabled('#run'), false);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  await page.screenshot({ path: join(artifacts, 'playground-375px.png'), fullPage: true });

  // After Stop a fresh worker is ready: a short run works.
  await page.fill('input[name=steps]', '100');
  await page.waitForSelector('#run:not([disabled])');
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('chart-steps').dataset.pointsBucketed === '100', null, { timeout: 120_000 });
  assert.deepEqual(problems, []);
});
