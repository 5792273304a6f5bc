// Writes docs/tfjs-compat.md: every tf.* export of TensorFlow.js' core (@tensorflow/tfjs-core, bench/js) and every
// method of its Tensor class, each supported / not supported / deliberately different in Tracelab, with the coverage
// of the ops and of the Tensor methods. TF.js' API is read from its own type declarations with the TypeScript
// compiler API (the exports of dist/index.d.ts, the Tensor class of dist/tensor.d.ts and the methods its
// dist/public/chained_ops/*.d.ts add); Tracelab's from the loaded package (build/wasm/dist, or TRACELAB_DIST).
//   node scripts/tfjs_compat.mjs           rewrite docs/tfjs-compat.md, print the coverage
//   node scripts/tfjs_compat.mjs --check   exit 1 if docs/tfjs-compat.md is stale (tests/js/tfjs_compat.test.mjs too)
//   node scripts/tfjs_compat.mjs --print   print the coverage and what is not supported; write nothing
// Ops are grouped by the `@doc {heading, subheading}` tag of their declaration; the exports that are not ops are out
// of the coverage's denominator, grouped by NON_OPS below, each group with its reason.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const TFJS_CORE = join(root, 'bench/js/node_modules/@tensorflow/tfjs-core');
export const DOC = join(root, 'docs/tfjs-compat.md');
export const COMMAND = 'node scripts/tfjs_compat.mjs';

/**
 * The exports that are not ops, out of the coverage's denominator: per group a reason and which exports it takes
 * (by the declaring file under tfjs-core/dist, or by name) and which Tensor methods (`methods`, out of the methods'
 * denominator). Every export outside dist/ops/ must fall in one group, else the script stops and names it.
 */
