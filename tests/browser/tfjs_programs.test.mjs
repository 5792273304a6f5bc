// The TF.js programs page (web/tfjs-programs.html) in headless Chromium: served on 127.0.0.1 as scripts/serve.sh
// serves it (web/ at /, the WASM build at /lib/, examples/tfjs at /examples/tfjs/), its worker runs the three
// programs of examples/tfjs eagerly and with the step under tf.function. Every step of both runs is plotted, the
// traced steps are ringed (the first step: one trace each), the two runs' losses agree at every step (relative
// LOSS_TOLERANCE), and for every program the page's sentence says what its own medians say (which is faster is a
// measurement, not a check here: bench/js/tfjs_programs_bench.mjs measures it, docs/playground.md has the figures). The step code the
// page quotes is the program's. No page error, console error or CSP violation; no sideways scroll at 375 px. Screenshot:
// build/test-artifacts/tfjs-programs.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifacts, launch, root, watchProblems } from './launch.mjs';

/** Each program and its steps (its main's default). */
const PROGRAMS = { regression: 200, cnn: 30, dense_grads: 200 };
const LOSS_TOLERANCE = 1e-4;

async function open(t) {
  const { base, browser } = await launch(t);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = await watchProblems(page);
  await page.goto(`${base}/tfjs-programs.html`);
  await page.waitForSelector('#run:not([disabled])', { timeout: 60_000 });
  return { page, problems };
}

/** The page's sections as it leaves them after a run: their data attributes, sentence and quoted step code. */
const sectionsOf = (page) => page.$$eval('section.program', (all) => Object.fromEntries(all.map((section) => [
  section.dataset.program,
  { ...section.dataset, verdict: section.querySelector('.verdict').textContent, code: section.querySelector('pre').textContent,
    rows: [...section.querySelectorAll('table.numbers tr')].map((tr) => [...tr.cells].map((cell) => cell.textContent)) }])));

test('tfjs programs page: both runs of each program plotted step by step, traces ringed, losses equal, speed stated as measured',
     { timeout: 180_000 }, async (t) => {
  const { page, problems } = await open(t);
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);   // 5 µs timers, as the page says
  await page.click('#run');
  await page.waitForSelector('body[data-runs="1"], body[data-error]', { timeout: 150_000 });
  assert.equal(await page.getAttribute('body', 'data-error'), null);
  const sections = await sectionsOf(page);
  assert.deepEqual(Object.keys(sections), Object.keys(PROGRAMS));

  for (const [program, steps] of Object.entries(PROGRAMS)) {
    const s = sections[program];
    t.diagnostic(`${program}: median eager ${(+s.medianEagerUs).toFixed(1)} µs, tf.function ${(+s.medianFunctionUs).toFixed(1)} µs, ` +
                 `ratio ${(+s.ratio).toFixed(2)}; ${s.verdict}`);
    // Every step of both runs is a point on the time chart and on the loss chart; the trace is ringed.
    for (const key of ['pointsEager', 'pointsFunction', 'lossPointsEager', 'lossPointsFunction'])
      assert.equal(s[key], String(steps), `${program}: ${key}`);
    assert.equal(s.tracedSteps, '0', `${program}: the step traced on its first call only`);
    assert.equal(s.tracesDrawn, '1', `${program}: the traced step is ringed`);
    assert.deepEqual(s.rows[1], ['steps', String(steps), String(steps)]);
    assert.match(s.rows[4][2], /^step 0 \(\d/);
    // The losses of the two runs agree at every step.
    assert.ok(Number(s.lossDifference) <= LOSS_TOLERANCE, `${program}: losses differ by ${s.lossDifference} (relative)`);
    assert.match(s.verdict, /The losses agree at every step/);
    // The sentence says what the page's own medians say.
    const eager = Number(s.medianEagerUs), traced = Number(s.medianFunctionUs);
    assert.ok(eager > 0 && traced >= 0, `${program}: medians ${eager}, ${traced}`);
    assert.equal(s.faster, String(traced < eager), program);
    assert.match(s.verdict, traced < eager ? /^Faster under tf\.function: / : /^Not faster under tf\.function here: /, program);
    if (traced > 0) assert.ok(s.verdict.includes(`${(eager / traced).toFixed(traced < eager ? 1 : 2)}×`), `${program}: the ratio`);
    // The step the page quotes is the program's, as its source has it (less the function body's indent).
    const source = readFileSync(join(root, `examples/tfjs/${program}.mjs`), 'utf8').replace(/^ {2}/gm, '');
    assert.ok(source.includes(s.code), `${program}: the quoted step is not in examples/tfjs/${program}.mjs:\n${s.code}`);
  }
  const faster = Object.values(sections).filter((s) => s.faster === 'true').length;
  assert.ok((await page.textContent('#status')).startsWith(`Run 1 done: ${faster} of 3 programs faster under tf.function.`));
  assert.match(await page.textContent('main'), /V8's Liftoff/);
  await page.screenshot({ path: join(artifacts, 'tfjs-programs.png'), fullPage: true });
  // At 375 px the charts follow the width and nothing scrolls sideways.
  await page.setViewportSize({ width: 375, height: 800 });
  await page.waitForFunction(() => [...document.querySelectorAll('.chart canvas')].every((c) => c.getBoundingClientRect().right <= 375));
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  assert.deepEqual(problems, []);
});
