import { describe, expect, it } from 'vitest';

import { chartSeries, numericFields, tableColumns, toCsv } from './results.js';

describe('results as tables, charts and CSV', () => {
  const partials = [
    { label: 'Hospital A', value: { sum: 121, count: 3 } },
    { label: 'Hospital B', value: { sum: 125, count: 4 } },
  ];

  it('numeric fields one level deep; a bare number is "value"; text is left out', () => {
    expect(numericFields({ average: 35.1, n: { rows: 7 }, note: 'x', list: [1, 2] })).toEqual({
      average: 35.1,
      'n.rows': 7,
      'list[0]': 1,
      'list[1]': 2,
    });
    expect(numericFields(42)).toEqual({ value: 42 });
    expect(numericFields('text')).toEqual({});
  });

  it('several results: one chart per field across the organizations', () => {
    expect(tableColumns(partials)).toEqual(['sum', 'count']);
    expect(chartSeries(partials)).toEqual([
      {
        title: 'sum',
        data: [
          { label: 'Hospital A', value: 121 },
          { label: 'Hospital B', value: 125 },
        ],
      },
      {
        title: 'count',
        data: [
          { label: 'Hospital A', value: 3 },
          { label: 'Hospital B', value: 4 },
        ],
      },
    ]);
  });

  it('one result: a chart per list of numbers, none of distinct fields (no shared scale); nothing numeric: no chart', () => {
    expect(chartSeries([{ label: 'root', value: { average: 35.14, count: 7, organizations: 2 } }])).toEqual(
      [],
    );
    expect(chartSeries([{ label: 'root', value: { bins: [3, 5, 2], total: 10 } }])).toEqual([
      {
        title: 'root: bins',
        data: [
          { label: '0', value: 3 },
          { label: '1', value: 5 },
          { label: '2', value: 2 },
        ],
      },
    ]);
    expect(chartSeries([{ label: 'root', value: [4, 9] }])).toEqual([
      {
        title: 'root',
        data: [
          { label: '0', value: 4 },
          { label: '1', value: 9 },
        ],
      },
    ]);
    expect(chartSeries([{ label: 'root', value: 'done' }])).toEqual([]);
  });

  it('CSV neutralises cells a spreadsheet would run as formulas, and keeps numbers numbers', () => {
    const csv = toCsv([
      { label: '=HYPERLINK("http://evil.example","x")', value: { sum: -3.5, n: 2 } },
      { label: '+1+cmd|calc', value: '@SUM(A1)' },
      { label: '-2+3', value: '\tx' },
      { label: '\r=1', value: { n: -4 } },
      { label: 'Hospital -1', value: { sum: 1e-3 } },
    ]);
    expect(csv.split('\n')).toEqual([
      'source,sum,n,value',
      `"'=HYPERLINK(""http://evil.example"",""x"")",-3.5,2,"{""sum"":-3.5,""n"":2}"`,
      "'+1+cmd|calc,,,'@SUM(A1)",
      "'-2+3,,,'\tx",
      `"'\r=1",,-4,"{""n"":-4}"`,
      'Hospital -1,0.001,,"{""sum"":0.001}"',
      '',
    ]);
  });

  it('CSV quotes what needs quoting and keeps the whole value', () => {
    const csv = toCsv([{ label: 'Org "A", Inc', value: { sum: 1.5, text: 'a,b' } }]);
    expect(csv).toBe('source,sum,value\n"Org ""A"", Inc",1.5,"{""sum"":1.5,""text"":""a,b""}"\n');
  });
});
