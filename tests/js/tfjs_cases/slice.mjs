// tfjs_diff cases for the ops of wasm/js/tfjs/slice.mjs, in the form of CASES in tests/js/tfjs_diff.test.mjs;
// `k` holds its input helpers (f, i, b, pos, held, edge, unaryCases, ...).
const joined = (name) => (lib, xs, args) => lib[name](xs, ...args);  // the ops that take an array of tensors first
export default ({ f, i, b }) => ({
  concat1d: { cases: () => [{ in: [f([2]), f([3])] }, { in: [f([4])] }, { in: [f([0]), f([2])] }, { in: [i([2]), i([3])] },
                            { in: [i([2]), f([2])], differs: { throws: 'DTypeError' } }],
              call: joined('concat1d') },
  concat2d: { cases: () => [{ in: [f([2, 3]), f([1, 3])], args: [0] }, { in: [f([2, 3]), f([2, 2])], args: [1] },
                            { in: [f([2, 3]), f([2, 1]), f([2, 2])], args: [-1] }, { in: [b([2, 2]), b([2, 1])], args: [1] },
                            { in: [f([0, 3]), f([2, 3])], args: [0] }],
              call: joined('concat2d') },
  concat3d: { cases: () => [{ in: [f([2, 1, 3]), f([2, 2, 3])], args: [1] }, { in: [f([1, 2, 2]), f([1, 2, 3])], args: [2] },
                            { in: [i([1, 2, 2]), i([2, 2, 2])], args: [0] }],
              call: joined('concat3d') },
  concat4d: { cases: () => [{ in: [f([1, 2, 2, 1]), f([1, 2, 2, 2])], args: [3] }, { in: [f([1, 1, 2, 2]), f([1, 2, 2, 2])], args: [1] }],
              call: joined('concat4d') },
  pad1d: { cases: () => [{ in: [f([3])], args: [[1, 2]] }, { in: [f([3])], args: [[0, 1], 1.5] }, { in: [i([2])], args: [[2, 0], 7] },
                         { in: [b([2])], args: [[1, 1]] }, { in: [f([0])], args: [[1, 1], -1] }] },
  pad2d: { cases: () => [{ in: [f([2, 3])], args: [[[1, 0], [0, 2]]] }, { in: [f([2, 2])], args: [[[1, 1], [1, 1]], -2] },
                         { in: [i([2, 2])], args: [[[0, 1], [1, 0]], 3] }] },
  pad3d: { cases: () => [{ in: [f([1, 2, 2])], args: [[[1, 0], [0, 1], [1, 1]]] },
                         { in: [f([2, 0, 2])], args: [[[0, 0], [1, 1], [0, 0]], 4] }] },
  pad4d: { cases: () => [{ in: [f([1, 2, 2, 1])], args: [[[0, 0], [1, 1], [1, 1], [0, 0]]] },
                         { in: [f([1, 1, 2, 2])], args: [[[1, 0], [0, 0], [0, 2], [1, 0]], 0.5] }] },
  reverse: { cases: () => [{ in: [f([2, 3])] }, { in: [f([2, 3])], args: [1] }, { in: [f([2, 3, 2])], args: [[0, 2]] },
                           { in: [f([2, 3, 2])], args: [-1] }, { in: [f([2, 3])], args: [[]] }, { in: [f([], [2.5])] },
                           { in: [i([4])] }, { in: [b([2, 2])], args: [0] }, { in: [f([0, 3])], args: [[0, 1]] },
                           // TF.js reverses a twice-named dimension twice (no change); TF and Tracelab reject it.
                           { in: [f([2, 3])], args: [[1, 1]], differs: { throws: 'InvalidArgument' } }] },
  reverse1d: { cases: () => [{ in: [f([5])] }, { in: [i([3])] }, { in: [f([0])] }] },
  reverse2d: { cases: () => [{ in: [f([2, 3])] }, { in: [f([2, 3])], args: [0] }, { in: [f([2, 3])], args: [[-1]] }] },
  reverse3d: { cases: () => [{ in: [f([2, 3, 2])] }, { in: [f([2, 3, 2])], args: [[1, 2]] }] },
  reverse4d: { cases: () => [{ in: [f([1, 2, 3, 2])], args: [[1, 3]] }, { in: [i([2, 1, 2, 2])] }] },
  slice1d: { cases: () => [{ in: [f([5])], args: [1, 3] }, { in: [f([5])], args: [2, -1] }, { in: [f([5])], args: [5, 0] },
                           { in: [b([4])], args: [1, 2] }] },
  slice2d: { cases: () => [{ in: [f([3, 4])], args: [[1, 0], [2, 3]] }, { in: [f([3, 4])], args: [[0, 1], [-1, 2]] },
                           { in: [f([3, 4])], args: [1, 2] }, { in: [f([3, 4])], args: [[2], [1]] },
                           { in: [i([3, 4])], args: [[1, 1], [1, 2]] }] },
  slice3d: { cases: () => [{ in: [f([2, 3, 4])], args: [[1, 0, 1], [1, 2, 3]] }, { in: [f([2, 3, 4])], args: [[0, 1, 0], [-1, -1, 2]] }] },
  slice4d: { cases: () => [{ in: [f([1, 3, 3, 2])], args: [[0, 1, 1, 0], [1, 2, 2, 2]] },
                           { in: [f([2, 2, 2, 2])], args: [[1, 0, 0, 1], [1, -1, -1, 1]] }] },
  // TF.js has no gradient for StridedSlice ("Cannot compute gradient: gradient function not found for StridedSlice"):
  // Tracelab's is checked on hand-computed values (weights 0.5, 1, 1.5, 0.75 by output position).
  stridedSlice: { cases: () => [
    { in: [f([6])], args: [[5], [0], [-2]], differs: { grads: [[0, 1.5, 0, 1, 0, 0.5]] } },        // x5 x3 x1
    { in: [f([2, 3])], args: [[0, 2], [2, 0], [1, -1]], differs: { grads: [[0, 1, 0.5, 0, 0.75, 1.5]] } },
    ...[
    { in: [f([5])], args: [[1], [4]] }, { in: [f([6])], args: [[0], [6], [2]] }, { in: [f([6])], args: [[1], [6], [3]] },
    { in: [f([5])], args: [[-1], [0], [-1]] }, { in: [f([5])], args: [[0], [0], [-2], 1, 1] }, { in: [f([5])], args: [[3], [1], [2]] },
    { in: [f([5])], args: [[-4], [-1]] }, { in: [f([5])], args: [[-10], [10]] }, { in: [f([5])], args: [[4], [-10], [-1]] },
    { in: [f([2, 3])], args: [[0, 2], [2, 0], [1, -1]] }, { in: [f([3, 4])], args: [[0, 0], [3, 4], [2, 3]] },
    { in: [f([2, 3])], args: [[1, 0], [2, 3], [1, 1], 0, 0, 0, 0, 1] },          // shrink axis 0
    { in: [f([2, 3])], args: [[0, -1], [2, 0], [1, 1], 0, 0, 0, 0, 2] },         // shrink axis 1 at -1
    { in: [f([2, 3])], args: [[0, 0, 0], [1, 2, 3], [1, 1, 1], 0, 0, 0, 1] },    // new axis in front
    { in: [f([2, 3])], args: [[0, 0, 1], [2, 0, 3], [1, 1, 1], 0, 0, 0, 2] },    // new axis in the middle
    { in: [f([2, 3, 4])], args: [[0, 1], [1, 3], [1, 1], 0, 0, 1] },             // ellipsis first
    { in: [f([2, 3, 4])], args: [[1, 0, 1], [2, 0, 4], [1, 1, 2], 0, 0, 2] },    // ellipsis in the middle
    { in: [f([2, 3, 4])], args: [[1, 0, 0], [0, 0, 3], [1, 1, -1], 1, 2, 2] },   // masks with an ellipsis
    { in: [f([2, 3])], args: [[1], [2]] }, { in: [f([2, 3])], args: [[0, 1], [2, 3]] },
    { in: [f([2, 3])], args: [[1, 2], [0, 0], [-1, -1], 0, 3] },
    { in: [i([6])], args: [[5], [0], [-2]] }, { in: [b([4])], args: [[0], [4], [2]] },
    { in: [f([0, 3])], args: [[0, 1], [0, 3]] }, { in: [f([0, 3])], args: [[0, 0], [0, 3], [-1, 1], 1, 1] },
  ].map((c) => ({ ...c, grad: false }))] },
  // TF.js' MirrorPad gradient is the slice of dy at x's place only, leaving out the mirrored copies (a TF.js bug: TF's
  // MirrorPadGrad adds them; central differences of the forward agree with Tracelab's): the gradient is checked on
  // hand-computed values (weights 0.5, 1, 1.5, 0.75, 1.25, 0.5, 1 by output position).
  mirrorPad: { cases: () => [
    ...[{ in: [f([2, 3])], args: [[[1, 1], [2, 2]], 'reflect'] }, { in: [f([2, 3])], args: [[[2, 0], [0, 3]], 'symmetric'] },
        { in: [f([4])], args: [[[3, 1]], 'reflect'] }, { in: [f([3])], args: [[[0, 0]], 'symmetric'] },
        { in: [f([2, 2, 3])], args: [[[1, 0], [0, 1], [2, 2]], 'symmetric'] },
        { in: [i([3])], args: [[[1, 2]], 'reflect'] }, { in: [b([3])], args: [[[2, 1]], 'symmetric'] },
        { in: [f([0, 2])], args: [[[0, 0], [1, 1]], 'symmetric'] }].map((c) => ({ ...c, grad: false })),
    { in: [f([4])], args: [[[1, 2]], 'reflect'], differs: { grads: [[1, 3, 1.25, 1.25]] } },       // x1 x0 x1 x2 x3 x2 x1
    { in: [f([4])], args: [[[2, 1]], 'symmetric'], differs: { grads: [[2.5, 1.25, 1.25, 1.5]] } },  // x1 x0 x0 x1 x2 x3 x3
  ] },
  spaceToBatchND: { cases: () => [{ in: [f([1, 4, 4, 1])], args: [[2, 2], [[0, 0], [0, 0]]] },
                                  { in: [f([2, 2, 3, 2])], args: [[2, 2], [[0, 0], [1, 0]]] },
                                  { in: [f([1, 3, 2])], args: [[2], [[1, 2]]] }, { in: [f([2, 4])], args: [[2], [[0, 0]]] },
                                  { in: [i([1, 2, 2, 1])], args: [[2, 2], [[0, 0], [0, 0]]] },
                                  { in: [f([1, 2, 4, 2, 1])], args: [[1, 2, 2], [[0, 0], [0, 0], [1, 1]]] }] },
  batchToSpaceND: { cases: () => [{ in: [f([4, 2, 2, 1])], args: [[2, 2], [[0, 0], [0, 0]]] },
                                  { in: [f([4, 2, 2, 1])], args: [[2, 2], [[0, 0], [0, 1]]] },
                                  { in: [f([8, 1, 3, 2])], args: [[2, 2], [[1, 0], [2, 1]]] },
                                  { in: [f([4, 3])], args: [[2], [[1, 1]]] }, { in: [i([4, 1, 1, 1])], args: [[2, 2], [[0, 0], [0, 0]]] },
                                  { in: [f([8, 1, 2, 1, 1])], args: [[2, 2, 2], [[0, 0], [0, 1], [1, 0]]] }] },
  // TF.js' depthToSpace takes float32 only (and on the cpu backend NHWC only), and has no gradient ("gradient function
  // not found for DepthToSpace"): Tracelab's is checked on hand-computed values (y = x0 x1 x4 x5 x2 x3 x6 x7, weights
  // 0.5, 1, 1.5, 0.75, 1.25, 0.5, 1, 1.5 by output position).
  depthToSpace: { cases: () => [
    ...[{ in: [f([1, 2, 2, 4])], args: [2] }, { in: [f([2, 1, 2, 8])], args: [2] }, { in: [f([1, 1, 1, 18])], args: [3] },
        { in: [f([1, 2, 3, 4])], args: [2, 'NHWC'] }].map((c) => ({ ...c, grad: false })),
    { in: [f([1, 1, 2, 4])], args: [2], differs: { grads: [[0.5, 1, 1.25, 0.5, 1.5, 0.75, 1, 1.5]] } },
  ] },
  broadcastArgs: { cases: () => [{ in: [i([3], [2, 1, 3]), i([2], [4, 1])] }, { in: [i([2], [1, 5]), i([2], [3, 5])] },
                                 { in: [i([0], []), i([2], [3, 4])] }, { in: [i([2], [0, 1]), i([2], [1, 0])] },
                                 { in: [i([1], [1]), i([3], [2, 3, 4])] }] },
  ensureShape: { cases: () => [{ in: [f([2, 3])], args: [[2, 3]] }, { in: [f([2, 3])], args: [[2, null]] },
                               { in: [i([4])], args: [[null]] }, { in: [f([], [1.5])], args: [[]] }, { in: [b([0, 2])], args: [[0, 2]] }] },
  meshgrid: { cases: () => [{ in: [f([3]), f([2])] }, { in: [f([3]), f([2])], args: [{ indexing: 'ij' }] },
                            { in: [f([2, 2]), f([3])] }, { in: [i([3]), f([2])] }, { in: [i([2]), i([3])], args: [{ indexing: 'ij' }] },
                            { in: [f([4])] }, { in: [f([0]), f([2])] }] },
});
