// The ragged experiment's model and train step in Tracelab's JS API, as the JS benchmarks share them: the runner's
// model (six dense layers 20-10-20-40-20-10-1, relu on all but the last) with the runner's initial kernels, and the
// step as the C++ runner writes it (RaggedTrainer::step). Each function takes the loaded module, so one process can
// hold several builds (compare_builds.mjs).
export const WIDTHS = [20, 10, 20, 40, 20, 10, 1];

/** The model, built, its kernels the runner's initial ones (`kernels`: tl.experiments.raggedKernels(config)). */
export function raggedModel(tl, kernels) {
  const dense = WIDTHS.slice(1).map((units, i) =>
    tl.layers.dense({ units, activation: i < 5 ? 'relu' : undefined, seed: 1 }));
  const model = tl.sequential({ layers: dense });
  tl.tidy(() => model.apply(tl.zeros([1, 1, 20])));  // build
  model.trainableWeights.filter((v, i) => i % 2 === 0)
    .forEach((kernel, i) => tl.tidy(() => kernel.assign(tl.tensor(kernels[i], kernel.shape))));
  return model;
}

/**
 * The examples of `data` (tl.experiments.raggedData(config)) as tensors kept out of every tidy, made once and shared
 * by every mode, as the runner makes its examples once per run: xs[k] of shape (1, length, 20), ys[k] of shape (1).
 */
export function raggedExamples(tl, data) {
  return { xs: data.map((e) => tl.keep(tl.tensor(e.x, [1, e.length, 20]))),
           ys: data.map((e) => tl.keep(tl.tensor(e.y, [1]))) };
}

/** The runner's input signature: x of shape (None, None, 20), y of shape (None). */
export const raggedSignature = (tl) => [new tl.TensorSpec([null, null, 20]), new tl.TensorSpec([null])];

/**
 * The train step (x, y) => loss: a tape around the forward pass and the loss, the gradients of the trainable
 * weights (their list read once, after the first call built nothing new), Adam's update.
 */
export function raggedStep(tl, model, optimizer) {
  let vars = null;
  return (x, y) => {
    const tape = new tl.GradientTape();
    const prediction = tl.reshape(model.apply(tl.max(x, 1, true)), [-1]);
    const loss = tl.losses.meanSquaredError(y, prediction);
    vars ??= model.trainableWeights;
    const grads = tape.gradient(loss, vars);
    tape.dispose();
    optimizer.applyGradients(grads.map((g, i) => [g, vars[i]]));
    return loss;
  };
}
