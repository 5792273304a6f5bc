#!/usr/bin/env node
// The runnable blocks of the docs: every fenced block opened with "```cpp runnable" or "```js runnable" in README.md
// and docs/**/*.md, with the "```text output" block that follows it (after blank lines only), if any. The C++ blocks
// are compiled and run by tests/docs/CMakeLists.txt, the JS blocks by tests/js/doc_blocks.test.mjs; each program's
// standard output must equal its output block.
//
//   node scripts/doc_blocks.mjs                         list the blocks: file:line lang name [+ output]
//   node scripts/doc_blocks.mjs --lang cpp --out DIR    write DIR/<name>.cpp (+ <name>.expected) and DIR/blocks.cmake
//
// An info string that looks like a try at a runnable or output block but is not one ("cpp runable", "js run",
// "cpp runnable main"), an unclosed runnable block, a cpp block without one `int main() {...}`, and an output block
// after no runnable block are errors: the command prints them as file:line and exits 2, and findBlocks throws a
// DocBlockError listing them.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SKIPPED = new Set(['build', 'node_modules', '.git']);
const LANGUAGES = new Set(['cpp', 'js']);
// First words of an info string that, followed by more words, must form "<lang> runnable" or "text output".
const CHECKED_FIRST_WORDS = new Set(['cpp', 'c++', 'cc', 'js', 'javascript', 'mjs', 'text']);

/** A malformed block; `problems` holds one "file:line: message" string each. */
export class DocBlockError extends Error {
  constructor(problems) {
    super(problems.join('\n'));
    this.name = 'DocBlockError';
    this.problems = problems;
  }
}

/** README.md and the Markdown files under docs/ (skipping build/ and node_modules/), as paths relative to `root`. */
export function docFiles(root = ROOT) {
  const walk = (dir) => readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name) || entry.isSymbolicLink()) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
  const files = existsSync(join(root, 'docs')) ? walk('docs') : [];
  return [...(existsSync(join(root, 'README.md')) ? ['README.md'] : []), ...files.sort()];
}

/** The block's name: the doc's path without docs/ and .md, non-identifier characters as '_', then the line. */
export function blockName(file, line) {
  const stem = file.replace(/^docs\//, '').replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '_').toLowerCase();
  return `${stem}_${line}`;
}

/** What an info string is: 'runnable' (with lang), 'output', 'malformed' (with why) or 'other'. */
function classify(info) {
  const words = info.trim().split(/\s+/).filter(Boolean);
  if (words.length === 2 && LANGUAGES.has(words[0]) && words[1] === 'runnable') return { kind: 'runnable', lang: words[0] };
  if (words.length === 2 && words[0] === 'text' && words[1] === 'output') return { kind: 'output' };
  const looksRunnable = words.some((word) => /^run|^runn?a?ble$|able$|^out(put)?$|^outp/i.test(word));
  if (looksRunnable) {
    return { kind: 'malformed', why: `info string "${info.trim()}" is neither "cpp runnable", "js runnable" nor "text output"` };
  }
  if (words.length > 1 && CHECKED_FIRST_WORDS.has(words[0].toLowerCase())) {
    return { kind: 'malformed', why: `unknown word after "${words[0]}" in info string "${info.trim()}"` };
  }
  return { kind: 'other' };
}

/**
 * The runnable blocks of one Markdown text: [{file, line, lang, name, code, expected}], `line` the 1-based line of
 * the opening fence, `expected` the output block's text or null. Problems are pushed to `problems`.
 */
export function parseBlocks(text, file, problems = []) {
  const lines = text.split('\n');
  const blocks = [];
  let previous = null;     // the last runnable block, while only blank lines follow it
  for (let i = 0; i < lines.length; i++) {
    const open = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) {
      if (lines[i].trim() !== '') previous = null;
      continue;
    }
    const [, indent, fence, info] = open;
    let end = i + 1;
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    while (end < lines.length && !close.test(lines[end])) end++;
    const body = lines.slice(i + 1, end).map((line) => line.replace(new RegExp(`^ {0,${indent.length}}`), ''));
    const where = `${file}:${i + 1}`;
    const kind = classify(info);
    if (kind.kind === 'malformed') problems.push(`${where}: ${kind.why}`);
    if (end === lines.length && kind.kind !== 'other') problems.push(`${where}: the block is never closed`);
    const code = body.length ? `${body.join('\n')}\n` : '';
    if (kind.kind === 'runnable') {
      const block = { file, line: i + 1, lang: kind.lang, name: blockName(file, i + 1), code, expected: null };
      if (!/\S/.test(code)) problems.push(`${where}: empty runnable block`);
      blocks.push(block);
      previous = block;
    } else if (kind.kind === 'output') {
      if (previous) previous.expected = code;
      else problems.push(`${where}: a "text output" block that follows no runnable block (only blank lines may stand between them)`);
      previous = null;
    } else {
      previous = null;
    }
    i = end;
  }
  return blocks;
}

