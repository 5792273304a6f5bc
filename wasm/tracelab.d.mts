// TypeScript declarations of Tracelab's JavaScript API (wasm/tracelab.mjs; editors pick this file up next to it).
//
// Every options or config object declared here lists all the keys its API accepts: at run time a key not listed is an
// InvalidArgument naming it and the accepted ones (never ignored), as is a value of the wrong kind. Shapes must hold
// non-negative integers (null / -1 for "any size" only in TensorSpecs and padded shapes), dtypes be DType, axes
// integers; each bad one is an InvalidArgument naming the API and the argument's path (docs/js-api.md, "Options").

/** 'float32', 'int32' or 'bool'. */
export type DType = 'float32' | 'int32' | 'bool';
/**
 * Values accepted where a tensor is expected: a tensor, a variable (read now), a number, a boolean, nested arrays or
 * a typed array (docs/js-api.md, "Values that become tensors"); anything else throws, naming the value's path.
 */
export type TensorLike = Tensor | Variable | TensorValues;
/** What tl.tensor converts: numbers and booleans, nested arrays of equal lengths, typed arrays (also innermost). */
export type TensorValues = number | boolean | NestedArray | InputTypedArray;
export type NestedArray = (number | boolean)[] | (NestedArray | InputTypedArray)[];
/** Typed arrays tl.tensor accepts: Int32Array, Uint8Array and Uint8ClampedArray make int32 tensors, the others float32. */
export type InputTypedArray = Float32Array | Float64Array | Int8Array | Int16Array | Int32Array | Uint8Array |
  Uint8ClampedArray | Uint16Array | Uint32Array;
/** The values dataSync() copies out: Float32Array (float32), Int32Array (int32) or Uint8Array (bool). */
export type TypedArray = Float32Array | Int32Array | Uint8Array;

/** A tensor: shape, dtype and a handle to values held by the WASM core. */
export declare class Tensor {
  /** The dims, e.g. [2, 3]. */
  readonly shape: number[];
  readonly dtype: DType;
  /** True while a tl.function traces: it stands for a graph value and has no data. */
  readonly symbolic: boolean;
  /** True after dispose(). */
  readonly isDisposed: boolean;
  readonly rank: number;
  readonly size: number;
  /** The values, copied out of WASM memory. */
  dataSync(): TypedArray;
  data(): Promise<TypedArray>;
  /** The values as nested arrays. */
  arraySync(): any;
  array(): Promise<any>;
  /** TensorFlow's printed form, e.g. "tl.Tensor(shape=(2,), dtype=float32, values=[1. 2.])". */
  toString(): string;
  print(): void;
  /** Releases the values (idempotent). */
  dispose(): void;
  add(b: TensorLike): Tensor; sub(b: TensorLike): Tensor; mul(b: TensorLike): Tensor; div(b: TensorLike): Tensor;
  pow(b: TensorLike): Tensor; maximum(b: TensorLike): Tensor; minimum(b: TensorLike): Tensor;
  equal(b: TensorLike): Tensor; less(b: TensorLike): Tensor; greater(b: TensorLike): Tensor;
  notEqual(b: TensorLike): Tensor; lessEqual(b: TensorLike): Tensor; greaterEqual(b: TensorLike): Tensor;
  logicalAnd(b: TensorLike): Tensor; logicalOr(b: TensorLike): Tensor; logicalXor(b: TensorLike): Tensor;
  logicalNot(): Tensor;
  neg(): Tensor; abs(): Tensor; exp(): Tensor; log(): Tensor; sqrt(): Tensor; square(): Tensor;
  relu(): Tensor; sigmoid(): Tensor; tanh(): Tensor; softmax(axis?: number): Tensor; logSoftmax(axis?: number): Tensor;
  matMul(b: TensorLike, transposeA?: boolean, transposeB?: boolean): Tensor;
  sum(axis?: number | number[], keepDims?: boolean): Tensor; mean(axis?: number | number[], keepDims?: boolean): Tensor;
  max(axis?: number | number[], keepDims?: boolean): Tensor; min(axis?: number | number[], keepDims?: boolean): Tensor;
  argMax(axis?: number): Tensor;
  reshape(shape: number[]): Tensor; transpose(perm?: number[]): Tensor; expandDims(axis?: number): Tensor;
  squeeze(axis?: number | number[]): Tensor; slice(begin: number[], size: number[]): Tensor;
  gather(indices: TensorLike, axis?: number): Tensor; cast(dtype: DType): Tensor; broadcastTo(shape: number[]): Tensor;
  clipByValue(lo: TensorLike, hi: TensorLike): Tensor; stopGradient(): Tensor;
}

/** A mutable tensor with a name (tf.Variable); ops accept it directly. */
export declare class Variable {
  readonly name: string;
  readonly shape: number[];
  readonly dtype: DType;
  readonly trainable: boolean;
  /** The current value (inside tl.function, a read node of the graph). */
  read(): Tensor;
  /** Replaces the value (same shape and dtype; a ShapeError / DTypeError leaves it unchanged). */
  assign(value: TensorLike): void;
  assignAdd(delta: TensorLike): void;
  assignSub(delta: TensorLike): void;
  dispose(): void;
}

