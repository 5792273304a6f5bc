// The converter's pipeline, per function (and for the program's top-level code), as in TF's AutoGraph:
//
//   blocking.mjs   which constructs can move into closures, and which jumps become flags
//   lower.mjs      return / break / continue -> flag variables; C-style for -> while
//   blocking.mjs   again, for the statements lowering wrote
//   scope.mjs      what every identifier refers to, where it is read and written
//   liveness.mjs   the state each statement carries (assigned and live)
//   statements.mjs if / loops -> tl.autograph.ifStmt / whileStmt / forOfStmt ... calls
//   expressions.mjs && || ! ?: -> tl.autograph.and / or / not / ifExp calls
//
// Generators are left exactly as written; async functions are not converted (their nested functions are).
// With `marked` (the Node module hook), only a program or function whose directive prologue holds 'use autograph'
// converts, with the functions inside it; the directive stays in the output, a string statement that does nothing.
import { GENERATOR, parse, generate } from '../autograph-parser.mjs';
import { isUserFunction, makeNamer, walk } from './ast.mjs';
import { markBlocked } from './blocking.mjs';
import { convertExpressions } from './expressions.mjs';
import { lowerFunction } from './lower.mjs';
import { annotateState } from './liveness.mjs';
import { analyzeScopes } from './scope.mjs';
import { convertStatements } from './statements.mjs';

const PARSE_OPTIONS = { ecmaVersion: 'latest', locations: true, allowReturnOutsideFunction: true, allowHashBang: true };

/** Parses module or script text (`sourceType` 'module', 'script' or undefined = try module, then script). */
export function parseSource(source, { sourceType, filename } = {}) {
  const attempt = (type) => parse(source, { ...PARSE_OPTIONS, sourceType: type });
  if (sourceType) return withFilename(() => attempt(sourceType), filename);
  try {
    return attempt('module');
  } catch (asModule) {
    try {
      return attempt('script');
    } catch (asScript) {
      const further = (asScript.pos ?? 0) > (asModule.pos ?? 0) ? asScript : asModule;
      throw named(further, filename);
    }
  }
}

function withFilename(fn, filename) {
  try {
    return fn();
  } catch (error) {
    throw named(error, filename);
  }
}

function named(error, filename) {
  if (filename && error instanceof SyntaxError) error.message = `${filename}: ${error.message}`;
  return error;
}

/**
 * Appends `top` and the functions inside it to `roots`, outside in: not generators (nor anything inside them), not
 * async functions.
 */
function convertibleIn(top, roots) {
  walk(top, (node) => {
    if (!isUserFunction(node)) return true;
    if (node.generator) return false;
    if (!node.async) roots.push(node);
    return true;
  }, { enterFunctions: true });
  return roots;
}

/** True when the directive prologue of a program or function body holds 'use autograph'. */
function isMarked(node) {
  const body = node.type === 'Program' ? node.body : node.body.type === 'BlockStatement' ? node.body.body : [];
  for (const statement of body) {
    if (typeof statement.directive !== 'string') return false;   // the prologue ends at the first non-directive
    if (statement.directive === 'use autograph') return true;
  }
  return false;
}

/**
 * The roots to convert, outside in: the program (its top-level code) and every function in it; when `marked`, only
 * those of a program marked 'use autograph', or else only the marked functions and the functions inside them.
 */
function rootsOf(program, marked) {
  if (!marked || isMarked(program)) return convertibleIn(program, [program]);
  const roots = [];
  walk(program, (node) => {
    if (!isUserFunction(node)) return true;
    if (node.generator) return false;
    if (!isMarked(node)) return true;
    convertibleIn(node, roots);
    return false;
  }, { enterFunctions: true });
  return roots;
}

const DISPLAY = { doReturn: 'return flag', retval: 'return value', break: 'break flag', continue: 'continue flag' };

/** A namer that also remembers what each generated name stands for in messages. */
function makeContext(program, filename) {
  const fresh = makeNamer(program);
  const display = new Map();
  const namer = (base) => {
    const name = fresh(base);
    display.set(name, DISPLAY[base] ?? base);
    return name;
  };
  return {
    namer, filename,
    itemName: namer('item'), stateName: namer('state'),
    displayName: (name) => display.get(name) ?? name,
  };
}

function convertRoot(root, ctx) {
  if (root.type === 'ArrowFunctionExpression' && root.expression) {
    markBlocked(root, { allNative: true });
    convertExpressions(root, ctx);
    return;
  }
  const jumps = markBlocked(root);
  lowerFunction(root, jumps, ctx.namer);
  markBlocked(root, { allNative: true });
  annotateState(analyzeScopes(root));
  convertStatements(root, ctx);
  convertExpressions(root, ctx);
}

/**
 * Converts every function of a parsed program in place (when `marked`, only what 'use autograph' marks); returns
 * the program, or null when `marked` and nothing in it is marked.
 */
export function convertProgram(program, { filename, marked = false } = {}) {
  const roots = rootsOf(program, marked);
  if (roots.length === 0) return null;
  const ctx = makeContext(program, filename);
  for (const root of roots) convertRoot(root, ctx);
  return program;
}

/** Could `source` hold a 'use autograph' directive? (Text without one needs no parse.) */
export const mayBeMarked = (source) => /(['"])use autograph\1/.test(source);

/**
 * Source text -> converted source text; with `marked`, text with nothing marked comes back as it is. `sourceMap`,
 * when given, receives addMapping({original, generated, name, source}) for every node that came from the source (a
 * source-map-js SourceMapGenerator fits; astring names its `file` as the source).
 */
export function convertSource(source, options = {}) {
  if (options.marked && !mayBeMarked(source)) return source;
  const program = convertProgram(parseSource(source, options), options);
  if (program === null) return source;
  return print(program, options.sourceMap);
}

/**
 * astring's printers, each first mapping the start of its node when the node has a source position. astring maps
 * only identifiers, literals and a few keywords itself: too few for stack traces, which point at a `new`, a call, a
 * statement. Each mapping reuses astring's own record (generated: the printer's line and column). Not the Program:
 * it starts at the text's first character, comments included, where its first statement need not.
 */
const UNMAPPED = new Set(['Identifier', 'Literal', 'Program']);   // astring maps the first two itself
const MAPPING_GENERATOR = Object.fromEntries(Object.entries(GENERATOR).map(([type, printNode]) => {
  if (UNMAPPED.has(type)) return [type, printNode];
  return [type, function mapped(node, state) {
    if (node.loc) {
      state.mapping.original = node.loc.start;
      state.mapping.name = undefined;
      state.sourceMap.addMapping(state.mapping);
    }
    printNode.call(this, node, state);
  }];
}));

/** The text of a program, mapped into `sourceMap` when given. */
export function print(program, sourceMap) {
  return generate(program, { indent: '  ', ...(sourceMap ? { sourceMap, generator: MAPPING_GENERATOR } : {}) });
}

export { generate };
