// V8's WebAssembly tiers and the ragged experiment's step times: how many steps spike that did not trace, under
// which V8 flags, and how many warm-up steps (RaggedConfig::warmup_steps, `warmupSteps`) remove them. A benchmark
// that prints figures, not a test.
//
// A "false spike" is a step of a traced mode that did not trace but took >= 1 ms and at least as long as the
// mode's cheapest traced step: on the playground's chart it looks like a retrace. Eager has no traces, so for it
// the figure is the steps >= 1 ms. Every configuration runs in a fresh Node process (V8's compiled code does not
// survive), `--repeat` times; the table shows the median and [min–max] over the runs.
//   node bench/js/tiering.mjs                                  the default matrix (flags, then warm-up steps)
//   node bench/js/tiering.mjs --repeat 5 --steps 2000 --json tiering.json
//   node bench/js/tiering.mjs --flags "--no-liftoff" --warmup 0,100 --repeat 3
//   node bench/js/tiering.mjs --child --warmup 0 [--dump steps.json]   one run in this process (what the matrix spawns)
// --dump writes every step's start and µs on performance.now()'s clock, with one (performance.now(), CLOCK_MONOTONIC
// ns) pair, to line the steps up with other timelines, e.g. `perf record -e sched:sched_switch -k CLOCK_MONOTONIC`.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MODES = ['eager', 'function', 'signature', 'relaxed', 'loop', 'bucketed'];
const SPIKE_US = 1000;
/** A run is "quiet" when eager has <= 2 steps >= 1 ms and every traced mode <= 1 false spike. */
const quiet = (run) => Object.entries(run.modes).every(([mode, m]) => (mode === 'eager' ? m.slow <= 2 : m.falseSpikes <= 1));
/** The default matrix: V8 flags with no warm-up, then warm-up step counts with V8's defaults.
 *  `--no-wasm-dynamic-tiering --no-wasm-tier-up` is Liftoff only; --v8-pool-size is Node's (V8's worker threads). */
const FLAG_SETS = ['', '--no-liftoff', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering',
                   '--no-wasm-dynamic-tiering --no-wasm-tier-up', '--wasm-tiering-budget=10000',
                   '--no-wasm-lazy-compilation', '--v8-pool-size=1', '--single-threaded'];
const WARMUPS = [0, 50, 100, 150, 200, 300, 500];

function parseArgs(argv) {
  const args = { steps: 2000, repeat: 3, modes: MODES.join(','), flags: null, warmup: null, child: false };
  for (let i = 0; i < argv.length; ++i) {
    const name = argv[i].replace(/^--/, '');
    if (name === 'child') args.child = true;
    else if (name in args || ['json', 'dump'].includes(name)) args[name] = argv[++i];
    else {
      console.error(`tiering.mjs: unknown option '${argv[i]}' (see the comment at the top of the file)`);
      process.exit(2);
    }
  }
  return args;
}

/** Per mode: traces, the cheapest traced step, false spikes, steps >= 1 ms that did not trace, the worst one. */
export function spikes(result) {
  const out = {};
  for (const mode of result.modes) {
    const traced = new Set(mode.traced_steps);
    const tracedTimes = mode.traced_steps.map((s) => mode.step_us[s]);
    const cheapestTrace = tracedTimes.length ? Math.min(...tracedTimes) : 0;
    let falseSpikes = 0, slow = 0, worst = 0;
    mode.step_us.forEach((us, step) => {
      if (traced.has(step)) return;
      worst = Math.max(worst, us);
      if (us >= SPIKE_US) ++slow;
      if (us >= SPIKE_US && us >= cheapestTrace) ++falseSpikes;
    });
    out[mode.mode] = { traces: mode.trace_count, cheapestTraceUs: cheapestTrace, falseSpikes, slow, worstUs: worst,
                       steadyUs: mode.steady_median_us, totalMs: mode.total_ms };
  }
  return out;
}

