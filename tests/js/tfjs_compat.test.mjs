// docs/tfjs-compat.md is up to date: the table scripts/tfjs_compat.mjs makes from TF.js' type declarations and the
// built package equals the file. Needs TensorFlow.js (bench/js, installed by scripts/setup.sh test): without it the
// test fails when TRACELAB_REQUIRE_TFJS or CI is set (scripts/test.sh), and is skipped otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { required, missing, tf } from './tfjs_oracle.mjs';

const { COMMAND, DOC, TFJS_CORE, compatTable, coverageLines, loadTracelabForCompat, renderCompat } =
  await import('../../scripts/tfjs_compat.mjs');

const installed = existsSync(join(TFJS_CORE, 'dist/index.d.ts'));

test('tfjs-compat: docs/tfjs-compat.md is the table regenerated from TF.js and Tracelab',
     { skip: !installed && !required ? `${missing}; set TRACELAB_REQUIRE_TFJS=1 to make this a failure` : false }, async () => {
  assert.ok(installed, missing);
  const table = compatTable(await loadTracelabForCompat());
  const text = renderCompat(table);
  const current = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '';
  if (current !== text) {
    const now = current.split('\n'), wanted = text.split('\n');
    const line = wanted.findIndex((l, i) => l !== now[i]);
    assert.fail(`docs/tfjs-compat.md is stale (first difference at line ${line + 1}: has ${JSON.stringify(now[line])}, ` +
                `the table gives ${JSON.stringify(wanted[line])}); regenerate it: ${COMMAND}\n` +
                `the table now: ${coverageLines(table).join('; ')}`);
  }
  // Every row is one of the three statuses, and the coverage counts the rows.
  for (const row of [...table.ops, ...table.methods])
    assert.ok(['supported', 'not supported', 'deliberately different'].includes(row.status), row.name);
  assert.ok(table.ops.length > 200 && table.methods.length > 100, 'TF.js\' API read from its declarations');
});

// The Adam figures docs/tfjs-compat.md states (BEHAVIOUR in scripts/tfjs_compat.mjs), measured again: the same 100
// steps on TF.js' cpu backend and on Tracelab, the weights' movement compared.
test('tfjs-compat: Adam\'s epsilon difference is as large as the table says',
     { skip: !installed && !required ? `${missing}; set TRACELAB_REQUIRE_TFJS=1 to make this a failure` : false }, async () => {
  assert.ok(installed && tf, missing);
  const tl = await loadTracelabForCompat();
  const start = [1, -2, 3];
  // The relative difference of each weight's movement after 100 steps of lr 0.01 on gradients [g, -g, 2g].
  const shortfall = (g) => {
    const moved = (lib) => lib.tidy(() => {
      const w = lib.variable(lib.tensor(start));
      const adam = lib.train.adam(0.01);
      for (let step = 0; step < 100; ++step) adam.minimize(() => lib.sum(lib.mul(w, lib.tensor([g, -g, 2 * g]))));
      const values = Array.from(w.dataSync(), (v, k) => v - start[k]);
      w.dispose();
      return values;
    });
    const ours = moved(tl), theirs = moved(tf);
    return theirs.map((v, k) => (v - ours[k]) / v);
  };
  const tiny = shortfall(1e-6), small = shortfall(1e-3), unit = shortfall(1);
  assert.ok(tiny.every((d) => d >= 0.171 && d <= 0.286), `gradients of 1e-6: ${tiny}`);
  assert.ok(small.every((d) => d > 0 && d <= 0.0005 + 0.00005), `gradients of 1e-3: ${small}`);
  assert.ok(unit.every((d) => Math.abs(d) <= 1e-5), `gradients of 1: ${unit}`);
  const doc = readFileSync(DOC, 'utf8');
  assert.match(doc, /gradients of 1e-6 a weight moves 17\.6-28\.1% less/);
});
