import { describe, expect, it } from 'vitest';

import { DATASHIELD_DEFAULTS, inspectOutput, suppressOutput } from './disclosure.js';

const means = { kind: 'group_means', means: 'mean', counts: 'n' } as const;

describe('group means', () => {
  it('pass groups of at least min_group_size and fail a smaller one', () => {
    const ok = inspectOutput({ mean: { a: 1.5, b: 2 }, n: { a: 3, b: 9 } }, means, DATASHIELD_DEFAULTS);
    expect(ok).toEqual({ ok: true, findings: [], rules: ['min_group_size', 'max_levels'] });
    const small = inspectOutput({ mean: { a: 1.5, b: 2 }, n: { a: 2, b: 9 } }, means, DATASHIELD_DEFAULTS);
    expect(small.ok && small.findings.map((f) => [f.rule, f.paths])).toEqual([['min_group_size', [['a']]]]);
  });

  it('refuse means and counts that do not hold the same groups', () => {
    expect(inspectOutput({ mean: { a: 1 }, n: { b: 4 } }, means, DATASHIELD_DEFAULTS)).toEqual({
      ok: false,
      error: "'mean' and 'n' do not hold the same groups",
    });
  });

  it('are suppressed mean and count together', () => {
    const result = { mean: { a: 1.5, b: 2 }, n: { a: 2, b: 9 } };
    const r = inspectOutput(result, means, DATASHIELD_DEFAULTS);
    if (!r.ok) throw new Error(r.error);
    const out = suppressOutput(result, means, r.findings);
    expect(out).toMatchObject({ mean: { a: null, b: 2 }, n: { a: null, b: 9 } });
  });
});

describe('model coefficients', () => {
  it('need a whole number of rows', () => {
    const d = { kind: 'model_coefficients', coefficients: 'coef', rows: 'rows' } as const;
    expect(inspectOutput({ coef: { x: 1 }, rows: 'ten' }, d, DATASHIELD_DEFAULTS)).toEqual({
      ok: false,
      error: "'rows' is not a number of rows (a whole number ≥ 0)",
    });
    expect(inspectOutput({ coef: { x: 1, y: 2 }, rows: 100 }, d, DATASHIELD_DEFAULTS)).toMatchObject({
      ok: true,
      findings: [],
    });
  });
});
