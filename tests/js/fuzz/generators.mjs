// The generators of the JS API fuzzer (api_fuzz.mjs): fast-check arbitraries for shapes, dtypes, values, op calls
// with their inputs and attributes, positional API calls, tensor creation, options objects and whole call
// sequences, and pure functions (expression trees) for eager == traced. Steps are plain data: api_fuzz.mjs
// interprets them against a pool of live tensors, so fast-check can print and shrink them.
import fc from 'fast-check';

/** The dtypes; a shape's element count; whether a value is a valid shape. */
export const DTYPES = ['float32', 'int32', 'bool'];
export const sizeOf = (shape) => shape.reduce((a, b) => a * b, 1);
export const isShape = (s) => Array.isArray(s) && s.every((d) => Number.isInteger(d) && d >= 0);

/**
 * The arbitraries for one loaded module `tl` (its registry's ops; the options calls run on it): {OPS, OPTION_APIS,
 * step, unary, expression, inputsArb}.
 */
export function makeGenerators(tl) {
  const OPS = tl.opNames().map((name) => tl.opInfo(name)).filter((info) => info.subgraphs === 0);

  /** Small dims mostly; the odd bad one (a fraction, negative, NaN, a string, huge). */
  const dim = fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 0, max: 4 }) },
                       fc.constantFrom(1.5, -3, -1, NaN, Infinity, '2', null, 2 ** 40));
  const shapeArb = fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 });
  const anyShape = fc.oneof({ weight: 6, arbitrary: shapeArb }, fc.array(dim, { maxLength: 3 }),
                            fc.constantFrom('2', 3, null, { length: 1 }));
  const anyDtype = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...DTYPES) },
                            fc.constantFrom('float64', 'string', 42, null, 'Float32', '', 'int64'));
  const leaf = (dtype) => (dtype === 'bool' ? fc.boolean()
    : dtype === 'int32' ? fc.integer({ min: -5, max: 5 })
    : fc.oneof({ weight: 4, arbitrary: fc.integer({ min: -4, max: 4 }) }, fc.float()));
  const valuesFor = (shape, dtype) => fc.array(leaf(dtype), { minLength: sizeOf(shape), maxLength: sizeOf(shape) });
  /** A plain value where a tensor may go: a number, an array, or something no API accepts. */
  const plainArb = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: -3, max: 3 }) },
                            fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 3 }),
                            fc.constantFrom('x', null, undefined, {}, [1, 'a'], [[1, 2], [3]], 1n, true));
  const ref = fc.nat({ max: 99 });  // an index into the pool of live tensors (modulo its length)
  const input = fc.oneof({ weight: 5, arbitrary: ref.map((r) => ({ ref: r })) }, plainArb.map((value) => ({ value })));
  const attrValue = {
    bool: fc.oneof({ weight: 5, arbitrary: fc.boolean() }, fc.constant('yes')),
    int: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: -3, max: 4 }) }, fc.constantFrom(1.5, '0', NaN)),
    float: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: -3, max: 3 }) }, fc.constantFrom(0.5, NaN, Infinity, 'a')),
    ints: fc.oneof({ weight: 5, arbitrary: fc.array(fc.integer({ min: -3, max: 4 }), { maxLength: 4 }) },
                   fc.constantFrom([1.5], ['0'], 3, [NaN])),
    dtype: anyDtype,
    string: fc.constantFrom('VALID', 'SAME', 'valid', 'x', '{}', ''),
  };
  const opCall = fc.constantFrom(...OPS).chain((info) => fc.record({
    kind: fc.constant('op'),
    name: fc.constant(info.name),
    inputs: fc.array(input, info.inputs < 0 ? { minLength: 0, maxLength: 3 }
      : { minLength: Math.max(0, info.inputs - 1), maxLength: info.inputs + (info.inputs === 0 ? 1 : 0) }),
    attrs: fc.record(Object.fromEntries(info.attrs.map((a) => [a.name, attrValue[a.type]])),
                     { requiredKeys: info.attrs.filter((a) => a.required).map((a) => a.name) }),
    unknownAttr: fc.option(fc.constantFrom('bogus', 'axis', 'keepDims'), { freq: 8 }),
  }));
  const POSITIONAL = ['sum', 'mean', 'max', 'min', 'argMax', 'reshape', 'transpose', 'expandDims', 'squeeze', 'concat',
                      'stack', 'slice', 'gather', 'oneHot', 'cast', 'broadcastTo', 'softmax', 'logSoftmax', 'matMul',
                      'clipByValue', 'where', 'conv2d', 'maxPool', 'avgPool'];
  const positionalArg = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: -3, max: 3 }) }, shapeArb, fc.boolean(),
                                 anyDtype, fc.constantFrom('valid', 'same', 1.5, '0', null, undefined, [0, '1']));
  const positional = fc.record({ kind: fc.constant('api'), name: fc.constantFrom(...POSITIONAL), x: input,
                                 args: fc.array(fc.oneof(positionalArg, input), { maxLength: 3 }) });
  const creation = fc.oneof(
    fc.record({ kind: fc.constant('create'), api: fc.constantFrom('zeros', 'ones', 'fill'), shape: anyShape, dtype: anyDtype }),
    fc.record({ shape: shapeArb, dtype: fc.constantFrom(...DTYPES) })
      .chain(({ shape, dtype }) => fc.record({ kind: fc.constant('create'), api: fc.constant('tensor'), shape: fc.constant(shape),
                                               dtype: fc.constant(dtype), values: valuesFor(shape, dtype),
                                               badShape: fc.option(anyShape, { freq: 4 }), badDtype: fc.option(anyDtype, { freq: 4 }) })),
    fc.record({ kind: fc.constant('create'), api: fc.constant('range'), start: fc.integer({ min: -3, max: 3 }),
                stop: fc.oneof(fc.integer({ min: -3, max: 6 }), fc.constantFrom('5', NaN)), dtype: anyDtype }),
  );
  const unary = fc.constantFrom('neg', 'abs', 'exp', 'log', 'sqrt', 'square', 'relu', 'sigmoid', 'tanh');

  /** Options objects: a subset of the accepted keys with good values, maybe one unknown key, maybe one bad value. */
  const OPTION_APIS = {
    'tl.function': { accepted: { name: fc.constant('fuzzed'), reduceRetracing: fc.boolean(), callHistory: fc.nat(3),
                                 maxRetracingWarnings: fc.integer({ min: -1, max: 3 }), specializePlans: fc.boolean(),
                                 argNames: fc.constant(['x']) },
                     call: (o) => tl.function((x) => x.add(1), o) },
    'tl.GradientTape': { accepted: { persistent: fc.boolean(), watchAccessedVariables: fc.boolean() },
                         call: (o) => new tl.GradientTape(o).dispose() },
    'tl.layers.dense': { accepted: { units: fc.integer({ min: 1, max: 3 }), activation: fc.constantFrom('relu', 'none'),
                                     useBias: fc.boolean(), seed: fc.nat(9), name: fc.constant('d') },
                         required: ['units'], call: (o) => tl.layers.dense(o).dispose() },
    'tl.layers.dropout': { accepted: { rate: fc.constantFrom(0, 0.5), seed: fc.nat(9) }, call: (o) => tl.layers.dropout(o).dispose() },
    'tl.sequential': { accepted: { name: fc.constant('m'), layers: fc.constant([]) }, call: (o) => tl.sequential(o).dispose() },
    'tl.metrics.binaryAccuracy': { accepted: { threshold: fc.constantFrom(0.2, 0.5), name: fc.constant('acc') },
                                   call: (o) => tl.metrics.binaryAccuracy(o).dispose() },
    'tl.losses.meanSquaredError': { accepted: { fromLogits: fc.boolean() },
                                    call: (o) => tl.losses.meanSquaredError([1, 2], [1, 3], o).dispose() },
    'tl.whileLoop': { accepted: { maximumIterations: fc.nat(3) },
                      call: (o) => tl.tidy(() => { tl.whileLoop((i) => i.less(2), (i) => [i.add(1)], [tl.scalar(0)], o); }) },
    'tl.experiments.raggedData': { accepted: { steps: fc.constant(100), seed: fc.nat(9), examples: fc.constant(2), features: fc.constant(2) },
                                   call: (o) => tl.experiments.raggedData(o) },
    'tl.autograph.convert': { accepted: { filename: fc.constant('f.js'), sourceType: fc.constantFrom('module', 'script'),
                                          marked: fc.boolean() }, call: (o) => tl.autograph.convert('1', o) },
  };
  const optionsCall = fc.constantFrom(...Object.keys(OPTION_APIS)).chain((api) => {
    const { accepted, required = [] } = OPTION_APIS[api];
    return fc.record({
      kind: fc.constant('options'), api: fc.constant(api),
      options: fc.record(accepted, { requiredKeys: required }),
      unknown: fc.option(fc.constantFrom('inputSignatur', 'Name', 'units2', 'extra', 'constructor', 'traning'), { freq: 3 }),
      badValue: fc.option(fc.constantFrom(null, {}, [{}], Symbol('s')), { freq: 4 }),  // wrong for every option's kind
    });
  });

  const step = fc.oneof(
    { weight: 6, arbitrary: opCall },
    { weight: 3, arbitrary: positional },
    { weight: 3, arbitrary: creation },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('dispose'), ref }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('tidy'), inner: fc.array(fc.oneof(opCall, positional, creation), { maxLength: 4 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('variable'), init: ref, value: input, how: fc.constantFrom('assign', 'assignAdd', 'assignSub') }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('tape'), x: ref, op: unary, persistent: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('cond'), pred: input, a: ref, b: ref, traced: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('while'), n: fc.oneof(fc.integer({ min: -1, max: 4 }), fc.constant(1.5)), x: ref,
                                        max: fc.option(fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constant(NaN))) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('function'), x: ref, op: unary, signature: fc.boolean(), arg: input }) },
    { weight: 2, arbitrary: fc.record({
      kind: fc.constant('dataset'),
      components: fc.array(input, { minLength: 1, maxLength: 2 }),
      transforms: fc.array(fc.record({
        t: fc.constantFrom('batch', 'take', 'skip', 'shuffle', 'repeat', 'map', 'filter', 'enumerate', 'prefetch'),
        n: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: -1, max: 3 }) }, fc.constantFrom(1.5, '2', NaN, null, 2 ** 53)),
      }), { maxLength: 3 }),
    }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('checkpoint'), a: ref, b: ref, flip: fc.option(fc.nat(4096)) }) },
    { weight: 2, arbitrary: optionsCall },
  );

  const expression = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('unary'), tie('binary'), tie('reduce'), tie('cond'), tie('loop')),
    leaf: fc.oneof(fc.constantFrom({ k: 'in', i: 0 }, { k: 'in', i: 1 }), fc.integer({ min: -3, max: 3 }).map((c) => ({ k: 'const', c }))),
    unary: fc.record({ k: fc.constant('unary'), op: unary, x: tie('node') }),
    binary: fc.record({ k: fc.constant('binary'), op: fc.constantFrom('add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'pow'),
                        a: tie('node'), b: tie('node') }),
    reduce: fc.record({ k: fc.constant('reduce'), op: fc.constantFrom('sum', 'mean', 'max', 'min'),
                        axis: fc.option(fc.integer({ min: -1, max: 0 })), keep: fc.boolean(), x: tie('node') }),
    // A traced cond's branches must agree in shape (docs/reliability.md, control.cond-shapes); eagerly only one runs.
    // So the false branch is an elementwise function of the true one's value: the same shape by construction.
    cond: fc.record({ k: fc.constant('cond'), p: tie('node'), a: tie('node'), op: unary }),
    loop: fc.record({ k: fc.constant('loop'), n: fc.nat(3), x: tie('node') }),
  })).node;

  const inputsArb = shapeArb.chain((shape) => fc.record({
    shapes: fc.constant(shape),
    second: fc.oneof(fc.constant(shape), fc.constant(shape.slice(1)), fc.constant([]), shapeArb),
  })).chain(({ shapes, second }) => fc.tuple(valuesFor(shapes, 'float32').map((v) => [shapes, v]),
                                             valuesFor(second, 'float32').map((v) => [second, v])));

  return { OPS, OPTION_APIS, step, unary, expression, inputsArb };
}
