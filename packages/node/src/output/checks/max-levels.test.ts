import { describe, expect, it } from 'vitest';

import { cellsOf, samePlaces } from './cells.js';
import { checkMaxLevels } from './max-levels.js';

const widths = (v: unknown) => {
  const c = cellsOf(v, true);
  if ('error' in c) throw new Error(c.error);
  return c.widths;
};
const levels = (n: number) => Array.from({ length: n }, () => 5);

describe('max_levels', () => {
  it('passes a table with as many levels as allowed, and fewer', () => {
    expect(checkMaxLevels(widths(levels(40)), 40, 'counts')).toBeUndefined();
    expect(checkMaxLevels(widths(levels(39)), 40, 'counts')).toBeUndefined();
  });

  it('fails one level more than allowed, at any depth', () => {
    expect(checkMaxLevels(widths(levels(41)), 40, 'counts')).toMatchObject({
      rule: 'max_levels',
      threshold: 40,
      detail: "'counts' has 41 levels at depth 1, more than 40",
    });
    expect(checkMaxLevels(widths({ a: levels(41) }), 40, 'counts')?.detail).toMatch(/at depth 2/);
  });
});

describe('cells of a declared table', () => {
  it('are the same groups when they hold numbers at the same places, in any key order', () => {
    expect(samePlaces({ a: 1, b: [2, 3] }, { b: [5, 6], a: 9 })).toBe(true);
    expect(samePlaces({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(samePlaces({ a: 1, c: 2 }, { a: 1, b: 2 })).toBe(false);
    expect(samePlaces([1, 2], [1])).toBe(false);
    expect(samePlaces([1], { 0: 1 })).toBe(false);
    expect(samePlaces({ a: [1] }, { a: 1 })).toBe(false);
  });

  it('are refused when a cell is not a count, naming the cell and not its value', () => {
    expect(cellsOf({ a: 2.5 }, true)).toEqual({ error: "the cell 'a' is not a count (a whole number ≥ 0)" });
    expect(cellsOf({ a: -1 }, true)).toEqual({ error: "the cell 'a' is not a count (a whole number ≥ 0)" });
    expect(cellsOf({ a: 'x' }, true)).toEqual({ error: "the cell 'a' is not a number" });
    expect(cellsOf([null], false)).toEqual({ error: "the cell '0' is not a number" });
    expect(cellsOf({ a: 2.5, b: [[1], { c: 4 }] }, false, 3)).toEqual({
      count: 3,
      widths: [2, 2, 1],
      below: 3,
      small: [['a'], ['b', '0', '0']],
    });
    expect(cellsOf(7, true)).toEqual({ count: 1, widths: [], below: undefined, small: [] });
    expect(cellsOf({ a: [1, { b: [2, 'x'] }] }, true)).toEqual({
      error: "the cell 'a/1/b/1' is not a number",
    });
  });

  it('are refused when nested too deep', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 9; i++) deep = [deep];
    expect(cellsOf(deep, true)).toEqual({ error: 'it is nested deeper than 8 levels' });
  });
});
