/**
 * Minimum group size (DataSHIELD's `nfilter.subset`, default 3): a statistic of a group with fewer members than the
 * threshold (but more than none) is almost a member's own value.
 */
import type { Cell } from './cells.js';
import type { Finding } from './finding.js';

export function checkMinGroupSize(
  sizes: readonly Cell[],
  threshold: number,
  field: string,
): Finding | undefined {
  const small = sizes.filter((c) => c.value > 0 && c.value < threshold);
  if (small.length === 0) return undefined;
  return {
    rule: 'min_group_size',
    threshold,
    field,
    detail: `${small.length} of ${sizes.length} groups of '${field}' have more than 0 and fewer than ${threshold} members`,
    paths: small.map((c) => c.path),
  };
}
