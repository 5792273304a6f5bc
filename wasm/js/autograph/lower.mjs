// Lowers the jumps that cannot cross a closure into flag variables, as TensorFlow's AutoGraph does, so that a loop
// with `break` becomes a while_loop whose condition includes `!break`:
//
//   return x        ->  { ag__retval = x; ag__doReturn = true; }   (the function ends with `return ag__retval`)
//   break / continue ->  ag__break = true / ag__continue = true
//
// and the statements after one that may have set a flag run under `if (!flag) { ... }`. A converted loop tests
// its flags (`while (!ag__break && !ag__doReturn && test)`); a C-style `for` becomes `{ init; while (...) { body;
// update } }` with the update skipped after a break, and per-iteration copies of its `let` variables when a
// closure in the loop captures them. When a branch definitely returns, the statements after the `if` move into
// the other branch (TF's ConditionalReturnRewriter), so `if (t) return a; return b;` needs no flag test at all.
import {
  and, assign, at, block, breakStmt, declare, exprStmt, forEachChild, id, ifStmt, isLoop, isUserFunction, literal,
  mapChildren, not, patternNames, returnStmt, statements, undefinedValue, walk,
} from './ast.mjs';
import { isConstruct } from './blocking.mjs';

/**
 * The returns to lower: all of the function's, as soon as one sits inside a converted construct (a guard may
 * later put any statement inside a closure).
 */
function loweredReturns(root) {
  const all = [];
  let inside = false;
  const visit = (node, depth) => {
    if (node !== root && isUserFunction(node)) return;
    if (node.type === 'ReturnStatement') { all.push(node); inside ||= depth > 0; }
    const inner = isConstruct(node) && !node.ag?.blocked ? depth + 1 : depth;
    forEachChild(node, (child) => visit(child, inner));
  };
  visit(root, 0);
  return new Set(inside ? all : []);
}

/**
 * Lowers the function (or program) at `root` in place. `jumps` maps each break / continue to lower to the loop it
 * leaves (from blocking.mjs).
 */
export function lowerFunction(root, jumps, namer) {
  hoistVars(root);
  const returns = loweredReturns(root);
  const ctx = { returns, jumps, namer, doReturn: null, retval: null };
  if (returns.size) [ctx.doReturn, ctx.retval] = [namer('doReturn'), namer('retval')];
  const body = bodyOf(root);
  const directives = body.filter((st) => st.directive !== undefined);
  const { stmts } = lowerList(body.slice(directives.length), ctx);
  if (returns.size) {
    stmts.unshift(declare('let', [[ctx.doReturn, literal(false)], [ctx.retval, null]]));
    stmts.push(returnStmt(id(ctx.retval)));
  }
  body.splice(0, body.length, ...directives, ...stmts);
}

/** The flag a lowered jump sets: one break and one continue flag per loop. */
function flagFor(loop, kind, ctx) {
  const key = `${kind}Flag`;
  loop.ag ??= {};
  loop.ag[key] ??= ctx.namer(kind);
  return loop.ag[key];
}

function lowerList(stmts, ctx) {
  const out = [];
  const flags = new Set();
  for (let i = 0; i < stmts.length; ++i) {
    const s = stmts[i];
    const last = i === stmts.length - 1;
    const restMoved = s.type === 'IfStatement' && !last && moveRestIntoBranch(s, stmts.slice(i + 1), out, ctx);
    const lowered = lowerStmt(s, ctx);
    out.push(lowered.node);
    for (const f of lowered.flags) flags.add(f);
    if (restMoved) break;
    if (lowered.flags.size > 0 && !last) {
      const { hoisted, body } = liftDeclarations(stmts.slice(i + 1));
      const inner = lowerList(body, ctx);
      out.push(...hoisted, guard(lowered.flags, inner.stmts, s));
      for (const f of inner.flags) flags.add(f);
      break;
    }
  }
  return { stmts: out, flags };
}

/** `if (!f1 && !f2) { stmts }`. */
function guard(flags, stmts, origin) {
  return at(ifStmt(flagTest([...flags], origin), block(stmts)), origin);
}

/** `!f1 && !f2 && ...`, located at `origin` for messages. */
function flagTest(flags, origin, last = null) {
  const terms = flags.map((f) => at(not(id(f)), origin));
  if (last) terms.push(last);
  return terms.length ? terms.reduce((a, b) => at(and(a, b), origin)) : null;
}

function definitelyReturns(node, ctx) {
  if (!node) return false;
  if (node.type === 'ReturnStatement') return ctx.returns.has(node);
  if (node.type === 'BlockStatement') return node.body.some((s) => definitelyReturns(s, ctx));
  if (node.type === 'IfStatement') return definitelyReturns(node.consequent, ctx) && definitelyReturns(node.alternate, ctx);
  return false;
}

