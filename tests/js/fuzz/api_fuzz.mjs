// Property-based fuzzing of the whole JS API with fast-check (its generators: generators.mjs), run in a worker thread by tests/js/fuzz_api.test.mjs
// (and, longer, by scripts/fuzz.sh js) so that the main thread can stop a case that hangs. fast-check generates
// call sequences over a pool of live tensors — registry ops with generated inputs and attributes, the positional
// API, tensor creation with good and bad shapes / dtypes, tidy and dispose, variables, tapes, tl.function,
// tl.cond / tl.whileLoop, datasets, checkpoints, and the options objects of ten APIs — and shrinks a failure to a
// minimal sequence. The properties (docs/reliability.md, "Fuzzing the JS API"):
//   1. every call returns a valid result or throws a tl.TracelabError whose message names the op or API (never a
//      TypeError, a WebAssembly trap or an abort); calls whose arguments are known to be good must succeed and
//      calls known to be bad must throw, so a bad value is never silently accepted;
//   2. afterwards a fixed computation still gives its answer, variables a failed call touched are unchanged, and
//      once the sequence's tensors are disposed tl.memory() is back at its baseline (tidy returns to it at once);
//   3. every generated pure function gives the same values eagerly and traced by tl.function (with and without
//      an input signature), or throws both ways.
// The worker posts {type: 'case', property, index} before each case, then {type: 'done' | 'fail', ...}.
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { writeSync } from 'node:fs';
import fc from 'fast-check';
import { DTYPES, isShape, makeGenerators, sizeOf } from './generators.mjs';

const { dist, seed, runs, seconds, path: replayPath, only, steps = 8 } = workerData;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();
tl.setLogHandler(() => {});  // print ops and retracing warnings: not the test's output

const { OPS, OPTION_APIS, step, unary, expression, inputsArb } = makeGenerators(tl);

// ---- running a step ----

/** Every tensor in a result (a tensor, an array of them, or nothing). */
const tensorsIn = (result) => [result].flat(Infinity).filter((t) => t instanceof tl.Tensor);

/** A result tensor must be alive and self-consistent: a shape of non-negative integers, a dtype, that many values. */
function checkTensor(t, where) {
  assert.ok(!t.isDisposed, `${where}: returned a disposed tensor`);
  assert.ok(isShape(t.shape), `${where}: shape ${JSON.stringify(t.shape)}`);
  assert.ok(DTYPES.includes(t.dtype), `${where}: dtype ${t.dtype}`);
  assert.equal(t.dataSync().length, sizeOf(t.shape), `${where}: ${t.dataSync().length} values for shape [${t.shape}]`);
}

/**
 * Runs fn(); a result is checked and returned, an error must be a TracelabError naming one of `names` (never a
 * trap, an abort or a plain TypeError). `expect`: 'ok' (the arguments are good: it must succeed), 'error' (they
 * are bad: it must throw) or undefined (either). Returns {ok, result, error}.
 */
const stats = { calls: 0, threw: 0 };

