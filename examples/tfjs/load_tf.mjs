// Loads the `tf` the examples run on: Tracelab's TF.js entry (build/wasm/dist/tfjs.mjs, or $TRACELAB_DIST/tfjs.mjs),
// or with useTfjs TensorFlow.js from bench/js/node_modules on its cpu backend.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export async function loadTf(useTfjs) {
  if (useTfjs) {
    const require = createRequire(new URL('../../bench/js/package.json', import.meta.url));
    const tf = await import(pathToFileURL(require.resolve('@tensorflow/tfjs')).href);
    await tf.setBackend('cpu');
    return tf;
  }
  const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
  return import(pathToFileURL(`${dist.replace(/\/$/, '')}/tfjs.mjs`).href);
}
