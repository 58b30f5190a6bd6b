// Encodings shared by the Node and browser entries of the proftab package.

/** In Uint32Array row-reference columns: "no row" (a sample without frames, a root frame, a
 * location without function). */
export const NO_INDEX = 0xffffffff;

/** In Int32Array columns: NA (as R stores int NA). */
export const INT_NA = -2147483648;