/** Records ops from construction until stopRecording() or dispose(). */
export declare class GradientTape {
  constructor(options?: { persistent?: boolean; watchAccessedVariables?: boolean });
  watch(...sources: Array<Tensor | Variable | Array<Tensor | Variable>>): void;
  stopRecording(): void;
  /** d target / d sources; null where the target does not depend on a source (unless unconnectedGradients 'zero'). */
  gradient(target: Tensor, sources: Tensor | Variable, options?: { unconnectedGradients?: 'none' | 'zero' }): Tensor | null;
  gradient(target: Tensor, sources: Array<Tensor | Variable>, options?: { unconnectedGradients?: 'none' | 'zero' }): Array<Tensor | null>;
  /** The variables read while recording, in first-read order. */
  watchedVariables(): Variable[];
  dispose(): void;
}

/** The shape (null = any size) and dtype an input signature accepts. */
export declare class TensorSpec {
  constructor(shape: Array<number | null>, dtype?: DType, name?: string | null);
  readonly shape: number[];
  readonly dtype: DType;
}

/** One call of a tl.function, as its call history keeps it (index counts every call, recorded or not). */
export interface CallRecord {
  index: number; traced: boolean; key: string; reason: string; warning: string;
  concreteIndex: number; traceUs: number; executeUs: number;
}
export interface PassReport { pass: string; before: number; after: number; }
/** A traced graph: signature, text and JSON before and after the optimization passes. */
export interface ConcreteFunction {
  signature: string; graph: string; tracedGraph: string; graphJson: string; tracedGraphJson: string; passes: PassReport[];
}
/** One argument's entry in an input signature: a TensorSpec, or arrays / plain objects of them (a nested argument). */
export type SignatureSpec = TensorSpec | SignatureSpec[] | { [key: string]: SignatureSpec };
export interface FunctionOptions {
  /** The accepted arguments, one entry per argument; an entry may nest. A call of another structure is a TypeError
   *  naming the path where it differs ("args[0].y is missing ..."). */
  inputSignature?: SignatureSpec[] | null;
  /** TensorFlow's reduce_retracing (experimental_relax_shapes). */
  reduceRetracing?: boolean;
  name?: string;
  /** Frequent-retracing warnings per count: 2 (current TF) by default, -1 = no limit (TF 2.1). */
  maxRetracingWarnings?: number;
  /** Count this function's traces for the retracing warning together with every tl.function of the same source text
   *  made at the same place — TensorFlow counts per Python function, so a tl.function created in a loop warns
   *  (default true); false counts this function alone. */
  shareRetracingCount?: boolean;
  argNames?: string[];
  /** How many of the latest calls keep a record in `calls` (the oldest dropped): 100 by default, 0 for none. */
  callHistory?: number;
  /** Time each call's graph into its record's `executeUs` (default false: `executeUs` is 0; true costs two clock
   *  reads per call, each a call out of WebAssembly, ~0.1 µs apiece in a training loop). */
  recordTimings?: boolean;
  /** Plan a graph with unknown dims per input shape when it runs (default true); false runs it as TensorFlow runs a
   *  generic graph: every shape rule on every call, fresh buffers. */
  specializePlans?: boolean;
  /** Called after each call that traced (keeps a call history of at least 1). */
  onTrace?: (info: { reason: string; warning: string; traceUs: number }) => void;
}
/** A tl.function argument: a leaf, or arrays / plain objects of them — flattened (objects by sorted key), the
 *  structure and the leaves' keys in the trace key, as TensorFlow's nest. */
export type FunctionArg = Tensor | TensorSpec | Variable | number | boolean | string | FunctionArg[]
  | { [key: string]: FunctionArg };
/** What a traced function's dataSync gives for a result of type R: each tensor's values instead of the tensor. */
export type ResultData<R> = R extends Tensor ? TypedArray : R extends undefined | void ? undefined
  : R extends readonly unknown[] ? (TypedArray | null)[] : TypedArray | (TypedArray | null)[] | undefined;
/** What a traced function's arraySync gives for a result of type R: each tensor's arraySync() instead of the tensor. */
export type ResultArrays<R> = R extends undefined | void ? undefined : R extends readonly unknown[] ? any[] : any;
/** A traced function (tf.function). */
export interface TracedFunction<R> {
  (...args: FunctionArg[]): R;
  /** The call's results as values: each tensor's dataSync() (an array of them, or undefined, as the function
   *  returns), without making tensors: one crossing and no handles.
   *  Inside another tl.function's trace: OperatorNotAllowedInGraphError (the results have no values there). */
  dataSync(...args: FunctionArg[]): ResultData<R>;
  /** The same with each tensor's arraySync() instead (a scalar's value as a number, nested arrays otherwise): the
   *  cheapest way to read a training step's loss, `const loss = step.arraySync(x, y)` (nothing allocated). */
  arraySync(...args: FunctionArg[]): ResultArrays<R>;
  readonly tracingCount: number;
  /** The records of the last `callHistory` calls, oldest first. */
  readonly calls: CallRecord[];
  prettyPrintedConcreteSignatures(): string;
  concreteFunctions(): ConcreteFunction[];
  getConcreteFunction(...args: FunctionArg[]): ConcreteFunction;
  clearCalls(): void;
  dispose(): void;
}

