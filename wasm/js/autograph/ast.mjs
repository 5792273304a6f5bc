// ESTree helpers for AutoGraph: node builders for the code the converter writes, and a traversal that knows
// which nodes are functions. Built nodes carry no positions; `at(node, from)` copies a source location so
// that errors about generated statements still point at the user's line.

/** The child keys of each ESTree node type, in source order (acorn's output, ES2025). */
const KEYS = {
  Program: ['body'], ExpressionStatement: ['expression'], BlockStatement: ['body'], StaticBlock: ['body'],
  EmptyStatement: [], DebuggerStatement: [], WithStatement: ['object', 'body'], ReturnStatement: ['argument'],
  LabeledStatement: ['label', 'body'], BreakStatement: ['label'], ContinueStatement: ['label'],
  IfStatement: ['test', 'consequent', 'alternate'], SwitchStatement: ['discriminant', 'cases'], SwitchCase: ['test', 'consequent'],
  ThrowStatement: ['argument'], TryStatement: ['block', 'handler', 'finalizer'], CatchClause: ['param', 'body'],
  WhileStatement: ['test', 'body'], DoWhileStatement: ['body', 'test'], ForStatement: ['init', 'test', 'update', 'body'],
  ForInStatement: ['left', 'right', 'body'], ForOfStatement: ['left', 'right', 'body'],
  FunctionDeclaration: ['id', 'params', 'body'], FunctionExpression: ['id', 'params', 'body'], ArrowFunctionExpression: ['params', 'body'],
  VariableDeclaration: ['declarations'], VariableDeclarator: ['id', 'init'],
  ClassDeclaration: ['id', 'superClass', 'body'], ClassExpression: ['id', 'superClass', 'body'], ClassBody: ['body'],
  MethodDefinition: ['key', 'value'], PropertyDefinition: ['key', 'value'],
  ThisExpression: [], Super: [], Identifier: [], PrivateIdentifier: [], Literal: [], TemplateElement: [],
  ArrayExpression: ['elements'], ObjectExpression: ['properties'], Property: ['key', 'value'], SpreadElement: ['argument'],
  UnaryExpression: ['argument'], UpdateExpression: ['argument'], BinaryExpression: ['left', 'right'],
  AssignmentExpression: ['left', 'right'], LogicalExpression: ['left', 'right'], MemberExpression: ['object', 'property'],
  ConditionalExpression: ['test', 'consequent', 'alternate'], CallExpression: ['callee', 'arguments'],
  NewExpression: ['callee', 'arguments'], SequenceExpression: ['expressions'], YieldExpression: ['argument'],
  AwaitExpression: ['argument'], TemplateLiteral: ['quasis', 'expressions'], TaggedTemplateExpression: ['tag', 'quasi'],
  ChainExpression: ['expression'], ParenthesizedExpression: ['expression'], MetaProperty: ['meta', 'property'],
  ImportExpression: ['source', 'options'], ObjectPattern: ['properties'], ArrayPattern: ['elements'],
  RestElement: ['argument'], AssignmentPattern: ['left', 'right'],
  ImportDeclaration: ['specifiers', 'source', 'attributes'], ImportSpecifier: ['imported', 'local'],
  ImportDefaultSpecifier: ['local'], ImportNamespaceSpecifier: ['local'], ImportAttribute: ['key', 'value'],
  ExportNamedDeclaration: ['declaration', 'specifiers', 'source', 'attributes'], ExportSpecifier: ['local', 'exported'],
  ExportDefaultDeclaration: ['declaration'], ExportAllDeclaration: ['exported', 'source', 'attributes'],
};

const isNode = (value) => value !== null && typeof value === 'object' && typeof value.type === 'string';

/** The child keys of `node` (for a type not in the table, every key holding nodes). */
export function keysOf(node) {
  return KEYS[node.type] ?? Object.keys(node).filter((k) => k !== 'loc' && k !== 'ag' &&
    (isNode(node[k]) || (Array.isArray(node[k]) && node[k].some(isNode))));
}

/** Calls fn(child, key) for each child node of `node`, in source order. */
export function forEachChild(node, fn) {
  for (const key of keysOf(node)) {
    const value = node[key];
    if (Array.isArray(value)) { for (const item of value) if (item !== null && item.type) fn(item, key); }
    else if (value !== null && value !== undefined && value.type) fn(value, key);
  }
}

/** Replaces each child node of `node` with fn(child, key). */
export function mapChildren(node, fn) {
  for (const key of keysOf(node)) {
    const value = node[key];
    if (Array.isArray(value)) { for (let i = 0; i < value.length; ++i) if (value[i] !== null && value[i].type) value[i] = fn(value[i], key); }
    else if (value !== null && value !== undefined && value.type) node[key] = fn(value, key);
  }
}

const isFunction = (node) =>
  node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression';

export const isLoop = (node) =>
  node.type === 'WhileStatement' || node.type === 'DoWhileStatement' || node.type === 'ForStatement' ||
  node.type === 'ForOfStatement' || node.type === 'ForInStatement';

/** A user's function (not one of the converter's own closures). */
export const isUserFunction = (node) => isFunction(node) && !node.generated;

/**
 * Calls visit(node, parent) on every node below `root` (pre-order); a visit returning false skips the node's
 * children. User functions below the root are visited but not entered unless `enterFunctions`.
 */
