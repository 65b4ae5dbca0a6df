/**
 * The disclosure checks of one declared output (docs/output-control.md#disclosure-checks): the declared fields read
 * from the result, each rule of the kind applied with the node's threshold, and, where the policy allows it, the
 * failing cells suppressed. Pure: no input but the parsed result, the declaration and the thresholds.
 */
import type { OutputDeclaration } from '@federa/common';

import { cellsOf, samePlaces, type Cells } from './checks/cells.js';
import type { Finding } from './checks/finding.js';
import { checkMaxLevels } from './checks/max-levels.js';
import { checkMinCellCount } from './checks/min-cell-count.js';
import { checkMinGroupSize } from './checks/min-group-size.js';
import { checkParameterRatio } from './checks/parameter-ratio.js';

/** A threshold of null turns its check off. */
export interface DisclosureThresholds {
  readonly minCellCount: number | null;
  readonly minGroupSize: number | null;
  readonly maxParametersRatio: number | null;
  readonly maxLevels: number | null;
}

/** DataSHIELD's defaults: nfilter.tab 3, nfilter.subset 3, nfilter.glm 0.33, nfilter.levels.max 40. */
export const DATASHIELD_DEFAULTS: DisclosureThresholds = {
  minCellCount: 3,
  minGroupSize: 3,
  maxParametersRatio: 0.33,
  maxLevels: 40,
};

/** The key added to a suppressed result, listing what was suppressed and by which rule. */
export const SUPPRESSED_KEY = 'federa_suppressed';

export type Inspection =
  | { readonly ok: true; readonly findings: readonly Finding[]; readonly rules: readonly string[] }
  | { readonly ok: false; readonly error: string };

const fieldOf = (result: Record<string, unknown>, key: string): unknown =>
  Object.prototype.hasOwnProperty.call(result, key) ? result[key] : undefined;

/**
 * Checks `result` (the parsed output) against `declaration`. Not ok when the result does not hold what the
 * declaration says; else the findings of every rule that failed, and the rules that were applied.
 */
export function inspectOutput(
  result: unknown,
  declaration: OutputDeclaration,
  t: DisclosureThresholds,
): Inspection {
  if (typeof result !== 'object' || result === null || Array.isArray(result))
    return { ok: false, error: 'the result is not a JSON object' };
  const r = result as Record<string, unknown>;
  const need = (key: string): unknown => fieldOf(r, key);
  const findings: (Finding | undefined)[] = [];
  const rules: string[] = [];
  const table = (key: string, counts: boolean, below?: number | null): Cells | string => {
    const v = need(key);
    if (v === undefined) return `the result has no key '${key}'`;
    const c = cellsOf(v, counts, below ?? undefined);
    return 'error' in c
      ? `'${key}' is not a ${counts ? 'table of counts' : 'list of numbers'}: ${c.error}`
      : c;
  };
  switch (declaration.kind) {
    case 'count_table': {
      const c = table(declaration.counts, true, t.minCellCount);
      if (typeof c === 'string') return { ok: false, error: c };
      if (t.minCellCount !== null) {
        rules.push('min_cell_count');
        findings.push(checkMinCellCount(c, t.minCellCount, declaration.counts));
      }
      if (t.maxLevels !== null) {
        rules.push('max_levels');
        findings.push(checkMaxLevels(c.widths, t.maxLevels, declaration.counts));
      }
      break;
    }
    case 'group_means': {
      const means = table(declaration.means, false);
      if (typeof means === 'string') return { ok: false, error: means };
      const sizes = table(declaration.counts, true, t.minGroupSize);
      if (typeof sizes === 'string') return { ok: false, error: sizes };
      // The same groups: each mean has its group's size (key order may differ).
      const sameGroups = samePlaces(need(declaration.means), need(declaration.counts));
      if (!sameGroups)
        return {
          ok: false,
          error: `'${declaration.means}' and '${declaration.counts}' do not hold the same groups`,
        };
      if (t.minGroupSize !== null) {
        rules.push('min_group_size');
        findings.push(checkMinGroupSize(sizes, t.minGroupSize, declaration.counts));
      }
      if (t.maxLevels !== null) {
        rules.push('max_levels');
        findings.push(checkMaxLevels(sizes.widths, t.maxLevels, declaration.counts));
      }
      break;
    }
    case 'model_coefficients': {
      const coef = table(declaration.coefficients, false);
      if (typeof coef === 'string') return { ok: false, error: coef };
      const rows = need(declaration.rows);
      if (typeof rows !== 'number' || !Number.isInteger(rows) || rows < 0)
        return { ok: false, error: `'${declaration.rows}' is not a number of rows (a whole number ≥ 0)` };
      if (t.maxParametersRatio !== null) {
        rules.push('max_parameters_ratio');
        findings.push(checkParameterRatio(coef.count, rows, t.maxParametersRatio, declaration.coefficients));
      }
      break;
    }
  }
  return { ok: true, findings: findings.filter((f): f is Finding => f !== undefined), rules };
}

/** Whether every finding can be suppressed (cells or groups below a threshold; not a model or too many levels). */
export const suppressible = (findings: readonly Finding[]): boolean =>
  findings.every((f) => f.rule === 'min_cell_count' || f.rule === 'min_group_size');

/**
 * `result` with every failing cell (and, for groups, the group's mean too) replaced by null, and SUPPRESSED_KEY
 * listing the places, rule and threshold of each suppression. Changes `result` itself: it is the gate's own parse of
 * the output, and a copy of a megabyte would cost more than the checks.
 */
export function suppressOutput(
  result: Record<string, unknown>,
  declaration: OutputDeclaration,
  findings: readonly Finding[],
): Record<string, unknown> {
  const out = result;
  const marks: Record<string, unknown>[] = [];
  for (const f of findings) {
    const keys = declaration.kind === 'group_means' ? [declaration.counts, declaration.means] : [f.field];
    for (const key of keys) for (const path of f.paths) out[key] = setAt(out[key], path, null);
    marks.push({ rule: f.rule, threshold: f.threshold, fields: keys, cells: f.paths.map((p) => [...p]) });
  }
  out[SUPPRESSED_KEY] = marks;
  return out;
}

function setAt(root: unknown, path: readonly string[], value: null): unknown {
  if (path.length === 0) return value;
  let node = root as Record<string, unknown>;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string, unknown>;
  node[path[path.length - 1]!] = value;
  return root;
}