/** Every runnable block of README.md and docs/ (of `lang` if given); throws DocBlockError on malformed blocks. */
export function findBlocks({ root = ROOT, lang = null } = {}) {
  const problems = [];
  const blocks = docFiles(root).flatMap((file) => parseBlocks(readFileSync(join(root, file), 'utf8'), file, problems));
  for (const block of blocks.filter((each) => each.lang === 'cpp')) {
    try {
      cppSource(block, root);
    } catch (error) {
      if (!(error instanceof DocBlockError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length) throw new DocBlockError(problems);
  return lang ? blocks.filter((block) => block.lang === lang) : blocks;
}

/** The index of the brace that closes the one at `open` in C++ `code` (comments, strings, characters skipped). */
function closingBrace(code, open) {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const rest = code.slice(i);
    const skip = /^\/\/[^\n]*/.exec(rest) ?? /^\/\*[^]*?\*\//.exec(rest) ?? /^R"([^(]*)\([^]*?\)\1"/.exec(rest) ??
      /^"(?:[^"\\\n]|\\.)*"/.exec(rest) ?? /^'(?:[^'\\\n]|\\.)*'/.exec(rest);
    if (skip) {
      i += skip[0].length - 1;
    } else if (code[i] === '{') {
      depth++;
    } else if (code[i] === '}' && --depth === 0) {
      return i;
    }
  }
  return -1;
}

/**
 * A C++ block as a source of the one doc_blocks executable: its #include lines first, the rest in a namespace of its
 * own, `doc_block_<name>_code` (so two blocks compiled in one unity batch may both define a `struct Model` or a
 * helper), then `int doc_block_<name>()` that calls the block's main. Only the real main may end without a return, so `return 0;` is added before the
 * brace that closes the block's main, on that line. #line directives make compiler messages name the doc's lines.
 * Throws DocBlockError when the block has no `int main()`.
 */
export function cppSource(block, root = ROOT) {
  const path = join(root, block.file).replace(/\\/g, '/');
  const mains = [...block.code.matchAll(/\bint\s+main\s*\(\s*(?:void\s*)?\)\s*\{/g)];
  const end = mains.length === 1 ? closingBrace(block.code, mains[0].index + mains[0][0].length - 1) : -1;
  if (end < 0) {
    throw new DocBlockError([`${block.file}:${block.line}: a cpp runnable block needs one \`int main() { ... }\``]);
  }
  const code = `${block.code.slice(0, end)} return 0; ${block.code.slice(end)}`;
  const lines = code.replace(/\n$/, '').split('\n');
  const isInclude = (line) => /^\s*#\s*include\b/.test(line);
  const includes = lines.flatMap((line, index) => (isInclude(line) ? [`#line ${block.line + 1 + index} "${path}"`, line] : []));
  const space = `doc_block_${block.name}_code`;
  return [...includes, `namespace ${space} {`, `#line ${block.line + 1} "${path}"`,
          ...lines.map((line) => (isInclude(line) ? '' : line)),
          `}  // namespace ${space}`, `int doc_block_${block.name}() { return ${space}::main(); }`, ''].join('\n');
}

/** Writes `text` to `path` unless it holds it already (unchanged files keep their time: no rebuild). */
function writeIfChanged(path, text) {
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return;
  writeFileSync(path, text);
}

/** Writes the blocks of `lang` to `out`: <name>.<lang ext>, <name>.expected, blocks.cmake; removes stale ones. */
export function writeBlocks(lang, out, root = ROOT) {
  const blocks = findBlocks({ root, lang });
  const extension = lang === 'cpp' ? 'cpp' : 'mjs';
  mkdirSync(out, { recursive: true });
  const keep = new Set(['blocks.cmake']);
  for (const block of blocks) {
    const source = `${block.name}.${extension}`;
    writeIfChanged(join(out, source), lang === 'cpp' ? cppSource(block, root) : block.code);
    keep.add(source);
    if (block.expected !== null) {
      writeIfChanged(join(out, `${block.name}.expected`), block.expected);
      keep.add(`${block.name}.expected`);
    }
  }
  for (const entry of readdirSync(out)) {
    if (!keep.has(entry) && /\.(cpp|mjs|expected)$/.test(entry)) rmSync(join(out, entry));
  }
  const manifest = ['# Written by scripts/doc_blocks.mjs: the runnable blocks of the docs, and where each one is.',
    `set(DOC_BLOCKS ${blocks.map((block) => block.name).join(' ')})`,
    ...blocks.map((block) => `set(DOC_BLOCK_WHERE_${block.name} "${block.file}:${block.line}")`), ''].join('\n');
  writeIfChanged(join(out, 'blocks.cmake'), manifest);
  return blocks;
}

function main(argv) {
  const usage = 'usage: node scripts/doc_blocks.mjs [--lang cpp|js] [--out DIR]';
  let lang = null;
  let out = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--lang' && LANGUAGES.has(argv[i + 1])) lang = argv[++i];
    else if (argv[i] === '--out' && argv[i + 1]) out = argv[++i];
    else {
      console.error(`doc_blocks: bad argument ${argv[i]}\n${usage}`);
      return 2;
    }
  }
  try {
    if (out) {
      if (!lang) {
        console.error(`doc_blocks: --out needs --lang\n${usage}`);
        return 2;
      }
      const blocks = writeBlocks(lang, out);
      console.log(`doc_blocks: ${blocks.length} ${lang} runnable blocks written to ${out}`);
    } else {
      for (const block of findBlocks({ lang })) {
        console.log(`${block.file}:${block.line} ${block.lang} ${block.name}${block.expected !== null ? ' + output' : ''}`);
      }
    }
  } catch (error) {
    if (!(error instanceof DocBlockError)) throw error;
    for (const problem of error.problems) console.error(`doc_blocks: ${problem}`);
    return 2;
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
