// Loads the WASM core and shows values it computed: the version, the op count, a matmul, and a bad call
// turned into a JavaScript Error.
import { loadTracelab } from './lib/tracelab.mjs';

const show = (id, text) => { document.getElementById(id).textContent = text; };

function formatMatrix({ shape, values }) {
  const [rows, cols] = shape;
  const lines = [];
  for (let r = 0; r < rows; ++r) lines.push(Array.from(values.slice(r * cols, (r + 1) * cols)).join('  '));
  return lines.join('\n');
}

try {
  const tl = await loadTracelab();
  show('version', tl.version);
  show('op-count', String(tl.opNames().length));
  const a = { dtype: 'float32', shape: [2, 3], values: [1, 2, 3, 4, 5, 6] };
  const b = { dtype: 'float32', shape: [3, 2], values: [7, 8, 9, 10, 11, 12] };
  const product = tl.runOp('matmul', [a, b]);
  show('matmul', `[[1 2 3]     [[7  8]\n [4 5 6]]  x   [9  10]\n             [11 12]]  =\n\n${formatMatrix(product)}`);
  document.getElementById('matmul').dataset.values = Array.from(product.values).join(',');
  try {
    tl.runOp('matmul', [a, a]);
  } catch (error) {
    show('bad-call', `${error.name}: ${error.message}`);
  }
  show('status', 'ready');
} catch (error) {
  show('status', `failed: ${error.message}`);
}
