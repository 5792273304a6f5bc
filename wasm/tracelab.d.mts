// TypeScript declarations of Tracelab's JavaScript API (wasm/tracelab.mjs; editors pick this file up next to it).
// scripts/reference_js.sh turns them into the HTML reference (build/api/js/index.html); docs/js-api.md is the guide.
//
// Every options or config object declared here lists all the keys its API accepts: at run time a key not listed is an
// InvalidArgument naming it and the accepted ones (never ignored), as is a value of the wrong kind. Shapes must hold
// non-negative integers (null / -1 for "any size" only in TensorSpecs and padded shapes), dtypes be DType, axes
// integers; each bad one is an InvalidArgument naming the API and the argument's path (docs/js-api.md, "Shapes,
// dtypes, axes and options").

/** 'float32', 'int32' or 'bool'. */
export type DType = 'float32' | 'int32' | 'bool';
/**
 * Values accepted where a tensor is expected: a tensor, a variable (read now), a number, a boolean, nested arrays or
 * a typed array (docs/js-api.md, "Values that become tensors"); anything else throws, naming the value's path.
 */
export type TensorLike = Tensor | Variable | TensorValues;
/** What tl.tensor converts: numbers and booleans, nested arrays of equal lengths, typed arrays (also innermost). */
export type TensorValues = number | boolean | NestedArray | InputTypedArray;
/**
 * Nested arrays of numbers or booleans, one dim per level; the innermost level may be a typed array. Ragged nesting
 * (`[[1, 2], [3]]`) is a ShapeError.
 */
export type NestedArray = (number | boolean)[] | (NestedArray | InputTypedArray)[];
/** Typed arrays tl.tensor accepts: Int32Array, Uint8Array and Uint8ClampedArray make int32 tensors, the others float32. */
export type InputTypedArray = Float32Array | Float64Array | Int8Array | Int16Array | Int32Array | Uint8Array |
  Uint8ClampedArray | Uint16Array | Uint32Array;
/** The values dataSync() copies out: Float32Array (float32), Int32Array (int32) or Uint8Array (bool). */
export type TypedArray = Float32Array | Int32Array | Uint8Array;

/**
 * A tensor (tf.Tensor): shape, dtype and a handle to values held by the WASM core. Make one with tl.tensor and the
 * other creation functions; free it with dispose() or inside tl.tidy. Every op method below is the tl function of the
 * same name with this tensor as the first argument (`x.add(y)` is `tl.add(x, y)`) unless its comment says otherwise;
 * an argument that is not a tensor converts as tl.tensor's values do, taking this tensor's dtype, and a tensor of
 * another dtype in a binary op is promoted as TF.js promotes it (bool < int32 < float32: `int32.add(float32)` is
 * float32). A method of a disposed tensor throws InvalidArgument. A tl.Variable is a Tensor too.
 */
export declare class Tensor {
  /** The dims, e.g. [2, 3]. */
  readonly shape: number[];
  /** The element type: 'float32', 'int32' or 'bool'. */
  readonly dtype: DType;
  /** True while a tl.function traces: it stands for a graph value and has no data. */
  readonly symbolic: boolean;
  /** True after dispose(). */
  readonly isDisposed: boolean;
  /** The number of dims (shape.length). */
  readonly rank: number;
  /** The number of elements (the product of the dims). */
  readonly size: number;
  /**
   * The values, copied out of WASM memory (tf.Tensor.dataSync). Throws OperatorNotAllowedInGraphError for a
   * symbolic tensor (inside a tl.function's trace).
   */
  dataSync(): TypedArray;
  /** dataSync() as a promise (tf.Tensor.data); the copy is made at once. */
  data(): Promise<TypedArray>;
  /** The values as nested arrays (a scalar as a number or boolean); throws for a symbolic tensor as dataSync does. */
  arraySync(): any;
  /** arraySync() as a promise (tf.Tensor.array). */
  array(): Promise<any>;
  /** TensorFlow's printed form, e.g. "tl.Tensor(shape=(2,), dtype=float32, values=[1. 2.])". */
  toString(): string;
  /** Writes toString() to the console, or to the handler of tl.setLogHandler. */
  print(): void;
  /** Releases the values (idempotent). */
  dispose(): void;
  /** this + b, element-wise with broadcasting (tf.add). */
  add(b: TensorLike): Tensor;
  /** this - b, element-wise with broadcasting (tf.sub). */
  sub(b: TensorLike): Tensor;
  /** this * b, element-wise with broadcasting (tf.mul). */
  mul(b: TensorLike): Tensor;
  /** this / b, element-wise with broadcasting (tf.div). */
  div(b: TensorLike): Tensor;
  /** this ** b, element-wise with broadcasting (tf.pow). */
  pow(b: TensorLike): Tensor;
  /** The larger of this and b, element-wise (tf.maximum). */
  maximum(b: TensorLike): Tensor;
  /** The smaller of this and b, element-wise (tf.minimum). */
  minimum(b: TensorLike): Tensor;
  /** this == b element-wise, a bool tensor (tf.equal). */
  equal(b: TensorLike): Tensor;
  /** this < b element-wise, a bool tensor (tf.less). */
  less(b: TensorLike): Tensor;
  /** this > b element-wise, a bool tensor (tf.greater). */
  greater(b: TensorLike): Tensor;
  /** this != b element-wise, a bool tensor (tf.notEqual). */
  notEqual(b: TensorLike): Tensor;
  /** this <= b element-wise, a bool tensor (tf.lessEqual). */
  lessEqual(b: TensorLike): Tensor;
  /** this >= b element-wise, a bool tensor (tf.greaterEqual). */
  greaterEqual(b: TensorLike): Tensor;
  /** Logical and of two bool tensors (tf.logicalAnd). */
  logicalAnd(b: TensorLike): Tensor;
  /** Logical or of two bool tensors (tf.logicalOr). */
  logicalOr(b: TensorLike): Tensor;
  /** Logical exclusive or of two bool tensors (tf.logicalXor). */
  logicalXor(b: TensorLike): Tensor;
  /** Logical not of a bool tensor (tf.logicalNot). */
  logicalNot(): Tensor;
  /** -this (tf.neg). */
  neg(): Tensor;
  /** |this| (tf.abs). */
  abs(): Tensor;
  /** e ** this (tf.exp). */
  exp(): Tensor;
  /** The natural logarithm (tf.log). */
  log(): Tensor;
  /** The square root (tf.sqrt). */
  sqrt(): Tensor;
  /** this * this (tf.square). */
  square(): Tensor;
  /** max(this, 0) (tf.relu). */
  relu(): Tensor;
  /** 1 / (1 + e ** -this) (tf.sigmoid). */
  sigmoid(): Tensor;
  /** The hyperbolic tangent (tf.tanh). */
  tanh(): Tensor;
  /** Softmax along `axis` (default the last) (tf.softmax). */
  softmax(axis?: number): Tensor;
  /** Log of the softmax along `axis` (default the last) (tf.logSoftmax). */
  logSoftmax(axis?: number): Tensor;
  /** The matrix product with b, either transposed first (tf.matMul); mismatched inner dims are a ShapeError. */
  matMul(b: TensorLike, transposeA?: boolean, transposeB?: boolean): Tensor;
  /** The sum over `axis` (default: every axis) (tf.sum). */
  sum(axis?: number | number[], keepDims?: boolean): Tensor;
  /** The mean over `axis` (default: every axis) (tf.mean). */
  mean(axis?: number | number[], keepDims?: boolean): Tensor;
  /** The maximum over `axis` (default: every axis) (tf.max). */
  max(axis?: number | number[], keepDims?: boolean): Tensor;
  /** The minimum over `axis` (default: every axis) (tf.min). */
  min(axis?: number | number[], keepDims?: boolean): Tensor;
  /** The index of the largest value along `axis` (default 0), an int32 tensor (tf.argMax). */
  argMax(axis?: number): Tensor;
  /** The same values in another shape; one dim may be -1 (tf.reshape). Eagerly it shares this tensor's values. */
  reshape(shape: number[]): Tensor;
  /** The dims permuted by `perm` (default: reversed) (tf.transpose). */
  transpose(perm?: number[]): Tensor;
  /** A dim of 1 inserted at `axis` (default 0) (tf.expandDims). */
  expandDims(axis?: number): Tensor;
  /** Dims of 1 removed: those in `axis`, or all (tf.squeeze). */
  squeeze(axis?: number | number[]): Tensor;
  /** The block starting at `begin` of `size` (a size of -1: to the end) (tf.slice). */
  slice(begin: number[], size: number[]): Tensor;
  /** The slices at `indices` along `axis` (default 0) (tf.gather). */
  gather(indices: TensorLike, axis?: number): Tensor;
  /** The values converted to `dtype` (tf.cast). */
  cast(dtype: DType): Tensor;
  /** The values broadcast to `shape` (tf.broadcastTo). */
  broadcastTo(shape: number[]): Tensor;
  /** The values clipped to [lo, hi] (tf.clipByValue). */
  clipByValue(lo: TensorLike, hi: TensorLike): Tensor;
  /** The same values, with no gradient flowing through (tf.stopGradient). */
  stopGradient(): Tensor;
  /** tl.oneHot(this, depth, onValue, offValue): this holds int32 indices. */
  oneHot(depth: number, onValue?: number, offValue?: number): Tensor;
  /** Zeros of this shape and dtype (tf.zerosLike). */
  zerosLike(): Tensor;
  /** Ones of this shape and dtype (tf.onesLike). */
  onesLike(): Tensor;
  /** tl.conv2d(this, filter, strides, pad): this is NHWC, the filter [height, width, in, out]. */
  conv2d(filter: TensorLike, strides?: number | [number, number], pad?: 'valid' | 'same'): Tensor;
  /** tl.maxPool(this, filterSize, strides, pad). */
  maxPool(filterSize: number | [number, number], strides?: number | [number, number], pad?: 'valid' | 'same'): Tensor;
  /** tl.avgPool(this, filterSize, strides, pad). */
  avgPool(filterSize: number | [number, number], strides?: number | [number, number], pad?: 'valid' | 'same'): Tensor;
  /** tl.concat([this, ...others], axis), as TF.js' x.concat: `others` is one tensor or an array of them. */
  concat(others: TensorLike | TensorLike[], axis?: number): Tensor;
  /** tl.stack([this, ...others], axis), as TF.js' x.stack: `others` is one tensor or an array of them. */
  stack(others: TensorLike | TensorLike[], axis?: number): Tensor;
  /** tl.where(condition, this, other), as TF.js' x.where: this where condition is true, else other. */
  where(condition: TensorLike, other: TensorLike): Tensor;
  /** The values as a 1-D tensor (tf.Tensor.as1D). */
  as1D(): Tensor;
  /** The values reshaped to [rows, columns] (tf.Tensor.as2D). */
  as2D(rows: number, columns: number): Tensor;
  /** The values reshaped to [rows, columns, depth] (tf.Tensor.as3D). */
  as3D(rows: number, columns: number, depth: number): Tensor;
  /** The values reshaped to [rows, columns, depth, depth2] (tf.Tensor.as4D). */
  as4D(rows: number, columns: number, depth: number, depth2: number): Tensor;
  /** The values reshaped to [rows, columns, depth, depth2, depth3] (tf.Tensor.as5D). */
  as5D(rows: number, columns: number, depth: number, depth2: number, depth3: number): Tensor;
  /** The one value as a scalar (tf.Tensor.asScalar); a tensor of another size is an InvalidArgument. */
  asScalar(): Tensor;
  /** The values converted to `dtype`: cast(dtype) (tf.Tensor.asType). */
  asType(dtype: DType): Tensor;
  /** The values as a 1-D tensor (tf.Tensor.flatten). */
  flatten(): Tensor;
  /** The values reshaped to `other`'s shape (tf.Tensor.reshapeAs). */
  reshapeAs(other: Tensor): Tensor;
  /** cast('float32') (tf.Tensor.toFloat). */
  toFloat(): Tensor;
  /** cast('int32') (tf.Tensor.toInt). */
  toInt(): Tensor;
  /** cast('bool') (tf.Tensor.toBool). */
  toBool(): Tensor;
  /** A new variable holding these values (cast to `dtype` when given): tl.variable(this, trainable, name). */
  variable(trainable?: boolean, name?: string, dtype?: DType): Variable;
  /** tl.tile(this, reps). */
  tile(reps: number[]): Tensor;
  /** tl.pad(this, paddings, constantValue). */
  pad(paddings: Array<[number, number]>, constantValue?: number): Tensor;
  /** tl.split(this, numOrSizeSplits, axis). */
  split(numOrSizeSplits: number | number[], axis?: number): Tensor[];
  /** tl.unstack(this, axis). */
  unstack(axis?: number): Tensor[];
  /** tl.batchNorm(this, mean, variance, offset, scale, varianceEpsilon). */
  batchNorm(mean: TensorLike, variance: TensorLike, offset?: TensorLike | null, scale?: TensorLike | null,
            varianceEpsilon?: number): Tensor;
  /** tl.norm(this, ord, axis, keepDims). */
  norm(ord?: NormOrder, axis?: number | number[] | null, keepDims?: boolean): Tensor;
  /** tl.leakyRelu(this, alpha). */
  leakyRelu(alpha?: number): Tensor;
  /** tl.elu(this). */
  elu(): Tensor;
  /** tl.selu(this). */
  selu(): Tensor;
  /** tl.floor(this). */
  floor(): Tensor;
  /** tl.ceil(this). */
  ceil(): Tensor;
  /** tl.round(this): half to even. */
  round(): Tensor;
  /** tl.sign(this). */
  sign(): Tensor;
  /** tl.topk(this, k, sorted). */
  topk(k?: number, sorted?: boolean): TopK;
  /** tl.cumsum(this, axis, exclusive, reverse). */
  cumsum(axis?: number, exclusive?: boolean, reverse?: boolean): Tensor;
  /** tl.dot(this, b). */
  dot(b: TensorLike): Tensor;
  // Methods of the math group.
  /** The sine (tf.sin). */
  sin(): Tensor;
  /** The cosine (tf.cos). */
  cos(): Tensor;
  /** The tangent (tf.tan). */
  tan(): Tensor;
  /** The arcsine; NaN outside [-1, 1] (tf.asin). */
  asin(): Tensor;
  /** The arccosine; NaN outside [-1, 1] (tf.acos). */
  acos(): Tensor;
  /** The arctangent (tf.atan). */
  atan(): Tensor;
  /** The hyperbolic sine (tf.sinh). */
  sinh(): Tensor;
  /** The hyperbolic cosine (tf.cosh). */
  cosh(): Tensor;
  /** The inverse hyperbolic sine (tf.asinh). */
  asinh(): Tensor;
  /** The inverse hyperbolic cosine; NaN below 1 (tf.acosh). */
  acosh(): Tensor;
  /** The inverse hyperbolic tangent; NaN outside [-1, 1] (tf.atanh). */
  atanh(): Tensor;
  /** The error function (tf.erf). */
  erf(): Tensor;
  /** e ** this - 1, exact near 0 (tf.expm1). */
  expm1(): Tensor;
  /** ln(1 + this), exact near 0 (tf.log1p). */
  log1p(): Tensor;
  /** 1 / this (tf.reciprocal). */
  reciprocal(): Tensor;
  /** 1 / sqrt(this) (tf.rsqrt). */
  rsqrt(): Tensor;
  /** ln(1 + e ** this), without overflow (tf.softplus). */
  softplus(): Tensor;
  /** A bool tensor: true where this is NaN (tf.isNaN). */
  isNaN(): Tensor;
  /** A bool tensor: true where this is +Infinity or -Infinity (tf.isInf). */
  isInf(): Tensor;
  /** A bool tensor: true where this is neither NaN nor infinite (tf.isFinite). */
  isFinite(): Tensor;
  /** atan2(this, b): the angle of the point (b, this) (tf.atan2). */
  atan2(b: TensorLike): Tensor;
  /** this mod b, with the sign of b (tf.mod). */
  mod(b: TensorLike): Tensor;
  /** floor(this / b), float32 for float32 (tf.floorDiv). */
  floorDiv(b: TensorLike): Tensor;
  /** (this - b) ** 2 (tf.squaredDifference). */
  squaredDifference(b: TensorLike): Tensor;
  /** this / b, but 0 where b is 0 (tf.divNoNan). */
  divNoNan(b: TensorLike): Tensor;
  /** tl.logSigmoid(this). */
  logSigmoid(): Tensor;
  /** tl.prelu(this, alpha). */
  prelu(alpha: TensorLike): Tensor;
  /** tl.relu6(this). */
  relu6(): Tensor;
  /** tl.step(this, alpha). */
  step(alpha?: number): Tensor;
  /** tl.prod(this, axis, keepDims). */
  prod(axis?: number | number[] | null, keepDims?: boolean): Tensor;
  /** tl.all(this, axis, keepDims). */
  all(axis?: number | number[] | null, keepDims?: boolean): Tensor;
  /** tl.any(this, axis, keepDims). */
  any(axis?: number | number[] | null, keepDims?: boolean): Tensor;
  /** tl.argMin(this, axis). */
  argMin(axis?: number): Tensor;
  /** tl.logSumExp(this, axis, keepDims). */
  logSumExp(axis?: number | number[] | null, keepDims?: boolean): Tensor;
  /** tl.cumprod(this, axis, exclusive, reverse). */
  cumprod(axis?: number, exclusive?: boolean, reverse?: boolean): Tensor;
  /** tl.euclideanNorm(this, axis, keepDims). */
  euclideanNorm(axis?: number | number[] | null, keepDims?: boolean): Tensor;
  // Methods of the conv group.
  /** tl.conv1d(this, filter, stride, pad, dataFormat, dilation, dimRoundingMode) (tf.Tensor.conv1d). */
  conv1d(filter: TensorLike, stride: number, pad: ConvPad, dataFormat?: 'NWC', dilation?: number, dimRoundingMode?: DimRoundingMode): Tensor;
  /** tl.conv2dTranspose(this, filter, outputShape, strides, pad, dimRoundingMode) (tf.Tensor.conv2dTranspose). */
  conv2dTranspose(filter: TensorLike, outputShape: number[], strides: number | [number, number], pad: ConvPad,
                  dimRoundingMode?: DimRoundingMode): Tensor;
  /** tl.depthwiseConv2d(this, filter, strides, pad, dataFormat, dilations, dimRoundingMode) (tf.Tensor.depthwiseConv2d). */
  depthwiseConv2d(filter: TensorLike, strides: number | [number, number], pad: ConvPad, dataFormat?: 'NHWC',
                  dilations?: number | [number, number], dimRoundingMode?: DimRoundingMode): Tensor;
  /** tl.separableConv2d(this, depthwiseFilter, pointwiseFilter, strides, pad, dilation, dataFormat) (tf.Tensor.separableConv2d). */
  separableConv2d(depthwiseFilter: TensorLike, pointwiseFilter: TensorLike, strides: number | [number, number], pad: 'valid' | 'same',
                  dilation?: number | [number, number], dataFormat?: 'NHWC'): Tensor;
  /** tl.pool(this, windowShape, poolingType, pad, dilations, strides, dimRoundingMode) (tf.Tensor.pool). */
  pool(windowShape: number | [number, number], poolingType: 'max' | 'avg', pad: ConvPad, dilations?: number | [number, number],
       strides?: number | [number, number], dimRoundingMode?: DimRoundingMode): Tensor;
  /** tl.dilation2d(this, filter, strides, pad, dilations, dataFormat) (tf.Tensor.dilation2d). */
  dilation2d(filter: TensorLike, strides: number | [number, number], pad: 'valid' | 'same', dilations?: number | [number, number],
             dataFormat?: 'NHWC'): Tensor;
  /** tl.localResponseNormalization(this, depthRadius, bias, alpha, beta) (tf.Tensor.localResponseNormalization). */
  localResponseNormalization(depthRadius?: number, bias?: number, alpha?: number, beta?: number): Tensor;
  // Methods of the image group.
  /** tl.image.resizeBilinear(this, size, alignCorners, halfPixelCenters) (tf.Tensor.resizeBilinear). */
  resizeBilinear(size: [number, number], alignCorners?: boolean, halfPixelCenters?: boolean): Tensor;
  /** tl.image.resizeNearestNeighbor(this, size, alignCorners, halfPixelCenters) (tf.Tensor.resizeNearestNeighbor). */
  resizeNearestNeighbor(size: [number, number], alignCorners?: boolean, halfPixelCenters?: boolean): Tensor;
  // Methods of the slice group.
  /** tl.reverse(this, axis) (tf.Tensor.reverse). */
  reverse(axis?: number | number[] | null): Tensor;
  /** tl.stridedSlice(this, begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask). */
  stridedSlice(begin: number[], end: number[], strides?: number[] | null, beginMask?: number, endMask?: number,
               ellipsisMask?: number, newAxisMask?: number, shrinkAxisMask?: number): Tensor;
  /** tl.mirrorPad(this, paddings, mode) (tf.Tensor.mirrorPad). */
  mirrorPad(paddings: Array<[number, number]>, mode: 'reflect' | 'symmetric'): Tensor;
  /** tl.spaceToBatchND(this, blockShape, paddings) (tf.Tensor.spaceToBatchND). */
  spaceToBatchND(blockShape: number[], paddings: Array<[number, number]>): Tensor;
  /** tl.batchToSpaceND(this, blockShape, crops) (tf.Tensor.batchToSpaceND). */
  batchToSpaceND(blockShape: number[], crops: Array<[number, number]>): Tensor;
  /** tl.depthToSpace(this, blockSize, dataFormat) (tf.Tensor.depthToSpace). */
  depthToSpace(blockSize: number, dataFormat?: 'NHWC' | 'NCHW'): Tensor;
  // Methods of the gather group.
  /** tl.unsortedSegmentSum(this, segmentIds, numSegments) (tf.Tensor.unsortedSegmentSum). */
  unsortedSegmentSum(segmentIds: TensorLike, numSegments: number): Tensor;
  /** tl.unique(this, axis) (tf.Tensor.unique): eager only. */
  unique(axis?: number): UniqueResult;
  // Methods of the creation group.
  /** A new tensor of the same values (tf.clone); traced as an identity. */
  clone(): Tensor;
  /** A TensorBuffer holding a copy of the values (x.buffer() of TF.js). */
  buffer(): Promise<TensorBuffer>;
  /** A TensorBuffer holding a copy of the values, synchronously (x.bufferSync() of TF.js). */
  bufferSync(): TensorBuffer;
  // Methods of the misc group.
  /** The bytes of the values: 4 per float32 or int32 element, 1 per bool (x.bytes() of TF.js). */
  bytes(): Promise<Uint8Array>;
  /** Throws an InvalidArgument when the tensor was disposed (x.throwIfDisposed() of TF.js). */
  throwIfDisposed(): void;
}

