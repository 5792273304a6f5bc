// Shape arithmetic the TF.js function groups share.

/** The number of elements of a shape (1 for a scalar's []). */
export const sizeOf = (shape) => shape.reduce((a, d) => a * d, 1);
/** Whether two shapes are equal, dim by dim. */
export const sameShape = (a, b) => a.length === b.length && a.every((d, i) => d === b[i]);
