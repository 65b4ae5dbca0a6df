import type { Kysely } from 'kysely';

/**
 * Records from which task on an organization is a member of a collaboration: `member.since_task_id` is the highest
 * task id when it joined. The results of a task are visible only to organizations that were members when it was
 * posted (`task.id > since_task_id`; docs/security.md). Memberships made before this migration keep seeing every
 * task of their collaboration (0): when they began is not known.
 */
export const memberSince = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('member')
      .addColumn('since_task_id', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
