// Graph layout off the page's thread: a concrete function's graph (the JSON form of docs/graph.md) laid out by
// dagre into plain data — boxes and edge polylines — that a worker posts and the page draws with inspector.js.
// dagre takes 0.1–1.5 s for 150–430 nodes in Chromium; drawing the result takes the page 10–30 ms. No DOM here:
// it runs in workers (and on a page, where it would block for as long).
//
// In a module worker under web/ (import paths are relative to the importing file):
//   import { layoutGraph } from './graph-layout.js';            // from web/tutorials/: '../graph-layout.js'
//   self.postMessage({ type: 'layout', id, layout: layoutGraph(graphJson) });   // graphJson: JSON text or object
// (or `const { layoutGraph } = await import('./graph-layout.js')` on the first request, so a worker that may never
// lay out a graph does not load the vendor bundle at start).
// On the page:
//   import { drawGraph } from './inspector.js';
//   drawGraph(container, layout);   // SVG in container, container.dataset.nodes = layout.nodeCount
// The layout is structured-cloneable (numbers, strings, arrays): postMessage copies it as is.
import { Graph, layout as dagreLayout } from './lib/vendor.mjs';

/** Height of a node's box; its width follows its longer label line. */
export const NODE_HEIGHT = 36;

/** dagre's settings for every graph: top to bottom, tight. */
export const LAYOUT_OPTIONS = Object.freeze({ rankdir: 'TB', nodesep: 14, ranksep: 26, marginx: 8, marginy: 8 });

/** A node's box label: ["%3 matmul", "f32[1,10]"] — its index and kind, then its first output's type. */
export function nodeLabel(node, index) {
  const kind = node.kind === 'op' ? node.op : node.kind === 'variable' || node.kind === 'assign'
    ? `${node.kind} ${node.variable ?? node.name ?? ''}`.trim() : node.kind === 'input' ? `input ${node.name ?? ''}`.trim() : node.kind;
  const out = node.outputs?.[0] ?? (node.dtype ? { dtype: node.dtype, shape: node.shape } : null);
  const type = out ? `${out.dtype === 'float32' ? 'f32' : out.dtype === 'int32' ? 'i32' : out.dtype}[${out.shape.map((d) => (d < 0 ? '?' : d)).join(',')}]` : '';
  return [`%${index} ${kind}`, type];
}

const round = (value) => Math.round(value * 10) / 10;

/**
 * Lays out `graphJson` (docs/graph.md's JSON, as text or parsed) with dagre. Returns
 * {width, height, nodeCount, nodes: [{x, y, width, height, title, type, kind}] (centres, in graph order),
 *  edges: [{points: [[x, y], ...]}]} — plain data for postMessage and inspector.js's drawGraph.
 */
export function layoutGraph(graphJson) {
  const graph = typeof graphJson === 'string' ? JSON.parse(graphJson) : graphJson;
  const nodes = graph?.nodes ?? [];
  const g = new Graph();
  g.setGraph({ ...LAYOUT_OPTIONS });
  g.setDefaultEdgeLabel(() => ({}));
  nodes.forEach((node, i) => {
    const [title, type] = nodeLabel(node, i);
    g.setNode(String(i), { title, type, width: Math.max(title.length, type.length) * 7 + 16, height: NODE_HEIGHT, kind: node.kind });
  });
  nodes.forEach((node, i) => (node.inputs ?? []).forEach(([from]) => g.setEdge(String(from), String(i))));
  dagreLayout(g);

  const { width, height } = g.graph();
  return {
    width: round(Math.max(0, width)), height: round(Math.max(0, height)), nodeCount: nodes.length,   // dagre: -Infinity if empty
    nodes: nodes.map((_, i) => {
      const { x, y, width: w, height: h, title, type, kind } = g.node(String(i));
      return { x: round(x), y: round(y), width: w, height: h, title, type, kind };
    }),
    edges: g.edges().map((e) => ({ points: g.edge(e).points.map((p) => [round(p.x), round(p.y)]) })),
  };
}
