// tfjs_diff cases for the ops of wasm/js/tfjs/creation.mjs, in the form of CASES in tests/js/tfjs_diff.test.mjs;
// `k` holds its input helpers (f, i, b, pos, held, edge, unaryCases, ...).
export default ({ f, i }) => ({
  clone: { cases: () => [{ in: [f([2, 3])] }, { in: [i([2])] }] },
});
