// The 'tracelab/tfjs' entry (wasm/tfjs.mjs + tfjs.d.mts, written by scripts/gen_tfjs_entry.mjs from the Tracelab
// interface): the files are what the generator writes now; every key of the loaded API is a named export holding the
// same value, and every named export is a member of the interface; TF.js-style lines give TF.js' values; and a
// TypeScript program written against @tensorflow/tfjs' namespace (tf.Tensor as a type, tf.function) type-checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readMembers } from '../../scripts/gen_tfjs_entry.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
const tf = await import(pathToFileURL(join(dist, 'tfjs.mjs')).href);

// Helpers of wasm/js/errors.mjs that the API object takes along when it spreads that module (guard, translate, ...):
// on the object at run time, yet not part of the documented API, so not exported by the entry.
const ERRORS_MODULE_HELPERS = new Set(['guard', 'guardCall', 'guardNamed', 'inJavaScriptTerms', 'registerCore', 'translate']);

test('tfjs entry: wasm/tfjs.mjs and tfjs.d.mts are what scripts/gen_tfjs_entry.mjs writes from the interface', () => {
  const run = spawnSync(process.execPath, [join(root, 'scripts/gen_tfjs_entry.mjs'), '--check'], { encoding: 'utf8' });
  assert.equal(run.status, 0, `stale generated entry: ${run.stderr}`);
});

test('tfjs entry: every key of the loaded API is a named export holding the same value', () => {
  const api = tf.default;
  assert.equal(typeof api?.tensor, 'function', 'the default export is the loaded API');
  const named = new Set(Object.keys(tf).filter((key) => key !== 'default'));
  const missing = Object.keys(api).filter((key) => !named.has(key) && !ERRORS_MODULE_HELPERS.has(key));
  assert.deepEqual(missing, [], 'API keys with no export in tracelab/tfjs: add them to the Tracelab interface of ' +
                               'wasm/tracelab.d.mts, then run node scripts/gen_tfjs_entry.mjs');
  for (const key of named) assert.equal(tf[key], api[key], `tf.${key} is the API's ${key}`);
  for (const key of ERRORS_MODULE_HELPERS) assert.ok(!named.has(key), `${key} is an internal helper, not exported`);
});

test('tfjs entry: the named exports are exactly the Tracelab interface\'s members, tf.function among them', () => {
  const members = readMembers().map((member) => member.name);
  assert.deepEqual(Object.keys(tf).filter((key) => key !== 'default').sort(), [...members].sort());
  assert.equal(typeof tf.function, 'function');
});

test('tfjs entry: TF.js-style lines give the values TF.js 4.22 (cpu backend) gives', async (t) => {
  let tfjs;
  try {
    tfjs = createRequire(join(root, 'bench/js/package.json'))('@tensorflow/tfjs');
  } catch {
    t.skip('TF.js is not installed in bench/js/node_modules (npm ci in bench/js)');
    return;
  }
  await tfjs.setBackend('cpu');
  const program = (lib) => lib.tidy(() => {
    const a = lib.tensor([[1, 2, 3], [4, 5, 6]]);
    const b = lib.tensor([[1, -1], [0.5, 2], [3, 0]]);
    const c = lib.matMul(a, b).add(lib.scalar(1)).relu();
    return { shape: c.shape, values: Array.from(c.dataSync()), sum: lib.sum(c).dataSync()[0] };
  });
  assert.deepEqual(program(tf), program(tfjs));
});

test('tfjs entry: a TypeScript program in TF.js\' terms type-checks against tfjs.d.mts, and a wrong one does not', (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'tracelab-tfjs-types-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const entry = JSON.stringify(pathToFileURL(join(root, 'wasm/tfjs.mjs')).href.replace(/^file:\/\//, ''));
  const tsc = (source) => {
    writeFileSync(join(folder, 'program.mts'), source);
    return spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict',
      '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom',
      join(folder, 'program.mts')], { encoding: 'utf8' });
  };
  const good = tsc(`import * as tf from ${entry};\nimport tl from ${entry};\n` +
    'const a: tf.Tensor = tf.tensor([1, 2, 3, 4], [2, 2]);\n' +
    'const values: Float32Array | Int32Array | Uint8Array = tf.matMul(a, tf.ones([2, 2])).dataSync();\n' +
    'const double = tf.function((x: tf.Tensor) => x.mul(2));\n' +
    'const failed: tf.ShapeError | null = null;\n' +
    'console.log(values, double, failed, tl.version);\n');
  assert.equal(good.status, 0, good.stdout + good.stderr);
  const bad = tsc(`import * as tf from ${entry};\nconst n: number = tf.add(1, 2);\ntf.notAFunction();\n`);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stdout, /TS2322/);   // Tensor is not a number
  assert.match(bad.stdout, /notAFunction/);
});
