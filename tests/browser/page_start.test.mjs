// How the playground starts (docs/playground.md, "How the page starts"): the worker first, the views meanwhile, and
// nothing the first view does not need. Statically: index.html preloads exactly main.js's static module graph
// (main.js, run.js, stats.js), which starts the worker, and worker.js imports nothing statically (its chain starts
// at once). In Chromium: until Run is enabled, the page and its worker fetch no code editor, no AutoGraph parser and
// no graph layout (dagre comes with the vendor bundle, which only the page loads then, once, for uPlot); Run is
// enabled because the core loaded, not because it failed; after a run the inspector's graph still draws (the
// worker loads graph-layout.js then). And the run controller tells views attached late what the worker said before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, root, watchProblems } from './launch.mjs';

const web = join(root, 'web');
/** The relative specifiers of a module's static imports (`import ... from '...'`, `import '...'`). */
const staticImports = (file) => [...readFileSync(join(web, file), 'utf8').matchAll(/^import\s+(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)]
  .map((match) => match[1]);

test('page start: index.html preloads main.js\'s static graph, which is only the run controller; worker.js imports nothing statically', () => {
  const graph = new Set();
  const visit = (file) => {
    if (graph.has(file)) return;
    graph.add(file);
    for (const specifier of staticImports(file)) visit(specifier.replace(/^\.\//, ''));
  };
  visit('main.js');
  assert.deepEqual([...graph].sort(), ['main.js', 'run.js', 'stats.js']);
  const html = readFileSync(join(web, 'index.html'), 'utf8');
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((match) => match[1]);
  assert.deepEqual(preloaded.sort(), [...graph].sort());
  assert.match(html, /<script type="module" src="main.js"><\/script>/);
  assert.deepEqual(staticImports('worker.js'), []);
});

test('page start: the run controller tells late views that the worker is ready or failed, and forgets it on a restart', async () => {
  const workers = [];
  globalThis.Worker = class {
    constructor(url, options) { Object.assign(this, { url, options, terminated: false }); workers.push(this); }
    postMessage() {}
    terminate() { this.terminated = true; }
  };
  try {
    const { RunController } = await import('../../web/run.js');
    const runs = new RunController('worker.js');
    assert.equal(workers.length, 1);
    runs.catchUp();   // nothing said yet: nothing to tell
    workers[0].onmessage({ data: { type: 'ready' } });   // before any view listens
    const told = [];
    runs.on.ready = () => told.push('ready');
    runs.on.failed = (text) => told.push(text);
    runs.catchUp();
    assert.deepEqual(told, ['ready']);
    workers[0].onmessage({ data: { type: 'ready' } });   // views listening: told at once, as before
    assert.deepEqual(told, ['ready', 'ready']);

    runs.startWorker();   // what Stop does: a fresh worker has loaded nothing yet
    assert.equal(workers[0].terminated, true);
    told.length = 0;
    runs.catchUp();
    assert.deepEqual(told, []);
    const late = new RunController('worker.js');
    workers[2].onerror({ message: 'no such module' });
    late.on.failed = (text) => told.push(text);
    late.on.ready = () => told.push('ready');
    late.catchUp();
    assert.deepEqual(told, ['Error: the worker failed: no such module']);
  } finally {
    delete globalThis.Worker;
  }
});

test('page start: nothing but the first view loads before Run is enabled; the inspector still draws after a run', { timeout: 180_000 }, async (t) => {
  const { base, browser } = await launch(t);
  const page = await browser.newPage();
  const problems = await watchProblems(page);
  const requested = [];   // the page's and its worker's requests, paths only
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  await page.goto(`${base}/?steps=100&modes=function`);
  await page.waitForSelector('#run:not([disabled])', { timeout: 60_000 });
  assert.equal(await page.textContent('#core-status'), 'The core is loaded: choose modes and press Run.');
  const beforeRun = [...requested];
  for (const path of ['/main.js', '/run.js', '/worker.js', '/lib/tracelab.bundle.mjs', '/lib/tracelab.core.mjs',
                      '/lanes.js'])
    assert.ok(beforeRun.includes(path), `${path} is loaded at the start`);
  // The worker loads the JS API as one file, not module by module.
  for (const path of ['/lib/tracelab.mjs', '/lib/js/function.mjs', '/lib/editor.mjs', '/lib/js/autograph-parser.mjs',
                      '/lib/js/autograph/converter.mjs', '/graph-layout.js', '/layout-worker.js'])
    assert.ok(!beforeRun.includes(path), `${path} is not loaded before it is used`);
  assert.equal(beforeRun.filter((path) => path === '/lib/vendor.mjs').length, 1, 'the vendor bundle, once (the page\'s uPlot)');

  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('inspect-graph')?.dataset.state === 'drawn', null, { timeout: 120_000 });
  assert.ok(requested.includes('/graph-layout.js'), 'the worker loads graph-layout.js for the inspector');
  assert.ok(Number(await page.getAttribute('#inspect-graph', 'data-nodes')) > 0);
  assert.deepEqual(problems, []);
});
