import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DialectName } from '../../db/uri.js';
import { dialectSql } from '../../db/dialects/sql.js';
import type { Database, TaskRow } from '../../db/schema.js';
import type { Caller } from '../../auth/caller.js';
import { callerCollaborations } from '../../auth/scope.js';

/** Data access for tasks: single rows, run ids, completion and who may see them. */

export async function findTask(db: Kysely<Database>, id: number): Promise<TaskRow | undefined> {
  return db.selectFrom('task').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The run id of a new top-level task as a value of its insert ({@link nextRunId}, in the same statement).
 */
export function newRunId(dialect: DialectName): RawBuilder<number> {
  return dialectSql(dialect).newRunId();
}

/**
 * The run id of a new top-level task, never one another task has. PostgreSQL: the next number of the sequence
 * `task_run_id`, whatever other transactions or instances do meanwhile (db/migrations/0013-run-sequence.ts).
 * SQLite: one more than the largest so far (1 for the first), read inside the task's write transaction, which is
 * the only one writing.
 */
export async function nextRunId(db: Kysely<Database>, dialect: DialectName): Promise<number> {
  const { rows } = await sql<{ n: string | number }>`select ${newRunId(dialect)} as n`.execute(db);
  return Number(rows[0]?.n);
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
 * The collaborations whose tasks a caller may see: `null` for all (`task.v_glo`), else those of the caller's
 * organization (a node or container: its own collaboration).
 */
export async function taskCollaborations(db: Kysely<Database>, caller: Caller): Promise<number[] | null> {
  if (caller.rules.has('task.v_glo')) return null;
  return callerCollaborations(db, caller);
}

/** The ids of a task's direct sub-tasks. */
export async function childTaskIds(db: Kysely<Database>, taskId: number): Promise<number[]> {
  const rows = await db.selectFrom('task').select('id').where('parent_id', '=', taskId).execute();
  return rows.map((t) => t.id);
}

/** Whether a task has any run at all. */
/** Whether the task has a run (result) for the organization `organizationId`. */
export async function hasRunOf(
  db: Kysely<Database>,
  taskId: number,
  organizationId: number,
): Promise<boolean> {
  const run = await db
    .selectFrom('result')
    .select('id')
    .where('task_id', '=', taskId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return run !== undefined;
}

export async function hasRuns(db: Kysely<Database>, taskId: number): Promise<boolean> {
  return (
    (await db.selectFrom('result').select('id').where('task_id', '=', taskId).executeTakeFirst()) !==
    undefined
  );
}
