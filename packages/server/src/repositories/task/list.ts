import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { preparedListing, type CountQuery, type IdQuery, type PreparedListing } from '../listing.js';
import { taskStatusIs } from './status-filter.js';

/** The filters of `GET /task`; text fields are SQL LIKE patterns. */
export interface TaskFilter {
  initiator_id?: number | undefined;
  init_user_id?: number | undefined;
  collaboration_id?: number | undefined;
  parent_id?: number | undefined;
  run_id?: number | undefined;
  study_id?: number | undefined;
  result_id?: number | undefined;
  name?: string | undefined;
  image?: string | undefined;
  description?: string | undefined;
  database?: string | undefined;
  status?: string | undefined;
  /** 1 (or any other number): the tasks users made, which have no parent; 0: the sub-tasks algorithms made. */
  is_user_created?: number | undefined;
  /** The tasks running an algorithm of this store: 0 the store inside this server, else a linked store's id. */
  store_id?: number | undefined;
}

/** The statuses whose filter has its own form (status-filter.ts); any other matches nothing. */
const STATUS_FORMS = new Set(['unknown', 'failed', 'active', 'initializing', 'pending', 'completed']);

type TaskListArgs = Omit<TaskFilter, 'is_user_created' | 'store_id'> & {
  /** `store_id` as the form it gives: the store inside this server (`inside`), or a linked one (`linked`). */
  store?: 'inside' | 'linked' | undefined;
  algorithm_store_id?: number | undefined;
  scope?: number[] | undefined;
  /** `is_user_created` as the form of the query it gives: `top` (no parent) or `sub` (a parent). */
  made_by?: 'top' | 'sub' | undefined;
};

const taskListing = preparedListing(
  (db, f: TaskListArgs) => {
    let ids = db.selectFrom('task').select('task.id').orderBy('task.id', 'desc');
    if (f.scope !== undefined) ids = ids.where('task.collaboration_id', 'in', f.scope);
    for (const key of [
      'initiator_id',
      'init_user_id',
      'collaboration_id',
      'parent_id',
      'run_id',
      'study_id',
    ] as const) {
      const value = f[key];
      if (value !== undefined) ids = ids.where(`task.${key}`, '=', value);
    }
    for (const key of ['name', 'image', 'description', 'database'] as const) {
      const value = f[key];
      if (value !== undefined) ids = ids.where(`task.${key}`, 'like', value);
    }
    const resultId = f.result_id;
    if (resultId !== undefined) {
      ids = ids.where('task.id', 'in', (eb) =>
        eb.selectFrom('result').select('result.task_id').where('result.id', '=', resultId),
      );
    }
    const status = f.status;
    if (status !== undefined) ids = ids.where((eb) => taskStatusIs(eb, status));
    if (f.made_by !== undefined)
      ids = ids.where('task.parent_id', f.made_by === 'top' ? 'is' : 'is not', null);
    if (f.store === 'inside')
      ids = ids.where('task.store_algorithm_id', 'is not', null).where('task.algorithm_store_id', 'is', null);
    const linked = f.algorithm_store_id;
    if (f.store === 'linked' && linked !== undefined) ids = ids.where('task.algorithm_store_id', '=', linked);
    return ids;
  },
  // The forms of the status, made-by and store filters depend on their values; every other value is only a value.
  ['status', 'made_by', 'store'],
  countedByCollaboration,
);

/**
 * The count of a listing filtered by collaboration only (the caller's collaborations, one collaboration, or none:
 * every task) from the counts the database keeps per collaboration (migrations/0012-task-count.ts), instead of
 * counting the tasks; undefined for a listing with any other filter.
 */
function countedByCollaboration(db: Kysely<Database>, f: TaskListArgs): CountQuery | undefined {
  const others = (Object.keys(f) as (keyof TaskListArgs)[]).some(
    (k) => f[k] !== undefined && k !== 'scope' && k !== 'collaboration_id',
  );
  if (others) return undefined;
  const { scope, collaboration_id: collaborationId } = f;
  let kept = db.selectFrom('task_count');
  if (scope !== undefined) kept = kept.where('task_count.collaboration_id', 'in', scope);
  if (collaborationId !== undefined) kept = kept.where('task_count.collaboration_id', '=', collaborationId);
  if (scope !== undefined || collaborationId !== undefined)
    return kept.select(sql<number | string>`coalesce(sum(task_count.n), 0)`.as('n'));
  // Every task: those of a deleted collaboration have none and are counted apart (few, and indexed).
  return kept.select(
    sql<
      number | string
    >`coalesce(sum(task_count.n), 0) + (select count(*) from task where collaboration_id is null)`.as('n'),
  );
}

/** The ids of the tasks matching `filter` in the collaborations `scope` (all when null), newest first. */
export function taskIds(db: Kysely<Database>, scope: number[] | null, filter: TaskFilter): PreparedListing {
  const f = filter;
  return taskListing(db, {
    // The ids are positive: -1 stands for "no collaboration", so an empty scope matches nothing.
    scope: scope === null ? undefined : scope.length ? scope : [-1],
    initiator_id: f.initiator_id,
    init_user_id: f.init_user_id,
    collaboration_id: f.collaboration_id,
    parent_id: f.parent_id,
    run_id: f.run_id,
    study_id: f.study_id,
    result_id: f.result_id,
    name: f.name,
    image: f.image,
    description: f.description,
    database: f.database,
    // Any status but those with a form matches nothing: one form for all of them.
    status: f.status === undefined || STATUS_FORMS.has(f.status) ? f.status : 'none',
    made_by: f.is_user_created === undefined ? undefined : f.is_user_created === 0 ? 'sub' : 'top',
    store: f.store_id === undefined ? undefined : f.store_id === 0 ? 'inside' : 'linked',
    algorithm_store_id: f.store_id === undefined || f.store_id === 0 ? undefined : f.store_id,
  });
}

/** The ids of a task's runs, ascending. */
export function runIdsOfTask(db: Kysely<Database>, taskId: number): IdQuery {
  return db
    .selectFrom('result')
    .select('result.id')
    .where('result.task_id', '=', taskId)
    .orderBy('result.id');
}

/** The ids of a collaboration's tasks (none for null), only those with an open run when `openOnly`. */
export function collaborationTaskIds(
  db: Kysely<Database>,
  collaborationId: number | null,
  order: 'asc' | 'desc',
  openOnly: boolean,
): IdQuery {
  let ids = db.selectFrom('task').select('task.id as id').orderBy('task.id', order);
  // A node without a collaboration has no tasks.
  ids =
    collaborationId === null
      ? ids.where(sql<boolean>`1 = 0`)
      : ids.where('task.collaboration_id', '=', collaborationId);
  if (openOnly) {
    ids = ids.where('task.id', 'in', (eb) =>
      eb.selectFrom('result').select('result.task_id').where('result.finished_at', 'is', null),
    );
  }
  return ids;
}
