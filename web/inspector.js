// The trace inspector: a concrete function's graph (the JSON form of docs/graph.md) laid out by dagre and drawn
// as SVG, one box per node (op name, or input / const / variable / assign) with edges from its inputs.
import { Graph, layout } from './lib/vendor.mjs';

const SVG = 'http://www.w3.org/2000/svg';

/** A node's box label: "%3 matmul" plus its first output's type, e.g. "f32[1,10]". */
function label(node, index) {
  const kind = node.kind === 'op' ? node.op : node.kind === 'variable' || node.kind === 'assign'
    ? `${node.kind} ${node.variable ?? node.name ?? ''}`.trim() : node.kind === 'input' ? `input ${node.name ?? ''}`.trim() : node.kind;
  const out = node.outputs?.[0] ?? (node.dtype ? { dtype: node.dtype, shape: node.shape } : null);
  const type = out ? `${out.dtype === 'float32' ? 'f32' : out.dtype === 'int32' ? 'i32' : out.dtype}[${out.shape.map((d) => (d < 0 ? '?' : d)).join(',')}]` : '';
  return [`%${index} ${kind}`, type];
}

/** Draws `graphJson` (an object) into `container` as SVG; returns the number of nodes drawn. */
export function drawGraph(container, graphJson) {
  container.replaceChildren();
  const g = new Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 14, ranksep: 26, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  const nodes = graphJson.nodes ?? [];
  nodes.forEach((node, i) => {
    const [title, type] = label(node, i);
    const width = Math.max(title.length, type.length) * 7 + 16;
    g.setNode(String(i), { title, type, width, height: 36, kind: node.kind });
  });
  nodes.forEach((node, i) => (node.inputs ?? []).forEach(([from]) => g.setEdge(String(from), String(i))));
  layout(g);

  const { width, height } = g.graph();
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  for (const e of g.edges()) {
    const points = g.edge(e).points.map((p) => `${p.x},${p.y}`).join(' ');
    const line = document.createElementNS(SVG, 'polyline');
    line.setAttribute('points', points);
    line.setAttribute('class', 'edge');
    svg.append(line);
  }
  for (const id of g.nodes()) {
    const n = g.node(id);
    const group = document.createElementNS(SVG, 'g');
    group.setAttribute('class', `node ${n.kind}`);
    const rect = document.createElementNS(SVG, 'rect');
    rect.setAttribute('x', String(n.x - n.width / 2));
    rect.setAttribute('y', String(n.y - n.height / 2));
    rect.setAttribute('width', String(n.width));
    rect.setAttribute('height', String(n.height));
    rect.setAttribute('rx', '5');
    group.append(rect);
    [n.title, n.type].forEach((text, line) => {
      const t = document.createElementNS(SVG, 'text');
      t.setAttribute('x', String(n.x));
      t.setAttribute('y', String(n.y - 4 + line * 14));
      t.setAttribute('text-anchor', 'middle');
      t.textContent = text;
      group.append(t);
    });
    svg.append(group);
  }
  container.append(svg);
  container.dataset.nodes = String(nodes.length);
  return nodes.length;
}
