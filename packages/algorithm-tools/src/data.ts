/** Loading the data source an algorithm was given (docs/container-environment.md#environment-variables). */
import { readFileSync } from 'node:fs';

export type Row = Record<string, string | number | null>;

/** The URI of the task's data source: `<LABEL>_DATABASE_URI` of USER_REQUESTED_DATABASE_LABEL, else DATABASE_URI. */
export function databaseUri(env: NodeJS.ProcessEnv = process.env, label?: string): string | undefined {
  const wanted = label ?? env.USER_REQUESTED_DATABASE_LABEL;
  if (wanted) {
    const uri = env[`${wanted.toUpperCase()}_DATABASE_URI`];
    if (uri) return uri;
  }
  return env.DATABASE_URI;
}

/** The type of a labelled database (`csv` when not given, as the 3.x wrappers assume). */
export const databaseType = (env: NodeJS.ProcessEnv = process.env, label?: string): string => {
  const wanted = label ?? env.USER_REQUESTED_DATABASE_LABEL;
  return (wanted && env[`${wanted.toUpperCase()}_DATABASE_TYPE`]) || 'csv';
};

/** Parses CSV text (RFC 4180 quoting) into rows keyed by the header; numeric cells become numbers, empty ones null. */
export function parseCsv(text: string): Row[] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      field = '';
      if (record.length > 1 || record[0] !== '') records.push(record);
      record = [];
    } else field += c;
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  const [header, ...rows] = records;
  if (!header) return [];
  return rows.map((r) => {
    const row: Row = {};
    header.forEach((name, i) => {
      const cell = (r[i] ?? '').trim();
      row[name.trim()] =
        cell === '' ? null : /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(cell) ? Number(cell) : cell;
    });
    return row;
  });
}

/** Reads the task's CSV data source. */
export function loadData(env: NodeJS.ProcessEnv = process.env): Row[] {
  const uri = databaseUri(env);
  if (!uri)
    throw new Error(
      'no data source: neither <LABEL>_DATABASE_URI of USER_REQUESTED_DATABASE_LABEL nor DATABASE_URI is set',
    );
  const type = databaseType(env);
  if (type !== 'csv')
    throw new Error(`the TypeScript tools load csv data sources only; this one is '${type}'`);
  return parseCsv(readFileSync(uri, 'utf8'));
}
