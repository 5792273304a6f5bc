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
import { parse, generate } from '../autograph-parser.mjs';
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

/** The functions to convert, outside in: not generators (nor anything inside them), not async functions. */
function rootsOf(program) {
  const roots = [program];
  walk(program, (node) => {
    if (!isUserFunction(node)) return true;
    if (node.generator) return false;
    if (!node.async) roots.push(node);
    return true;
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

/** Converts every function of a parsed program in place. */
export function convertProgram(program, { filename } = {}) {
  const ctx = makeContext(program, filename);
  for (const root of rootsOf(program)) convertRoot(root, ctx);
  return program;
}

/** Source text -> converted source text. */
export function convertSource(source, options = {}) {
  const program = convertProgram(parseSource(source, options), options);
  return generate(program, { indent: '  ' });
}

export { generate };
