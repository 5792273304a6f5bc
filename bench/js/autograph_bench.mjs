// What AutoGraph costs, two figures, in a fresh Node process:
//  1. tl.autograph.convert on a ~200-line module (autograph_module.mjs): the median of 20 runs (the first runs
//     include V8 compiling the converter), parse and code generation included. Target: <= 20 ms.
//  2. converted code on its plain-JavaScript path: acorn (the parser, ~6000 lines of loops and branches) converted
//     and unconverted, parsing the same file — every converted statement allocates its closures when it runs.
//  3. what the Node module hook (js/autograph/register.mjs) adds to a process: its hooks thread, and loading that
//     module marked 'use autograph' (converted on the hooks thread, with its inline source map).
// A benchmark that prints figures, not a test.
//   node bench/js/autograph_bench.mjs [--runs 20] [--file some_module.mjs]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const runs = Number(option('runs', 20));
const file = option('file', fileURLToPath(new URL('./autograph_module.mjs', import.meta.url)));
const dist = process.env.TRACELAB_DIST ?? fileURLToPath(new URL('../../build/wasm/dist', import.meta.url));
const { convert } = await import(pathToFileURL(join(dist, 'js', 'autograph', 'converter.mjs')).href);

/** The median of `count` timed calls of fn, ms. */
function median(count, fn) {
  const times = [];
  for (let i = 0; i < count; ++i) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], min: times[0], max: times[times.length - 1] };
}

const source = readFileSync(file, 'utf8');
const output = convert(source, { filename: file });
const conversion = median(runs, () => convert(source, { filename: file }));
console.log(`autograph convert: ${source.split('\n').length} lines (${source.length} chars) -> ${output.split('\n').length} lines`);
console.log(`  median ${conversion.median.toFixed(2)} ms over ${runs} runs (min ${conversion.min.toFixed(2)}, ` +
            `max ${conversion.max.toFixed(2)}); target <= 20 ms: ${conversion.median <= 20 ? 'met' : 'missed'}`);

const folder = mkdtempSync(join(tmpdir(), 'autograph-bench-'));
const [empty, marked] = ['empty.mjs', 'marked.mjs'].map((name) => join(folder, name));
writeFileSync(empty, '');
writeFileSync(marked, `'use autograph';\nconst tl = globalThis.tl;\n${source}`);   // declares its functions, runs none
const register = pathToFileURL(join(dist, 'js', 'autograph', 'register.mjs')).href;
const startup = (...args) => median(10, () => spawnSync(process.execPath, args)).median;
const [bare, hooked, converting] = [startup(empty), startup('--import', register, empty), startup('--import', register, marked)];
rmSync(folder, { recursive: true });
console.log(`module hook (median of 10 processes): starting it adds ${(hooked - bare).toFixed(0)} ms to a process ` +
            `(node empty.mjs ${bare.toFixed(0)} ms); loading the module above marked 'use autograph' (converted once, ` +
            `cold, with its source map) ${(converting - hooked).toFixed(0)} ms more than an empty one`);

const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
globalThis.tracelabForAutographBench = await loadTracelab();
const acornPath = fileURLToPath(new URL('../../node_modules/acorn/dist/acorn.mjs', import.meta.url));
const acornText = readFileSync(acornPath, 'utf8');
const acorn = await import(pathToFileURL(acornPath).href);
const convertedAcorn = await import(`data:text/javascript,${encodeURIComponent(
  `const tl = globalThis.tracelabForAutographBench;\n${convert(acornText)}`)}`);
const input = readFileSync(fileURLToPath(new URL('../../node_modules/uplot/dist/uPlot.esm.js', import.meta.url)), 'utf8');
const options = { ecmaVersion: 'latest', sourceType: 'module' };
for (const parser of [acorn, convertedAcorn]) median(5, () => parser.parse(input, options));   // warm both up
const plain = median(runs, () => acorn.parse(input, options)).median;
const converted = median(runs, () => convertedAcorn.parse(input, options)).median;
console.log(`plain-JavaScript path: acorn parses uPlot (${(input.length / 1024).toFixed(0)} KB) in ${plain.toFixed(1)} ms, ` +
            `converted in ${converted.toFixed(1)} ms (${(converted / plain).toFixed(1)}x)`);
