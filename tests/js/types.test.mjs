// The TypeScript declarations (wasm/tracelab.d.mts) type-check a program that uses the whole API (tsc --noEmit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('types: tsc --noEmit accepts tests/js/types/usage.ts against the declarations', () => {
  const tsc = spawnSync(process.execPath, [`${root}/node_modules/typescript/bin/tsc`, '-p', `${root}/tests/js/types/tsconfig.json`],
                        { encoding: 'utf8' });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});
