// Turns `&&`, `||`, `!` and `c ? a : b` into runtime calls, as TF AutoGraph's logical_expressions and
// conditional_expressions converters do; the right operand and the branches become closures, so they are still
// evaluated only when JavaScript would evaluate them:
//
//   a && b   ->  tl.autograph.and(a, () => b, "'&&' expression at line 1, column 1")
//   !a       ->  tl.autograph.not(a, "'!' expression at ...")
//   c ? a : b -> tl.autograph.ifExp(c, () => a, () => b, "conditional expression at ...")
//
// An expression whose lazy part holds `await` or `yield` keeps its form, its test passed through
// `tl.autograph.test` (blocking.mjs). One whose deciding operand can never be a tensor (`i < n && ...`) keeps its
// form too, and `??` is never converted: a tensor is never null.
import { arrow, describe, isPlainValue, isUserFunction, literal, mapChildren, runtimeCall } from './ast.mjs';

/** Converts the expressions of the function (or program) at `root` in place, entering the converter's closures. */
export function convertExpressions(root, ctx) {
  const transform = (node) => {
    if (node !== root && isUserFunction(node)) return node;
    const plain = decidedByPlainValue(node);  // before the children change shape
    mapChildren(node, transform);
    return plain ? node : convertExpression(node, ctx);
  };
  transform(root);
}

/** `a && b`, `a || b`, `!a`, `a ? b : c` whose deciding operand can never be a tensor keep JavaScript's form. */
function decidedByPlainValue(node) {
  if (node.type === 'LogicalExpression') return isPlainValue(node.left);
  if (node.type === 'UnaryExpression' && node.operator === '!') return isPlainValue(node.argument);
  if (node.type === 'ConditionalExpression') return isPlainValue(node.test);
  return false;
}

function convertExpression(node, ctx) {
  const where = (kind) => literal(describe(kind, node, ctx.filename));
  const blocked = node.ag?.blocked ? literal(node.ag.blocked) : null;
  switch (node.type) {
    case 'LogicalExpression': {
      if (node.operator === '??') return node;
      const kind = `'${node.operator}' expression`;
      if (blocked) return { ...node, left: runtimeCall('test', [node.left, where(kind), blocked]) };
      return runtimeCall(node.operator === '&&' ? 'and' : 'or', [node.left, arrow([], node.right), where(kind)]);
    }
    case 'UnaryExpression':
      return node.operator === '!' ? runtimeCall('not', [node.argument, where("'!' expression")]) : node;
    case 'ConditionalExpression': {
      const kind = 'conditional expression';
      if (blocked) return { ...node, test: runtimeCall('test', [node.test, where(kind), blocked]) };
      return runtimeCall('ifExp', [node.test, arrow([], node.consequent), arrow([], node.alternate), where(kind)]);
    }
    default:
      return node;
  }
}