/**
 * A mutable tensor with a name (tf.Variable), made with tl.variable: a Tensor that goes wherever a tensor goes. Its
 * methods, dataSync, toString and every op read its current value (after assign, the new one); inside a tl.function
 * that read is a read node of the graph, so a call after assign() sees the new value without retracing. tl.tidy does
 * not dispose it; dispose() and tl.dispose do.
 */
export declare class Variable extends Tensor {
  /** The name given to tl.variable ('Variable' by default). */
  readonly name: string;
  /** The dims; fixed for the variable's life. */
  readonly shape: number[];
  /** The element type; fixed for the variable's life. */
  readonly dtype: DType;
  /** Whether tapes watch it on their own and optimizers' minimize picks it by default. */
  readonly trainable: boolean;
  /** The current value (inside tl.function, a read node of the graph). */
  read(): Tensor;
  /** Replaces the value (same shape and dtype; a ShapeError / DTypeError leaves it unchanged). */
  assign(value: TensorLike): void;
  /** Adds `delta` to the value (tf.Variable.assign_add); errors as assign. */
  assignAdd(delta: TensorLike): void;
  /** Subtracts `delta` from the value (tf.Variable.assign_sub); errors as assign. */
  assignSub(delta: TensorLike): void;
  /** Releases the variable; a graph that captured it keeps its own reference. */
  dispose(): void;
}

/** Records ops from construction until stopRecording() or dispose() (tf.GradientTape). */
export declare class GradientTape {
  /**
   * Starts recording. `persistent`: gradient() may be called more than once (default false).
   * `watchAccessedVariables`: trainable variables read while recording are watched on their own (default true).
   */
  constructor(options?: { persistent?: boolean; watchAccessedVariables?: boolean });
  /** Watches tensors or variables so that gradient() can differentiate with respect to them. */
  watch(...sources: Array<Tensor | Variable | Array<Tensor | Variable>>): void;
  /** Stops recording; gradient() still works for what was recorded. */
  stopRecording(): void;
  /**
   * d target / d sources; null where the target does not depend on a source (unless unconnectedGradients 'zero').
   * A second call on a tape that is not persistent throws InvalidArgument.
   */
  gradient(target: Tensor, sources: Tensor | Variable, options?: { unconnectedGradients?: 'none' | 'zero' }): Tensor | null;
  gradient(target: Tensor, sources: Array<Tensor | Variable>, options?: { unconnectedGradients?: 'none' | 'zero' }): Array<Tensor | null>;
  /** The variables read while recording, in first-read order. */
  watchedVariables(): Variable[];
  /** Releases the tape and what it recorded. */
  dispose(): void;
}

/** The shape (null = any size) and dtype an input signature accepts (tf.TensorSpec). */
export declare class TensorSpec {
  /** `shape` with null (or -1) for a dim of any size; `dtype` float32 by default; `name` names the argument. */
  constructor(shape: Array<number | null>, dtype?: DType, name?: string | null);
  /** The dims, -1 for any size. */
  readonly shape: number[];
  /** The accepted dtype. */
  readonly dtype: DType;
}

