// tfjs_diff cases for the ops of wasm/js/tfjs/math.mjs, in the form of CASES in tests/js/tfjs_diff.test.mjs;
// `k` holds its input helpers (f, i, b, pos, held, edge, unaryCases, ...).
export default (k) => ({
  // TF.js requires int32 tensors of one shape; negative values and INT32_MIN exercise the sign bit.
  bitwiseAnd: { cases: () => [{ in: [k.i([2, 3]), k.i([2, 3])] },
                              { in: [k.i([5], [12, -1, -8, 5, -2147483648]), k.i([5], [10, -5, -3, -2147483648, -1])] },
                              { in: [k.i([0]), k.i([0])] }], grad: false },
  euclideanNorm: { cases: () => [{ in: [k.f([2, 3])] }, { in: [k.f([2, 3])], args: [1] }, { in: [k.f([2, 3])], args: [0, true] },
                                 { in: [k.f([2, 3, 2])], args: [[0, 2]] }, { in: [k.f([4])], args: [null, true] }] },
});