/** A saved spec: dtype and shape (-1 = any size); inputs carry the argument's name. */
export interface SavedSpec { name?: string; dtype: DType; shape: number[]; }
/** A function of a loaded saved model: checks its arguments against the saved signature, runs the saved graph. */
export interface LoadedFunction {
  /** One tensor per saved input; returns a tensor (one output), an array (several) or undefined (none). */
  (...args: TensorLike[]): Tensor | Tensor[] | undefined;
  readonly name: string;
  readonly inputs: SavedSpec[];
  readonly outputs: SavedSpec[];
  /** "predict(x: float32 (None, 4)) -> (float32 (None, 1))" */
  readonly signature: string;
}
/** What tl.savedModel.load returns. */
export interface SavedModel {
  /** The loaded functions by the names they were saved under. */
  functions: Record<string, LoadedFunction>;
  /** Each function's signature. */
  signatures: Record<string, { inputs: SavedSpec[]; outputs: SavedSpec[]; text: string }>;
  /** The restored variables, each once, shared by the functions (a loaded train step updates them). */
  variables: Variable[];
  /** Frees the functions (the variables live until they are disposed). */
  dispose(): void;
}
/** What tl.savedModel.save takes for a name: a tl.function with one concrete function (or none yet and an input
 * signature, traced for it), a concrete function, or a loaded function. tl.summary.graph takes the same, a
 * tl.function only once it has exactly one concrete function. */
export type Savable = TracedFunction<any> | ConcreteFunction | LoadedFunction;

export interface Memory {
  numTensors: number; numBytes: number; numVariables: number; numTapes: number;
  /** The WebAssembly linear memory's size in bytes (it grows, never shrinks). */
  wasmHeapBytes: number;
  /** The bytes malloc has handed out and not taken back (dlmalloc's count): flat over repeated work when nothing leaks. */
  heapBytesInUse: number;
  /** Handles released by the FinalizationRegistry (tensors garbage-collected without dispose()). */
  collectedByGC: number;
  /** The WebAssembly stack pointer between calls: the same before and after any call, including one that threw. */
  stackPointer: number;
}

export interface OpInfo {
  /** inputs: -1 when variadic (at least minInputs); outputs: -1 when each node's sub-graphs decide;
   *  subgraphs: how many sub-graphs a node holds (cond 2, while_loop 2, fused_elementwise 1, others 0). */
  name: string; doc: string; inputs: number; minInputs: number; outputs: number; subgraphs: number;
  attrs: Array<{ name: string; type: string; required: boolean }>; differentiable: boolean;
}

/** A Keras-style layer or model. */
export declare class Layer {
  readonly className: string;
  readonly name: string;
  readonly built: boolean;
  readonly variables: Variable[];
  readonly weights: Variable[];
  readonly trainableWeights: Variable[];
  apply(x: TensorLike, options?: { training?: boolean }): Tensor;
  call(x: TensorLike, options?: { training?: boolean }): Tensor;
  countParams(): number;
  summary(): string;
  /** Keras' model.compile: what fitDataset and evaluateDataset train and measure with. Compiling again replaces it. */
  compile(config: CompileConfig): void;
  /**
   * Keras' fit over a dataset of [x, y] batches (TF.js' fitDataset): every batch through one traced train step
   * (its input signature is the dataset's elementSpec), validationData through a traced test step, the metrics
   * reset every epoch. Returns the History at once (not a promise; `await` on it works).
   */
  fitDataset(dataset: Dataset, options?: { epochs?: number; validationData?: Dataset }): History;
  /** One pass with training off: {loss, <metric>: value}. */
  evaluateDataset(dataset: Dataset): Record<string, number>;
  /** How many times fitDataset's train step and the test step were traced (2 and 1 after a first fit: the slots). */
  readonly fitTracingCounts: { train: number; test: number };
  dispose(): void;
}
export interface CompileConfig {
  optimizer: Optimizer;
  /** A tl.losses name. */
  loss: 'meanSquaredError' | 'binaryCrossentropy' | 'categoricalCrossentropy' | 'sparseCategoricalCrossentropy';
  fromLogits?: boolean;
  /** 'accuracy' / 'acc' (chosen from the loss), 'sparse_categorical_accuracy', 'binary_accuracy', 'mse' / 'mean_squared_error'. */
  metrics?: string[];
  /** The steps run as plain calls instead of tl.functions (Keras' run_eagerly). */
  runEagerly?: boolean;
}
/** keras.callbacks.History: per-epoch means under Keras' keys ('loss', each metric, 'val_loss', 'val_<metric>'). */
export interface History { epoch: number[]; history: Record<string, number[]>; seconds: number[]; }
export interface DenseConfig { units: number; activation?: string; useBias?: boolean; seed?: number; name?: string; }
export interface Conv2DConfig {
  filters: number; kernelSize?: number | [number, number]; strides?: number | [number, number];
  padding?: 'valid' | 'same'; activation?: string; useBias?: boolean; seed?: number; name?: string;
}
export interface PoolConfig { poolSize?: number | [number, number]; strides?: number | [number, number]; padding?: 'valid' | 'same'; name?: string; }