/** One call of a tl.function, as its call history keeps it (index counts every call, recorded or not). */
export interface CallRecord {
  /** The call's number, from 0, counting every call. */
  index: number;
  /** Whether this call traced a new concrete function. */
  traced: boolean;
  /** The call's trace key, as text. */
  key: string;
  /** Why it traced ("first call", "arg 0 (x): dim 1 changed 1 -> 2"), or "" when it did not. */
  reason: string;
  /** The frequent-retracing warning this call gave, or "". */
  warning: string;
  /** The index in concreteFunctions() of the concrete function that ran. */
  concreteIndex: number;
  /** Tracing, optimizing and planning time of a call that traced, µs (0 otherwise). */
  traceUs: number;
  /** The graph's run time, µs; 0 unless the function has recordTimings: true. */
  executeUs: number;
}
/** What one optimization pass did to a traced graph. */
export interface PassReport {
  /** The pass's name. */
  pass: string;
  /** Nodes before the pass. */
  before: number;
  /** Nodes after the pass. */
  after: number;
}
/** A traced graph: signature, text and JSON before and after the optimization passes. */
export interface ConcreteFunction {
  /** The pretty-printed signature of the inputs it was traced for. */
  signature: string;
  /** The optimized graph (the one that runs), one SSA line per node. */
  graph: string;
  /** The graph as traced, before the passes. */
  tracedGraph: string;
  /** The optimized graph as JSON. */
  graphJson: string;
  /** The traced graph as JSON. */
  tracedGraphJson: string;
  /** One report per optimization pass, in order. */
  passes: PassReport[];
}
/** One argument's entry in an input signature: a TensorSpec, or arrays / plain objects of them (a nested argument). */
export type SignatureSpec = TensorSpec | SignatureSpec[] | { [key: string]: SignatureSpec };
/** The options of tl.function (tf.function's arguments, in camelCase); an unknown key is an InvalidArgument. */
export interface FunctionOptions {
  /** The accepted arguments, one entry per argument; an entry may nest. A call of another structure is a TypeError
   *  naming the path where it differs ("args[0].y is missing ..."). */
  inputSignature?: SignatureSpec[] | null;
  /** TensorFlow's reduce_retracing (experimental_relax_shapes). */
  reduceRetracing?: boolean;
  /** The name used in messages, warnings and signatures (default: fn.name). */
  name?: string;
  /** Frequent-retracing warnings per count: 2 (current TF) by default, -1 = no limit (TF 2.1). */
  maxRetracingWarnings?: number;
  /** Count this function's traces for the retracing warning together with every tl.function of the same source text
   *  made at the same place — TensorFlow counts per Python function, so a tl.function created in a loop warns
   *  (default true); false counts this function alone. */
  shareRetracingCount?: boolean;
  /** Names for the arguments in signatures and retrace reasons (default: arg0, arg1, ...). */
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
export type ResultData<R> = R extends Tensor | number | boolean ? TypedArray : R extends undefined | void | null ? R
  : R extends object ? { [K in keyof R]: ResultData<R[K]> } : TypedArray | undefined;
/** What a traced function's arraySync gives for a result of type R: each tensor's arraySync() instead of the tensor. */
export type ResultArrays<R> = R extends undefined | void ? undefined : R extends readonly unknown[] ? any[] : any;
/**
 * What a traced function returns for a result of type R: R's structure (arrays and plain objects nest as in TF's
 * nest), each tensor, variable, number or boolean in it a tensor, null and undefined as they are.
 */
export type TracedResult<R> = R extends Tensor | number | boolean ? Tensor : R extends undefined | void | null ? R
  : R extends object ? { [K in keyof R]: TracedResult<R[K]> } : R;
/**
 * A traced function (tf.function), made by tl.function. Calling it traces fn on a new trace key and runs the cached
 * graph otherwise; it returns what fn returned, in the same structure. An exception thrown by fn is rethrown from
 * the call.
 */
export interface TracedFunction<R> {
  (...args: FunctionArg[]): TracedResult<R>;
  /** The call's results as values: each tensor's dataSync() (in the structure the function returns, or
   *  undefined), without making tensors: one crossing and no handles.
   *  Inside another tl.function's trace: OperatorNotAllowedInGraphError (the results have no values there). */
  dataSync(...args: FunctionArg[]): ResultData<R>;
  /** The same with each tensor's arraySync() instead (a scalar's value as a number, nested arrays otherwise): the
   *  cheapest way to read a training step's loss, `const loss = step.arraySync(x, y)` (nothing allocated). */
  arraySync(...args: FunctionArg[]): ResultArrays<R>;
  /** How many times fn was traced (tf.function's experimental_get_tracing_count). */
  readonly tracingCount: number;
  /** The records of the last `callHistory` calls, oldest first. */
  readonly calls: CallRecord[];
  /** Every concrete function's signature, as tf.function's pretty_printed_concrete_signatures. */
  prettyPrintedConcreteSignatures(): string;
  /** The concrete functions traced so far, in trace order. */
  concreteFunctions(): ConcreteFunction[];
  /** The concrete function for these arguments (TensorSpecs allowed), traced now if there is none yet. */
  getConcreteFunction(...args: FunctionArg[]): ConcreteFunction;
  /** Forgets the call history. */
  clearCalls(): void;
  /** Releases the concrete functions; later calls throw InvalidArgument. */
  dispose(): void;
}

/** A saved spec: dtype and shape (-1 = any size); inputs carry the argument's name. */
export interface SavedSpec {
  /** The argument's name (inputs only). */
  name?: string;
  /** The accepted dtype. */
  dtype: DType;
  /** The dims, -1 for any size. */
  shape: number[];
}
/** A function of a loaded saved model: checks its arguments against the saved signature, runs the saved graph. */
export interface LoadedFunction {
  /** One tensor per saved input; returns a tensor (one output), an array (several) or undefined (none). */
  (...args: TensorLike[]): Tensor | Tensor[] | undefined;
  /** The name it was saved under. */
  readonly name: string;
  /** The saved input specs, in argument order. */
  readonly inputs: SavedSpec[];
  /** The saved output specs. */
  readonly outputs: SavedSpec[];
  /** "predict(x: float32 (None, 4)) -> (float32 (None, 1))" */
  readonly signature: string;
}
/** What tl.savedModel.load returns. */
export interface SavedModel {
  /** The loaded functions by the names they were saved under. */
  functions: Record<string, LoadedFunction>;
  /** Each function's signature. */
  signatures: Record<string, {
    /** The input specs, in argument order. */
    inputs: SavedSpec[];
    /** The output specs. */
    outputs: SavedSpec[];
    /** The signature as text, as LoadedFunction.signature. */
    text: string;
  }>;
  /** The restored variables, each once, shared by the functions (a loaded train step updates them). */
  variables: Variable[];
  /** Frees the functions (the variables live until they are disposed). */
  dispose(): void;
}
/** What tl.savedModel.save takes for a name: a tl.function with one concrete function (or none yet and an input
 * signature, traced for it), a concrete function, or a loaded function. tl.summary.graph takes the same, a
 * tl.function only once it has exactly one concrete function. */
export type Savable = TracedFunction<any> | ConcreteFunction | LoadedFunction;

/** What tl.memory() returns (tf.memory's counts, and the WebAssembly heap's). */
export interface Memory {
  /** Live tensors (those not disposed). */
  numTensors: number;
  /** The live tensors' values in bytes, each buffer once (a view such as an eager reshape shares its input's). */
  numBytes: number;
  /** Live variables. */
  numVariables: number;
  /** Live gradient tapes. */
  numTapes: number;
  /** The WebAssembly linear memory's size in bytes (it grows, never shrinks). */
  wasmHeapBytes: number;
  /** The bytes malloc has handed out and not taken back (dlmalloc's count): flat over repeated work when nothing leaks. */
  heapBytesInUse: number;
  /** Handles released by the FinalizationRegistry (tensors garbage-collected without dispose()). */
  collectedByGC: number;
  /** The WebAssembly stack pointer between calls: the same before and after any call, including one that threw. */
  stackPointer: number;
}

/** One registry op's description (tl.opInfo). */
export interface OpInfo {
  /** The registry name, e.g. "reduce_sum". */
  name: string;
  /** The op's one-line description. */
  doc: string;
  /** The number of inputs; -1 when variadic (at least minInputs). */
  inputs: number;
  /** The fewest inputs a variadic op takes. */
  minInputs: number;
  /** The number of outputs; -1 when each node's sub-graphs decide. */
  outputs: number;
  /** How many sub-graphs a node holds (cond 2, while_loop 2, fused_elementwise 1, others 0). */
  subgraphs: number;
  /** The attributes: their C++ names, types and whether one must be given. */
  attrs: Array<{
    /** The attribute's C++ name, e.g. "axes". */
    name: string;
    /** Its type, e.g. "ints". */
    type: string;
    /** Whether a call must give it. */
    required: boolean;
  }>;
  /** Whether the op has a gradient. */
  differentiable: boolean;
}

/** A Keras-style layer or model (tf.layers.Layer; tl.sequential's model is one too). */
export declare class Layer {
  /** The Keras class name, e.g. "Dense". */
  readonly className: string;
  /** The layer's name (given, or made unique from the class name). */
  readonly name: string;
  /** Whether the variables exist yet (they are made on the first apply). */
  readonly built: boolean;
  /** Every variable of the layer, trainable or not. */
  readonly variables: Variable[];
  /** The same as variables (Keras' name). */
  readonly weights: Variable[];
  /** The trainable variables, in the order an optimizer's applyGradients pairs expect. */
  readonly trainableWeights: Variable[];
  /** Runs the layer on x (building it on the first call); `training` switches dropout on. */
  apply(x: TensorLike, options?: { training?: boolean }): Tensor;
  /** The same as apply (Keras' call). */
  call(x: TensorLike, options?: { training?: boolean }): Tensor;
  /** The number of scalar weights (Keras' count_params). */
  countParams(): number;
  /** Keras' summary table, as text. */
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
  readonly fitTracingCounts: {
    /** Traces of the train step. */
    train: number;
    /** Traces of the test step. */
    test: number;
  };
  /** Releases the layer; its variables live until they are disposed. */
  dispose(): void;
}
/** What Layer.compile takes (Keras' compile arguments). */
export interface CompileConfig {
  /** The optimizer the train step applies the gradients with. */
  optimizer: Optimizer;
  /** A tl.losses name. */
  loss: 'meanSquaredError' | 'binaryCrossentropy' | 'categoricalCrossentropy' | 'sparseCategoricalCrossentropy';
  /** The model outputs logits, not probabilities (default false). */
  fromLogits?: boolean;
  /** 'accuracy' / 'acc' (chosen from the loss), 'sparse_categorical_accuracy', 'binary_accuracy', 'mse' / 'mean_squared_error'. */
  metrics?: string[];
  /** The steps run as plain calls instead of tl.functions (Keras' run_eagerly). */
  runEagerly?: boolean;
}
/** keras.callbacks.History: per-epoch means under Keras' keys ('loss', each metric, 'val_loss', 'val_<metric>'). */
export interface History {
  /** The epoch numbers, from 0. */
  epoch: number[];
  /** Each key's value per epoch. */
  history: Record<string, number[]>;
  /** Each epoch's wall time, seconds. */
  seconds: number[];
}
/** tl.layers.dense's config (tf.layers.dense). */
export interface DenseConfig {
  /** The output size. */
  units: number;
  /** 'linear' (default), 'relu', 'sigmoid', 'tanh' or 'softmax'. */
  activation?: string;
  /** Add a bias (default true). */
  useBias?: boolean;
  /** Seed of the kernel's initializer. */
  seed?: number;
  /** The layer's name. */
  name?: string;
}
/** tl.layers.conv2d's config (tf.layers.conv2d; channels last). */
export interface Conv2DConfig {
  /** The number of output channels. */
  filters: number;
  /** The kernel's height and width (one number for both). */
  kernelSize?: number | [number, number];
  /** The strides (one number for both; default 1). */
  strides?: number | [number, number];
  /** 'valid' (default) or 'same'. */
  padding?: 'valid' | 'same';
  /** As DenseConfig.activation. */
  activation?: string;
  /** Add a bias (default true). */
  useBias?: boolean;
  /** Seed of the kernel's initializer. */
  seed?: number;
  /** The layer's name. */
  name?: string;
}
/** tl.layers.maxPooling2d's and averagePooling2d's config. */
export interface PoolConfig {
  /** The window's height and width (one number for both; default 2). */
  poolSize?: number | [number, number];
  /** The strides (default: the pool size). */
  strides?: number | [number, number];
  /** 'valid' (default) or 'same'. */
  padding?: 'valid' | 'same';
  /** The layer's name. */
  name?: string;
}

/** An optimizer (tf.train.Optimizer), made by tl.train.sgd / momentum / adam / rmsprop. */
export declare class Optimizer {
  /**
   * Applies gradients to variables: [gradient, variable] pairs (tf.keras' apply_gradients), or TF.js' forms that
   * name the variables, {name: gradient} (as tl.variableGrads returns) and [{name, tensor}]. A null gradient is
   * skipped. A pair that is not [tensor or null, variable], or a name that no live variable or several have, is an
   * InvalidArgument; a gradient of the wrong shape a ShapeError.
   */
  applyGradients(pairs: Array<[Tensor | null, Variable]> | Record<string, Tensor> | Array<{ name: string; tensor: Tensor }>): void;
  /**
   * TF.js' minimize: runs f() under a tape and applies the gradients of the loss it returns for varList (default:
   * the trainable variables f read), in one core call. Returns the loss when returnCost is true, else null.
   */
  minimize(f: () => Tensor, returnCost?: boolean, varList?: Variable[]): Tensor | null;
  /** The optimizer's own variables (iterations and the slots), e.g. for checkpoints. */
  getWeights(): Variable[];
  /** Releases the optimizer and its slots. */
  dispose(): void;
}

/** An in-memory scalar summary writer (tl.summary.scalarWriter()): records in tl::summary's JSON Lines format. */
export interface ScalarWriter {
  /** Appends one record (the step an integer, the value a number or a one-element tensor). */
  scalar(tag: string, value: number | Tensor, step: number): void;
  /** Copies of the records, in the order written. */
  records(): Array<{
    /** The step given to scalar(). */
    step: number;
    /** The tag given to scalar(). */
    tag: string;
    /** The value, as a number. */
    value: number;
    /** When it was written, seconds since the Unix epoch. */
    wall_time: number;
  }>;
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
  /** When it was written, seconds since the Unix epoch. */
  wallTime: number;
  /** The step it was written at. */
  step: number;
  /** The first event's "brain.Event:2". */
  fileVersion?: string;
  /** A graph event. */
  hasGraph?: boolean;
  /** A graph event's serialized GraphDef. */
  graphDef?: Uint8Array;
  /** A summary's tag. */
  tag?: string;
  /** "scalars" or "histograms". */
  plugin?: string;
  /** A scalar's value, or a histogram's [left, right, count] rows. */
  value?: number | Array<[number, number, number]>;
}


/** A streaming metric (tf.keras.metrics.Metric), made by the tl.metrics functions. */
export declare class Metric {
  /** Adds a batch: (labels, predictions) for the accuracy and error metrics, (values) for mean. */
  updateState(...inputs: TensorLike[]): void;
  /** The metric over everything added since the last reset, a float32 scalar. */
  result(): Tensor;
  /** Forgets what was added. */
  resetState(): void;
  /** Releases the metric. */
  dispose(): void;
}

/**
 * A dataset (tf.data.Dataset): made by tl.data.fromTensorSlices / fromGenerator / range, transformed by the methods
 * below, each of which returns a new dataset. Elements are arrays of tensors; callbacks get the components as
 * separate arguments. Inside a tl.function, forEach is one graph node that runs the whole loop.
 */
export declare class Dataset {
  /** fn(...components) returns the new element: a tensor or an array of tensors (tf.data's map). */
  map(fn: (...components: Tensor[]) => Tensor | Tensor[]): Dataset;
  /** Keeps the elements for which predicate(...components) returns a true bool scalar. */
  filter(predicate: (...components: Tensor[]) => Tensor): Dataset;
  /** Shuffles within a buffer of `bufferSize` elements; `seed` makes it repeatable (default 0), reshuffled each pass by default. */
  shuffle(bufferSize: number, seed?: number, reshuffleEachIteration?: boolean): Dataset;
  /** Stacks `batchSize` elements into one; `dropRemainder` drops a last, smaller batch. */
  batch(batchSize: number, dropRemainder?: boolean): Dataset;
  /**
   * Batches elements of different shapes, padded to `paddedShapes` (one per component, -1: the batch's largest)
   * with `paddingValues` (one per component, default 0).
   */
  paddedBatch(batchSize: number, paddedShapes?: number[][], paddingValues?: TensorLike[], dropRemainder?: boolean): Dataset;
  /** The first `count` elements. */
  take(count: number): Dataset;
  /** All but the first `count` elements. */
  skip(count: number): Dataset;
  /** The elements `count` times over (default: forever). */
  repeat(count?: number): Dataset;
  /** Each element with its index in front, counting from `start` (default 0). */
  enumerate(start?: number): Dataset;
  /** A look-ahead of `bufferSize` elements: it keeps tf.data's API but overlaps no work (there are no threads). */
  prefetch(bufferSize: number): Dataset;
  /** Each component's shape (-1 for a dim that varies) and dtype. */
  readonly elementSpec: Array<{
    /** The dims, -1 for a dim that varies. */
    shape: number[];
    /** The component's dtype. */
    dtype: DType;
  }>;
  /** The number of elements, -1 when infinite, -2 when unknown (tf.data's cardinality). */
  cardinality(): number;
  /** The pipeline, as text. */
  toString(): string;
  /** A new pass: each element an array of tensors, yours to dispose (or use tl.tidy). */
  [Symbol.iterator](): Iterator<Tensor[]>;
  /** Every element of one pass (arrays of tensors). */
  toArray(): Tensor[][];
  /** Eagerly a loop; inside tl.function one dataset_loop graph node. */
  forEach(body: (...components: Tensor[]) => void): void;
  /** TF.js' spelling: fn(element) for every element (the element's tensors are disposed after each call). */
  forEachAsync(fn: (element: Tensor[]) => void): Promise<void>;
  /** Releases the dataset. */
  dispose(): void;
}

/** The ragged experiment's config (the CLI's flags in camelCase); a bad value is an InvalidArgument naming the field. */
export interface RaggedConfig {
  /** The modes to run, in order (default: all six). */
  modes?: Array<'eager' | 'function' | 'signature' | 'relaxed' | 'loop' | 'bucketed'>;
  /** Training steps per mode (1 to 10,000,000; default 1000). */
  steps?: number;
  /** Seed of the data and the initial weights (default 42). */
  seed?: number;
  /** The shortest sequence length X (default 1). */
  minLength?: number;
  /** The longest sequence length X (default 10). */
  maxLength?: number;
  /** The last dim of x (default 20). */
  features?: number;
  /** Examples per step (default 1). */
  batchSize?: number;
  /** The hidden Dense layers' widths (default [10, 20, 40, 20, 10]). */
  hiddenUnits?: number[];
  /** The optimizer's learning rate (default 0.01). */
  learningRate?: number;
  /** The optimizer (default 'adam'). */
  optimizer?: 'adam' | 'sgd' | 'rmsprop';
  /** Bucket sizes of the bucketed mode, increasing, the last >= maxLength (default 2, 4, 8, ... then maxLength). */
  buckets?: number[];
  /** Distinct examples generated, the steps cycling through them (default 0: one per step). */
  examples?: number;
  /** Frequent-retracing warnings per function (default -1: no limit, as TF 2.1). */
  maxRetracingWarnings?: number;
  /** Run the graph optimization passes (default true). */
  optimize?: boolean;
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
/** A progress report of tl.experiments.runRagged: the steps since the previous report of the same mode. */
export interface RaggedProgress {
  /** The mode running. */
  mode: string;
  /** Its position in config.modes. */
  modeIndex: number;
  /** The mode's steps done so far. */
  stepsDone: number;
  /** The mode's steps in all. */
  stepsTotal: number;
  /** Wall time since the mode started, ms. */
  elapsedMs: number;
  /** Wall time of the warm-up before the first mode, ms (0 without one). */
  warmupMs: number;
  /** Index of the first step in stepUs / loss. */
  firstStep: number;
  /** Each step's time since the previous report, µs. */
  stepUs: Float64Array;
  /** Each step's loss since the previous report. */
  loss: Float32Array;
  /** The steps since the previous report whose call traced. */
  tracedSteps: number[];
  /** The retraces since the previous report of this mode. */
  retraces: RaggedRetraceReport[];
}
/** The result document "tracelab.ragged/1" (docs/performance.md). */
export interface RaggedResult {
  /** "tracelab.ragged/1". */
  format: string;
  /** The config the run used, defaults filled in. */
  config: Record<string, unknown>;
  /** Whether onProgress stopped the run. */
  cancelled: boolean;
  /** Wall time of the warm-up (config warmup_steps), ms; 0 without one. */
  warmup_ms: number;
  /** One entry per mode run, in order. */
  modes: Array<{
    /** The mode's name. */
    mode: string;
    /** Steps completed (fewer than asked when cancelled). */
    steps: number;
    /** Wall time of all steps, tracing included, ms. */
    total_ms: number;
    /** The median step time, µs. */
    median_us: number;
    /** The 99th-percentile step time, µs. */
    p99_us: number;
    /** The median over the steps that did not trace, µs. */
    steady_median_us: number;
    /** How many times the mode's function traced. */
    trace_count: number;
    /** The steps whose call traced. */
    traced_steps: number[];
    /** Each trace: its step, reason, time and signature. */
    retraces: Array<{
      /** The step whose call traced. */
      step: number;
      /** Why it traced. */
      reason: string;
      /** Tracing + optimization + planning, µs. */
      trace_us: number;
      /** The new concrete function's signature. */
      signature: string;
    }>;
    /** The retracing warnings given. */
    warnings: string[];
    /** The mode's concrete functions. */
    concrete_functions: Array<{
      /** The pretty-printed signature. */
      signature: string;
      /** Nodes as traced. */
      traced_nodes: number;
      /** Nodes after the passes (sub-graphs included). */
      optimized_nodes: number;
      /** One report per pass. */
      passes: PassReport[];
      /** The optimized graph's text (with includeGraphs). */
      graph?: string;
      /** The traced graph's text (with includeGraphs). */
      traced_graph?: string;
      /** The optimized graph as JSON (with includeGraphs). */
      graph_json?: unknown;
      /** The traced graph as JSON (with includeGraphs). */
      traced_graph_json?: unknown;
    }>;
    /** Heap bytes in use after step check_step and after the last step: equal when the steady state keeps nothing. */
    heap: {
      /** The step after which bytes_at_check was read (1000, or the last of a shorter run). */
      check_step: number;
      /** Heap bytes in use after check_step. */
      bytes_at_check: number;
      /** Heap bytes in use after the last step. */
      bytes_at_end: number;
    };
    /** Each step's time, µs. */
    step_us: number[];
    /** Each step's loss (null where the loss was not a finite number, which JSON cannot hold). */
    loss: Array<number | null>;
    /** With config saveModels: the mode's last step ("train_step") as saved-model bytes; null for eager and loop. */
    savedModel?: Uint8Array | null;
  }>;
}

/** The base class of every error the core throws (an Error; `message` is the core's). */
export declare class TracelabError extends Error {}
/** Shapes that do not fit the op, e.g. "matmul: inner dimensions must agree, got (2, 3) and (2, 3)". */
export declare class ShapeError extends TracelabError {}
/** A dtype the op does not take, or a value that is not a number or boolean (a string, a BigInt). */
export declare class DTypeError extends TracelabError {}
/** A bad argument: an unknown option, a value out of range, a disposed tensor, a failed assertion. */
export declare class InvalidArgument extends TracelabError {}
/** An allocation the core could not make, e.g. a tensor of 2^40 elements; the module keeps working. */
export declare class OutOfMemory extends TracelabError {}
/**
 * A symbolic tensor used where a value is needed while tl.function traces: dataSync(), a JavaScript number, `+`,
 * `==`, a template string (tf.errors.OperatorNotAllowedInGraphError).
 */
export declare class OperatorNotAllowedInGraphError extends TracelabError {}
/** AutoGraph could not make graph control flow of a construct: "cannot convert <construct> at line L, column C: ...". */
export declare class ConversionError extends TracelabError {
  /** The construct, e.g. "if statement", "while loop", "'&&' expression". */
  readonly construct: string | null;
  /** The construct's line in the converted text's source, counted from 1. */
  readonly line: number | null;
  /** Counted from 1. */
  readonly column: number | null;
  /** The filename given to convert / toCode, or null. */
  readonly filename: string | null;
}

/** What convert's `sourceMap` option receives mappings with (astring's interface; a source-map-js SourceMapGenerator). */
export interface SourceMapSink {
  /** Receives one mapping: a position in the converted text and the original position it came from (null: none). */
  addMapping(mapping: { generated: { line: number; column: number }; original: { line: number; column: number } | null;
                        source?: string; name?: string }): void;
}

/** A converted statement's state: get / set the variables it assigns (live ones first), for the graph. */
type GetState = (() => unknown[]) | null;
/** Sets a converted statement's variables from the values the graph computed (the counterpart of GetState). */
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
  /**
   * A converted, strict-mode copy of fn (not a method) whose free variables are `tl` and the entries of `scope`.
   * @typeParam F fn's type, which the copy keeps.
   */
  toFunction<F extends (...args: any[]) => unknown>(fn: F, scope?: Record<string, unknown>): F;
  /** The ConversionError class (also tl.ConversionError). */
  ConversionError: typeof ConversionError;
  /**
   * At the top of a loop's body: each listed loop variable may change the dims given as null from one iteration to
   * the next while the loop is traced (TF's set_loop_options(shape_invariants=...)); a no-op eagerly.
   */
  setLoopOptions(options: { shapeInvariants?: Array<[Tensor, Array<number | null>]> }): void;

