// Scope analysis of one function (or program) for AutoGraph: which variable every identifier refers to, where it
// is read and written, and whether the reference sits in a function nested inside (a closure may run at any
// time, so a variable it reads is always live). Nodes get `agOrd` / `agEnd`, their pre-order number and that of
// their last descendant, so "after a construct" and "inside a loop" are comparisons of numbers.
import { forEachChild, isLoop } from './ast.mjs';
import { isConstruct } from './blocking.mjs';

class Scope {
  constructor(node, parent, isFunctionScope) {
    this.node = node;
    this.parent = parent;
    this.isFunctionScope = isFunctionScope;
    this.bindings = new Map();
  }
  declare(name) {
    let binding = this.bindings.get(name);
    if (!binding) this.bindings.set(name, binding = { name, scope: this, reads: [], writes: [] });
    return binding;
  }
  varScope() {
    let s = this;
    while (!s.isFunctionScope) s = s.parent;
    return s;
  }
}

/**
 * Analyzes the function at `root`: { bindings: [{name, scope: {node} | null, reads, writes}], dynamic, constructs }
 * where each read / write is {ord, nested}; `dynamic` is true when `eval` or `with` could touch any variable;
 * `constructs` are the function's own. Each construct gets `ag.loops`, the loops around it inside the function.
 */
export function analyzeScopes(root) {
  const state = { ord: 0, refs: [], dynamic: false, loops: [], constructs: [], root };
  const top = new Scope(root, null, true);
  visit(root, top, false, state);
  const free = new Map();
  for (const ref of state.refs) {
    let binding = null;
    for (let s = ref.scope; s && !binding; s = s.parent) binding = s.bindings.get(ref.name) ?? null;
    if (!binding) {
      binding = free.get(ref.name) ?? { name: ref.name, scope: null, reads: [], writes: [] };
      free.set(ref.name, binding);
    }
    const use = { ord: ref.ord, nested: ref.nested };
    if (ref.read) binding.reads.push(use);
    if (ref.write) binding.writes.push(use);
  }
  const bindings = [...free.values()];
  collectBindings(top, bindings);
  return { bindings, dynamic: state.dynamic, constructs: state.constructs };
}

function collectBindings(scope, into) {
  into.push(...scope.bindings.values());
  for (const child of scope.children ?? []) collectBindings(child, into);
}

function childScope(node, parent, isFunctionScope) {
  const scope = new Scope(node, parent, isFunctionScope);
  (parent.children ??= []).push(scope);
  return scope;
}

function reference(node, scope, nested, state, read, write) {
  state.refs.push({ name: node.name, scope, ord: node.agOrd, nested, read, write });
}

function visit(node, scope, nested, state) {
  node.agOrd = state.ord++;
  if (isConstruct(node) && !nested) {
    (node.ag ??= {}).loops = state.loops.slice();
    state.constructs.push(node);
  }
  const loop = isLoop(node) && !nested;
  if (loop) state.loops.push(node);
  visitNode(node, scope, nested, state);
  if (loop) state.loops.pop();
  node.agEnd = state.ord - 1;
}

const visitAll = (nodes, scope, nested, state) => { for (const n of nodes) if (n) visit(n, scope, nested, state); };

function visitNode(node, scope, nested, state) {
  switch (node.type) {
    case 'Identifier': reference(node, scope, nested, state, true, false); return;
    case 'FunctionDeclaration': case 'FunctionExpression': case 'ArrowFunctionExpression':
      visitFunction(node, scope, nested, state); return;
    case 'ClassDeclaration': case 'ClassExpression': visitClass(node, scope, nested, state); return;
    case 'VariableDeclaration': visitDeclaration(node, scope, nested, state); return;
    case 'BlockStatement': case 'SwitchStatement': case 'ForStatement': case 'ForInStatement': case 'ForOfStatement':
      visitScoped(node, childScope(node, scope, false), nested, state); return;
    case 'StaticBlock': visitAll(node.body, childScope(node, scope, true), true, state); return;
    case 'CatchClause': visitCatch(node, scope, nested, state); return;
    case 'AssignmentExpression': visitAssignment(node, scope, nested, state); return;
    case 'UpdateExpression': visitUpdate(node, scope, nested, state); return;
    case 'MemberExpression': visit(node.object, scope, nested, state); if (node.computed) visit(node.property, scope, nested, state); return;
    case 'Property': case 'MethodDefinition': case 'PropertyDefinition': visitProperty(node, scope, nested, state); return;
    case 'LabeledStatement': visit(node.body, scope, nested, state); return;
    case 'BreakStatement': case 'ContinueStatement': case 'MetaProperty': case 'PrivateIdentifier': return;
    case 'ImportDeclaration': for (const s of node.specifiers) scope.declare(s.local.name); return;
    case 'ExportNamedDeclaration': visitExport(node, scope, nested, state); return;
    case 'WithStatement': state.dynamic = true; break;
    case 'CallExpression': if (node.callee.type === 'Identifier' && node.callee.name === 'eval') state.dynamic = true; break;
    default: break;
  }
  forEachChild(node, (child, key) => { if (key !== 'label') visit(child, scope, nested, state); });
}

