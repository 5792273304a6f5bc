// The entry esbuild bundles into build/wasm/dist/js/autograph-parser.mjs: the JavaScript parser (acorn) and code
// generator (astring) that AutoGraph (js/autograph.mjs) converts functions with. Only what the converter uses.
export { parse } from 'acorn';
export { generate } from 'astring';
