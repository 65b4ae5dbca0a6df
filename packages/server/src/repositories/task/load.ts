import type { Kysely } from 'kysely';
import type { Database, Result } from '../../db/schema.js';
import { idList } from '../../db/id-list.js';
import { prepared } from '../../db/prepared.js';

/** The batch loaders behind the task and run serializers: a page of ids in, their rows out (in any order). */

/** Task rows with the ids of their children (as an id list), in one query. */
export const tasksWithChildren = prepared((db, ids: readonly number[]) =>
  db
    .selectFrom('task as t')
    .selectAll('t')
    .select((eb) =>
      eb
        .selectFrom('task as c')
        .select((sub) => idList(sub.ref('c.id')).as('ids'))
        .whereRef('c.parent_id', '=', 't.id')
        .as('child_ids'),
    )
    .where('t.id', 'in', ids),
);

/**
 * The tasks' results summed up per task and status: their ids, how many there are, how many have finished and
 * the last finish. One row per status instead of one per result.
 */
export const resultsByTaskAndStatus = prepared((db, taskIds: readonly number[]) =>
  db
    .selectFrom('result')
    .select((eb) => [
      'task_id',
      'status',
      idList(eb.ref('id')).as('ids'),
      eb.fn.countAll().as('results'),
      eb.fn.count('finished_at').as('finished'),
      eb.fn.max('finished_at').as('last_finished_at'),
    ])
    .where('task_id', 'in', taskIds)
    .groupBy(['task_id', 'status']),
);

/**
 * The same summary without the result ids, for the task embedded in a run (`include=task`), which lists none: read
 * from the summary index alone, with nothing that grows per result but the index scan.
 */
export const resultSummaryByTaskAndStatus = prepared((db, taskIds: readonly number[]) =>
  db
    .selectFrom('result')
    .select((eb) => [
      'task_id',
      'status',
      eb.fn.countAll().as('results'),
      eb.fn.count('finished_at').as('finished'),
      eb.fn.max('finished_at').as('last_finished_at'),
    ])
    .where('task_id', 'in', taskIds)
    .groupBy(['task_id', 'status']),
);

/** Result rows by id with the collaboration of their task. */
export async function resultRows(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<(Result & { collaboration_id: number | null })[]> {
  return db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .selectAll('result')
    .select('task.collaboration_id')
    .where('result.id', 'in', ids)
    .execute();
}

/** The ports of these results, in the order they were opened. */
export async function portsOfResults(
  db: Kysely<Database>,
  resultIds: readonly number[],
): Promise<{ id: number; port: number; label: string | null; result_id: number }[]> {
  return db
    .selectFrom('port')
    .select(['id', 'port', 'label', 'result_id'])
    .where('result_id', 'in', resultIds)
    .orderBy('id')
    .execute();
}

/** The nodes of these organizations (in every collaboration). */
export async function nodesOfOrganizations(
  db: Kysely<Database>,
  organizationIds: readonly number[],
): Promise<
  {
    id: number;
    name: string | null;
    ip: string | null;
    status: string | null;
    organization_id: number;
    collaboration_id: number | null;
  }[]
> {
  return db
    .selectFrom('node')
    .select(['id', 'name', 'ip', 'status', 'organization_id', 'collaboration_id'])
    .where('organization_id', 'in', organizationIds)
    .execute();
}