  // The runtime that converted code calls; `names` is comma-separated, `where` reads "<construct> at line L, column C".
  /**
   * `if (test) body() else orelse()`: a symbolic tensor test becomes tl.cond over the state that getState /
   * setState give (`names`, "a,b"; the first `nouts` live after it); otherwise the plain statement runs.
   */
  ifStmt(test: unknown, body: () => void, orelse: (() => void) | null, getState: GetState, setState: SetState,
         names: string, nouts: number, where: string): void;
  /** `while (test()) body()`: a loop whose test becomes a symbolic tensor finishes as a tl.whileLoop over the state. */
  whileStmt(test: () => unknown, body: () => void, getState: GetState, setState: SetState, names: string, nouts: number,
            where: string): void;
  /** `do body() while (test())`, decided as whileStmt. */
  doWhileStmt(test: () => unknown, body: () => void, getState: GetState, setState: SetState, names: string, nouts: number,
              where: string): void;
  /**
   * `for (item of iterable) body(item)`, the loop's break / return flags in extraTest(): over a tensor its rows (traced,
   * a tl.whileLoop), over a Dataset inside tl.function its forEach, over anything else JavaScript's iteration.
   */
  forOfStmt(iterable: unknown, extraTest: (() => unknown) | null, body: (item: any) => void, getState: GetState,
            setState: SetState, names: string, nouts: number, where: string): void;
  /** `for (key in object) body(key)`: always JavaScript's iteration (keys are strings). */
  forInStmt(object: unknown, extraTest: (() => unknown) | null, body: (key: string) => void, getState: GetState,
            setState: SetState, names: string, nouts: number, where: string): void;
  /** `test ? whenTrue() : whenFalse()`; a symbolic tensor test becomes tl.cond. */
  ifExp<A, B>(test: unknown, whenTrue: () => A, whenFalse: () => B, where: string): A | B | Tensor;
  /** `a && right()`: a tensor `a` chooses with tl.cond, so right() still runs only when needed. */
  and<A, B>(a: A, right: () => B, where: string): A | B | Tensor;
  /** `a || right()`, as and. */
  or<A, B>(a: A, right: () => B, where: string): A | B | Tensor;
  /** `!a`: a bool tensor's element-wise logical not, else JavaScript's. */
  not(a: unknown, where: string): boolean | Tensor;
  /** The condition of a construct left as plain JavaScript: a symbolic tensor is a ConversionError with `reason`. */
  test<T>(value: T, where: string, reason: string): T | boolean;
  /** The iterable of a for...of loop left as JavaScript: a tensor's rows; a symbolic tensor is a ConversionError with `reason`. */
  iter<T>(iterable: T, where: string, reason: string): T | Iterable<Tensor>;
}

/** An element-wise op of two tensors, broadcasting (tl.add and the like). */
type Binary = (a: TensorLike, b: TensorLike) => Tensor;
/** An element-wise op of one tensor (tl.neg and the like). */
type Unary = (x: TensorLike) => Tensor;
/** A reduction over `axis` (default: every axis), keeping reduced dims of 1 with keepDims (tl.sum and the like). */
type Reduce = (x: TensorLike, axis?: number | number[], keepDims?: boolean) => Tensor;

/**
 * The API that loadTracelab() resolves to, by convention named `tl` (TF.js' `tf`). Every function that makes tensors
 * returns new ones that you dispose, or make inside tl.tidy. A core error arrives as a TracelabError subclass.
 */
export interface Tracelab {
  /** The core's version, e.g. "0.1.0". */
  readonly version: string;
  /** Every op in the registry, in registry order. */
  opNames(): string[];
  /** One op's description; an unknown name is an InvalidArgument. */
  opInfo(name: string): OpInfo;
  /**
   * Plain-data op call: [{dtype = 'float32', shape, values}] in, {dtype, shape, values} out (values copied), no
   * tensors to dispose. The values convert as tl.tensor's do, errors naming inputs[i].values.
   */
  runOp(name: string, inputs: Array<{ dtype?: DType; shape: number[]; values: ArrayLike<number> }>, attrs?: object): any;
  /** Any registry op by name: tensors in, one tensor (or an array for multi-output ops) out. */
  op(name: string, inputs: TensorLike[], attrs?: object): Tensor | Tensor[];
  /** Every registry op as a camelCase function: tl.ops.clipByValue(x, lo, hi), tl.ops.reduceSum(x, {axes: [1]}). */
  ops: Record<string, (...args: any[]) => Tensor | Tensor[]>;

  /** A tensor of `values`; the dtype is inferred when not given (bool for booleans, int32 for Int32Array / Uint8Array). */
  tensor(values: TensorValues, shape?: number[], dtype?: DType): Tensor;
  /** A tensor of shape [] (tf.scalar). */
  scalar(value: number | boolean, dtype?: DType): Tensor;
  /** A tensor of zeros (tf.zeros); a shape too large to allocate is an OutOfMemory. */
  zeros(shape: number[], dtype?: DType): Tensor;
  /** A tensor of ones (tf.ones). */
  ones(shape: number[], dtype?: DType): Tensor;
  /** A tensor of `shape` holding `value`, converted to `dtype` as tl.tensor converts (tf.fill). */
  fill(shape: number[], value: number, dtype?: DType): Tensor;
  /** [start, stop) in steps of `step` (default 1) (tf.range); a range the core refuses is an InvalidArgument. */
  range(start: number, stop: number, step?: number, dtype?: DType): Tensor;
  /** Uniform in [minval, maxval) (default [0, 1)); `seed` makes it repeatable (tf.randomUniform). */
  randomUniform(shape: number[], minval?: number, maxval?: number, dtype?: DType, seed?: number): Tensor;
  /** Normal(mean, stdDev) (default 0, 1); `seed` makes it repeatable (tf.randomNormal). */
  randomNormal(shape: number[], mean?: number, stdDev?: number, dtype?: DType, seed?: number): Tensor;

  /** a + b, element-wise with broadcasting (tf.add). */
  add: Binary;
  /** a - b (tf.sub). */
  sub: Binary;
  /** a * b (tf.mul). */
  mul: Binary;
  /** a / b (tf.div). */
  div: Binary;
  /** a ** b (tf.pow). */
  pow: Binary;
  /** The larger of a and b (tf.maximum). */
  maximum: Binary;
  /** The smaller of a and b (tf.minimum). */
  minimum: Binary;
  /** a == b, a bool tensor (tf.equal). */
  equal: Binary;
  /** a < b, a bool tensor (tf.less). */
  less: Binary;
  /** a > b, a bool tensor (tf.greater). */
  greater: Binary;
  /** a != b, a bool tensor (tf.notEqual). */
  notEqual: Binary;
  /** a <= b, a bool tensor (tf.lessEqual). */
  lessEqual: Binary;
  /** a >= b, a bool tensor (tf.greaterEqual). */
  greaterEqual: Binary;
  /** Logical and of bool tensors (tf.logicalAnd). */
  logicalAnd: Binary;
  /** Logical or of bool tensors (tf.logicalOr). */
  logicalOr: Binary;
  /** Logical exclusive or of bool tensors (tf.logicalXor). */
  logicalXor: Binary;
  /** Logical not of a bool tensor (tf.logicalNot). */
  logicalNot: Unary;
  /** -x (tf.neg). */
  neg: Unary;
  /** |x| (tf.abs). */
  abs: Unary;
  /** e ** x (tf.exp). */
  exp: Unary;
  /** The natural logarithm (tf.log). */
  log: Unary;
  /** The square root (tf.sqrt). */
  sqrt: Unary;
  /** x * x (tf.square). */
  square: Unary;
  /** max(x, 0) (tf.relu). */
  relu: Unary;
  /** 1 / (1 + e ** -x) (tf.sigmoid). */
  sigmoid: Unary;
  /** The hyperbolic tangent (tf.tanh). */
  tanh: Unary;
  /** Softmax along `axis` (default the last) (tf.softmax). */
  softmax(x: TensorLike, axis?: number): Tensor;
  /** Log of the softmax along `axis` (default the last) (tf.logSoftmax). */
  logSoftmax(x: TensorLike, axis?: number): Tensor;
  /** The matrix product, either operand transposed first (tf.matMul); mismatched inner dims are a ShapeError. */
  matMul(a: TensorLike, b: TensorLike, transposeA?: boolean, transposeB?: boolean): Tensor;
  /** The sum over `axis` (tf.sum). */
  sum: Reduce;
  /** The mean over `axis` (tf.mean). */
  mean: Reduce;
  /** The maximum over `axis` (tf.max). */
  max: Reduce;
  /** The minimum over `axis` (tf.min). */
  min: Reduce;
  /** The index of the largest value along `axis` (default 0), an int32 tensor (tf.argMax). */
  argMax(x: TensorLike, axis?: number): Tensor;
  /** The same values in another shape; one dim may be -1 (tf.reshape). Eagerly it shares x's values. */
  reshape(x: TensorLike, shape: number[]): Tensor;
  /** The dims permuted by `perm` (default: reversed) (tf.transpose). */
  transpose(x: TensorLike, perm?: number[]): Tensor;
  /** A dim of 1 inserted at `axis` (default 0) (tf.expandDims). */
  expandDims(x: TensorLike, axis?: number): Tensor;
  /** Dims of 1 removed: those in `axis`, or all (tf.squeeze). */
  squeeze(x: TensorLike, axis?: number | number[]): Tensor;
  /** The tensors joined along `axis` (default 0) (tf.concat). */
  concat(tensors: TensorLike[], axis?: number): Tensor;
  /** The tensors stacked along a new `axis` (default 0) (tf.stack). */
  stack(tensors: TensorLike[], axis?: number): Tensor;
  /** The block starting at `begin` of `size` (a size of -1: to the end) (tf.slice). */
  slice(x: TensorLike, begin: number[], size: number[]): Tensor;
  /** The slices of x at `indices` along `axis` (default 0) (tf.gather). */
  gather(x: TensorLike, indices: TensorLike, axis?: number): Tensor;
  /** A one-hot encoding with a new last dim of `depth` (tf.oneHot). */
  oneHot(indices: TensorLike, depth: number, onValue?: number, offValue?: number): Tensor;
  /** The values converted to `dtype` (tf.cast). */
  cast(x: TensorLike, dtype: DType): Tensor;
  /** x broadcast to `shape` (tf.broadcastTo). */
  broadcastTo(x: TensorLike, shape: number[]): Tensor;
  /** a where condition is true, b elsewhere (tf.where). */
  where(condition: TensorLike, a: TensorLike, b: TensorLike): Tensor;
  /** x clipped to [lo, hi] (tf.clipByValue). */
  clipByValue(x: TensorLike, lo: TensorLike, hi: TensorLike): Tensor;
  /** Zeros of x's shape and dtype (tf.zerosLike). */
  zerosLike: Unary;
  /** Ones of x's shape and dtype (tf.onesLike). */
  onesLike: Unary;
  /** x's values, with no gradient flowing through (tf.stopGradient). */
  stopGradient: Unary;
  /** A 2-D convolution of NHWC images x with an HWIO filter (tf.conv2d). */
  conv2d(x: TensorLike, filter: TensorLike, strides?: number | [number, number], pad?: 'valid' | 'same'): Tensor;
  /** Max pooling of NHWC images (tf.maxPool). */
  maxPool(x: TensorLike, filterSize: number | [number, number], strides?: number | [number, number], pad?: 'valid' | 'same'): Tensor;
  /** Average pooling of NHWC images, padding cells excluded (tf.avgPool). */
  avgPool(x: TensorLike, filterSize: number | [number, number], strides?: number | [number, number], pad?: 'valid' | 'same'): Tensor;

