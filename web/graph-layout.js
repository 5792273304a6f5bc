// Graph layout off the page's thread: a concrete function's graph (the JSON form of docs/graph.md) laid out by
// dagre into plain data — boxes, clusters and edge polylines — that a worker posts and the page draws with
// inspector.js. dagre takes 0.1–1.5 s for 150–430 nodes in Chromium; drawing the result takes the page 10–30 ms.
// No DOM here: it runs in workers (and on a page, where it would block for as long).
//
// A structured node (cond, while_loop, while_grad, dataset_loop, fused_elementwise: a node with `subgraphs`) is
// drawn *expanded* — a frame holding one labelled frame per sub-graph ("true branch" / "false branch", "cond" /
// "body", "body"), side by side, with the node's own box at its foot — or *collapsed*, one box like any other.
// Each sub-graph is laid out on its own (a flat dagre layout: dagre's compound layouts route edges through
// clusters in long zig-zags and take several times as long) and the expanded node is one big box in the enclosing
// graph's layout: the node's operands run into the top of its frame, its results leave from the bottom, where its
// box is. Inside, each sub-graph input is titled with the outer value it receives (`%0 arg0 ← %4`: the enclosing
// graph's %4) and each sub-graph ends in a `return` box, as in the text form, linked to the node's box. Nested to
// any depth: a cond in a while body is a frame in the body's frame.
//
// In a module worker under web/ (import paths are relative to the importing file):
//   import { layoutGraph } from './graph-layout.js';            // from web/tutorials/: '../graph-layout.js'
//   self.postMessage({ type: 'layout', id, layout: layoutGraph(graphJson) });   // graphJson: JSON text or object
// (or `const { layoutGraph } = await import('./graph-layout.js')` on the first request, so a worker that may never
// lay out a graph does not load the vendor bundle at start).
// On the page:
//   import { drawGraph } from './inspector.js';
//   drawGraph(container, layout);   // SVG in container, container.dataset.nodes = layout.nodeCount
// The layout is structured-cloneable (numbers, strings, arrays): postMessage copies it as is. When the graph has
// structured nodes it carries `source` (the graph without constant values), so the page can lay it out again with
// another set of expanded nodes (layout-worker.js) when the reader clicks one.
import { Graph, layout as dagreLayout } from './lib/vendor.mjs';

/** Height of a node's box; its width follows its longer label line. */
export const NODE_HEIGHT = 36;

/** dagre's settings for every graph: top to bottom, tight. */
export const LAYOUT_OPTIONS = Object.freeze({ rankdir: 'TB', nodesep: 14, ranksep: 26, marginx: 8, marginy: 8 });

/**
 * By default structured nodes are expanded, outer ones first and in graph order, while the drawing stays within
 * this many boxes. dagre's time grows with the boxes drawn, not with how they nest: every lesson graph (up to 46
 * nodes at all depths) and the playground's dataset loop (a 150-node training step) open fully, in as long as
 * the flat 170-node graphs take; a bigger graph keeps its bodies closed until the reader clicks one.
 */
export const EXPAND_BUDGET = 200;

/** Labels of a structured op's sub-graphs, in order; any other op's are "sub-graph 0", "sub-graph 1", ... */
export const SUBGRAPH_LABELS = Object.freeze({
  cond: ['true branch', 'false branch'], while_loop: ['cond', 'body'], while_grad: ['cond', 'body'],
  dataset_loop: ['body'], fused_elementwise: ['body'],
});

const typeText = (out) => (out ? `${out.dtype === 'float32' ? 'f32' : out.dtype === 'int32' ? 'i32' : out.dtype}` +
  `[${out.shape.map((d) => (d < 0 ? '?' : d)).join(',')}]` : '');

/**
 * A node's box label: ["%3 matmul", "f32[1,10]"] — its index and kind, then its first output's type. An op that
 * updates variables in place (adam_apply and the other `_apply` ops: no outputs) says so on its second line,
 * ["%60 adam_apply", "updates 36 variables"] or ["%9 sgd_apply", "updates dense/kernel"], and names them all in
 * a third element, the box's tooltip: "updates dense/kernel, dense/bias, ...".
 */
