// Type-checked with `tsc --noEmit` (tsconfig.json: module and moduleResolution nodenext, so the package's
// "exports" conditions pick the declarations) in a project that installed the packed tarball.
import { loadTracelab, Tensor, TensorSpec, type Tracelab } from 'tracelab';
import { convert, toFunction } from 'tracelab/autograph';

const tl: Tracelab = await loadTracelab({ autograph: true });
const x: Tensor = tl.tensor([[1, 2], [3, 4]]);
const w = tl.variable(tl.zeros([2, 1]), true, 'w');
const step = tl.function((xs: Tensor) => {
  const tape = new tl.GradientTape();
  const loss = tl.mean(tl.square(tl.matMul(xs, w.read())));
  const grad = tape.gradient(loss, w);
  tape.dispose();
  if (grad) w.assignSub(grad.mul(0.1));
  return loss;
}, { inputSignature: [new TensorSpec([null, 2])], name: 'step' });
const loss: Tensor = step(x);
const traces: number = step.tracingCount;
const values: Float32Array | Int32Array | Uint8Array = loss.dataSync();
const code: string = convert('function f(x) { if (x) return 1; return 2; }', { filename: 'f.mjs', marked: false });
const sign = toFunction((t: Tensor) => (t.greater(0) ? 1 : -1), {}, tl);
const version: string = tl.version;
console.log(traces, values, code, sign(x), version);