  /**
   * Runs fn and disposes every tensor it created except what it returns (also inside arrays and plain objects)
   * and what it keep()s (tf.tidy). Tidies nest.
   */
  tidy<T>(fn: () => T): T;
  /** Exempts a tensor from the enclosing tidy() (tf.keep); returns it. */
  keep(tensor: Tensor): Tensor;
  /** Disposes tensors, and arrays / objects of them, in one call into the core (tf.dispose). */
  dispose(value: unknown): void;
  /** The live tensors, variables and tapes and the heap's size (tf.memory). */
  memory(): Memory;
  /** Every log message (tl.print output, retracing warnings); null restores the console. */
  setLogHandler(handler: ((level: 'print' | 'info' | 'warning', text: string) => void) | null): void;
  /** tf.config: while runFunctionsEagerly(true), every tl.function runs fn on each call as plain JavaScript (no trace). */
  config: {
    /** Switches every tl.function to plain calls (true) or back to traced graphs (false); a non-boolean is an InvalidArgument. */
    runFunctionsEagerly(enabled: boolean): void;
    /** Whether tl.functions run eagerly now. */
    functionsRunEagerly(): boolean;
  };

  /** The Tensor class, for instanceof. */
  Tensor: typeof Tensor;
  /** The Variable class, for instanceof. */
  Variable: typeof Variable;
  /** The GradientTape class: `new tl.GradientTape()`. */
  GradientTape: typeof GradientTape;
  /** The TensorSpec class: `new tl.TensorSpec([null, 20])`. */
  TensorSpec: typeof TensorSpec;
  /** A variable holding a copy of `initial` (tf.variable); trainable by default, named 'Variable' by default. */
  variable(initial: TensorLike, trainable?: boolean, name?: string): Variable;
  /** TF.js' grads: grads(f)(xs) is d f(...xs) / d xs, one gradient per x (null where f does not depend on it). */
  grads(f: (...xs: Tensor[]) => Tensor): (xs: Tensor[]) => Array<Tensor | null>;
  /** TF.js' valueAndGrads: f(...xs) and its gradients in one pass. */
  valueAndGrads(f: (...xs: Tensor[]) => Tensor): (xs: Tensor[]) => {
    /** f(...xs). */
    value: Tensor;
    /** d value / d xs, one per x. */
    grads: Array<Tensor | null>;
  };
  /** TF.js' variableGrads: f() and its gradients for varList (default: every live trainable variable). */
  variableGrads(f: () => Tensor, varList?: Variable[]): {
    /** f(). */
    value: Tensor;
    /** The gradients by variable name (zeros for a variable f does not read). */
    grads: Record<string, Tensor>;
  };

  /**
   * tf.function: a function traced into graphs, one concrete function per trace key (dtypes and shapes of tensor
   * arguments, values of other arguments). An unknown option is an InvalidArgument.
   * @typeParam R what fn returns: a tensor, an array of tensors or nothing.
   */
  function<R = Tensor>(fn: (...args: any[]) => R, options?: FunctionOptions): TracedFunction<R>;
  /** tf.print: prints its arguments each time it runs, also on every call of a traced graph (a graph op). */
  print(...args: Array<Tensor | string | number | boolean>): void;
  /**
   * tf.debugging's assertions as graph ops (TF.js has none). Eagerly they throw InvalidArgument at once; inside a
   * tl.function the trace succeeds and each call checks its own values, throwing on the bad call only (the message,
   * the condition and the first `summarize` values, default 3). assertRank is decided by the shape: while tracing.
   */
  debugging: {
    /** x == y element-wise. */
    assertEqual(x: TensorLike, y: TensorLike, message?: string, summarize?: number): void;
    /** x < y element-wise. */
    assertLess(x: TensorLike, y: TensorLike, message?: string, summarize?: number): void;
    /** x <= y element-wise. */
    assertLessEqual(x: TensorLike, y: TensorLike, message?: string, summarize?: number): void;
    /** x > y element-wise. */
    assertGreater(x: TensorLike, y: TensorLike, message?: string, summarize?: number): void;
    /** x >= y element-wise. */
    assertGreaterEqual(x: TensorLike, y: TensorLike, message?: string, summarize?: number): void;
    /** x > 0 element-wise. */
    assertPositive(x: TensorLike, message?: string, summarize?: number): void;
    /** x >= 0 element-wise. */
    assertNonNegative(x: TensorLike, message?: string, summarize?: number): void;
    /** |x - y| <= atol + rtol * |y| elementwise, float32; rtol and atol default to 10 float32 epsilons. */
    assertNear(x: TensorLike, y: TensorLike, rtol?: number, atol?: number, message?: string, summarize?: number): void;
    /** x has rank `rank` (checked from the shape, so while tracing). */
    assertRank(x: TensorLike, rank: number, message?: string): void;
    /** tf.Assert: every element of the bool condition must be true; the error shows `data`'s first values. */
    assert(condition: TensorLike, message: string, data?: Tensor[], summarize?: number): void;
  };
  /**
   * tf.cond: trueFn() when the bool scalar pred is true, else falseFn(). Eagerly an if; traced one cond node holding
   * both branches, which must return the same structure, dtypes and shapes.
   */
  cond<R extends Tensor | Tensor[]>(pred: Tensor, trueFn: () => R, falseFn: () => R): R;
  /**
   * tf.while_loop: while cond(...vars) is true, vars = body(...vars); returns the final vars. Eagerly a loop; traced
   * one while_loop node. `maximumIterations` bounds it (-1, the default: no limit).
   */
  whileLoop(cond: (...vars: Tensor[]) => Tensor, body: (...vars: Tensor[]) => Tensor[], loopVars: Tensor[],
            options?: { maximumIterations?: number }): Tensor[];