export function nodeLabel(node, index) {
  const kind = node.kind === 'op' ? node.op : node.kind === 'variable' || node.kind === 'assign'
    ? `${node.kind} ${node.variable ?? node.name ?? ''}`.trim() : node.kind === 'input' ? `input ${node.name ?? ''}`.trim() : node.kind;
  const type = typeText(node.outputs?.[0] ?? (node.dtype ? { dtype: node.dtype, shape: node.shape } : null));
  const variables = node.variables ?? [];
  if (!variables.length) return [`%${index} ${kind}`, type];
  const names = variables.map((v) => v.name ?? `#${v.id}`);
  const updates = `updates ${names.length === 1 ? names[0] : `${names.length} variables`}`;
  return [`%${index} ${kind}`, type ? `${type}, ${updates}` : updates, `updates ${names.join(', ')}`];
}

/** A value's name as the text form writes it: `%3`, or `%3#1` for a later output. */
const valueName = ([node, output]) => (output ? `%${node}#${output}` : `%${node}`);

/** A node's operands: [node, output] pairs (an assign stores its one operand as `input`). */
const operands = (node) => node.inputs ?? (node.input ? [node.input] : []);

const intAttr = (node, name) => node.attrs?.[name]?.int ?? 0;

/**
 * What feeds input `m` of one of `node`'s sub-graphs: {operand} (an index into node's operands) or {element} (a
 * dataset component), or null. cond passes its operands after the predicate; a loop its loop variables then its
 * captures (while_grad's trailing operands are the upstream gradients); dataset_loop's body takes the element's
 * components first.
 */
function feedOf(node, m, inputCount) {
  if (node.op === 'cond') return { operand: m + 1 };
  if (node.op === 'dataset_loop') {
    const components = intAttr(node, 'num_components');
    return m < components ? { element: m } : { operand: m - components };
  }
  if (['while_loop', 'while_grad', 'fused_elementwise'].includes(node.op) || operands(node).length === inputCount) return { operand: m };
  return null;
}

/** The paths of the structured nodes to expand by default: outer first, in graph order, within EXPAND_BUDGET. */
export function defaultExpanded(graph, budget = EXPAND_BUDGET) {
  const expanded = [];
  let drawn = graph?.nodes?.length ?? 0;
  const queue = [{ graph, prefix: '' }];
  while (queue.length) {
    const { graph: g, prefix } = queue.shift();
    (g?.nodes ?? []).forEach((node, i) => {
      if (!node.subgraphs?.length) return;
      const inside = node.subgraphs.reduce((sum, sub) => sum + Math.max(1, sub.nodes?.length ?? 0), 0);
      if (drawn + inside > budget) return;
      drawn += inside;
      const path = `${prefix}${i}`;
      expanded.push(path);
      node.subgraphs.forEach((sub, k) => queue.push({ graph: sub, prefix: `${path}/${k}/` }));
    });
  }
  return expanded;
}

/** The graph without constant values (the page needs only names and types to lay it out again). */
function withoutValues(graph) {
  return {
    nodes: (graph?.nodes ?? []).map(({ values, subgraphs, ...node }) =>
      (subgraphs ? { ...node, subgraphs: subgraphs.map(withoutValues) } : node)),
    outputs: graph?.outputs ?? [],
  };
}

const round = (value) => Math.round(value * 10) / 10;
const boxWidth = (title, type) => Math.max(title.length, type.length) * 7 + 16;
const MARK_WIDTH = 12;   // a structured node's box has room for its open / closed mark (inspector.js)
const FRAME_PAD = 8;     // a frame's inner margin, left, right and below
const FRAME_TOP = 22;    // ... and above, where its label goes
const FRAME_GAP = 14;    // between the sub-graph frames of a node

/** Moves laid-out boxes, frames and edges by (dx, dy), in place. */
function translate({ nodes, clusters, edges }, dx, dy) {
  for (const item of [...nodes, ...clusters]) {
    item.x = round(item.x + dx);
    item.y = round(item.y + dy);
  }
  for (const edge of edges) edge.points = edge.points.map(([x, y]) => [round(x + dx), round(y + dy)]);
}

/**
 * Lays out one graph body flat with dagre: a box per node (an expanded structured node's box is its whole frame,
 * laid out first by layoutStructured), an edge per operand and, for a sub-graph (`returns`), a `return` box fed by
 * the values it returns. `inputTitle(m, node, j)` titles input m inside a sub-graph. Returns
 * {width, height, nodes, clusters, edges, count, returnBox} with coordinates from the body's top-left corner.
 */
