/**
 * Maximum levels (DataSHIELD's `nfilter.levels.max`, default 40): a table or grouping by a factor of very many levels
 * (an identifier, a date) splits the data into groups of about one.
 */
import type { Finding } from './finding.js';

export function checkMaxLevels(
  widths: readonly number[],
  maxLevels: number,
  field: string,
): Finding | undefined {
  const depth = widths.findIndex((w) => w > maxLevels);
  if (depth === -1) return undefined;
  return {
    rule: 'max_levels',
    threshold: maxLevels,
    field,
    detail: `'${field}' has ${widths[depth]} levels at depth ${depth + 1}, more than ${maxLevels}`,
    paths: [],
  };
}