export declare class Optimizer {
  applyGradients(pairs: Array<[Tensor | null, Variable]>): void;
  minimize(f: () => Tensor, returnCost?: boolean, varList?: Variable[]): Tensor | null;
  getWeights(): Variable[];
  dispose(): void;
}

/** An in-memory scalar summary writer (tl.summary.scalarWriter()): records in tl::summary's JSON Lines format. */
export interface ScalarWriter {
  /** Appends one record (the step an integer, the value a number or a one-element tensor). */
  scalar(tag: string, value: number | Tensor, step: number): void;
  /** Copies of the records, in the order written. */
  records(): Array<{ step: number; tag: string; value: number; wall_time: number }>;
  /** The records as JSON Lines (NaN and infinities as strings). */
  toJSONL(): string;
  /**
   * Runs fn with this writer as the default (and `step`, when given, as the current step), like TF's
   * `with writer.as_default(step):`; the previous writer and step are restored afterwards, even if fn throws.
   */
  asDefault<T>(fn: () => T, step?: number): T;
  /** Throws InvalidArgument: a scalars-only writer has no histograms. */
  histogram(tag: string, values: Tensor | ArrayLike<number>, step: number): never;
  /** Throws InvalidArgument: a scalars-only writer has no graphs. */
  graph(fn: Savable, step?: number): never;
  /** Nothing to flush. */
  flush(): void;
}

/**
 * A TensorBoard event-file writer (tl.summary.createFileWriter(logdir), Node only): the same bytes as
 * tl::summary::create_file_writer, each record written through to the file.
 */
export interface EventFileWriter {
  /** The event file's path: <logdir>/events.out.tfevents.<unix seconds>.<host>. */
  readonly path: string;
  /** A float32 scalar (plugin "scalars"). */
  scalar(tag: string, value: number | Tensor, step: number): void;
  /** A histogram of the values in `buckets` (1 to 10000, default 30) equal-width buckets (plugin "histograms"); the values must be finite. */
  histogram(tag: string, values: Tensor | ArrayLike<number>, step: number, buckets?: number): void;
  /**
   * tf.summary.graph: the optimized graph (the one that runs) of a concrete function, a tl.function with exactly
   * one, or a loaded saved-model function, as a GraphDef (TensorBoard's Graphs tab); step 0 by default.
   */
  graph(fn: Savable, step?: number): void;
  /** Records are written through already: nothing to do. */
  flush(): void;
  /** Closes the file; later writes throw. */
  close(): void;
  /** As ScalarWriter.asDefault. */
  asDefault<T>(fn: () => T, step?: number): T;
}

/** A TensorBoard event file kept in memory (tl.summary.createMemoryFileWriter()), in any environment. */
export interface MemoryFileWriter {
  /** TensorBoard's name for the file: events.out.tfevents.<unix seconds>.<host>. */
  readonly fileName: string;
  /** A float32 scalar (plugin "scalars"). */
  scalar(tag: string, value: number | Tensor, step: number): void;
  /** A histogram of the values in `buckets` (1 to 10000, default 30) equal-width buckets (plugin "histograms"). */
  histogram(tag: string, values: Tensor | ArrayLike<number>, step: number, buckets?: number): void;
  /** As EventFileWriter.graph: a concrete function's optimized graph as a GraphDef; step 0 by default. */
  graph(fn: Savable, step?: number): void;
  /** The event file so far. */
  bytes(): Uint8Array;
  /** Nothing to flush. */
  flush(): void;
  /** As ScalarWriter.asDefault. */
  asDefault<T>(fn: () => T, step?: number): T;
}

/** One event read back from an event file (tl.summary.readEvents). */
export interface SummaryEvent {
  wallTime: number;
  step: number;
  /** The first event's "brain.Event:2". */
  fileVersion?: string;
  /** A graph event. */
  hasGraph?: boolean;
  /** A graph event's serialized GraphDef. */
  graphDef?: Uint8Array;
  tag?: string;
  /** "scalars" or "histograms". */
  plugin?: string;
  /** A scalar's value, or a histogram's [left, right, count] rows. */
  value?: number | Array<[number, number, number]>;
}

export declare class Metric {
  updateState(...inputs: TensorLike[]): void;
  result(): Tensor;
  resetState(): void;
  dispose(): void;
}

export declare class Dataset {
  map(fn: (...components: Tensor[]) => Tensor | Tensor[]): Dataset;
  filter(predicate: (...components: Tensor[]) => Tensor): Dataset;
  shuffle(bufferSize: number, seed?: number, reshuffleEachIteration?: boolean): Dataset;
  batch(batchSize: number, dropRemainder?: boolean): Dataset;
  paddedBatch(batchSize: number, paddedShapes?: number[][], paddingValues?: TensorLike[], dropRemainder?: boolean): Dataset;
  take(count: number): Dataset;
  skip(count: number): Dataset;
  repeat(count?: number): Dataset;
  enumerate(start?: number): Dataset;
  prefetch(bufferSize: number): Dataset;
  readonly elementSpec: Array<{ shape: number[]; dtype: DType }>;
  cardinality(): number;
  toString(): string;
  [Symbol.iterator](): Iterator<Tensor[]>;
  toArray(): Tensor[][];
  /** Eagerly a loop; inside tl.function one dataset_loop graph node. */
  forEach(body: (...components: Tensor[]) => void): void;
  forEachAsync(fn: (element: Tensor[]) => void): Promise<void>;
  dispose(): void;
}

