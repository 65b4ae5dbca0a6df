import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import SQLite from 'better-sqlite3';
import type { Database } from '../schema.js';
import { withStatementCache } from '../statement-cache.js';
import type { Dialect } from './dialect.js';

/**
 * SQLite through better-sqlite3: a file (its folder made when missing) or `:memory:`, in WAL mode with foreign
 * keys on; compiled statements are kept (statement-cache.ts) and writes move the change clock.
 */
export const sqliteDialect: Dialect = {
  open(location, _options, clock) {
    if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
    const database = new SQLite(location);
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    database.pragma('synchronous = NORMAL');
    return {
      db: new Kysely<Database>({
        dialect: new SqliteDialect({ database: withStatementCache(database, clock) }),
      }),
      pool: null,
    };
  },
};
