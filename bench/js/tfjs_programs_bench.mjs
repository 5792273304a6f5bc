// The three TF.js programs of examples/tfjs (regression, cnn, dense_grads) on Tracelab's TF.js entry, trained
// eagerly and with their step under tf.function (the programs' `traced` option), in one process:
//   node bench/js/tfjs_programs_bench.mjs [--runs 5] [--json FILE]
// Each program first runs once per mode untimed (V8 compiles the engine's code on first use: Liftoff, then
// TurboFan), then --runs pairs of runs, eager and traced side by side (the order turning each pair). A run's figure
// is its median step, each step timed with the read of its loss (so the traced run's first step, its trace, is one
// step among 30-200 and does not move the median). Printed per program: each mode's median of the runs' medians with the
// runs' range, the first (tracing) step's time, and the median of the pair-by-pair ratios eager / traced with their
// quartiles. Enforced (exit 1): each traced run traced once (at its first step) and its losses equal the eager run's
// at every step. The JS API comes from TRACELAB_DIST (default build/wasm/dist). Exit status: 0; 1 when a check
// fails; 2 for a bad command line.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { flagHelpers, median, pairRatios } from './stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const USAGE = 'usage: node bench/js/tfjs_programs_bench.mjs [--runs N] [--json FILE]';
const PROGRAMS = ['regression', 'cnn', 'dense_grads'];

/** The command line as options; a bad flag or value exits 2 with the usage. */
function parseArgs(argv) {
  const options = { runs: 5, json: null };
  const { fail, integer } = flagHelpers('tfjs_programs_bench.mjs', USAGE);
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i], value = () => argv[++i];
    if (flag === '--runs') options.runs = integer(flag, value(), 1);
    else if (flag === '--json') options.json = value() ?? fail('--json needs a file name');
    else fail(`unknown flag ${flag}`);
  }
  return options;
}

const options = parseArgs(process.argv.slice(2));
const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
const tf = await import(pathToFileURL(join(dist, 'tfjs.mjs')).href);

const us = (ms) => (ms * 1000).toFixed(1);
const problems = [];
const report = {};
for (const name of PROGRAMS) {
  const { main } = await import(pathToFileURL(join(root, `examples/tfjs/${name}.mjs`)).href);
  const run = async (traced) => {
    const result = await main(tf, { traced });
    return { ...result, medianMs: median(result.stepMs) };
  };
  await run(false);
  await run(true);
  const runs = { eager: [], traced: [] };
  for (let pair = 0; pair < options.runs; ++pair) {
    const order = pair % 2 === 0 ? [false, true] : [true, false];
    for (const traced of order) runs[traced ? 'traced' : 'eager'].push(await run(traced));
  }
  for (let k = 0; k < options.runs; ++k) {
    const eager = runs.eager[k], traced = runs.traced[k];
    if (traced.tracedSteps.length !== 1 || traced.tracedSteps[0] !== 0)
      problems.push(`${name}: a traced run traced at steps [${traced.tracedSteps}], expected [0]`);
    const differs = eager.losses.findIndex((loss, step) => loss !== traced.losses[step]);
    if (differs >= 0 || eager.losses.length !== traced.losses.length)
      problems.push(`${name}: eager and traced losses differ at step ${differs} ` +
                    `(${eager.losses[differs]} vs ${traced.losses[differs]})`);
  }
  const medians = (mode) => runs[mode].map((r) => r.medianMs);
  const line = (mode) => {
    const m = medians(mode);
    return `  ${mode.padEnd(8)} median step ${us(median(m)).padStart(8)} µs  [${us(Math.min(...m))}-${us(Math.max(...m))}]`;
  };
  const [q1, ratio, q3] = pairRatios(medians('eager'), medians('traced'));
  const traceMs = median(runs.traced.map((r) => r.stepMs[0]));
  console.log(`${name} (${runs.eager[0].losses.length} steps, ${options.runs} runs per mode)`);
  console.log(line('eager'));
  console.log(`${line('traced')}  first step (the trace) ${us(traceMs)} µs`);
  console.log(`  eager / traced ${ratio.toFixed(2)}x (quartiles ${q1.toFixed(2)}-${q3.toFixed(2)})`);
  report[name] = { steps: runs.eager[0].losses.length, eagerMs: medians('eager'), tracedMs: medians('traced'),
                   traceMs, ratio: { median: ratio, q1, q3 } };
}
if (options.json) writeFileSync(options.json, `${JSON.stringify({ runs: options.runs, programs: report }, null, 1)}\n`);
for (const problem of problems) console.error(`tfjs_programs_bench: ${problem}`);
console.log(`eager == traced losses, one trace per traced run: ${problems.length === 0 ? 'yes' : 'no'}`);
process.exitCode = problems.length === 0 ? 0 : 1;
