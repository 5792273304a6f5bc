// The npm package (build/wasm/dist, whose package.json wasm/CMakeLists.txt generates) as a user gets it: `npm pack`
// makes the tarball, `npm install --offline <tarball>` puts it in an empty temporary project, and from there
//   * the tarball holds what "files" names (with the repository's MIT LICENSE) and nothing else, the manifest is as
//     designed (name, CMake's version, license MIT, "type": "module", the exports and their conditions, no
//     dependencies), and every module it ships imports only files it ships and Node's built-in modules;
//   * Node imports 'tracelab' and 'tracelab/autograph' and trains a small model through tl.function (project/train.mjs);
//   * `node --import tracelab/autograph/register` converts a marked module (project/hook_app.mjs);
//   * a TF.js-style program runs with `import * as tf from 'tracelab/tfjs'` (project/tfjs_app.mjs);
//   * tsc --noEmit type-checks project/usage.ts against the package's declarations, and rejects project/wrong.ts;
//   * Chromium loads it from the installed folder through an import map (project/index.html + page.mjs).
// The project's files are copied from tests/package/project/. Needs npm, and Chromium for the last test.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../scripts/serve.mjs';
import { launchBrowser } from '../browser/launch.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
const { parse } = createRequire(import.meta.url)(join(root, 'node_modules/acorn'));

/** The child processes' environment: no NODE_PATH (the build exports Debian's), so only the project's node_modules count. */
const env = { ...process.env };
delete env.NODE_PATH;

const folder = mkdtempSync(join(tmpdir(), 'tracelab-npm-'));
const project = join(folder, 'project');
after(() => rmSync(folder, { recursive: true, force: true }));

/** Runs a command, which must exit with 0; returns its stdout. */
function run(command, args, { cwd = project } = {}) {
  const { status, stdout, stderr, error } = spawnSync(command, args, { cwd, env, encoding: 'utf8' });
  if (error) throw new Error(`${command} ${args.join(' ')}: ${error.message}`);
  assert.equal(status, 0, `${command} ${args.join(' ')} exited with ${status}:\n${stdout}\n${stderr}`);
  return stdout;
}

/** The last line of a program's output, parsed as JSON. */
const report = (stdout) => JSON.parse(stdout.trim().split('\n').at(-1));

let packed;   // npm pack's JSON report of the tarball: {filename, files: [{path}], ...}
before(() => {
  assert.ok(existsSync(join(dist, 'package.json')),
            `${dist}/package.json is missing: build the wasm preset first (cmake --build --preset wasm)`);
  [packed] = JSON.parse(run('npm', ['pack', dist, '--json', '--pack-destination', folder], { cwd: folder }));
  cpSync(join(root, 'tests/package/project'), project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'tracelab-package-check', private: true, type: 'module' }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', join(folder, packed.filename)]);
});

/** Every file under `dir`, as paths relative to it with '/' separators. */
function walk(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)).split('\\').join('/'));
}

/** The module specifiers a module's text names: imports, re-exports, import(), require() and new URL(x, import.meta.url). */
function specifiers(text, sourceType) {
  const found = [];
  const literal = (node) => (node?.type === 'Literal' && typeof node.value === 'string' ? node.value : null);
  const visit = (node) => {
    if (!node || typeof node.type !== 'string') return;
    if (['ImportDeclaration', 'ExportAllDeclaration', 'ExportNamedDeclaration', 'ImportExpression'].includes(node.type)) {
      if (node.source) found.push(literal(node.source) ?? '<computed import>');
    } else if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'require') {
      found.push(literal(node.arguments[0]) ?? '<computed require>');
    } else if (node.type === 'NewExpression' && node.callee.name === 'URL' && node.arguments[1]?.type === 'MetaProperty') {
      if (literal(node.arguments[0]) !== null) found.push(literal(node.arguments[0]));
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') visit(value);
    }
  };
  visit(parse(text, { ecmaVersion: 'latest', sourceType, allowHashBang: true, allowReturnOutsideFunction: true }));
  return found;
}

