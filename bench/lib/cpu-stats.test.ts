import { describe, expect, it } from 'vitest';
import {
  meanRatio,
  median,
  pairedRatio,
  percentMore,
  perRequestUs,
  quantile,
  roundOrder,
  seededRandom,
  verdict,
} from './cpu-stats.mjs';

describe('the CPU-per-request arithmetic', () => {
  it('takes medians and interpolated quantiles', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
    expect(quantile([10, 20, 30, 40, 50], 0)).toBe(10);
    expect(quantile([10, 20, 30, 40, 50], 1)).toBe(50);
    expect(quantile([10, 20, 30, 40, 50], 0.5)).toBe(30);
    expect(quantile([10, 20], 0.25)).toBe(12.5);
  });

  it('turns a round’s nanoseconds of CPU into microseconds per request', () => {
    expect(perRequestUs([50_000_000, 21_000_000], [1000, 500])).toEqual([50, 42]);
  });

  it('draws the same numbers from the same seed, each in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const drawn = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(drawn);
    expect(drawn.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(median(drawn)).toBeGreaterThan(0.4);
    expect(median(drawn)).toBeLessThan(0.6);
  });

  it('pairs the rounds: a drift in the machine’s load that hits both cancels out', () => {
    // Configuration b costs 5% more than a in every round, while the machine's load doubles the figures of half
    // of the rounds: the figures of each spread widely, their rounds' ratio does not.
    const a = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 40 : 80));
    const b = a.map((x) => x * 1.05);
    const r = pairedRatio(a, b);
    expect(r.rounds).toBe(40);
    expect(r.ratio).toBeCloseTo(1.05, 10);
    expect(r.low).toBeCloseTo(1.05, 10);
    expect(r.high).toBeCloseTo(1.05, 10);
    expect(verdict(r, 0.03)).toBe('FAIL');
    expect(verdict(r, 0.1)).toBe('PASS');
  });

  it('gives an interval that holds the ratio and widens with the rounds’ spread', () => {
    const random = seededRandom(3);
    const a = Array.from({ length: 60 }, () => 50);
    const narrow = pairedRatio(
      a,
      a.map((x) => x * (1.02 + (random() - 0.5) * 0.01)),
    );
    const wide = pairedRatio(
      a,
      a.map((x) => x * (1.02 + (random() - 0.5) * 0.2)),
    );
    for (const r of [narrow, wide]) {
      expect(r.low).toBeLessThanOrEqual(r.ratio);
      expect(r.high).toBeGreaterThanOrEqual(r.ratio);
    }
    expect(narrow.high - narrow.low).toBeLessThan(0.005);
    expect(wide.high - wide.low).toBeGreaterThan(narrow.high - narrow.low);
    expect(verdict(narrow, 0.03)).toBe('PASS');
    // The same seed, the same interval.
    expect(
      pairedRatio(
        a,
        a.map((x, i) => x * (1 + i / 600)),
      ),
    ).toEqual(
      pairedRatio(
        a,
        a.map((x, i) => x * (1 + i / 600)),
      ),
    );
  });

  it('puts the spread between sets of servers in the interval when told of the sets', () => {
    // Three sets of 30 rounds whose servers' own luck put them at 0%, +2% and +8%, with little spread within each.
    const random = seededRandom(5);
    const a = Array.from({ length: 90 }, () => 50);
    const levels = [1, 1.02, 1.08];
    const b = a.map((x, i) => x * (levels[Math.floor(i / 30)]! + (random() - 0.5) * 0.002));
    const rounds = pairedRatio(a, b);
    const bySet = pairedRatio(a, b, { sets: 3 });
    expect(bySet.ratio).toBe(rounds.ratio);
    expect(rounds.ratio).toBeCloseTo(1.02, 2);
    expect(rounds.high - rounds.low).toBeLessThan(0.01);
    expect(bySet.low).toBeLessThan(1.005);
    expect(bySet.high).toBeGreaterThan(1.07);
    expect(verdict(rounds, 0.03)).toBe('PASS');
    expect(verdict(bySet, 0.03)).toBe('UNDECIDED');
  });

  it('leaves the verdict undecided while the interval holds the ceiling', () => {
    expect(verdict({ low: 1.01, high: 1.05 }, 0.03)).toBe('UNDECIDED');
    expect(verdict({ low: 0.98, high: 1.03 }, 0.03)).toBe('PASS');
    expect(verdict({ low: 1.031, high: 1.2 }, 0.03)).toBe('FAIL');
  });

  it('refuses rounds that are not paired, and leaves out a round with no requests', () => {
    expect(() => pairedRatio([1, 2], [1])).toThrow(/differ in number/);
    const r = pairedRatio([50, 50, 0], [55, 55, 60]);
    expect(r.rounds).toBe(2);
    expect(r.ratio).toBeCloseTo(1.1, 10);
  });

  it('counts every round in the ratio of the means, a dear round too', () => {
    const a = [50, 50, 50, 50];
    expect(meanRatio(a, [50, 50, 50, 250])).toBe(2);
    expect(pairedRatio(a, [50, 50, 50, 250]).ratio).toBe(1);
  });

  it('prints a ratio as a percentage more or less', () => {
    expect(percentMore(1.0234)).toBe('+2.3%');
    expect(percentMore(0.98)).toBe('-2.0%');
  });

  it('lets each configuration start a round in turn', () => {
    expect([0, 1, 2, 3].map((r) => roundOrder(['a', 'b', 'c'], r).join(''))).toEqual([
      'abc',
      'bca',
      'cab',
      'abc',
    ]);
  });
});
