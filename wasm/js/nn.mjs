// Layers, models, losses, optimizers, metrics, checkpoints and summaries in TF.js' spelling, on the core's
// tl::layers / tl::optimizers / tl::metrics (the math and the variables live in C++).
import { InvalidArgument, guard, guardCall } from './errors.mjs';
import { isLiveTensor, Tensor } from './tensor.mjs';
import { EventFile, eventFileName, fileVersionEvent, graphEvent, histogramEvent, readEvents, scalarEvent, tfrecord } from './event_file.mjs';
import { concreteRef } from './function.mjs';
import { checkOptions, describeValue } from './values.mjs';

/** A positive integer, or a pair of them (kernel sizes, strides), for checkOptions. */
const size2 = (v) => ((Number.isSafeInteger(v) && v >= 1) ||
  (Array.isArray(v) && v.length === 2 && v.every((d) => Number.isSafeInteger(d) && d >= 1))
  ? null : 'a positive integer or a pair [height, width] of them');
const positive = (v) => (Number.isSafeInteger(v) && v >= 1 ? null : 'a positive integer');
const padding = (v) => (v === 'valid' || v === 'same' ? null : "'valid' or 'same'");

/** The options of Layer.apply. */
const APPLY_OPTIONS = { training: 'boolean' };
/** The options of the tl.losses functions. */
const LOSS_OPTIONS = { fromLogits: 'boolean' };
/** The options of Layer.compile (Keras' model.compile) and Layer.fitDataset. */
const COMPILE_OPTIONS = {
  optimizer: (v) => (v !== null && typeof v === 'object' ? null : 'a tl.train optimizer'),
  loss: 'string', fromLogits: 'boolean', runEagerly: 'boolean',
  metrics: (v) => (Array.isArray(v) && v.every((m) => typeof m === 'string') ? null : 'an array of metric names'),
};
const FIT_OPTIONS = { epochs: positive, validationData: (v) => (v !== null && typeof v === 'object' ? null : 'a tl.data dataset') };

/** Each layer class's options (the keys of tl.layers.<name>(options)) and the kind of value each takes. */
const LAYER_OPTIONS = {
  Dense: { units: positive, activation: 'string', useBias: 'boolean', seed: 'count', name: 'string' },
  Conv2D: { filters: positive, kernelSize: size2, strides: size2, padding, activation: 'string', useBias: 'boolean',
            seed: 'count', name: 'string' },
  MaxPooling2D: { poolSize: size2, strides: size2, padding, name: 'string' },
  AveragePooling2D: { poolSize: size2, strides: size2, padding, name: 'string' },
  Flatten: { name: 'string' },
  Dropout: { rate: 'number', seed: 'count', name: 'string' },
  SimpleRNN: { units: positive, activation: 'string', returnSequences: 'boolean', seed: 'count', name: 'string' },
};

