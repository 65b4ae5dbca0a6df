import type { Kysely } from 'kysely';

/**
 * `task.api`: the contract a task was created under, `v4` for the vantage6 4.x surface (docs/vantage6-4.md); null
 * for the 3.x one, as for every task made before this migration. A node gives a `v4` task's algorithm the proxy
 * vantage6 4.x's algorithm tools expect.
 */
export const taskApi = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('task').addColumn('api', 'text').execute();
  },
};
