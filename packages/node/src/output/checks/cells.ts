/**
 * The cells of a declared table or list of groups: numbers nested in lists and objects, each with its place (the
 * keys and indexes that lead to it), and how many entries each level has. Anything else in it (a string, null, a
 * boolean, a count that is not a whole number ≥ 0) means the output is not what it claims to be.
 */

export interface Cell {
  /** Keys and indexes leading to the cell, e.g. `['male', '2']`. */
  readonly path: readonly string[];
  readonly value: number;
}

export interface Cells {
  readonly cells: readonly Cell[];
  /** Largest number of entries of a list or object at each depth (depth 0 = the field itself). */
  readonly widths: readonly number[];
}

/** Deeper nesting is refused: no table of counts needs it, and it bounds the walk. */
const MAX_DEPTH = 8;

/**
 * The cells of `value`, or why it is not a table of numbers. `counts`: every cell must be a whole number ≥ 0.
 */
export function cellsOf(value: unknown, counts: boolean): Cells | { error: string } {
  const cells: Cell[] = [];
  const widths: number[] = [];
  const walk = (v: unknown, path: string[], depth: number): string | undefined => {
    const place = path.join('/') || '.';
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `the cell '${place}' is not a finite number`;
      if (counts && (!Number.isInteger(v) || v < 0))
        return `the cell '${place}' is not a count (a whole number ≥ 0)`;
      cells.push({ path, value: v });
      return undefined;
    }
    if (depth >= MAX_DEPTH) return `it is nested deeper than ${MAX_DEPTH} levels`;
    let entries: [string, unknown][];
    if (Array.isArray(v)) entries = v.map((x, i) => [String(i), x]);
    else if (typeof v === 'object' && v !== null) entries = Object.entries(v);
    else return `the cell '${place}' is not a number`;
    widths[depth] = Math.max(widths[depth] ?? 0, entries.length);
    for (const [k, x] of entries) {
      const problem = walk(x, [...path, k], depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
  const problem = walk(value, [], 0);
  return problem === undefined ? { cells, widths } : { error: problem };
}
