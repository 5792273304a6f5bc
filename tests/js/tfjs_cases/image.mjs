// tfjs_diff cases for the ops of wasm/js/tfjs/image.mjs, in the form of CASES in tests/js/tfjs_diff.test.mjs;
// `k` holds its input helpers (f, i, b, pos, held, edge, unaryCases, ...).
//
// Sampling positions (cropAndResize's boxes, transform's matrices) have three decimals, away from half pixels: Tracelab
// computes positions in float32 where TF.js' kernels use float64, so a position within 1e-7 of a half pixel may round
// the other way in 'nearest' (NOTES in scripts/tfjs_compat.mjs).
import { createRequire } from 'node:module';

const benchJs = new URL('../../../bench/js/package.json', import.meta.url).pathname;
const tfjs = () => createRequire(benchJs)('@tensorflow/tfjs');
const lookUp = (lib, path) => path.split('.').reduce((value, key) => value[key], lib);

// TF.js' transform of each image of a batch alone, stacked: what TF.js' own kernel gives for image 0 only.
function transformEach(image, transforms, args) {
  const tf = tfjs();
  return tf.tidy(() => {
    const x = tf.tensor(image.values, image.shape), t = tf.tensor(transforms.values, transforms.shape);
    const each = Array.from({ length: image.shape[0] }, (_, b) =>
      tf.image.transform(tf.slice(x, b, 1), tf.slice(t, t.shape[0] === 1 ? 0 : b, 1), ...args));
    return Array.from(tf.concat(each, 0).dataSync());
  });
}

/**
 * The case with the gradient Tracelab must give where TF.js' throws or is wrong: central differences of TF.js' own
 * forward pass, of the harness' objective sum(y · w) (w = 0.5 + ((j · 7) % 5) / 4), summed in float64. The ops here
 * are linear in the differentiated inputs, so a wide step (0.5) is exact up to float32 rounding.
 */
function centralGrads(call, c, h = 0.5) {
  const tf = tfjs(), args = c.args ?? [];
  const objective = (specs) => tf.tidy(() => {
    const y = call(tf, specs.map((s) => tf.tensor(s.values, s.shape, s.dtype)), args);
    return Array.from(y.dataSync()).reduce((total, v, j) => total + v * (0.5 + ((j * 7) % 5) / 4), 0);
  });
  const grads = c.in.flatMap((s, k) => (s.dtype !== 'float32' || s.held ? [] : [s.values.map((x, j) => {
    const at = (v) => c.in.map((t, m) => (m === k ? { ...t, values: t.values.map((u, n) => (n === j ? v : u)) } : t));
    const up = Math.fround(x + h), down = Math.fround(x - h);
    return (objective(at(up)) - objective(at(down))) / (up - down);
  })]));
  return { ...c, differs: { ...c.differs, grads } };
}