function layoutBody(graph, { prefix, depth, open, inputTitle, returns, margin }) {
  const g = new Graph();
  g.setGraph({ ...LAYOUT_OPTIONS, marginx: margin, marginy: margin });
  g.setDefaultEdgeLabel(() => ({}));
  const frames = new Map();   // node id -> its expanded frame, laid out around (0, 0)
  const list = graph?.nodes ?? [];
  let count = 0;
  let inputIndex = 0;
  list.forEach((node, j) => {
    const path = `${prefix}${j}`;
    let [title, type, tip] = nodeLabel(node, j);
    if (node.kind === 'input' && inputTitle) title = inputTitle(inputIndex++, node, j);
    const structured = node.subgraphs?.length ? (open.has(path) ? 'expanded' : 'collapsed') : '';
    if (structured === 'expanded') {
      const frame = layoutStructured(node, { path, depth, open, title, type });
      frames.set(String(j), frame);
      count += frame.count;
      g.setNode(String(j), { width: frame.width, height: frame.height });
    } else {
      g.setNode(String(j), { title, type, width: boxWidth(title, type) + (structured ? MARK_WIDTH : 0), height: NODE_HEIGHT,
                             kind: node.kind, path, depth, structured, ...(tip ? { tip } : {}) });
      count += 1;
    }
    for (const [from] of operands(node)) if (from < j) g.setEdge(String(from), String(j));
  });
  if (returns && graph?.outputs?.length) {
    const type = graph.outputs.map(valueName).join(', ');
    g.setNode('return', { title: 'return', type, width: boxWidth('return', type), height: NODE_HEIGHT, kind: 'return',
                          path: `${prefix}return`, depth, structured: '' });
    for (const [from] of graph.outputs) if (g.hasNode(String(from))) g.setEdge(String(from), 'return');
  }
  dagreLayout(g);
  return { ...collect(g, frames), count };
}

/** The boxes, frames and edges of the laid-out dagre graph `g`, the `frames` of its expanded nodes moved into place. */
function collect(g, frames) {
  const laid = { nodes: [], clusters: [], edges: [], returnBox: null };
  for (const id of g.nodes()) {
    const n = g.node(id);
    const frame = frames.get(id);
    if (frame) {
      translate(frame, n.x - frame.width / 2, n.y - frame.height / 2);
      laid.clusters.push(...frame.clusters);
      laid.nodes.push(...frame.nodes);
      laid.edges.push(...frame.edges);
      continue;
    }
    laid.nodes.push({ x: round(n.x), y: round(n.y), width: n.width, height: n.height, title: n.title, type: n.type,
                      kind: n.kind, path: n.path, depth: n.depth, structured: n.structured, ...(n.tip ? { tip: n.tip } : {}) });
    if (id === 'return') laid.returnBox = laid.nodes.at(-1);
  }
  for (const e of g.edges()) laid.edges.push({ kind: 'data', points: g.edge(e).points.map((p) => [round(p.x), round(p.y)]) });
  // dagre sizes the graph by its boxes, but a long edge can bend around a column of boxes, outside them: the body is
  // widened (and moved) so that its edges lie inside it too, and so inside the frame drawn around it.
  const { width, height, marginx, marginy } = g.graph();   // dagre: -Infinity if empty
  let left = marginx, top = marginy, right = width - marginx, bottom = height - marginy;
  for (const edge of laid.edges)
    for (const [x, y] of edge.points) {
      left = Math.min(left, x - marginx / 2);
      right = Math.max(right, x + marginx / 2);
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
    }
  if (left < marginx || top < marginy) translate(laid, marginx - left, marginy - top);
  return { ...laid, width: round(Math.max(0, right - left + 2 * marginx)),
           height: round(Math.max(0, bottom - top + 2 * marginy)) };
}

/** Titles input m of `sub` (a sub-graph of `node`) with what feeds it: `%0 arg0 ← %4`, `%0 arg0 ← element 0`. */
function inputTitles(node, sub) {
  const outer = operands(node);
  const inputCount = (sub.nodes ?? []).filter((n) => n.kind === 'input').length;
  return (m, input, j) => {
    const feed = feedOf(node, m, inputCount);
    const name = `%${j}${input.name ? ` ${input.name}` : ''}`;
    if (feed?.element !== undefined) return `${name} ← element ${feed.element}`;
    const ref = feed && outer[feed.operand];
    return ref ? `${name} ← ${valueName(ref)}` : `${name} input`;
  };
}

/**
 * Lays out the expanded structured `node` at `path` (its box titled `title` / `type`): its sub-graphs' frames in
 * a row, in order, the node's box centred below them, a `return` link from each sub-graph's return box to the
 * node's box. Returns {width, height, nodes, clusters, edges, count}, from the frame's top-left corner.
 */
