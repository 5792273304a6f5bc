// The statistics the JavaScript benchmarks print, and their paired blocks: a median, the median and quartiles of
// ratios and of differences taken pair by pair, and the loop that runs blocks side by side.

/** The median of `values` (an array or typed array; the upper middle one of an even count). */
export function median(values) {
  const sorted = Array.from(values).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The values of `values` at each fraction of `qs`: the one at rank round(q * (n - 1)) (no interpolation). */
export function quantiles(values, qs) {
  const sorted = Array.from(values).sort((a, b) => a - b);
  return qs.map((q) => sorted[Math.round(q * (sorted.length - 1))]);
}

/** The quartiles of `values`: [first, median, third], each the value at its rank (no interpolation). */
export function quartiles(values) {
  return quantiles(values, [0.25, 0.5, 0.75]);
}

/** The quartiles [first, median, third] of a[i] / b[i], pair by pair. */
export function pairRatios(a, b) {
  return quartiles(a.map((value, i) => value / b[i]));
}

/** The quartiles [first, median, third] of a[i] - b[i], pair by pair. */
export function pairDifferences(a, b) {
  return quartiles(a.map((value, i) => value - b[i]));
}

/** a[i] / b[i] pair by pair, as '1.234x (quartiles 1.200-1.260)': the median of the ratios and their quartiles. */
export function pairRatio(a, b) {
  const [first, middle, third] = pairRatios(a, b);
  return `${middle.toFixed(3)}x (quartiles ${first.toFixed(3)}-${third.toFixed(3)})`;
}

/**
 * Paired blocks: runs each of `blocks` (name => () => the block's figure) once untimed, then `pairs` times in turn,
 * the order turning one place each pair so that no block always follows the same one. Returns name => its figures,
 * one per pair, so that pairRatio compares blocks that ran side by side.
 */
export function runPairs(blocks, pairs) {
  const order = Object.keys(blocks);
  for (const name of order) blocks[name]();
  const figures = Object.fromEntries(order.map((name) => [name, []]));
  for (let pair = 0; pair < pairs; ++pair)
    for (let i = 0; i < order.length; ++i) {
      const name = order[(i + pair) % order.length];
      figures[name].push(blocks[name]());
    }
  return figures;
}

/**
 * A benchmark's flag helpers: fail(message) prints "<program>: message" and the usage and exits 2; integer(flag,
 * text, least) is text as an integer >= least, or fail().
 */
export function flagHelpers(program, usage) {
  const fail = (message) => {
    console.error(`${program}: ${message}\n${usage}`);
    process.exit(2);
  };
  const integer = (flag, text, least) => {
    const value = Number(text);
    if (text === undefined || !Number.isSafeInteger(value) || value < least)
      fail(`${flag} needs an integer >= ${least}, got ${text === undefined ? 'nothing' : `'${text}'`}`);
    return value;
  };
  return { fail, integer };
}
