import { sql, type Kysely } from 'kysely';

/**
 * `result.held_bytes`: the bytes the result store holds for a run (its upload, named by a report or not yet), so
 * that the quotas of the store (`result_store.node_quota_mb`, `total_quota_mb`; docs/large-results.md) are summed
 * by the database rather than by listing the store. The partial index keeps the sum to the runs that hold
 * something.
 */
export const resultHeldBytes = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('result').addColumn('held_bytes', 'bigint').execute();
    await sql`update result set held_bytes = result_size where result_sha256 is not null`.execute(db);
    await db.schema
      .createIndex('result_held_bytes')
      .on('result')
      .columns(['held_bytes', 'organization_id', 'task_id'])
      .where(sql.ref('held_bytes'), 'is not', null)
      .execute();
  },
};
