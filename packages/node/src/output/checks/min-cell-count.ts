/**
 * Minimum cell count (DataSHIELD's `nfilter.tab`, default 3): a cell of a table of counts that is above 0 and below
 * the threshold identifies too few people. Empty cells (0) disclose nothing and pass.
 */
import type { Cell } from './cells.js';
import type { Finding } from './finding.js';

export function checkMinCellCount(
  cells: readonly Cell[],
  threshold: number,
  field: string,
): Finding | undefined {
  const small = cells.filter((c) => c.value > 0 && c.value < threshold);
  if (small.length === 0) return undefined;
  return {
    rule: 'min_cell_count',
    threshold,
    field,
    detail: `${small.length} of ${cells.length} cells of '${field}' count more than 0 and fewer than ${threshold}`,
    paths: small.map((c) => c.path),
  };
}
