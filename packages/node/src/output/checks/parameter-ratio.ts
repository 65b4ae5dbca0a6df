/**
 * Parameters-to-rows ratio (DataSHIELD's `nfilter.glm`, default 0.33): a model with nearly as many parameters as
 * rows can give back the rows. Passes while parameters ≤ ratio × rows; a model of no rows never passes.
 */
import type { Finding } from './finding.js';

export function checkParameterRatio(
  parameters: number,
  rows: number,
  maxRatio: number,
  field: string,
): Finding | undefined {
  // Compared as a product, so that a ratio exactly at the threshold passes despite rounding.
  if (rows > 0 && parameters <= maxRatio * rows + 1e-9 * rows) return undefined;
  return {
    rule: 'max_parameters_ratio',
    threshold: maxRatio,
    field,
    detail:
      rows > 0
        ? `'${field}' has ${parameters} parameters for ${rows} rows, more than ${maxRatio} per row`
        : `'${field}' was fitted on no rows`,
    paths: [],
  };
}