/** One run in this process: prints {warmupMs, runMs, modes: spikes(...)} as JSON. */
async function child(args) {
  const dist = process.env.TRACELAB_DIST ?? join(fileURLToPath(new URL('../..', import.meta.url)), 'build/wasm/dist');
  const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
  const tl = await loadTracelab();
  const starts = {};  // mode -> the performance.now() at which the mode's first step began (from its reports)
  const began = performance.now();
  const result = tl.experiments.runRagged(
    { steps: Number(args.steps), modes: args.modes.split(','), warmupSteps: Number(args.warmup ?? 0) },
    { progressEvery: 100, onProgress: (r) => { starts[r.mode] ??= performance.now() - r.elapsedMs; } });
  const runMs = performance.now() - began;
  if (args.dump) {
    const steps = {};
    for (const mode of result.modes) {
      let t = starts[mode.mode];
      steps[mode.mode] = mode.step_us.map((us) => { const at = t; t += us / 1000; return [at, us]; });
    }
    const clocks = { perfMs: performance.now(), monotonicNs: process.hrtime.bigint().toString() };
    writeFileSync(args.dump, JSON.stringify({ clocks, warmupMs: result.warmup_ms, steps }));
  }
  console.log(JSON.stringify({ warmupMs: result.warmup_ms, runMs, modes: spikes(result) }));
}

/** Runs one configuration `repeat` times, each in a fresh Node process with `flags`. */
function runConfiguration(flags, warmup, args) {
  const runs = [];
  for (let r = 0; r < args.repeat; ++r) {
    const childArgs = [...flags.split(' ').filter(Boolean), fileURLToPath(import.meta.url), '--child',
                       '--steps', String(args.steps), '--modes', args.modes, '--warmup', String(warmup)];
    const run = spawnSync(process.execPath, childArgs, { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`node ${childArgs.join(' ')} failed:\n${run.stderr}`);
    runs.push(JSON.parse(run.stdout.trim().split('\n').at(-1)));
  }
  return { flags: flags || '(defaults)', warmup, runs };
}

const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
/** "m [lo–hi]" over the runs. */
function spread(values, digits = 0) {
  const f = (x) => x.toFixed(digits);
  const lo = Math.min(...values), hi = Math.max(...values);
  return lo === hi ? f(lo) : `${f(median(values))} [${f(lo)}–${f(hi)}]`;
}

function printConfiguration(c, modes) {
  const cells = modes.map((m) => spread(c.runs.map((r) => (m === 'eager' ? r.modes[m].slow : r.modes[m].falseSpikes))));
  const warmupMs = spread(c.runs.map((r) => r.warmupMs));
  const runMs = spread(c.runs.map((r) => r.runMs));
  const steady = spread(c.runs.map((r) => r.modes.eager?.steadyUs ?? 0));
  const quietRuns = `${c.runs.filter(quiet).length}/${c.runs.length}`;
  console.log(`${c.flags.padEnd(42)} ${String(c.warmup).padStart(6)} ${warmupMs.padStart(14)} ${runMs.padStart(16)} ` +
              `${steady.padStart(14)} ` + cells.map((cell) => cell.padStart(11)).join(' ') + ` ${quietRuns.padStart(6)}`);
}

async function matrix(args) {
  const modes = args.modes.split(',');
  const flagSets = args.flags !== null ? [args.flags] : FLAG_SETS;
  const warmups = args.warmup !== null ? String(args.warmup).split(',').map(Number) : null;
  console.log(`V8 tiers and the ragged experiment: Node ${process.versions.node} (V8 ${process.versions.v8}), ` +
              `${args.steps} steps per mode, ${args.repeat} fresh processes per row; median [min–max].`);
  console.log(`warm-up ms: the warm-up's wall time; run ms: the whole runRagged call (warm-up included); eager µs: ` +
              `eager's steady median step.\nMode columns: eager = steps >= 1 ms; the others = false spikes (no trace, ` +
              `>= 1 ms and >= the mode's cheapest traced step).\nquiet: runs with eager <= 2 and every other mode <= 1.\n`);
  console.log(`${'node flags'.padEnd(42)} ${'warmup'.padStart(6)} ${'warm-up ms'.padStart(14)} ${'run ms'.padStart(16)} ` +
              `${'eager µs'.padStart(14)} ` + modes.map((m) => m.padStart(11)).join(' ') + ` ${'quiet'.padStart(6)}`);
  const rows = [];
  const plan = warmups ? flagSets.flatMap((f) => warmups.map((w) => [f, w]))
                       : [...flagSets.map((f) => [f, 0]), ...WARMUPS.slice(1).map((w) => ['', w])];
  for (const [flags, warmup] of plan) {
    const c = runConfiguration(flags, warmup, args);
    printConfiguration(c, modes);
    rows.push(c);
  }
  if (args.json) writeFileSync(args.json, JSON.stringify({ node: process.versions.node, steps: Number(args.steps), rows }, null, 1));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  await (args.child ? child(args) : matrix(args));
}
