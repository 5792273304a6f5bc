// AutoGraph's Node module hook (Node's module customization hooks; register.mjs registers it): converts the ES
// modules marked 'use autograph' as Node loads them. A module converts when it is an ES module (.mjs, or .js in a
// "type": "module" package) at a file: URL outside node_modules whose text holds the directive; then the whole
// module converts when its directive prologue holds 'use autograph', else each function whose body's prologue does
// (convert's `marked`). Every other module — CommonJS, node_modules, data: URLs, Tracelab's own, no directive — is
// returned exactly as Node loaded it. A converted module is reprinted (astring: comments dropped, layout normalized)
// with an inline source map back to the original text, which `node --enable-source-maps` applies to stack traces.
// Runs on Node's hooks thread; needs no WebAssembly.
import { Buffer } from 'node:buffer';
import { fileURLToPath } from 'node:url';
import { SourceMapGenerator } from '../autograph-sourcemap.mjs';
import { ConversionError } from '../errors.mjs';
import { walk } from './ast.mjs';
import { convertProgram, mayBeMarked, parseSource, print } from './convert.mjs';
import { analyzeScopes } from './scope.mjs';

/** Tracelab's own folder (tracelab.mjs, js/): its modules name the directive in comments only, and are not parsed. */
const TRACELAB = new URL('../../', import.meta.url).href;

/** Node's load hook: the module as loaded, or its marked parts converted. */
export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (loaded.format !== 'module' || !url.startsWith('file:') || url.includes('/node_modules/') || url.startsWith(TRACELAB))
    return loaded;
  const text = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source);
  if (!mayBeMarked(text)) return loaded;
  const converted = convertModule(text, url);
  return converted === null ? loaded : { ...loaded, source: converted };
}

/**
 * The marked parts of module text converted, with an inline source map (sources: `url`, with its text); null when
 * nothing is marked. Throws a SyntaxError for text acorn cannot parse, a ConversionError when converted code has no
 * `tl` to call.
 */
export function convertModule(text, url) {
  const filename = fileURLToPath(url);
  const program = convertProgram(parseModule(text, filename), { filename, marked: true });
  if (program === null) return null;
  requireTl(program, filename);
  const map = new SourceMapGenerator({ file: url });   // astring names the map's `file` as each mapping's source
  map.setSourceContent(url, text);
  const code = print(program, map);
  return `${code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(map.toString()).toString('base64')}\n`;
}

/** acorn's tree of module text; its SyntaxError reworded "<path>:<line>:<column>: <reason> (...)", columns from 1. */
function parseModule(text, filename) {
  try {
    return parseSource(text, { sourceType: 'module' });
  } catch (error) {
    if (!(error instanceof SyntaxError) || !error.loc) throw error;
    const reason = error.message.replace(/ \(\d+:\d+\)$/, '');
    throw new SyntaxError(`${filename}:${error.loc.line}:${error.loc.column + 1}: ${reason} (AutoGraph parses a module ` +
                          "that names 'use autograph' with acorn before Node runs it)");
  }
}

/**
 * Converted code reaches the runtime only through a variable `tl`: throws a ConversionError naming the first
 * runtime call whose `tl` no declaration of the module binds (an import, a module-scope variable, a parameter or
 * variable of an enclosing function). A global `tl` does not count: the module must say where tl comes from.
 */
function requireTl(program, filename) {
  const calls = [];
  walk(program, (node) => {
    const target = node.type === 'CallExpression' ? node.callee.object?.object : null;
    if (target?.type === 'Identifier' && target.name === 'tl' && target.generated) calls.push(node);
  }, { enterFunctions: true });
  if (calls.length === 0) return;
  const free = analyzeScopes(program).bindings.find((binding) => binding.scope === null && binding.name === 'tl');
  const unbound = new Set(free?.reads.map((read) => read.ord));
  const call = calls.find((c) => unbound.has(c.callee.object.object.agOrd));
  if (!call) return;
  // Every runtime call carries its "<construct> at line L, column C of <file>" as a string argument.
  const where = call.arguments.find((a) => typeof a.value === 'string' && / at line \d+, column \d+/.test(a.value))?.value;
  const [, construct = null, line = null, column = null] = where?.match(/^(.*) at line (\d+), column (\d+)/) ?? [];
  throw new ConversionError(
    `cannot convert ${where ?? `code of ${filename}`}: converted, it calls tl.autograph.${call.callee.property.name}, ` +
    "but no variable 'tl' is declared in the module (converted code reaches Tracelab only through a variable named " +
    'tl); declare one at module scope: `const tl = await loadTracelab();`, an import, or `const tl = globalThis.tl;`',
    { construct, line: line && Number(line), column: column && Number(column), filename });
}
