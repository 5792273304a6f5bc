// tfjs_diff cases for the ops of wasm/js/tfjs/misc.mjs, in the form of CASES in tests/js/tfjs_diff.test.mjs;
// `k` holds its input helpers (f, i, b, pos, held, edge, unaryCases, ...).
export default (k) => ({
});
