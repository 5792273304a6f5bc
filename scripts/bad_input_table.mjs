// Writes the bad-input table of docs/reliability.md from tests/bad_input_rows.json (the rows the C++, JS and page
// tests run), between the markers <!-- bad-input-table:begin --> and <!-- bad-input-table:end -->.
//   node scripts/bad_input_table.mjs           rewrite the docs
//   node scripts/bad_input_table.mjs --check   exit 1 if the docs are stale (tests/js/bad_input.test.mjs does this too)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BEGIN = '<!-- bad-input-table:begin -->';
const END = '<!-- bad-input-table:end -->';

const cell = (text) => String(text).replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The markdown table for the JSON document {rows: [...]}. */
export function renderTable(table) {
  const lines = ['| id | area | input | error type | message | tested in |', '|---|---|---|---|---|---|'];
  for (const row of table.rows) {
    const variants = [];
    const native = row.native ?? row.message;
    const wasm = row.wasm ?? row.message;
    const js = row.js ?? row.message;
    if (native === wasm && wasm === js) variants.push(row.message);
    else if (native === wasm) variants.push(`C++: ${native}`, `JS: ${js}`);
    else variants.push(`native: ${native}`, `WASM: ${wasm}`, `JS: ${js}`);
    if (row.page) variants.push(`page: ${row.page.shows}`);
    const only = row.only ?? ['native', 'wasm', 'js'];  // a row with `only` runs in the layers it lists
    const layers = [['native', 'native'], ['wasm', 'WASM'], ['js', 'JS']]
      .filter(([key]) => only.includes(key)).map(([, name]) => name);
    if (row.page) layers.push(row.page.cell ? 'page (tutorial cell)' : 'page (form)');
    lines.push(`| \`${row.id}\` | ${cell(row.area)} | ${cell(row.input)} | ${row.kind} | ${variants.map(cell).join('<br>')} | ${layers.join(', ')} |`);
  }
  return lines.join('\n');
}

/** `docs` with the text between the markers replaced by `tableText`. */
export function spliceTable(docs, tableText) {
  const begin = docs.indexOf(BEGIN);
  const end = docs.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`docs/reliability.md has no ${BEGIN} ... ${END} markers`);
  return `${docs.slice(0, begin + BEGIN.length)}\n${tableText}\n${docs.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = new URL('..', import.meta.url);
  const table = JSON.parse(readFileSync(new URL('tests/bad_input_rows.json', root), 'utf8'));
  const docsUrl = new URL('docs/reliability.md', root);
  const docs = readFileSync(docsUrl, 'utf8');
  const updated = spliceTable(docs, renderTable(table));
  if (process.argv.includes('--check')) {
    if (updated !== docs) {
      console.error('docs/reliability.md: the bad-input table is stale; run node scripts/bad_input_table.mjs');
      process.exit(1);
    }
    console.log(`docs/reliability.md: the bad-input table is current (${table.rows.length} rows)`);
  } else {
    writeFileSync(docsUrl, updated);
    console.log(`docs/reliability.md: wrote ${table.rows.length} rows`);
  }
}
