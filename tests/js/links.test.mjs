// Every relative link in the Markdown files (README.md, docs/, and any other *.md outside node_modules/ and build/)
// names a file or folder that exists, and a #fragment names a heading (GitHub's anchor for it) or an HTML id/name
// in the target file. Links with a scheme (https:, mailto:) are not followed. Inline links and images, reference
// definitions and HTML src/href attributes count; code blocks and code spans do not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SKIPPED = new Set(['node_modules', 'build', '.git']);

/** The Markdown files under `dir`, skipping node_modules, build and .git. */
function markdownFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name) || entry.isSymbolicLink()) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Text with `pattern`'s matches blanked to spaces (newlines kept, so lines keep their numbers). */
const blanked = (text, pattern) => text.replace(pattern, (match) => match.replace(/[^\n]/g, ' '));
/** Markdown text without fenced code blocks. */
const withoutFences = (text) => blanked(text, /^( {0,3})(```|~~~)[^]*?^\1\2[^\n]*$/gm);
/** Markdown text without fenced code blocks and code spans. */
const withoutCode = (text) => blanked(withoutFences(text), /(`+)[^`\n]*?\1/g);

/** The link targets of Markdown text: [{target, line}], in order. */
export function linkTargets(text) {
  const prose = withoutCode(text);
  const targets = [];
  const add = (target, index) => targets.push({ target, line: prose.slice(0, index).split('\n').length });
  // [text](target "title") and ![alt](target); the text may hold one level of brackets (an image inside a link).
  for (const match of prose.matchAll(/!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
    add(match[1], match.index);
  for (const match of prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) add(match[1], match.index);
  for (const match of prose.matchAll(/<(?:a|img)\s[^>]*?\b(?:href|src)="([^"]+)"/g)) add(match[1], match.index);
  return targets;
}

/** GitHub's anchors for the headings of Markdown text (lowercase, punctuation dropped, spaces to '-', repeats -1, -2 ...),
 *  and the id and name attributes of its HTML. */
export function anchors(text) {
  const found = new Set();
  const counts = new Map();
  for (const [, heading] of withoutFences(text).matchAll(/^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
    const plain = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const slug = plain.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const seen = counts.get(slug) ?? 0;
    counts.set(slug, seen + 1);
    found.add(seen ? `${slug}-${seen}` : slug);
  }
  for (const [, id] of withoutCode(text).matchAll(/<[a-z]+\s[^>]*?\b(?:id|name)="([^"]+)"/g)) found.add(id);
  return found;
}

/** The dead links of one Markdown file: ["file:line: target (why)"]. */
function deadLinks(file) {
  const text = readFileSync(file, 'utf8');
  const dead = [];
  for (const { target, line } of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;   // https:, mailto:, ...
    const [pathPart, fragment] = target.split('#');
    const path = pathPart ? join(target.startsWith('/') ? root : dirname(file), decodeURIComponent(pathPart)) : file;
    const where = `${relative(root, file)}:${line}: ${target}`;
    if (!existsSync(path)) dead.push(`${where} (no such file)`);
    else if (fragment !== undefined && fragment !== '' && statSync(path).isFile() && path.endsWith('.md') &&
             !anchors(readFileSync(path, 'utf8')).has(decodeURIComponent(fragment)))
      dead.push(`${where} (no heading or id "${fragment}" in ${relative(root, path)})`);
  }
  return dead;
}

test('links: the extractor finds inline links, images, references and HTML, and skips code', () => {
  const text = '# A `code` Heading!\n[one](a.md) ![two](img/b.png "title") [three][r]\n\n[r]: <c.md#x>\n' +
               '<img src="d.png"> `[not](e.md)`\n```\n[nor](f.md)\n```\n## A code heading\n';
  assert.deepEqual(linkTargets(text).map(({ target, line }) => `${line}:${target}`),
                   ['2:a.md', '2:img/b.png', '4:c.md#x', '5:d.png']);
  assert.deepEqual([...anchors(text)], ['a-code-heading', 'a-code-heading-1']);
});

test('links: every relative link in README.md and docs/ names an existing file, and its #fragment a heading', () => {
  const files = markdownFiles(root);
  assert.ok(files.includes(join(root, 'README.md')) && files.some((f) => f.startsWith(join(root, 'docs/tutorials'))),
            files.join(' '));
  const links = files.reduce((sum, file) => sum + linkTargets(readFileSync(file, 'utf8')).length, 0);
  assert.ok(links > 100, `only ${links} links found in ${files.length} files`);
  assert.deepEqual(files.flatMap(deadLinks), []);
});
