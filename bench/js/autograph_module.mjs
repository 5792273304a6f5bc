// A ~200-line module of the kind AutoGraph converts, read as text by autograph_bench.mjs (never run): tensor control
// flow, a training loop, metrics and plain JavaScript helpers. It expects `tl` in scope, as converted code does.
export function sign(x) {
  if (x.greater(0)) {
    return tl.scalar(1);
  } else if (x.less(0)) {
    return tl.scalar(-1);
  }
  return tl.scalar(0);
}

export function clippedNorm(g, maxNorm) {
  const norm = tl.sqrt(tl.sum(tl.square(g)));
  let scale = tl.scalar(1);
  if (norm.greater(maxNorm)) {
    scale = tl.div(maxNorm, norm);
  }
  return g.mul(scale);
}

export function sumOfEven(n) {
  let total = tl.scalar(0);
  let i = tl.scalar(0);
  while (i.less(n)) {
    const half = tl.cast(tl.cast(i.div(2), 'int32'), 'float32');
    if (tl.equal(i, half.mul(2))) {
      total = total.add(i);
    }
    i = i.add(1);
  }
  return total;
}

export function firstAbove(xs, threshold) {
  for (const x of xs) {
    if (x.greater(threshold)) {
      return x;
    }
  }
  return tl.scalar(-1);
}

export function collatzSteps(start) {
  let n = start;
  let steps = tl.scalar(0);
  while (n.greater(1)) {
    const half = tl.cast(tl.cast(n.div(2), 'int32'), 'float32');
    if (tl.equal(n, half.mul(2))) {
      n = half;
    } else {
      n = n.mul(3).add(1);
    }
    steps = steps.add(1);
    if (steps.greater(500)) break;
  }
  return steps;
}

export function softThreshold(x, lambda) {
  const positive = x.greater(lambda);
  const negative = x.less(lambda.neg());
  return tl.where(positive, x.sub(lambda), tl.where(negative, x.add(lambda), tl.zerosLike(x)));
}

export function accuracy(logits, labels) {
  const predicted = tl.argMax(logits, 1);
  const correct = tl.cast(tl.equal(predicted, labels), 'float32');
  return tl.mean(correct);
}

export function trainStep(model, optimizer, x, y) {
  const tape = new tl.GradientTape();
  const logits = model.apply(x, { training: true });
  const loss = tl.losses.sparseCategoricalCrossentropy(y, logits, { fromLogits: true });
  const vars = model.trainableWeights;
  const grads = tape.gradient(loss, vars);
  tape.dispose();
  const clipped = grads.map((g) => (g ? clippedNorm(g, tl.scalar(5)) : g));
  optimizer.applyGradients(clipped.map((g, i) => [g, vars[i]]));
  return loss;
}

export function trainEpoch(model, optimizer, batches, patience) {
  let best = Infinity;
  let bad = 0;
  let step = 0;
  const losses = [];
  for (const [x, y] of batches) {
    const loss = trainStep(model, optimizer, x, y).dataSync()[0];
    losses.push(loss);
    step += 1;
    if (loss < best - 1e-4) {
      best = loss;
      bad = 0;
    } else {
      bad += 1;
      if (bad >= patience) break;
    }
  }
  return { best, steps: step, losses };
}

export function movingAverage(values, window) {
  const out = [];
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    sum += values[i];
    if (i >= window) sum -= values[i - window];
    out.push(i >= window - 1 ? sum / window : null);
  }
  return out;
}

export function summarize(history) {
  if (!history || history.length === 0) return 'no steps';
  const last = history[history.length - 1];
  const first = history[0];
  const improved = last < first && first - last > 0.01;
  return `${history.length} steps, ${first.toFixed(3)} -> ${last.toFixed(3)}${improved ? ' (improved)' : ''}`;
}

export function parseSchedule(text) {
  const schedule = [];
  for (const part of text.split(',')) {
    const [step, rate] = part.split(':').map(Number);
    if (Number.isNaN(step) || Number.isNaN(rate)) {
      throw new Error(`bad schedule entry '${part}'`);
    }
    schedule.push({ step, rate });
  }
  schedule.sort((a, b) => a.step - b.step);
  return schedule;
}

export function rateAt(schedule, step) {
  let rate = schedule.length ? schedule[0].rate : 0.01;
  for (const entry of schedule) {
    if (entry.step > step) break;
    rate = entry.rate;
  }
  return rate;
}

export class EarlyStopping {
  constructor(patience = 3, minDelta = 0) {
    this.patience = patience;
    this.minDelta = minDelta;
    this.best = Infinity;
    this.wait = 0;
  }

  update(value) {
    if (value < this.best - this.minDelta) {
      this.best = value;
      this.wait = 0;
      return false;
    }
    this.wait += 1;
    return this.wait >= this.patience;
  }

  get stopped() {
    return this.wait >= this.patience ? true : false;
  }
}

export function rowNorms(m) {
  let norms = tl.zeros([0]);
  let count = tl.scalar(0);
  for (const row of m) {
    const n = tl.sqrt(tl.sum(tl.square(row)));
    count = count.add(n.greater(1) && n.less(10) ? 1 : 0);
  }
  return [norms, count];
}

export function fizzbuzz(n) {
  const mod = (a, k) => a.sub(tl.cast(tl.cast(a.div(k), 'int32'), 'float32').mul(k));
  let i = tl.scalar(1);
  while (!i.greater(n)) {
    if (tl.equal(mod(i, 15), 0)) tl.print('FizzBuzz');
    else if (tl.equal(mod(i, 3), 0)) tl.print('Fizz');
    else if (tl.equal(mod(i, 5), 0)) tl.print('Buzz');
    else tl.print(i);
    i = i.add(1);
  }
  return i;
}

export function search(sorted, target) {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === target) return mid;
    if (sorted[mid] < target) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export function matrixPower(m, k) {
  let result = tl.eye ? tl.eye(m.shape[0]) : tl.ones(m.shape);
  let i = tl.scalar(0);
  do {
    result = tl.matMul(result, m);
    i = i.add(1);
  } while (i.less(k));
  return result;
}
