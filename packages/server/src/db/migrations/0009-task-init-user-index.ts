import type { Kysely } from 'kysely';

/**
 * An index on `task.init_user_id`: a user's answer lists the tasks they created (`created_tasks`), and deleting a
 * user clears it on their tasks; without the index both read every task (docs/performance.md).
 */
export const taskInitUserIndex = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('task_init_user').on('task').column('init_user_id').execute();
  },
};
