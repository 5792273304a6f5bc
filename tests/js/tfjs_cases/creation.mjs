// tfjs_diff cases for the ops of wasm/js/tfjs/creation.mjs, in the form of CASES in tests/js/tfjs_diff.test.mjs;
// `k` holds its input helpers (f, i, b, pos, held, edge, unaryCases, ...).
//
// Draws are compared by what they must satisfy (TF.js' generator is another one): the shape and dtype as TF.js',
// and the values by the checks below, each returning why the draw is wrong, or null.

const meanOf = (values) => values.reduce((a, v) => a + v, 0) / values.length;
const stdOf = (values, m = meanOf(values)) => Math.sqrt(values.reduce((a, v) => a + (v - m) ** 2, 0) / values.length);

// A normal truncated at 2 standard deviations: every value within them (int32: rounded), a mean near `mean` and a
// standard deviation near 0.8796 stdDev (that of the standard normal cut at ±2).
const TRUNCATED_STD = 0.8796;
export function truncatedCheck(got, args) {
  const [, mean = 0, stdDev = 1, dtype] = args;
  const slack = dtype === 'int32' ? 0.5 : 1e-5;
  const outside = got.values.find((v) => Math.abs(v - mean) > 2 * stdDev + slack);
  if (outside !== undefined) return `value ${outside} is more than 2 standard deviations (${stdDev}) from the mean ${mean}`;
  const n = got.values.length, m = meanOf(got.values), s = stdOf(got.values, m);
  if (Math.abs(m - mean) > 5 * stdDev / Math.sqrt(n)) return `mean ${m}; expected about ${mean}`;
  if (dtype !== 'int32' && Math.abs(s - TRUNCATED_STD * stdDev) > 0.05 * stdDev)
    return `standard deviation ${s}; expected about ${TRUNCATED_STD * stdDev}`;
  return null;
}

// Standard normals: mean 0, standard deviation 1.
export function standardNormalCheck(got) {
  const n = got.values.length, m = meanOf(got.values), s = stdOf(got.values, m);
  return Math.abs(m) > 5 / Math.sqrt(n) || Math.abs(s - 1) > 0.1 ? `mean ${m}, std ${s}; expected 0, 1` : null;
}

// Gamma(alpha, rate beta): positive values, mean alpha / beta, variance alpha / beta^2.
export function gammaCheck(got, args) {
  const [, alpha, beta = 1, dtype] = args;
  const negative = got.values.find((v) => !(v >= 0));
  if (negative !== undefined) return `value ${negative} is not a gamma draw (>= 0)`;
  const n = got.values.length, m = meanOf(got.values), s = stdOf(got.values, m);
  const mean = alpha / beta, std = Math.sqrt(alpha) / beta, rounding = dtype === 'int32' ? 0.5 : 0;
  if (Math.abs(m - mean) > 5 * std / Math.sqrt(n) + rounding) return `mean ${m}; expected about ${mean}`;
  if (dtype !== 'int32' && Math.abs(s - std) > 0.15 * std) return `standard deviation ${s}; expected about ${std}`;
  return null;
}

// Class indices in [0, classes) whose frequencies per row are the probabilities (softmax of the logits, or the
// values themselves when normalized) within 0.05.
export function multinomialCheck(got, args, inputs) {
  const [numSamples, , normalized = false] = args;
  const { shape, values } = inputs[0];
  const classes = shape[shape.length - 1], rows = values.length / classes;
  for (let r = 0; r < rows; ++r) {
    const row = values.slice(r * classes, (r + 1) * classes);
    const weights = normalized ? row : row.map((v) => Math.exp(v));
    const total = normalized ? 1 : weights.reduce((a, v) => a + v, 0);
    const counts = new Array(classes).fill(0);
    for (const v of got.values.slice(r * numSamples, (r + 1) * numSamples)) {
      if (!Number.isInteger(v) || v < 0 || v >= classes) return `sample ${v} is not a class index in [0, ${classes})`;
      counts[v]++;
    }
    for (let c = 0; c < classes; ++c)
      if (Math.abs(counts[c] / numSamples - weights[c] / total) > 0.05)
        return `row ${r}: class ${c} drawn ${counts[c]} times of ${numSamples}; its probability is ${weights[c] / total}`;
  }
  return null;
}

