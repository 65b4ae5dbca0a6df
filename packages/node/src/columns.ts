/**
 * The column names of a node's tabular file databases (docs/store.md#node-administrators), for the task form's
 * column pickers: the header line of each CSV file, and nothing after it, so that no value of the data is ever
 * read for this. Sent to the server in `node_info_update` under `columns.<label>`, unless the node's policy
 * `share_column_names: false` refuses. Other databases (SQL, Parquet, Excel) are left out: their names cannot be
 * had without opening them as data.
 */
import { open } from 'node:fs/promises';

import type { DatabaseConfig } from './config/node-config.js';

/** What the server keeps of one node's `node_info_update` (packages/server/src/socket/node-info.ts). */
const MAX_NAMES = 500;
const MAX_NAME_LENGTH = 1000;
/** A header longer than this is not read: no table of a node needs it, and it bounds what is read. */
const MAX_HEADER_BYTES = 256 * 1024;
/** The server keeps keys up to 64 characters. */
const MAX_KEY_LENGTH = 64;

export const columnsKey = (label: string): string => `columns.${label}`;

/** The fields of a CSV header line (RFC 4180 quoting), or undefined when it is not one. */
export function csvHeader(line: string): string[] | undefined {
  const names: string[] = [];
  let i = 0;
  for (;;) {
    let name = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) return undefined;
        name += line.slice(i, q);
        i = q + 1;
        if (line[i] !== '"') break;
        name += '"';
        i++;
      }
      if (i < line.length && line[i] !== ',') return undefined;
    } else {
      const comma = line.indexOf(',', i);
      name = line.slice(i, comma < 0 ? line.length : comma);
      i = comma < 0 ? line.length : comma;
    }
    names.push(name.trim());
    if (i >= line.length) return names;
    i++; // the comma
  }
}

/** The header of a CSV file: its first line only (a quoted name may hold a line break). */
async function headerOf(path: string): Promise<string[] | undefined> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(MAX_HEADER_BYTES);
    const { bytesRead } = await file.read(buffer, 0, MAX_HEADER_BYTES, 0);
    let text = buffer.subarray(0, bytesRead).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    // The end of the first line outside quotes.
    let quoted = false;
    let end = -1;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '"') quoted = !quoted;
      else if (!quoted && (c === '\n' || c === '\r')) {
        end = i;
        break;
      }
    }
    if (end < 0 && bytesRead === MAX_HEADER_BYTES) return undefined;
    return csvHeader(end < 0 ? text : text.slice(0, end));
  } finally {
    await file.close();
  }
}

/** `columns.<label>` → names, for each CSV file database whose header can be read. */
export async function columnNames(databases: readonly DatabaseConfig[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const d of databases) {
    const csv = d.type === 'csv' || (d.type === undefined && /\.csv$/i.test(d.uri));
    if (!d.isFile || !csv || columnsKey(d.label).length > MAX_KEY_LENGTH) continue;
    const names = await headerOf(d.uri).catch(() => undefined);
    if (!names || names.length > MAX_NAMES || names.some((n) => n.length > MAX_NAME_LENGTH)) continue;
    out[columnsKey(d.label)] = names;
  }
  return out;
}