/** TF's ConditionalReturnRewriter: `if (c) { ...return } rest` -> `if (c) { ...return } else { rest }`. */
function moveRestIntoBranch(s, rest, out, ctx) {
  const bodyReturns = definitelyReturns(s.consequent, ctx);
  const elseReturns = definitelyReturns(s.alternate, ctx);
  if (bodyReturns === elseReturns) return false;
  const { hoisted, body } = liftDeclarations(rest);
  out.push(...hoisted);
  if (bodyReturns) s.alternate = block([...statements(s.alternate), ...body]);
  else s.consequent = block([...statements(s.consequent), ...body]);
  return true;
}

/**
 * Statements about to move into a nested block keep their scope: function declarations stay at this level,
 * `let` / `const` / `class` become `let` declarations here and assignments there.
 */
function liftDeclarations(stmts) {
  const hoisted = [];
  const body = [];
  for (const s of stmts) {
    if (s.type === 'FunctionDeclaration') {
      hoisted.push(s);
    } else if (s.type === 'ClassDeclaration') {
      hoisted.push(declare('let', [[s.id.name, null]]));
      body.push(at(assign(id(s.id.name), { ...s, type: 'ClassExpression' }), s));
    } else if (s.type === 'VariableDeclaration' && s.kind !== 'var') {
      const names = s.declarations.flatMap((d) => patternNames(d.id));
      hoisted.push(declare('let', names.map((n) => [n, null])));
      for (const d of s.declarations) body.push(at(assign(d.id, d.init ?? undefinedValue()), s));
    } else {
      body.push(s);
    }
  }
  return { hoisted, body };
}

const same = (node) => ({ node, flags: new Set() });

function lowerStmt(s, ctx) {
  switch (s.type) {
    case 'ReturnStatement': {
      if (!ctx.returns.has(s)) return same(s);
      const value = at(assign(id(ctx.retval), s.argument ?? undefinedValue()), s);
      return { node: at(block([value, assign(id(ctx.doReturn), literal(true))]), s), flags: new Set([ctx.doReturn]) };
    }
    case 'BreakStatement': case 'ContinueStatement': {
      const loop = ctx.jumps.get(s);
      if (!loop) return same(s);
      const flag = flagFor(loop, s.type === 'BreakStatement' ? 'break' : 'continue', ctx);
      return { node: at(assign(id(flag), literal(true)), s), flags: new Set([flag]) };
    }
    case 'BlockStatement': return lowerBlock(s, ctx);
    case 'IfStatement': return lowerIf(s, ctx);
    case 'LabeledStatement': return lowerLabeled(s, ctx);
    case 'TryStatement': return lowerTry(s, ctx);
    case 'SwitchStatement': return lowerSwitch(s, ctx);
    case 'WithStatement': { const r = lowerStmt(s.body, ctx); s.body = r.node; return { node: s, flags: r.flags }; }
    case 'WhileStatement': case 'DoWhileStatement': case 'ForStatement': case 'ForOfStatement': case 'ForInStatement':
      return lowerLoop(s, ctx);
    default: return same(s);
  }
}

function lowerBlock(s, ctx) {
  const r = lowerList(s.body, ctx);
  s.body = r.stmts;
  return { node: s, flags: r.flags };
}

function lowerIf(s, ctx) {
  const flags = new Set();
  for (const key of ['consequent', 'alternate']) {
    if (!s[key]) continue;
    const r = lowerStmt(s[key], ctx);
    s[key] = r.node;
    for (const f of r.flags) flags.add(f);
  }
  return { node: s, flags };
}

function lowerLabeled(s, ctx) {
  const r = lowerStmt(s.body, ctx);
  if (isLoop(s.body) && !s.body.ag?.blocked) return r;  // every jump to a converted loop was lowered: drop the label
  s.body = r.node;
  return { node: s, flags: r.flags };
}

function lowerTry(s, ctx) {
  const flags = new Set();
  const parts = [['block', s], ['body', s.handler], ['finalizer', s]];
  for (const [key, owner] of parts) {
    if (!owner?.[key]) continue;
    const r = lowerBlock(owner[key], ctx);
    for (const f of r.flags) flags.add(f);
  }
  return { node: s, flags };
}

/** A case that may have set a flag falls through into guarded cases. */
function lowerSwitch(s, ctx) {
  const flags = new Set();
  const pending = new Set();
  for (const c of s.cases) {
    const r = lowerList(c.consequent, ctx);
    c.consequent = r.stmts;
    if (pending.size > 0 && c.consequent.length > 0) {
      const { hoisted, body } = liftDeclarations(c.consequent);
      c.consequent = [...hoisted, guard(pending, body, c)];
    }
    for (const f of r.flags) { flags.add(f); pending.add(f); }
  }
  return { node: s, flags };
}

function lowerLoop(s, ctx) {
  const r = lowerStmt(s.body, ctx);
  const breakFlag = s.ag?.breakFlag, continueFlag = s.ag?.continueFlag;
  const flags = new Set([...r.flags].filter((f) => f !== breakFlag && f !== continueFlag));
  const body = statements(r.node);
  if (s.ag?.blocked) {  // a plain loop: a return inside a converted construct in it ends it with a real break
    if (flags.has(ctx.doReturn)) body.push(ifStmt(id(ctx.doReturn), breakStmt()));
    s.body = block(body);
    return { node: s, flags };
  }
  if (continueFlag) body.unshift(declare('let', [[continueFlag, literal(false)]]));
  const stops = [breakFlag, flags.has(ctx.doReturn) ? ctx.doReturn : null].filter(Boolean);
  const loop = s.type === 'ForStatement' ? desugarFor(s, body, stops, ctx) : withStops(s, body, stops);
  const node = breakFlag ? block([declare('let', [[breakFlag, literal(false)]]), loop]) : loop;
  return { node, flags };
}

