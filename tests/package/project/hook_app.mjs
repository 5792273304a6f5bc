'use autograph';
// Run with `node --import tracelab/autograph/register hook_app.mjs` in a project that installed the packed tarball:
// the package's module hook converts this module (marked above), so the plain `if` over a tensor becomes a cond
// node when tl.function traces sign(). The last line of output is a JSON report that npm_package.test.mjs checks.
import { loadTracelab } from 'tracelab';

const tl = await loadTracelab();

function sign(x) {
  if (x.greater(0)) return tl.scalar(1);
  return tl.scalar(-1);
}

const traced = tl.function(sign, { name: 'sign' });
const negative = tl.tidy(() => traced(tl.scalar(-3)).dataSync()[0]);
const positive = tl.tidy(() => traced(tl.scalar(2)).dataSync()[0]);
console.log(JSON.stringify({ negative, positive, tracingCount: traced.tracingCount,
                             graph: traced.concreteFunctions()[0].tracedGraph }));