export interface RaggedConfig {
  modes?: Array<'eager' | 'function' | 'signature' | 'relaxed' | 'loop' | 'bucketed'>;
  steps?: number; seed?: number; minLength?: number; maxLength?: number; features?: number; batchSize?: number;
  hiddenUnits?: number[]; learningRate?: number; optimizer?: 'adam' | 'sgd' | 'rmsprop'; buckets?: number[];
  examples?: number; maxRetracingWarnings?: number; optimize?: boolean;
  /** Steps every mode runs on a throwaway model before the measured run (0..100000, default 0: no warm-up). */
  warmupSteps?: number;
  /** Plan the generic graphs (signature, relaxed, loop) per input shape (default true); false runs them as TF 2.1
   *  did, every shape rule on every step. */
  specializePlans?: boolean;
  /** Give each traced mode's result a `savedModel`: its last step as tl.savedModel bytes (default false). */
  saveModels?: boolean;
}
/** One trace of a mode's function, as a progress report carries it. */
export interface RaggedRetraceReport {
  /** The step whose call traced. */
  step: number;
  /** Tracing + optimization + planning, µs. */
  traceUs: number;
  /** The new concrete function's pretty-printed signature. */
  signature: string;
  /** Why it traced ("first call", "arg 0 (x): dim 1 changed ..."). */
  reason: string;
}
export interface RaggedProgress {
  mode: string; modeIndex: number; stepsDone: number; stepsTotal: number; elapsedMs: number;
  /** Wall time of the warm-up before the first mode, ms (0 without one). */
  warmupMs: number;
  /** Index of the first step in stepUs / loss. */
  firstStep: number; stepUs: Float64Array; loss: Float32Array; tracedSteps: number[];
  /** The retraces since the previous report of this mode. */
  retraces: RaggedRetraceReport[];
}
/** The result document "tracelab.ragged/1" (docs/performance.md). */
export interface RaggedResult {
  format: string; config: Record<string, unknown>; cancelled: boolean;
  /** Wall time of the warm-up (config warmup_steps), ms; 0 without one. */
  warmup_ms: number;
  modes: Array<{
    mode: string; steps: number; total_ms: number; median_us: number; p99_us: number; steady_median_us: number;
    trace_count: number; traced_steps: number[];
    retraces: Array<{ step: number; reason: string; trace_us: number; signature: string }>;
    warnings: string[];
    concrete_functions: Array<{ signature: string; traced_nodes: number; optimized_nodes: number; passes: PassReport[];
                                graph?: string; traced_graph?: string; graph_json?: unknown; traced_graph_json?: unknown }>;
    heap: { check_step: number; bytes_at_check: number; bytes_at_end: number };
    step_us: number[]; loss: Array<number | null>;
    /** With config saveModels: the mode's last step ("train_step") as saved-model bytes; null for eager and loop. */
    savedModel?: Uint8Array | null;
  }>;
}

export declare class TracelabError extends Error {}
export declare class ShapeError extends TracelabError {}
export declare class DTypeError extends TracelabError {}
export declare class InvalidArgument extends TracelabError {}
export declare class OutOfMemory extends TracelabError {}
export declare class OperatorNotAllowedInGraphError extends TracelabError {}
/** AutoGraph could not make graph control flow of a construct: "cannot convert <construct> at line L, column C: ...". */
export declare class ConversionError extends TracelabError {
  /** The construct, e.g. "if statement", "while loop", "'&&' expression". */
  readonly construct: string | null;
  readonly line: number | null;
  /** Counted from 1. */
  readonly column: number | null;
  /** The filename given to convert / toCode, or null. */
  readonly filename: string | null;
}

/** What convert's `sourceMap` option receives mappings with (astring's interface; a source-map-js SourceMapGenerator). */
export interface SourceMapSink {
  addMapping(mapping: { generated: { line: number; column: number }; original: { line: number; column: number } | null;
                        source?: string; name?: string }): void;
}

/** A converted statement's state: get / set the variables it assigns (live ones first), for the graph. */
type GetState = (() => unknown[]) | null;
type SetState = ((values: unknown[]) => void) | null;

/**
 * tl.autograph — AutoGraph for JavaScript (docs/js-api.md, "AutoGraph"): `if`, loops, `&&`, `||`, `!` and `?:` over
 * tensors rewritten into runtime calls that build tl.cond / tl.whileLoop while tl.function traces.
 */