export default ({ f, i, held }) => {
  const image = (shape) => f(shape, undefined, [0, 4]);
  const pixels = (shape) => f(shape, undefined, [0, 255]);
  // The gradient by central differences of TF.js' forward pass (TF.js' own throws or is wrong: NOTES).
  const central = (path, call = (lib, xs, args) => lookUp(lib, path)(...xs, ...args)) => (c) => centralGrads(call, c);
  // Boxes [y1, x1, y2, x2]: inside the image, flipped (y2 < y1), reaching outside (extrapolated), a point.
  const boxes = () => held(f([4, 4], [0.017, 0.029, 0.971, 0.958, 0.853, 0.611, 0.207, 0.113,
                                      -0.213, 0.307, 0.511, 1.291, 0.437, 0.563, 0.437, 0.563]));
  // Boxes overlapping by IoUs 0.82, 0.67, 0.54, 0.43, 0.33 (unit squares shifted along x), a flipped one, a far one.
  const nmsBoxes = () => f([7, 4], [0, 0, 1, 1, 0, 0.2, 1, 1.2, 0, -0.3, 1, 0.7, 0, 0.5, 1, 1.5, 0, 0.1, 1, 1.1,
                                    1, 10.1, 0, 11.1, 0, 100, 1, 101]);
  const nmsScores = () => f([7], [0.9, 0.75, 0.6, 0.95, 0.7, 0.5, 0.3]);
  const nms = (extra = []) => [
    { in: [nmsBoxes(), nmsScores()], args: [3] },
    { in: [nmsBoxes(), nmsScores()], args: [10, 0.5, 0.55] },
    { in: [nmsBoxes(), nmsScores()], args: [7, 0.5] }, { in: [nmsBoxes(), nmsScores()], args: [7, 0.3] },
    { in: [nmsBoxes(), nmsScores()], args: [7, 0.05] },
    { in: [f([0, 4], []), f([0], [])], args: [3] },
    { in: [f([12, 4], undefined, [0, 1]), f([12], undefined, [0, 1])], args: [8, 0.3] },  // overlaps of every size
    { in: [f([12, 4], undefined, [0, 1]), f([12], undefined, [0, 1])], args: [12, 0.6, 0.2] },
    ...extra,
  ];
  // Soft-NMS (softNmsSigma > 0): the scores decay with the overlap instead of the box being dropped.
  const soft = () => [{ in: [nmsBoxes(), nmsScores()], args: [6, 0.5, 0.1, 0.5] }, { in: [nmsBoxes(), nmsScores()], args: [6, 0.9, 0, 1] },
                      { in: [f([12, 4], undefined, [0, 1]), f([12], undefined, [0, 1])], args: [10, 0.7, 0.1, 0.3] }];
  const matrix = (values) => held(f([1, 8], values));
  const projective = [0.913, 0.187, -0.471, -0.139, 1.087, 0.623, 0.031, -0.047];
  const affine = [1.213, -0.297, 0.731, 0.333, 0.871, -1.417, 0, 0];
  const suppression = { grad: false, traced: false };  // int32 results; the selection reads the values (eager only)
  const resizes = (path) => [
    { in: [image([2, 4, 5, 3])], args: [[5, 7]] }, { in: [image([2, 4, 5, 3])], args: [[2, 3]] },
    { in: [image([2, 4, 5, 3])], args: [[5, 7], true] }, { in: [image([2, 4, 5, 3])], args: [[3, 2], true] },
    { in: [image([2, 4, 5, 3])], args: [[5, 7], false, true] }, { in: [image([2, 4, 5, 3])], args: [[2, 3], false, true] },
    { in: [image([3, 4, 2])], args: [[1, 1]] }, { in: [image([3, 4, 2])], args: [[6, 6], true] },
    { in: [i([1, 3, 3, 1], [1, 2, 3, 4, 5, 6, 7, 8, 9])], args: [[4, 5]] }];
  return {
    // TF.js has no gradient for FlipLeftRight ("gradient function not found").
    'image.flipLeftRight': { cases: () => [{ in: [f([1, 2, 3, 1])] }, { in: [f([2, 3, 4, 3])] }].map(central('image.flipLeftRight')) },
    'image.grayscaleToRGB': { cases: () => [{ in: [f([2, 3, 1])] }, { in: [f([2, 2, 2, 1])] }, { in: [f([4, 1])] },
                                            { in: [i([3, 2, 1])] }] },
    // TF.js has no gradient for the Einsum it computes with.
    'image.rgbToGrayscale': { cases: () => [...[{ in: [f([2, 3])] }, { in: [f([2, 2, 3])] }, { in: [f([2, 2, 2, 3])] }]
      .map(central('image.rgbToGrayscale')), { in: [i([2, 2, 3], [10, 200, 31, 4, 5, 6, 255, 0, 128, 7, 99, 250])] }] },
    // TF.js' gradient throws (its ResizeBilinearGrad swaps height and width: "has shape '2,5,4,3'").
    'image.resizeBilinear': { cases: () => resizes().map((c) => (c.in[0].dtype === 'float32' ? central('image.resizeBilinear')(c) : c)) },
    // TF.js' gradient is NaN in the second image of a batch when shrinking, and wrong with halfPixelCenters: those
    // cases take central differences; the others compare with TF.js' gradient.
    'image.resizeNearestNeighbor': { cases: () => resizes().map((c, k) => ([1, 3, 4, 5].includes(k) ? central('image.resizeNearestNeighbor')(c) : c)) },
    // (image, boxes, boxInd, cropSize, method, extrapolationValue). TF.js has no gradient for CropAndResize; the
    // image's gradient is checked (the boxes are held).
    'image.cropAndResize': { cases: () => [
      { in: [image([2, 5, 6, 2]), boxes(), i([4], [0, 1, 1, 0])], args: [[3, 4]] },
      { in: [image([2, 5, 6, 2]), boxes(), i([4], [1, 0, 1, 1])], args: [[3, 4], 'bilinear', 2.5] },
      { in: [image([2, 5, 6, 2]), boxes(), i([4], [0, 1, 1, 0])], args: [[2, 5], 'nearest', -1] },
      { in: [image([1, 4, 4, 3]), boxes(), i([4], [0, 0, 0, 0])], args: [[1, 1]] },
      { in: [image([1, 4, 4, 3]), boxes(), i([4], [0, 0, 0, 0])], args: [[1, 3], 'nearest'] },
      { in: [image([2, 5, 6, 2]), boxes(), i([4], [0, 2, 1, 0])], args: [[2, 2]] },  // box 1's image is outside the batch: zeros
      { in: [i([1, 3, 3, 1], [1, 2, 3, 4, 5, 6, 7, 8, 9]), held(f([1, 4], [0.113, 0.251, 0.871, 0.913])), i([1], [0])], args: [[3, 3]] }]
      .map(central('image.cropAndResize')) },
    // (image, radians, fillValue, center). TF.js has no gradient for RotateWithOffset. A right angle lands on half
    // pixels: the index map is float64 as TF.js' kernel.
    'image.rotateWithOffset': { cases: () => [
      { in: [image([1, 5, 6, 3])], args: [0.3] }, { in: [image([1, 5, 6, 3])], args: [Math.PI / 2, 1.5] },
      { in: [image([2, 4, 4, 4])], args: [-2.2, [1, 2, 3]] }, { in: [image([1, 5, 6, 1])], args: [1, 0, [0.3, 0.7]] },
      { in: [image([2, 3, 5, 2])], args: [Math.PI, 7, 0.25] }].map(central('image.rotateWithOffset')) },
    // (image, transforms, interpolation, fillMode, fillValue, outputShape). TF.js has no gradient for Transform. Its
    // cpu kernel (4.22) returns inside its batch loop: images 1, 2, ... of a batch are all fillValue; Tracelab
    // transforms each, as TF.js does for that image alone (the batch cases' values are TF.js' per image, stacked).
    'image.transform': { cases: () => [
      ...['constant', 'reflect', 'wrap', 'nearest'].flatMap((mode) => ['nearest', 'bilinear'].flatMap((how) => [
        { in: [image([1, 5, 6, 2]), matrix(projective)], args: [how, mode, 1.5] },
        { in: [image([1, 5, 6, 2]), matrix(affine)], args: [how, mode, 0, [7, 4]] }])),
      { in: [image([1, 4, 4, 1]), matrix([1, 0, 0, 0, 1, 0, 0, 0])] },
      { in: [image([1, 1, 3, 1]), matrix(affine)], args: ['bilinear', 'reflect'] }].map(central('image.transform')).concat(
      [[image([2, 4, 5, 2]), held(f([2, 8], [...projective, ...affine]))], [image([3, 3, 4, 1]), matrix(affine)]]
        .flatMap(([x, t]) => [['nearest', 'wrap', 2], ['bilinear', 'reflect', -1]].map((args) =>
          ({ in: [x, t], args, grad: false, differs: { values: transformEach(x, t, args) } })))) },
    // (image, method, inverted, threshValue): int32 results.
    'image.threshold': { grad: false, cases: () => [
      { in: [pixels([6, 7, 3])] }, { in: [pixels([6, 7, 3])], args: ['binary', true, 0.3] },
      { in: [pixels([5, 4, 1])], args: ['binary', false, 0.7] },
      { in: [pixels([6, 7, 3])], args: ['otsu'] }, { in: [pixels([6, 7, 3])], args: ['otsu', true] },
      { in: [pixels([8, 5, 1])], args: ['otsu'] },
      { in: [i([2, 3, 3], [10, 200, 31, 4, 5, 6, 255, 0, 128, 7, 99, 250, 30, 60, 90, 240, 120, 180])], args: ['otsu'] },
      { in: [i([2, 3, 3], [10, 200, 31, 4, 5, 6, 255, 0, 128, 7, 99, 250, 30, 60, 90, 240, 120, 180])], args: ['binary', true] }] },
    'image.nonMaxSuppression': { ...suppression, cases: () => nms() },
    'image.nonMaxSuppressionAsync': { ...suppression, async: true, cases: () => nms() },
    'image.nonMaxSuppressionPadded': { ...suppression, cases: () => nms([{ in: [nmsBoxes(), nmsScores()], args: [5, 0.5, 0.4, true] }]) },
    'image.nonMaxSuppressionPaddedAsync': { ...suppression, async: true,
                                            cases: () => nms([{ in: [nmsBoxes(), nmsScores()], args: [5, 0.5, 0.4, true] }]) },
    'image.nonMaxSuppressionWithScore': { ...suppression, cases: () => nms(soft()) },
    'image.nonMaxSuppressionWithScoreAsync': { ...suppression, async: true, cases: () => nms(soft()) },
    // (a, numLower, numUpper): numbers in args, or int32 scalars as the 2nd and 3rd inputs. TF.js' gradient throws
    // ("Argument tensors passed to stack must be a `Tensor[]`": its unstack / stack of the matrices).
    'linalg.bandPart': { call: bandPart,
                         cases: () => [...[{ in: [f([3, 4])], args: [1, 2] }, { in: [f([4, 3])], args: [-1, 0] },
                                           { in: [f([2, 3, 4])], args: [0, -1] },
                                           { in: [f([3, 4]), i([], [2]), i([], [-1])] }, { in: [f([2, 4, 3]), i([], [-3]), i([], [7])] }]
                           .map(central('linalg.bandPart', bandPart)), { in: [i([3, 3])], args: [1, 1] }] },
    // A matrix, or an array of vectors (two inputs or more).
    'linalg.gramSchmidt': { call: (lib, xs) => (xs.length === 1 ? lib.linalg.gramSchmidt(xs[0]) : lib.linalg.gramSchmidt(xs)),
                            cases: () => [{ in: [f([3, 4])] }, { in: [f([2, 2])] }, { in: [f([3]), f([3])] },
                                          { in: [f([4]), f([4]), f([4])] }] },
    // TF.js' gradient throws: its Householder sign, where(greater(r[j][j], 0), ...), differentiates into Greater,
    // which has no gradient ("gradient function not found for Greater"). TF.js reshapes a batch's q and r to the
    // input's shape, which only square matrices survive ("Size(18) must match the product of shape 2,4,3"): the
    // batches here are square.
    'linalg.qr': { grad: false, cases: () => [{ in: [f([4, 3])] }, { in: [f([4, 3])], args: [true] }, { in: [f([2, 4])] },
                                              { in: [f([3, 3])] }, { in: [f([2, 4])], args: [true] }, { in: [f([2, 3, 3])] },
                                              { in: [f([2, 1, 2, 2])], args: [true] }] },
    // The Tensor methods x.resizeBilinear(size, alignCorners, halfPixelCenters) and x.resizeNearestNeighbor(...), no
    // functions of tf: the values of their cases (the gradients are the functions').
    resizeBilinear: { cases: () => resizes() },
    resizeNearestNeighbor: { cases: () => resizes() },
    // TF.js has no gradient for Diag.
    diag: { cases: () => [...[{ in: [f([3])] }, { in: [f([2, 3])] }, { in: [f([])] }].map(central('diag')), { in: [i([4])] }] },
  };
};

const bandPart = (lib, [a, lower, upper], args) => lib.linalg.bandPart(a, lower ?? args[0], upper ?? args[1]);
