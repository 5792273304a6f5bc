// Which variables a converted statement carries through the graph, as TF's AutoGraph decides with its activity
// and liveness analyses: those the statement assigns (outside its closures' own declarations) and that are
// live after it — read later in the function, read again by an enclosing loop, read by a nested function (which
// may run at any time), or declared outside the function. A loop also carries what it reads itself (its
// loop-carried variables). The approximation is conservative: a variable read on a path that cannot follow the
// statement still counts as live.

/** The parts of each statement whose assignments become state (the closures). */
const PARTS = {
  IfStatement: ['consequent', 'alternate'],
  WhileStatement: ['test', 'body'],
  DoWhileStatement: ['body', 'test'],
  ForOfStatement: ['left', 'body'],
  ForInStatement: ['left', 'body'],
};

const within = (ord, node) => ord >= node.agOrd && ord <= node.agEnd;

function isLive(binding, node, dynamic) {
  if (dynamic || binding.scope === null) return true;
  if (binding.reads.some((r) => r.nested || r.ord > node.agEnd)) return true;
  for (const loop of node.ag.loops ?? []) {
    if (within(binding.scope.node.agOrd, loop)) continue;  // a fresh variable each iteration
    if (binding.reads.some((r) => within(r.ord, loop))) return true;
  }
  return false;
}

/** { live, dead }: the names the statement assigns, live ones first (they are its outputs). */
function stateOf(node, { bindings, dynamic }) {
  const parts = PARTS[node.type].map((key) => node[key]).filter(Boolean);
  const inParts = (ord) => parts.some((part) => within(ord, part));
  const isLoopNode = node.type !== 'IfStatement';
  const live = [];
  const dead = [];
  for (const binding of bindings) {
    if (!binding.writes.some((w) => !w.nested && inParts(w.ord))) continue;
    if (binding.scope && within(binding.scope.node.agOrd, node)) continue;
    const carried = isLoopNode && binding.reads.some((r) => within(r.ord, node));
    (carried || isLive(binding, node, dynamic) ? live : dead).push(binding.name);
  }
  return { live, dead };
}

/** Sets node.ag.state on every statement of the analyzed function that will be converted. */
export function annotateState(analysis) {
  for (const node of analysis.constructs)
    if (PARTS[node.type] && !node.ag.blocked) node.ag.state = stateOf(node, analysis);
}
