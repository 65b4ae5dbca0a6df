import { describe, expect, it } from 'vitest';
import { formatStored, toApiTime } from './datetime.js';

describe('toApiTime (docs/api.md#date-times)', () => {
  it.each([
    ['2026-11-24T07:14:40.563000', '2026-11-24T07:14:40.563000+00:00'],
    ['2026-11-24T07:14:40.000001', '2026-11-24T07:14:40.000001+00:00'],
    ['2026-11-24T07:14:40.000000', '2026-11-24T07:14:40+00:00'],
    ['2026-11-24T07:14:40.', '2026-11-24T07:14:40+00:00'],
    ['2026-11-24T07:14:40', '2026-11-24T07:14:40+00:00'],
  ])('shows %s as %s', (stored, shown) => expect(toApiTime(stored)).toBe(shown));

  it('shows no time as null', () => {
    expect(toApiTime(null)).toBeNull();
    expect(toApiTime(undefined)).toBeNull();
  });

  it('shows a stored time of a whole second without its fraction', () => {
    expect(toApiTime(formatStored(new Date(Date.UTC(2026, 0, 2, 3, 4, 5))))).toBe(
      '2026-01-02T03:04:05+00:00',
    );
  });
});