function attempt(names, fn, expect) {
  let result;
  stats.calls += 1;
  try {
    result = fn();
  } catch (error) {
    stats.threw += 1;
    assert.ok(!(error instanceof WebAssembly.RuntimeError), `${names[0]}: a WebAssembly trap: ${error.message}`);
    assert.ok(!/Aborted\(|unreachable/.test(String(error?.message)), `${names[0]}: the module aborted: ${error.message}`);
    assert.ok(error instanceof tl.TracelabError,
              `${names[0]}: threw ${error?.name}: ${error?.message} (not a tl.TracelabError)\n${error?.stack}`);
    assert.ok(names.some((n) => error.message.includes(n)),
              `${names[0]}: ${error.name} "${error.message}" names none of ${names.join(', ')}\n${error.stack}`);
    assert.notEqual(expect, 'ok', `${names[0]}: good arguments were refused: ${error.message}`);
    return { ok: false, error };
  }
  assert.notEqual(expect, 'error', `${names[0]}: bad arguments were accepted`);
  for (const t of tensorsIn(result)) checkTensor(t, names[0]);
  return { ok: true, result };
}

/** The live state of one sequence: the pool of tensors steps read and write, and everything to dispose at the end. */
class World {
  constructor() {
    this.pool = [tl.tensor([[1, 2, 3], [4, 5, 6]]), tl.tensor([1, -2, 3]), tl.tensor([1, 0, 2], [3], 'int32'),
                 tl.tensor([true, false]), tl.scalar(2), tl.ones([1, 3, 3, 1]), tl.ones([2, 2, 1, 1])];
    this.variables = [];
    this.datasets = [];
  }
  /** Pool entry r (modulo its length): disposed tensors stay in the pool, as inputs that must be refused. */
  get(r) { return this.pool[r % this.pool.length]; }
  arg(x) { return 'ref' in x ? this.get(x.ref) : x.value; }
  keep(result) { for (const t of tensorsIn(result)) this.pool.push(t); }
  dispose() {
    tl.dispose(this.pool);
    for (const v of this.variables) v.dispose();
    for (const d of this.datasets) d.dispose();
  }
}

const POSITIONAL_OPS = { sum: 'reduce_sum', mean: 'reduce_mean', max: 'reduce_max', min: 'reduce_min', argMax: 'argmax',
                         expandDims: 'expand_dims', broadcastTo: 'broadcast_to', logSoftmax: 'log_softmax', matMul: 'matmul',
                         clipByValue: 'clip_by_value', maxPool: 'max_pool2d', avgPool: 'avg_pool2d', oneHot: 'one_hot' };

function runStep(world, s) {
  switch (s.kind) {
    case 'op': {
      const attrs = s.unknownAttr ? { ...s.attrs, [s.unknownAttr]: 1 } : s.attrs;
      const known = new Set(OPS.find((o) => o.name === s.name).attrs.map((a) => a.name));
      const { ok, result, error } = attempt([s.name], () => tl.op(s.name, s.inputs.map((x) => world.arg(x)), attrs),
                                            s.unknownAttr && !known.has(s.unknownAttr) ? 'error' : undefined);
      if (!ok && s.unknownAttr && !known.has(s.unknownAttr))
        assert.match(error.message, new RegExp(`unknown attribute '${s.unknownAttr}'; accepted attributes`));
      if (ok) world.keep(result);
      return;
    }
    case 'api': {
      const { ok, result } = attempt([`tl.${s.name}`, POSITIONAL_OPS[s.name] ?? s.name],
                                     () => tl[s.name](world.arg(s.x), ...s.args.map((a) => (a && typeof a === 'object' && ('ref' in a || 'value' in a) ? world.arg(a) : a))));
      if (ok) world.keep(result);
      return;
    }
    case 'create': return runCreate(world, s);
    case 'dispose': world.get(s.ref).dispose(); return;
    case 'tidy': {
      const before = tl.memory().numTensors, poolSize = world.pool.length;
      // The last tensor made inside survives the tidy (it is returned); every other one made inside is disposed.
      const kept = attempt(['tl.tidy'], () => tl.tidy(() => {
        for (const inner of s.inner) runStep(world, inner);
        return world.pool.length > poolSize ? world.pool[world.pool.length - 1] : undefined;
      }));
      assert.equal(tl.memory().numTensors, before + (kept.result ? 1 : 0), 'tidy: the tensors made inside were not all disposed');
      return;
    }
    case 'variable': return runVariable(world, s);
    case 'tape': {
      const x = world.get(s.x);
      const tape = new tl.GradientTape({ persistent: s.persistent });
      try {
        const { ok, result } = attempt(['watch', 'GradientTape', s.op, 'reduce_sum', 'gradient'], () => tl.tidy(() => {
          tape.watch(x);
          const y = tl.sum(tl[s.op](x));
          return tape.gradient(y, x);
        }), x.isDisposed ? 'error' : undefined);
        if (ok && x.dtype === 'float32') assert.deepEqual(result.shape, x.shape, 'a gradient has its source\'s shape');
        if (ok) world.keep(result);
      } finally {
        tape.dispose();
      }
      return;
    }
    case 'cond': {
      const a = world.get(s.a), b = world.get(s.b);
      const run = (p) => tl.cond(p, () => a, () => b);
      const pred = world.arg(s.pred);
      const names = ['cond', 'tl.cond', 'cond_', 'function'];
      const traced = s.traced && pred instanceof tl.Tensor ? tl.function((p) => run(p), { name: 'cond_fuzz' }) : null;
      try {
        const { ok, result } = attempt(names, () => (traced ? traced(pred) : run(pred)));
        if (ok) world.keep(result);
      } finally {
        traced?.dispose();  // a tl.function holds its graphs in the core until disposed
      }
      return;
    }
    case 'while': {
      const x = world.get(s.x), counter = tl.scalar(0);
      world.keep(counter);
      const { ok, result } = attempt(['while', 'tl.whileLoop', 'less', 'add'], () => tl.whileLoop(
        (i) => i.less(s.n), (i, v) => [i.add(1), v.add(v)], [counter, x],
        s.max === null ? undefined : { maximumIterations: s.max }));
      if (ok) world.keep(result);
      return;
    }
    case 'function': {
      const x = world.get(s.x);
      const f = tl.function((a) => tl[s.op](a), {
        name: 'fuzzed', inputSignature: s.signature && !x.isDisposed ? [new tl.TensorSpec(x.shape.map(() => null), x.dtype)] : null });
      try {
        for (const arg of [x, world.arg(s.arg)]) {
          const { ok, result } = attempt(['fuzzed', s.op, 'tl.function'], () => f(arg));
          if (ok) world.keep(result);
        }
      } finally {
        f.dispose();
      }
      return;
    }
    case 'dataset': return runDataset(world, s);
    case 'checkpoint': return runCheckpoint(world, s);
    case 'options': return runOptions(s);
    default: throw new Error(`unknown step ${s.kind}`);
  }
}

function runCreate(world, s) {
  const what = `tl.${s.api}`;
  let call, good;
  if (s.api === 'tensor') {
    const shape = s.badShape ?? s.shape, dtype = s.badDtype ?? s.dtype;
    const fits = (v) => dtype !== 'int32' || typeof v === 'boolean' || (Number.isInteger(v) && Math.abs(v) < 2 ** 31);
    good = isShape(shape) && sizeOf(shape) === s.values.length && DTYPES.includes(dtype) && s.values.every(fits);
    call = () => tl.tensor(s.values, shape, dtype);
    const { ok, result } = attempt([what], call, good ? 'ok' : isShape(shape) && DTYPES.includes(dtype) ? undefined : 'error');
    if (ok) {
      assert.deepEqual(result.shape, shape);
      world.keep(result);
    }
    return;
  }
  if (s.api === 'range') {
    good = typeof s.stop === 'number' && !Number.isNaN(s.stop) && DTYPES.includes(s.dtype) && s.dtype !== 'bool';
    const { ok, result } = attempt([what, 'range'], () => tl.range(s.start, s.stop, 1, s.dtype),
                                   good ? 'ok' : typeof s.stop !== 'number' || !DTYPES.includes(s.dtype) ? 'error' : undefined);
    if (ok) world.keep(result);
    return;
  }
  good = isShape(s.shape) && DTYPES.includes(s.dtype) && sizeOf(s.shape) < 2 ** 20;
  call = s.api === 'fill' ? () => tl.fill(s.shape, 1, s.dtype) : () => tl[s.api](s.shape, s.dtype);
  const { ok, result, error } = attempt([what], call, good ? 'ok' : isShape(s.shape) && DTYPES.includes(s.dtype) ? undefined : 'error');
  if (!ok && !(isShape(s.shape) && DTYPES.includes(s.dtype))) {
    assert.ok(error instanceof tl.InvalidArgument, `${what}: ${error.name} for a bad shape or dtype`);
    assert.match(error.message, /: (shape|dtype)(\[\d+\])? is .*; expected/, `${what}: the message names the argument`);
  }
  if (ok) {
    assert.deepEqual([result.shape, result.dtype], [s.shape, s.dtype]);
    world.keep(result);
  }
}

/**
 * A variable's shape and values, to compare before and after an update (flat: a zero-size tensor's shape may have
 * more nested arrays than arraySync makes).
 */
const valuesOf = (v) => tl.tidy(() => { const t = v.read(); return { shape: t.shape, values: Array.from(t.dataSync()) }; });

function runVariable(world, s) {
  const init = world.get(s.init);
  const made = attempt(['variable'], () => tl.variable(init), init.isDisposed ? 'error' : init.dtype === 'float32' ? 'ok' : undefined);
  if (!made.ok) return;
  const v = made.result;
  world.variables.push(v);
  const before = valuesOf(v);
  const value = world.arg(s.value);
  const { ok } = attempt([`Variable '${v.name}'`, 'assign', 'variable'], () => v[s.how](value));
  const after = valuesOf(v);
  if (!ok) assert.deepEqual(after, before, 'a failed assign changed the variable');
  // assign takes the variable's shape exactly; assignAdd / assignSub broadcast their delta to it (as the core documents).
  if (ok && value instanceof tl.Tensor) {
    assert.equal(value.dtype, v.dtype, `${s.how} of another dtype was accepted`);
    if (s.how === 'assign') assert.deepEqual(value.shape, v.shape, 'an assign of another shape was accepted');
  }
  if (ok) assert.deepEqual(tl.tidy(() => v.read().shape), v.shape, `${s.how} changed the variable's shape`);
}

function runDataset(world, s) {
  const components = s.components.map((x) => world.arg(x));
  const made = attempt(['fromTensorSlices', 'from_tensor_slices'], () => tl.data.fromTensorSlices(components));
  if (!made.ok) return;
  let ds = made.result, endless = false;
  world.datasets.push(ds);
  for (const { t, n } of s.transforms) {
    const apply = {
      batch: () => ds.batch(n), take: () => ds.take(n), skip: () => ds.skip(n), shuffle: () => ds.shuffle(n, 3),
      repeat: () => ds.repeat(n), prefetch: () => ds.prefetch(n), enumerate: () => ds.enumerate(n),
      map: () => ds.map((...c) => c.map((x) => x.mul(typeof n === 'number' ? n : 2))),
      filter: () => ds.filter((x) => tl.sum(x).greater(typeof n === 'number' ? n : 0)),
    }[t];
    const next = attempt([`Dataset.${t}`, t, 'mul', 'greater', 'reduce_sum'], apply);  // map / filter functions run now
    if (!next.ok) return;
    ds = next.result;
    world.datasets.push(ds);
    if (t === 'repeat' && n === -1) endless = true;
  }
  // Not iterated: an endless pipeline (after repeat(-1) a filter that never matches searches forever, in TensorFlow
  // too: a user's loop would not end either) or a long one.
  const cardinality = ds.cardinality();
  if (endless || cardinality === -1 || cardinality > 64) return;
  const before = tl.memory().numTensors;
  const elements = attempt(['map', 'filter', 'batch', 'Dataset', 'dataset', 'mul', 'greater', 'reduce_sum'], () => tl.tidy(() => ds.toArray().length));
  assert.equal(tl.memory().numTensors, before, 'iterating a dataset in tidy left tensors');
  if (elements.ok && cardinality >= 0) assert.equal(elements.result, cardinality, 'a dataset gave other than its cardinality');
}

function runCheckpoint(world, s) {
  const a = world.get(s.a), b = world.get(s.b);
  if (a.isDisposed || b.isDisposed) return;
  const va = tl.variable(a), vb = tl.variable(b);
  world.variables.push(va, vb);
  const bytes = tl.checkpoint.save([va]);
  if (s.flip !== null) bytes[s.flip % bytes.length] ^= 0x24;
  const before = valuesOf(vb);
  const { ok } = attempt(['checkpoint'], () => tl.checkpoint.restore([vb], bytes));
  const after = valuesOf(vb);
  if (!ok) assert.deepEqual(after, before, 'a failed restore changed the variable');
  else {
    assert.deepEqual([vb.shape, vb.dtype], [va.shape, va.dtype], 'a checkpoint of another shape or dtype restored');
    assert.deepEqual(after, valuesOf(va), 'a restore gave other values than were saved');
  }
}

function runOptions(s) {
  const { call } = OPTION_APIS[s.api];
  const options = { ...s.options };
  const keys = Object.keys(options);
  if (s.unknown !== null) options[s.unknown] = 1;
  else if (s.badValue !== null && keys.length > 0) options[keys[0]] = s.badValue;
  const bad = s.unknown !== null || (s.badValue !== null && keys.length > 0);
  const { ok, error, result } = attempt([s.api], () => call(options), bad ? 'error' : 'ok');
  if (ok && typeof result?.dispose === 'function') result.dispose();
  if (!ok && s.unknown !== null) {  // the message names the key and lists the accepted ones
    assert.ok(error instanceof tl.InvalidArgument);
    assert.ok(error.message.includes(`unknown option '${s.unknown}'`) && error.message.includes('accepted options: '),
              `${s.api}: "${error.message}" does not name the unknown option and the accepted ones`);
  }
}

/** The fixed computation that must give its answer after any sequence. */
const healthy = () => assert.deepEqual(tl.tidy(() => tl.tensor([1, 2, 3]).mul(2).add(0.5).arraySync()), [2.5, 4.5, 6.5]);

let sequenceIndex = 0;
/** JSON.stringify's replacer for generated values: BigInts and symbols as text. */
const printable = (key, v) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'symbol' ? String(v) : v);
// Longer sequences (TRACELAB_FUZZ_STEPS) are generated at every length up to the maximum, not mostly short ones.
const sequenceProperty = fc.property(fc.array(step, { minLength: 1, maxLength: steps, size: steps > 8 ? 'max' : undefined }), (sequence) => {
  const baseline = tl.memory();
  const world = new World();
  const traceFrom = Number(process.env.TRACELAB_FUZZ_TRACE_FROM ?? Infinity);
  if (++sequenceIndex >= traceFrom) writeSync(2, `case ${sequenceIndex - 1} (JS heap ${process.memoryUsage().heapUsed >> 20} MiB, rss ${process.memoryUsage().rss >> 20} MiB, ${JSON.stringify(tl.memory())}): ${JSON.stringify(sequence, printable)}\n`);
  try {
    for (const s of sequence) {
      if (sequenceIndex >= traceFrom) writeSync(2, `  step ${JSON.stringify(s, printable)}\n`);
      runStep(world, s);
    }
  } catch (error) {  // written at once: if shrinking then hangs, the report would never come
    if (process.env.TRACELAB_FUZZ_TRACE_FROM)
      writeSync(2, `FAILED case ${sequenceIndex - 1}: ${JSON.stringify(sequence, printable)}\n${error.stack}\n`);
    throw error;
    healthy();
  } finally {
    world.dispose();
  }
  const now = tl.memory();
  assert.equal(now.numTensors, baseline.numTensors, 'tensors leaked: tl.memory().numTensors is above its baseline');
  assert.equal(now.numVariables, baseline.numVariables, 'variables leaked');
});

