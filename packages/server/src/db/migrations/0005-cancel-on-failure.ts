import type { Kysely } from 'kysely';

/**
 * The task option `cancel_on_failure` (docs/run-statuses.md#cancel-on-failure): when one run of the task fails, its
 * runs still `pending` are cancelled. 0/1; tasks made before this migration do not have it (0).
 */
export const cancelOnFailure = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('task')
      .addColumn('cancel_on_failure', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
