// Which constructs of a function can move into closures. A construct is *blocked* — it stays plain JavaScript,
// with its test guarded at run time (a tensor there is a ConversionError, never a silent host branch) — when a
// part that would become a closure holds `await` / `yield`, or a `break` / `continue` that stays a real jump
// crosses it. A jump stays real unless it leaves the innermost loop around it for a converted loop (then
// lower.mjs turns it into a flag): labeled jumps out of nested loops, jumps out of a switch and jumps to labeled
// blocks stay real, and so does every construct between them and their target, and their target loop.
import { forEachChild, isLoop, isUserFunction } from './ast.mjs';

/** The parts of a construct that become closures (the rest is evaluated where the statement stood). */
const CLOSURE_PARTS = {
  IfStatement: ['consequent', 'alternate'],
  ConditionalExpression: ['consequent', 'alternate'],
  LogicalExpression: ['right'],
  WhileStatement: ['test', 'body'],
  DoWhileStatement: ['test', 'body'],
  ForStatement: ['test', 'update', 'body'],
  ForOfStatement: ['left', 'body'],
  ForInStatement: ['left', 'body'],
};

export const isConstruct = (node) =>
  CLOSURE_PARTS[node.type] !== undefined && (node.type !== 'LogicalExpression' || node.operator !== '??');

const where = (node) => `line ${node.loc?.start.line ?? '?'}, column ${(node.loc?.start.column ?? -1) + 1}`;
const jumpText = (jump) => `'${jump.node.type === 'BreakStatement' ? 'break' : 'continue'}${jump.node.label ? ` ${jump.node.label.name}` : ''}'`;

/** Walks a function body; returns its constructs, its jumps and the constructs await / yield / for await block. */
function survey(root) {
  const constructs = [];   // {node, inClosure} from the outside in
  const targets = [];      // {node, kind: 'loop' | 'switch' | 'label', labels, depth}
  const all = [];
  const jumps = [];
  const blocked = new Map();
  let pendingLabels = [];
  const visit = (node) => {
    if (node !== root && isUserFunction(node)) return;
    if (node.type === 'AwaitExpression' || node.type === 'YieldExpression') blockAround(node, constructs, blocked);
    if (node.type === 'BreakStatement' || node.type === 'ContinueStatement') jumps.push(resolveJump(node, targets, constructs));
    if (node.type === 'ForOfStatement' && node.await) blocked.set(node, "'for await' loops stay plain JavaScript");
    const labels = pendingLabels;
    pendingLabels = node.type === 'LabeledStatement' ? [...labels, node.label.name] : [];
    const target = targetOf(node, labels, constructs.length);
    if (target) targets.push(target);
    const construct = isConstruct(node) ? { node, inClosure: false } : null;
    if (construct) { constructs.push(construct); all.push(node); }
    forEachChild(node, (child, key) => {
      if (key === 'label') return;  // a label's name, not a statement (it would take the pending labels)
      if (construct) construct.inClosure = CLOSURE_PARTS[node.type].includes(key);
      visit(child);
    });
    if (construct) constructs.pop();
    if (target) targets.pop();
  };
  visit(root);
  return { all, jumps, blocked };
}

function blockAround(node, constructs, blocked) {
  const word = node.type === 'AwaitExpression' ? 'await' : 'yield';
  for (const c of constructs)
    if (c.inClosure && !blocked.has(c.node))
      blocked.set(c.node, `it contains '${word}' (${where(node)}), which cannot move into a closure`);
}

function targetOf(node, labels, depth) {
  if (isLoop(node)) return { node, kind: 'loop', labels: new Set(labels ?? []), depth };
  if (node.type === 'SwitchStatement') return { node, kind: 'switch', labels: new Set(labels ?? []), depth };
  if (labels?.length && node.type !== 'LabeledStatement') return { node, kind: 'label', labels: new Set(labels), depth };
  return null;
}

function resolveJump(node, targets, constructs) {
  const isBreak = node.type === 'BreakStatement';
  let index = targets.length - 1;
  for (; index >= 0; --index) {
    const t = targets[index];
    if (node.label ? t.labels.has(node.label.name) && (isBreak || t.kind === 'loop')
                   : t.kind === 'loop' || (isBreak && t.kind === 'switch')) break;
  }
  const target = targets[index];
  if (!target) return { node, target: null, crossing: false, between: [] };
  const crossing = targets.slice(index + 1).some((t) => t.kind !== 'label');
  const first = target.kind === 'loop' ? target.depth + 1 : target.depth;
  return { node, target, crossing, between: constructs.slice(first).map((c) => c.node) };
}

function nativeReason(jump, blocked) {
  const t = jump.target;
  if (jump.crossing) return `${jumpText(jump)} (${where(jump.node)}) jumps out of a nested loop or switch; labeled break ` +
                            'and continue out of a tensor loop are not supported';
  if (t.kind !== 'loop') return `${jumpText(jump)} (${where(jump.node)}) jumps to the ${t.kind === 'switch' ? 'switch' : 'labeled'} ` +
                                'statement around it, which a closure cannot do';
  return `${jumpText(jump)} (${where(jump.node)}) belongs to the loop at ${where(t.node)}, which stays plain JavaScript: ` +
         blocked.get(t.node);
}

/**
 * Marks node.ag.blocked (a reason, or null) on every construct of the function at `root`; returns the jumps that
 * lower.mjs turns into flags, each mapped to the loop it leaves (none when `allNative`, as after lowering).
 * Constructs blocked by an earlier pass stay blocked.
 */
export function markBlocked(root, { allNative = false } = {}) {
  const { all, jumps, blocked } = survey(root);
  for (const node of all) if (node.ag?.blocked) blocked.set(node, node.ag.blocked);
  const lowered = (j) => !allNative && j.target?.kind === 'loop' && !j.crossing && !blocked.has(j.target.node);
  for (let changed = true; changed;) {
    changed = false;
    for (const jump of jumps) {
      if (!jump.target || lowered(jump)) continue;
      const reason = nativeReason(jump, blocked);
      const reach = jump.target.kind === 'loop' ? [jump.target.node, ...jump.between] : jump.between;
      for (const node of reach)
        if (!blocked.has(node)) { blocked.set(node, reason); changed = true; }
    }
  }
  for (const node of all) (node.ag ??= {}).blocked = blocked.get(node) ?? null;
  return new Map(jumps.filter(lowered).map((j) => [j.node, j.target.node]));
}