export function makeNN(engine, withTensors, variableFromHandle, GradientTape, isVariable, variableNamed) {
  const core = engine.core;
  const variablesOf = (ids) => ids.map(variableFromHandle);
  /** A layer's variables, their handles read from the buffer layerVariablesStaged fills (count, then handles). */
  const stagedVariables = (id, trainableOnly) => {
    const at = guardCall(core.layerVariablesStaged, id, trainableOnly) / 8;
    const heap = core.HEAPF64;
    const handles = new Array(heap[at]);
    for (let i = 0; i < handles.length; ++i) handles[i] = heap[at + 1 + i];  // read before any call can grow memory
    for (let i = 0; i < handles.length; ++i) handles[i] = variableFromHandle(handles[i]);
    return handles;
  };
  /** `v`, checked to be a live tl.Variable; errors name it as item `i` of `what`'s `root`. */
  const checkVariable = (v, what, root, i) => {
    if (!isVariable(v)) throw new InvalidArgument(`${what}: ${root}[${i}] is ${describeValue(v)}; expected a tl.Variable`);
    v.check();
    return v;
  };
  /** `list` checked: an array of tl.Variables (checkpoints, optimizers), named as `what`'s `root`. */
  const variableList = (list, what, root = 'variables') => {
    if (!Array.isArray(list)) throw new InvalidArgument(`${what}: ${root} is ${describeValue(list)}; expected an array of tl.Variables`);
    list.forEach((v, i) => checkVariable(v, what, root, i));
    return list;
  };
  const number = (what, root, value) => {
    if (typeof value !== 'number' || Number.isNaN(value))
      throw new InvalidArgument(`${what}: ${root} is ${describeValue(value)}; expected a number`);
    return value;
  };

  // The core's calls on live tensors (the core checks dtypes and shapes), their one result wrapped.
  const layerCall = (layer, x, training) => engine.wrapResult(guardCall(core.layerCall, layer.id, x.id, training));
  const lossCall = (kind, y, p, fromLogits) => engine.wrapResult(guardCall(core.lossCall, kind, y.id, p.id, fromLogits));

  /** A Keras-style layer (or model). apply(x, {training}) builds it on the first call. */
  class Layer {
    constructor(config) {
      this.id = guard(() => core.layerNew(config));
      this.className = config.className;
    }
    apply(x, options) {
      const training = options === undefined ? false
        : (checkOptions(options, APPLY_OPTIONS, { what: `${this.className}.apply` }).training ?? false);
      if (isLiveTensor(x)) return layerCall(this, x, training);  // nothing to convert
      return withTensors((convert) => layerCall(this, convert(x, 'float32', `${this.className}.apply`), training));
    }
    /** Same as apply (Keras' __call__). */
    call(x, options) { return this.apply(x, options); }
    info() { return guard(() => core.layerInfo(this.id)); }
    get name() { return this.info().name; }
    get built() { return this.info().built; }
    /** Weights and state, in creation order (tl.Variable objects). */
    get variables() { return stagedVariables(this.id, false); }
    get trainableWeights() { return stagedVariables(this.id, true); }
    get weights() { return this.variables; }
    countParams() { return this.info().countParams; }
    /** Keras' summary table (after the first call). */
    summary() { return this.info().summary; }
    /**
     * Keras' model.compile: the loss (a tl.losses name), the optimizer and metrics ('accuracy', 'mse', ...) that
     * fitDataset and evaluateDataset use. Compiling again replaces them (and their traced steps).
     */
    compile(config) {
      const what = 'compile';
      const options = checkOptions(config, COMPILE_OPTIONS, { what: `${this.className}.compile` });
      if (!(options.optimizer instanceof Optimizer))
        throw new InvalidArgument(`${what}: an optimizer is required (options.optimizer, a tl.train optimizer), got ${describeValue(options.optimizer)}`);
      if (typeof options.loss !== 'string')
        throw new InvalidArgument(`${what}: a loss is required (options.loss, a tl.losses name such as 'sparseCategoricalCrossentropy'), got ${describeValue(options.loss)}`);
      const compiled = guard(() => core.compiledNew(this.id, { ...options, optimizer: options.optimizer.id }));
      if (this.compiledId !== undefined) core.compiledDispose(this.compiledId);
      this.compiledId = compiled;
    }
    /** The compiled model's handle, or an error naming `what` when compile() was not called. */
    compiled(what) {
      if (this.compiledId === undefined)
        throw new InvalidArgument(`${this.className}.${what}: call compile({optimizer, loss}) first`);
      return this.compiledId;
    }
    /**
     * Keras' fit over a tl.data dataset of [x, y] batches (TF.js' fitDataset): every batch through one traced
     * train step, then validationData through a traced test step; the metrics reset every epoch. Returns the History
     * {epoch, history: {loss: [...], accuracy: [...], val_loss: [...], ...}, seconds} at once (a plain object, not
     * a promise: `await` on it works as in TF.js).
     */
    fitDataset(dataset, config = {}) {
      const what = `${this.className}.fitDataset`;
      const id = this.compiled('fitDataset');
      const options = checkOptions(config, FIT_OPTIONS, { what });
      const train = datasetId(dataset, what);
      const validation = options.validationData === undefined ? undefined
        : datasetId(options.validationData, `${what}: options.validationData`);
      return engine.relay(() => core.compiledFit(id, train, { epochs: options.epochs ?? 1, validationData: validation }));
    }
    /** One pass over a dataset of [x, y] batches with training off: {loss, <metric>: value}. */
    evaluateDataset(dataset) {
      const id = this.compiled('evaluateDataset');
      return engine.relay(() => core.compiledEvaluate(id, datasetId(dataset, `${this.className}.evaluateDataset`)));
    }
    /** {train, test}: how many times fitDataset's train step and the test step were traced. */
    get fitTracingCounts() { return guard(() => core.compiledTracingCounts(this.compiled('fitTracingCounts'))); }
    dispose() {
      if (this.compiledId !== undefined) core.compiledDispose(this.compiledId);
      core.layerDispose(this.id);
    }
  }
  /** A tl.data dataset's handle, or an error naming `what`. */
  const datasetId = (dataset, what) => {
    if (dataset === null || typeof dataset !== 'object' || typeof dataset.id !== 'number' || !('elementSpec' in dataset))
      throw new InvalidArgument(`${what}: expected a tl.data dataset of [x, y] batches, got ${describeValue(dataset)}`);
    return dataset.id;
  };

  const layer = (className, apiName) => (config) =>
    new Layer({ ...checkOptions(config, LAYER_OPTIONS[className], { what: `tl.layers.${apiName}` }), className });
  const layers = {
    dense: layer('Dense', 'dense'),
    conv2d: layer('Conv2D', 'conv2d'),
    maxPooling2d: layer('MaxPooling2D', 'maxPooling2d'),
    averagePooling2d: layer('AveragePooling2D', 'averagePooling2d'),
    flatten: layer('Flatten', 'flatten'),
    dropout: layer('Dropout', 'dropout'),
    simpleRNN: layer('SimpleRNN', 'simpleRNN'),
    Layer,
  };
  /** tl.sequential({layers: [...]}) — a model that calls its layers in order. */
  const sequential = (options) => {
    const what = 'tl.sequential';
    const { layers: list = [], name } = checkOptions(options, {
      layers: (v) => (Array.isArray(v) && v.every((l) => l instanceof Layer) ? null : 'an array of layers'),
      name: 'string',
    }, { what });
    return new Layer({ className: 'Sequential', layers: list.map((l) => l.id), name });
  };

  // kind: the core's loss code (loss_call in wasm/nn_api.cpp).
  const loss = (name, kind) => {
    const what = `losses.${name}`, options = { what: `tl.losses.${name}` };
    return (labels, predictions, given) => {
      const fromLogits = given === undefined ? false : (checkOptions(given, LOSS_OPTIONS, options).fromLogits ?? false);
      if (isLiveTensor(labels) && isLiveTensor(predictions))
        return lossCall(kind, labels, predictions, fromLogits);  // nothing to convert
      return withTensors((convert) =>
        lossCall(kind, convert(labels, 'float32', what), convert(predictions, 'float32', what), fromLogits));
    };
  };
  const losses = {
    meanSquaredError: loss('meanSquaredError', 0),
    binaryCrossentropy: loss('binaryCrossentropy', 1),
    categoricalCrossentropy: loss('categoricalCrossentropy', 2),
    sparseCategoricalCrossentropy: loss('sparseCategoricalCrossentropy', 3),
  };

  /** An optimizer: applyGradients([[grad, variable], ...]) or minimize(f) as in TF.js. */
  class Optimizer {
    constructor(config) { this.id = guard(() => core.optimizerNew(config)); }
    applyGradients(pairs) {
      const what = 'Optimizer.applyGradients';
      if (pairs === null || typeof pairs !== 'object')
        throw new InvalidArgument(`${what}: expected an array of [gradient, variable] pairs, got ${describeValue(pairs)}`);
      const named = (p) => p !== null && typeof p === 'object' && !Array.isArray(p) && 'name' in p && 'tensor' in p;
      // TF.js' forms look variables up by name: {name: gradient} and [{name, tensor}]; ours pairs them directly.
      const list = !Array.isArray(pairs) ? Object.entries(pairs).map(([name, g]) => [g, variableNamed(name, what)])
                   : pairs.length > 0 && pairs.every(named) ? pairs.map((p) => [p.tensor, variableNamed(p.name, what)])
                   : pairs;
      const n = list.length;
      const handles = new Array(2 * n);  // the gradients (null: none), then the variables, staged
      const reads = [];                   // a variable given as a gradient is read (a Variable is a Tensor)
      try {
        for (let i = 0; i < n; ++i) {
          const pair = list[i];
          if (!Array.isArray(pair) || pair.length !== 2)
            throw new InvalidArgument(`${what}: pairs[${i}] is ${describeValue(pair)}; expected [gradient, variable]`);
          let g = pair[0];
          const v = pair[1];
          if (g !== null && isVariable(g)) reads.push(g = g.read());
          if (g !== null && !(g instanceof Tensor))
            throw new InvalidArgument(`${what}: pairs[${i}][0] is ${describeValue(g)}; expected a tensor or null`);
          if (g?.isDisposed) g.checkAlive(`${what}: pairs[${i}][0]`);  // the message is built only for the error
          handles[i] = g;
          handles[n + i] = checkVariable(v, what, 'the variables', i);
        }
        guardCall(core.optimizerApplyStaged, this.id, engine.stage(handles) / 2);
      } finally {
        for (const t of reads) t.dispose();
      }
    }
    /**
     * Runs f() under a tape and applies the gradients of the loss it returns for varList (default: the trainable
     * variables f read) — TF.js' minimize. The gradients stay in the core: one call computes and applies them.
     */
    minimize(f, returnCost = false, varList) {
      const what = 'Optimizer.minimize';
      if (typeof f !== 'function') throw new InvalidArgument(`${what}: f is ${describeValue(f)}; expected a function returning the loss`);
      const vars = varList === undefined || varList === null ? null : variableList(varList, what, 'varList');
      if (vars !== null && vars.length === 0) throw new InvalidArgument(`${what}: varList is empty`);
      const tape = new GradientTape();
      let cost;
      try {
        cost = engine.tidy(() => f());   // what f creates besides the loss is disposed, as TF.js does
        if (isVariable(cost)) cost = cost.read();   // a Variable is a Tensor: the loss is its value
        if (!(cost instanceof Tensor))
          throw new InvalidArgument(`${what}: f returned ${describeValue(cost)}; expected the loss, a tensor`);
        cost.checkAlive('Optimizer.minimize: the loss');
        if (tape.customs.length > 0) {  // a tl.customGrad call: its gradFunc is JavaScript, applied by tape.gradient
          const list = vars ?? tape.watchedVariables();
          const grads = tape.gradient(cost, list);
          try {
            this.applyGradients(grads.map((g, i) => [g, list[i]]));
          } finally {
            engine.disposeAll(grads.filter((g) => g !== null));
          }
        } else {
          guardCall(core.optimizerMinimizeStaged, this.id, tape.id, cost.id, vars === null ? -1 : engine.stage(vars));
        }
      } finally {
        tape.dispose();
      }
      if (returnCost) return cost;
      cost.dispose();
      return null;
    }
    /** iterations and the slots, for checkpoints. */
    getWeights() { return variablesOf(guard(() => core.optimizerVariables(this.id))); }
    dispose() { core.optimizerDispose(this.id); }
  }
  // The optimizers' hyperparameters are positional, as in TF.js; each must be a number (ranges: the core's).
  const numbers = (what, values) => {
    for (const [name, value] of Object.entries(values)) number(what, name, value);
  };
  const train = {
    sgd: (learningRate = 0.01) => {
      numbers('tl.train.sgd', { learningRate });
      return new Optimizer({ type: 'sgd', learningRate });
    },
    momentum: (learningRate, momentum, useNesterov = false) => {
      numbers('tl.train.momentum', { learningRate, momentum });
      if (typeof useNesterov !== 'boolean')
        throw new InvalidArgument(`tl.train.momentum: useNesterov is ${describeValue(useNesterov)}; expected a boolean`);
      return new Optimizer({ type: 'sgd', learningRate, momentum, nesterov: useNesterov });
    },
    adam: (learningRate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-7) => {
      numbers('tl.train.adam', { learningRate, beta1, beta2, epsilon });
      return new Optimizer({ type: 'adam', learningRate, beta1, beta2, epsilon });
    },
    rmsprop: (learningRate = 0.001, decay = 0.9, momentum = 0, epsilon = 1e-7) => {
      numbers('tl.train.rmsprop', { learningRate, decay, momentum, epsilon });
      return new Optimizer({ type: 'rmsprop', learningRate, rho: decay, momentum, epsilon });
    },
    Optimizer,
  };

  /** A streaming metric: updateState(...), result(), resetState(). */
  class Metric {
    constructor(type, config = {}) { this.id = guard(() => core.metricNew(type, config)); }
    updateState(...inputs) {
      withTensors((convert) => {
        const ids = inputs.map((x) => convert(x, 'float32', 'Metric.updateState').id);
        guard(() => core.metricUpdate(this.id, ids));
      });
    }
    result() { return engine.wrapResult(guard(() => core.metricResult(this.id))); }
    resetState() { guard(() => core.metricReset(this.id)); }
    dispose() { core.metricDispose(this.id); }
  }
  const metric = (type, accepted = {}) => (config) =>
    new Metric(type, checkOptions(config, { name: 'string', ...accepted }, { what: `tl.metrics.${type}` }));
  const metrics = {
    mean: metric('mean'),
    meanSquaredError: metric('meanSquaredError'),
    binaryAccuracy: metric('binaryAccuracy', { threshold: 'number' }),
    sparseCategoricalAccuracy: metric('sparseCategoricalAccuracy'),
  };

  const checkpoint = {
    /** The variables' values as bytes (CRC-checked tl::Checkpoint format), e.g. for IndexedDB or a download. */
    save: (variables) => guard(() => core.checkpointSave(variableList(variables, 'tl.checkpoint.save').map((v) => v.id))),
    /** Restores from bytes (ArrayBuffer or Uint8Array); validated before any variable changes. */
    restore: (variables, bytes) => {
      const ids = variableList(variables, 'tl.checkpoint.restore').map((v) => v.id);
      const data = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes;
      if (!(data instanceof Uint8Array))
        throw new InvalidArgument(`tl.checkpoint.restore: bytes is ${describeValue(bytes)}; expected a Uint8Array or an ArrayBuffer`);
      return guard(() => core.checkpointRestore(ids, data));
    },
  };

  /**
   * The optimized graph (the one that runs) of a concrete function as GraphDef bytes: one of a tl.function's
   * concrete functions, a tl.function that has exactly one, or a function of a loaded saved model.
   */
  const graphDefOf = (fn, where) => {
    const ref = fn?.[concreteRef];
    if (!ref) {
      throw new InvalidArgument(`${where}: expected a concrete function (fn.getConcreteFunction(...) or ` +
                                `fn.concreteFunctions()[i]), a tl.function or a loaded saved-model function, got ${describeValue(fn)}`);
    }
    return guard(() => core.summaryGraphDef(ref));
  };
  const summary = makeSummary(Tensor, graphDefOf);
  return { layers, sequential, losses, train, metrics, checkpoint, summary };
}

