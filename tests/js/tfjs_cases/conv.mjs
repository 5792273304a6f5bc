// tfjs_diff cases for the ops of wasm/js/tfjs/conv.mjs, in the form of CASES in tests/js/tfjs_diff.test.mjs;
// `k` holds its input helpers (f, i, b, pos, held, edge, unaryCases, ...).
//
// The fused ops take one object of named arguments: a case's inputs are named by args[0] and args[1] holds the others.
const fused = (name) => (lib, xs, [names, rest = {}]) =>
  lib.fused[name]({ ...Object.fromEntries(names.map((n, j) => [n, xs[j]])), ...rest });

export default ({ f }) => ({
  conv1d: { cases: () => [{ in: [f([1, 6, 2]), f([3, 2, 3])], args: [1, 'valid'] },
                          { in: [f([2, 7, 1]), f([2, 1, 2])], args: [2, 'same'] },
                          // TF.js has no gradient for dilations > 1 (central differences agree with Tracelab's).
                          { in: [f([5, 2]), f([2, 2, 1])], args: [1, 'same', 'NWC', 2], grad: false }] },
  // (x, filter [h, w, out, in], outputShape, strides, pad, dimRoundingMode)
  conv2dTranspose: { cases: () => [{ in: [f([1, 3, 3, 2]), f([2, 2, 1, 2])], args: [[1, 6, 6, 1], 2, 'same'] },
                                   { in: [f([2, 2, 2, 1]), f([3, 3, 2, 1])], args: [[2, 4, 4, 2], 1, 'valid'] },
                                   { in: [f([3, 3, 1]), f([3, 3, 2, 1])], args: [[7, 7, 2], 2, 'valid'] },
                                   { in: [f([1, 3, 3, 1]), f([3, 3, 1, 1])], args: [[1, 5, 5, 1], 2, 1] },
                                   { in: [f([1, 3, 3, 1]), f([3, 3, 1, 1])], args: [[1, 4, 4, 1], 2, 1, 'ceil'] }] },
  depthwiseConv2d: { cases: () => [{ in: [f([1, 5, 5, 2]), f([3, 3, 2, 2])], args: [1, 'valid'] },
                                   { in: [f([2, 6, 6, 3]), f([2, 2, 3, 1])], args: [2, 'same'] },
                                   { in: [f([1, 7, 7, 2]), f([3, 3, 2, 1])], args: [1, 'same', 'NHWC', 2], grad: false },  // as conv1d
                                   { in: [f([5, 5, 1]), f([3, 3, 1, 2])], args: [2, 1] }] },
  separableConv2d: { cases: () => [{ in: [f([1, 5, 5, 2]), f([3, 3, 2, 2]), f([1, 1, 4, 3])], args: [1, 'valid'] },
                                   { in: [f([2, 6, 6, 1]), f([2, 2, 1, 3]), f([1, 1, 3, 2])], args: [2, 'same'] },
                                   { in: [f([1, 6, 6, 2]), f([2, 2, 2, 1]), f([1, 1, 2, 2])], args: [1, 'same', 2], grad: false }] },  // as conv1d
  // (input, windowShape, poolingType, pad, dilations, strides, dimRoundingMode). TF.js' avgPool gradient at a 'same'
  // border divides by the whole window (see avgPool in tests/js/tfjs_diff.test.mjs): no gradient compared there.
  pool: { cases: () => [{ in: [f([1, 5, 5, 2])], args: [2, 'max', 'valid', 1, 1] },
                        { in: [f([2, 6, 6, 1])], args: [3, 'avg', 'same', 1, 2], grad: false },
                        { in: [f([1, 7, 7, 1])], args: [2, 'max', 'same', 2] },
                        { in: [f([1, 7, 7, 2])], args: [[2, 3], 'avg', 'valid', [2, 1]] },
                        { in: [f([1, 6, 6, 1])], args: [3, 'avg', 1, 1, 2], grad: false },
                        { in: [f([1, 5, 5, 1])], args: [2, 'max', 1, 1, 2, 'ceil'] },
                        { in: [f([6, 6, 1])], args: [3, 'max', 'same', 1, 2] }] },
  dilation2d: { cases: () => [{ in: [f([1, 5, 5, 2]), f([2, 2, 2])], args: [1, 'valid'] },
                              { in: [f([2, 5, 5, 1]), f([3, 3, 1])], args: [2, 'same'] },
                              { in: [f([1, 6, 6, 1]), f([2, 2, 1])], args: [1, 'same', 2] },
                              { in: [f([4, 4, 2]), f([2, 3, 2])], args: [[1, 2], 'valid'] }] },
  // TF.js has no gradient for MaxPoolWithArgmax ("gradient function not found"); Tracelab's is maxPool's.
  maxPoolWithArgmax: { grad: false,
                       cases: () => [{ in: [f([1, 4, 4, 2])], args: [2, 2, 'valid'] },
                                     { in: [f([2, 5, 5, 2])], args: [3, 2, 'same', true] },
                                     { in: [f([2, 5, 5, 1])], args: [3, 1, 1] }] },
  conv3d: { cases: () => [{ in: [f([1, 4, 4, 4, 1]), f([2, 2, 2, 1, 2])], args: [1, 'valid'] },
                          { in: [f([2, 5, 4, 4, 2]), f([3, 2, 2, 2, 1])], args: [2, 'same'] },
                          { in: [f([1, 5, 5, 5, 1]), f([2, 2, 2, 1, 1])], args: [1, 'same', 'NDHWC', 2], grad: false },  // as conv1d
                          { in: [f([4, 4, 4, 1]), f([2, 2, 2, 1, 1])], args: [[1, 2, 1], 'valid'] },
                          { in: [f([1, 4, 3, 3, 1]), f([2, 2, 2, 1, 1])], args: [1, 'same'] }] },
  // (x, filter [d, h, w, out, in], outputShape, strides, pad). TF.js has no gradient for Conv3DBackpropInputV2;
  // central differences agree with Tracelab's.
  conv3dTranspose: { grad: false, cases: () => [{ in: [f([1, 3, 3, 3, 2]), f([2, 2, 2, 1, 2])], args: [[1, 6, 6, 6, 1], 2, 'same'] },
                                   { in: [f([2, 2, 2, 2, 1]), f([2, 2, 2, 2, 1])], args: [[2, 3, 3, 3, 2], 1, 'valid'] },
                                   { in: [f([2, 2, 2, 1]), f([3, 2, 2, 1, 1])], args: [[5, 5, 5, 1], 2, 'valid'] },
                                   { in: [f([1, 3, 3, 3, 1]), f([2, 2, 2, 1, 1])], args: [[1, 5, 5, 5, 1], 2, 'same'] }] },
  maxPool3d: { cases: () => [{ in: [f([1, 4, 4, 4, 1])], args: [2, 2, 'valid'] },
                             { in: [f([2, 5, 5, 5, 2])], args: [3, 2, 'same'] },
                             { in: [f([1, 5, 5, 5, 1])], args: [2, 1, 1] },
                             // TF.js' gradient here is off by up to 2.75 from central differences (Tracelab's agrees).
                             { in: [f([4, 4, 4, 2])], args: [[2, 3, 2], [1, 2, 2], 'same'], grad: false }] },
  // TF.js' avgPool3d gradient, as its avgPool's, divides by the whole window where it overlaps the padding (its forward
  // pass divides by the cells inside; central differences agree with Tracelab's): no gradient compared there.
  avgPool3d: { cases: () => [{ in: [f([1, 4, 4, 4, 1])], args: [2, 2, 'valid'] },
                             { in: [f([2, 5, 5, 5, 2])], args: [3, 2, 'same'], grad: false },
                             { in: [f([1, 5, 5, 5, 1])], args: [2, 1, 1], grad: false },
                             { in: [f([4, 4, 4, 2])], args: [[2, 3, 2], [1, 2, 2], 'same'], grad: false },
                             { in: [f([1, 6, 4, 4, 1])], args: [[3, 2, 2], [3, 2, 2], 'same'] }] },
  localResponseNormalization: { cases: () => [{ in: [f([1, 3, 3, 8])] }, { in: [f([2, 2, 2, 6])], args: [2, 1.5, 0.5, 0.75] },
                                              { in: [f([3, 3, 4])], args: [1] }] },
  'fused.matMul': { call: fused('matMul'),
                    cases: () => [{ in: [f([2, 3]), f([3, 4]), f([4])], args: [['a', 'b', 'bias'], { activation: 'relu' }] },
                                  { in: [f([3, 2]), f([4, 3]), f([1])],
                                    args: [['a', 'b', 'bias'], { transposeA: true, transposeB: true, activation: 'sigmoid' }] },
                                  { in: [f([2, 2, 3]), f([2, 3, 4]), f([4])], args: [['a', 'b', 'bias'], { activation: 'elu' }] },
                                  { in: [f([2, 3], undefined, [-3, 3]), f([3, 4], undefined, [-3, 3])], args: [['a', 'b'], { activation: 'relu6' }] },
                                  { in: [f([2, 3]), f([3, 4]), f([2, 4])],
                                    args: [['a', 'b', 'bias'], { activation: 'leakyrelu', leakyreluAlpha: 0.3 }] },
                                  { in: [f([2, 3]), f([3, 4]), f([4]), f([4], [0.1, 0.2, 0.3, 0.4])],
                                    args: [['a', 'b', 'bias', 'preluActivationWeights'], { activation: 'prelu' }] },
                                  { in: [f([2, 3]), f([3, 4])], args: [['a', 'b']] }] },
  'fused.conv2d': { call: fused('conv2d'),
                    cases: () => [{ in: [f([1, 5, 5, 2]), f([3, 3, 2, 3]), f([3])],
                                    args: [['x', 'filter', 'bias'], { strides: 1, pad: 'valid', activation: 'relu' }] },
                                  { in: [f([2, 6, 6, 1]), f([2, 2, 1, 2])], args: [['x', 'filter'], { strides: 2, pad: 'same' }] },
                                  { in: [f([1, 7, 7, 1]), f([3, 3, 1, 2]), f([2])],  // no TF.js gradient for dilations > 1
                                    args: [['x', 'filter', 'bias'], { strides: 1, pad: 'same', dilations: 2, activation: 'elu' }], grad: false },
                                  { in: [f([1, 5, 5, 1]), f([3, 3, 1, 1]), f([1])],
                                    args: [['x', 'filter', 'bias'], { strides: 2, pad: 1, activation: 'sigmoid' }] },
                                  { in: [f([5, 5, 2]), f([2, 2, 2, 2]), f([2]), f([2], [0.1, 0.3])],
                                    args: [['x', 'filter', 'bias', 'preluActivationWeights'], { strides: 1, pad: 'valid', activation: 'prelu' }] }] },
  'fused.depthwiseConv2d': { call: fused('depthwiseConv2d'),
                             cases: () => [{ in: [f([1, 5, 5, 2]), f([3, 3, 2, 2]), f([4])],
                                             args: [['x', 'filter', 'bias'], { strides: 1, pad: 'valid', activation: 'relu' }] },
                                           { in: [f([2, 6, 6, 3]), f([2, 2, 3, 1])], args: [['x', 'filter'], { strides: 2, pad: 'same' }] },
                                           // Without leakyreluAlpha TF.js' fused depthwiseConv2d gives NaN for the negative
                                           // outputs (its kernel gets alpha undefined); Tracelab takes the default 0.2.
                                           { in: [f([1, 6, 6, 2]), f([2, 2, 2, 1]), f([2])],
                                             args: [['x', 'filter', 'bias'], { strides: 1, pad: 'same', activation: 'leakyrelu', leakyreluAlpha: 0.2 }] },
                                           { in: [f([1, 6, 6, 2]), f([2, 2, 2, 1]), f([2])],  // no TF.js gradient for dilations > 1
                                             args: [['x', 'filter', 'bias'], { strides: 1, pad: 'same', dilations: 2, activation: 'relu6' }], grad: false }] },
});