/** Puts the loop's stop flags into its test (while, do-while) or its extra test (for-of, for-in). */
function withStops(s, body, stops) {
  s.body = block(body);
  if (s.type === 'WhileStatement' || s.type === 'DoWhileStatement') s.test = flagTest(stops, s, s.test);
  else (s.ag ??= {}).extraTest = flagTest(stops, s);
  return s;
}

/** `for (init; test; update) body` -> `{ init; while (!stops && test) { body; if (!stops) update; } }`. */
function desugarFor(s, body, stops, ctx) {
  const init = s.init === null ? [] : [s.init.type === 'VariableDeclaration' ? s.init : exprStmt(s.init)];
  let inner = copiesPerIteration(s, [block(body)], ctx.namer);  // a block: the body's own `let i` stays its own
  if (s.update) {
    const update = exprStmt(s.update);
    inner = [...inner, stops.length ? guard(new Set(stops), [update], s) : update];
  }
  const test = flagTest(stops, s, s.test ?? literal(true));
  const loop = at({ type: 'WhileStatement', test, body: block(inner) }, s);
  loop.ag = { blocked: null, kind: 'for loop' };
  return block([...init, loop]);
}

/**
 * JavaScript gives each iteration of `for (let i ...)` its own `i`: when a closure in the loop captures one, the
 * body runs on a copy (`{ let i = ag__c; { body } ag__c = i; }`) so each closure keeps its iteration's value.
 */
function copiesPerIteration(s, body, namer) {
  if (s.init?.type !== 'VariableDeclaration' || s.init.kind !== 'let') return body;
  const names = new Set(s.init.declarations.flatMap((d) => patternNames(d.id)));
  const captured = new Set();
  for (const part of [s.test, s.update, s.body]) {
    if (!part) continue;
    walk(part, (node) => {
      if (!isUserFunction(node)) return true;
      walk(node, (inner) => { if (inner.type === 'Identifier' && names.has(inner.name)) captured.add(inner.name); }, { enterFunctions: true });
      return false;
    });
  }
  if (captured.size === 0) return body;
  const copies = [...captured].map((name) => [name, namer(name)]);
  return [
    declare('let', copies.map(([name, copy]) => [copy, id(name)])),
    block([declare('let', copies.map(([name, copy]) => [name, id(copy)])), ...body,
           ...copies.map(([name, copy]) => assign(id(copy), id(name)))]),
    ...copies.map(([name, copy]) => assign(id(name), id(copy))),
  ];
}

/**
 * `var` declarations below the function's top level become assignments, declared once at its start (`var a, b;`):
 * the same function scope, and no `var` is left to land inside a closure.
 */
function hoistVars(root) {
  const names = new Set();
  const rewrite = (node, key, parent) => {
    if (node.type === 'VariableDeclaration' && node.kind === 'var') {
      for (const d of node.declarations) for (const n of patternNames(d.id)) names.add(n);
      return varAsAssignment(node, key, parent);
    }
    if (!isUserFunction(node) && node.type !== 'StaticBlock' && !node.type.startsWith('Class'))
      mapChildren(node, (child, childKey) => rewrite(child, childKey, node));
    return node;
  };
  const body = bodyOf(root);
  for (let i = 0; i < body.length; ++i) {
    const s = body[i];
    if (s.type === 'VariableDeclaration' && s.kind === 'var') body[i] = rewrite(s, 'body', root);
    else if (!/Declaration$/.test(s.type)) mapChildren(s, (child, key) => rewrite(child, key, s));
  }
  if (names.size) insertAfterDirectives(body, declare('var', [...names].map((n) => [n, null])));
}

const bodyOf = (root) => (root.type === 'Program' ? root.body : root.body.body);

/** Puts `statement` first, after a 'use strict' or other directive prologue. */
function insertAfterDirectives(body, statement) {
  let i = 0;
  while (i < body.length && body[i].directive !== undefined) ++i;
  body.splice(i, 0, statement);
}

function varAsAssignment(node, key, parent) {
  if ((parent.type === 'ForInStatement' || parent.type === 'ForOfStatement') && key === 'left') return node.declarations[0].id;
  const assignments = node.declarations.filter((d) => d.init).map((d) => ({
    type: 'AssignmentExpression', operator: '=', left: d.id, right: d.init,
  }));
  const expression = assignments.length === 1 ? assignments[0] : { type: 'SequenceExpression', expressions: assignments };
  if (parent.type === 'ForStatement' && key === 'init') return assignments.length ? expression : null;
  return at(assignments.length ? exprStmt(expression) : { type: 'EmptyStatement' }, node);
}