export function walk(root, visit, { enterFunctions = false } = {}) {
  const step = (node, parent) => {
    if (visit(node, parent) === false) return;
    if (node !== root && !enterFunctions && isUserFunction(node)) return;
    forEachChild(node, (child) => step(child, node));
  };
  step(root, null);
}

/** Copies `from`'s source location onto `node` (for messages); returns `node`. */
export function at(node, from) {
  if (from?.loc) node.loc = from.loc;
  return node;
}

export const id = (name) => ({ type: 'Identifier', name });
export const literal = (value) => ({ type: 'Literal', value, raw: JSON.stringify(value) });
export const undefinedValue = () => ({ type: 'UnaryExpression', operator: 'void', prefix: true, argument: literal(0) });
export const member = (object, property) => ({ type: 'MemberExpression', object, property: id(property), computed: false, optional: false });
export const call = (callee, args) => ({ type: 'CallExpression', callee, arguments: args, optional: false });
export const array = (elements) => ({ type: 'ArrayExpression', elements });
export const block = (body) => ({ type: 'BlockStatement', body });
export const exprStmt = (expression) => ({ type: 'ExpressionStatement', expression });
export const not = (argument) => ({ type: 'UnaryExpression', operator: '!', prefix: true, argument });
export const and = (left, right) => ({ type: 'LogicalExpression', operator: '&&', left, right });
export const assign = (target, value) => exprStmt({ type: 'AssignmentExpression', operator: '=', left: target, right: value });
export const ifStmt = (test, consequent, alternate = null) => ({ type: 'IfStatement', test, consequent, alternate });
export const breakStmt = () => ({ type: 'BreakStatement', label: null });
export const returnStmt = (argument) => ({ type: 'ReturnStatement', argument });

/** `kind name = init, ...` for [name, init] pairs (init may be null). */
export function declare(kind, pairs) {
  return {
    type: 'VariableDeclaration', kind,
    declarations: pairs.map(([name, init]) => ({ type: 'VariableDeclarator', id: typeof name === 'string' ? id(name) : name, init })),
  };
}

/** `(params) => { body }` (or `=> expression`), marked as the converter's own closure. */
export function arrow(params, body) {
  const expression = !Array.isArray(body);
  return {
    type: 'ArrowFunctionExpression', id: null, params: params.map((p) => (typeof p === 'string' ? id(p) : p)),
    body: expression ? body : block(body), expression, generator: false, async: false, generated: true,
  };
}

/** `tl.autograph.<name>(...args)`: the runtime is reached only through the identifier `tl` (marked `generated`). */
export const runtimeCall = (name, args) => call(member(member({ ...id('tl'), generated: true }, 'autograph'), name), args);

/** The statements of a statement position (a block's body, or the single statement). */
export const statements = (node) => (node === null ? [] : node.type === 'BlockStatement' ? node.body : [node]);

/** The names a pattern binds (Identifier, object / array patterns, defaults, rest). */
export function patternNames(pattern, into = []) {
  if (!pattern) return into;
  switch (pattern.type) {
    case 'Identifier': into.push(pattern.name); break;
    case 'ObjectPattern': for (const p of pattern.properties) patternNames(p.type === 'RestElement' ? p.argument : p.value, into); break;
    case 'ArrayPattern': for (const e of pattern.elements) patternNames(e, into); break;
    case 'AssignmentPattern': patternNames(pattern.left, into); break;
    case 'RestElement': patternNames(pattern.argument, into); break;
    default: break;  // member expressions in assignment patterns bind nothing
  }
  return into;
}

/** A generator of names absent from the source: `ag__<base>`, then `ag__<base>2`, ... */
export function makeNamer(program) {
  const used = new Set();
  walk(program, (node) => { if (node.type === 'Identifier') used.add(node.name); }, { enterFunctions: true });
  const counters = new Map();
  return (base) => {
    let name;
    do {
      const n = (counters.get(base) ?? 0) + 1;
      counters.set(base, n);
      name = `ag__${base}${n === 1 ? '' : n}`;
    } while (used.has(name));
    used.add(name);
    return name;
  };
}

/** "if statement at line 3, column 5" (columns count from 1), " of FILE" when a filename is known. */
export function describe(kind, node, filename) {
  const where = node?.loc ? ` at line ${node.loc.start.line}, column ${node.loc.start.column + 1}` : '';
  return `${kind}${where}${filename && where ? ` of ${filename}` : ''}`;
}

/**
 * True when `node` can never evaluate to a tensor, whatever its operands: comparisons and arithmetic give
 * primitives (a tensor is an object: `+` makes a string), and so do literals and typeof. A construct whose condition
 * is such a value stays plain JavaScript — the runtime could only take its plain path.
 */
export function isPlainValue(node) {
  switch (node.type) {
    case 'Literal': case 'TemplateLiteral': case 'BinaryExpression': case 'UpdateExpression': return true;
    case 'UnaryExpression': return node.operator !== '!' || isPlainValue(node.argument);
    case 'AssignmentExpression': return node.operator === '=' ? isPlainValue(node.right) : !/^(&&|\|\||\?\?)=$/.test(node.operator);
    case 'LogicalExpression': return isPlainValue(node.left) && isPlainValue(node.right);
    case 'ConditionalExpression': return isPlainValue(node.consequent) && isPlainValue(node.alternate);
    case 'SequenceExpression': return isPlainValue(node.expressions[node.expressions.length - 1]);
    case 'ParenthesizedExpression': return isPlainValue(node.expression);
    default: return false;
  }
}
