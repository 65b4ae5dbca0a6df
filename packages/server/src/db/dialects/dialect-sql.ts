import type { Kysely, RawBuilder } from 'kysely';
import type { Database } from '../schema.js';

/**
 * The statements the repositories write differently on each SQL backend. Each dialect gives its own in a file of
 * its own (`sqlite-sql.ts`, `postgres-sql.ts`); a repository asks {@link dialectSql} for them and never tests the
 * dialect's name.
 */
export interface DialectSql {
  /** The run id of a new top-level task, as a value of its insert: never one another task has. */
  newRunId(): RawBuilder<number>;
  /** The highest id the `result` table has ever given, deleted rows included (`id` null when none). */
  highestResultIdGiven(): RawBuilder<{ id: string | number | null }>;
  /**
   * `query` locking the rows it reads until its transaction ends, where write transactions run at the same time;
   * unchanged where one write transaction runs at a time.
   */
  lockForUpdate<Q extends { forUpdate(): Q }>(query: Q): Q;
  /**
   * Makes the transactions that call this with the same `name` run one after the other from here to their end,
   * where write transactions run at the same time; nothing where one runs at a time.
   */
  serialize(trx: Kysely<Database>, name: string): Promise<void>;
}
