// The trace inspector's drawing: a graph already laid out by graph-layout.js (in a worker: dagre takes far too long
// for the page's thread) drawn as SVG, one box per node (op name, or input / const / variable / assign, and its
// output type) with edges from its inputs. The SVG is built as one string and parsed once, the edges as one path:
// a 400-node graph takes 5-12 ms here and about as long again in the browser's style, layout and paint.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ESCAPES[c]);

/** One node: its box and its two label lines, centred on (x, y). */
function nodeSvg({ x, y, width, height, title, type, kind }) {
  return `<g class="node ${escape(kind)}"><rect x="${x - width / 2}" y="${y - height / 2}" width="${width}" height="${height}" rx="5"/>` +
    `<text x="${x}" y="${y - 4}" text-anchor="middle">${escape(title)}</text>` +
    `<text x="${x}" y="${y + 10}" text-anchor="middle">${escape(type)}</text></g>`;
}

/**
 * Draws `layout` (what graph-layout.js's layoutGraph returns) into `container` as SVG, replacing what was there;
 * sets container.dataset.nodes and returns the number of nodes drawn.
 */
export function drawGraph(container, layout) {
  const { width, height, nodes, edges } = layout;
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`];
  // Every edge in one path: one element instead of hundreds, the same lines.
  if (edges.length) parts.push(`<path class="edge" d="${edges.map(({ points }) => `M${points.join('L')}`).join('')}"/>`);
  for (const node of nodes) parts.push(nodeSvg(node));
  parts.push('</svg>');
  container.innerHTML = parts.join('');
  container.dataset.nodes = String(nodes.length);
  return nodes.length;
}
