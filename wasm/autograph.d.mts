// Types of the package's 'tracelab/autograph' entry (js/autograph/converter.mjs): AutoGraph's converter on its own,
// without the WebAssembly core — for build tools and module hooks that only rewrite source text. The same functions
// are tl.autograph.convert / toCode / toFunction on a loaded API (tracelab.d.mts, interface Autograph).
//
//   import { convert } from 'tracelab/autograph';
//   const code = convert(sourceText, { filename: 'model.mjs', marked: true });
import type { Autograph, Tracelab } from './tracelab.mjs';

/** Converts every function (and the top-level code) of module or script text; see Autograph.convert. */
export declare const convert: Autograph['convert'];
/** The converted text of one function, from fn.toString(); see Autograph.toCode. */
export declare const toCode: Autograph['toCode'];
/**
 * A converted, strict-mode copy of fn (not a method) whose free variables are `tl` — the loaded API, passed here
 * because this entry has none — and the entries of `scope`; see Autograph.toFunction.
 * @typeParam F fn's type, which the copy keeps.
 */
export declare function toFunction<F extends (...args: any[]) => unknown>(fn: F, scope: Record<string, unknown> | undefined,
                                                                          tl: Tracelab): F;
