import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { columnNames, csvHeader } from './columns.js';
import type { DatabaseConfig } from './config/node-config.js';

// The node tells the server the column names of its CSV databases: the header line, never a value.

const dir = mkdtempSync(join(tmpdir(), 'federa-columns-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const db = (
  label: string,
  uri: string,
  type: DatabaseConfig['type'] = 'csv',
  isFile = true,
): DatabaseConfig => ({
  label,
  uri,
  type,
  isFile,
});

describe('column names', () => {
  it('reads a header with quotes, commas and line breaks inside quotes', () => {
    expect(csvHeader('id,age, sex ')).toEqual(['id', 'age', 'sex']);
    expect(csvHeader('"a,b","say ""hi""",c')).toEqual(['a,b', 'say "hi"', 'c']);
    expect(csvHeader('"open')).toBeUndefined();
    expect(csvHeader('"a"b,c')).toBeUndefined();
  });

  it('sends the header of each CSV database, and nothing of its rows', async () => {
    const names = await columnNames([
      db('default', file('a.csv', '\ufeffid,age,"weight, kg"\r\n1,31,80\r\n2,45,72\r\n')),
      db('multi', file('b.csv', '"line\nbreak",x\n7,8\n')),
      db('untyped', file('c.csv', 'q\n5\n'), undefined),
      db('sql', 'postgresql://db/x', 'sql', false),
      db('parquet', file('d.parquet', 'PAR1'), 'parquet'),
      db('gone', join(dir, 'missing.csv')),
    ]);
    expect(names).toEqual({
      'columns.default': ['id', 'age', 'weight, kg'],
      'columns.multi': ['line\nbreak', 'x'],
      'columns.untyped': ['q'],
    });
    expect(JSON.stringify(names)).not.toMatch(/31|80|45/);
  });

  it('leaves out a header too long to be a header', async () => {
    const long = `${'x'.repeat(300 * 1024)},y\n1,2\n`;
    expect(await columnNames([db('huge', file('e.csv', long))])).toEqual({});
  });
});
