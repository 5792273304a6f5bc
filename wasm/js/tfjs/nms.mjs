// TF.js' non-max suppression (tl.image.nonMaxSuppression and its WithScore, Padded and Async forms), part of the
// image group (wasm/js/tfjs/image.mjs). It selects boxes by their values, so its output length depends on them: it
// reads them, runs eagerly only and names itself inside tl.function.
import { InvalidArgument, ShapeError, DTypeError, OperatorNotAllowedInGraphError } from '../errors.mjs';
import { Tensor } from '../tensor.mjs';
import { describeValue, toInteger } from '../values.mjs';

/**
 * TF.js' nonMaxSuppression family: greedy selection by score of the boxes [y1, x1, y2, x2] overlapping the selected
 * ones by less than iouThreshold (soft-NMS with softNmsSigma > 0 decays the scores instead: Gaussian, e^(-iou²/2σ)).
 * It reads the values, so it runs eagerly; the async forms await the reads.
 */
export function makeSuppression(tl, kit) {
  const { tensorOf, numberOf } = kit;
  // Boxes and scores of int32 too, as TF.js' Padded and WithScore forms take them.
  const numeric = (what, root, value) => {
    const t = tensorOf(what, root, value, 'float32');
    if (t.dtype === 'bool') {
      if (!(value instanceof Tensor)) t.dispose();
      throw new DTypeError(`${what}: ${root} is bool; expected float32 or int32`);
    }
    return t;
  };
  const checked = (what, boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma) => {
    const b = numeric(what, 'boxes', boxes), s = numeric(what, 'scores', scores);
    for (const [root, t] of [['boxes', b], ['scores', s]])
      if (t.symbolic || t.engine.tracing > 0)
        throw new OperatorNotAllowedInGraphError(`${what}: the boxes it selects depend on the values of ${root}, so it ` +
                                                 'runs eagerly only, not inside a tl.function: call it outside the function');
    if (b.rank !== 2 || b.shape[1] !== 4) throw new ShapeError(`${what}: boxes has shape [${b.shape}]; expected [numBoxes, 4]`);
    if (s.rank !== 1 || s.shape[0] !== b.shape[0]) throw new ShapeError(`${what}: scores has shape [${s.shape}]; expected [${b.shape[0]}] (one per box)`);
    const max = toInteger(maxOutputSize, { what, root: 'maxOutputSize', min: 0 });
    const iou = numberOf(what, 'iouThreshold', iouThreshold ?? 0.5);
    if (!(iou >= 0 && iou <= 1)) throw new InvalidArgument(`${what}: iouThreshold is ${iou}; expected a number in [0, 1]`);
    const sigma = numberOf(what, 'softNmsSigma', softNmsSigma ?? 0);
    if (!(sigma >= 0 && sigma <= 1)) throw new InvalidArgument(`${what}: softNmsSigma is ${sigma}; expected a number in [0, 1]`);
    return { b, s, max: Math.min(max, b.shape[0]), iou, threshold: numberOf(what, 'scoreThreshold', scoreThreshold ?? -Infinity), sigma };
  };
  // Reads the boxes' and scores' values (read: dataSync or data); the tensors made here from plain values are
  // disposed then, also when a check fails.
  const withValues = (kind, what, args, read, use) => {
    const [boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, last] = args;
    const made = [];
    const own = (value, t) => {
      if (!(value instanceof Tensor)) made.push(t);
      return t;
    };
    const release = () => made.forEach((t) => t.dispose());
    let values;
    try {
      const a = checked(what, own(boxes, numeric(what, 'boxes', boxes)), own(scores, numeric(what, 'scores', scores)),
                        maxOutputSize, iouThreshold, scoreThreshold, kind === 'score' ? last : 0);
      values = read(a);
      if (!(values instanceof Promise)) {
        release();
        return use(a, values);
      }
      return values.then((v) => use(a, v)).finally(release);
    } catch (error) {
      release();
      throw error;
    }
  };
  const sync = (kind) => (...args) => {
    const what = `tl.image.${NAMES[kind]}`;
    return withValues(kind, what, args, (a) => [a.b.dataSync(), a.s.dataSync()],
                      (a, [b, s]) => result(kind, a, b, s, args[5], what));
  };
  const awaited = (kind) => async (...args) => {
    const what = `tl.image.${NAMES[kind]}Async`;
    return withValues(kind, what, args, (a) => Promise.all([a.b.data(), a.s.data()]),
                      (a, [b, s]) => result(kind, a, b, s, args[5], what));
  };
  const result = (kind, a, boxValues, scoreValues, last, what) => {
    const pad = kind === 'padded' ? last ?? false : false;
    if (typeof pad !== 'boolean') throw new InvalidArgument(`${what}: padToMaxOutputSize is ${describeValue(pad)}; expected a boolean`);
    const { indices, selected } = suppress(boxValues, scoreValues, a.max, a.iou, a.threshold, a.sigma);
    const valid = indices.length;
    if (pad) while (indices.length < a.max) { indices.push(0); selected.push(0); }
    const selectedIndices = tl.tensor(Int32Array.from(indices), [indices.length], 'int32');
    if (kind === 'plain') return selectedIndices;
    if (kind === 'padded') return { selectedIndices, validOutputs: tl.scalar(valid, 'int32') };
    return { selectedIndices, selectedScores: tl.tensor(Float32Array.from(selected), [selected.length], 'float32') };
  };
  const NAMES = { plain: 'nonMaxSuppression', padded: 'nonMaxSuppressionPadded', score: 'nonMaxSuppressionWithScore' };
  return Object.fromEntries(Object.entries(NAMES).flatMap(([kind, name]) => [
    [`image.${name}`, { fn: sync(kind) }], [`image.${name}Async`, { fn: awaited(kind) }]]));
}

