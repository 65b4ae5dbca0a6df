import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../schema.js';
import { RenewablePool } from '../renewable-pool.js';
import type { Dialect } from './dialect.js';

/**
 * PostgreSQL through a pool of `pg` connections that `/health/fix` can replace (renewable-pool.ts). Several
 * server instances may share the database; its change clock is the transaction snapshot (change-clock.ts).
 */
export const postgresDialect: Dialect = {
  open(location, options) {
    const pool = new RenewablePool(
      {
        connectionString: location,
        max: 10,
        connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
        query_timeout: options.queryTimeoutMs ?? 30_000,
        keepAlive: true,
      },
      options.log,
      options.preparedStatements ?? true,
    );
    return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool };
  },
};
