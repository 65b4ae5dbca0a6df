/**
 * The disclosure checks of a declared output read from its bytes by checks/scan-cells.ts, without `JSON.parse`
 * (docs/output-control.md#cost): tables of counts and model coefficients. Undefined when the scan gave up or the
 * kind is not read this way (group means, whose two fields must hold the same groups): the caller then parses the
 * body and inspects it with disclosure.ts, which gives the same verdict and words every refusal of a shape.
 */
import type { OutputDeclaration } from '@federa/common';

import type { Cells } from './checks/cells.js';
import type { Finding } from './checks/finding.js';
import { checkMaxLevels } from './checks/max-levels.js';
import { checkMinCellCount } from './checks/min-cell-count.js';
import { checkParameterRatio } from './checks/parameter-ratio.js';
import { scanDeclared, type Places } from './checks/scan-cells.js';
import { SUPPRESSED_KEY } from './disclosure.js';
import type { DisclosureThresholds, Inspection } from './disclosure.js';

export function scannedInspection(
  body: Uint8Array,
  declaration: OutputDeclaration,
  t: DisclosureThresholds,
  places?: Places,
): Inspection | undefined {
  const findings: (Finding | undefined)[] = [];
  const rules: string[] = [];
  if (declaration.kind === 'count_table') {
    const key = declaration.counts;
    const read = scanDeclared(
      body,
      [{ key, as: 'cells', counts: true, below: t.minCellCount ?? undefined }],
      places,
    );
    const c = read?.get(key) as Cells | undefined;
    if (c === undefined) return undefined;
    if (t.minCellCount !== null) {
      rules.push('min_cell_count');
      findings.push(checkMinCellCount(c, t.minCellCount, key));
    }
    if (t.maxLevels !== null) {
      rules.push('max_levels');
      findings.push(checkMaxLevels(c.widths, t.maxLevels, key));
    }
  } else if (declaration.kind === 'model_coefficients') {
    const { coefficients, rows: rowsKey } = declaration;
    if (coefficients === rowsKey) return undefined;
    const read = scanDeclared(body, [
      { key: coefficients, as: 'cells', counts: false, below: undefined },
      { key: rowsKey, as: 'number' },
    ]);
    const coef = read?.get(coefficients) as Cells | undefined;
    const rows = read?.get(rowsKey);
    if (coef === undefined || typeof rows !== 'number' || !Number.isInteger(rows) || rows < 0)
      return undefined;
    if (t.maxParametersRatio !== null) {
      rules.push('max_parameters_ratio');
      findings.push(checkParameterRatio(coef.count, rows, t.maxParametersRatio, coefficients));
    }
  } else return undefined;
  return { ok: true, findings: findings.filter((f): f is Finding => f !== undefined), rules };
}

/**
 * A table of counts with its small cells blanked in place (`null`) and `federa_suppressed` added at the end of the
 * result, as disclosure.ts's suppressOutput writes it, without parsing and writing the result again. Undefined
 * when the scan did not say where (the result then goes the slow way).
 */
export function suppressedInPlace(
  body: Uint8Array,
  places: Places,
  findings: readonly Finding[],
): Buffer | undefined {
  if (places.taken || places.close < 0) return undefined;
  const marks = findings.map((f) => ({
    rule: f.rule,
    threshold: f.threshold,
    fields: [f.field],
    cells: f.paths.map((p) => [...p]),
  }));
  const pieces: Uint8Array[] = [Buffer.from('json.')];
  let at = 0;
  for (const [start, end] of places.spans) {
    pieces.push(body.subarray(at, start), Buffer.from('null'));
    at = end;
  }
  pieces.push(
    body.subarray(at, places.close),
    Buffer.from(`,${JSON.stringify(SUPPRESSED_KEY)}:${JSON.stringify(marks)}`),
    body.subarray(places.close),
  );
  return Buffer.concat(pieces);
}
