import { describe, expect, it } from 'vitest';

import { cellsOf } from './cells.js';
import { checkMinGroupSize } from './min-group-size.js';

const sizes = (v: unknown) => {
  const c = cellsOf(v, true, 3);
  if ('error' in c) throw new Error(c.error);
  return c;
};

describe('min_group_size', () => {
  it('passes groups at the threshold and above it', () => {
    expect(checkMinGroupSize(sizes({ a: 3, b: 4 }), 3, 'n')).toBeUndefined();
  });

  it('fails a group one below the threshold', () => {
    const f = checkMinGroupSize(sizes({ a: 2, b: 40 }), 3, 'n');
    expect(f).toMatchObject({ rule: 'min_group_size', threshold: 3, field: 'n', paths: [['a']] });
    expect(f?.detail).toBe("1 of 2 groups of 'n' have more than 0 and fewer than 3 members");
  });

  it('passes an empty group', () => {
    expect(checkMinGroupSize(sizes({ a: 0, b: 5 }), 3, 'n')).toBeUndefined();
  });
});
