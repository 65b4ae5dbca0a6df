/**
 * The cells of a declared table or list of groups: numbers nested in lists and objects, how many there are, how
 * many entries each level has, and the places (keys and indexes) of the cells above 0 and below a threshold.
 * Anything else in it (a string, null, a boolean, a count that is not a whole number ≥ 0) means the output is not
 * what it claims to be.
 *
 * A result of a megabyte holds hundreds of thousands of cells, read on the node's event loop: the walk keeps
 * nothing per cell, and builds a place only for a cell below the threshold (or in an error message).
 */

export interface Cells {
  /** How many cells there are. */
  readonly count: number;
  /** Largest number of entries of a list or object at each depth (depth 0 = the field itself). */
  readonly widths: readonly number[];
  /** The threshold the small cells were looked for with (undefined: none were). */
  readonly below: number | undefined;
  /** Places of the cells above 0 and below `below`, e.g. `['male', '2']`. */
  readonly small: readonly (readonly string[])[];
}

/** Deeper nesting is refused: no table of counts needs it, and it bounds the walk. */
const MAX_DEPTH = 8;

/**
 * The cells of `value`, or why it is not a table of numbers. `counts`: every cell must be a whole number ≥ 0.
 * `below`: the cells above 0 and below it are listed in `small`.
 */
export function cellsOf(value: unknown, counts: boolean, below?: number): Cells | { error: string } {
  let count = 0;
  const widths: number[] = [];
  const small: string[][] = [];
  const stack: (string | number)[] = [];
  const here = (): string => stack.join('/') || '.';
  const limit = below ?? 0;

  const leaf = (v: unknown): string | undefined => {
    if (typeof v !== 'number') return `the cell '${here()}' is not a number`;
    if (!Number.isFinite(v)) return `the cell '${here()}' is not a finite number`;
    if (counts && (v < 0 || !Number.isInteger(v)))
      return `the cell '${here()}' is not a count (a whole number ≥ 0)`;
    count++;
    if (v > 0 && v < limit) small.push(stack.map(String));
    return undefined;
  };

  const walk = (v: unknown, depth: number): string | undefined => {
    if (typeof v !== 'object' || v === null) return leaf(v);
    if (depth >= MAX_DEPTH) return `it is nested deeper than ${MAX_DEPTH} levels`;
    if (Array.isArray(v)) {
      const n = v.length;
      if (n > (widths[depth] ?? 0)) widths[depth] = n;
      for (let i = 0; i < n; i++) {
        const x: unknown = v[i];
        // The common case, a valid count not below the threshold, costs a few comparisons.
        if (typeof x === 'number' && x >= limit && Number.isFinite(x) && (!counts || Number.isInteger(x))) {
          count++;
          continue;
        }
        stack.push(i);
        const problem = walk(x, depth + 1);
        if (problem !== undefined) return problem;
        stack.pop();
      }
      return undefined;
    }
    const keys = Object.keys(v);
    if (keys.length > (widths[depth] ?? 0)) widths[depth] = keys.length;
    for (const k of keys) {
      const x: unknown = (v as Record<string, unknown>)[k];
      if (typeof x === 'number' && x >= limit && Number.isFinite(x) && (!counts || Number.isInteger(x))) {
        count++;
        continue;
      }
      stack.push(k);
      const problem = walk(x, depth + 1);
      if (problem !== undefined) return problem;
      stack.pop();
    }
    return undefined;
  };

  const problem = walk(value, 0);
  return problem === undefined ? { count, widths, below, small } : { error: problem };
}

/**
 * Whether `a` and `b` hold the same places: lists of the same length, objects with the same keys (in any order),
 * numbers at the same places.
 */
export function samePlaces(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') return typeof a === 'number' && typeof b === 'number';
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!samePlaces(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) {
    const x = (a as Record<string, unknown>)[k];
    const y = (b as Record<string, unknown>)[k];
    // Numbers on both sides is the common case; a key missing from `b` reads undefined there.
    if (typeof x === 'number' && typeof y === 'number') continue;
    if (y === undefined || !samePlaces(x, y)) return false;
  }
  return true;
}
