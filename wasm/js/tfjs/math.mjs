// TF.js functions: the math group (see GROUPS in wasm/js/tfjs_ops.mjs).

/** {name: {fn, method}} for tl and the Tensor methods; `kit` is tfjs_ops.mjs' helpers. */
export function makeMathOps(tl, kit) {
  return {};
}