export interface Autograph {
  /**
   * Converts every function (and the top-level code) of module or script text; the result reaches the runtime via `tl`.
   * `marked`: only what a 'use autograph' directive marks (the whole text, or single functions); text with nothing
   * marked comes back as it is. `sourceMap`: receives a mapping per node, converted position -> original (a
   * source-map-js SourceMapGenerator, whose `file` names the source).
   */
  convert(source: string, options?: { filename?: string; sourceType?: 'module' | 'script'; marked?: boolean;
                                       sourceMap?: SourceMapSink }): string;
  /** The converted text of one function, from fn.toString() (its closure cannot be rebuilt from text). */
  toCode(fn: (...args: any[]) => unknown, options?: { filename?: string }): string;
  /** A converted, strict-mode copy of fn (not a method) whose free variables are `tl` and the entries of `scope`. */
  toFunction<F extends (...args: any[]) => unknown>(fn: F, scope?: Record<string, unknown>): F;
  ConversionError: typeof ConversionError;
  /**
   * At the top of a loop's body: each listed loop variable may change the dims given as null from one iteration to
   * the next while the loop is traced (TF's set_loop_options(shape_invariants=...)); a no-op eagerly.
   */
  setLoopOptions(options: { shapeInvariants?: Array<[Tensor, Array<number | null>]> }): void;

  // The runtime that converted code calls; `names` is comma-separated, `where` reads "<construct> at line L, column C".
  ifStmt(test: unknown, body: () => void, orelse: (() => void) | null, getState: GetState, setState: SetState,
         names: string, nouts: number, where: string): void;
  whileStmt(test: () => unknown, body: () => void, getState: GetState, setState: SetState, names: string, nouts: number,
            where: string): void;
  doWhileStmt(test: () => unknown, body: () => void, getState: GetState, setState: SetState, names: string, nouts: number,
              where: string): void;
  forOfStmt(iterable: unknown, extraTest: (() => unknown) | null, body: (item: any) => void, getState: GetState,
            setState: SetState, names: string, nouts: number, where: string): void;
  forInStmt(object: unknown, extraTest: (() => unknown) | null, body: (key: string) => void, getState: GetState,
            setState: SetState, names: string, nouts: number, where: string): void;
  ifExp<A, B>(test: unknown, whenTrue: () => A, whenFalse: () => B, where: string): A | B | Tensor;
  and<A, B>(a: A, right: () => B, where: string): A | B | Tensor;
  or<A, B>(a: A, right: () => B, where: string): A | B | Tensor;
  not(a: unknown, where: string): boolean | Tensor;
  /** The condition of a construct left as plain JavaScript: a symbolic tensor is a ConversionError with `reason`. */
  test<T>(value: T, where: string, reason: string): T | boolean;
  iter<T>(iterable: T, where: string, reason: string): T | Iterable<Tensor>;
}

type Binary = (a: TensorLike, b: TensorLike) => Tensor;
type Unary = (x: TensorLike) => Tensor;
type Reduce = (x: TensorLike, axis?: number | number[], keepDims?: boolean) => Tensor;

/** The API that loadTracelab() resolves to. */
export interface Tracelab {
  readonly version: string;
  opNames(): string[];
  opInfo(name: string): OpInfo;
  runOp(name: string, inputs: Array<{ dtype?: DType; shape: number[]; values: ArrayLike<number> }>, attrs?: object): any;
  /** Any registry op by name: tensors in, one tensor (or an array for multi-output ops) out. */
  op(name: string, inputs: TensorLike[], attrs?: object): Tensor | Tensor[];
  /** Every registry op as a camelCase function: tl.ops.clipByValue(x, lo, hi), tl.ops.reduceSum(x, {axes: [1]}). */
  ops: Record<string, (...args: any[]) => Tensor | Tensor[]>;

  /** A tensor of `values`; the dtype is inferred when not given (bool for booleans, int32 for Int32Array / Uint8Array). */
  tensor(values: TensorValues, shape?: number[], dtype?: DType): Tensor;
  scalar(value: number | boolean, dtype?: DType): Tensor;
  zeros(shape: number[], dtype?: DType): Tensor;
  ones(shape: number[], dtype?: DType): Tensor;
  fill(shape: number[], value: number, dtype?: DType): Tensor;
  range(start: number, stop: number, step?: number, dtype?: DType): Tensor;
  randomUniform(shape: number[], minval?: number, maxval?: number, dtype?: DType, seed?: number): Tensor;
  randomNormal(shape: number[], mean?: number, stdDev?: number, dtype?: DType, seed?: number): Tensor;

