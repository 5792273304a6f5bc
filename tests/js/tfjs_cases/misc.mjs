// tfjs_diff cases for the ops of wasm/js/tfjs/misc.mjs, in the form of CASES in tests/js/tfjs_diff.test.mjs;
// `k` holds its input helpers (f, i, b, pos, held, edge, unaryCases, ...).

// Two of TF.js' basicLSTMCell (forget bias 1) chained by multiRNNCell; its [[c...], [h...]] flattened.
const twoCells = (lib, [k1, b1, k2, b2, data, c1, h1, c2, h2]) => {
  const cell = (kernel, bias) => (x, c, h) => lib.basicLSTMCell(1, kernel, bias, x, c, h);
  const [cs, hs] = lib.multiRNNCell([cell(k1, b1), cell(k2, b2)], data, [c1, c2], [h1, h2]);
  return [...cs, ...hs];
};

export default ({ f, i, pos }) => ({
  // With statistics of x's rank that broadcast (shape [1, 1, 3]) TF.js' batchNorm gradient throws ("Size(12) must
  // match the product of shape 1,1,3": it reshapes the gradient of x to the statistics' shape): no gradient there.
  batchNorm2d: { cases: () => [{ in: [f([2, 3]), f([3]), pos([3]), f([3]), pos([3])] },
                               { in: [f([2, 3]), f([2, 3]), pos([2, 3]), f([2, 3]), pos([2, 3])], args: [0.01] },
                               { in: [f([2, 3]), f([3]), pos([3])], grad: false }] },
  batchNorm3d: { cases: () => [{ in: [f([2, 2, 3]), f([3]), pos([3]), f([3]), pos([3])] },
                               { in: [f([2, 2, 3]), f([1, 1, 3]), pos([1, 1, 3]), f([1, 1, 3]), pos([1, 1, 3])], grad: false }] },
  batchNorm4d: { cases: () => [{ in: [f([1, 2, 2, 3]), f([3]), pos([3]), f([3]), pos([3])], args: [0.1] },
                               { in: [f([2, 1, 2, 3]), f([1, 1, 1, 3]), pos([1, 1, 1, 3]), f([1, 1, 1, 3]), pos([1, 1, 1, 3])], grad: false }] },
  movingAverage: { cases: () => [{ in: [f([2, 3]), f([2, 3])], args: [0.9, 3] },
                                 { in: [f([4]), f([4])], args: [0.8, undefined, false] },
                                 { in: [f([3]), f([3]), f([], [0.7])], args: [2] },
                                 { in: [f([3]), f([3]), f([], [0.6]), f([], [4])] }] },
  basicLSTMCell: { cases: () => [{ in: [f([], [1]), f([5, 8]), f([8]), f([2, 3]), f([2, 2]), f([2, 2])] },
                                 { in: [f([], [0.5]), f([3, 12]), f([12]), f([1, 0]), f([1, 3]), f([1, 3])] }] },
  multiRNNCell: { call: (lib, xs) => twoCells(lib, xs),
                  cases: () => [{ in: [f([4, 8]), f([8]), f([4, 8]), f([8]), f([3, 2]), f([3, 2]), f([3, 2]), f([3, 2]), f([3, 2])] }] },
  // TF.js has no gradient for einsum ("gradient function not found for Einsum"), and it sums the wrong axes in some
  // equations that sum labels out ('ij,j->j', 'ij,jk->k': a TF.js bug, NOTES): these cases are equations it computes
  // right; tests/js/tfjs_methods_extra.test.mjs checks the others, and the gradients, against TF.js' matMul and sum.
  einsum: {
    call: (lib, xs, [equation]) => lib.einsum(equation, ...xs), grad: false,
    cases: () => [{ in: [f([2, 3]), f([3, 4])], args: ['ij,jk->ik'] }, { in: [f([2, 2, 3]), f([2, 3, 4])], args: ['bij,bjk->bik'] },
                  { in: [f([2, 3]), f([3, 2])], args: ['ij,jk->ki'] }, { in: [f([2, 3])], args: ['ij->ji'] },
                  { in: [f([2, 3])], args: ['ij->i'] }, { in: [f([2, 3, 4])], args: ['abc->cab'] },
                  { in: [f([3]), f([4])], args: ['i,j->ij'] }, { in: [f([5]), f([5])], args: ['i,i->'] },
                  { in: [f([2, 3]), f([3])], args: ['ij,j->i'] }, { in: [f([2, 3]), f([3, 2])], args: ['ij,jk->ijk'] },
                  { in: [f([2, 3, 4]), f([4, 5])], args: ['abj,jc->acb'] }, { in: [f([2, 3]), f([4, 3])], args: ['ij,kj->ik'] },
                  { in: [i([2, 3]), i([3, 2])], args: ['ij,jk->ik'] }, { in: [f([0, 3]), f([3, 2])], args: ['ij,jk->ik'] }],
  },
  'signal.frame': { cases: () => [{ in: [f([7])], args: [3, 2] }, { in: [f([7])], args: [3, 2, true, 9] },
                                  { in: [f([8])], args: [4, 4] }, { in: [f([2])], args: [3, 1] },
                                  { in: [i([6])], args: [2, 3, true] }] },
  'signal.hannWindow': { cases: () => [{ in: [], args: [5] }, { in: [], args: [8] }] },
  'signal.hammingWindow': { cases: () => [{ in: [], args: [5] }, { in: [], args: [6] }] },
  cosineWindow: { cases: () => [{ in: [], args: [5, 0.3, 0.4] }, { in: [], args: [4, 0.5, 0.5] }] },
  // A number, not a tensor: compared as a scalar.
  enclosingPowerOfTwo: { call: (lib, xs, [value]) => lib.scalar(lib.enclosingPowerOfTwo(value)),
                         cases: () => [{ in: [], args: [5] }, { in: [], args: [8] }, { in: [], args: [1] }, { in: [], args: [1000.5] }] },
});
