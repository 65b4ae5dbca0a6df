import type { DialectName } from '../uri.js';
import type { Dialect } from './dialect.js';
import { postgresDialect } from './postgres.js';
import { sqliteDialect } from './sqlite.js';

export type { Dialect, OpenedDatabase } from './dialect.js';

const dialects: Record<DialectName, Dialect> = { sqlite: sqliteDialect, postgres: postgresDialect };

/** The dialect that opens databases of this kind. */
export const dialectFor = (name: DialectName): Dialect => dialects[name];