export default ({ f, i, b, uniformCheck }) => ({
  clone: { cases: () => [{ in: [f([2, 3])] }, { in: [i([2])] }, { in: [b([3])] }, { in: [f([0, 2])] }] },
  eye: { cases: () => [{ in: [], args: [3] }, { in: [], args: [2, 3] }, { in: [], args: [3, 2, [2]] },
                       { in: [], args: [2, 2, [2, 1], 'int32'] }, { in: [], args: [2, 3, [1, 2, 1]] },
                       { in: [], args: [2, undefined, undefined, 'bool'] }, { in: [], args: [0] }] },
  tensor5d: { cases: () => [{ in: [], args: [[[[[[1, 2]]]]]] }, { in: [], args: [[1, 2, 3, 4], [1, 1, 2, 2, 1], 'int32'] }] },
  tensor6d: { cases: () => [{ in: [], args: [[[[[[[1], [2]]]]]]] }, { in: [], args: [[1, 2, 3, 4, 5, 6], [1, 1, 1, 2, 3, 1]] }] },
  // tl.buffer's TensorBuffer, filled by set and read by get, as a tensor (toTensor); its strides as one.
  buffer: {
    call: (lib, xs, [shape, dtype, values]) => {
      const buffer = lib.buffer(shape, dtype, values);
      buffer.set(buffer.get(...shape.map(() => 0)) + 1, ...shape.map((d) => d - 1));
      return [buffer.toTensor(), lib.tensor(buffer.strides, [buffer.strides.length], 'int32')];
    },
    cases: () => [{ in: [], args: [[2, 3]] }, { in: [], args: [[2, 2], 'int32', [1, 2, 3, 4]] },
                  { in: [], args: [[3], 'float32', new Float32Array([0.5, 1, 2])] }, { in: [], args: [[2, 1, 2], 'bool'] }],
  },
  truncatedNormal: { cases: () => [{ in: [], args: [[2000]] }, { in: [], args: [[2000], 3, 0.5] },
                                   { in: [], args: [[1000], 0, 3, 'int32'] }, { in: [], args: [[200, 5], -1, 2, 'float32', 5] }],
                     random: { check: truncatedCheck } },
  randomStandardNormal: { cases: () => [{ in: [], args: [[2000]] }, { in: [], args: [[40, 50], 'float32', 3] }],
                          random: { check: standardNormalCheck } },
  randomUniformInt: { cases: () => [{ in: [], args: [[1000], 0, 10] }, { in: [], args: [[20, 50], -5, 5, 3] }],
                      random: { check: uniformCheck } },
  // rand calls randFunction once per element, in order: a counter's values, the same for both libraries.
  rand: {
    call: (lib, xs, [shape, dtype]) => {
      let k = 0;
      return lib.rand(shape, () => ((k++) * 0.7) % 3 - 1, dtype);
    },
    cases: () => [{ in: [], args: [[2, 3]] }, { in: [], args: [[5], 'int32'] }, { in: [], args: [[0, 2]] }],
  },
  randomGamma: { cases: () => [{ in: [], args: [[3000], 2] }, { in: [], args: [[3000], 0.5, 2] }, { in: [], args: [[50, 60], 5, 0.5, 'float32', 7] },
                               { in: [], args: [[2000], 4, 1, 'int32'] }],
                 random: { check: gammaCheck } },
  multinomial: { cases: () => [{ in: [f([2, 3], [0, 1, 2, -1, 0, 1.5])], args: [2000] },
                               { in: [f([4], [0.1, 0.2, 0.3, 0.4])], args: [2000, 5, true] },
                               { in: [f([3, 2], [0, 0, 2, -2, -3, 1])], args: [1000, 11] }],
                 random: { check: multinomialCheck } },
});
