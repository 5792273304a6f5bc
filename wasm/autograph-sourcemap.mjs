// The entry esbuild bundles into build/wasm/dist/js/autograph-sourcemap.mjs: the source map writer of source-map-js
// that AutoGraph's Node module hook (js/autograph/hooks.mjs) maps converted modules back to their source with. Only
// the generator (12 KB minified; the package's main module adds the consumer, 30 KB).
export { SourceMapGenerator } from 'source-map-js/lib/source-map-generator.js';
