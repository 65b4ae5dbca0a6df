import { sql } from 'kysely';
import type { DialectSql } from './dialect-sql.js';

/** PostgreSQL runs write transactions side by side (and several instances share it): orders come from locks. */
export const postgresSql: DialectSql = {
  // The sequence of db/migrations/0013-run-sequence.ts, whatever other transactions or instances do meanwhile.
  newRunId: () => sql<number>`nextval('task_run_id')`,
  highestResultIdGiven: () =>
    sql<{
      id: string | number | null;
    }>`SELECT pg_sequence_last_value(pg_get_serial_sequence('result', 'id')::regclass) AS id`,
  lockForUpdate: (query) => query.forUpdate(),
  serialize: async (trx, name) => {
    await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(trx);
  },
};
