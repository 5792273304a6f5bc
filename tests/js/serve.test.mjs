// scripts/serve.mjs, the playground's static server, over raw HTTP on 127.0.0.1 (no build needed): every 200 carries
// an ETag and Last-Modified beside `cache-control: no-cache`; a conditional GET or HEAD with those validators gets a
// 304 with no body and the same security headers; a rewritten file gets a 200 with a new ETag; nothing outside the
// mounted folders is served, and malformed paths get a 404 without taking the server down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.mjs';

/** A temporary site: site/ at /, lib/ at /lib/, and a file beside them that must never be served. */
async function serveTemporarySite(t, { policy } = {}) {
  const folder = mkdtempSync(join(tmpdir(), 'tracelab-serve-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  mkdirSync(join(folder, 'site'));
  mkdirSync(join(folder, 'lib'));
  writeFileSync(join(folder, 'site/index.html'), '<!doctype html><title>page</title>\n');
  writeFileSync(join(folder, 'site/worker.js'), 'self.onmessage = () => {};\n');
  writeFileSync(join(folder, 'lib/core.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  writeFileSync(join(folder, 'secret.txt'), 'outside the mounts\n');
  const server = await startServer({ port: 0, mounts: [{ prefix: '/lib/', root: join(folder, 'lib') },
                                                       { prefix: '/', root: join(folder, 'site') }], policy });
  t.after(() => server.close());
  return { folder, port: server.address().port };
}

/** One request with the path sent as written (fetch would normalize `%2e%2e` and `//`). */
function get(port, path, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers,
                                          body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const ISOLATION = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };

test('serve: a 200 carries an ETag and Last-Modified; the same validators get a 304 with no body', async (t) => {
  const { port } = await serveTemporarySite(t);
  const first = await get(port, '/lib/core.wasm');
  assert.equal(first.status, 200);
  assert.equal(first.headers['content-type'], 'application/wasm');
  assert.equal(first.headers['cache-control'], 'no-cache');   // always revalidated: edits show at once
  assert.match(first.headers.etag, /^"[0-9a-f]+-[0-9a-f]+"$/);  // strong, quoted
  assert.ok(Number.isFinite(Date.parse(first.headers['last-modified'])), first.headers['last-modified']);
  assert.equal(first.body.length, 8);
  for (const [name, value] of Object.entries(ISOLATION)) assert.equal(first.headers[name], value, name);

  const again = await get(port, '/lib/core.wasm', { headers: { 'if-none-match': first.headers.etag } });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
  assert.equal(again.headers.etag, first.headers.etag);
  assert.equal(again.headers['cache-control'], 'no-cache');
  for (const [name, value] of Object.entries(ISOLATION)) assert.equal(again.headers[name], value, name);

  // A list of tags, a weak form of ours, or * also match; another tag does not.
  for (const tags of [`"x", ${first.headers.etag}`, `W/${first.headers.etag}`, '*'])
    assert.equal((await get(port, '/lib/core.wasm', { headers: { 'if-none-match': tags } })).status, 304, tags);
  const other = await get(port, '/lib/core.wasm', { headers: { 'if-none-match': '"0-0"' } });
  assert.equal(other.status, 200);
  assert.equal(other.body.length, 8);

  // If-Modified-Since: at or after Last-Modified is a 304, earlier a 200; If-None-Match wins when both are sent.
  const since = first.headers['last-modified'];
  assert.equal((await get(port, '/lib/core.wasm', { headers: { 'if-modified-since': since } })).status, 304);
  const earlier = new Date(Date.parse(since) - 5000).toUTCString();
  assert.equal((await get(port, '/lib/core.wasm', { headers: { 'if-modified-since': earlier } })).status, 200);
  assert.equal((await get(port, '/lib/core.wasm', { headers: { 'if-modified-since': 'not a date' } })).status, 200);
  assert.equal((await get(port, '/lib/core.wasm', { headers: { 'if-none-match': '"0-0"', 'if-modified-since': since } })).status, 200);
});

test('serve: pages and worker scripts keep their Content-Security-Policy on a 304; HEAD answers without a body', async (t) => {
  const { port } = await serveTemporarySite(t);
  for (const path of ['/', '/index.html', '/worker.js']) {
    const full = await get(port, path);
    assert.equal(full.status, 200, path);
    assert.ok(full.headers['content-security-policy'], path);
    const cached = await get(port, path, { headers: { 'if-none-match': full.headers.etag } });
    assert.equal(cached.status, 304, path);
    assert.equal(cached.body.length, 0, path);
    assert.equal(cached.headers['content-security-policy'], full.headers['content-security-policy'], path);
    assert.equal(cached.headers['content-type'], full.headers['content-type'], path);
    for (const [name, value] of Object.entries(ISOLATION)) assert.equal(cached.headers[name], value, `${path} ${name}`);
  }
  const page = await get(port, '/');
  assert.match(page.headers['content-security-policy'], /script-src 'self';/);
  assert.match((await get(port, '/worker.js')).headers['content-security-policy'], /'wasm-unsafe-eval'/);

  const head = await get(port, '/lib/core.wasm', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.body.length, 0);
  assert.match(head.headers.etag, /^"/);
  assert.ok(head.headers['last-modified']);
  const headCached = await get(port, '/lib/core.wasm', { method: 'HEAD', headers: { 'if-none-match': head.headers.etag } });
  assert.equal(headCached.status, 304);
});

test('serve: policy: false serves pages and worker scripts without a Content-Security-Policy, the rest unchanged', async (t) => {
  const { port } = await serveTemporarySite(t, { policy: false });
  for (const path of ['/', '/worker.js']) {
    const full = await get(port, path);
    assert.equal(full.status, 200, path);
    assert.equal(full.headers['content-security-policy'], undefined, path);
    for (const [name, value] of Object.entries(ISOLATION)) assert.equal(full.headers[name], value, `${path} ${name}`);
  }
  assert.equal((await get(port, '/lib/core.wasm')).headers['content-type'], 'application/wasm');
});

test('serve: a rewritten file gets a 200 with a new ETag and the new bytes', async (t) => {
  const { folder, port } = await serveTemporarySite(t);
  const file = join(folder, 'lib/core.wasm');
  const before = await get(port, '/lib/core.wasm');

  // Same size, new bytes, a later modification time (set explicitly: the file system's clock may be coarse).
  writeFileSync(file, Buffer.from([0, 0x61, 0x73, 0x6d, 2, 0, 0, 0]));
  const later = new Date(Date.now() + 10_000);
  utimesSync(file, later, later);
  const after = await get(port, '/lib/core.wasm', { headers: { 'if-none-match': before.headers.etag,
                                                              'if-modified-since': before.headers['last-modified'] } });
  assert.equal(after.status, 200);
  assert.notEqual(after.headers.etag, before.headers.etag);
  assert.equal(after.body[4], 2);
  assert.equal((await get(port, '/lib/core.wasm', { headers: { 'if-none-match': after.headers.etag } })).status, 304);

  // A different size with the very same modification time is a change too.
  writeFileSync(file, Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0]));
  utimesSync(file, later, later);
  const grown = await get(port, '/lib/core.wasm', { headers: { 'if-none-match': after.headers.etag } });
  assert.equal(grown.status, 200);
  assert.notEqual(grown.headers.etag, after.headers.etag);
  assert.equal(grown.body.length, 9);
});

test('serve: nothing outside the mounted folders; malformed paths are a 404 and the server keeps serving', async (t) => {
  const { port } = await serveTemporarySite(t);
  for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/lib/..%2f..%2fsecret.txt',
                      '/lib/%2e%2e/%2e%2e/secret.txt', '/missing.js', '/%zz', '//']) {
    const response = await get(port, path);
    assert.equal(response.status, 404, path);
    assert.doesNotMatch(response.body.toString(), /outside the mounts/, path);
    // A conditional request for a missing file is still a 404, never a 304.
    assert.equal((await get(port, path, { headers: { 'if-none-match': '*' } })).status, 404, path);
  }
  assert.equal((await get(port, '/lib/core.wasm', { method: 'POST' })).status, 404);
  assert.equal((await get(port, '/index.html')).status, 200);  // still up
});