function layoutStructured(node, { path, depth, open, title, type }) {
  const labels = SUBGRAPH_LABELS[node.op] ?? [];
  const frames = node.subgraphs.map((sub, k) => {
    const body = layoutBody(sub, { prefix: `${path}/${k}/`, depth: depth + 1, open, inputTitle: inputTitles(node, sub),
                                   returns: true, margin: 0 });
    const label = labels[k] ?? `sub-graph ${k}`;
    return { body, label, path: `${path}/${k}`,
             width: Math.max(body.width, label.length * 7 + 8) + 2 * FRAME_PAD, height: body.height + FRAME_TOP + FRAME_PAD };
  });
  const count = 1 + frames.reduce((sum, frame) => sum + frame.body.count, 0);
  const rowWidth = frames.reduce((sum, frame) => sum + frame.width, 0) + FRAME_GAP * Math.max(0, frames.length - 1);
  const rowBottom = FRAME_TOP + Math.max(0, ...frames.map((frame) => frame.height));
  const boxWidthHere = boxWidth(title, type) + MARK_WIDTH;
  const width = Math.max(rowWidth, boxWidthHere, title.length * 7 + 8) + 2 * FRAME_PAD;
  const box = { x: width / 2, y: rowBottom + LAYOUT_OPTIONS.ranksep + NODE_HEIGHT / 2, width: boxWidthHere, height: NODE_HEIGHT,
                title, type, kind: 'op', path, depth, structured: 'expanded' };
  const height = box.y + NODE_HEIGHT / 2 + FRAME_PAD;
  const frame = { x: width / 2, y: height / 2, width, height, label: title, cluster: 'op', path, depth, nodes: count };
  const laid = { nodes: [], clusters: [frame], edges: [] };
  let left = (width - rowWidth) / 2;
  for (const { body, label, path: subPath, width: frameWidth, height: frameHeight } of frames) {
    laid.clusters.push({ x: left + frameWidth / 2, y: FRAME_TOP + frameHeight / 2, width: frameWidth, height: frameHeight, label,
                         cluster: 'subgraph', path: subPath, depth: depth + 1, nodes: body.count });
    translate(body, left + (frameWidth - body.width) / 2, FRAME_TOP + FRAME_TOP);   // the row's top, then the frame's own
    laid.clusters.push(...body.clusters);
    laid.nodes.push(...body.nodes);
    laid.edges.push(...body.edges);
    // From the return box down its own frame's column to below the row, then to the node's box: never across a
    // neighbouring frame.
    const from = body.returnBox;
    const below = rowBottom + LAYOUT_OPTIONS.ranksep / 2;
    if (from) laid.edges.push({ kind: 'return', points: [[from.x, from.y + NODE_HEIGHT / 2], [from.x, below], [box.x, box.y - NODE_HEIGHT / 2]] });
    left += frameWidth + FRAME_GAP;
  }
  laid.nodes.push(box);
  return { ...laid, width, height, count };
}

/**
 * Lays out `graphJson` (docs/graph.md's JSON, as text or parsed) with dagre; `expanded` lists the paths of the
 * structured nodes to draw opened ("3": node 3; "3/1/12": node 12 of node 3's sub-graph 1), by default
 * defaultExpanded's choice. Returns plain data for postMessage and inspector.js's drawGraph:
 * {width, height, nodeCount (graph nodes drawn, at every depth), expanded (the paths asked to be open),
 *  nodes: [{x, y, width, height, title, type, kind, path, depth, structured ('' | 'expanded' | 'collapsed'),
 *           tip (only on a node that updates variables: their names, the box's tooltip)}]
 *    (centres; kind 'return' for a sub-graph's return box, which is no graph node),
 *  clusters: [{x, y, width, height, label, cluster ('op': a structured node's frame | 'subgraph'), path, depth,
 *    nodes (graph nodes inside)}] (outer ones first),
 *  edges: [{points: [[x, y], ...], kind ('data' | 'return')}], source (only when the graph has structured nodes)}.
 */
export function layoutGraph(graphJson, { expanded } = {}) {
  const graph = typeof graphJson === 'string' ? JSON.parse(graphJson) : graphJson;
  const open = new Set(expanded ?? defaultExpanded(graph));
  const laid = layoutBody(graph, { prefix: '', depth: 0, open, inputTitle: null, returns: false,
                                   margin: LAYOUT_OPTIONS.marginx });
  return {
    width: laid.width, height: laid.height, nodeCount: laid.count, expanded: [...open],
    nodes: laid.nodes, clusters: laid.clusters, edges: laid.edges,
    ...(laid.nodes.some((n) => n.structured) ? { source: withoutValues(graph) } : {}),
  };
}
