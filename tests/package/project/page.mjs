// The browser side of the package check: the bare import resolves through index.html's import map; a matmul and a
// traced function run in the page; the result goes into #result as JSON (or the error's name and message).
import { loadTracelab } from 'tracelab';

const result = document.getElementById('result');
try {
  const tl = await loadTracelab();
  const product = tl.tidy(() => tl.tensor([[1, 2], [3, 4]]).matMul(tl.ones([2, 2])).arraySync());
  const double = tl.function((x) => x.mul(2), { name: 'double' });
  const doubled = tl.tidy(() => Array.from(double(tl.tensor([1, 2, 3])).dataSync()));
  result.dataset.state = 'done';
  result.textContent = JSON.stringify({ version: tl.version, product, doubled, tracingCount: double.tracingCount });
} catch (error) {
  result.dataset.state = 'failed';
  result.textContent = `${error.name}: ${error.message}`;
}