test('package: the tarball holds the builds, the facade, the declarations, the README and the LICENSE; the manifest', () => {
  const files = packed.files.map((file) => file.path).sort();
  const api = walk(join(dist, 'js')).map((path) => `js/${path}`);
  const expected = ['LICENSE', 'README.md', 'autograph.d.mts', 'package.json', 'tracelab.d.mts', 'tracelab.mjs',
                    'tfjs.d.mts', 'tfjs.mjs', 'tracelab.core.mjs', 'tracelab.core.wasm', ...api].sort();
  assert.deepEqual(files, expected);   // the playground's bundles (vendor.mjs, editor.mjs) stay out
  assert.ok(api.includes('js/autograph-parser.mjs') && api.includes('js/autograph/converter.mjs'), api.join(' '));

  const manifest = JSON.parse(readFileSync(join(project, 'node_modules/tracelab/package.json'), 'utf8'));
  const cmakeVersion = readFileSync(join(root, 'CMakeLists.txt'), 'utf8').match(/project\(tracelab VERSION (\S+)/)[1];
  assert.equal(manifest.name, 'tracelab');
  assert.equal(manifest.version, cmakeVersion);
  assert.equal(packed.filename, `tracelab-${cmakeVersion}.tgz`);
  assert.equal(manifest.type, 'module');
  assert.equal(manifest.license, 'MIT');
  // The shipped LICENSE is the repository's, MIT.
  const license = readFileSync(join(project, 'node_modules/tracelab/LICENSE'), 'utf8');
  assert.equal(license, readFileSync(join(root, 'LICENSE'), 'utf8'));
  assert.match(license, /^MIT License\n\nCopyright \(c\) 2026 The Tracelab authors\n/);
  assert.deepEqual(manifest.exports['.'], { types: './tracelab.d.mts', node: './tracelab.mjs', default: './tracelab.mjs' });
  assert.deepEqual(Object.keys(manifest.exports['./autograph']), ['types', 'node', 'default']);
  assert.deepEqual(manifest.exports['./tfjs'], { types: './tfjs.d.mts', default: './tfjs.mjs' });
  assert.deepEqual(Object.keys(manifest.exports).sort(),
                   ['.', './autograph', './autograph/register', './package.json', './tfjs']);
  for (const [entry, targets] of Object.entries(manifest.exports)) {
    for (const target of typeof targets === 'string' ? [targets] : Object.values(targets))
      assert.ok(files.includes(target.replace(/^\.\//, '')), `exports["${entry}"] names ${target}, which is not in the tarball`);
  }
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies'])
    assert.equal(manifest[field], undefined, `the package has ${field}`);
  // The installed folder is the tarball's contents, byte for byte where it matters: the .wasm the loader reads.
  assert.deepEqual(readFileSync(join(project, 'node_modules/tracelab/tracelab.core.wasm')),
                   readFileSync(join(dist, 'tracelab.core.wasm')));
});

test('package: every shipped module imports only files the tarball holds and Node built-ins (no node_modules)', () => {
  const files = new Set(packed.files.map((file) => file.path));
  const builtins = new Set(builtinModules);
  let checked = 0;
  for (const file of files) {
    if (!/\.[mc]js$/.test(file)) continue;
    const text = readFileSync(join(project, 'node_modules/tracelab', file), 'utf8');
    for (const specifier of specifiers(text, file.endsWith('.cjs') ? 'script' : 'module')) {
      ++checked;
      if (specifier.startsWith('./') || specifier.startsWith('../') || /^[\w.-]+\.(wasm|cjs|mjs)$/.test(specifier)) {
        const target = posix.normalize(posix.join(posix.dirname(file), specifier));
        assert.ok(files.has(target), `${file} imports ${specifier} (${target}), which is not in the tarball`);
      } else {
        assert.ok(builtins.has(specifier.replace(/^node:/, '')), `${file} imports ${specifier}: neither shipped nor a Node built-in`);
      }
    }
  }
  assert.ok(checked > 30, `only ${checked} specifiers found: the scan is not seeing the imports`);
});

test('node: import from "tracelab" trains a Dense layer through tl.function; tracelab/autograph converts', () => {
  const result = report(run(process.execPath, ['train.mjs']));
  assert.equal(result.resolved, `file://${join(project, 'node_modules/tracelab/tracelab.mjs')}`);
  assert.equal(result.version, result.packageVersion);   // the core's tl::version and the manifest: both CMake's
  const first = result.losses[0], last = result.losses.at(-1);
  assert.ok(last < first / 100 && last < 1e-3, `loss ${first} -> ${last}`);
  assert.ok(Math.abs(result.kernel - 2) < 0.05 && Math.abs(result.bias + 1) < 0.05, `y = ${result.kernel} x + ${result.bias}`);
  // The first trace created the Dense layer's weights, so that call traced again with creation forbidden (TF's rule);
  // the other 99 calls ran the one concrete function.
  assert.equal(result.tracingCount, 2);
  assert.equal(result.concreteFunctions, 1);
  assert.match(result.converted, /tl\.autograph\.ifStmt\(x\.greater\(0\), /);
});

test('node: import * as tf from "tracelab/tfjs" runs a TF.js-style program, the API loaded by top-level await', () => {
  const result = report(run(process.execPath, ['tfjs_app.mjs']));
  assert.equal(result.resolved, `file://${join(project, 'node_modules/tracelab/tfjs.mjs')}`);
  assert.deepEqual(result.product, [17, 39]);
  assert.ok(Math.abs(result.w - 1) < 1e-3, `w = ${result.w} after 50 SGD steps on (w - 1)^2`);
});

test('node: --import tracelab/autograph/register converts a module marked "use autograph"', () => {
  const result = report(run(process.execPath, ['--import', 'tracelab/autograph/register', 'hook_app.mjs']));
  assert.deepEqual([result.negative, result.positive, result.tracingCount], [-1, 1, 1]);
  assert.match(result.graph, /= cond /);
  // Without the hook the same module runs as written: a tensor object is always truthy, so sign(-3) is 1.
  const unconverted = report(run(process.execPath, ['hook_app.mjs']));
  assert.deepEqual([unconverted.negative, unconverted.positive], [1, 1]);
  assert.doesNotMatch(unconverted.graph, /= cond /);
});

test('types: tsc --noEmit checks usage.ts against the package declarations (exports conditions) and rejects wrong.ts', () => {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  run(process.execPath, [tsc, '-p', 'tsconfig.json']);
  const wrong = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.wrong.json'], { cwd: project, env, encoding: 'utf8' });
  assert.equal(wrong.status, 2, wrong.stdout + wrong.stderr);
  assert.match(wrong.stdout, /^wrong\.ts\(5,7\): error TS2322: Type 'string' is not assignable to type 'number'\.$/m);
  assert.equal(wrong.stdout.trim().split('\n').length, 1, wrong.stdout);
});

test('browser: Chromium loads the installed package through an import map and runs a traced function', { timeout: 120_000 }, async (t) => {
  const server = await startServer({ port: 0, mounts: [{ prefix: '/', root: project }], policy: false });
  t.after(() => server.close());
  const base = `http://127.0.0.1:${server.address().port}`;
  const wasm = await fetch(`${base}/node_modules/tracelab/tracelab.core.wasm`);
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  await wasm.arrayBuffer();

  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  const requested = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  await page.goto(`${base}/index.html`);
  await page.waitForSelector('#result[data-state]', { timeout: 60_000 });
  const text = await page.textContent('#result');
  assert.equal(await page.getAttribute('#result', 'data-state'), 'done', text);
  const result = JSON.parse(text);
  assert.deepEqual(result.product, [[3, 3], [7, 7]]);
  assert.deepEqual(result.doubled, [2, 4, 6]);
  assert.equal(result.tracingCount, 1);
  assert.equal(result.version, JSON.parse(readFileSync(join(project, 'node_modules/tracelab/package.json'), 'utf8')).version);
  assert.ok(requested.includes('/node_modules/tracelab/tracelab.core.wasm'), requested.join(' '));
  assert.deepEqual(problems, []);
});
