import { describe, expect, it } from 'vitest';

import { checkParameterRatio } from './parameter-ratio.js';

describe('max_parameters_ratio', () => {
  it('passes a model exactly at the ratio (33 parameters for 100 rows at 0.33)', () => {
    expect(checkParameterRatio(33, 100, 0.33, 'coef')).toBeUndefined();
  });

  it('passes a model below the ratio', () => {
    expect(checkParameterRatio(3, 100, 0.33, 'coef')).toBeUndefined();
  });

  it('fails a model above the ratio', () => {
    const f = checkParameterRatio(34, 100, 0.33, 'coef');
    expect(f).toMatchObject({ rule: 'max_parameters_ratio', threshold: 0.33, field: 'coef', paths: [] });
    expect(f?.detail).toBe("'coef' has 34 parameters for 100 rows, more than 0.33 per row");
  });

  it('fails a model of no rows', () => {
    expect(checkParameterRatio(1, 0, 0.33, 'coef')?.detail).toBe("'coef' was fitted on no rows");
  });
});
