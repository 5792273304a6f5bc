// The JS benchmarks run, briefly, on the built dist: each exits cleanly and prints every row it promises, with
// numbers where numbers belong. Their figures are not checked (benchmarks report, tests do not time).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const number = String.raw`\d+\.\d+`;

function runBench(script, args) {
  const run = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8', env: process.env });
  assert.equal(run.status, 0, `${script} failed:\n${run.stderr.slice(-2000)}`);
  return run.stdout;
}

test('between_calls_bench: a row per kind of work between calls, and what the API adds to a call', () => {
  const out = runBench('bench/js/between_calls_bench.mjs', ['--calls', '300', '--rounds', '1']);
  for (const kind of ['nothing', 'read 64 KB', 'read 256 KB', 'one function x400', '25 functions', '100 functions',
                      '400 functions', 'allocate 2 KB', 'API around a 1-op call'])
    assert.match(out, new RegExp(`^${kind} +${number} +${number} +${number}$`, 'm'),
                 `no row for '${kind}' in:\n${out}`);
  assert.match(out, /^nothing +\S+ +1\.000 /m);
  assert.match(out, new RegExp(`the API and the crossing add -?${number} us a call, ${number}x the ragged step's ` +
                               `${number} us before any effect`));
});

test('ragged_js_bench: every C++ and JS mode, their losses equal at step 100, and the ratios', () => {
  const out = runBench('bench/js/ragged_js_bench.mjs', ['--steps', '300', '--rounds', '1', '--warmup', '100',
                                                        '--tfjs-steps', '0', '--pairs', '3', '--pair-steps', '100']);
  for (const mode of ['C++ eager', 'C++ function', 'C++ signature', 'JS eager', 'JS eager, minimize', 'JS function',
                      'JS function, f.dataSync', 'JS function, f.arraySync', 'JS signature', 'JS signature, f.dataSync',
                      'JS signature, f.arraySync',
                      'JS signature, recordTimings true']) {
    // us/step, the rounds' range (none for one round), x C++ signature, the loss at step 100 and C++ eager's
    const name = mode.replace(/[+]/g, '\\+');
    const row = out.match(new RegExp(`^${name} +${number} .* (\\d+\\.\\d{6}) \\((\\d+\\.\\d{6})\\)$`, 'm'));
    assert.ok(row, `no row for '${mode}' in:\n${out}`);
    assert.equal(row[1], row[2], `${mode}: the loss at step 100 differs from C++ eager's`);
  }
  assert.match(out, /^JS-built signature from C\+\+ +\d+\.\d+ /m);
  assert.match(out, new RegExp(`^JS-driven / C\\+\\+-driven, round by round: function ${number}x, the loss by f.dataSync ${number}x, ` +
                               `by f.arraySync ${number}x; signature ${number}x, the loss by f.dataSync ${number}x, by ` +
                               `f.arraySync ${number}x`, 'm'));
  assert.match(out, new RegExp(`the JS-driven signature step ${number}x that`));
  const paired = `${number}x \\(quartiles ${number}-${number}\\)`;
  for (const mode of ['function', 'signature'])
    assert.match(out, new RegExp(`^paired blocks, ${mode}: 3 pairs of 100 steps. JS-driven / the runner's C\\+\\+-driven ` +
                                 `step: the loss by f.arraySync ${paired}, by f.dataSync ${paired}, by f\\(x, y\\) in ` +
                                 `tl.tidy ${paired}; JS-driven / the core's loop of calls of the same tl.function: ` +
                                 `f.arraySync ${paired}, f.dataSync ${paired}, f\\(x, y\\) ${paired}; that loop / the ` +
                                 `runner's step ${paired}$`, 'm'));
});

test('facade_bench: every level from the core to the full API, with the same loss at step 100 in each, and the paired blocks', () => {
  const out = runBench('bench/js/facade_bench.mjs', ['--steps', '300', '--rounds', '1', '--warmup', '100',
                                                     '--pairs', '2', '--pair-steps', '400']);
  for (const level of ['core (timeCalls)', 'the bare crossing', '+ tidy', '+ the result as a Tensor', '+ dataSync',
                       'the API', 'the API, recordTimings true', "the function's dataSync", 'the bare values crossing',
                       "the function's arraySync"])
    assert.match(out, new RegExp(`^${level.replace(/[()+]/g, '\\$&')} +${number} +${number} `, 'm'),
                 `no row for '${level}' in:\n${out}`);
  assert.match(out, /^core \(timeCalls\) +\S+ +1\.000 /m);
  assert.match(out, /the loss at step 100, every JavaScript level: equal \(\d+\.\d{6}\)/);
  const paired = `${number}x \\(quartiles ${number}-${number}\\)`;
  assert.match(out, new RegExp(`^paired blocks: 2 pairs of 400 steps, each from a fresh start, timed after the first ` +
                               `pass \\(the core's loop ${number} us a step, median of the pairs\\)\\. The core's loop / ` +
                               `the runner's step ${paired}; the bare values crossing / the core's loop ${paired}, / the ` +
                               `runner's step ${paired}; the function's arraySync / the runner's step ${paired}; the API / ` +
                               `the runner's step ${paired}$`, 'm'));
  // The target's two figures per call, each with a verdict computed from them (met or missed, never absent).
  // JS over C++ is a difference of two timed blocks: on a noisy machine it, or its first quartile, can be negative.
  const signed = String.raw`-?\d+\.\d+`;
  const us = `${signed} us \\(quartiles ${signed}-${signed}\\) <= 0\\.6 us: (met|missed)`;
  const over = `${number}x \\(quartiles ${number}-${number}\\) +<= 1\\.03x: (met|missed)`;
  for (const call of ['f\\.arraySync\\(x, y\\)', 'tl\\.tidy\\(\\(\\) => f\\(x, y\\)\\.dataSync\\(\\)\\[0\\]\\)'])
    assert.match(out, new RegExp(`^  ${call} +JS over C\\+\\+ +${us}\\n +/ the bare crossing +${over}$`, 'm'));
  assert.match(out, /^the target, both calls: (met|missed)$/m);
});

test('compare_builds: the same build twice, its blocks, B/A and the blocks\' own B/A ratios', () => {
  const dist = process.env.TRACELAB_DIST ?? 'build/wasm/dist';
  const out = runBench('bench/js/compare_builds.mjs', ['--a', dist, '--b', dist, '--mode', 'function', '--blocks', '3',
                                                       '--steps', '200']);
  assert.match(out, /^function: 3 alternating blocks of 200 steps per build/m);
  assert.equal([...out.matchAll(new RegExp(`^ +${number} \\(${number}-${number}\\) +${number} \\(${number}-${number}\\) +${number}$`, 'gm'))].length,
               2, `no row of figures per build in:\n${out}`);
  assert.match(out, new RegExp(`^JS-driven B / A: ${number}; block by block \\(each block's B beside its A\\): ` +
                               `median ${number}, quartiles ${number}-${number}$`, 'm'));
});
