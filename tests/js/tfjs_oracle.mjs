// TensorFlow.js 4.22 (bench/js, installed by scripts/setup.sh test), the oracle of the tests/js/tfjs_* tests, loaded
// once per test process on its cpu backend. Without it those tests are skipped — or, when TRACELAB_REQUIRE_TFJS or CI
// is set (scripts/test.sh sets it), they fail, so a missing install never passes silently.
//   import { tf, skip } from './tfjs_oracle.mjs';     // tf: the package, or null when it is not installed
//   test('...', { skip }, () => { ... tf.add(...) ... });
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const benchJs = fileURLToPath(new URL('../../bench/js/package.json', import.meta.url));

export const installed = existsSync(new URL('../../bench/js/node_modules/@tensorflow/tfjs/package.json', import.meta.url));
export const required = Boolean(process.env.TRACELAB_REQUIRE_TFJS || process.env.CI);
export const missing = 'TensorFlow.js is not installed (bench/js/node_modules): run scripts/setup.sh test (or npm ci --prefix bench/js)';
/** A test's `skip` option: the reason when TF.js is missing and not required, else false (a missing one then fails). */
export const skip = !installed && !required ? `${missing}; TRACELAB_REQUIRE_TFJS=1 makes this a failure` : false;

/** The whole @tensorflow/tfjs package (the core with its gradients and chained methods, and the backends), or null. */
export const tf = installed ? await loadOracle() : null;

async function loadOracle() {
  const note = console.log;  // TF.js' note about tfjs-node, printed on loading
  console.log = () => {};
  let lib;
  try {
    lib = createRequire(benchJs)('@tensorflow/tfjs');
  } finally {
    console.log = note;
  }
  await lib.setBackend('cpu');
  if (lib.getBackend() !== 'cpu') throw new Error(`tfjs_oracle: TF.js runs on '${lib.getBackend()}', not cpu`);
  return lib;
}
