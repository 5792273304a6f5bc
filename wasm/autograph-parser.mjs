// The entry esbuild bundles into build/wasm/dist/js/autograph-parser.mjs: the JavaScript parser (acorn) and code
// generator (astring; GENERATOR is its table of printers, which convert.mjs extends with source map mappings) that
// AutoGraph (js/autograph.mjs) converts functions with. Only what the converter uses.
export { parse } from 'acorn';
export { generate, GENERATOR } from 'astring';
