// The ragged-input experiment from JavaScript: the core's runner (the same one the CLI and the benchmark use),
// with a progress callback that receives the steps since the last report and can stop the run; and timeCalls, a
// tl.function called and timed inside the core, to compare with the same calls made from JavaScript.
import { guard, InvalidArgument, translate } from './errors.mjs';
import { concreteRef } from './function.mjs';
import { isLiveTensor } from './tensor.mjs';
import { checkOptions, describeValue } from './values.mjs';

/**
 * The experiment's config keys (RaggedConfig's fields in camelCase). Values of the listed kinds are checked here;
 * ranges, mode and optimizer names are the core's (RaggedConfig::validate), which names the field.
 */
const CONFIG = {
  modes: ['string'], steps: 'integer', seed: 'integer', minLength: 'integer', maxLength: 'integer', features: 'integer',
  batchSize: 'integer', hiddenUnits: ['integer'], learningRate: 'number', optimizer: 'string', buckets: ['integer'],
  examples: 'integer', maxRetracingWarnings: 'integer', optimize: 'boolean', warmupSteps: 'integer',
  specializePlans: 'boolean', saveModels: 'boolean',
};
const config = (value, what) => checkOptions(value, CONFIG, { what, root: 'config' });

export function makeExperiments(engine) {
  const core = engine.core;
  /**
   * Runs the experiment. config: {modes, steps, seed, minLength, maxLength, features, batchSize, hiddenUnits,
   * learningRate, optimizer, buckets, examples, maxRetracingWarnings, optimize, warmupSteps, specializePlans,
   * saveModels}; specializePlans: false runs the generic graphs as TF 2.1 did (every shape rule on every step);
   * warmupSteps > 0 first runs every mode that many steps on a throwaway model (untimed, not reported; its time is
   * warmupMs); saveModels: true gives each traced mode's document a `savedModel` (a Uint8Array for
   * tl.savedModel.load: the concrete function of its last step, "train_step", with the variables as trained).
   * options: {onProgress(report), progressEvery = 100, includeGraphs = false}. A report is {mode, modeIndex,
   * stepsDone, stepsTotal, elapsedMs, warmupMs, firstStep, stepUs: Float64Array, loss: Float32Array,
   * tracedSteps, retraces: [{step, traceUs, signature, reason}]} (steps, traced steps and retraces since the
   * previous report); returning false stops the run. Returns the result document of docs/performance.md
   * ("tracelab.ragged/1").
   */
  function runRagged(runConfig, options) {
    const what = 'tl.experiments.runRagged';
    runConfig = config(runConfig, what);
    const { onProgress, progressEvery = 100, includeGraphs = false } = checkOptions(options, {
      onProgress: 'function', progressEvery: (v) => (Number.isSafeInteger(v) && v >= 1 ? null : 'a positive integer'),
      includeGraphs: 'boolean',
    }, { what });
    let callbackError = null;
    const progress = onProgress
      ? (report) => {
          try {
            return onProgress(report) !== false;
          } catch (error) {
            callbackError = error;
            return false;
          }
        }
      : null;
    const { json, savedModels } = guard(() => core.raggedRun(runConfig, progress, progressEvery, includeGraphs));
    if (callbackError) throw translate(callbackError);
    const document = JSON.parse(json);
    if (runConfig.saveModels) {
      document.modes.forEach((mode, i) => { mode.savedModel = savedModels[i].length > 0 ? savedModels[i] : null; });
    }
    return document;
  }
  /** The examples runRagged trains on for `config`: [{length, x: Float32Array, y: Float32Array}]. */
  const raggedData = (runConfig) => guard(() => core.raggedData(config(runConfig, 'tl.experiments.raggedData')));
  /** The initial kernels of every mode's model (one Float32Array per Dense layer, (in, out) row-major). */
  const raggedKernels = (runConfig) => guard(() => core.raggedKernels(config(runConfig, 'tl.experiments.raggedKernels')));
  /**
   * Calls tl.function `fn` `steps` times from inside the core, cycling through `argumentLists` (arrays of live
   * tensors, all of one length), and times each call as runRagged times its steps (the results are released inside
   * the timed call): a Float64Array of µs. The same calls made from JavaScript and timed there show what the bridge
   * and the JavaScript API add (bench/js/ragged_js_bench.mjs prints both). A first call that traces runs `fn`.
   */
  function timeCalls(fn, argumentLists, steps) {
    const what = 'tl.experiments.timeCalls';
    const ref = typeof fn === 'function' ? fn[concreteRef] : undefined;
    const fail = (message) => { throw new InvalidArgument(`${what}: ${message}`); };
    if (!ref || ref.concrete !== -1) fail(`fn is ${describeValue(fn)}; expected a tl.function`);
    if (!Array.isArray(argumentLists) || argumentLists.length === 0 || !argumentLists.every(Array.isArray))
      fail(`argumentLists is ${describeValue(argumentLists)}; expected a non-empty array of arrays of tensors`);
    const perCall = argumentLists[0].length;
    argumentLists.forEach((list, i) => {
      if (list.length !== perCall)
        fail(`argumentLists[${i}] has ${list.length} tensors, argumentLists[0] ${perCall}; expected one length`);
      list.forEach((t, j) => {
        if (!isLiveTensor(t)) fail(`argumentLists[${i}][${j}] is ${describeValue(t)}; expected a live tensor`);
      });
    });
    if (!Number.isSafeInteger(steps) || steps < 1)
      fail(`steps is ${describeValue(steps)}; expected a positive integer`);
    engine.stage(argumentLists.flat());
    return engine.relay(() => core.functionTimeCalls(ref.function, perCall, argumentLists.length, steps));
  }
  return { runRagged, raggedData, raggedKernels, timeCalls };
}
