// Loads the Tracelab WebAssembly core in a browser, a worker or Node >= 20, with no flags.
//
//   import { loadTracelab } from './tracelab.mjs';
//   const tl = await loadTracelab();
//   tl.runOp('matmul', [{dtype: 'float32', shape: [2, 2], values: [1, 2, 3, 4]}, ...]);
//
// Browsers and workers import the ES-module build; Node loads the CommonJS build and is handed the .wasm
// bytes read with fs, because Emscripten 3.1.6 would otherwise try to fetch() a file path under Node 20.

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string' &&
               typeof window === 'undefined' && typeof importScripts !== 'function';

async function instantiate() {
  if (isNode) {
    const { createRequire } = await import('node:module');
    const { readFile } = await import('node:fs/promises');
    const require = createRequire(import.meta.url);
    const factory = require('./tracelab.node.cjs');
    const wasmBinary = await readFile(new URL('./tracelab.node.wasm', import.meta.url));
    return factory({ wasmBinary });
  }
  const { default: factory } = await import('./tracelab.web.mjs');
  return factory({ locateFile: (file) => new URL(file, import.meta.url).href });
}

/** Loads the core once and returns its API: {version, opNames, runOp}. */
export async function loadTracelab() {
  const core = await instantiate();
  return {
    /** The core's version, e.g. "0.1.0". */
    version: core.version(),
    /** Every op in the registry, in registry order. */
    opNames: () => core.opNames(),
    /**
     * Runs one op on plain tensors {dtype, shape, values} and returns one such tensor (values copied out of
     * WASM memory). Errors are JS Errors whose name is the core's class: ShapeError, DTypeError, ...
     */
    runOp: (name, inputs, attrs = {}) => core.runOp(name, inputs, attrs),
  };
}
