// The lessons' live checks (web/tutorials/checks/) on real runs and on wrong ones. Every cell of every lesson runs
// in node as the cell worker runs it (lesson_cells.mjs) and must pass its check (a timing verdict must be given,
// not necessarily pass); then each check is fed runs that a wrong engine could produce — a count off by one, a
// wrong value, a missing record, a different message — and must fail on every one, and on an empty result. A
// timing check must fail as a result check (not as a timing one) when what it reads is wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LESSONS } from '../../web/tutorials/lessons.js';
import { cellsOf, runLesson } from './lesson_cells.mjs';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();

const checksOf = async (page) => (await import(`../../web/tutorials/checks/${page.replace(/\.html$/, '.js')}`)).checks;

/** A check's verdict as the page computes it: a string passes, a throw fails. */
function verdict(check, run) {
  try {
    const v = check(run);
    return typeof v === 'string' ? { ok: true, message: v } : v;
  } catch (error) {
    return { ok: false, message: `threw: ${error.message}` };
  }
}

const bump = (n) => n + 1;
const printLines = (run) => run.outputs.filter((o) => o.kind === 'print');

/** Per lesson, per cell: [what is wrong, how to make a real run wrong]. Every check has at least one. */
const WRONG = {
  'retracing.html': {
    'one-per-shape': [['9 traces', (r) => { r.result.traces = 9; }], ['one warning', (r) => { r.counts.warning = 1; }],
                      ['a reason naming another dim', (r) => { r.result.reasons[4] = r.result.reasons[4].replace('dim 1', 'dim 2'); }]],
    'signature-relaxed': [['2 traces with the signature', (r) => { r.result.signature = 2; }],
                          ['no relaxed (None) shape', (r) => { r.result.relaxedSignatures = r.result.relaxedSignatures.replace('None', '10'); }]],
    spikes: [['bucketed traced 5 times', (r) => { r.result.traces.bucketed = 5; }],
             ['a mode ending on another loss', (r) => { r.result.finalLoss.loop *= 1.0000001; }],
             ['a mode missing', (r) => { delete r.result.finalLoss.relaxed; delete r.result.traces.relaxed; }]],
    crossover: [['function traced once', (r) => { r.result.traces.function = 1; }],
                ['a crossover that is not a step', (r) => { r.result.crossovers.signature = 2.5; }],
                ['a crossover the step times do not give', (r) => { r.result.crossovers.function += 1; }],
                ['step times missing', (r) => { r.result.stepUs.signature = []; }],
                ['a total missing', (r) => { delete r.result.totals.eager; }]],
    'long-run': [['signature traced twice without plans', (r) => { r.result.traces.unplanned.signature = 2; }],
                 ['a loss that differs without plans', (r) => { r.result.finalLoss.unplanned.loop *= 1.0000001; }],
                 ['a crossover the step times do not give', (r) => { r.result.crossovers.unplanned += 1; }],
                 ['a steady step the step times do not give', (r) => { r.result.steadyUs.planned.signature += 0.1; }],
                 ['step times missing', (r) => { r.result.stepUs.unplanned.function = []; }],
                 ['a run missing', (r) => { delete r.result.traces.planned; }]],
  },
  'graphs-vs-eager.html': {
    'small-ops': [['a wrong traced value', (r) => { r.result.traced[7] += 1e-3; }],
                  ['eager and traced equal but wrong', (r) => { r.result.eager[0] += 0.01; r.result.traced[0] += 0.01; }],
                  ['two traces', (r) => { r.result.traces = 2; }], ['not fused', (r) => { r.result.nodes = r.result.nodesBefore; }]],
    conv: [['one wrong output in both modes', (r) => { r.result.eager[12345] += 0.01; r.result.traced[12345] += 0.01; }],
           ['traced differs in the last bit', (r) => { r.result.traced[0] = r.result.traced[0] * (1 + 2 ** -20); }],
           ['two traces', (r) => { r.result.traces = 2; }]],
    compare: [['a speedup missing', (r) => { r.result.conv = undefined; }],
              ['the chart shows other numbers', (r) => { r.outputs.find((o) => o.kind === 'chart').spec.series[0].values[0] += 1; }]],
  },
  'tracing-rules.html': {
    dtypes: [['three traces', (r) => { r.result.traces = 3; }], ['a wrong value', (r) => { r.result.values[1] = [3, 6]; }],
             ['one signature only', (r) => { r.result.signatures = r.result.signatures.replace('int32', 'float32'); }]],
    'numbers-vs-tensors': [['the repeated number retraced', (r) => { r.result.numberTraced[3] = true; r.result.numberTraces = 4; }],
                           ['tensors traced twice', (r) => { r.result.tensorTraces = 2; r.result.tensorTraced[1] = true; }]],
    variables: [['the assign retraced', (r) => { r.result.tracesAfterAssign = 2; }],
                ['the assigned value not read', (r) => { r.result.afterAssign = [2, 4]; }],
                ['the second variable not traced', (r) => { r.result.traces = 1; }]],
    concrete: [['a known dim', (r) => { r.result.graph = r.result.graph.replace('f32[?,3]', 'f32[2,3]'); }],
               ['two traces', (r) => { r.result.traces = 2; }]],
    warning: [['three warnings', (r) => { r.counts.warning = 3; }], ['11 traces', (r) => { r.result.traces = 11; }],
              ['a warning about another function', (r) => { const w = r.outputs.find((o) => o.kind === 'warning'); w.text = w.text.replace('<step>', '<other>'); }]],
    'loop-warning': [['counted per object: no warning', (r) => { r.counts.warning = 0; r.outputs = r.outputs.filter((o) => o.kind !== 'warning'); }],
                     ['the function made once retraced', (r) => { r.result.onceTraces = 2; }],
                     ['a warning from the sixth trace', (r) => { const w = r.outputs.find((o) => o.kind === 'warning'); w.text = w.text.replace('5 out of the last 5', '6 out of the last 6'); }]],
    'nested-args': [['keys in another order retraced', (r) => { r.result.traced[1] = true; }],
                    ['a new key reused a graph', (r) => { r.result.traced[3] = false; }],
                    ['the error names no path', (r) => { r.result.error = r.result.error.replace('args[0].y', 'argument 0'); }],
                    ['a plain Error, not a TypeError', (r) => { r.result.error = r.result.error.replace('TypeError', 'InvalidArgument'); }]],
    'nested-gradients': [['d/dx off in the last bit', (r) => { r.result.traced.dx[1] = r.result.traced.dx[1] * (1 + 2 ** -20); }],
                         ['the variable gradient missing', (r) => { r.result.traced.dw = null; }],
                         ['inner traced twice', (r) => { r.result.traces[1] = 2; }]],
  },
  'side-effects.html': {
    'print-vs-tlprint': [['console.log twice', (r) => { r.counts.log = 2; }], ['tl.print 4 times', (r) => { r.counts.print = 4; printLines(r).pop(); }],
                         ['a wrong printed value', (r) => { printLines(r)[2].text = 'tl.print: x = [2. 4.]'; }]],
    'run-eagerly': [['traced while eager', (r) => { r.result.eagerTracingCount = 1; }],
                    ['console.log once (traced)', (r) => { r.counts.log = 1; r.outputs = r.outputs.filter((o, i, all) => o.kind !== 'log' || all.indexOf(o) === all.findIndex((p) => p.kind === 'log')); }],
                    ['left switched on', (r) => { r.result.stillEager = true; }]],
    'variable-inside': [['no error', (r) => { r.result.failedOnFirstCall = false; }],
                        ['an error that does not say where', (r) => { r.result.message = r.result.message.replace('outside the function, or only once', 'nowhere'); }],
                        ['the old rule: one trace', (r) => { r.result.onceTraces = 1; r.result.tracesAfter = 1; }],
                        ['a retrace on the second call', (r) => { r.result.tracesAfter = 3; }], ['a wrong value', (r) => { r.result.onceResult = 5; }]],
    'variable-outside': [['the assign not read', (r) => { r.result.after = [2, 3]; }], ['three traces', (r) => { r.result.traces = 3; }]],
    'host-if': [['another error', (r) => { r.result.errorName = 'InvalidArgument'; }],
                ['no hint', (r) => { r.result.message = r.result.message.replace('tl.autograph', 'something'); }], ['no error', (r) => { r.result = { errorName: null }; }]],
    cond: [['a wrong value', (r) => { r.result.values[0] = -3; }], ['no cond node', (r) => { r.result.graph = r.result.graph.replaceAll('"cond"', '"select"'); }]],
    'while-loop': [['a wrong trip count', (r) => { r.result.counts[1] = 10; }], ['two traces', (r) => { r.result.traces = 2; }]],
    assertions: [['no error', (r) => { r.result.message = null; }], ['a retrace per call', (r) => { r.result.traces = 3; }],
                 ['an error without the values', (r) => { r.result.message = r.result.message.replace('; x = f32[2] [1 -2]', ''); }],
                 ['the next call broken', (r) => { r.result.again = []; }], ['a wrong log', (r) => { r.result.good[1] += 1e-3; }],
                 ['the assertion pruned', (r) => { r.result.graph = r.result.graph.replaceAll('"assert_positive"', '"identity"'); }]],
  },
  'custom-loop.html': {
    data: [['a wrong shape', (r) => { r.result.train = [512, 16, 16, 3]; }], ['no drawings', (r) => { r.outputs = []; }]],
    model: [['a parameter more', (r) => { r.result.params = bump(r.result.params); }], ['a layer missing', (r) => { r.result.layers.splice(6, 1); }]],
    'train-on-batch': [['no learning', (r) => { r.result.after = r.result.before; }], ['not starting at chance', (r) => { r.result.before = 2; }]],
    preprocess: [['both maps wrong alike', (r) => { r.result.firstEager[3] += 0.01; r.result.firstTraced[3] += 0.01; }],
                 ['traced differs', (r) => { r.result.firstTraced[0] += 1e-6; }], ['an image lost', (r) => { r.result.images = [512, 511]; }],
                 ['two traces', (r) => { r.result.traces = 2; }]],
    epochs: [['a summary missing', (r) => { r.result.summaries.splice(4, 1); }],
             ['train/loss not the epoch mean', (r) => { r.result.summaries[3].value = r.result.stepLosses[31]; }],
             ['a summary at the wrong step', (r) => { r.result.summaries[8].step = 4; }],
             ['no file_version event', (r) => { r.result.eventFile.fileVersion = undefined; }],
             ['an event missing from the file', (r) => { r.result.eventFile.events = 9; }],
             ['a summary not a scalar', (r) => { r.result.summaries[2].plugin = 'histograms'; }],
             ['eager and traced disagree', (r) => { r.result.eager[1] += 0.01; }], ['an epoch missing', (r) => { r.result.eager.pop(); r.result.traced.pop(); }],
             ['the wrong best epoch', (r) => { r.result.bestEpoch = 1; }], ['low accuracy', (r) => { r.result.accuracy = 0.5; }]],
    'whole-loop': [['different weights', (r) => { r.result.sameWeights = false; }], ['traced accuracy differs', (r) => { r.result.tracedAccuracy -= 1 / 1536; }],
                   ['the metric reset', (r) => { r.result.accumulated = r.result.second; }], ['the replay retraced twice', (r) => { r.result.traces = [2, 2]; }],
                   ['the replay no better', (r) => { r.result.second = r.result.first; r.result.accumulated = r.result.first; }]],
    fit: [['fit ended on another loss', (r) => { r.result.fit[1] *= 1.0000001; }], ['eager differs', (r) => { r.result.eager[0] += 1e-6; }],
          ['different weights', (r) => { r.result.sameWeights = false; }], ['the train step traced once', (r) => { r.result.fitTraces.train = 1; }],
          ['an epoch missing', (r) => { r.result.fit.pop(); r.result.traced.pop(); r.result.eager.pop(); }],
          ['the loss rose', (r) => { r.result.fit.reverse(); r.result.traced.reverse(); r.result.eager.reverse(); }],
          ['no accuracy', (r) => { r.result.accuracy = []; }]],
    restore: [['not the best loss', (r) => { r.result.after += 1e-3; }], ['the fresh model already trained', (r) => { r.result.before = r.result.after; }]],
  },
  'keras-transfer.html': {
    'trunk-and-heads': [['head 2 trained too', (r) => { r.result.trained.push('head_2/kernel'); }], ['loss fell only tenfold', (r) => { r.result.last = r.result.first / 20; }]],
    'fine-tune': [['the trunk changed', (r) => { r.result.trunkAfter[1][3] += 1e-6; }],
                  ['the trunk trained', (r) => { r.result.trained.unshift('trunk_dense_1/kernel'); }],
                  ['a trunk variable not read', (r) => { r.result.trunkBefore.pop(); r.result.trunkAfter.pop(); }],
                  ['the trunk read as empty arrays', (r) => { r.result.trunkBefore = r.result.trunkAfter = [[], [], [], []]; }]],
    'export-trunk': [['not equal after', (r) => { r.result.restored[5] += 1e-6; }], ['a variable not saved', (r) => { r.result.saved.pop(); }],
                     ['the fresh trunk equal before', (r) => { r.result.freshBefore = [...r.result.original]; }],
                     ['no outputs', (r) => { r.result.original = r.result.freshBefore = r.result.restored = []; }]],
    'export-model': [['outputs differ', (r) => { r.result.reloaded[2] += 1e-6; }], ['a variable lost', (r) => { r.result.variables.pop(); }],
                     ['no signature error', (r) => { r.result.wrongShape = null; }], ['no outputs', (r) => { r.result.original = r.result.reloaded = []; }],
                     ['the new head did not learn', (r) => { r.result.last = r.result.first / 2; }]],
    'dynamic-rnn': [['a trace per length', (r) => { r.result.traces = 3; }], ['lengths not run', (r) => { r.result.states = []; }],
                    ['traced differs from eager', (r) => { r.result.states[1].traced[0] += 1e-3; }],
                    ['empty states', (r) => { for (const s of r.result.states) s.traced = s.eager = []; }],
                    ['only the last state kept', (r) => { const s = r.result.states[2]; s.traced = s.traced.slice(-8); s.eager = s.eager.slice(-8); s.shape = [1, 1, 8]; }]],
    summaries: [['a record missing', (r) => { r.result.records.splice(10, 1); }], ['a wrong value', (r) => { r.result.records[310].value += 1e-9; }],
                ['a wrong step', (r) => { r.result.records[300].step = 0; }], ['written with no default writer', (r) => { r.result.outside = true; }]],
  },
  'autograph.html': {
    sign: [['a wrong sign', (r) => { r.result.rows[1].traced = 1; }], ['no cond', (r) => { r.result.graph = r.result.graph.replaceAll('"cond"', '"select"'); }]],
    'sum-even': [['a wrong sum', (r) => { r.result.rows[0].eager += 1; }], ['two traces', (r) => { r.result.traces = 2; }]],
    collatz: [['a wrong step count', (r) => { r.result.rows[0].traced += 1; }], ['no while_loop', (r) => { r.result.graph = r.result.graph.replaceAll('"while_loop"', '"loop"'); }]],
    fizzbuzz: [['a wrong line', (r) => { const p = printLines(r).find((o) => o.text === 'Fizz'); p.text = 'Buzz'; }], ['a line missing', (r) => { r.counts.print -= 1; }]],
    unconverted: [['unconverted right', (r) => { for (const row of r.result.rows) row['unconverted, traced'] = Math.sign(row.x); }]],
    'js-operator': [['another error', (r) => { r.result.errorName = 'TypeError'; }]],
    'conversion-error': [['the wrong line', (r) => { r.result.line += 1; }], ['another construct', (r) => { r.result.construct = 'while statement'; }]],
  },
};