// ---- eager == traced ----

function evaluate(node, inputs) {
  switch (node.k) {
    case 'in': return inputs[node.i];
    case 'const': return tl.scalar(node.c);
    case 'unary': return tl[node.op](evaluate(node.x, inputs));
    case 'binary': return tl[node.op](evaluate(node.a, inputs), evaluate(node.b, inputs));
    case 'reduce': return tl[node.op](evaluate(node.x, inputs), node.axis ?? undefined, node.keep);
    case 'cond': {
      const a = evaluate(node.a, inputs);
      return tl.cond(tl.sum(evaluate(node.p, inputs)).greater(0), () => a, () => tl[node.op](a));
    }
    case 'loop': {
      const [, out] = tl.whileLoop((i) => i.less(node.n), (i, v) => [i.add(1), v.mul(0.5).add(1)], [tl.scalar(0), evaluate(node.x, inputs)]);
      return out;
    }
    default: throw new Error(node.k);
  }
}

/** Equal as float32 results of the same graph: NaN where NaN, the same infinities, else within a small tolerance. */
function close(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; ++i) {
    const x = a[i], y = b[i];
    if (Number.isNaN(x) || Number.isNaN(y)) { if (Number.isNaN(x) !== Number.isNaN(y)) return false; continue; }
    if (!Number.isFinite(x) || !Number.isFinite(y)) { if (x !== y && Math.abs(x) < 1e30 && Math.abs(y) < 1e30) return false; continue; }
    if (Math.abs(x - y) > 1e-4 * Math.max(1, Math.abs(x), Math.abs(y))) return false;
  }
  return true;
}

