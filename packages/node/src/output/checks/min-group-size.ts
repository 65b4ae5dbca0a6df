/**
 * Minimum group size (DataSHIELD's `nfilter.subset`, default 3): a statistic of a group with fewer members than the
 * threshold (but more than none) is almost a member's own value.
 */
import type { Cells } from './cells.js';
import type { Finding } from './finding.js';

/** `sizes`: the groups' sizes, read with `below` = `threshold` (cells.ts). */
export function checkMinGroupSize(sizes: Cells, threshold: number, field: string): Finding | undefined {
  if (sizes.below !== threshold) throw new Error('the group sizes were read with another threshold');
  if (sizes.small.length === 0) return undefined;
  return {
    rule: 'min_group_size',
    threshold,
    field,
    detail: `${sizes.small.length} of ${sizes.count} groups of '${field}' have more than 0 and fewer than ${threshold} members`,
    paths: sizes.small,
  };
}
