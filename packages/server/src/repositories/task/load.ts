import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { idList } from '../../db/id-list.js';
import { rowsQuery, type IdSource } from '../listing.js';

/** The batch loaders behind the task and run serializers: a page of ids in, their rows out (in any order). */

/**
 * The runs of the task row `t` summed up per status, as one text value (null without runs): for each status its
 * name (empty for none), how many runs, how many finished, the last finish (empty for none) and the runs' ids,
 * fields separated by `|` and statuses by `;`; {@link parseRunGroups} reads it. One value per task instead of one
 * row per status (or per run) lets the task's row, its children and its runs come in one query; the grouping reads
 * the summary index `result (task_id, status, finished_at)`. Statuses come from a fixed set and times are ISO text,
 * so neither holds a separator.
 */
const runGroups = sql<
  string | null
>`(select string_agg(g.status || '|' || g.runs || '|' || g.finished || '|' || coalesce(g.last_finished_at, '') || '|' || g.ids, ';') from (select coalesce(r.status, '') as status, count(*) as runs, count(r.finished_at) as finished, max(r.finished_at) as last_finished_at, ${idList(sql.ref('r.id'))} as ids from result as r where r.task_id = t.id group by r.status) as g)`;

/**
 * The same groups without counts or ids, for the task embedded in a run (`include=task`), which lists no runs:
 * `runs` is 1 and `finished` is 1 when every run of the status finished, 0 when one is open, which is all its
 * `complete`, `status` and `finished_at` need. Found by probing the summary index instead of reading it: the statuses
 * present one after the other (each the first one above the last), then for each whether a run is open and its last
 * finish, a few index lookups per status whatever the number of runs. Whether a run is open is a subquery with a
 * limit, not `exists`: PostgreSQL may run an `exists` once for all statuses, reading every open run of the task. Reading the runs themselves would
 * make a node fetching its run of a 1,000-organization task read all 1,000 of them.
 */
const runGroupsByProbes = sql<
  string | null
>`(select string_agg(coalesce(g.status, '') || '|1|' || g.done || '|' || coalesce(g.last_finished_at, '') || '|', ';') from (
  select s.status,
    coalesce((select 0 from result as r where r.task_id = t.id and r.status = s.status and r.finished_at is null limit 1), 1) as done,
    (select max(r.finished_at) from result as r where r.task_id = t.id and r.status = s.status) as last_finished_at
  from (
    with recursive present(status) as (
      select (select min(r.status) from result as r where r.task_id = t.id)
      union all
      select (select min(r.status) from result as r where r.task_id = t.id and r.status > present.status)
      from present where present.status is not null
    )
    select status from present where status is not null
  ) as s
  union all
  select null,
    coalesce((select 0 from result as r where r.task_id = t.id and r.status is null and r.finished_at is null limit 1), 1),
    (select max(r.finished_at) from result as r where r.task_id = t.id and r.status is null)
  where exists (select 1 from result as r where r.task_id = t.id and r.status is null)
) as g)`;

/** Task rows with the ids of their children (as an id list) and their runs per status (`run_groups`). */
const taskRows = (db: Kysely<Database>, ids: IdSource, withRunIds: boolean) =>
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
    .select((withRunIds ? runGroups : runGroupsByProbes).as('run_groups'))
    .where('t.id', 'in', ids);

/** Task rows with their children's ids and their runs per status with the runs' ids, in one query. */
export const tasksWithRuns = rowsQuery((db, ids) => taskRows(db, ids, true));

/**
 * The same with the runs summed up without their ids or counts, for the task embedded in a run (`include=task`),
 * which lists none: nothing in it grows with the number of runs.
 */
export const tasksWithRunSummary = rowsQuery((db, ids) => taskRows(db, ids, false));

/** One status of a task's runs, from {@link runGroups}. */
export interface RunGroup {
  status: string | null;
  runs: number;
  finished: number;
  lastFinishedAt: string | null;
  /** The runs' ids as an id list (db/id-list.ts); empty without them. */
  ids: string;
}

/** The groups of a `run_groups` value. */
export function parseRunGroups(text: string | null): RunGroup[] {
  if (!text) return [];
  return text.split(';').map((group) => {
    const [status = '', runs, finished, last = '', ids = ''] = group.split('|');
    return {
      status: status === '' ? null : status,
      runs: Number(runs),
      finished: Number(finished),
      lastFinishedAt: last === '' ? null : last,
      ids,
    };
  });
}

/**
 * Result rows by id with the collaboration of their task, the node that runs them (the node of the result's
 * organization in that collaboration; null columns when there is none) and whether they have ports, in one query.
 */
export const resultRowsWithNode = rowsQuery((db, ids) =>
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
