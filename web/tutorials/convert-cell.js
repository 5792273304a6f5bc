// A tutorial cell as the cell worker runs it: converted by AutoGraph first, as tf.function converts Python (a plain
// `if` / `while` / `for` over a tensor becomes tl.cond / tl.whileLoop when traced), then run as the body of an
// async function. tests/js/tutorial_cells.test.mjs converts every lesson's cells with these same functions.

/**
 * A cell's code converted by AutoGraph (parsed as a module body: top-level `await` and `return` allowed), and the
 * map from each line of the converted text to the cell's line it came from.
 */
export function convertCell(tl, code) {
  const lines = new Map();
  const sourceMap = { addMapping: ({ original, generated }) => { if (!lines.has(generated.line)) lines.set(generated.line, original.line); } };
  const text = tl.autograph.convert(code, { filename: 'this cell', sourceType: 'module', sourceMap });
  return { text, lines };
}

/**
 * The cell's line where an error was thrown: a ConversionError names it; otherwise the stack's line in the
 * converted text (the function body starts 2 lines into the generated source), mapped back to the cell.
 */
export function errorLine(error, lines) {
  if (error instanceof Error && error.name === 'ConversionError' && Number.isInteger(error.line)) return error.line;
  if (error instanceof SyntaxError && Number.isInteger(error.loc?.line)) return error.loc.line;   // from the parser
  const match = /<anonymous>:(\d+):\d+/.exec(String(error?.stack ?? ''));
  if (!match) return null;
  const line = Number(match[1]) - 2;
  if (!lines) return line;
  for (let l = line; l >= 1; --l) if (lines.has(l)) return lines.get(l);
  return null;
}

/** A cell's return value as plain data (tensors become {dtype, shape, values}): what the
 * cell worker posts and what the tests check. */
export function toPlain(value) {
  if (value === undefined) return undefined;
  try {
    return structuredClone(value);
  } catch {
    return JSON.parse(JSON.stringify(value, (_, v) => {
      if (v && typeof v === 'object' && 'dtype' in v && typeof v.dataSync === 'function')
        return { dtype: v.dtype, shape: v.shape, values: Array.from(v.dataSync()) };
      return ArrayBuffer.isView(v) ? Array.from(v) : v;
    }) ?? 'null');
  }
}
