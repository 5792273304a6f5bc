// The playground in headless Chromium (Debian's, driven by playwright-core): served on 127.0.0.1 with the .wasm
// as application/wasm; a 500-step run of all six modes fills one lane per mode with every step and one labelled
// marker per trace, after the engine warm-up (on by default, said under the lanes); the summary, warnings and
// inspector (laid out in the worker; the loop's dataset_loop drawn with its body inside, closed and opened by a
// click) fill; exports are valid JSON and CSV, the trained step downloads as a saved model that loads, and the
// TensorBoard download is an event file that the protoc-based checker (tests/tensorboard/check_events.py) reads
// back as each mode's per-step loss and step time; Stop keeps the steps so far; a run without warm-up says so; invalid
// fields get a message; no console errors; no horizontal scroll at 375 px.
// Screenshots go to build/test-artifacts/ (the inspector around adam_apply: inspector-adam-apply.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { artifacts, launch, watchProblems } from './launch.mjs';

async function open(t, { width = 1280, height = 900, query = '' } = {}) {
  const { base, browser } = await launch(t);
  const page = await browser.newPage({ viewport: { width, height }, acceptDownloads: true });
  const problems = await watchProblems(page);
  const started = Date.now();
  await page.goto(`${base}/${query}`);
  await page.waitForSelector('#run:not([disabled])', { timeout: 60_000 });
  return { page, base, problems, loadMs: Date.now() - started };
}

const dataset = (page, id) => page.evaluate((el) => ({ ...document.getElementById(el).dataset }), id);

