// The playground's third-party code, bundled by esbuild at build time into build/wasm/dist/vendor.mjs (+ .css):
// uPlot draws the per-step charts, dagre lays out the graphs of the trace inspector. Nothing loads from a CDN.
import 'uplot/dist/uPlot.min.css';

export { default as uPlot } from 'uplot';
export { Graph, layout } from '@dagrejs/dagre';
