// tfjs_diff cases for the ops of wasm/js/tfjs/slice.mjs, in the form of CASES in tests/js/tfjs_diff.test.mjs;
// `k` holds its input helpers (f, i, b, pos, held, edge, unaryCases, ...).
export default ({ f, i }) => ({
  reverse: { cases: () => [{ in: [f([2, 3])] }, { in: [f([2, 3])], args: [1] }, { in: [f([2, 3, 2])], args: [[0, 2]] }] },
});
