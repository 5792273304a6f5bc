// tl.data: the core's tf.data-style pipeline from JavaScript. Elements are arrays of tensors (one per component);
// map / filter / forEach callbacks get the components as separate arguments, as in TensorFlow's Python API:
//   tl.data.fromTensorSlices([xs, ys]).shuffle(100, 7).batch(32).map((x, y) => [x.mul(2), y])
import { guard, InvalidArgument, translate } from './errors.mjs';
import { describeValue, toDtype, toInteger, toShape } from './values.mjs';

/** An integer argument of a transformation (its range is the core's to check), named `Dataset.<kind>: <root>`. */
const int = (kind, root, value, min) => toInteger(value, { what: `Dataset.${kind}`, root, min });
const bool = (kind, root, value) => {
  if (typeof value !== 'boolean') throw new InvalidArgument(`Dataset.${kind}: ${root} is ${describeValue(value)}; expected a boolean`);
  return value;
};
const callback = (kind, value) => {
  if (typeof value !== 'function') throw new InvalidArgument(`Dataset.${kind}: expected a function, got ${describeValue(value)}`);
  return value;
};

export function makeData(engine, toTensor, withTensors) {
  const core = engine.core;

  class Dataset {
    constructor(id) { this.id = id; }
    transform(kind, args = {}) { return new Dataset(guard(() => core.datasetTransform(this.id, kind, args))); }

    /** fn(...components) -> a tensor or an array of tensors (the new components). */
    map(fn) { return this.transform('map', { fn: engine.trampoline(callback('map', fn), 'map') }); }
    /** predicate(...components) -> a bool scalar tensor. */
    filter(predicate) { return this.transform('filter', { fn: engine.trampoline(callback('filter', predicate), 'filter') }); }
    shuffle(bufferSize, seed = 0, reshuffleEachIteration = true) {
      return this.transform('shuffle', { bufferSize: int('shuffle', 'bufferSize', bufferSize), seed: int('shuffle', 'seed', seed, 0),
                                         reshuffle: bool('shuffle', 'reshuffleEachIteration', reshuffleEachIteration) });
    }
    batch(batchSize, dropRemainder = false) {
      return this.transform('batch', { batchSize: int('batch', 'batchSize', batchSize),
                                       dropRemainder: bool('batch', 'dropRemainder', dropRemainder) });
    }
    /** paddedShapes: one shape per component (-1 = the batch's largest); paddingValues: one number each. */
    paddedBatch(batchSize, paddedShapes, paddingValues, dropRemainder = false) {
      const what = 'Dataset.paddedBatch';
      int('paddedBatch', 'batchSize', batchSize);
      bool('paddedBatch', 'dropRemainder', dropRemainder);
      if (paddedShapes !== undefined) {
        if (!Array.isArray(paddedShapes))
          throw new InvalidArgument(`${what}: paddedShapes is ${describeValue(paddedShapes)}; expected an array of shapes`);
        paddedShapes = paddedShapes.map((shape, i) => toShape(shape, { what, root: `paddedShapes[${i}]`, unknown: true }));
      }
      if (paddingValues !== undefined && !Array.isArray(paddingValues))
        throw new InvalidArgument(`${what}: paddingValues is ${describeValue(paddingValues)}; expected an array (one value per component)`);
      return withTensors((convert) => {
        const values = paddingValues?.map((v, i) => convert(v, this.elementSpec[i]?.dtype ?? 'float32', 'paddedBatch').id);
        return this.transform('paddedBatch', { batchSize, paddedShapes, paddingValues: values, dropRemainder });
      });
    }
    take(count) { return this.transform('take', { count: int('take', 'count', count) }); }
    skip(count) { return this.transform('skip', { count: int('skip', 'count', count) }); }
    repeat(count) { return this.transform('repeat', count === undefined ? {} : { count: int('repeat', 'count', count) }); }
    enumerate(start = 0) { return this.transform('enumerate', { start: int('enumerate', 'start', start) }); }
    prefetch(bufferSize) { return this.transform('prefetch', { bufferSize: int('prefetch', 'bufferSize', bufferSize) }); }

    get elementSpec() { return guard(() => core.datasetInfo(this.id)).elementSpec; }
    /** The element count, -1 for infinite (tf.data.INFINITE_CARDINALITY), -2 when unknown. */
    cardinality() { return guard(() => core.datasetInfo(this.id)).cardinality; }
    toString() { return guard(() => core.datasetInfo(this.id)).str; }

    /** A new pass: each element is an array of tensors (yours to dispose, or use tl.tidy). */
    *[Symbol.iterator]() {
      const it = guard(() => core.iteratorNew(this.id));
      try {
        for (;;) {
          const ids = guard(() => core.iteratorNext(it));
          if (ids === null) return;
          yield ids.map((id) => engine.wrap(id));
        }
      } finally {
        core.iteratorDispose(it);
      }
    }
    /** All elements (arrays of tensors). */
    toArray() { return [...this]; }
    /**
     * body(...components) for every element: eagerly a loop; inside a tl.function ONE graph node that runs the
     * whole loop every time the graph runs (TF's `for x in dataset` inside tf.function).
     */
    forEach(body) { engine.relay(() => core.datasetForEach(this.id, engine.trampoline(callback('forEach', body), 'forEach'))); }
    /** TF.js' spelling: await ds.forEachAsync(element => ...) with the element array. */
    async forEachAsync(fn) {
      for (const element of this) engine.tidy(() => { fn(element); });
    }
    dispose() { core.datasetDispose(this.id); }
  }

  return {
    /** Slices each component along dim 0 (tf.data.Dataset.from_tensor_slices). */
    fromTensorSlices: (components) => {
      const list = Array.isArray(components) ? components : [components];
      // The tensors made from plain values are disposed afterwards: the dataset holds its own references.
      return withTensors((convert) => new Dataset(guard(() => core.datasetFromSlices(
        list.map((c, i) => convert(c, 'float32', `fromTensorSlices: component ${i}`).id)))));
    },
    /**
     * The elements a JS generator function yields (each a tensor or an array of tensors / numbers), checked
     * against `outputSignature` (TensorSpecs; null / -1 dims accept any size). The function is called again for
     * every pass.
     */
    fromGenerator: (generatorFn, outputSignature) => {
      const what = 'tl.data.fromGenerator';
      if (typeof generatorFn !== 'function')
        throw new InvalidArgument(`${what}: generatorFn is ${describeValue(generatorFn)}; expected a generator function`);
      if (!Array.isArray(outputSignature))
        throw new InvalidArgument(`${what}: outputSignature is ${describeValue(outputSignature)}; expected an array of tl.TensorSpecs`);
      outputSignature.forEach((s, i) => {
        if (s === null || typeof s !== 'object')
          throw new InvalidArgument(`${what}: outputSignature[${i}] is ${describeValue(s)}; expected a tl.TensorSpec`);
        toShape(s.shape, { what, root: `outputSignature[${i}].shape`, unknown: true });
        if (s.dtype !== undefined) toDtype(s.dtype, { what, root: `outputSignature[${i}].dtype` });
      });
      const start = () => {
        const iterator = generatorFn();
        return () => {
          let step;
          try {
            step = iterator.next();
          } catch (error) {
            const e = translate(error);
            return { error: { name: e?.name ?? 'Error', message: String(e?.message ?? e) } };
          }
          if (step.done) return { done: true };
          const parts = Array.isArray(step.value) ? step.value : [step.value];
          try {
            const tensors = parts.map((p, i) => toTensor(p, outputSignature[i]?.dtype ?? 'float32', 'fromGenerator'));
            // The core takes over the handles of the element (it releases them after reading): a fresh handle
            // for tensors the generator keeps, so its own tensors stay usable.
            return { outputs: tensors.map((t) => (parts.includes(t) ? core.tensorRetain(t.id) : release(t))) };
          } catch (error) {
            const e = translate(error);
            return { error: { name: e?.name ?? 'Error', message: String(e?.message ?? e) } };
          }
        };
      };
      const signature = outputSignature.map((s) => ({ shape: s.shape.map((d) => (d === null ? -1 : d)), dtype: s.dtype ?? 'float32' }));
      return new Dataset(guard(() => core.datasetFromGenerator(start, signature)));
    },
    range: (start, stop, step = 1) => {
      if (stop === undefined) [start, stop] = [0, start];
      for (const [root, value] of Object.entries({ start, stop, step }))
        if (typeof value !== 'number' || Number.isNaN(value))
          throw new InvalidArgument(`tl.data.range: ${root} is ${describeValue(value)}; expected a number`);
      return new Dataset(guard(() => core.datasetRange(start, stop, step)));
    },
    Dataset,
  };

  /** Hands a tensor made here to the core: it releases the handle, so the JS object is forgotten. */
  function release(tensor) {
    engine.forget(tensor);
    return tensor.id;
  }
}
