import { sql } from 'kysely';
import type { DialectSql } from './dialect-sql.js';

/** SQLite runs one write transaction at a time: the writes it holds are already in order, so nothing locks. */
export const sqliteSql: DialectSql = {
  // Read inside the task's write transaction, which is the only one writing.
  newRunId: () => sql<number>`(select coalesce(max(run_id), 0) + 1 from task)`,
  highestResultIdGiven: () =>
    sql<{ id: string | number | null }>`SELECT seq AS id FROM sqlite_sequence WHERE name = 'result'`,
  lockForUpdate: (query) => query,
  serialize: async () => undefined,
};