  add: Binary; sub: Binary; mul: Binary; div: Binary; pow: Binary; maximum: Binary; minimum: Binary;
  equal: Binary; less: Binary; greater: Binary; notEqual: Binary; lessEqual: Binary; greaterEqual: Binary;
  logicalAnd: Binary; logicalOr: Binary; logicalXor: Binary; logicalNot: Unary;
  neg: Unary; abs: Unary; exp: Unary; log: Unary; sqrt: Unary; square: Unary; relu: Unary; sigmoid: Unary; tanh: Unary;
  softmax(x: TensorLike, axis?: number): Tensor;
  logSoftmax(x: TensorLike, axis?: number): Tensor;
  matMul(a: TensorLike, b: TensorLike, transposeA?: boolean, transposeB?: boolean): Tensor;
  sum: Reduce; mean: Reduce; max: Reduce; min: Reduce;
  argMax(x: TensorLike, axis?: number): Tensor;
  reshape(x: TensorLike, shape: number[]): Tensor;
  transpose(x: TensorLike, perm?: number[]): Tensor;
  expandDims(x: TensorLike, axis?: number): Tensor;
  squeeze(x: TensorLike, axis?: number | number[]): Tensor;
  concat(tensors: TensorLike[], axis?: number): Tensor;
  stack(tensors: TensorLike[], axis?: number): Tensor;
  slice(x: TensorLike, begin: number[], size: number[]): Tensor;
  gather(x: TensorLike, indices: TensorLike, axis?: number): Tensor;
  oneHot(indices: TensorLike, depth: number, onValue?: number, offValue?: number): Tensor;
  cast(x: TensorLike, dtype: DType): Tensor;
  broadcastTo(x: TensorLike, shape: number[]): Tensor;
  where(condition: TensorLike, a: TensorLike, b: TensorLike): Tensor;
  clipByValue(x: TensorLike, lo: TensorLike, hi: TensorLike): Tensor;
  zerosLike: Unary; onesLike: Unary; stopGradient: Unary;
  conv2d(x: TensorLike, filter: TensorLike, strides?: number | [number, number], pad?: 'valid' | 'same'): Tensor;
  maxPool(x: TensorLike, filterSize: number | [number, number], strides?: number | [number, number], pad?: 'valid' | 'same'): Tensor;
  avgPool(x: TensorLike, filterSize: number | [number, number], strides?: number | [number, number], pad?: 'valid' | 'same'): Tensor;

  tidy<T>(fn: () => T): T;
  keep(tensor: Tensor): Tensor;
  dispose(value: unknown): void;
  memory(): Memory;
  /** Every log message (tl.print output, retracing warnings); null restores the console. */
  setLogHandler(handler: ((level: 'print' | 'info' | 'warning', text: string) => void) | null): void;
  /** tf.config: while runFunctionsEagerly(true), every tl.function runs fn on each call as plain JavaScript (no trace). */
  config: { runFunctionsEagerly(enabled: boolean): void; functionsRunEagerly(): boolean };

  Tensor: typeof Tensor;
  Variable: typeof Variable;
  GradientTape: typeof GradientTape;
  TensorSpec: typeof TensorSpec;
  variable(initial: TensorLike, trainable?: boolean, name?: string): Variable;
  grads(f: (...xs: Tensor[]) => Tensor): (xs: Tensor[]) => Array<Tensor | null>;
  valueAndGrads(f: (...xs: Tensor[]) => Tensor): (xs: Tensor[]) => { value: Tensor; grads: Array<Tensor | null> };
  variableGrads(f: () => Tensor, varList?: Variable[]): { value: Tensor; grads: Record<string, Tensor> };

  function<R = Tensor>(fn: (...args: any[]) => R, options?: FunctionOptions): TracedFunction<R>;
  print(...args: Array<Tensor | string | number | boolean>): void;
  /**
   * tf.debugging's assertions as graph ops (TF.js has none). Eagerly they throw InvalidArgument at once; inside a
   * tl.function the trace succeeds and each call checks its own values, throwing on the bad call only (the message,
   * the condition and the first `summarize` values, default 3). assertRank is decided by the shape: while tracing.
   */
  debugging: {
    assertEqual(x: TensorLike, y: TensorLike, message?: string, summarize?: number): void;
    assertLess(x: TensorLike, y: TensorLike, message?: string, summarize?: number): void;
    assertLessEqual(x: TensorLike, y: TensorLike, message?: string, summarize?: number): void;
    assertGreater(x: TensorLike, y: TensorLike, message?: string, summarize?: number): void;
    assertGreaterEqual(x: TensorLike, y: TensorLike, message?: string, summarize?: number): void;
    assertPositive(x: TensorLike, message?: string, summarize?: number): void;
    assertNonNegative(x: TensorLike, message?: string, summarize?: number): void;
    /** |x - y| <= atol + rtol * |y| elementwise, float32; rtol and atol default to 10 float32 epsilons. */
    assertNear(x: TensorLike, y: TensorLike, rtol?: number, atol?: number, message?: string, summarize?: number): void;
    assertRank(x: TensorLike, rank: number, message?: string): void;
    /** tf.Assert: every element of the bool condition must be true; the error shows `data`'s first values. */
    assert(condition: TensorLike, message: string, data?: Tensor[], summarize?: number): void;
  };
  cond<R extends Tensor | Tensor[]>(pred: Tensor, trueFn: () => R, falseFn: () => R): R;
  whileLoop(cond: (...vars: Tensor[]) => Tensor, body: (...vars: Tensor[]) => Tensor[], loopVars: Tensor[],
            options?: { maximumIterations?: number }): Tensor[];

