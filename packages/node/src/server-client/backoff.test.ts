import { describe, expect, it } from 'vitest';
import { HINT_JITTER, ReconnectBackoff, retryHint } from './backoff.js';

describe('ReconnectBackoff', () => {
  it('waits between half and all of base·2^k, up to the maximum, and starts again after a success', () => {
    const low = new ReconnectBackoff({ baseMs: 1000, maxMs: 8000, random: () => 0 });
    const high = new ReconnectBackoff({ baseMs: 1000, maxMs: 8000, random: () => 0.999999 });
    expect(Array.from({ length: 6 }, () => low.next())).toEqual([500, 1000, 2000, 4000, 4000, 4000]);
    expect(Array.from({ length: 6 }, () => high.next())).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    low.reset();
    expect(low.next()).toBe(500);
  });

  it('spreads nodes that lost the server together', () => {
    const waits = Array.from({ length: 1000 }, () => new ReconnectBackoff().next());
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...waits)).toBeLessThanOrEqual(1000);
    // Roughly uniform: each tenth of the range holds some of them.
    const tenths = new Set(waits.map((w) => Math.min(9, Math.floor((w - 500) / 50))));
    expect(tenths.size).toBe(10);
  });

  it("honours the server's hint: never earlier, at most 20% later, and without lengthening later waits", () => {
    const b = new ReconnectBackoff({ random: () => 0.5 });
    expect(b.next(3000)).toBe(Math.round(3000 * (1 + HINT_JITTER * 0.5)));
    expect(new ReconnectBackoff({ random: () => 0 }).next(3000)).toBe(3000);
    expect(b.attempts).toBe(0);
    expect(b.next()).toBe(750);
    // A hint that is not a positive number is ignored.
    expect(new ReconnectBackoff({ random: () => 0 }).next(Number.NaN)).toBe(500);
    expect(new ReconnectBackoff({ random: () => 0 }).next(-5)).toBe(500);
  });

  it('reads the hint of a server_busy refusal only', () => {
    expect(retryHint({ data: { code: 'server_busy', retry_after_ms: 1200 } })).toBe(1200);
    expect(retryHint({ data: { code: 'other', retry_after_ms: 1200 } })).toBeUndefined();
    expect(retryHint({ data: { code: 'server_busy', retry_after_ms: '1200' } })).toBeUndefined();
    expect(retryHint(new Error('xhr poll error'))).toBeUndefined();
    expect(retryHint(null)).toBeUndefined();
  });
});