/** Errors in a generated function name one of its ops, or the function ('pure'), or a JS API (tl.*). */
const ANY_OP = ['pure', 'tl.', ...tl.opNames()];

const tracedProperty = fc.property(expression, inputsArb, fc.boolean(), (node, specs, signature) => {
  const baseline = tl.memory().numTensors;
  const inputs = specs.map(([shape, values]) => tl.tensor(values, shape));
  const f = tl.function((a, b) => evaluate(node, [a, b]), {
    name: 'pure', inputSignature: signature ? inputs.map((t) => new tl.TensorSpec(t.shape.map(() => null))) : null });
  try {
    const eager = attempt(ANY_OP, () => tl.tidy(() => { const y = evaluate(node, inputs); return { shape: y.shape, dtype: y.dtype, values: Array.from(y.dataSync()) }; }));
    const traced = attempt(ANY_OP, () => tl.tidy(() => { const y = f(...inputs); return { shape: y.shape, dtype: y.dtype, values: Array.from(y.dataSync()) }; }));
    assert.equal(traced.ok, eager.ok, `eager ${eager.ok ? 'ran' : `threw ${eager.error.message}`}, traced ${traced.ok ? 'ran' : `threw ${traced.error.message}`}`);
    if (eager.ok) {
      assert.deepEqual([traced.result.shape, traced.result.dtype], [eager.result.shape, eager.result.dtype]);
      assert.ok(close(eager.result.values, traced.result.values),
                `eager ${eager.result.values} != traced ${traced.result.values}`);
    }
  } finally {
    f.dispose();
    tl.dispose(inputs);
  }
  assert.equal(tl.memory().numTensors, baseline, 'tensors leaked');
  healthy();
});