  /** Keras-style layers (tf.layers); each takes a config object whose unknown keys are InvalidArguments. */
  layers: {
    /** A fully connected layer (tf.layers.dense). */
    dense(config: DenseConfig): Layer;
    /** A 2-D convolution over NHWC images (tf.layers.conv2d). */
    conv2d(config: Conv2DConfig): Layer;
    /** Max pooling over NHWC images (tf.layers.maxPooling2d). */
    maxPooling2d(config?: PoolConfig): Layer;
    /** Average pooling over NHWC images (tf.layers.averagePooling2d). */
    averagePooling2d(config?: PoolConfig): Layer;
    /** Flattens all dims but the batch dim (tf.layers.flatten). */
    flatten(config?: { name?: string }): Layer;
    /** Zeros a `rate` share of the values while training, scaling the rest (tf.layers.dropout). */
    dropout(config: { rate: number; seed?: number; name?: string }): Layer;
    /** A fully connected RNN over [batch, time, features] (tf.layers.simpleRNN). */
    simpleRNN(config: { units: number; activation?: string; returnSequences?: boolean; seed?: number; name?: string }): Layer;
    /** The Layer class, for instanceof. */
    Layer: typeof Layer;
  };
  /** A stack of layers, one model (tf.sequential). */
  sequential(config?: { layers?: Layer[]; name?: string }): Layer;
  /**
   * Losses (tf.losses), each a scalar mean over the batch: meanSquaredError, binaryCrossentropy,
   * categoricalCrossentropy, sparseCategoricalCrossentropy; `fromLogits` for predictions that are logits.
   */
  losses: Record<'binaryCrossentropy' | 'categoricalCrossentropy' | 'sparseCategoricalCrossentropy',
                 (labels: TensorLike, predictions: TensorLike, options?: { fromLogits?: boolean }) => Tensor> & CoreLosses;
  /** Optimizers (tf.train); each hyperparameter must be a number. */
  train: {
    /** Gradient descent (default learning rate 0.01). */
    sgd(learningRate?: number): Optimizer;
    /** Gradient descent with momentum, optionally Nesterov's. */
    momentum(learningRate: number, momentum: number, useNesterov?: boolean): Optimizer;
    /** Adam (defaults 0.001, 0.9, 0.999, 1e-7). */
    adam(learningRate?: number, beta1?: number, beta2?: number, epsilon?: number): Optimizer;
    /** RMSProp (defaults 0.001, 0.9, 0, 1e-7). */
    rmsprop(learningRate?: number, decay?: number, momentum?: number, epsilon?: number): Optimizer;
    /** The Optimizer class, for instanceof. */
    Optimizer: typeof Optimizer;
  };
  /** Streaming metrics (tf.keras.metrics). */
  metrics: {
    /** The mean of the values added. */
    mean(config?: { name?: string }): Metric;
    /** The mean squared error of (labels, predictions). */
    meanSquaredError(config?: { name?: string }): Metric;
    /** The share of predictions on the right side of `threshold` (default 0.5). */
    binaryAccuracy(config?: { threshold?: number; name?: string }): Metric;
    /** The share of rows whose largest prediction is at the integer label. */
    sparseCategoricalAccuracy(config?: { name?: string }): Metric;
  };
  /** tf.saved_model: concrete functions and the variables they capture as bytes, loadable without the code. */
  savedModel: {
    /** The saved model's bytes; InvalidArgument for a tl.function with no or several concrete functions. */
    save(functions: Record<string, Savable>): Uint8Array;
    /** Loads bytes from save() (or tl::saved_model::save in C++); corrupt bytes throw InvalidArgument. */
    load(bytes: ArrayBuffer | Uint8Array): SavedModel;
  };
  /** Variables' values as bytes (tf.train.Checkpoint's job). */
  checkpoint: {
    /** The variables' values in the CRC-checked tl::Checkpoint format. */
    save(variables: Variable[]): Uint8Array;
    /** Restores the variables from save()'s bytes; everything is checked before any variable changes (else InvalidArgument). */
    restore(variables: Variable[], bytes: ArrayBuffer | Uint8Array): void;
  };
  /** tf.summary: writers (in memory, or TensorBoard event files in Node), a default-writer scope and a current step. */
  summary: {
    /** A writer of scalars kept in memory, as JSON Lines records. */
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
  /** tf.data: input pipelines. */
  data: {
    /** Slices each component along dim 0 (tf.data.Dataset.from_tensor_slices). */
    fromTensorSlices(components: TensorLike | TensorLike[]): Dataset;
    /**
     * The elements a generator function yields, checked against `outputSignature` (null dims accept any size); the
     * function is called again for every pass. A wrong shape or a throw ends the pass with that error.
     */
    fromGenerator(generator: () => Iterator<TensorLike | TensorLike[]>, outputSignature: TensorSpec[]): Dataset;
    /** Scalars start, start + step, ... below stop (range(n): 0 to n - 1). */
    range(start: number, stop?: number, step?: number): Dataset;
    /** The Dataset class, for instanceof. */
    Dataset: typeof Dataset;
  };
  /** The ragged experiment of docs/performance.md, and a timer of calls made inside the core. */
  experiments: {
    /**
     * Trains the ragged model in each mode and returns the result document. `onProgress` gets a report every
     * `progressEvery` steps and may return false to stop; `includeGraphs` adds each graph's text and JSON.
     */
    runRagged(config?: RaggedConfig, options?: {
      onProgress?: (report: RaggedProgress) => boolean | void; progressEvery?: number; includeGraphs?: boolean;
    }): RaggedResult;
    /** The examples a run with this config trains on, for training the same model elsewhere. */
    raggedData(config?: RaggedConfig): Array<{
      /** The example's length X. */
      length: number;
      /** x, row-major [batch, X, features]. */
      x: Float32Array;
      /** y, [batch]. */
      y: Float32Array;
    }>;
    /** The initial weights of a run with this config, one array per variable. */
    raggedKernels(config?: RaggedConfig): Float32Array[];
    /**
     * Calls a tl.function `steps` times from inside the core, cycling through the argument lists, and times each
     * call there (µs per call, results released inside the timed call).
     */
    timeCalls(fn: TracedFunction<unknown>, argumentLists: Tensor[][], steps: number): Float64Array;
  };

  /** The TracelabError class, for instanceof. */
  TracelabError: typeof TracelabError;
  /** The ShapeError class, for instanceof. */
  ShapeError: typeof ShapeError;
  /** The DTypeError class, for instanceof. */
  DTypeError: typeof DTypeError;
  /** The InvalidArgument class, for instanceof. */
  InvalidArgument: typeof InvalidArgument;
  /** The OutOfMemory class, for instanceof. */
  OutOfMemory: typeof OutOfMemory;
  /** The OperatorNotAllowedInGraphError class, for instanceof. */
  OperatorNotAllowedInGraphError: typeof OperatorNotAllowedInGraphError;
  /** The ConversionError class, for instanceof. */
  ConversionError: typeof ConversionError;
  /** AutoGraph: JavaScript control flow over tensors as graph control flow. */
  autograph: Autograph;

  // TF.js functions made of registry ops (wasm/js/tfjs_ops.mjs): eager, on the tape and traced alike.
  /** A rank-1 tensor of flat values (tf.tensor1d); other values are an InvalidArgument. */
  tensor1d(values: TensorValues, dtype?: DType): Tensor;
  /** A rank-2 tensor (tf.tensor2d): nested values, or flat values with a shape of 2 dims. */
  tensor2d(values: TensorValues, shape?: [number, number], dtype?: DType): Tensor;
  /** A rank-3 tensor (tf.tensor3d): nested values, or flat values with a shape of 3 dims. */
  tensor3d(values: TensorValues, shape?: [number, number, number], dtype?: DType): Tensor;
  /** A rank-4 tensor (tf.tensor4d): nested values, or flat values with a shape of 4 dims. */
  tensor4d(values: TensorValues, shape?: [number, number, number, number], dtype?: DType): Tensor;
  /**
   * TF.js' grad: grad(f)(x, dy) is d sum(f(x) * dy) / dx (dy = ones when not given); an f whose result does not
   * depend on x is an InvalidArgument, as TF.js throws.
   */
  grad(f: (x: Tensor) => Tensor): (x: Tensor, dy?: TensorLike) => Tensor;
  /** TF.js' valueAndGrad: {value: f(x), grad: grad(f)(x, dy)} in one pass. */
  valueAndGrad(f: (x: Tensor) => Tensor): (x: Tensor, dy?: TensorLike) => ValueAndGrad;
  /** x repeated reps[i] times along each axis i (tf.tile); reps has one entry per dim. */
  tile(x: TensorLike, reps: number[]): Tensor;
  /** x with paddings[i] = [before, after] values of constantValue (default 0) around axis i (tf.pad). */
  pad(x: TensorLike, paddings: Array<[number, number]>, constantValue?: number): Tensor;
  /** x cut along axis into n equal parts, or parts of the given sizes (one may be -1: the rest) (tf.split). */
  split(x: TensorLike, numOrSizeSplits: number | number[], axis?: number): Tensor[];
  /** The slices of x along axis, that axis removed (tf.unstack). */
  unstack(x: TensorLike, axis?: number): Tensor[];
  /** num evenly spaced float32 values from start to stop, both included (tf.linspace); num must be positive. */
  linspace(start: number, stop: number, num: number): Tensor;
  /**
   * x with each entry (or each entry of noiseShape, broadcast) zeroed with probability rate and the rest divided by
   * 1 - rate (tf.dropout); `seed` makes the mask repeatable. rate in [0, 1).
   */
  dropout(x: TensorLike, rate: number, noiseShape?: Array<number | null>, seed?: number): Tensor;
  /** (x - mean) / sqrt(variance + varianceEpsilon) * scale + offset, broadcasting (tf.batchNorm; epsilon 0.001). */
  batchNorm(x: TensorLike, mean: TensorLike, variance: TensorLike, offset?: TensorLike | null, scale?: TensorLike | null,
            varianceEpsilon?: number): Tensor;
  /** The mean and (population) variance of x over axis (default: every axis) (tf.moments). */
  moments(x: TensorLike, axis?: number | number[] | null, keepDims?: boolean): Moments;
  /**
   * A vector norm (over all values, or one axis) or a matrix norm (over two axes) (tf.norm): ord 'euclidean' (default)
   * or 2, 1, Infinity, -Infinity; 'fro' for matrices.
   */
  norm(x: TensorLike, ord?: NormOrder, axis?: number | number[] | null, keepDims?: boolean): Tensor;
  /** x where x > 0, else alpha * x (tf.leakyRelu; alpha 0.2). */
  leakyRelu(x: TensorLike, alpha?: number): Tensor;
  /** x where x > 0, else exp(x) - 1 (tf.elu). */
  elu: Unary;
  /** scale * (x where x > 0, else alpha * (exp(x) - 1)) with SELU's constants (tf.selu). */
  selu: Unary;
  /** The largest integer <= x, float32 (tf.floor); exact for every float32; gradient zero. */
  floor: Unary;
  /** The smallest integer >= x, float32 (tf.ceil); gradient zero. */
  ceil: Unary;
  /** x rounded half to even (tf.round: round(2.5) is 2); int32 as it is; gradient zero. */
  round: Unary;
  /** -1, 0 or 1 by the sign of x, NaN for NaN (TF's; TF.js gives 0) (tf.sign); float32 and int32; gradient zero. */
  sign: Unary;
  /**
   * The k largest entries along the last axis, largest first, and their indices; equal values in index order
   * (tf.topk). Compares every pair of entries of a row: memory grows with the square of the last dimension.
   */
  topk(x: TensorLike, k?: number, sorted?: boolean): TopK;
  /** Running sums along axis (tf.cumsum); exclusive leaves out the entry itself, reverse sums from the end. */
  cumsum(x: TensorLike, axis?: number, exclusive?: boolean, reverse?: boolean): Tensor;
  /** The dot product of vectors and matrices of rank 1 or 2 (tf.dot). */
  dot(t1: TensorLike, t2: TensorLike): Tensor;
  /** v1[i] * v2[j] for vectors v1, v2 (tf.outerProduct). */
  outerProduct(v1: TensorLike, v2: TensorLike): Tensor;
  /** Resolves on the next animation frame; in Node, on the next turn of the event loop (tf.nextFrame). */
  nextFrame(): Promise<void>;
  // Functions of the math group.
  /** The sine, float32 (tf.sin). */
  sin: Unary;
  /** The cosine, float32 (tf.cos). */
  cos: Unary;
  /** The tangent, float32 (tf.tan). */
  tan: Unary;
  /** The arcsine, NaN outside [-1, 1] (tf.asin). */
  asin: Unary;
  /** The arccosine, NaN outside [-1, 1] (tf.acos). */
  acos: Unary;
  /** The arctangent (tf.atan). */
  atan: Unary;
  /** The hyperbolic sine (tf.sinh). */
  sinh: Unary;
  /** The hyperbolic cosine (tf.cosh). */
  cosh: Unary;
  /** The inverse hyperbolic sine (tf.asinh). */
  asinh: Unary;
  /** The inverse hyperbolic cosine, NaN below 1 (tf.acosh). */
  acosh: Unary;
  /** The inverse hyperbolic tangent, ±Infinity at ±1 and NaN beyond (tf.atanh). */
  atanh: Unary;
  /** The error function (tf.erf). */
  erf: Unary;
  /** e ** x - 1, exact near 0 (tf.expm1). */
  expm1: Unary;
  /** ln(1 + x), exact near 0 (tf.log1p). */
  log1p: Unary;
  /** 1 / x (tf.reciprocal). */
  reciprocal: Unary;
  /** 1 / sqrt(x) (tf.rsqrt). */
  rsqrt: Unary;
  /** ln(1 + e ** x) as max(x, 0) + ln(1 + e ** -|x|), without overflow (tf.softplus). */
  softplus: Unary;
  /** A bool tensor: true where x is NaN (tf.isNaN). */
  isNaN: Unary;
  /** A bool tensor: true where x is +Infinity or -Infinity (tf.isInf). */
  isInf: Unary;
  /** A bool tensor: true where x is neither NaN nor infinite (tf.isFinite). */
  isFinite: Unary;
  /** The angle of the point (b, a), in (-pi, pi] (tf.atan2). */
  atan2: Binary;
  /** a mod b with the sign of b (tf.mod); an int32 b of 0 is an InvalidArgument. */
  mod: Binary;
  /** floor(a / b) (tf.floorDiv), float32 for float32 inputs as TF's; an int32 b of 0 is an InvalidArgument. */
  floorDiv: Binary;
  /** (a - b) ** 2 (tf.squaredDifference). */
  squaredDifference: Binary;
  /** a / b, but 0 where b is 0 (tf.divNoNan). */
  divNoNan: Binary;
  /** The sum of tensors of one shape and dtype (tf.addN). */
  addN(tensors: TensorLike[]): Tensor;
  /** log(sigmoid(x)) = -softplus(-x) (tf.logSigmoid). */
  logSigmoid: Unary;
  /** x where x > 0, else alpha * x, alpha broadcast (tf.prelu). */
  prelu(x: TensorLike, alpha: TensorLike): Tensor;
  /** min(max(x, 0), 6) (tf.relu6). */
  relu6: Unary;
  /** 1 where x > 0, else alpha (default 0); NaN stays NaN; gradient zero (tf.step). */
  step(x: TensorLike, alpha?: number): Tensor;
  /** The product over axis (default: every axis); bools count as int32 (tf.prod). */
  prod(x: TensorLike, axis?: number | number[] | null, keepDims?: boolean): Tensor;
  /** Whether every value of a bool tensor over axis (default: every axis) is true (tf.all). */
  all(x: TensorLike, axis?: number | number[] | null, keepDims?: boolean): Tensor;
  /** Whether any value of a bool tensor over axis (default: every axis) is true (tf.any). */
  any(x: TensorLike, axis?: number | number[] | null, keepDims?: boolean): Tensor;
  /** The index of the smallest value along axis (default 0), int32; the first of ties (tf.argMin). */
  argMin(x: TensorLike, axis?: number): Tensor;
  /** log(sum(exp(x))) over axis (default: every axis), without overflow (tf.logSumExp). */
  logSumExp(x: TensorLike, axis?: number | number[] | null, keepDims?: boolean): Tensor;
  /** Running products along axis (tf.cumprod); exclusive leaves out the entry itself, reverse runs from the end. */
  cumprod(x: TensorLike, axis?: number, exclusive?: boolean, reverse?: boolean): Tensor;
  /** The bitwise and of two int32 tensors of one shape (tf.bitwiseAnd). */
  bitwiseAnd(x: TensorLike, y: TensorLike): Tensor;
  /** tl.norm(x, 'euclidean', axis, keepDims) (tf.euclideanNorm). */
  euclideanNorm(x: TensorLike, axis?: number | number[] | null, keepDims?: boolean): Tensor;
  // Functions of the conv group.
  /** A 1-D convolution of [batch?, width, channels] x with a [width, in, out] filter (tf.conv1d); a number pads the width. */
  conv1d(x: TensorLike, filter: TensorLike, stride: number, pad: ConvPad, dataFormat?: 'NWC', dilation?: number,
         dimRoundingMode?: DimRoundingMode): Tensor;
  /** The transpose of conv2d (its gradient with respect to x) of outputShape; filter [h, w, out, in] (tf.conv2dTranspose). */
  conv2dTranspose(x: TensorLike, filter: TensorLike, outputShape: number[], strides: number | [number, number], pad: ConvPad,
                  dimRoundingMode?: DimRoundingMode): Tensor;
  /** Each channel convolved with its own `multiplier` filters, [h, w, in, multiplier] (tf.depthwiseConv2d). */
  depthwiseConv2d(x: TensorLike, filter: TensorLike, strides: number | [number, number], pad: ConvPad, dataFormat?: 'NHWC',
                  dilations?: number | [number, number], dimRoundingMode?: DimRoundingMode): Tensor;
  /** depthwiseConv2d, then a 1x1 conv2d with pointwiseFilter [1, 1, in * multiplier, out] (tf.separableConv2d). */
  separableConv2d(x: TensorLike, depthwiseFilter: TensorLike, pointwiseFilter: TensorLike, strides: number | [number, number],
                  pad: 'valid' | 'same', dilation?: number | [number, number], dataFormat?: 'NHWC'): Tensor;
  /** Max or average pooling with dilations (tf.pool): dilated 'same' windows count their padding as zeros, as TF.js. */
  pool(input: TensorLike, windowShape: number | [number, number], poolingType: 'max' | 'avg', pad: ConvPad,
       dilations?: number | [number, number], strides?: number | [number, number], dimRoundingMode?: DimRoundingMode): Tensor;
  /** Grayscale morphological dilation: the max over each window of x + filter [h, w, channels] (tf.dilation2d). */
  dilation2d(x: TensorLike, filter: TensorLike, strides: number | [number, number], pad: 'valid' | 'same',
             dilations?: number | [number, number], dataFormat?: 'NHWC'): Tensor;
  /** maxPool's values and the flat index of each max in x (with the batch when includeBatchInIndex) (tf.maxPoolWithArgmax). */
  maxPoolWithArgmax(x: TensorLike, filterSize: number | [number, number], strides: number | [number, number], pad: 'valid' | 'same' | number,
                    includeBatchInIndex?: boolean): MaxPoolWithArgmaxResult;
  /** A 3-D convolution of NDHWC x with a [d, h, w, in, out] filter (tf.conv3d). */
  conv3d(x: TensorLike, filter: TensorLike, strides: number | [number, number, number], pad: 'valid' | 'same', dataFormat?: 'NDHWC',
         dilations?: number | [number, number, number]): Tensor;
  /** The transpose of conv3d of outputShape; filter [d, h, w, out, in] (tf.conv3dTranspose). */
  conv3dTranspose(x: TensorLike, filter: TensorLike, outputShape: number[], strides: number | [number, number, number],
                  pad: 'valid' | 'same'): Tensor;
  /** Max pooling of NDHWC volumes (tf.maxPool3d). */
  maxPool3d(x: TensorLike, filterSize: number | [number, number, number], strides: number | [number, number, number],
            pad: 'valid' | 'same' | number, dimRoundingMode?: DimRoundingMode, dataFormat?: 'NDHWC'): Tensor;
  /** Average pooling of NDHWC volumes, padding cells not counted (tf.avgPool3d). */
  avgPool3d(x: TensorLike, filterSize: number | [number, number, number], strides: number | [number, number, number],
            pad: 'valid' | 'same' | number, dimRoundingMode?: DimRoundingMode, dataFormat?: 'NDHWC'): Tensor;
  /** x / (bias + alpha * sum of x² over channels [c - depthRadius, c + depthRadius]) ** beta (tf.localResponseNormalization). */
  localResponseNormalization(x: TensorLike, depthRadius?: number, bias?: number, alpha?: number, beta?: number): Tensor;
  /** TF.js' fused ops: matMul, conv2d and depthwiseConv2d with a bias and an activation (tf.fused). */
  fused: FusedOps;
  // Functions of the image group.
  /** TF.js' image functions (tf.image): resizing, crops, flips, colours, rotations, projective transforms, non-max suppression. */
  image: ImageOps;
  /** TF.js' linear algebra functions (tf.linalg): bandPart, gramSchmidt, qr. */
  linalg: LinalgOps;
  /** A tensor of shape [...x.shape, ...x.shape] with x's values on its diagonal, zeros elsewhere (tf.diag). */
  diag(x: TensorLike): Tensor;
  // Functions of the slice group.
  /** Tensors of rank 1 of one dtype joined end to end (tf.concat1d). */
  concat1d(tensors: TensorLike[]): Tensor;
  /** Tensors of rank 2 of one dtype joined along axis (default 0) (tf.concat2d). */
  concat2d(tensors: TensorLike[], axis?: number): Tensor;
  /** Tensors of rank 3 of one dtype joined along axis (default 0) (tf.concat3d). */
  concat3d(tensors: TensorLike[], axis?: number): Tensor;
  /** Tensors of rank 4 of one dtype joined along axis (default 0) (tf.concat4d). */
  concat4d(tensors: TensorLike[], axis?: number): Tensor;
  /** A vector padded with constantValue (default 0): paddings [before, after] (tf.pad1d). */
  pad1d(x: TensorLike, paddings: [number, number], constantValue?: number): Tensor;
  /** A rank-2 tensor padded with constantValue, one [before, after] per dimension (tf.pad2d). */
  pad2d(x: TensorLike, paddings: Array<[number, number]>, constantValue?: number): Tensor;
  /** A rank-3 tensor padded with constantValue, one [before, after] per dimension (tf.pad3d). */
  pad3d(x: TensorLike, paddings: Array<[number, number]>, constantValue?: number): Tensor;
  /** A rank-4 tensor padded with constantValue, one [before, after] per dimension (tf.pad4d). */
  pad4d(x: TensorLike, paddings: Array<[number, number]>, constantValue?: number): Tensor;
  /** x with the order of its entries reversed along axis (default: every axis; an axis named twice throws) (tf.reverse). */
  reverse(x: TensorLike, axis?: number | number[] | null): Tensor;
  /** A vector reversed (tf.reverse1d). */
  reverse1d(x: TensorLike): Tensor;
  /** A rank-2 tensor reversed along axis (default: both) (tf.reverse2d). */
  reverse2d(x: TensorLike, axis?: number | number[] | null): Tensor;
  /** A rank-3 tensor reversed along axis (default: every axis) (tf.reverse3d). */
  reverse3d(x: TensorLike, axis?: number | number[] | null): Tensor;
  /** A rank-4 tensor reversed along axis (default: every axis) (tf.reverse4d). */
  reverse4d(x: TensorLike, axis?: number | number[] | null): Tensor;
  /** size entries of a vector from begin; size -1 runs to the end (tf.slice1d). */
  slice1d(x: TensorLike, begin: number, size: number): Tensor;
  /** A block of a rank-2 tensor: begin and size per dimension (a number: the first; size -1: to the end) (tf.slice2d). */
  slice2d(x: TensorLike, begin: number | number[], size?: number | number[]): Tensor;
  /** A block of a rank-3 tensor, as slice2d (tf.slice3d). */
  slice3d(x: TensorLike, begin: number | number[], size?: number | number[]): Tensor;
  /** A block of a rank-4 tensor, as slice2d (tf.slice4d). */
  slice4d(x: TensorLike, begin: number | number[], size?: number | number[]): Tensor;
  /**
   * x[begin:end:strides] per dimension with TF's masks (tf.stridedSlice): a bit i of beginMask / endMask ignores
   * begin[i] / end[i], ellipsisMask marks the entry standing for every unnamed dimension, newAxisMask one that adds a
   * dimension of size 1, shrinkAxisMask one that takes the single index begin[i] and drops the dimension. Negative
   * indices count from the end; negative strides run backward.
   */
  stridedSlice(x: TensorLike, begin: number[], end: number[], strides?: number[] | null, beginMask?: number,
               endMask?: number, ellipsisMask?: number, newAxisMask?: number, shrinkAxisMask?: number): Tensor;
  /**
   * x padded with its mirror image (tf.mirrorPad): 'reflect' leaves out the edge (at most dim - 1 per side),
   * 'symmetric' repeats it (at most dim); the gradient adds the mirrored copies back (TF.js' leaves them out).
   */
  mirrorPad(x: TensorLike, paddings: Array<[number, number]>, mode: 'reflect' | 'symmetric'): Tensor;
  /**
   * The spatial dims [1, 1 + blockShape.length) of x, padded, cut into blocks that move into the batch
   * (tf.spaceToBatchND): [b, h, w, c] with blockShape [2, 2] gives [4b, h / 2, w / 2, c].
   */
  spaceToBatchND(x: TensorLike, blockShape: number[], paddings: Array<[number, number]>): Tensor;
  /** The inverse of spaceToBatchND: batch blocks back into the spatial dims, then crops cut off (tf.batchToSpaceND). */
  batchToSpaceND(x: TensorLike, blockShape: number[], crops: Array<[number, number]>): Tensor;
  /**
   * Depth moved into blockSize x blockSize spatial blocks (tf.depthToSpace): NHWC [b, h, w, c] gives
   * [b, h * blockSize, w * blockSize, c / blockSize ** 2]; 'NCHW' too; any dtype.
   */
  depthToSpace(x: TensorLike, blockSize: number, dataFormat?: 'NHWC' | 'NCHW'): Tensor;
  /**
   * The shape two int32 shape vectors broadcast to, as an int32 vector (tf.broadcastArgs); shapes that do not
   * broadcast are an InvalidArgument (inside a tl.function, each time it runs).
   */
  broadcastArgs(s0: TensorLike, s1: TensorLike): Tensor;
  /**
   * x itself when its shape fits `shape` (null: any size), else a ShapeError (tf.ensureShape); inside a tl.function
   * the traced shape is checked, where an unknown size fits.
   */
  ensureShape(x: TensorLike, shape: Array<number | null>): Tensor;
  /**
   * Coordinate grids of two vectors (tf.meshgrid): 'xy' (default) gives [size(y), size(x)] grids, 'ij'
   * [size(x), size(y)]; one input gives [x], none [].
   */
  meshgrid(x?: TensorLike, y?: TensorLike, options?: MeshgridOptions): Tensor[];
  // Functions of the gather group.
  /** The slices of x at the N-d indices [..., K] (coordinates into x's first K dims; out of range throws) (tf.gatherND). */
  gatherND(x: TensorLike, indices: TensorLike): Tensor;
  /** Zeros of `shape` with the rows of updates added at the N-d indices (duplicates add up) (tf.scatterND). */
  scatterND(indices: TensorLike, updates: TensorLike, shape: number[]): Tensor;
  /** tensor with the rows of updates written at the N-d indices (of duplicates the last wins) (tf.tensorScatterUpdate). */
  tensorScatterUpdate(tensor: TensorLike, indices: TensorLike, updates: TensorLike): Tensor;
  /** A dense tensor of outputShape: sparseValues at sparseIndices, defaultValue (0) elsewhere (tf.sparseToDense). */
  sparseToDense(sparseIndices: TensorLike, sparseValues: TensorLike, outputShape: number[], defaultValue?: TensorLike): Tensor;
  /** Rows of x summed per segment id in [0, numSegments); other ids are dropped (tf.unsortedSegmentSum). */
  unsortedSegmentSum(x: TensorLike, segmentIds: TensorLike, numSegments: number): Tensor;
  /** Per value, the insertion index into its row of sortedSequence ('left' or 'right'); int32 [rows, values per row] (tf.searchSorted). */
  searchSorted(sortedSequence: TensorLike, values: TensorLike, side?: 'left' | 'right'): Tensor;
  /** tl.searchSorted(sortedSequence, values, 'left') (tf.lowerBound). */
  lowerBound(sortedSequence: TensorLike, values: TensorLike): Tensor;
  /** tl.searchSorted(sortedSequence, values, 'right') (tf.upperBound). */
  upperBound(sortedSequence: TensorLike, values: TensorLike): Tensor;
  /** Per bin in [0, size), the sum of the weights (count without weights) of the int32 x in it; x >= size dropped (tf.bincount). */
  bincount(x: TensorLike, weights: TensorLike, size: number): Tensor;
  /** tl.bincount of a vector, or per row of a matrix; binaryOutput: 1 per bin hit (tf.denseBincount). */
  denseBincount(x: TensorLike, weights: TensorLike, size: number, binaryOutput?: boolean): Tensor;
  /** The distinct slices along axis (default 0) in order of appearance, and each slice's index among them; eager only (tf.unique). */
  unique(x: TensorLike, axis?: number): UniqueResult;
  /** The coordinates (int32 [count, rank]) of the true elements of a bool tensor; eager only (tf.whereAsync). */
  whereAsync(condition: TensorLike): Promise<Tensor>;
  /** The slices of tensor along axis (default 0) where the bool mask is true; eager only (tf.booleanMaskAsync). */
  booleanMaskAsync(tensor: TensorLike, mask: TensorLike, axis?: number): Promise<Tensor>;
  /** The values of the vector x not in y, and their indices in x; eager only (tf.setdiff1dAsync). */
  setdiff1dAsync(x: TensorLike, y: TensorLike): Promise<[Tensor, Tensor]>;
  /** Per row, whether the target's index is among the k (default 1) largest predictions; eager only (tf.inTopKAsync). */
  inTopKAsync(predictions: TensorLike, targets: TensorLike, k?: number): Promise<Tensor>;
  /** The rows of a ragged tensor (nested row splits, dense values) at indices; eager only (tf.raggedGather). */
  raggedGather(paramsNestedSplits: TensorLike[], paramsDenseValues: TensorLike, indices: TensorLike, outputRaggedRank: number): RaggedGatherResult;
  /** Ragged rows start, start + delta, ... up to limit, one per entry of starts, limits and deltas; eager only (tf.raggedRange). */
  raggedRange(starts: TensorLike, limits: TensorLike, deltas: TensorLike): RaggedRangeResult;
  /** A ragged tensor (values + row partitions of rowPartitionTypes) as a dense tensor of shape, defaultValue elsewhere; eager only (tf.raggedTensorToTensor). */
  raggedTensorToTensor(shape: TensorLike, values: TensorLike, defaultValue: TensorLike, rowPartitionTensors: TensorLike[],
                       rowPartitionTypes: Array<'FIRST_DIM_SIZE' | 'VALUE_ROWIDS' | 'ROW_SPLITS'>): Tensor;
  /** The sparse (COO) functions of TF.js: eager only (tf.sparse). */
  sparse: SparseOps;
  // Functions of the creation group.
  /** A new tensor of x's values (tf.clone); traced as an identity. */
  clone(x: TensorLike): Tensor;
  /** The identity matrix [numRows, numColumns], tiled over batchShape (1 to 3 dims) when given (tf.eye). */
  eye(numRows: number, numColumns?: number, batchShape?: number[], dtype?: DType): Tensor;
  /** A tensor of rank 5: nested values, or flat values with a shape (tf.tensor5d). */
  tensor5d(values: TensorValues, shape?: number[], dtype?: DType): Tensor;
  /** A tensor of rank 6: nested values, or flat values with a shape (tf.tensor6d). */
  tensor6d(values: TensorValues, shape?: number[], dtype?: DType): Tensor;
  /** A mutable TensorBuffer of shape (zeros, or `values` kept by reference) (tf.buffer). */
  buffer(shape: number[], dtype?: DType, values?: Float32Array | Int32Array | Uint8Array | number[]): TensorBuffer;
  /** Normal draws redrawn beyond 2 standard deviations from the mean; int32 rounds (tf.truncatedNormal). */
  truncatedNormal(shape: number[], mean?: number, stdDev?: number, dtype?: 'float32' | 'int32', seed?: number): Tensor;
  /** Normal(0, 1) draws (tf.randomStandardNormal). */
  randomStandardNormal(shape: number[], dtype?: 'float32' | 'int32', seed?: number): Tensor;
  /** int32 draws uniform in [minval, maxval) (tf.randomUniformInt). */
  randomUniformInt(shape: number[], minval: number, maxval: number, seed?: number): Tensor;
  /** A tensor whose values are randFunction() each, in order (tf.rand). */
  rand(shape: number[], randFunction: () => number, dtype?: DType): Tensor;
  /** Gamma(alpha, rate beta) draws by Marsaglia and Tsang's method; int32 rounds (tf.randomGamma). */
  randomGamma(shape: number[], alpha: number, beta?: number, dtype?: 'float32' | 'int32', seed?: number): Tensor;
  /**
   * numSamples class indices per row of logits (rank 1 or 2), drawn by softmax(logits), or by the values themselves
   * when normalized (tf.multinomial); int32 [rows, numSamples], or [numSamples] for rank 1.
   */
  multinomial(logits: TensorLike, numSamples: number, seed?: number, normalized?: boolean): Tensor;
  // Functions of the misc group.
  /** f(...inputs, save) returns {value, gradFunc}; tapes take gradFunc(dy, saved) as the inputs' gradients (one tensor or
   *  one per input) instead of the gradient of f's ops; eager only: inside a tl.function an InvalidArgument (tf.customGrad). */
  customGrad(f: (...args: any[]) => { value: Tensor; gradFunc: (dy: Tensor, saved: Tensor[]) => Tensor | Array<Tensor | null> }):
    (...inputs: Tensor[]) => Tensor;
  /** tl.batchNorm for x of rank 2, the statistics of rank 2 or 1 (tf.batchNorm2d). */
  batchNorm2d(x: TensorLike, mean: TensorLike, variance: TensorLike, offset?: TensorLike | null, scale?: TensorLike | null,
              varianceEpsilon?: number): Tensor;
  /** tl.batchNorm for x of rank 3, the statistics of rank 3 or 1 (tf.batchNorm3d). */
  batchNorm3d(x: TensorLike, mean: TensorLike, variance: TensorLike, offset?: TensorLike | null, scale?: TensorLike | null,
              varianceEpsilon?: number): Tensor;
  /** tl.batchNorm for x of rank 4, the statistics of rank 4 or 1 (tf.batchNorm4d). */
  batchNorm4d(x: TensorLike, mean: TensorLike, variance: TensorLike, offset?: TensorLike | null, scale?: TensorLike | null,
              varianceEpsilon?: number): Tensor;
  /** v + (x - v)(1 - decay), divided by 1 - decay^step when zeroDebias (the default) (tf.movingAverage). */
  movingAverage(v: TensorLike, x: TensorLike, decay: TensorLike, step?: TensorLike | null, zeroDebias?: boolean): Tensor;
  /** One step of TF.js' LSTM cell, gates i, j, f, o: [newC, newH] (tf.basicLSTMCell). */
  basicLSTMCell(forgetBias: TensorLike, lstmKernel: TensorLike, lstmBias: TensorLike, data: TensorLike, c: TensorLike,
                h: TensorLike): [Tensor, Tensor];
  /** LSTM cells stacked, each fed the h of the one before: [[newC per cell], [newH per cell]] (tf.multiRNNCell). */
  multiRNNCell(lstmCells: Array<(data: Tensor, c: Tensor, h: Tensor) => [Tensor, Tensor]>, data: TensorLike, c: TensorLike[],
               h: TensorLike[]): [Tensor[], Tensor[]];
  /** Einstein summation of one or two operands, 'ij,jk->ik' (tf.einsum: an explicit output, no ellipsis). */
  einsum(equation: string, ...tensors: TensorLike[]): Tensor;
  /** a - b cos(2 pi i / (N - 1)), N - 1 replaced by N for an even N (tf.cosineWindow). */
  cosineWindow(windowLength: number, a: number, b: number): Tensor;
  /** The least power of two >= value (tf.enclosingPowerOfTwo). */
  enclosingPowerOfTwo(value: number): number;
  /** tf.signal's frames and windows. */
  signal: SignalOps;
  /** tf.util's basics. */
  util: Util;
  /** The reductions of the tfjs-core losses (tf.Reduction). */
  Reduction: Reductions;
}

/** What tl.topk returns. */
export interface TopK {
  /** The k largest entries along the last axis, largest first. */
  values: Tensor;
  /** Their indices along the last axis (int32). */
  indices: Tensor;
}

/** What tl.moments returns. */
export interface Moments {
  /** The mean over the axes. */
  mean: Tensor;
  /** The population variance over the axes. */
  variance: Tensor;
}

/** What a tl.valueAndGrad function returns. */
export interface ValueAndGrad {
  /** f(x). */
  value: Tensor;
  /** d sum(f(x) * dy) / dx. */
  grad: Tensor;
}

/** A norm's order for tl.norm. */
export type NormOrder = number | 'euclidean' | 'fro';

/** How a tfjs-core loss reduces the weighted losses (tf.Reduction): the values of tl.Reduction. */
export interface Reductions {
  /** The weighted losses as they are. */
  readonly NONE: 0;
  /** Their sum over the sum of the weights (the mean without weights). */
  readonly MEAN: 1;
  /** Their sum. */
  readonly SUM: 2;
  /** Their sum over the number of non-zero weights (the default; the mean without weights). */
  readonly SUM_BY_NONZERO_WEIGHTS: 3;
}

/**
 * tfjs-core's losses (tf.losses): each weighs the per-entry losses by `weights` (broadcast) and reduces them by
 * `reduction` (default SUM_BY_NONZERO_WEIGHTS). Labels and predictions must have equal shapes (a ShapeError else).
 */
export interface CoreLosses {
  /**
   * (labels - predictions)^2 reduced. Also Keras' mean squared error: with an options object (or nothing) as the
   * third argument it is the Keras-named loss, `fromLogits` accepted.
   */
  meanSquaredError(labels: TensorLike, predictions: TensorLike, weights?: TensorLike | { fromLogits?: boolean } | null,
                   reduction?: number): Tensor;
  /** losses (already computed) weighted and reduced. */
  computeWeightedLoss(losses: TensorLike, weights?: TensorLike | null, reduction?: number): Tensor;
  /** |labels - predictions| reduced. */
  absoluteDifference(labels: TensorLike, predictions: TensorLike, weights?: TensorLike | null, reduction?: number): Tensor;
  /** 1 - sum(labels * predictions, axis), for unit-length labels and predictions, reduced. */
  cosineDistance(labels: TensorLike, predictions: TensorLike, axis: number, weights?: TensorLike | null,
                 reduction?: number): Tensor;
  /** max(0, 1 - (2 * labels - 1) * predictions) for 0/1 labels, reduced. */
  hingeLoss(labels: TensorLike, predictions: TensorLike, weights?: TensorLike | null, reduction?: number): Tensor;
  /** Quadratic within delta (default 1) of the label, linear beyond, reduced. */
  huberLoss(labels: TensorLike, predictions: TensorLike, weights?: TensorLike | null, delta?: number,
            reduction?: number): Tensor;
  /** -labels * log(predictions + epsilon) - (1 - labels) * log(1 - predictions + epsilon), reduced (epsilon 1e-7). */
  logLoss(labels: TensorLike, predictions: TensorLike, weights?: TensorLike | null, epsilon?: number,
          reduction?: number): Tensor;
  /** Binary cross-entropy of sigmoid(logits) against labels smoothed towards 0.5 by labelSmoothing, reduced. */
  sigmoidCrossEntropy(multiClassLabels: TensorLike, logits: TensorLike, weights?: TensorLike | null,
                      labelSmoothing?: number, reduction?: number): Tensor;
  /** -sum(labels * logSoftmax(logits), -1) with labels smoothed by labelSmoothing, one loss per row, reduced. */
  softmaxCrossEntropy(onehotLabels: TensorLike, logits: TensorLike, weights?: TensorLike | null, labelSmoothing?: number,
                      reduction?: number): Tensor;
  /** The reductions (tf.Reduction). */
  Reduction: Reductions;
}

/** tf.util's basics. */
export interface Util {
  /** The number of elements of a shape (1 for []). */
  sizeFromShape(shape: number[]): number;
  /** Nested arrays (and typed arrays inside them, unless skipTypedArray) as one flat array, appended to `result`. */
  flatten<T>(arr: T | unknown[], result?: T[], skipTypedArray?: boolean): T[];
  /** Shuffles an array or typed array in place. */
  shuffle(array: unknown[] | Float32Array | Int32Array | Uint8Array | Uint32Array): void;
  /** [0, n) shuffled. */
  createShuffledIndices(n: number): Uint32Array;
  /** Throws an InvalidArgument with msg() when expr is falsy. */
  assert(expr: boolean, msg: () => string): void;
  /** True when two arrays have the same length and equal entries. */
  arraysEqual(a: ArrayLike<unknown>, b: ArrayLike<unknown>): boolean;
  /** A high-resolution time in milliseconds. */
  now(): number;
}

/**
 * Loads the WASM core (browser, worker or Node >= 20, no flags) and returns the API. `autograph: false` leaves out
 * AutoGraph's converter (tl.autograph.convert / toCode / toFunction then throw; the runtime stays).
 */
export declare function loadTracelab(options?: { autograph?: boolean }): Promise<Tracelab>;

// Types of the math group.

// Types of the conv group.
/** A convolution's or pool's pad: 'valid', 'same', zeros on every side, or [[0, 0], [top, bottom], [left, right], [0, 0]]. */
export type ConvPad = 'valid' | 'same' | number | Array<[number, number]>;
/** How an output size with a fraction is rounded; TF.js allows it with a numeric pad only. */
export type DimRoundingMode = 'floor' | 'round' | 'ceil';
/** The activations of TF.js' fused ops. */
export type FusedActivation = 'linear' | 'relu' | 'relu6' | 'elu' | 'leakyrelu' | 'prelu' | 'sigmoid';

/** What tl.maxPoolWithArgmax returns. */
export interface MaxPoolWithArgmaxResult {
  /** The max of each window (maxPool). */
  result: Tensor;
  /** int32: the flat index in x of each max, ((b * height + row) * width + col) * channels + channel (b only with includeBatchInIndex). */
  indexes: Tensor;
}

/** The bias and activation of a fused op: activation(op + bias). */
export interface FusedActivationArgs {
  /** Added to the op's result (broadcast). */
  bias?: TensorLike;
  /** 'linear' (default), 'relu', 'relu6', 'elu', 'leakyrelu', 'prelu' or 'sigmoid'. */
  activation?: FusedActivation;
  /** prelu's slopes for negative values (broadcast). */
  preluActivationWeights?: TensorLike;
  /** leakyrelu's slope for negative values (default 0.2). */
  leakyreluAlpha?: number;
}

/** tl.fused.matMul's arguments. */
export interface FusedMatMulArgs extends FusedActivationArgs {
  /** The left matrix (or batch of them). */
  a: TensorLike;
  /** The right matrix (or batch of them). */
  b: TensorLike;
  /** Multiply by a's transpose. */
  transposeA?: boolean;
  /** Multiply by b's transpose. */
  transposeB?: boolean;
}

/** tl.fused.conv2d's and tl.fused.depthwiseConv2d's arguments: those of tl.conv2d / tl.depthwiseConv2d by name. */
export interface FusedConv2DArgs extends FusedActivationArgs {
  /** NHWC images (or one HWC image). */
  x: TensorLike;
  /** [h, w, in, out] (conv2d) or [h, w, in, multiplier] (depthwiseConv2d). */
  filter: TensorLike;
  /** The window's step along height and width. */
  strides: number | [number, number];
  /** 'valid', 'same', a number or explicit pairs. */
  pad: ConvPad;
  /** 'NHWC' only. */
  dataFormat?: 'NHWC';
  /** The filter's dilation along height and width. */
  dilations?: number | [number, number];
  /** How fractional output sizes are rounded (numeric pad only). */
  dimRoundingMode?: DimRoundingMode;
}

/** TF.js' fused ops (tl.fused): the op, plus bias, then the activation; composites of the plain ops. */
export interface FusedOps {
  /** activation(matMul(a, b) + bias) (tf.fused.matMul). */
  matMul(args: FusedMatMulArgs): Tensor;
  /** activation(conv2d(x, filter, ...) + bias) (tf.fused.conv2d). */
  conv2d(args: FusedConv2DArgs): Tensor;
  /** activation(depthwiseConv2d(x, filter, ...) + bias) (tf.fused.depthwiseConv2d). */
  depthwiseConv2d(args: FusedConv2DArgs): Tensor;
}

// Types of the image group.
/**
 * tl.image: TF.js' image functions on NHWC images ([batch, height, width, channels]; resizes take [height, width,
 * channels] too). Each is made of registry ops: it traces into a tl.function and has a gradient, except non-max
 * suppression, which reads the values and runs eagerly only (inside a tl.function it throws an InvalidArgument).
 */
export interface ImageOps {
  /** The images mirrored along the width; float32 [batch, height, width, channels] (tf.image.flipLeftRight). */
  flipLeftRight(image: TensorLike): Tensor;
  /** A grayscale image (last dimension 1) with its channel repeated 3 times (tf.image.grayscaleToRGB). */
  grayscaleToRGB(image: TensorLike): Tensor;
  /** 0.2989 r + 0.5870 g + 0.1140 b over the last dimension (3), kept as a dimension of 1; the input's dtype (tf.image.rgbToGrayscale). */
  rgbToGrayscale(image: TensorLike): Tensor;
  /** Bilinear resizing to size [height, width]; float32 (tf.image.resizeBilinear). */
  resizeBilinear(images: TensorLike, size: [number, number], alignCorners?: boolean, halfPixelCenters?: boolean): Tensor;
  /** Nearest-neighbour resizing to size [height, width]; the input's dtype (tf.image.resizeNearestNeighbor). */
  resizeNearestNeighbor(images: TensorLike, size: [number, number], alignCorners?: boolean, halfPixelCenters?: boolean): Tensor;
  /**
   * Crops of boxes [numBoxes, 4] ([y1, x1, y2, x2], normalized) of the images boxInd (int32 [numBoxes]) resized to
   * cropSize; positions outside the image get extrapolationValue (tf.image.cropAndResize).
   */
  cropAndResize(image: TensorLike, boxes: TensorLike, boxInd: TensorLike, cropSize: [number, number],
                method?: 'bilinear' | 'nearest', extrapolationValue?: number): Tensor;
  /** The images rotated by radians about center (fractions of width and height), empty pixels fillValue (tf.image.rotateWithOffset). */
  rotateWithOffset(image: TensorLike, radians: number, fillValue?: number | [number, number, number],
                   center?: number | [number, number]): Tensor;
  /**
   * Projective transforms [a0, a1, a2, b0, b1, b2, c0, c1] ([batch or 1, 8]) mapping output (x, y) to input
   * ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1 (tf.image.transform).
   */
  transform(image: TensorLike, transforms: TensorLike, interpolation?: 'nearest' | 'bilinear',
            fillMode?: 'constant' | 'reflect' | 'wrap' | 'nearest', fillValue?: number, outputShape?: [number, number]): Tensor;
  /** 255 where the grayscale of an image [height, width, 3 or 1] is above threshValue · 255 (or Otsu's threshold), else 0; int32 (tf.image.threshold). */
  threshold(image: TensorLike, method?: 'binary' | 'otsu', inverted?: boolean, threshValue?: number): Tensor;
  /** The int32 indices of the boxes greedy non-max suppression keeps, best score first; eager only (tf.image.nonMaxSuppression). */
  nonMaxSuppression(boxes: TensorLike, scores: TensorLike, maxOutputSize: number, iouThreshold?: number,
                    scoreThreshold?: number): Tensor;
  /** tl.image.nonMaxSuppression, reading the values asynchronously (tf.image.nonMaxSuppressionAsync). */
  nonMaxSuppressionAsync(boxes: TensorLike, scores: TensorLike, maxOutputSize: number, iouThreshold?: number,
                         scoreThreshold?: number): Promise<Tensor>;
  /** Non-max suppression (soft with softNmsSigma > 0) with the kept boxes' scores (tf.image.nonMaxSuppressionWithScore). */
  nonMaxSuppressionWithScore(boxes: TensorLike, scores: TensorLike, maxOutputSize: number, iouThreshold?: number,
                             scoreThreshold?: number, softNmsSigma?: number): NonMaxSuppressionScores;
  /** tl.image.nonMaxSuppressionWithScore, reading the values asynchronously (tf.image.nonMaxSuppressionWithScoreAsync). */
  nonMaxSuppressionWithScoreAsync(boxes: TensorLike, scores: TensorLike, maxOutputSize: number, iouThreshold?: number,
                                  scoreThreshold?: number, softNmsSigma?: number): Promise<NonMaxSuppressionScores>;
  /** Non-max suppression, the indices padded with zeros to maxOutputSize when asked (tf.image.nonMaxSuppressionPadded). */
  nonMaxSuppressionPadded(boxes: TensorLike, scores: TensorLike, maxOutputSize: number, iouThreshold?: number,
                          scoreThreshold?: number, padToMaxOutputSize?: boolean): NonMaxSuppressionPadded;
  /** tl.image.nonMaxSuppressionPadded, reading the values asynchronously (tf.image.nonMaxSuppressionPaddedAsync). */
  nonMaxSuppressionPaddedAsync(boxes: TensorLike, scores: TensorLike, maxOutputSize: number, iouThreshold?: number,
                               scoreThreshold?: number, padToMaxOutputSize?: boolean): Promise<NonMaxSuppressionPadded>;
}
/** What tl.image.nonMaxSuppressionWithScore returns. */
export interface NonMaxSuppressionScores {
  /** The kept boxes' indices (int32). */
  selectedIndices: Tensor;
  /** Their scores after soft suppression (float32). */
  selectedScores: Tensor;
}
/** What tl.image.nonMaxSuppressionPadded returns. */
export interface NonMaxSuppressionPadded {
  /** The kept boxes' indices, padded with zeros when asked (int32). */
  selectedIndices: Tensor;
  /** How many of them are kept boxes (an int32 scalar). */
  validOutputs: Tensor;
}
/** tl.linalg: TF.js' linear algebra functions, made of registry ops (traced, differentiated). */
export interface LinalgOps {
  /** The band of the innermost matrices: numLower diagonals below, numUpper above (negative: all), zeros elsewhere (tf.linalg.bandPart). */
  bandPart(a: TensorLike, numLower: number | Tensor, numUpper: number | Tensor): Tensor;
  /** Orthonormal vectors spanning the same spaces as the given vectors, by Gram-Schmidt (tf.linalg.gramSchmidt). */
  gramSchmidt(xs: TensorLike[]): Tensor[];
  /** Orthonormal vectors spanning the same spaces as the rows of a matrix, by Gram-Schmidt (tf.linalg.gramSchmidt). */
  gramSchmidt(xs: TensorLike): Tensor;
  /** [q, r] with x = q r of the innermost matrices, by Householder reflections; reduced unless fullMatrices (tf.linalg.qr). */
  qr(x: TensorLike, fullMatrices?: boolean): [Tensor, Tensor];
}

// Types of the slice group.
/** The options of tl.meshgrid. */
export interface MeshgridOptions {
  /** 'xy' (default, Cartesian: the first grid varies along columns) or 'ij' (matrix: along rows). */
  indexing?: 'xy' | 'ij';
}

// Types of the gather group.
/** What tl.unique returns. */
export interface UniqueResult {
  /** The distinct slices along the axis, in order of first appearance. */
  values: Tensor;
  /** For each slice of x along the axis, the index of its value in `values` (int32). */
  indices: Tensor;
}

/** What tl.raggedGather returns. */
export interface RaggedGatherResult {
  /** The row splits of the result, outermost first (int32 vectors). */
  outputNestedSplits: Tensor[];
  /** The dense values of the result. */
  outputDenseValues: Tensor;
}

/** What tl.raggedRange returns. */
export interface RaggedRangeResult {
  /** The row splits (int32 [rows + 1]). */
  rtNestedSplits: Tensor;
  /** The values of every row, one after another. */
  rtDenseValues: Tensor;
}

/** What tl.sparse.sparseFillEmptyRows returns. */
export interface SparseFillEmptyRowsResult {
  /** The indices, sorted by row, with [row, 0, ...] added for each empty row. */
  outputIndices: Tensor;
  /** The values, with defaultValue for each added index. */
  outputValues: Tensor;
  /** Per row of the dense shape, whether it had no entries (bool). */
  emptyRowIndicator: Tensor;
  /** Per input entry, its position in the output (int32). */
  reverseIndexMap: Tensor;
}

/** What tl.sparse.sparseReshape returns. */
export interface SparseReshapeResult {
  /** The indices of the entries in the new shape (int32 [count, new rank]). */
  outputIndices: Tensor;
  /** The new dense shape, its -1 resolved (int32). */
  outputShape: Tensor;
}

/** tl.sparse: TF.js' functions of sparse tensors in COO form (indices [count, rank], values [count], dense shape). */
export interface SparseOps {
  /** Adds an entry [row, 0, ...] = defaultValue for each empty row and sorts the entries by row (tf.sparse.sparseFillEmptyRows). */
  sparseFillEmptyRows(indices: TensorLike, values: TensorLike, denseShape: TensorLike, defaultValue: TensorLike): SparseFillEmptyRowsResult;
  /** The indices of the entries of a sparse tensor of inputShape in newShape (one -1 allowed) (tf.sparse.sparseReshape). */
  sparseReshape(inputIndices: TensorLike, inputShape: TensorLike, newShape: TensorLike): SparseReshapeResult;
  /** The means of the rows of data at indices, per sorted segment id (rows without entries: 0) (tf.sparse.sparseSegmentMean). */
  sparseSegmentMean(data: TensorLike, indices: TensorLike, segmentIds: TensorLike): Tensor;
  /** The sums of the rows of data at indices, per sorted segment id (rows without entries: 0) (tf.sparse.sparseSegmentSum). */
  sparseSegmentSum(data: TensorLike, indices: TensorLike, segmentIds: TensorLike): Tensor;
}

// Types of the creation group.

/** TF.js' TensorBuffer: a mutable typed array of a shape (tl.buffer, x.buffer(), x.bufferSync()). */
export interface TensorBuffer {
  /** The dims. */
  readonly shape: number[];
  /** The dtype of the values. */
  readonly dtype: DType;
  /** The number of elements. */
  readonly size: number;
  /** The number of dims. */
  readonly rank: number;
  /** The values, row-major (bool as 0 / 1). */
  values: Float32Array | Int32Array | Uint8Array | number[];
  /** The step in elements of each dim but the last. */
  readonly strides: number[];
  /** Sets the value at the coordinates locs (one per dim). */
  set(value: number | boolean, ...locs: number[]): void;
  /** The value at the coordinates locs. */
  get(...locs: number[]): number;
  /** The flat index of coordinates. */
  locToIndex(locs: number[]): number;
  /** The coordinates of a flat index. */
  indexToLoc(index: number): number[];
  /** A new tensor of the values. */
  toTensor(): Tensor;
}

// Types of the misc group.

/** tf.signal's frames and windows (tl.signal). */
export interface SignalOps {
  /** Frames of frameLength every frameStep along a 1-D signal; padEnd pads the last with padValue (tf.signal.frame). */
  frame(signal: TensorLike, frameLength: number, frameStep: number, padEnd?: boolean, padValue?: number): Tensor;
  /** The Hann window 0.5 - 0.5 cos(...), periodic for an even length as TF.js' (tf.signal.hannWindow). */
  hannWindow(windowLength: number): Tensor;
  /** The Hamming window 0.54 - 0.46 cos(...), periodic for an even length as TF.js' (tf.signal.hammingWindow). */
  hammingWindow(windowLength: number): Tensor;
}