export const NON_OPS = [
  { group: 'Backends', reason: 'TF.js runs kernels on pluggable backends (cpu, webgl, wasm, webgpu); Tracelab has ' +
      'one, its C++ core compiled to WebAssembly',
    files: [/^backends\//],
    names: ['setBackend', 'getBackend', 'ready', 'removeBackend', 'findBackend', 'findBackendFactory', 'registerBackend',
            'backend', 'engine', 'KernelBackend', 'DataMover', 'DataStorage'] },
  { group: 'Kernel registry', reason: "TF.js' per-backend kernel and gradient tables; Tracelab registers each op " +
      "with its kernel and gradient in C++ (tl.opNames, tl.opInfo list them)",
    files: [/^kernel_registry\.d\.ts$/, /^kernel_names\.d\.ts$/], names: [] },
  { group: 'WebGL and GPU data', reason: 'GPU textures and buffers: Tracelab has no GPU backend',
    files: [/webgl/i, /webgpu/i], names: [], methods: ['dataToGPU'] },
  { group: 'Platform', reason: "fetch and text encoding per platform (browser, Node): Tracelab's loader handles its " +
      "one platform difference itself",
    files: [/^platforms\//], names: ['setPlatform'] },
  { group: 'Environment and flags', reason: "TF.js' global flags (debug mode, deprecation warnings, backend " +
      "choices); Tracelab has no global flags (tl.config holds its one setting)",
    files: [/^environment\.d\.ts$/],
    names: ['enableProdMode', 'enableDebugMode', 'disableDeprecationWarnings', 'deprecationWarn'] },
  { group: 'IO and browser', reason: 'model storage handlers and browser pixel conversion: Tracelab saves models ' +
      'with tl.savedModel and tl.checkpoint',
    files: [/^io\//, /^browser_util\.d\.ts$/], names: ['io', 'browser', 'nextFrame'] },
  { group: 'Profiling', reason: 'timing and kernel profiles of a backend; Tracelab reports its own timings ' +
      '(tl.function call records, the benchmarks)',
    files: [], names: ['profile', 'time'] },
  { group: 'Memory management', reason: 'scopes and counters over tensors, not ops: kept in the table so a port sees ' +
      'which exist',
    files: [], names: ['tidy', 'dispose', 'keep', 'memory', 'disposeVariables'] },
  { group: 'Autodiff', reason: 'gradient functions over JavaScript functions, not ops: kept in the table so a port ' +
      'sees which exist',
    files: [/^gradients\.d\.ts$/], names: [] },
  { group: 'Training', reason: 'optimizers and their namespace: stateful objects over variables, not ops',
    files: [/^optimizers\//, /^train\.d\.ts$/], names: ['Reduction'] },
  { group: 'Classes', reason: 'the tensor classes themselves (their methods are the second table)',
    files: [/^tensor\.d\.ts$/], names: [] },
  { group: 'Utilities and internals', reason: "helper namespaces TF.js' own packages and tests use (shape " +
      "arithmetic, serialization, test assertions), op() for defining ops, the version string",
    files: [/^(math|serialization|test_util|util|tensor_util|device_util|version|model_types|types)\.d\.ts$/,
            /^ops\/operation\.d\.ts$/],
    names: ['broadcast_util', 'slice_util', 'gather_util', 'scatter_util', 'backend_util', 'kernel_impls', 'version_core',
            'op', 'OP_SCOPE_SUFFIX'] },
];

/**
 * The exports and methods Tracelab has but gives different behaviour on purpose, and why. Their rows read
 * "deliberately different"; they count as not supported, and tests/js/tfjs_diff.test.mjs does not compare them.
 */
export const DIFFERENT = {
  'tf.op': "tl.op(name, inputs, attrs) runs a registry op by its name; TF.js' op() wraps a JavaScript function as " +
    'an op',
  'x.toString': "TF (Python)'s format, tl.Tensor(shape=(2,), dtype=float32, values=[1. 2.]); TF.js' is Tensor [1, 2] " +
      "over two lines",
  'x.print': "console.log(x.toString()): TF (Python)'s format (x.toString); TF.js logs its own",
  'tf.print': "tl.print(...values) is TF's tf.print: any mix of strings and tensors, printed also inside a traced " +
      "tl.function, through tl.setLogHandler; TF.js' tf.print(x, verbose) logs x.toString()",
};

/**
 * Supported ops and methods that differ from TF.js in one respect, on purpose, and how. Their rows stay "supported",
 * with the note; tests/js/tfjs_diff.test.mjs checks each such difference (its cases marked `differs`) and fails on a
 * `differs` case of an op without a note here.
 */
export const NOTES = {
  'tf.div': "int32 / int32 is a DTypeError (strict dtypes in the C++ core: TF's truediv of integers is float, TF.js' " +
      "is a floor division); cast to float32 first",
  'tf.matMul': 'int32 operands are a DTypeError (strict dtypes in the C++ core: its matmul kernel is float32); cast ' +
      'to float32 first',
  'tf.pow': "pow(1, ±Infinity) and pow(1, NaN) are 1, as in C and TF (IEEE 754's pow); TF.js' Math.pow gives NaN",
  'tf.abs': "the gradient at 0 is 0 (TF's sign(0)); TF.js' is -1",
  'tf.oneHot': "the result is float32 (TF's default dtype for one_hot); TF.js' is int32",
  'tf.zerosLike': 'the gradient through it is null, as TF (Python) gives None: the result does not depend on the ' +
      'input; TF.js gives zeros',
  'tf.onesLike': 'the gradient through it is null, as TF (Python) gives None: the result does not depend on the ' +
      'input; TF.js gives zeros',
  'x.array': "a bool tensor's values are booleans (as TF's numpy() gives); TF.js' are 0 and 1",
  'x.arraySync': "a bool tensor's values are booleans (as TF's numpy() gives); TF.js' are 0 and 1",
  // The math group.
  'tf.floorDiv': "float32 inputs give float32 (as TF, and TF.js' webgl backend); TF.js' cpu backend gives int32, so " +
      'there ±Infinity and NaN become 0 (a TF.js bug). An int32 divisor of 0 is an InvalidArgument (as TF); TF.js gives 0',
  'tf.mod': 'an int32 divisor of 0 is an InvalidArgument (as TF); TF.js gives 0',
  'tf.sign': "sign(NaN) is NaN (as TF and NumPy); TF.js' is 0",
  // The conv group.
  'tf.conv1d': "a numeric pad pads the width (TF.js' conv1d passes it to conv2d, which pads the height of 1 too, and " +
      'throws). Tracelab has a gradient for dilations > 1 (TF.js has none); it agrees with central differences',
  'tf.conv3d': "'same' padding never starts a window inside x: where the window is smaller than the stride TF.js 4.22 " +
      "pads by -1 (its 3-D 'same' lacks the max(0, ...) of TF's). Tracelab has a gradient for dilations > 1 (TF.js has none)",
  'tf.conv3dTranspose': "Tracelab has a gradient (TF.js 4.22 has none for Conv3DBackpropInputV2); it agrees with central differences",
  ...Object.fromEntries(['tf.maxPool3d', 'tf.avgPool3d'].map((name) => [name, "'same' padding never starts a window inside " +
      "x, as tf.conv3d. TF.js 4.22's gradient is wrong where windows meet the padding (avgPool3d divides by the whole " +
      "window; maxPool3d's is off for uneven windows); Tracelab's agrees with central differences"])),
  'tf.pool': "with a numeric pad the average's gradient divides by the cells inside the window (TF.js 4.22's by the " +
      'whole window, unlike its forward pass); Tracelab\'s agrees with central differences',
  'tf.maxPoolWithArgmax': "Tracelab has a gradient for the values (maxPool's; TF.js has none)",
  'tf.fused.depthwiseConv2d': "activation 'leakyrelu' without leakyreluAlpha uses 0.2 (TF.js 4.22 gives NaN for the " +
      'negative outputs: its kernel gets no alpha)',
  // The image group.
  ...Object.fromEntries(['tf.image.flipLeftRight', 'tf.image.rgbToGrayscale', 'tf.image.rotateWithOffset', 'tf.diag']
    .map((name) => [name, 'Tracelab has a gradient (TF.js has none); central differences of TF.js\' forward pass agree with it'])),
  'tf.image.resizeBilinear': "TF.js 4.22's gradient throws (its ResizeBilinearGrad swaps height and width); Tracelab's " +
      "agrees with central differences of TF.js' forward pass",
  'tf.image.resizeNearestNeighbor': "TF.js 4.22's gradient is NaN in the second image of a batch when shrinking and " +
      "wrong with halfPixelCenters; Tracelab's agrees with central differences of TF.js' forward pass",
  'tf.linalg.bandPart': "TF.js 4.22's gradient throws (the stack of its unstacked matrices); Tracelab's agrees with " +
      "central differences of TF.js' forward pass",
  'tf.linalg.qr': "Tracelab has a gradient; TF.js 4.22's throws (its Householder sign goes through greater, which has " +
      'none). A batch of non-square matrices works (TF.js reshapes q and r to the input\'s shape and throws)',
  'tf.image.transform': "every image of a batch is transformed; TF.js 4.22's cpu kernel returns inside its batch loop " +
      'and leaves images 1, 2, ... at fillValue (a TF.js bug). The source positions are float32 (TF.js: float64), so ' +
      "one within 1e-7 of a half pixel may round the other way in 'nearest'",
  'tf.image.cropAndResize': "the sampling positions are float32 (TF.js: float64), so one within 1e-7 of a half pixel " +
      "may round the other way in 'nearest'. Tracelab has a gradient for the image and the boxes (TF.js has none)",
  // The slice group.
  ...Object.fromEntries([1, 2, 3, 4].map((rank) => [`tf.concat${rank}d`, 'tensors of different dtypes are a DTypeError (as ' +
      "in TF); TF.js converts them to the first tensor's dtype, truncating floats to int32"])),
  'tf.reverse': 'an axis named twice is an InvalidArgument (as in TF); TF.js reverses that dimension twice, leaving it ' +
      'as it was',
  'tf.depthToSpace': 'has a gradient (TF.js has none) and takes any dtype and NCHW too (TF.js: float32, and NHWC on ' +
      'its cpu backend)',
  'tf.mirrorPad': "the gradient adds dy's mirrored copies to x's (as TF's MirrorPadGrad); TF.js' takes x's own place " +
      'only',
  'tf.stridedSlice': 'a begin past the end with stride 1 gives an empty result (as in TF, and as TF.js gives for other ' +
      "strides); TF.js throws 'Negative size values should be exactly -1'. Tracelab has a gradient (TF.js has none)",
  // The gather group.
  'tf.unsortedSegmentSum': "int32 x gives int32 sums (as in TF); TF.js' cpu kernel returns float32 (it multiplies by a " +
      "float32 mask). An id outside [0, numSegments) gets a zero gradient; TF.js' gradient throws there (a TF.js bug)",
  'tf.gatherND': 'Tracelab has a gradient (TF.js 4.22 has none): the gathered gradients added up at their elements',
  'tf.scatterND': 'Tracelab has a gradient (TF.js 4.22 has none): each update gets the gradient where it lands',
  'tf.raggedTensorToTensor': "a defaultValue of more than one element fills the empty places (as in TF); TF.js 4.22's " +
      'kernel copies it into a copy of the output and leaves zeros (a TF.js bug). A scalar shape -1 (unknown) and inner ' +
      "dims taken from values work as in TF, where TF.js 4.22 throws or makes a wrong shape",
  'tf.denseBincount': 'binaryOutput applies to a vector x too (as in TF); TF.js 4.22 ignores it there and counts (a ' +
      'TF.js bug: its matrix path honours it)',
  // The creation group.
  'tf.multinomial': "each row has draws of its own (TF's); TF.js draws every row with one sequence (rows of equal " +
      'logits get equal samples)',
  // The misc group.
  'tf.einsum': "the values are right where TF.js' are wrong: TF.js sums the wrong axes in some equations that sum " +
      "labels out ('ij,j->j', 'ij,k->i', 'ij,jk->k', 'ij,kl->' give other shapes or values); differentiable (TF.js' is not)",
};

/**
 * Differences a TF.js program may meet outside any one op's row: each a heading and why. Rendered after the
 * coverage.
 */
export const BEHAVIOUR = [
  ['Adam\'s epsilon', "tl.train.adam follows TF (Keras): w -= lr·sqrt(1 - β2^t)/(1 - β1^t) · m / (sqrt(v) + ε), which is " +
    "TF.js' w -= lr·m̂ / (sqrt(v̂) + ε) with ε replaced by ε/sqrt(1 - β2^t): a larger ε early on, tending to ε. Only gradients near ε (1e-7) see it: " +
    'after 100 steps of lr 0.01 with gradients of 1e-6 a weight moves 17.6-28.1% less than with TF.js; with gradients of ' +
    '1e-3, 0.05% less; with gradients of 1, 6e-6 (measured 2026-12-05 on TF.js 4.22, cpu backend)'],
  ['Dtypes', 'float32, int32 and bool: no complex64 or string tensors, so the complex, spectral (fft) and string ' +
    'ops are not supported (no kernel can hold their values)'],
  ['Strict dtypes in the core', 'the JavaScript API promotes dtypes as TF.js does (bool < int32 < float32); the C++ ' +
    'core and tl.runOp keep TF\'s rule (equal dtypes or a DTypeError)'],
  ['One backend', 'every op runs on the C++ core compiled to WebAssembly: tf.setBackend and the GPU APIs have no ' +
    'counterpart, and no program needs them to run'],
  ['Graphs', 'tl.function traces a function into a graph as TF\'s tf.function does (TF.js has none); the ops whose ' +
    "output shape depends on the values (unique, whereAsync, NMS, ...) run eagerly only and say so inside tl.function"],
];

/** The groups of the namespaces of ops (tf.image.*, tf.linalg.*, ...), whose members' declarations carry no @doc. */
const NAMESPACE_GROUPS = {
  image: 'Operations / Images', linalg: 'Operations / Linear Algebra', losses: 'Training / Losses',
  spectral: 'Operations / Spectral', signal: 'Operations / Signal', sparse: 'Operations / Sparse',
  string: 'Operations / String', fused: 'Operations / Fused',
};

/** TypeScript's compiler API, from the root's dev dependencies. */
function typescript() {
  return createRequire(join(root, 'package.json'))('typescript');
}

/** The `@doc {heading, subheading}` of a declaration as "Heading / Subheading", or undefined. */
function docGroup(ts, declaration) {
  for (const tag of ts.getJSDocTags(declaration)) {
    if (tag.tagName.text !== 'doc') continue;
    const text = typeof tag.comment === 'string' ? tag.comment : ts.getTextOfJSDocComment(tag.comment) ?? '';
    const heading = /heading:\s*'([^']*)'/.exec(text)?.[1];
    const subheading = /subheading:\s*'([^']*)'/.exec(text)?.[1];
    if (heading) return subheading ? `${heading} / ${subheading}` : heading;
  }
  return undefined;
}

/**
 * TF.js' API from its declarations: {version, exports: [{name, file, kind: 'value' | 'namespace', group?, members?}],
 * methods: [{name, group?}], typeOnly: count}.
 */
export function readTfjsApi(tfjsCore = TFJS_CORE) {
  const ts = typescript();
  const dist = join(tfjsCore, 'dist');
  if (!existsSync(join(dist, 'index.d.ts')))
    throw new Error(`tfjs_compat: ${relative(root, dist)}/index.d.ts is missing; install TF.js: ` +
                    'scripts/setup.sh test (or npm ci --prefix bench/js)');
  const chained = join(dist, 'public/chained_ops');
  const roots = [join(dist, 'index.d.ts'),
    ...readdirSync(chained).filter((f) => f.endsWith('.d.ts')).map((f) => join(chained, f))];
  for (const ns of Object.keys(NAMESPACE_GROUPS)) {
    const folder = join(dist, 'ops', ns);
    if (existsSync(folder))
      roots.push(...readdirSync(folder).filter((f) => f.endsWith('.d.ts') && !f.includes('_test'))
                                       .map((f) => join(folder, f)));
  }
  const program = ts.createProgram(roots, { noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const fileOf = (declaration) => relative(dist, declaration.getSourceFile().fileName).replaceAll('\\', '/');

  // @doc groups of the namespaces' functions: "image/flipLeftRight" -> "Operations / Images"
  const namespaceDocs = new Map();
  for (const source of program.getSourceFiles()) {
    const file = relative(dist, source.fileName).replaceAll('\\', '/');
    const ns = /^ops\/([a-z_]+)\//.exec(file)?.[1];
    if (!ns) continue;
    ts.forEachChild(source, (node) => {
      if ((ts.isFunctionDeclaration(node) && node.name) || ts.isVariableStatement(node)) {
        // The doc sits on the implementation (`declare function flipLeftRight_`) the export's type names.
        const names = ts.isFunctionDeclaration(node) ? [node.name.text]
                                                     : node.declarationList.declarations.map((d) => d.name.getText());
        const group = docGroup(ts, node);
        if (group) for (const name of names) namespaceDocs.set(`${ns}/${name.replace(/_$/, '')}`, group);
      }
    });
  }

  // An op is exported as `export declare const abs: typeof abs_;`: its @doc is on the function the type names.
  const exportGroup = (declaration) => {
    const own = docGroup(ts, declaration);
    if (own || !ts.isVariableDeclaration(declaration) || !declaration.type || !ts.isTypeQueryNode(declaration.type))
      return own;
    const implementation = checker.getSymbolAtLocation(declaration.type.exprName);
    const target = implementation?.declarations?.[0];
    return target ? docGroup(ts, target) : undefined;
  };

  const index = checker.getSymbolAtLocation(program.getSourceFile(roots[0]));
  const exports = [];
  let typeOnly = 0;
  for (const symbol of checker.getExportsOfModule(index)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (!(target.flags & ts.SymbolFlags.Value)) { typeOnly++; continue; }
    const declaration = target.valueDeclaration ?? target.declarations?.[0];
    const file = fileOf(declaration);
    const name = symbol.name;
    const entry = { name, file, kind: 'value', group: exportGroup(declaration) };
    // A namespace of ops (tf.image, tf.losses, ...): a const whose type lists the functions.
    if (file.startsWith('ops/') && Object.hasOwn(NAMESPACE_GROUPS, name)) {
      entry.kind = 'namespace';
      const type = checker.getTypeOfSymbolAtLocation(target, declaration);
      entry.members = checker.getPropertiesOfType(type).map((p) => ({
        name: p.name, group: namespaceDocs.get(`${name}/${p.name}`) ?? NAMESPACE_GROUPS[name] }));
    }
    exports.push(entry);
  }

  const tensorSymbol = checker.getExportsOfModule(index).find((s) => s.name === 'Tensor');
  const tensorClass = checker.getAliasedSymbol(tensorSymbol);
  const tensorType = checker.getDeclaredTypeOfSymbol(tensorClass);
  const opGroups = new Map(exports.filter((e) => e.group).map((e) => [e.name, e.group]));
  const methods = [];
  for (const property of checker.getPropertiesOfType(tensorType)) {
    if (!(property.flags & ts.SymbolFlags.Method)) continue;
    const declaration = property.declarations[0];
    if (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
    methods.push({ name: property.name, file: fileOf(declaration),
                   group: opGroups.get(property.name) ?? docGroup(ts, declaration) ?? 'Tensors / Classes' });
  }
  const version = JSON.parse(readFileSync(join(tfjsCore, 'package.json'), 'utf8')).version;
  return { version, exports, methods, typeOnly };
}

/** The NON_OPS group of an export outside the ops, or undefined when it is an op. */
function nonOpGroup(entry) {
  const found = NON_OPS.find((g) => g.names.includes(entry.name) || g.files.some((p) => p.test(entry.file)));
  if (found) return found;
  if (entry.file.startsWith('ops/')) return undefined;
  throw new Error(`tfjs_compat: tf.${entry.name} (declared in ${entry.file}) is not an op and in no group: ` +
                  'add it to NON_OPS in scripts/tfjs_compat.mjs');
}

/** Tracelab's value at a dotted path of tl ('losses.meanSquaredError'), or undefined. */
const lookUp = (tl, path) => path.split('.').reduce((value, key) => (value == null ? undefined : value[key]), tl);

/** A row's status: 'supported', 'not supported' or 'deliberately different'. */
function status(name, present) {
  if (DIFFERENT[name] !== undefined) {
    if (!present) throw new Error(`tfjs_compat: DIFFERENT lists ${name}, which Tracelab does not have; remove it`);
    return 'deliberately different';
  }
  return present ? 'supported' : 'not supported';
}

/**
 * The table: {version, ops: [{name, path, group, status}], methods: [...same], nonOps: [{group, reason, rows}],
 * typeOnly}. `name` is as a user writes it ('tf.image.flipLeftRight', 'x.add'); `path` is the tl path of an op.
 */
export function compatTable(tl, api = readTfjsApi()) {
  const ops = [];
  const nonOps = new Map(NON_OPS.map((g) => [g.group, { ...g, rows: [] }]));
  for (const entry of api.exports) {
    const group = nonOpGroup(entry);
    if (group) {
      const name = `tf.${entry.name}`;
      nonOps.get(group.group).rows.push({ name, status: status(name, lookUp(tl, entry.name) !== undefined) });
      continue;
    }
    const members = entry.kind === 'namespace'
      ? entry.members.map((m) => ({ path: `${entry.name}.${m.name}`, group: m.group }))
      : [{ path: entry.name, group: entry.group ?? 'Operations / Other' }];
    for (const { path, group: heading } of members) {
      const name = `tf.${path}`;
      ops.push({ name, path, group: heading, status: status(name, typeof lookUp(tl, path) === 'function') });
    }
  }
  const prototype = tl.Tensor.prototype;
  const methods = [];
  for (const m of api.methods) {
    const name = `x.${m.name}`, present = typeof prototype[m.name] === 'function';
    const group = NON_OPS.find((g) => g.methods?.includes(m.name));
    if (group) nonOps.get(group.group).rows.push({ name, status: status(name, present) });
    else methods.push({ name, path: m.name, group: m.group, status: status(name, present) });
  }
  for (const name of Object.keys(NOTES))
    if (![...ops, ...methods].some((row) => row.name === name && row.status === 'supported'))
      throw new Error(`tfjs_compat: NOTES has ${name}, which is not a supported op or Tensor method; ` +
                      'remove it (or move it to DIFFERENT)');
  for (const name of Object.keys(DIFFERENT))
    if (![...ops, ...methods, ...[...nonOps.values()].flatMap((g) => g.rows)].some((row) => row.name === name))
      throw new Error(`tfjs_compat: DIFFERENT lists ${name}, which is not in TF.js ${api.version}'s API`);
  const byName = (a, b) => a.group.localeCompare(b.group) || a.name.localeCompare(b.name);
  return { version: api.version, ops: ops.sort(byName), methods: methods.sort(byName),
           nonOps: [...nonOps.values()], typeOnly: api.typeOnly };
}

/** {supported, different, total} of rows. */
export function coverage(rows) {
  return { supported: rows.filter((r) => r.status === 'supported').length,
           different: rows.filter((r) => r.status === 'deliberately different').length, total: rows.length };
}

const percent = ({ supported, total }) => `${supported} / ${total} (${(100 * supported / total).toFixed(1)}%)`;

/** The coverage lines the script prints and the document opens with. */
export function coverageLines(table) {
  const ops = coverage(table.ops), methods = coverage(table.methods);
  return [`ops: ${percent(ops)} supported, ${ops.different} deliberately different`,
          `Tensor methods: ${percent(methods)} supported, ${methods.different} deliberately different`];
}

function groupedTable(rows, lines) {
  let group = null;
  for (const row of rows) {
    if (row.group !== group) {
      group = row.group;
      lines.push('', `### ${group}`, '', '| API | Tracelab | difference, on purpose |', '|---|---|---|');
    }
    // x.div shows tf.div's note
    const why = DIFFERENT[row.name] ?? NOTES[row.name] ?? NOTES[row.name.replace(/^x\./, 'tf.')] ?? '';
    lines.push(`| \`${row.name}\` | ${row.status} | ${why.replaceAll('|', '\\|')} |`);
  }
}

/** docs/tfjs-compat.md for a table. */
export function renderCompat(table) {
  const lines = [
    '# TensorFlow.js compatibility',
    '',
    `<!-- Generated by ${COMMAND} from TF.js' type declarations and the built package; do not edit. -->`,
    '',
    `Which of TensorFlow.js ${table.version}'s core API (\`@tensorflow/tfjs-core\`) Tracelab has: every \`tf.*\` export and`,
    'every method of its `Tensor` class, read from TF.js\' own type declarations. A *supported* op is compared with',
    'TF.js (its cpu backend) on values, gradients and `tl.function` by tests/js/tfjs_diff.test.mjs; a *deliberately',
    'different* one exists but behaves as the last column says, on purpose; a supported one with a note there differs',
    'in that one respect, on purpose, and the tests check it does. The exports that are not ops (backends,',
    'kernels, platform, IO, ...) are listed last, outside the coverage, each group with its reason.',
    '',
    '## Coverage',
    '',
    ...coverageLines(table).map((line) => `- ${line}`),
    `- ${table.typeOnly} type-only exports (interfaces and type aliases) are not listed: nothing of them runs.`,
    '',
    '## Differences beyond one op',
    '',
    ...BEHAVIOUR.map(([heading, why]) => `- **${heading}**: ${why}.`),
    '',
    '## Ops',
  ];
  groupedTable(table.ops, lines);
  lines.push('', '## Tensor methods');
  groupedTable(table.methods, lines);
  lines.push('', '## Not ops (outside the coverage)');
  for (const group of table.nonOps) {
    if (group.rows.length === 0) continue;
    const names = (wanted) => group.rows.filter((r) => r.status === wanted).map((r) => `\`${r.name}\``)
                                        .sort().join(', ');
    lines.push('', `### ${group.group}`, '', `${group.reason}.`, '');
    for (const wanted of ['supported', 'deliberately different', 'not supported']) {
      const list = names(wanted);
      if (list) lines.push(`- ${wanted}: ${list}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Tracelab from TRACELAB_DIST, else build/wasm/dist. */
export async function loadTracelabForCompat() {
  const dist = process.env.TRACELAB_DIST ?? join(root, 'build/wasm/dist');
  const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
  return loadTracelab({ autograph: false });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const table = compatTable(await loadTracelabForCompat());
  const text = renderCompat(table);
  if (process.argv.includes('--print')) {
    const missing = [...table.ops, ...table.methods].filter((row) => row.status === 'not supported').map((row) => row.name);
    console.log(`not supported: ${missing.join(' ')}`);
  } else if (process.argv.includes('--check')) {
    const current = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '';
    if (current !== text) {
      console.error(`docs/tfjs-compat.md is stale: run ${COMMAND}`);
      process.exit(1);
    }
  } else {
    writeFileSync(DOC, text);
  }
  for (const line of coverageLines(table)) console.log(line);
}
