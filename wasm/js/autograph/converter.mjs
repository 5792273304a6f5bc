// AutoGraph's converter, the part of tl.autograph that needs the JavaScript parser (acorn + astring, bundled in
// autograph-parser.mjs): convert, toCode, toFunction. loadTracelab() imports it alongside the WebAssembly core unless
// told `{ autograph: false }` (the playground's worker, which converts nothing); it needs no WebAssembly, so a Node
// module hook or a page can import `convert` from here alone. The runtime the converted code calls is runtime.mjs.
import { walk } from './ast.mjs';
import { convertProgram, convertSource, generate, parseSource } from './convert.mjs';
import { InvalidArgument } from '../errors.mjs';
import { checkOptions } from '../values.mjs';

/**
 * Converts every function in `source` (module or script text; `sourceType` forces one) and its top-level code;
 * returns the converted text, which reaches the runtime only through an identifier `tl` in scope. Messages name
 * `filename` when given. A script body converts too: `new Function('tl', convert(body))(tl)`. With `marked`, only
 * what a 'use autograph' directive marks converts — the whole text when its directive prologue holds one, else each
 * function whose body's prologue does, with the functions inside it — and text with nothing marked comes back as
 * it is. `sourceMap` receives a mapping per node from the source, converted position -> original (astring's
 * addMapping; a source-map-js SourceMapGenerator, whose `file` astring names as the source).
 */
export function convert(source, options) {
  const { filename, sourceType, sourceMap, marked = false } = checkOptions(options, {
    filename: 'string', sourceType: (v) => (v === 'module' || v === 'script' ? null : "'module' or 'script'"),
    sourceMap: 'any', marked: 'any',
  }, { what: 'tl.autograph.convert' });
  if (typeof source !== 'string') throw new InvalidArgument('tl.autograph.convert: expected source text (a string)');
  if (sourceMap !== undefined && typeof sourceMap?.addMapping !== 'function')
    throw new InvalidArgument('tl.autograph.convert: sourceMap must be an object with an addMapping method (a SourceMapGenerator)');
  if (typeof marked !== 'boolean') throw new InvalidArgument(`tl.autograph.convert: marked must be true or false, got ${typeof marked}`);
  return convertSource(source, { filename, sourceType, sourceMap, marked });
}

/** How fn.toString() of each kind of function parses: as an expression, an object's method, a class's method. */
const WRAPPERS = [
  { wrap: (src) => `(\n${src}\n)`, pick: (program) => program.body[0].expression },
  { wrap: (src) => `({\n${src}\n})`, pick: (program) => program.body[0].expression.properties[0] },
  { wrap: (src) => `(class {\n${src}\n})`, pick: (program) => program.body[0].expression.body.body[0] },
];

function parseFunction(fn, what) {
  if (typeof fn !== 'function') throw new InvalidArgument(`${what}: expected a function`);
  const source = Function.prototype.toString.call(fn);
  if (/\{\s*\[native code\]\s*\}$/.test(source))
    throw new InvalidArgument(`${what}: '${fn.name}' is a native or bound function, which has no source to convert`);
  for (const [kind, { wrap, pick }] of WRAPPERS.entries()) {
    try {
      const program = parseSource(wrap(source), { sourceType: 'script' });
      return { program: fromFirstLine(program), node: pick(program), isMethod: kind > 0 };
    } catch { /* the next form */ }
  }
  throw new InvalidArgument(`${what}: cannot parse the source of '${fn.name}'`);
}

/** Lines counted from the function's first line (the wrapper added one before it). */
function fromFirstLine(program) {
  const moved = new Set();  // acorn shares position objects between nodes that start together
  walk(program, (node) => {
    for (const position of [node.loc.start, node.loc.end])
      if (!moved.has(position)) { moved.add(position); position.line -= 1; }
  }, { enterFunctions: true });
  return program;
}

/**
 * The converted text of one function, from fn.toString(); lines count from the function's first line. The text
 * cannot rebuild fn's closure: variables fn captured (other than `tl`) must be in scope where the text is
 * evaluated — toFunction takes them as `scope`.
 */
export function toCode(fn, options) {
  const { filename } = checkOptions(options, { filename: 'string' }, { what: 'tl.autograph.toCode' });
  const { program, node } = parseFunction(fn, 'tl.autograph.toCode');
  convertProgram(program, { filename });
  return generate(node, { indent: '  ' });
}

/**
 * A converted copy of `fn` (a function or arrow, not a method), evaluated in strict mode with `tl` and the
 * entries of `scope` as its free variables: fn's own closure is not recoverable from its source.
 */
export function toFunction(fn, scope, tl) {
  const { program, node, isMethod } = parseFunction(fn, 'tl.autograph.toFunction');
  if (isMethod) throw new InvalidArgument('tl.autograph.toFunction: a method cannot be rebuilt on its own; use toCode');
  convertProgram(program);
  const names = Object.keys(scope ?? {});
  const build = new Function('tl', ...names, `"use strict";\nreturn (${generate(node, { indent: '  ' })});`);
  return build(tl, ...names.map((n) => scope[n]));
}

