import type { Kysely } from 'kysely';

/**
 * Indexes for lookups every listing makes (docs/performance.md):
 * - `task.init_user_id`: a user's answer lists the tasks they created (`created_tasks`), and deleting a user clears
 *   it on their tasks; without the index both read every task;
 * - `node (organization_id, collaboration_id)`: a run's answer shows the node of its organization in its task's
 *   collaboration; without the index each run read every node.
 */
export const lookupIndexes = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('task_init_user').on('task').column('init_user_id').execute();
    await db.schema
      .createIndex('node_organization_collaboration')
      .on('node')
      .columns(['organization_id', 'collaboration_id'])
      .execute();
  },
};
