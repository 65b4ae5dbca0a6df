import { describe, expect, it } from 'vitest';

import { at, viewData } from './views.js';

const one = (value: unknown) => [{ source: 'root', value }];

describe("a store function's result views", () => {
  it('finds the data at its location, by key or list index', () => {
    expect(at({ data: { table: [1, 2] } }, ['data', 'table'])).toEqual([1, 2]);
    expect(at({ rows: [{ a: 1 }, { a: 2 }] }, ['rows', '1', 'a'])).toBe(2);
    expect(at({ a: 1 }, ['a', 'b'])).toBeUndefined();
  });

  it('tables a list of rows, one object, or an object of objects, with the columns the schema names', () => {
    const view = { name: 'Summary', type: 'table', schema: { keys: ['mean', 'count'] } };
    expect(viewData(view, one({ mean: 35.1, count: 7, extra: 'x' }))).toEqual({
      kind: 'table',
      data: { columns: ['mean', 'count'], rows: [{ mean: 35.1, count: 7, extra: 'x' }] },
    });
    const byGroup = viewData({ name: 'g', type: 'table' }, one({ men: { n: 3 }, women: { n: 4 } }));
    expect(byGroup).toEqual({
      kind: 'table',
      data: {
        columns: ['name', 'n'],
        rows: [
          { name: 'men', n: 3 },
          { name: 'women', n: 4 },
        ],
      },
    });
    // Several organizations' outputs: a column says whose row it is.
    const many = viewData(view, [
      { source: 'a', value: { mean: 1, count: 2 } },
      { source: 'b', value: { mean: 3, count: 4 } },
    ]);
    expect(many).toMatchObject({ kind: 'table', data: { columns: ['organization', 'mean', 'count'] } });
  });

  it('draws lines from x and y keys, or from an object of numbers', () => {
    const curve = viewData(
      { name: 'Survival', type: 'line', schema: { location: ['curve'], x: 'day', y: ['alive'] } },
      one({
        curve: [
          { day: 0, alive: 1 },
          { day: 10, alive: 0.8 },
          { day: 'bad', alive: 0.5 },
        ],
      }),
    );
    expect(curve).toEqual({
      kind: 'line',
      data: {
        x: 'day',
        series: [
          {
            name: 'alive',
            points: [
              { x: 0, y: 1 },
              { x: 10, y: 0.8 },
            ],
          },
        ],
      },
    });
    expect(viewData({ name: 'L', type: 'line' }, one({ 1: 2, 2: 4 }))).toMatchObject({
      kind: 'line',
      data: {
        series: [
          {
            points: [
              { x: 1, y: 2 },
              { x: 2, y: 4 },
            ],
          },
        ],
      },
    });
  });

  it('counts bins from an object of counts or a list of rows', () => {
    expect(viewData({ name: 'H', type: 'histogram' }, one({ '0-10': 3, '10-20': 5 }))).toEqual({
      kind: 'histogram',
      data: {
        bars: [
          { label: '0-10', value: 3 },
          { label: '10-20', value: 5 },
        ],
      },
    });
    const rows = viewData(
      { name: 'H', type: 'histogram', schema: { keys: ['bin', 'count'] } },
      one([{ bin: 'low', count: 2 }]),
    );
    expect(rows).toEqual({ kind: 'histogram', data: { bars: [{ label: 'low', value: 2 }] } });
  });

  it('says why when a result does not fit its view', () => {
    expect(viewData({ name: 'T', type: 'table', schema: { location: ['rows'] } }, one({ other: 1 }))).toEqual(
      {
        kind: 'none',
        reason: 'no rows at "rows"',
      },
    );
    expect(viewData({ name: 'L', type: 'line' }, one('text'))).toEqual({
      kind: 'none',
      reason: 'no numbers to draw at the top of the result',
    });
    expect(viewData({ name: 'T', type: 'table' }, [])).toEqual({
      kind: 'none',
      reason: 'no readable result yet',
    });
  });
});
