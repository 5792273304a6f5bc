// The training step of the TF.js programs, run eagerly or traced, and timed. `timedStep(tf, fn, traced)` takes the
// step as plain TF.js (a function of no arguments that updates the variables and returns the loss scalar); with
// `traced` and a library that has tf.function (Tracelab: tl.function; TF.js has none, and there fn runs as written)
// the step is traced into a graph on its first call and later calls run the graph. The program's own code is the
// same in both modes.

/**
 * The step fn, traced when `traced` is set and `tf.function` exists. `run()` calls it, reads the loss (dataSync, so
 * the time covers the whole computation), disposes of the scalar and returns the loss as a number; each call's time
 * in milliseconds goes to `stepMs`, and the index of each call that traced to `tracedSteps`. `traced` says whether
 * the step is traced; `summary()` is a line with the median step time; `dispose()` releases the traced function's
 * graphs.
 */
export function timedStep(tf, fn, traced = false) {
  const graph = traced && typeof tf.function === 'function' ? tf.function(fn) : null;
  const step = graph ?? fn;
  const stepMs = [], tracedSteps = [];
  return {
    traced: graph !== null,
    stepMs,
    tracedSteps,
    run() {
      const tracesBefore = graph?.tracingCount;
      const start = performance.now();
      const cost = step();
      const loss = cost.dataSync()[0];
      stepMs.push(performance.now() - start);
      cost.dispose();
      if (graph && graph.tracingCount > tracesBefore) tracedSteps.push(stepMs.length - 1);
      return loss;
    },
    summary() {
      const sorted = [...stepMs].sort((x, y) => x - y);
      const median = sorted.length ? sorted[Math.ceil(sorted.length / 2) - 1] : 0;
      return `${graph ? 'tf.function' : 'eager'}: median step ${(median * 1000).toFixed(1)} µs over ${stepMs.length} steps` +
             (graph ? `, traced at step ${tracedSteps.join(', ')}` : '');
    },
    dispose() { graph?.dispose(); },
  };
}
