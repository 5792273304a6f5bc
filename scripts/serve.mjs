// A static file server for the playground, bound to 127.0.0.1 only. Mounts map URL prefixes to folders:
//   node scripts/serve.mjs --port 8080 --mount /=web --mount /lib=build/wasm/dist
// .wasm is served as application/wasm (required for streaming compilation); pages are cross-origin isolated (for
// fine-grained timers) and carry a Content-Security-Policy (below). Prints the URL when ready.
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.map': 'application/json', '.txt': 'text/plain; charset=utf-8',
};

function parseArgs(argv) {
  const options = { port: 8080, mounts: [] };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--port') options.port = Number(argv[i + 1]);
    else if (argv[i] === '--mount') {
      const [prefix, folder] = argv[i + 1].split('=');
      options.mounts.push({ prefix: prefix.endsWith('/') ? prefix : prefix + '/', root: resolve(folder) });
    } else throw new Error(`unknown option ${argv[i]}`);
  }
  options.mounts.sort((a, b) => b.prefix.length - a.prefix.length);  // longest prefix wins
  return options;
}

/** The file a URL path maps to, or null (never a path outside the mounted folder). */
function locate(mounts, urlPath) {
  for (const { prefix, root } of mounts) {
    if (!(urlPath + '/').startsWith(prefix) && urlPath !== prefix.slice(0, -1)) continue;
    let file = normalize(join(root, decodeURIComponent(urlPath.slice(prefix.length - 1))));
    if (file !== root && !file.startsWith(root + sep)) return null;
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      if (statSync(file).isFile()) return file;
    } catch { /* not in this mount: try the next */ }
  }
  return null;
}

// Content-Security-Policy. Pages may run only scripts from this origin (no inline scripts, no eval) and styles from
// this origin (CodeMirror's styles are constructed style sheets, which a CSP does not govern); images may also be
// data: URLs (the icon). Workers get their own policy, from their script's response: they also may compile
// WebAssembly and evaluate code — embind (Emscripten 3.1.6) builds its glue with `new Function`, and the tutorials
// run the reader's cells as functions made from text. So user code can only ever run inside a worker, which has no
// DOM and which the page can terminate. connect-src 'self' keeps a cell from sending data anywhere else.
const PAGE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; worker-src 'self'; " +
                    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const WORKER_POLICY = "default-src 'self'; script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval'; connect-src 'self'";

/** The policy header for a file: pages and worker scripts (by name: *worker.js) get one, other files need none. */
function securityPolicy(file) {
  if (extname(file) === '.html') return { 'content-security-policy': PAGE_POLICY };
  if (/worker\.js$/.test(file)) return { 'content-security-policy': WORKER_POLICY };
  return {};
}

export function startServer({ port, mounts }) {
  const server = createServer((request, response) => {
    const urlPath = new URL(request.url, 'http://127.0.0.1').pathname;
    const file = request.method === 'GET' || request.method === 'HEAD' ? locate(mounts, urlPath) : null;
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${urlPath}\n`);
      return;
    }
    response.writeHead(200, {
      'content-type': types[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
      ...securityPolicy(file),
      // Cross-origin isolation: browsers then time with performance.now() at 5 µs instead of 100 µs, which the
      // per-step timings need (a traced step takes 20-30 µs). Every asset is same-origin, so nothing breaks.
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
    });
    if (request.method === 'HEAD') response.end();
    else createReadStream(file).pipe(response);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolvePromise(server));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = parseArgs(process.argv.slice(2));
  const server = await startServer(options);
  console.log(`Tracelab playground: http://127.0.0.1:${server.address().port}/`);
}
