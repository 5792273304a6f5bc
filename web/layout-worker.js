// The page's own layout worker: lays a graph out again when the reader opens or closes a structured node in the
// trace inspector (inspector.js starts it on the first such click; the playground's and the tutorials' workers
// lay out the first drawing). Messages: in {id, graph, expanded} (graph-layout.js's layoutGraph arguments), out
// {id, layout} or {id, error}.
import { layoutGraph } from './graph-layout.js';

self.onmessage = ({ data: { id, graph, expanded } }) => {
  try {
    self.postMessage({ id, layout: layoutGraph(graph, { expanded }) });
  } catch (error) {
    self.postMessage({ id, error: String(error?.message ?? error) });
  }
};