function visitScoped(node, scope, nested, state) {
  if (node.type === 'ForInStatement' || node.type === 'ForOfStatement') {
    visit(node.right, scope, nested, state);
    if (node.left.type === 'VariableDeclaration') visitDeclaration(node.left, scope, nested, state, true);
    else visitPattern(node.left, scope, nested, state, null);
    visit(node.body, scope, nested, state);
    return;
  }
  forEachChild(node, (child) => visit(child, scope, nested, state));
}

function visitFunction(node, scope, nested, state) {
  const inner = node === state.root ? nested : true;
  let outer = scope;
  if (node.type === 'FunctionDeclaration' && node.id && node !== state.root) scope.declare(node.id.name);
  if (node.type === 'FunctionExpression' && node.id) (outer = childScope(node, scope, false)).declare(node.id.name);
  const fnScope = childScope(node, outer, true);
  if (node.id) node.id.agOrd = state.ord++;
  for (const param of node.params) visitPattern(param, fnScope, inner, state, fnScope);
  if (node.body.type === 'BlockStatement') {
    node.body.agOrd = state.ord++;
    visitAll(node.body.body, fnScope, inner, state);
    node.body.agEnd = state.ord - 1;
  } else {
    visit(node.body, fnScope, inner, state);
  }
}

function visitClass(node, scope, nested, state) {
  if (node.id && node.type === 'ClassDeclaration') scope.declare(node.id.name);
  if (node.superClass) visit(node.superClass, scope, nested, state);
  const inner = childScope(node, scope, false);
  if (node.id) inner.declare(node.id.name);
  node.body.agOrd = state.ord++;
  for (const member of node.body.body) visit(member, inner, nested, state);
  node.body.agEnd = state.ord - 1;
}

function visitProperty(node, scope, nested, state) {
  if (node.computed) visit(node.key, scope, nested, state);
  const deferred = node.type === 'PropertyDefinition';  // a field initializer runs at construction, like a method
  if (node.value) visit(node.value, scope, nested || deferred, state);
}

function visitDeclaration(node, scope, nested, state, assignedEachIteration = false) {
  node.agOrd ??= state.ord++;
  const target = node.kind === 'var' ? scope.varScope() : scope;
  for (const d of node.declarations) {
    if (d.init) visit(d.init, scope, nested, state);
    const writes = d.init !== null || assignedEachIteration;
    visitPattern(d.id, scope, nested, state, target, writes);
  }
  node.agEnd = state.ord - 1;
}

function visitCatch(node, scope, nested, state) {
  const inner = childScope(node, scope, false);
  if (node.param) visitPattern(node.param, inner, nested, state, inner);
  visit(node.body, inner, nested, state);
}

function visitAssignment(node, scope, nested, state) {
  visit(node.right, scope, nested, state);
  if (node.left.type === 'Identifier') {
    node.left.agOrd = state.ord++;
    reference(node.left, scope, nested, state, node.operator !== '=', true);
  } else {
    visitPattern(node.left, scope, nested, state, null);
  }
}

function visitUpdate(node, scope, nested, state) {
  if (node.argument.type !== 'Identifier') { visit(node.argument, scope, nested, state); return; }
  node.argument.agOrd = state.ord++;
  reference(node.argument, scope, nested, state, true, true);
}

function visitExport(node, scope, nested, state) {
  if (node.declaration) visit(node.declaration, scope, nested, state);
  if (!node.source) for (const s of node.specifiers) if (s.local.type === 'Identifier') {
    s.local.agOrd = state.ord++;
    reference(s.local, scope, true, state, true, false);
  }
}

/**
 * A pattern's identifiers: declared in `declareIn` (or assigned, when null) and written when `write`. Default
 * values and computed keys are ordinary reads.
 */
function visitPattern(p, scope, nested, state, declareIn, write = true) {
  if (!p) return;
  p.agOrd = state.ord++;
  switch (p.type) {
    case 'Identifier':
      if (declareIn) declareIn.declare(p.name);
      if (write) reference(p, scope, nested, state, false, true);
      break;
    case 'ObjectPattern':
      for (const prop of p.properties) {
        if (prop.type === 'RestElement') { visitPattern(prop.argument, scope, nested, state, declareIn, write); continue; }
        if (prop.computed) visit(prop.key, scope, nested, state);
        visitPattern(prop.value, scope, nested, state, declareIn, write);
      }
      break;
    case 'ArrayPattern': for (const e of p.elements) visitPattern(e, scope, nested, state, declareIn, write); break;
    case 'AssignmentPattern':
      visitPattern(p.left, scope, nested, state, declareIn, write);
      visit(p.right, scope, nested, state);
      break;
    case 'RestElement': visitPattern(p.argument, scope, nested, state, declareIn, write); break;
    default: visit(p, scope, nested, state);  // a member expression being assigned
  }
  p.agEnd = state.ord - 1;
}
