import type { Kysely } from 'kysely';

/**
 * `task.databases`: the databases a task asks for as a JSON list of `{label, type, parameters}` (the vantage6 4.x
 * task field; docs/api.md#tasks). Null for a task that named only the single label `database`, as every task made
 * before this migration did.
 */
export const taskDatabases = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('task').addColumn('databases', 'text').execute();
  },
};
