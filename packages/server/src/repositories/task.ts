import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database, Task } from '../db/schema.js';
import type { EventBus } from '../context.js';
import type { Caller } from '../auth/caller.js';
import { callerCollaborations } from '../auth/scope.js';
import { nowStored } from '../http/datetime.js';
import { OPEN_STATUSES, isFailedStatus } from '../serializers/task.js';

/**
 * Data access for tasks: run ids, completion, the kill procedure and deletion.
 */

/** The status the server gives results it kills (node-protocol.md §6.4). */
export const KILLED_STATUS = 'killed by user';

export const collaborationRoom = (collaborationId: number): string => `collaboration_${collaborationId}`;

export async function findTask(db: Kysely<Database>, id: number): Promise<Task | undefined> {
  return db.selectFrom('task').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The run id of a new top-level task: one more than the largest so far (1 for the first). */
export async function nextRunId(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('task')
    .select((eb) => eb.fn.max('run_id').as('m'))
    .executeTakeFirst();
  return Number(row?.m ?? 0) + 1;
}

/** A task is complete when every result has `finished_at` (also when it has no results), as its `complete` field. */
export async function isTaskComplete(db: Kysely<Database>, taskId: number): Promise<boolean> {
  const open = await db
    .selectFrom('result')
    .select('id')
    .where('task_id', '=', taskId)
    .where('finished_at', 'is', null)
    .executeTakeFirst();
  return open === undefined;
}

/**
 * A task has finished when every run has: finished, completed, or stopped with a failure status (so also a task
 * without runs). Only an unfinished task has anything to kill.
 */
export async function hasTaskFinished(db: Kysely<Database>, taskId: number): Promise<boolean> {
  const runs = await db
    .selectFrom('result')
    .select(['status', 'finished_at'])
    .where('task_id', '=', taskId)
    .execute();
  return runs.every((r) => r.finished_at !== null || r.status === 'completed' || isFailedStatus(r.status));
}

/**
 * The collaborations whose tasks a caller may see: `null` for all (`task.v_glo`), else those of the caller's
 * organization (a node or container: its own collaboration).
 */
export async function taskCollaborations(db: Kysely<Database>, caller: Caller): Promise<number[] | null> {
  if (caller.rules.has('task.v_glo')) return null;
  return callerCollaborations(db, caller);
}

/**
 * A condition on `task` that holds when the task's aggregate status (serializers/task.ts `taskStatus`) equals
 * `status`, written in SQL so the status filter works with pagination.
 */
export function taskStatusIs(eb: ExpressionBuilder<Database, 'task'>, status: string) {
  const results = () =>
    eb.selectFrom('result').select('result.id').whereRef('result.task_id', '=', 'task.id');
  const open = [...OPEN_STATUSES];
  const any = results();
  const anyKnown = results().where('result.status', 'is not', null);
  const anyFailed = results()
    .where('result.status', 'is not', null)
    .where('result.status', 'not in', [...open, 'completed']);
  const anyOf = (s: string) => results().where('result.status', '=', s);
  const notFailed = eb.not(eb.exists(anyFailed));
  switch (status) {
    case 'unknown':
      return eb.and([eb.exists(any), eb.not(eb.exists(anyKnown))]);
    case 'failed':
      return eb.exists(anyFailed);
    case 'active':
      return eb.and([notFailed, eb.exists(anyOf('active'))]);
    case 'initializing':
      return eb.and([notFailed, eb.not(eb.exists(anyOf('active'))), eb.exists(anyOf('initializing'))]);
    case 'pending':
      return eb.and([
        notFailed,
        ...['active', 'initializing'].map((s) => eb.not(eb.exists(anyOf(s)))),
        eb.exists(anyOf('pending')),
      ]);
    case 'completed':
      return eb.and([
        notFailed,
        ...open.map((s) => eb.not(eb.exists(anyOf(s)))),
        eb.or([eb.not(eb.exists(any)), eb.exists(anyKnown)]),
      ]);
    default:
      // No task has another status; ids are positive, so this matches nothing on every dialect.
      return eb('task.id', '<', 0);
  }
}

export interface KillEntry {
  task_id: number;
  result_id: number;
  organization_id: number;
}

/**
 * The kill procedure (api.md §4.13, node-protocol.md §7): emits `kill_containers` with one entry per result of
 * the task and of its direct sub-tasks (each with its own task id), then marks the results still open as
 * `killed by user`, finished now. Finished results keep their status and output: they are immutable.
 */
export async function killTask(
  db: Kysely<Database>,
  events: EventBus,
  task: Pick<Task, 'id' | 'collaboration_id'>,
): Promise<KillEntry[]> {
  const rows = await db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .select(['result.id', 'result.task_id', 'result.organization_id'])
    .where((eb) => eb.or([eb('task.id', '=', task.id), eb('task.parent_id', '=', task.id)]))
    .orderBy('result.id')
    .execute();
  const killList = rows.map((r) => ({
    task_id: r.task_id,
    result_id: r.id,
    organization_id: r.organization_id,
  }));
  if (task.collaboration_id !== null) {
    events.emit(collaborationRoom(task.collaboration_id), 'kill_containers', {
      kill_list: killList,
      collaboration_id: task.collaboration_id,
    });
  }
  if (rows.length > 0) {
    await db
      .updateTable('result')
      .set({ status: KILLED_STATUS, finished_at: nowStored() })
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .where('finished_at', 'is', null)
      .execute();
  }
  return killList;
}

/**
 * Deletes a task with its results and their ports. Sub-tasks are kept (as vantage6); their `parent` is
 * cleared so no reference points at a deleted task.
 */
export async function deleteTask(db: Kysely<Database>, taskId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('port')
      .where('result_id', 'in', (eb) =>
        eb.selectFrom('result').select('result.id').where('result.task_id', '=', taskId),
      )
      .execute();
    await trx.deleteFrom('result').where('task_id', '=', taskId).execute();
    await trx.updateTable('task').set({ parent_id: null }).where('parent_id', '=', taskId).execute();
    await trx.deleteFrom('task').where('id', '=', taskId).execute();
  });
}
