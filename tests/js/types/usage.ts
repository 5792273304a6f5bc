// Compiled with `tsc --noEmit` by tests/js/types.test.mjs: the declarations describe the API as the tests use it.
import { loadTracelab, Tensor, TensorSpec } from '../../../wasm/tracelab.mjs';

async function main(): Promise<number> {
  const tl = await loadTracelab();
  const x: Tensor = tl.tensor([[1, 2], [3, 4]]);
  const fromTyped: Tensor[] = [tl.tensor(new Float64Array([1, 2])), tl.tensor([new Int32Array([1, 2]), [3, 4]]),
                               tl.tensor([true, 1]), x.add(new Uint8Array([1, 2]))];
  const y = tl.tidy(() => x.matMul(tl.ones([2, 2])).relu().sum(1));
  const values: Float32Array | Int32Array | Uint8Array = y.dataSync();
  const mask: Tensor = tl.logicalAnd(x.greaterEqual(2), tl.lessEqual(x, 3)).logicalNot().logicalXor(x.notEqual(1));
  const w = tl.variable(tl.zeros([20, 1]), true, 'w');
  const step = tl.function((xs: Tensor, ys: Tensor) => {
    const tape = new tl.GradientTape();
    const loss = tl.mean(tl.square(tl.reshape(tl.matMul(tl.max(xs, 1), w.read()), [-1]).sub(ys)));
    const g = tape.gradient(loss, w);
    tape.dispose();
    if (g) w.assignSub(g.mul(0.1));
    return loss;
  }, { inputSignature: [new TensorSpec([1, null, 20]), new tl.TensorSpec([1])], name: 'train_step' });
  const loss: Tensor = step(tl.ones([1, 3, 20]), tl.tensor([0.5]));
  const lossValue: number = step.dataSync(tl.ones([1, 3, 20]), tl.tensor([0.5]))[0];
  const pairValues: (Float32Array | Int32Array | Uint8Array | null)[] = tl.function((t: Tensor) => [t, t.neg()]).dataSync(x);
  const lossNumber: number = step.arraySync(tl.ones([1, 3, 20]), tl.tensor([0.5]));
  const structured = tl.function((t: Tensor) => ({ loss: t.sum(), parts: { neg: t.neg(), n: 3 } }));
  const structuredN: Tensor = structured(x).parts.n;  // a number in the result is a constant tensor
  const structuredData: Float32Array | Int32Array | Uint8Array = structured.dataSync(x).parts.neg;
  const straightThrough = tl.customGrad((t: Tensor) => ({ value: tl.round(t), gradFunc: (dy: Tensor) => dy }));
  const rounded: Tensor = straightThrough(x);
  const signatures: string = step.prettyPrintedConcreteSignatures();
  const traced: number = step.tracingCount;
  const checkedLog = tl.function((t: Tensor) => { tl.debugging.assertPositive(t, 'log needs t > 0'); return tl.log(t); });
  tl.debugging.assertNear(checkedLog(x), tl.log(x), 1e-6, 1e-6, 'the same log', 2);
  tl.debugging.assert(x.less(5), 'x below 5', [x]);
  tl.debugging.assertRank(x, 2);
  const model = tl.sequential({ layers: [tl.layers.dense({ units: 4, activation: 'relu' }), tl.layers.dense({ units: 1 })] });
  const optimizer = tl.train.adam(0.01);
  optimizer.minimize(() => tl.losses.meanSquaredError(tl.ones([2, 1]), model.apply(tl.ones([2, 3]))), false);
  const ds = tl.data.fromTensorSlices([tl.ones([4, 2]), tl.zeros([4])]).batch(2);
  for (const [a, b] of ds) tl.dispose([a, b]);
  model.compile({ optimizer, loss: 'meanSquaredError', metrics: ['mse'] });
  const history = model.fitDataset(ds, { epochs: 2, validationData: ds });
  const lastLoss: number = history.history.loss[1] + history.epoch[1] + history.seconds[0] + model.fitTracingCounts.train;
  const evaluated: number = model.evaluateDataset(ds).loss + lastLoss;
  const traceUs: number[] = [];
  const result = tl.experiments.runRagged({ steps: 10, modes: ['signature'], warmupSteps: 5 }, {
    onProgress: (p) => {
      for (const r of p.retraces) traceUs.push(r.traceUs + r.step + r.signature.length + r.reason.length + p.warmupMs);
      return p.stepsDone < 5;
    },
  });
  const first: number = result.modes[0].step_us[0] + result.warmup_ms + traceUs.length;
  const timed: Float64Array = tl.experiments.timeCalls(tl.function((t: Tensor) => t.add(1)), [[tl.ones([2])]], 3);
  const scale = tl.function((t: Tensor) => t.mul(2), { inputSignature: [new tl.TensorSpec([null, 2])] });
  const bytes: Uint8Array = tl.savedModel.save({ scale, first: scale.getConcreteFunction(new tl.TensorSpec([null, 2])) });
  const saved = tl.savedModel.load(bytes);
  const scaled = saved.functions.scale(tl.ones([1, 2])) as Tensor;
  const specs: number = saved.signatures.scale.inputs[0].shape.length + saved.variables.length + scaled.size;
  tl.savedModel.save({ again: saved.functions.first });
  saved.dispose();
  traceUs.push(specs);
  const code: string = tl.autograph.convert('function f(x) { return x.greater(0) ? x : x.neg(); }', { filename: 'f.js' });
  const absolute = tl.autograph.toFunction((t: Tensor, k: number) => (t.greater(0) ? t.mul(k) : t.neg()), { extra: 1 });
  const converted: Tensor = tl.function(absolute)(tl.scalar(-2), 3);
  const text: string = tl.autograph.toCode(absolute);
  const mappings: number[] = [];
  const marked: string = tl.autograph.convert("'use autograph';\nif (x) y();", {
    marked: true, sourceMap: { addMapping: (m) => { mappings.push(m.generated.line, m.original?.column ?? 0); } },
  });
  try {
    tl.function(tl.autograph.toFunction((t: Tensor) => { let y; if (t.greater(0)) y = t; return y; }))(tl.scalar(1));
  } catch (e) {
    if (e instanceof tl.ConversionError && e.line !== null) traceUs.push(e.line + (e.column ?? 0) + code.length + text.length + marked.length + converted.size);
  }
  const writer = tl.summary.scalarWriter();
  const meanLoss = tl.metrics.mean({ name: 'train_loss' });
  const wrote: boolean = writer.asDefault(() => {
    tl.summary.setStep(1);
    meanLoss.updateState(tl.scalar(0.5));
    return tl.summary.scalar('train/loss', meanLoss.result());
  }, 1);
  const currentStep: number | null = tl.summary.getStep();
  traceUs.push(Number(wrote) + (currentStep ?? 0) + writer.records().length + Number(tl.summary.scalar('loss', 0.5, 2)));
  const events = tl.summary.createMemoryFileWriter('host');
  events.asDefault(() => tl.summary.histogram('w', [1, 2, 3]), 3);
  events.scalar('loss', tl.scalar(0.25), 4);
  events.graph(scale.getConcreteFunction(new tl.TensorSpec([null, 2])), 5);
  const graphed: boolean = events.asDefault(() => tl.summary.graph(scale));
  const read = tl.summary.readEvents(events.bytes());
  const value = read[1].value;
  const graphDef: Uint8Array | undefined = read[3].graphDef;
  traceUs.push(read.length + events.fileName.length + (typeof value === 'number' ? value : value?.length ?? 0) +
               (graphDef?.length ?? 0) + Number(graphed));
  try {
    tl.matMul(x, x);
  } catch (e) {
    if (e instanceof tl.ShapeError) return values.length + lossValue + pairValues.length + loss.size + signatures.length + traced + first;
  }
  return 0;
}

main();
