// Loads the WASM core and shows values it computed: the version, the op count, a matmul, and a bad call
// turned into a JavaScript Error.
import { loadTracelab } from './lib/tracelab.mjs';

const show = (id, text) => { document.getElementById(id).textContent = text; };

/** Rows of a 2-D tensor as text lines, numbers right-aligned in columns. */
function matrixLines({ shape, values }) {
  const [rows, cols] = shape;
  const width = Math.max(...Array.from(values, (v) => String(v).length));
  const lines = [];
  for (let r = 0; r < rows; ++r) {
    const row = Array.from(values.slice(r * cols, (r + 1) * cols), (v) => String(v).padStart(width));
    lines.push(`[${row.join(' ')}]`);
  }
  return lines;
}

/** "A x B = C" with the three matrices side by side. */
function formatProduct(a, b, c) {
  const blocks = [matrixLines(a), matrixLines(b), matrixLines(c)];
  const height = Math.max(...blocks.map((lines) => lines.length));
  const widths = blocks.map((lines) => lines[0].length);
  const out = [];
  for (let i = 0; i < height; ++i) {
    const cell = (k) => (blocks[k][i] ?? '').padEnd(widths[k]);
    const middle = i === Math.floor((height - 1) / 2);
    out.push(`${cell(0)} ${middle ? 'x' : ' '} ${cell(1)} ${middle ? '=' : ' '} ${cell(2)}`.trimEnd());
  }
  return out.join('\n');
}

try {
  const tl = await loadTracelab();
  show('version', tl.version);
  show('op-count', String(tl.opNames().length));
  const a = { dtype: 'float32', shape: [2, 3], values: [1, 2, 3, 4, 5, 6] };
  const b = { dtype: 'float32', shape: [3, 2], values: [7, 8, 9, 10, 11, 12] };
  const product = tl.runOp('matmul', [a, b]);
  show('matmul', formatProduct({ ...a, values: Float32Array.from(a.values) },
                               { ...b, values: Float32Array.from(b.values) }, product));
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