for (const lesson of LESSONS) {
  test(`tutorial checks: ${lesson.page}: every cell passes on its real run and fails on wrong ones`, { timeout: 300_000 }, async () => {
    const checks = await checksOf(lesson.page);
    const cells = cellsOf(lesson.page).map((cell) => cell.name);
    assert.deepEqual(Object.keys(checks).sort(), [...cells].sort(), 'one check per cell, one cell per check');
    assert.deepEqual(Object.keys(WRONG[lesson.page]).sort(), [...cells].sort(), 'wrong runs for every check');
    const runs = await runLesson(tl, lesson.page);
    for (const name of cells) {
      const run = runs[name];
      assert.ok(!run.failed, `${lesson.page} ${name} threw: ${JSON.stringify(run.error)}`);
      const real = verdict(checks[name], run);
      if (real.timing) assert.match(real.message, /\d×/, `${name}: a timing verdict gives the figures`);
      else assert.equal(real.ok, true, `${lesson.page} ${name}: ${real.message}`);
      for (const [what, make] of WRONG[lesson.page][name]) {
        const wrong = structuredClone(run);
        make(wrong);
        const v = verdict(checks[name], wrong);
        assert.equal(v.ok, false, `${lesson.page} ${name} passed with ${what}: ${v.message}`);
        assert.ok(!v.timing, `${lesson.page} ${name}: ${what} must fail as a result, not a timing: ${v.message}`);
        assert.ok(v.message.length > 0, `${name}: the failure says what was wrong`);
      }
      for (const result of [undefined, null, {}]) {
        const v = verdict(checks[name], { ...structuredClone(run), result });
        assert.equal(v.ok, false, `${lesson.page} ${name} passed with result ${JSON.stringify(result)}: ${v.message}`);
      }
    }
  });
}
