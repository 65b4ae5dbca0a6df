import type { Kysely } from 'kysely';

/**
 * The two lookups of a node's fetch (docs/node-protocol.md: `GET /result?state=open&include=task&node_id=…`, with
 * or without `&task_id=…`) read one organization's runs, not every run of a task or every run the organization
 * ever had (bench/fan-out: a node fetching its run of a 1,000-organization task):
 * - `result_task_organization`: the run of a task for one organization. Before, the run was found through the
 *   summary index `result_task_status_finished` (0002), which reads every run of the task: each of the 1,000 nodes
 *   fetching its run of a 1,000-organization task read 1,000 entries.
 * - `result_organization_finished`: an organization's open runs, which a node asks for on every start and
 *   reconnect. It replaces `result_org` (0001), its first column alone, which still serves the organization's
 *   `results` and the deletion of an organization.
 * Not unique: a database imported from vantage6 may hold two runs of one task for one organization.
 */
export const runLookupIndexes = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createIndex('result_task_organization')
      .on('result')
      .columns(['task_id', 'organization_id'])
      .execute();
    await db.schema
      .createIndex('result_organization_finished')
      .on('result')
      .columns(['organization_id', 'finished_at'])
      .execute();
    await db.schema.dropIndex('result_org').execute();
  },
};
