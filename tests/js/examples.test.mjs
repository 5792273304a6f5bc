// The JavaScript example programs (examples/*.mjs) run to the end under node and their own checks hold; a bad flag
// is exit code 2 with the usage. (The C++ examples have their smoke tests in examples/CMakeLists.txt.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const example = (name) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));
const run = (name, ...args) => spawnSync(process.execPath, [example(name), ...args], { encoding: 'utf8', timeout: 120_000 });

test('examples/autograph.mjs: every check of lesson 7 holds, for the default count and another', () => {
  for (const args of [[], ['--fizzbuzz', '31']]) {
    const { status, stdout, stderr } = run('autograph.mjs', ...args);
    assert.equal(status, 0, `${args.join(' ')}\n${stdout}\n${stderr}`);
    assert.doesNotMatch(stdout, /FAILED/);
    assert.match(stdout, /every check holds\n$/);
    assert.ok(stdout.match(/check: .*: ok/g).length >= 16);
  }
});

test('examples/autograph.mjs: a bad flag is exit code 2 naming the flag, with the usage', () => {
  for (const [args, message] of [[['--fizzbuzz', '0'], /--fizzbuzz must be an integer in \[1, 1000\], got 0/],
                                 [['--fizzbuzz'], /got nothing/], [['--colour', 'blue'], /unknown flag --colour/]]) {
    const { status, stderr } = run('autograph.mjs', ...args);
    assert.equal(status, 2, args.join(' '));
    assert.match(stderr, message);
    assert.match(stderr, /usage: node examples\/autograph\.mjs/);
  }
});
