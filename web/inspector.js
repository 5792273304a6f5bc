// The trace inspector's drawing: a graph already laid out by graph-layout.js (in a worker: dagre takes far too long
// for the page's thread) drawn as SVG, one box per node (op name, or input / const / variable / assign, and its
// output type, or the variables it updates, named in its tooltip) with edges from its inputs. An expanded
// structured node (cond, while_loop, ...) is a frame holding one labelled frame per sub-graph, its own box at the
// foot; clicking its box or its label (or Enter / Space on it) closes it, and clicking a closed one (marked +)
// opens it: the graph is laid out again in a small worker of the page's own (layout-worker.js), since dagre would
// block the page. The SVG is built as one string and parsed once, the edges as one path per kind: a 400-node graph
// takes 5-12 ms here and about as long again in the browser's style, layout and paint.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ESCAPES[c]);

/** The toggle's attributes for a structured node's box or frame label: focusable, a button, open or closed. */
const toggleAttributes = (path, open) =>
  ` data-toggle="${escape(path)}" tabindex="0" role="button" aria-expanded="${open}"`;

/**
 * One node: its box and its two label lines, centred on (x, y), and its tooltip (`tip`: the variables an `_apply`
 * op updates) as an SVG title; a structured node's box also toggles it.
 */
function nodeSvg({ x, y, width, height, title, type, kind, path, depth, structured, tip }) {
  const left = x - width / 2;
  const top = y - height / 2;
  const toggle = structured ? toggleAttributes(path, structured === 'expanded') : '';
  const mark = structured ? `<text class="mark" x="${left + width - 7}" y="${top + 11}" text-anchor="middle">${structured === 'expanded' ? '−' : '+'}</text>` : '';
  return `<g class="node ${escape(kind)}${structured ? ` structured ${structured}` : ''}" data-path="${escape(path ?? '')}" data-depth="${depth ?? 0}"${toggle}>` +
    (tip ? `<title>${escape(tip)}</title>` : '') +
    `<rect x="${left}" y="${top}" width="${width}" height="${height}" rx="5"/>` +
    `<text x="${x}" y="${y - 4}" text-anchor="middle">${escape(title)}</text>` +
    `<text x="${x}" y="${y + 10}" text-anchor="middle">${escape(type)}</text>${mark}</g>`;
}

/** A frame: an expanded structured node (labelled with its box's title) or one of its sub-graphs (labelled). */
function clusterSvg({ x, y, width, height, label, cluster, path, depth, nodes }) {
  const left = x - width / 2;
  const top = y - height / 2;
  const toggle = cluster === 'op' ? toggleAttributes(path, true) : '';
  return `<g class="cluster ${cluster}" data-path="${escape(path)}" data-label="${escape(label)}" data-nodes="${nodes}" data-depth="${depth}">` +
    `<rect x="${left}" y="${top}" width="${width}" height="${height}" rx="7"/>` +
    `<text class="cluster-label" x="${left + 6}" y="${top + 14}"${toggle}>${escape(label)}</text></g>`;
}

/**
 * Draws `layout` (what graph-layout.js's layoutGraph returns) into `container` as SVG, replacing what was there;
 * sets container.dataset.nodes (graph nodes drawn, at every depth) and .subgraphs (sub-graph frames drawn) and
 * returns the number of nodes drawn. When the layout has structured nodes, a click on one lays the graph out again
 * with it opened or closed and draws that (the container is aria-busy meanwhile); a drawing made in between, by
 * the caller, wins over it.
 */
export function drawGraph(container, layout) {
  const { width, height, nodes, edges } = layout;
  const clusters = layout.clusters ?? [];
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`];
  for (const cluster of clusters) parts.push(clusterSvg(cluster));
  // Every edge of a kind in one path: one element instead of hundreds, the same lines.
  for (const kind of ['data', 'return']) {
    const d = edges.filter((e) => (e.kind ?? 'data') === kind).map(({ points }) => `M${points.join('L')}`).join('');
    if (d) parts.push(`<path class="edge ${kind}" d="${d}"/>`);
  }
  for (const node of nodes) parts.push(nodeSvg(node));
  parts.push('</svg>');
  container.innerHTML = parts.join('');
  delete container.dataset.ticket;   // a layout still on its way for the previous drawing is dropped
  container.removeAttribute('aria-busy');
  const drawn = nodes.filter((node) => node.kind !== 'return').length;   // return boxes are no graph nodes
  container.dataset.nodes = String(drawn);
  container.dataset.subgraphs = String(clusters.filter((c) => c.cluster === 'subgraph').length);
  const toggle = (event) => {
    const path = event.target.closest?.('[data-toggle]')?.dataset.toggle;
    if (path === undefined || !layout.source) return;
    event.preventDefault();
    const expanded = new Set(layout.expanded);
    if (!expanded.delete(path)) expanded.add(path);
    relayout(container, layout.source, [...expanded]);
  };
  container.onclick = toggle;
  container.onkeydown = (event) => { if (event.key === 'Enter' || event.key === ' ') toggle(event); };
  return drawn;
}

let layoutWorker = null;   // started on the first click; serves every graph on the page
let requests = 0;
const pending = new Map();   // request id -> {resolve, reject}

/** Lays `graph` out in the page's layout worker with the structured nodes at `expanded` opened. */
function layoutInWorker(graph, expanded) {
  if (!layoutWorker) {
    layoutWorker = new Worker(new URL('./layout-worker.js', import.meta.url), { type: 'module' });
    layoutWorker.onmessage = ({ data }) => {
      const request = pending.get(data.id);
      pending.delete(data.id);
      if (data.error) request?.reject(new Error(data.error));
      else request?.resolve(data.layout);
    };
    layoutWorker.onerror = (event) => {   // the worker did not load: fail what waits, start afresh next time
      for (const request of pending.values()) request.reject(new Error(`the layout worker failed: ${event.message}`));
      pending.clear();
      layoutWorker = null;
    };
  }
  const id = ++requests;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    layoutWorker.postMessage({ id, graph, expanded });
  });
}

/** Lays the graph in `container` out again with `expanded` opened and draws it, unless something else was drawn
 *  there in the meantime; keeps the keyboard focus on the node that was toggled. */
async function relayout(container, graph, expanded) {
  const ticket = String(++requests);
  const focused = container.contains(document.activeElement) ? document.activeElement.dataset.toggle : undefined;
  container.dataset.ticket = ticket;
  container.setAttribute('aria-busy', 'true');
  try {
    const layout = await layoutInWorker(graph, expanded);
    if (container.dataset.ticket !== ticket) return;
    drawGraph(container, layout);
    if (focused !== undefined) container.querySelector(`[data-toggle="${CSS.escape(focused)}"]`)?.focus();
  } catch (error) {
    if (container.dataset.ticket !== ticket) return;
    container.textContent = `${error.name}: ${error.message}`;
    delete container.dataset.ticket;
    container.removeAttribute('aria-busy');
  }
}
