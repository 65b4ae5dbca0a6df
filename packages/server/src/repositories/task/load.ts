import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
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

/**
 * Result rows by id with the collaboration of their task, the node that runs them (the node of the result's
 * organization in that collaboration; null columns when there is none) and whether they have ports, in one query.
 */
export const resultRowsWithNode = prepared((db, ids: readonly number[]) =>
  db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .leftJoin('node', (join) =>
      join
        .onRef('node.organization_id', '=', 'result.organization_id')
        .onRef('node.collaboration_id', '=', 'task.collaboration_id'),
    )
    .selectAll('result')
    .select([
      'task.collaboration_id',
      'node.id as node_id',
      'node.name as node_name',
      'node.ip as node_ip',
      'node.status as node_status',
    ])
    .select((eb) =>
      eb
        .exists(eb.selectFrom('port').select('port.id').whereRef('port.result_id', '=', 'result.id'))
        .as('has_ports'),
    )
    .where('result.id', 'in', ids),
);

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