test('page: served with the right types; a 500-step run of all modes draws every step and every trace', { timeout: 300_000 }, async (t) => {
  const { page, base, problems, loadMs } = await open(t, { query: '?steps=500' });
  const wasm = await fetch(`${base}/lib/tracelab.core.wasm`);
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  // /lib/ is the npm package folder (tests/package installs its tarball): the page loads the API a user installs.
  assert.equal((await (await fetch(`${base}/lib/package.json`)).json()).name, 'tracelab');
  for (const escape of ['/%2e%2e/package-lock.json', '/..%2fpackage-lock.json', '/lib/..%2f..%2fpackage-lock.json'])
    assert.equal((await fetch(`${base}${escape}`)).status, 404, escape);   // nothing outside the mounted folders
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);  // 5 µs timers instead of 100 µs
  t.diagnostic(`load to interactive: ${loadMs} ms`);

  assert.equal(await page.isChecked('#warmup'), true);   // the engine warm-up is on by default
  await page.click('#run');
  await page.waitForSelector('#summary tbody tr[data-mode="bucketed"]', { timeout: 240_000 });
  // One lane per mode, each with every step and one marker per trace, each marker labelled with its shape.
  const expected = { eager: 0, function: 10, signature: 1, relaxed: 2, loop: 1, bucketed: 4 };
  await page.waitForFunction(() => [...document.querySelectorAll('.lane:not([hidden])')].every((l) => l.dataset.steps === '500'));
  const lanes = await page.$$eval('.lane:not([hidden])', (all) => all.map((l) => ({ ...l.dataset, summary: l.querySelector('.lane-summary').textContent,
                                                                                   traces: l.querySelectorAll('.lane-traces li').length })));
  assert.deepEqual(lanes.map((l) => l.mode), Object.keys(expected));
  for (const lane of lanes) {
    const traces = expected[lane.mode];
    assert.equal(lane.traces, traces, lane.mode);
    assert.equal(lane.markers, String(traces), lane.mode);
    assert.equal(lane.labels, String(traces), `${lane.mode}: every marker is labelled`);
    assert.match(lane.summary, traces ? new RegExp(`^${traces} traces?: .* = \\d+% of this mode's .* · steady .* \\(p99 `) : /^no traces · steady /, lane.mode);
  }
  assert.match(await page.textContent('.lane[data-mode="function"] .lane-traces'), /step 0: traced for X=\d+ in /);
  assert.match(await page.textContent('.lane[data-mode="signature"] .lane-traces'), /traced for X=None/);
  assert.match(await page.textContent('.lane[data-mode="loop"] .lane-traces'), /traced for whole loop/);
  assert.match(await page.textContent('#warmup-note'), /untimed steps per mode on a throwaway model/);
  assert.equal((await dataset(page, 'chart-loss')).pointsLoop, '500');
  assert.equal(await page.locator('#summary tbody tr').count(), 6);
  assert.equal(await page.textContent('#summary tr[data-mode="function"] td:nth-child(7)'), '10');
  assert.match(await page.textContent('#warnings'), /triggered tl.function retracing/);
  assert.equal(await page.locator('#retraces tbody tr').count(), 10 + 1 + 2 + 1 + 4);
  assert.match(await page.textContent('#retraces tbody tr:first-child td:nth-child(3)'), /^(X=\d+|X=None|whole loop)$/);

  // Hover a trace: its step, the shape it traced for and the reason, without clicking.
  await page.locator('.lane[data-mode="function"]').scrollIntoViewIfNeeded();
  const over = await page.locator('.lane[data-mode="function"] .u-over').boundingBox();
  const third = await page.evaluate(() => { const lane = window.playground.lanes.lanes.get('function');
                                            return lane.plot.valToPos(lane.retraces[2].step, 'x'); });
  await page.mouse.move(over.x + third, over.y + 30);
  await page.waitForSelector('.lane-tooltip:not([hidden])');
  assert.match(await page.textContent('.lane-tooltip'), /^function, step \d+: traced for X=\d+ in .*\n.*shape=\(1, \d+, 20\)[^]*dim 1 changed/);
  // Drag to zoom one lane: every lane follows; a double-click shows every step again.
  const xRanges = () => page.evaluate(() => [...window.playground.lanes.lanes.values()].filter((l) => !l.element.hidden)
    .map((l) => `${Math.round(l.plot.scales.x.min)}-${Math.round(l.plot.scales.x.max)}`));
  await page.mouse.move(over.x + over.width * 0.6, over.y + 40);
  await page.mouse.down();
  await page.mouse.move(over.x + over.width * 0.8, over.y + 40, { steps: 5 });
  await page.mouse.up();
  const zoomed = await xRanges();
  assert.equal(new Set(zoomed).size, 1, `lanes zoomed alike: ${zoomed}`);
  assert.notEqual(zoomed[0], '0-499');
  await page.mouse.dblclick(over.x + over.width * 0.5, over.y + 40);
  assert.deepEqual(new Set(await xRanges()), new Set(['0-499']));

  // The linear step axis draws the same markers and labels.
  await page.uncheck('#log-steps');
  await page.waitForFunction(() => document.querySelector('.lane[data-mode="function"]').dataset.markers === '10');
  await page.check('#log-steps');

  // The inspector draws the selected concrete function's graph, optimized and as traced.
  await page.selectOption('#inspect-mode', 'signature');
  await page.waitForSelector('#inspect-graph[data-state="drawn"]');
  const optimized = Number((await dataset(page, 'inspect-graph')).nodes);
  assert.ok(optimized > 50, `nodes ${optimized}`);
  // Its one adam_apply node says how many variables it updates (each weight, then its m and v slots) and names
  // them in its tooltip.
  const adam = page.locator('#inspect-graph g.node', { has: page.locator('text', { hasText: /^%\d+ adam_apply$/ }) });
  assert.equal(await adam.count(), 1);
  const [, updated] = (await adam.locator('text').nth(1).textContent()).match(/^updates (\d+) variables$/) ?? [];
  const tip = await adam.locator('title').textContent();
  assert.ok(tip.startsWith('updates '), tip);
  const names = tip.slice('updates '.length).split(', ');
  assert.equal(names.length, Number(updated), tip);
  assert.equal(names.length % 3, 0, tip);
  assert.equal(new Set(names).size, names.length, tip);
  await adam.scrollIntoViewIfNeeded();
  await page.locator('#inspect-graph').screenshot({ path: join(artifacts, 'inspector-adam-apply.png') });
  await page.check('#inspect-unoptimized');
  await page.waitForFunction((n) => Number(document.getElementById('inspect-graph').dataset.nodes) > n, optimized);
  assert.ok(await page.locator('#inspect-graph svg .node').count() > 50);
  assert.ok(await page.locator('#inspect-passes tbody tr').count() >= 6);
  // `loop`'s optimized graph is one dataset_loop node: drawn opened, the training step inside its body frame; a
  // click on its box closes it (laid out again in the page's layout worker), another opens it.
  await page.uncheck('#inspect-unoptimized');
  await page.selectOption('#inspect-mode', 'loop');
  const body = page.locator('#inspect-graph[data-state="drawn"] .cluster.subgraph[data-label="body"][data-depth="1"]');
  await body.waitFor();
  const inBody = Number(await body.getAttribute('data-nodes'));
  assert.ok(inBody > 50, `body nodes ${inBody}`);  // the optimized training step (one adam_apply node)
  assert.equal(Number((await dataset(page, 'inspect-graph')).nodes), inBody + 1);
  assert.equal(await page.locator('#inspect-graph g.node text', { hasText: /^%\d+ arg0 ← element 0$/ }).count(), 1);
  const loopBox = page.locator('#inspect-graph g.node.structured[data-path="0"]');
  await loopBox.click();
  await page.waitForFunction(() => document.getElementById('inspect-graph').dataset.nodes === '1');
  assert.match(await loopBox.getAttribute('class'), /\bcollapsed\b/);
  await loopBox.click();
  await page.waitForFunction((n) => document.getElementById('inspect-graph').dataset.nodes === String(n), inBody + 1);

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
  // The trained step as a saved model: the signature mode's step, loaded from the downloaded bytes by the browser's
  // WASM build — in the tutorials' cell worker, since the page itself may not evaluate code (its CSP) — and run on a
  // new batch.
  const [modelDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-model')]);
  assert.equal(modelDownload.suggestedFilename(), 'tracelab-train-step-signature.tlsm');
  const base64 = readFileSync(await modelDownload.path()).toString('base64');
  const cell = `const bytes = Uint8Array.from(atob('${base64}'), (c) => c.charCodeAt(0));
const model = tl.savedModel.load(bytes);
const step = model.functions.train_step;
const loss = step(tl.randomNormal([1, 7, 20], 0, 1, 'float32', 3), tl.tensor([0.5])).dataSync()[0];
let mismatch = '';
try {
  step(tl.ones([1, 7, 3]), tl.tensor([0.5]));
} catch (error) {
  mismatch = error.name + ': ' + error.message;
}
return { signature: step.signature, variables: model.variables.length, loss, mismatch };`;
  const loaded = await page.evaluate((code) => new Promise((resolve, reject) => {
    const worker = new Worker('./tutorials/cell-worker.js', { type: 'module' });
    worker.onmessage = ({ data }) => {
      if (data.type === 'ready') worker.postMessage({ type: 'run', id: 1, code });
      if (data.type === 'done') resolve(data.result);
      if (data.type === 'failed' || data.type === 'load-failed') reject(new Error(`${data.name}: ${data.message}`));
      if (data.type === 'done' || data.type === 'failed' || data.type === 'load-failed') worker.terminate();
    };
  }), cell);
  assert.equal(loaded.signature, 'train_step(x: float32 (None, None, 20), y: float32 (None,)) -> (float32 ())');
  assert.ok(loaded.variables >= 10 && Number.isFinite(loaded.loss), JSON.stringify(loaded));
  assert.match(loaded.mismatch, /^InvalidArgument: saved_model: function 'train_step': argument 'x' expects float32 \(None, None, 20\)/);

  // The TensorBoard file: <mode>/loss and <mode>/step_us at every step, checked against the page's own result.
  const [eventsDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-tensorboard')]);
  assert.match(eventsDownload.suggestedFilename(), /^events\.out\.tfevents\.\d{10}\.tracelab-playground$/);
  const modes = await page.evaluate(() => window.playground.run.result.modes.map((m) => ({
    mode: m.mode, loss: Array.from(m.loss, (v) => (Number.isFinite(v) ? v : null)), step_us: Array.from(m.step_us) })));
  assert.equal(modes.length, 6);
  const scalars = modes.flatMap((m) => m.step_us.flatMap((us, step) => [
    ...(m.loss[step] === null ? [] : [{ kind: 'scalar', tag: `${m.mode}/loss`, step, value: m.loss[step] }]),
    { kind: 'scalar', tag: `${m.mode}/step_us`, step, value: us }]));
  assert.ok(scalars.length >= 6 * 500, `${scalars.length} scalars`);
  const logdir = mkdtempSync(join(tmpdir(), 'tracelab-page-events-'));
  try {
    copyFileSync(await eventsDownload.path(), join(logdir, eventsDownload.suggestedFilename()));
    writeFileSync(join(logdir, 'expected.json'), JSON.stringify({ events: scalars }));
    const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';  // Debian's: python3-protobuf
    const checker = new URL('../tensorboard/check_events.py', import.meta.url).pathname;
    assert.match(execFileSync(python, [checker, logdir], { encoding: 'utf8' }), new RegExp(`check_events: OK: .*\\(${scalars.length} scalars`));
  } finally {
    rmSync(logdir, { recursive: true, force: true });
  }

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
  await page.waitForFunction(() => Number(document.querySelector('.lane[data-mode="eager"]').dataset.steps) >= 500);
  await page.click('#stop');
  await page.waitForSelector('#summary tbody tr');
  assert.match(await page.textContent('#core-status'), /Stopped/);
  // The fresh worker's load keeps the word: the reader still learns the run was stopped.
  await page.waitForFunction(() => /fresh core is loaded/.test(document.querySelector('#core-status').textContent));
  assert.match(await page.textContent('#core-status'), /^Stopped/);
  const points = Number(await page.getAttribute('.lane[data-mode="eager"]', 'data-steps'));
  assert.ok(points >= 500 && points < 50000, `eager points ${points}`);
  assert.equal(await page.isDisabled('#run'), false);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  await page.screenshot({ path: join(artifacts, 'playground-375px.png'), fullPage: true });

  // After Stop a fresh worker is ready: a short run works; without the warm-up the page says so.
  await page.fill('input[name=steps]', '100');
  await page.uncheck('#warmup');
  assert.equal(await page.isChecked('#specialize-plans'), true);
  await page.uncheck('#specialize-plans');  // TF 2.1's generic graphs: every shape rule on every step
  await page.waitForSelector('#run:not([disabled])');
  await page.click('#run');
  await page.waitForFunction(() => document.querySelector('.lane[data-mode="bucketed"]').dataset.steps === '100', null, { timeout: 120_000 });
  await page.waitForSelector('#summary tbody tr[data-mode="bucketed"]');
  assert.match(await page.textContent('#warmup-note'), /No warm-up/);
  assert.match(page.url(), /warmup=0/);
  assert.match(page.url(), /specializePlans=false/);
  assert.deepEqual(problems, []);
});
