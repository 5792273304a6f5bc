// The tutorials' cells run in node as the cell worker (web/tutorials/cell-worker.js) runs them in the browser:
// converted by AutoGraph, run in order as the bodies of async functions with `tl`, `show` and `shared` in scope,
// console.log lines and the core's print and warning lines counted, what `show` is given recorded, the returned
// value copied out as plain data. Used by tutorial_cells.test.mjs and tutorial_checks.test.mjs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertCell, errorLine, toPlain } from '../../web/tutorials/convert-cell.js';

const tutorials = fileURLToPath(new URL('../../web/tutorials/', import.meta.url));
const AsyncFunction = (async () => {}).constructor;
const ENTITIES = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };

/** The code cells of a lesson page: [{name, code}], the textarea's text as the page shows it. */
export function cellsOf(page) {
  const html = readFileSync(join(tutorials, page), 'utf8');
  return [...html.matchAll(/<section class="cell" data-cell="([^"]+)"[^>]*>[\s\S]*?<textarea[^>]*>\n?([\s\S]*?)<\/textarea>/g)]
    .map(([, name, code]) => ({ name, code: code.replace(/&(lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e]).replace(/\s+$/, '') }));
}

/**
 * Runs a lesson's cells in order, sharing one `shared` object; returns {name: run} with run as a page's check sees
 * it: {failed, error, result, counts: {log, print, warning}, outputs: [{kind, ...}], ms, code}.
 */
export async function runLesson(tl, page) {
  const shared = {};
  const runs = {};
  let current = null;
  const post = (kind, payload) => current?.outputs.push({ kind, ...payload });
  const text = (value) => (typeof value === 'string' ? value : (value && typeof value === 'object' && 'dtype' in value)
    ? value.toString() : JSON.stringify(value, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)) ?? String(value));
  const show = {
    text: (...parts) => post('text', { text: parts.map(text).join(' ') }),
    code: (code, title = '') => post('code', { text: String(code), title }),
    table: (rows, columns) => post('table', { columns: columns ?? (rows.length && !Array.isArray(rows[0]) ? Object.keys(rows[0]) : []),
                                              rows: structuredClone(rows) }),
    chart: (spec) => post('chart', { spec: { ...spec, x: Array.from(spec.x), series: spec.series.map((s) => ({ ...s, values: Array.from(s.values) })) } }),
    graph: (json, title = '') => post('graph', { json: typeof json === 'string' ? JSON.parse(json) : json, title }),
    ragged: (result) => post('ragged', { modes: result.modes.map((m) => ({ mode: m.mode, traces: m.retraces.length })) }),
    progress: () => {},
  };
  const log = console.log;
  console.log = (...parts) => {
    if (!current) return log(...parts);
    current.counts.log += 1;
    post('log', { text: parts.map(text).join(' ') });
  };
  tl.setLogHandler((level, line) => {
    if (!current) return;
    if (level === 'print') current.counts.print += 1;
    if (level === 'warning') current.counts.warning += 1;
    post(level === 'print' ? 'print' : level === 'warning' ? 'warning' : 'log', { text: line });
  });
  try {
    for (const { name, code } of cellsOf(page)) {
      tl[Symbol.for('tracelab.internals')].resetRetracingDetectors();  // as the cell worker does before each cell
      current = { counts: { log: 0, print: 0, warning: 0 }, outputs: [] };
      const started = performance.now();
      let lines = null;
      try {
        const converted = convertCell(tl, code);
        lines = converted.lines;
        const result = await new AsyncFunction('tl', 'show', 'shared', converted.text)(tl, show, shared);
        runs[name] = { failed: false, error: null, result: toPlain(result), counts: current.counts, outputs: current.outputs,
                       ms: performance.now() - started, code };
      } catch (error) {
        runs[name] = { failed: true, error: { name: error?.name ?? 'Error', message: String(error?.message ?? error), line: errorLine(error, lines) },
                       result: undefined, counts: current.counts, outputs: current.outputs, ms: performance.now() - started, code };
      }
    }
  } finally {
    current = null;
    console.log = log;
    tl.setLogHandler(null);
  }
  return runs;
}
