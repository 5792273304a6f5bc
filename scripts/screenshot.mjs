// Takes docs/playground.png, the README's picture of the playground, from a real run in headless Chromium:
//   node scripts/screenshot.mjs [--steps 1000]
// Serves the page as scripts/serve.sh does (web/ at /, build/wasm/dist at /lib/), loads it with ?steps=N (1000 is
// the page's own default) and all six modes, presses Run with the page's other defaults (warm-up on), waits for the
// summary, and photographs the page from its header to the end of the lanes at 1280 px wide: what a reader sees
// after their first run. scripts/measure_page.mjs --screenshot takes the same picture after its measurements
// (takeScreenshot below).
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { siteMounts, startServer } from './serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
export const screenshotPath = join(root, 'docs/playground.png');

/** Runs `steps` steps of every mode on a new page of `context` (a Chromium context) served at `base`, then writes
 *  docs/playground.png: the page from the top to the end of the lanes, 1280 px wide. */
export async function takeScreenshot(context, base, { steps = 1000 } = {}) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(`${base}/?steps=${steps}`);
  await page.waitForSelector('#run:not([disabled])', { timeout: 120_000 });
  await page.click('#run');
  await page.waitForFunction(() => window.playground?.run?.result && document.querySelector('#summary tbody tr[data-mode]'),
                             null, { timeout: 300_000, polling: 250 });
  await page.mouse.move(0, 0);
  await page.waitForTimeout(800);   // the lanes' last redraw
  const bottom = await page.locator('#warmup-note').boundingBox();
  await page.screenshot({ path: screenshotPath, fullPage: true,
                          clip: { x: 0, y: 0, width: 1280, height: Math.ceil(bottom.y + bottom.height + 16) } });
  await page.close();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const steps = args[0] === '--steps' ? Number(args[1]) : 1000;
  if (!(steps >= 100) || (args.length && (args[0] !== '--steps' || args.length !== 2)))
    throw new Error('usage: node scripts/screenshot.mjs [--steps N] (N >= 100)');
  const server = await startServer({ port: 0, mounts: siteMounts() });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  try {
    await takeScreenshot(await browser.newContext(), `http://127.0.0.1:${server.address().port}`, { steps });
    console.log(`wrote ${screenshotPath}`);
  } finally {
    await browser.close();
    server.close();
  }
}
