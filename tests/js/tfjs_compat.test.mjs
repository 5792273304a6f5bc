// docs/tfjs-compat.md is up to date: the table scripts/tfjs_compat.mjs makes from TF.js' type declarations and the
// built package equals the file. Needs TensorFlow.js (bench/js, installed by scripts/setup.sh test): without it the
// test fails when TRACELAB_REQUIRE_TFJS or CI is set (scripts/test.sh), and is skipped otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const { COMMAND, DOC, TFJS_CORE, compatTable, coverageLines, loadTracelabForCompat, renderCompat } =
  await import('../../scripts/tfjs_compat.mjs');

const installed = existsSync(join(TFJS_CORE, 'dist/index.d.ts'));
const required = Boolean(process.env.TRACELAB_REQUIRE_TFJS || process.env.CI);
const missing = 'TensorFlow.js is not installed (bench/js/node_modules): run scripts/setup.sh test (or npm ci --prefix bench/js)';

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
