import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ChangeClock } from '../change-clock.js';
import type { DatabaseOptions } from '../options.js';
import type { RenewablePool } from '../renewable-pool.js';

/** A database opened by a dialect: the Kysely instance and, for a server database, its connection pool. */
export interface OpenedDatabase {
  db: Kysely<Database>;
  /** The connection pool, which `/health/fix` can replace; null when there is none (SQLite). */
  pool: RenewablePool | null;
}

/**
 * One SQL backend the server runs on. Each dialect opens its database from the location of a
 * {@link DatabaseTarget} (uri.ts); the handle (handle.ts) works with any of them.
 */
export interface Dialect {
  /**
   * Opens the database at `location`. `clock` is the change clock the dialect moves when it can tell that the
   * database changed (SQLite); a dialect that cannot tell leaves it alone.
   */
  open(location: string, options: DatabaseOptions, clock: ChangeClock): OpenedDatabase;
}
