// Turns each converted statement into a call of the runtime, TF AutoGraph's functional form:
//
//   if (x.greater(0)) { y = x; } else { y = x.neg(); }
//   ->  tl.autograph.ifStmt(x.greater(0), () => { y = x; }, () => { y = x.neg(); },
//                           () => [y], (ag__state) => { [y] = ag__state; }, "y", 1, "if statement at line 1, column 1");
//
// The getState / setState closures read and write the variables the statement assigns (liveness.mjs), live ones
// first; the runtime pipes them through tl.cond / tl.whileLoop when the condition is a tensor while tracing. A
// blocked statement (blocking.mjs) stays as written with its condition passed through `tl.autograph.test`.
// No `var` is left inside a statement by now (lower.mjs hoisted them), so no closure captures a declaration.
import {
  arrow, array, assign, at, declare, describe, exprStmt, id, isPlainValue, isUserFunction, literal, mapChildren, runtimeCall,
  statements,
} from './ast.mjs';

const KIND = {
  IfStatement: 'if statement', WhileStatement: 'while loop', DoWhileStatement: 'do...while loop',
  ForStatement: 'for loop', ForOfStatement: 'for...of loop', ForInStatement: 'for...in loop',
};

/** Converts the statements of the function (or program) at `root` in place. */
export function convertStatements(root, ctx) {
  const transform = (node) => {
    if (node !== root && isUserFunction(node)) return node;
    mapChildren(node, transform);
    return KIND[node.type] ? convertStatement(node, ctx) : node;
  };
  transform(root);
}

/** An if / while / do-while whose condition can never be a tensor, or a for-in with no flags to test, stays as is. */
const staysPlain = (s) => (s.type === 'ForInStatement' ? !s.ag?.extraTest : s.test != null && isPlainValue(s.test));

function convertStatement(s, ctx) {
  if (s.type !== 'ForOfStatement' && staysPlain(s)) return s;
  const where = literal(describe(s.ag?.kind ?? KIND[s.type], s, ctx.filename));
  if (s.ag?.blocked) return guardStatement(s, where, literal(s.ag.blocked));
  let call;
  switch (s.type) {
    case 'IfStatement':
      call = runtimeCall('ifStmt', [s.test, closure(s.consequent), s.alternate ? closure(s.alternate) : literal(null),
                                    ...stateArgs(s, ctx), where]);
      break;
    case 'WhileStatement': case 'DoWhileStatement':
      call = runtimeCall(s.type === 'WhileStatement' ? 'whileStmt' : 'doWhileStmt',
                         [arrow([], s.test), closure(s.body), ...stateArgs(s, ctx), where]);
      break;
    default:  // for...of, for...in
      call = runtimeCall(s.type === 'ForOfStatement' ? 'forOfStmt' : 'forInStmt',
                         [s.right, s.ag.extraTest ? arrow([], s.ag.extraTest) : literal(null), itemClosure(s, ctx),
                          ...stateArgs(s, ctx), where]);
  }
  return at(exprStmt(call), s);
}

const closure = (body) => arrow([], statements(body));

/** `(ag__item) => { const x = ag__item; body }` for `for (const x of ...)`. */
function itemClosure(s, ctx) {
  const item = id(ctx.itemName);
  const left = s.left;
  const bind = left.type === 'VariableDeclaration'
    ? declare(left.kind, [[left.declarations[0].id, item]])
    : assign(left, item);
  return arrow([ctx.itemName], [bind, ...statements(s.body)]);
}

/** getState, setState, names (comma-separated, for messages) and the number of live ones. */
function stateArgs(s, ctx) {
  const { live = [], dead = [] } = s.ag.state ?? {};
  const names = [...live, ...dead];
  if (names.length === 0) return [literal(null), literal(null), literal(''), literal(0)];
  const pattern = { type: 'ArrayPattern', elements: names.map(id) };
  return [
    arrow([], array(names.map(id))),
    arrow([ctx.stateName], [assign(pattern, id(ctx.stateName))]),
    literal(names.map((n) => ctx.displayName(n)).join(',')),
    literal(live.length),
  ];
}

/** A statement that stays plain JavaScript: a tensor condition in it is a ConversionError, with the reason. */
function guardStatement(s, where, reason) {
  const test = (expression) => runtimeCall('test', [expression, where, reason]);
  if (s.type === 'ForOfStatement') s.right = runtimeCall('iter', [s.right, where, reason]);
  else if (s.type !== 'ForInStatement' && s.test) s.test = test(s.test);
  return s;
}