/**
 * tf.summary's shape: scalarWriter() gives an in-memory writer of {step, tag, value, wall_time} records
 * (tl::summary's JSON Lines format); createFileWriter(logdir) (Node) a TensorBoard event-file writer, the same bytes
 * as tl::summary::create_file_writer (event_file.mjs). writer.asDefault(fn, step) makes a writer the default while
 * fn runs (TF's `with writer.as_default(step):`), and summary.scalar / summary.histogram / summary.graph write to
 * the default writer, at the current step (summary.setStep) when no step is given (graph: or step 0). As in
 * TensorFlow, they return false and write nothing when there is no default writer. graphDefOf(fn, where) gives a
 * concrete function's GraphDef bytes (the core's tl::summary::graph_def_bytes).
 */
function makeSummary(Tensor, graphDefOf) {
  let defaultWriter = null;
  let currentStep = null;
  const checkStep = (step, where) => {
    if (!Number.isSafeInteger(step)) throw new InvalidArgument(`${where}: the step must be an integer, got ${String(step)}`);
    return step;
  };
  const checkTag = (tag, where) => {
    if (typeof tag !== 'string' || tag === '') throw new InvalidArgument(`${where}: the tag must be a non-empty string, got ${String(tag)}`);
    return tag;
  };
  const checkBuckets = (buckets, where) => {
    if (!Number.isSafeInteger(buckets) || buckets < 1 || buckets > 10000)
      throw new InvalidArgument(`${where}: buckets is ${describeValue(buckets)}; expected an integer from 1 to 10000`);
    return buckets;
  };
  const scalarValue = (value, where) => {
    if (value instanceof Tensor) {
      if (value.size !== 1) throw new InvalidArgument(`${where}: expected a scalar, got a tensor of shape [${value.shape}]`);
      return value.dataSync()[0];
    }
    if (typeof value !== 'number') throw new InvalidArgument(`${where}: expected a number or a one-element tensor, got ${typeof value}`);
    return value;
  };

  const numbers = (values, where) => {
    if (values instanceof Tensor) return Array.from(values.dataSync(), Number);
    if (Array.isArray(values) || ArrayBuffer.isView(values)) return Array.from(values, Number);
    throw new InvalidArgument(`${where}: expected a tensor or an array of numbers, got ${typeof values}`);
  };

  class Writer {
    /**
     * Runs fn() with this writer as the default (and `step`, when given, as the current step); afterwards, even
     * when fn throws, the previous default writer (and step) are back. Returns what fn returns. fn runs
     * synchronously: a scope does not span an await.
     */
    asDefault(fn, step) {
      if (typeof fn !== 'function') throw new InvalidArgument(`${this.constructor.name}.asDefault: expected a function to run`);
      const previousWriter = defaultWriter, previousStep = currentStep;
      if (step !== undefined) currentStep = checkStep(step, `${this.constructor.name}.asDefault`);
      defaultWriter = this;
      try {
        return fn();
      } finally {
        defaultWriter = previousWriter;
        if (step !== undefined) currentStep = previousStep;
      }
    }
    /** A scalars-only writer has no histograms. */
    histogram(tag) {
      throw new InvalidArgument(`tl.summary.histogram('${tag}'): this writer writes scalars only (tl.summary.createFileWriter writes histograms)`);
    }
    /** A scalars-only writer has no graphs. */
    graph() {
      throw new InvalidArgument('tl.summary.graph: this writer writes scalars only (tl.summary.createFileWriter writes graphs)');
    }
    /** Nothing to flush: records are written as they are made. */
    flush() {}
  }

  class ScalarWriter extends Writer {
    #records = [];
    /** Appends one record. */
    scalar(tag, value, step) {
      const where = 'ScalarWriter.scalar';
      this.#records.push({ step: checkStep(step, where), tag: checkTag(tag, where), value: scalarValue(value, where), wall_time: Date.now() / 1000 });
    }
    /** Copies of the records, in the order written. */
    records() { return this.#records.map((record) => ({ ...record })); }
    /** The records as JSON Lines (NaN and infinities as strings, as the C++ writer writes them). */
    toJSONL() {
      const finite = (r) => (Number.isFinite(r.value) ? r : { ...r, value: Number.isNaN(r.value) ? 'nan' : r.value > 0 ? 'inf' : '-inf' });
      return this.#records.map((r) => JSON.stringify(finite(r))).join('\n') + (this.#records.length ? '\n' : '');
    }
  }

  /** A TensorBoard event file kept in memory (any environment, the page too): bytes() is the file so far. */
  class MemoryFileWriter extends Writer {
    #file;
    /** TensorBoard's name for the file: events.out.tfevents.<unix seconds>.<host>. */
    fileName;
    constructor(host) {
      super();
      const wallTime = Date.now() / 1000;
      this.#file = new EventFile(wallTime);
      this.fileName = eventFileName(wallTime, host);
    }
    /** tf.summary.scalar into this file (a float32 scalar tensor, plugin "scalars"). */
    scalar(tag, value, step) {
      const where = 'MemoryFileWriter.scalar';
      this.#file.scalar(checkTag(tag, where), scalarValue(value, where), checkStep(step, where));
    }
    /** tf.summary.histogram into this file: `buckets` equal-width buckets of a tensor's or an array's values. */
    histogram(tag, values, step, buckets = 30) {
      const where = 'MemoryFileWriter.histogram';
      this.#file.histogram(checkTag(tag, where), numbers(values, where), checkStep(step, where), checkBuckets(buckets, where));
    }
    /** tf.summary.graph into this file: a concrete function's optimized graph as a GraphDef (the Graphs tab). */
    graph(fn, step = 0) {
      const where = 'MemoryFileWriter.graph';
      checkStep(step, where);
      this.#file.graph(graphDefOf(fn, where), step);
    }
    /** The event file so far (a Uint8Array), ready to save as fileName. */
    bytes() { return this.#file.bytes(); }
  }

  /** A TensorBoard event file in `logdir`, every record written through to it (Node: node:fs). */
  class EventFileWriter extends Writer {
    #fs;
    #fd;
    /** The event file's path. */
    path;
    constructor(logdir) {
      super();
      const where = 'tl.summary.createFileWriter';
      const getModule = globalThis.process?.getBuiltinModule;
      if (typeof getModule !== 'function') throw new InvalidArgument(`${where}: writes files in Node only (tl.summary.createMemoryFileWriter() keeps one in memory)`);
      if (typeof logdir !== 'string' || logdir === '') throw new InvalidArgument(`${where}: expected a folder path, got ${String(logdir)}`);
      const fs = getModule('node:fs'), os = getModule('node:os'), path = getModule('node:path');
      try {
        fs.mkdirSync(logdir, { recursive: true });
      } catch (error) {
        throw new InvalidArgument(`${where}: cannot create the log folder '${logdir}': ${error.message}`);
      }
      const wallTime = Date.now() / 1000;
      const base = path.join(logdir, eventFileName(wallTime, os.hostname() || 'localhost'));
      let file = base;
      for (let n = 1; fs.existsSync(file); ++n) file = `${base}.${n}`;
      try {
        this.#fd = fs.openSync(file, 'wx');
      } catch (error) {
        throw new InvalidArgument(`${where}: cannot create the event file '${file}': ${error.message}`);
      }
      this.#fs = fs;
      this.path = file;
      this.#write(fileVersionEvent(wallTime));
    }
    #write(event) {
      if (this.#fd === null) throw new InvalidArgument(`EventFileWriter: '${this.path}' is closed`);
      const record = tfrecord(event);
      for (let at = 0; at < record.length;) at += this.#fs.writeSync(this.#fd, record, at, record.length - at);
    }
    /** tf.summary.scalar into this file (a float32 scalar tensor, plugin "scalars"). */
    scalar(tag, value, step) {
      const where = 'EventFileWriter.scalar';
      this.#write(scalarEvent(checkTag(tag, where), scalarValue(value, where), checkStep(step, where), Date.now() / 1000));
    }
    /** tf.summary.histogram into this file: `buckets` equal-width buckets of a tensor's or an array's values. */
    histogram(tag, values, step, buckets = 30) {
      const where = 'EventFileWriter.histogram';
      this.#write(histogramEvent(checkTag(tag, where), numbers(values, where), checkStep(step, where), Date.now() / 1000,
                                 checkBuckets(buckets, where)));
    }
    /** tf.summary.graph into this file: a concrete function's optimized graph as a GraphDef (the Graphs tab). */
    graph(fn, step = 0) {
      const where = 'EventFileWriter.graph';
      checkStep(step, where);
      this.#write(graphEvent(graphDefOf(fn, where), step, Date.now() / 1000));
    }
    /** Closes the file; later writes throw. */
    close() {
      if (this.#fd !== null) this.#fs.closeSync(this.#fd);
      this.#fd = null;
    }
  }

  return {
    /** A new in-memory writer. */
    scalarWriter: () => new ScalarWriter(),
    /** tf.summary.create_file_writer (Node): a new TensorBoard event file in `logdir`, made with its parents. */
    createFileWriter: (logdir) => new EventFileWriter(logdir),
    /** An event file kept in memory (in a page, or anywhere): writer.bytes() is the file, writer.fileName its name. */
    createMemoryFileWriter: (host = 'tracelab') => {
      if (typeof host !== 'string' || host === '')
        throw new InvalidArgument(`tl.summary.createMemoryFileWriter: host is ${describeValue(host)}; expected a non-empty string`);
      return new MemoryFileWriter(host);
    },
    /** The events of an event file's bytes ({wallTime, step, tag, plugin, value, ...}); CRCs checked. */
    readEvents,
    /**
     * tf.summary.scalar: writes (tag, value) to the default writer at `step`, or at the current step when step is
     * omitted; true when written, false (nothing written) when no writer is the default. InvalidArgument when
     * there is a default writer but no step.
     */
    scalar(tag, value, step) {
      if (defaultWriter === null) return false;
      const at = step ?? currentStep;
      if (at === null) throw new InvalidArgument(`tl.summary.scalar('${tag}'): no step given and none set (tl.summary.setStep, or writer.asDefault(fn, step))`);
      defaultWriter.scalar(tag, value, at);
      return true;
    },
    /**
     * tf.summary.histogram: writes a histogram of `values` (a tensor or numbers) to the default writer, at `step`
     * or the current step; false when no writer is the default. InvalidArgument from a scalars-only writer.
     */
    histogram(tag, values, step) {
      if (defaultWriter === null) return false;
      const at = step ?? currentStep;
      if (at === null) throw new InvalidArgument(`tl.summary.histogram('${tag}'): no step given and none set (tl.summary.setStep, or writer.asDefault(fn, step))`);
      defaultWriter.histogram(tag, values, at);
      return true;
    },
    /**
     * tf.summary.graph: writes the optimized graph of a concrete function (a tl.function's concrete function, a
     * tl.function with exactly one, or a loaded saved-model function) to the default writer, at the current step or
     * 0; false (nothing written) when no writer is the default. InvalidArgument from a scalars-only writer.
     */
    graph(fn) {
      if (defaultWriter === null) return false;
      defaultWriter.graph(fn, currentStep ?? 0);
      return true;
    },
    /** tf.summary.experimental.set_step: the step scalar() uses when given none (an integer, or null for none). */
    setStep(step) { currentStep = step === null ? null : checkStep(step, 'tl.summary.setStep'); },
    /** tf.summary.experimental.get_step: the current step, or null. */
    getStep: () => currentStep,
  };
}
