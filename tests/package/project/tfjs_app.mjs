// A TF.js-style program: only its import names Tracelab (the package's tracelab/tfjs entry, loaded with top-level
// await). Prints what the package test checks as one JSON line.
import * as tf from 'tracelab/tfjs';

const a = tf.tensor([[1, 2], [3, 4]]);
const b = tf.tensor([[5], [6]]);
const product = tf.matMul(a, b).dataSync();
const w = tf.variable(tf.scalar(3));
const optimizer = tf.train.sgd(0.1);
for (let i = 0; i < 50; i += 1) optimizer.minimize(() => w.read().sub(1).square());
console.log(JSON.stringify({
  resolved: import.meta.resolve('tracelab/tfjs'),
  product: Array.from(product),
  w: w.read().dataSync()[0],
}));
