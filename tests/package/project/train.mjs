// Run in a project that installed the packed tarball: imports 'tracelab' as a user's program does and trains
// y = 2x - 1 with one Dense layer and SGD inside tl.function; 'tracelab/autograph' converts a function's text. The
// last line of output is a JSON report that npm_package.test.mjs checks.
import { loadTracelab } from 'tracelab';
import { convert } from 'tracelab/autograph';
import { createRequire } from 'node:module';

const tl = await loadTracelab();
const model = tl.sequential({ layers: [tl.layers.dense({ units: 1, seed: 3 })] });
const x = tl.tensor([[-1], [0], [1], [2]]);
const y = tl.tensor([[-3], [-1], [1], [3]]);
const optimizer = tl.train.sgd(0.1);
const step = tl.function((xs, ys) => {
  const tape = new tl.GradientTape();
  const loss = tl.losses.meanSquaredError(ys, model.apply(xs));
  const weights = model.trainableWeights;
  const grads = tape.gradient(loss, weights);
  tape.dispose();
  optimizer.applyGradients(grads.map((g, i) => [g, weights[i]]));
  return loss;
}, { name: 'train_step' });

const losses = [];
for (let i = 0; i < 100; ++i) losses.push(step.arraySync(x, y));  // the loss as a number, no tensor left
const [kernel, bias] = model.trainableWeights.map((w) => tl.tidy(() => w.read().dataSync()[0]));

console.log(JSON.stringify({
  version: tl.version,
  packageVersion: createRequire(import.meta.url)('tracelab/package.json').version,
  resolved: import.meta.resolve('tracelab'),
  losses, kernel, bias,
  tracingCount: step.tracingCount,
  concreteFunctions: step.concreteFunctions().length,
  converted: convert('function sign(x) { if (x.greater(0)) return 1; return -1; }'),
}));
