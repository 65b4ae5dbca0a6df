import { describe, expect, it } from 'vitest';

import { cellsOf, type Cells } from './cells.js';
import { checkMinCellCount } from './min-cell-count.js';

const cells = (v: unknown, below: number): Cells => {
  const c = cellsOf(v, true, below);
  if ('error' in c) throw new Error(c.error);
  return c;
};

describe('min_cell_count', () => {
  it('passes a cell at the threshold and above it', () => {
    expect(checkMinCellCount(cells([3, 4, 100], 3), 3, 'counts')).toBeUndefined();
  });

  it('fails a cell one below the threshold, naming how many cells and where, not their values', () => {
    const f = checkMinCellCount(cells({ male: [5, 2], female: [9, 7] }, 3), 3, 'counts');
    expect(f).toMatchObject({
      rule: 'min_cell_count',
      threshold: 3,
      field: 'counts',
      paths: [['male', '1']],
    });
    expect(f?.detail).toBe("1 of 4 cells of 'counts' count more than 0 and fewer than 3");
    expect(f?.detail).not.toMatch(/\b2\b/);
  });

  it('passes empty cells: a count of 0 identifies no one', () => {
    expect(checkMinCellCount(cells([0, 0, 10], 3), 3, 'counts')).toBeUndefined();
  });

  it('fails a cell of 1 at any threshold above 1, and nothing at threshold 1', () => {
    expect(checkMinCellCount(cells([1], 2), 2, 'c')?.paths).toEqual([['0']]);
    expect(checkMinCellCount(cells([1], 1), 1, 'c')).toBeUndefined();
  });
});
