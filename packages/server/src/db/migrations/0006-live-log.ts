import type { Kysely } from 'kysely';

/**
 * Live logs (docs/run-logs.md): `result.log_received` counts the characters of log a node has streamed for a run
 * while it is active. A batch is appended only at that offset, so a batch sent again (its answer lost) is never
 * appended twice.
 */
export const liveLog = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('result')
      .addColumn('log_received', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