// ---- running ----

const properties = { sequences: sequenceProperty, eager_vs_traced: tracedProperty };
for (const [name, property] of Object.entries(properties)) {
  if (only && only !== name) continue;
  let index = 0;
  if (process.env.TRACELAB_FUZZ_PRINT) {  // print the case at path (one index: a hung case's) instead of running it
    const [value] = fc.sample(property, { seed, path: replayPath, numRuns: 1 });
    console.log(JSON.stringify(value, printable));
    continue;
  }
  const started = performance.now();
  const details = fc.check(property.beforeEach((previous) => {
    previous();
    parentPort.postMessage({ type: 'case', property: name, index: index++ });
  }), {
    seed, numRuns: runs ?? 1e9, path: replayPath ?? undefined, endOnFailure: false,
    ...(seconds ? { interruptAfterTimeLimit: seconds * 1000 / Object.keys(properties).length, markInterruptAsFailure: false } : {}),
  });
  const ms = performance.now() - started;
  if (details.failed) {
    parentPort.postMessage({ type: 'fail', property: name, report: `${fc.defaultReportMessage(details)}\nerror: ${details.errorInstance?.stack ?? details.errorInstance}`, seed, path: details.counterexamplePath });
    process.exit(1);
  }
  parentPort.postMessage({ type: 'done', property: name, runs: details.numRuns, ms, ...stats,
                          heapMiB: tl.memory().wasmHeapBytes / 2 ** 20 });
  Object.assign(stats, { calls: 0, threw: 0 });
}
parentPort.postMessage({ type: 'end' });
