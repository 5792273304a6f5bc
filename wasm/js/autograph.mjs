// AutoGraph for JavaScript: `if`, `while`, `for`, `&&`, `||`, `!` and `?:` over tensors become tl.cond and
// tl.whileLoop in the graph (TensorFlow's AutoGraph, which tf.function applies to Python). JavaScript cannot
// intercept `if (x.greater(0))` — an object is always truthy — so the source is rewritten: each construct becomes a
// call of the runtime (tl.autograph.ifStmt, whileStmt, ...) with closures for its parts, and the runtime decides
// when it runs: plain values take the plain path, a symbolic tensor (tl.function tracing) builds graph control
// flow. docs/js-api.md ("AutoGraph") describes what converts, the errors and what does not convert.
//
//   const code = tl.autograph.convert(sourceText, { filename: 'model.mjs' });   // every function in the text
//   const sign = tl.autograph.toFunction((x) => { if (x.greater(0)) return tl.scalar(1); return tl.scalar(-1); });
//   tl.function(sign)(tl.scalar(-3));   // one cond node; -1
//
// The converter (autograph/converter.mjs, with the parser) needs no WebAssembly: a Node module hook or a page can
// import `convert` from it alone; loadTracelab({ autograph: false }) leaves it out.
import { makeRuntime } from './autograph/runtime.mjs';
import { ConversionError, InvalidArgument } from './errors.mjs';

export { ConversionError };

/**
 * tl.autograph for one loaded module: the runtime that converted code calls, and the converter (the module
 * autograph/converter.mjs, or null when loadTracelab was told `{ autograph: false }`: then convert, toCode and
 * toFunction throw saying so).
 */
export function makeAutograph(tl, engine, converter) {
  const missing = (what) => () => {
    throw new InvalidArgument(`tl.autograph.${what}: this API was loaded with loadTracelab({ autograph: false }), ` +
                              'which leaves out the converter; load it without that option to convert code');
  };
  return {
    ...makeRuntime(tl, engine),
    convert: converter ? converter.convert : missing('convert'),
    toCode: converter ? converter.toCode : missing('toCode'),
    toFunction: converter ? (fn, scope = {}) => converter.toFunction(fn, scope, tl) : missing('toFunction'),
    ConversionError,
  };
}