/** The greedy selection of TF.js' nonMaxSuppressionImpl_ on the boxes' and scores' values. */
function suppress(boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma) {
  const byScore = (c1, c2) => (c1.score - c2.score) || ((c1.score === c2.score) && (c2.boxIndex - c1.boxIndex));
  const candidates = [];
  for (let i = 0; i < scores.length; ++i)
    if (scores[i] > scoreThreshold) candidates.push({ score: scores[i], boxIndex: i, suppressBeginIndex: 0 });
  candidates.sort(byScore);
  const scale = softNmsSigma > 0 ? -0.5 / softNmsSigma : 0;
  const indices = [], selected = [];
  while (indices.length < maxOutputSize && candidates.length > 0) {
    const candidate = candidates.pop();
    const { score: original, boxIndex, suppressBeginIndex } = candidate;
    if (original < scoreThreshold) break;
    let ignored = false;
    for (let j = indices.length - 1; j >= suppressBeginIndex; --j) {
      const iou = intersectionOverUnion(boxes, boxIndex, indices[j]);
      if (iou >= iouThreshold) {
        ignored = true;
        break;
      }
      candidate.score *= iou <= iouThreshold ? Math.exp(scale * iou * iou) : 0;
      if (candidate.score <= scoreThreshold) break;
    }
    candidate.suppressBeginIndex = indices.length;
    if (ignored) continue;
    if (candidate.score === original) {
      indices.push(boxIndex);
      selected.push(candidate.score);
    } else if (candidate.score > scoreThreshold) {
      candidates.splice(lowestIndexNotBelow(candidates, candidate, byScore), 0, candidate);
    }
  }
  return { indices, selected };
}

/** Where `item` goes in the ascending `list`: the first index whose element is not below it. */
function lowestIndexNotBelow(list, item, compare) {
  let lo = 0, hi = list.length;
  while (lo < hi) {
    const mid = lo + ((hi - lo) >>> 1);
    if (compare(item, list[mid]) > 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function intersectionOverUnion(boxes, i, j) {
  const [ay1, ax1, ay2, ax2] = boxes.subarray(i * 4, i * 4 + 4), [by1, bx1, by2, bx2] = boxes.subarray(j * 4, j * 4 + 4);
  const [aTop, aBottom, aLeft, aRight] = [Math.min(ay1, ay2), Math.max(ay1, ay2), Math.min(ax1, ax2), Math.max(ax1, ax2)];
  const [bTop, bBottom, bLeft, bRight] = [Math.min(by1, by2), Math.max(by1, by2), Math.min(bx1, bx2), Math.max(bx1, bx2)];
  const areaA = (aBottom - aTop) * (aRight - aLeft), areaB = (bBottom - bTop) * (bRight - bLeft);
  if (areaA <= 0 || areaB <= 0) return 0;
  const overlap = Math.max(Math.min(aBottom, bBottom) - Math.max(aTop, bTop), 0) *
                  Math.max(Math.min(aRight, bRight) - Math.max(aLeft, bLeft), 0);
  return overlap / (areaA + areaB - overlap);
}
