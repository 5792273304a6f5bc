// Measures the TF.js programs page (web/tfjs-programs.html) in headless Chromium and prints its figures (not a test):
//   node scripts/measure_tfjs_programs.mjs [--runs 3]
// Each run is a fresh browser on the page: Run (a fresh worker: the engine's code is compiled while the programs
// run, Liftoff first) and then Run again (the same worker, compiled). Per program and press the page's own figures:
// the median step eagerly and under tf.function, in µs (the page's timers have 5 µs resolution). Printed: each run's
// figures, then per program and press the median over the runs with their range, and the ratio of those medians; a
// markdown table for docs/playground.md at the end. Serves as scripts/serve.sh does, on 127.0.0.1.
import { chromium } from 'playwright-core';
import { siteMounts, startServer } from './serve.mjs';

const USAGE = 'usage: node scripts/measure_tfjs_programs.mjs [--runs N]';
const PROGRAMS = ['regression', 'cnn', 'dense_grads'];

const args = process.argv.slice(2);
let runs = 3;
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--runs' && Number.isSafeInteger(Number(args[i + 1])) && Number(args[i + 1]) >= 1) runs = Number(args[++i]);
  else {
    console.error(`measure_tfjs_programs.mjs: bad argument ${args[i]}\n${USAGE}`);
    process.exit(2);
  }
}

const server = await startServer({ port: 0, mounts: siteMounts() });
const url = `http://127.0.0.1:${server.address().port}/tfjs-programs.html`;
// figures[press][program] = {eager: [µs per run], traced: [...]}; press 1 = fresh worker, 2 = Run again.
const figures = { 1: {}, 2: {} };
try {
  for (let run = 1; run <= runs; ++run) {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.goto(url);
      await page.waitForSelector('#run:not([disabled])', { timeout: 60_000 });
      for (const press of [1, 2]) {
        await page.click('#run');
        await page.waitForSelector(`body[data-runs="${press}"], body[data-error]`, { timeout: 300_000 });
        const error = await page.getAttribute('body', 'data-error');
        if (error !== null) throw new Error(`the page failed: ${error}`);
        const sections = await page.$$eval('section.program', (all) => all.map((s) => ({ ...s.dataset })));
        const line = [];
        for (const s of sections) {
          const slot = (figures[press][s.program] ??= { eager: [], traced: [] });
          slot.eager.push(Number(s.medianEagerUs));
          slot.traced.push(Number(s.medianFunctionUs));
          line.push(`${s.program} ${Number(s.medianEagerUs).toFixed(0)} / ${Number(s.medianFunctionUs).toFixed(0)} µs`);
        }
        console.log(`run ${run}, ${press === 1 ? 'fresh worker' : 'run again   '}: ${line.join('; ')}`);
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  server.close();
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cell = (slot) => {
  const e = median(slot.eager), t = median(slot.traced);
  const range = (v) => `${Math.min(...v).toFixed(0)}-${Math.max(...v).toFixed(0)}`;
  return { text: `${e.toFixed(0)} µs / ${t.toFixed(0)} µs (${t > 0 ? (e / t).toFixed(1) : '∞'}×)`,
           spread: `eager ${range(slot.eager)}, traced ${range(slot.traced)}` };
};
console.log(`\nmedians of ${runs} runs, eager / tf.function (ranges in brackets):`);
for (const program of PROGRAMS) {
  const fresh = cell(figures[1][program]), again = cell(figures[2][program]);
  console.log(`  ${program.padEnd(12)} fresh worker ${fresh.text} [${fresh.spread}]; run again ${again.text} [${again.spread}]`);
}
console.log('\n| program | fresh worker | run again |\n|---|---|---|');
for (const program of PROGRAMS) console.log(`| ${program} | ${cell(figures[1][program]).text} | ${cell(figures[2][program]).text} |`);
