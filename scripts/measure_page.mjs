// Measures the playground in headless Chromium against its targets and prints the figures (not a test):
//   node scripts/measure_page.mjs [--steps 20000]
// load to interactive (navigation to "Run" enabled), bytes transferred (WASM + JS + CSS), a run of all six modes
// in the browser vs the same run in Node, and the longest main-thread task while it runs (input blocked).
// Also writes docs/playground.png (the top of the page after a 1000-step run).
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'build/wasm/dist');
const steps = Number(process.argv[process.argv.indexOf('--steps') + 1] || 20000);

const server = await startServer({ port: 0, mounts: [{ prefix: '/lib/', root: dist }, { prefix: '/', root: join(root, 'web') }] });
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true,
                                        args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'] });
try {
  // Load to interactive, and what was transferred, on a fresh page (warm browser process, cold page).
  const loads = [];
  let bytes = 0;
  for (let i = 0; i < 3; ++i) {
    const page = await browser.newPage();
    let total = 0;
    page.on('response', async (response) => { try { total += (await response.body()).length; } catch { /* redirects */ } });
    const start = Date.now();
    await page.goto(`${base}/`);
    await page.waitForSelector('#run:not([disabled])');
    loads.push(Date.now() - start);
    await page.waitForTimeout(300);
    bytes = total;
    await page.close();
  }
  console.log(`load to interactive: ${loads.join(', ')} ms (median ${[...loads].sort((a, b) => a - b)[1]} ms); transferred ${(bytes / 1e6).toFixed(2)} MB`);

  // A run of all six modes in the browser, with a long-task observer on the page's thread.
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${base}/?steps=${steps}`);
  await page.waitForSelector('#run:not([disabled])');
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longTasks.push([e.startTime, e.duration]); })
      .observe({ type: 'longtask', buffered: false });
  });
  const start = Date.now();
  await page.click('#run');
  await page.waitForSelector('#summary tbody tr[data-mode="bucketed"]', { timeout: 900_000 });
  const browserMs = Date.now() - start;
  await page.waitForTimeout(2000);  // let the inspector draw
  const finishedAt = await page.evaluate(() => window.playground.run.finishedAt);
  const during = (await page.evaluate(() => window.longTasks)).filter(([at]) => at < finishedAt).map(([, d]) => d);
  const after = (await page.evaluate(() => window.longTasks)).filter(([at]) => at >= finishedAt).map(([, d]) => d);
  const summary = await page.$$eval('#summary tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  console.log(`browser: ${steps} steps x 6 modes in ${(browserMs / 1000).toFixed(1)} s; main-thread tasks over 50 ms ` +
              `while running: ${during.length}, longest ${Math.max(0, ...during).toFixed(0)} ms; after the run (summary, ` +
              `graph layout): ${after.length}, longest ${Math.max(0, ...after).toFixed(0)} ms`);
  for (const row of summary) console.log(`  ${row.join('  ')}`);

  // The same run in Node, same process kind of build (the web module runs in Chromium, the node one here).
  const { loadTracelab } = await import(join(dist, 'tracelab.mjs'));
  const tl = await loadTracelab();
  const nodeStart = Date.now();
  const result = tl.experiments.runRagged({ steps, maxRetracingWarnings: -1 });
  console.log(`node: the same run in ${((Date.now() - nodeStart) / 1000).toFixed(1)} s`);
  for (const m of result.modes) console.log(`  ${m.mode}  total ${m.total_ms.toFixed(1)} ms  median ${m.median_us.toFixed(1)} us  traces ${m.trace_count}`);

  // The README's picture: the top of the page after a 1000-step run.
  const shot = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await shot.goto(`${base}/?steps=1000`);
  await shot.waitForSelector('#run:not([disabled])');
  await shot.click('#run');
  await shot.waitForSelector('#summary tbody tr[data-mode="bucketed"]');
  await shot.evaluate(() => document.getElementById('charts-title').scrollIntoView());
  await shot.waitForTimeout(300);
  await shot.screenshot({ path: join(root, 'docs/playground.png') });
  console.log('wrote docs/playground.png');
} finally {
  await browser.close();
  server.close();
}
