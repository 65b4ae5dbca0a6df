import type { DialectName } from '../uri.js';
import type { DialectSql } from './dialect-sql.js';
import { postgresSql } from './postgres-sql.js';
import { sqliteSql } from './sqlite-sql.js';

export type { DialectSql } from './dialect-sql.js';

const byName: Record<DialectName, DialectSql> = { sqlite: sqliteSql, postgres: postgresSql };

/** The statements the repositories write differently on the dialect `name`. */
export const dialectSql = (name: DialectName): DialectSql => byName[name];
