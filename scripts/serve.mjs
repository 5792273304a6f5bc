// A static file server for the playground, bound to 127.0.0.1 only. Mounts map URL prefixes to folders; without
// --mount it serves the site (siteMounts: the pages, the WASM build, the TF.js example programs):
//   node scripts/serve.mjs --port 8080 [--mount /=web --mount /lib=build/wasm/dist ...]
// .wasm is served as application/wasm (required for streaming compilation); pages are cross-origin isolated (for
// fine-grained timers) and carry a Content-Security-Policy (below) unless startServer is told `policy: false`.
// Prints the URL when ready.
// Caching: every response says `cache-control: no-cache` (the browser must ask again each time, so an edit or a
// rebuild shows at once) and carries validators, an ETag and Last-Modified, so asking again costs a 304 with no body
// when nothing changed. That keeps the browser's cache entry — and Chrome's WebAssembly code cache, which stores
// the optimized machine code beside the .wasm's HTTP cache entry — alive across visits instead of downloading and
// compiling the module anew each time.
import { createServer } from 'node:http';
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * The site as scripts/serve.sh serves it: web/ at /, the WASM build (`dist`, default build/wasm/dist) at /lib/, and
 * examples/tfjs at /examples/tfjs/ (the TF.js programs page imports them).
 */
export function siteMounts(dist = join(repoRoot, 'build/wasm/dist')) {
  return [{ prefix: '/lib/', root: dist }, { prefix: '/examples/tfjs/', root: join(repoRoot, 'examples/tfjs') },
          { prefix: '/', root: join(repoRoot, 'web') }];
}

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
  if (options.mounts.length === 0) options.mounts = siteMounts();
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

/** A file's validator: its size and modification time in nanoseconds, in hex, quoted. A rebuild changes the time
 *  (and usually the size); the same bytes rewritten also count as a change, which costs one download, never a stale file. */
function entityTag(stats) {
  return `"${stats.size.toString(16)}-${stats.mtimeNs.toString(16)}"`;
}

/** Whether the request's validators match the file (RFC 9110 §13.1): If-None-Match (weak comparison, or `*`) when
 *  present, otherwise If-Modified-Since at the one-second resolution of HTTP dates. */
function notModified(request, tag, modifiedMs) {
  const noneMatch = request.headers['if-none-match'];
  if (noneMatch !== undefined) {
    return noneMatch.split(',').some((candidate) => {
      const value = candidate.trim();
      return value === '*' || value.replace(/^W\//, '') === tag;
    });
  }
  const since = Date.parse(request.headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && Math.floor(modifiedMs / 1000) * 1000 <= since;
}

/** Answers a GET or HEAD for a located file: 200 with the body (not for HEAD), or 304 without one; `policy`: whether
 *  pages and worker scripts carry their Content-Security-Policy. */
async function sendFile(request, response, file, policy) {
  // The validators come from the open file, so they describe the bytes sent even if the file is replaced meanwhile.
  const handle = await open(file, 'r');
  let stats;
  try {
    stats = await handle.stat({ bigint: true });
  } catch (error) {
    await handle.close();
    throw error;
  }
  const tag = entityTag(stats);
  const modifiedMs = Number(stats.mtimeMs);
  const fresh = notModified(request, tag, modifiedMs);
  // The same headers on a 304 as on a 200: the browser updates its stored response from them, and a cached page
  // or worker script keeps its Content-Security-Policy and cross-origin isolation.
  response.writeHead(fresh ? 304 : 200, {
    'content-type': types[extname(file)] ?? 'application/octet-stream',
    'cache-control': 'no-cache',
    etag: tag,
    'last-modified': new Date(modifiedMs).toUTCString(),
    ...(policy ? securityPolicy(file) : {}),
    // Cross-origin isolation: browsers then time with performance.now() at 5 µs instead of 100 µs, which the
    // per-step timings need (a traced step takes 20-30 µs). Every asset is same-origin, so nothing breaks.
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-embedder-policy': 'require-corp',
  });
  if (fresh || request.method === 'HEAD') {
    await handle.close();
    response.end();
  } else {
    pipeline(handle.createReadStream(), response, () => {});  // closes the file at the end, or when the client leaves
  }
}

/**
 * Serves `mounts` ([{prefix, root}]) on 127.0.0.1:`port` (0: any free port); resolves to the listening server.
 * `policy: false` leaves out the Content-Security-Policy, for a page that is not the playground's: tests/package
 * serves a project that loads the API on the page itself, through an inline import map, which embind's `new Function`
 * and the inline script need and PAGE_POLICY forbids.
 */
export function startServer({ port, mounts, policy = true }) {
  const server = createServer((request, response) => {
    let urlPath = request.url;
    let file = null;
    try {
      urlPath = new URL(request.url, 'http://127.0.0.1').pathname;
      if (request.method === 'GET' || request.method === 'HEAD') file = locate(mounts, urlPath);
    } catch { /* a malformed URL or escape (%zz): no such file */ }
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${urlPath}\n`);
      return;
    }
    sendFile(request, response, file, policy).catch((error) => {  // removed or unreadable since locate(): as if not there
      if (response.headersSent) response.destroy(error);
      else response.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${urlPath}\n`);
    });
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
