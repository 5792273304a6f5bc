// TF.js functions: the misc group (see GROUPS in wasm/js/tfjs_ops.mjs).

/** {name: {fn, method}} for tl and the Tensor methods; `kit` is tfjs_ops.mjs' helpers. */
export function makeMiscOps(tl, kit) {
  return {};
}
