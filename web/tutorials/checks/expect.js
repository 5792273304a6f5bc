// Helpers for the lessons' live checks (web/tutorials/checks/<lesson>.js). No DOM: the checks are plain functions
// of a cell's run, so tests/js/tutorial_checks.test.mjs runs them in node, on real runs and on wrong ones.

/** Small helpers for the pages' checks. */
export const expect = {
  /** Passes with `message` when `condition` holds, else fails with `otherwise`. */
  that(condition, message, otherwise = message) { return { ok: Boolean(condition), message: condition ? message : otherwise }; },
  times: (n) => `${n} time${n === 1 ? '' : 's'}`,
};

/** Whether `same(a[i], b[i])` holds for every i; false when either array is missing or empty or the lengths differ. */
function everyPair(a, b, same) {
  if (!a || !b || a.length !== b.length || a.length === 0) return false;
  for (let i = 0; i < a.length; ++i) if (!same(a[i], b[i])) return false;
  return true;
}

/** Whether two arrays (or typed arrays) hold the same values, each within `tolerance` (0: exactly). */
export const sameValues = (a, b, tolerance = 0) => everyPair(a, b, (x, y) => Math.abs(x - y) <= tolerance);

/** Whether two arrays hold the same values bit for bit (Object.is: -0 and 0 differ, NaN equals NaN). */
export const sameBits = (a, b) => everyPair(a, b, Object.is);

/** The largest |a[i] - b[i]| (Infinity when the lengths differ or an array is missing or empty). */
export function largestDifference(a, b) {
  if (!a || !b || a.length !== b.length || a.length === 0) return Infinity;
  let largest = 0;
  for (let i = 0; i < a.length; ++i) largest = Math.max(largest, Math.abs(a[i] - b[i]));
  return Number.isNaN(largest) ? Infinity : largest;
}

/** The text of a run's outputs of one kind ('print', 'log', 'warning', 'text'), in order. */
export const linesOf = (run, kind) => (run.outputs ?? []).filter((output) => output.kind === kind).map((output) => output.text);

/** Every op node of a graph and of the sub-graphs its nodes hold, as {op, depth} (0 = the graph's top level). */
export function opNodes(graphJson) {
  const found = [];
  const walk = (graph, depth) => {
    for (const node of graph?.nodes ?? []) {
      if (node.kind === 'op') found.push({ op: node.op, depth });
      for (const subgraph of node.subgraphs ?? []) walk(subgraph, depth + 1);
    }
  };
  walk(typeof graphJson === 'string' ? JSON.parse(graphJson) : graphJson, 0);
  return found;
}

/** How many `op` nodes the graph has at depth 0 and below it. */
export function countOps(graphJson, op) {
  const nodes = opNodes(graphJson).filter((node) => node.op === op);
  return { top: nodes.filter((node) => node.depth === 0).length, inside: nodes.filter((node) => node.depth > 0).length };
}