  layers: {
    dense(config: DenseConfig): Layer;
    conv2d(config: Conv2DConfig): Layer;
    maxPooling2d(config?: PoolConfig): Layer;
    averagePooling2d(config?: PoolConfig): Layer;
    flatten(config?: { name?: string }): Layer;
    dropout(config: { rate: number; seed?: number; name?: string }): Layer;
    simpleRNN(config: { units: number; activation?: string; returnSequences?: boolean; seed?: number; name?: string }): Layer;
    Layer: typeof Layer;
  };
  sequential(config?: { layers?: Layer[]; name?: string }): Layer;
  losses: Record<'meanSquaredError' | 'binaryCrossentropy' | 'categoricalCrossentropy' | 'sparseCategoricalCrossentropy',
                 (labels: TensorLike, predictions: TensorLike, options?: { fromLogits?: boolean }) => Tensor>;
  train: {
    sgd(learningRate?: number): Optimizer;
    momentum(learningRate: number, momentum: number, useNesterov?: boolean): Optimizer;
    adam(learningRate?: number, beta1?: number, beta2?: number, epsilon?: number): Optimizer;
    rmsprop(learningRate?: number, decay?: number, momentum?: number, epsilon?: number): Optimizer;
    Optimizer: typeof Optimizer;
  };
  metrics: {
    mean(config?: { name?: string }): Metric;
    meanSquaredError(config?: { name?: string }): Metric;
    binaryAccuracy(config?: { threshold?: number; name?: string }): Metric;
    sparseCategoricalAccuracy(config?: { name?: string }): Metric;
  };
  /** tf.saved_model: concrete functions and the variables they capture as bytes, loadable without the code. */
  savedModel: {
    /** The saved model's bytes; InvalidArgument for a tl.function with no or several concrete functions. */
    save(functions: Record<string, Savable>): Uint8Array;
    /** Loads bytes from save() (or tl::saved_model::save in C++); corrupt bytes throw InvalidArgument. */
    load(bytes: ArrayBuffer | Uint8Array): SavedModel;
  };
  checkpoint: {
    save(variables: Variable[]): Uint8Array;
    restore(variables: Variable[], bytes: ArrayBuffer | Uint8Array): void;
  };
  /** tf.summary: writers (in memory, or TensorBoard event files in Node), a default-writer scope and a current step. */
  summary: {
    scalarWriter(): ScalarWriter;
    /** tf.summary.create_file_writer (Node only): a new event file in `logdir`, created with its parents. */
    createFileWriter(logdir: string): EventFileWriter;
    /** An event file kept in memory; `host` goes into its file name (default "tracelab"). */
    createMemoryFileWriter(host?: string): MemoryFileWriter;
    /** The events of an event file's bytes; throws InvalidArgument for a wrong CRC, leaves out a cut-short tail. */
    readEvents(bytes: Uint8Array): SummaryEvent[];
    /**
     * tf.summary.histogram to the default writer, at `step` or the current step; false when no writer is the default.
     * Throws InvalidArgument from a scalars-only writer, or when there is a default writer but no step.
     */
    histogram(tag: string, values: Tensor | ArrayLike<number>, step?: number): boolean;
    /**
     * tf.summary.graph: the optimized graph of a concrete function (a tl.function with exactly one, or a loaded
     * saved-model function) to the default writer, at the current step or 0; false when no writer is the default.
     * Throws InvalidArgument from a scalars-only writer.
     */
    graph(fn: Savable): boolean;
    /**
     * Writes to the default writer (ScalarWriter.asDefault) at `step`, or at the current step (setStep) when omitted.
     * true when written; false, writing nothing, when no writer is the default (as tf.summary.scalar). Throws
     * InvalidArgument when there is a default writer but no step.
     */
    scalar(tag: string, value: number | Tensor, step?: number): boolean;
    /** tf.summary.experimental.set_step: the step scalar() uses when given none; null for none. */
    setStep(step: number | null): void;
    /** The current step, or null. */
    getStep(): number | null;
  };
  data: {
    fromTensorSlices(components: TensorLike | TensorLike[]): Dataset;
    fromGenerator(generator: () => Iterator<TensorLike | TensorLike[]>, outputSignature: TensorSpec[]): Dataset;
    range(start: number, stop?: number, step?: number): Dataset;
    Dataset: typeof Dataset;
  };
  experiments: {
    runRagged(config?: RaggedConfig, options?: {
      onProgress?: (report: RaggedProgress) => boolean | void; progressEvery?: number; includeGraphs?: boolean;
    }): RaggedResult;
    raggedData(config?: RaggedConfig): Array<{ length: number; x: Float32Array; y: Float32Array }>;
    raggedKernels(config?: RaggedConfig): Float32Array[];
    /**
     * Calls a tl.function `steps` times from inside the core, cycling through the argument lists, and times each
     * call there (µs per call, results released inside the timed call).
     */
    timeCalls(fn: TracedFunction<unknown>, argumentLists: Tensor[][], steps: number): Float64Array;
  };

  TracelabError: typeof TracelabError;
  ShapeError: typeof ShapeError;
  DTypeError: typeof DTypeError;
  InvalidArgument: typeof InvalidArgument;
  OutOfMemory: typeof OutOfMemory;
  OperatorNotAllowedInGraphError: typeof OperatorNotAllowedInGraphError;
  ConversionError: typeof ConversionError;
  /** AutoGraph: JavaScript control flow over tensors as graph control flow. */
  autograph: Autograph;
}

/** Loads the WASM core (browser, worker or Node >= 20, no flags) and returns the API. */
/** Loads the core; `autograph: false` leaves out AutoGraph's converter (convert / toCode / toFunction then throw). */
export declare function loadTracelab(options?: { autograph?: boolean }): Promise<Tracelab>;
