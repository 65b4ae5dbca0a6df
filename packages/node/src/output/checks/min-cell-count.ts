/**
 * Minimum cell count (DataSHIELD's `nfilter.tab`, default 3): a cell of a table of counts that is above 0 and below
 * the threshold identifies too few people. Empty cells (0) disclose nothing and pass.
 */
import type { Cells } from './cells.js';
import type { Finding } from './finding.js';

/** `cells`: read with `below` = `threshold` (cells.ts). */
export function checkMinCellCount(cells: Cells, threshold: number, field: string): Finding | undefined {
  if (cells.below !== threshold) throw new Error('the cells were read with another threshold');
  if (cells.small.length === 0) return undefined;
  return {
    rule: 'min_cell_count',
    threshold,
    field,
    detail: `${cells.small.length} of ${cells.count} cells of '${field}' count more than 0 and fewer than ${threshold}`,
    paths: cells.small,
  };
}
