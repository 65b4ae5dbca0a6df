import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { nowStored } from '../../http/datetime.js';
import type { DialectName } from '../../db/uri.js';
import { nextRunId } from './rows.js';

/** Data access for creating a task: what the checks of `POST /task` read, and the task with its runs. */

/** The nodes of these organizations in a collaboration, oldest first (an organization may show up twice). */
export async function nodesOfOrganizationsIn(
  db: Kysely<Database>,
  collaborationId: number,
  organizationIds: readonly number[],
): Promise<{ id: number; organization_id: number }[]> {
  return db
    .selectFrom('node')
    .select(['id', 'organization_id'])
    .where('collaboration_id', '=', collaborationId)
    .where('organization_id', 'in', organizationIds)
    .orderBy('id')
    .execute();
}

/** The task policy entries (`allowed_users`, `allowed_orgs`) of these nodes. */
export async function taskPolicyEntries(
  db: Kysely<Database>,
  nodeIds: readonly number[],
): Promise<{ node_id: number; key: string; value: string }[]> {
  return db
    .selectFrom('node_config')
    .select(['node_id', 'key', 'value'])
    .where('node_id', 'in', nodeIds)
    .where('key', 'in', ['allowed_users', 'allowed_orgs'])
    .execute();
}

/** What a new task holds; `run_id` null starts a new run. */
export interface NewTask {
  name: string;
  description: string;
  image: string;
  database: string | null;
  collaboration_id: number;
  run_id: number | null;
  parent_id: number | null;
  initiator_id: number;
  init_user_id: number | null;
  /** 0/1 (docs/run-statuses.md#cancel-on-failure). */
  cancel_on_failure?: number;
}

/** One run of a new task: the receiving organization and its input. */
export interface NewRun {
  organization_id: number;
  input: string;
}

/** A sub-task refused in its transaction: every run of its parent has finished (a kill, meanwhile). */
export class ParentComplete extends Error {
  constructor(readonly parentId: number) {
    super(`task ${parentId} is complete`);
    this.name = 'ParentComplete';
  }
}

/**
 * A sub-task is stored only while its parent has an open run, checked in the sub-task's own transaction. On
 * PostgreSQL the run found stays locked until the sub-task is committed, so a kill that marks the parent's runs
 * (repositories/task/kill.ts) either comes first, and the sub-task is refused, or waits, and its next look at the
 * tree finds the sub-task. SQLite runs one write transaction at a time, which gives the same order.
 * @throws ParentComplete
 */
async function holdOpenParent(trx: Kysely<Database>, dialect: DialectName, parentId: number): Promise<void> {
  let open = trx
    .selectFrom('result')
    .select('id')
    .where('task_id', '=', parentId)
    .where('finished_at', 'is', null)
    .limit(1);
  if (dialect === 'postgres') open = open.forUpdate();
  if ((await open.executeTakeFirst()) === undefined) throw new ParentComplete(parentId);
}

/**
 * Writes a task and one pending run per receiving organization in one transaction; returns the task's id.
 * `created` is called between the two (the server announces the task before its runs exist).
 */
export async function insertTaskWithRuns(
  db: Kysely<Database>,
  dialect: DialectName,
  values: NewTask,
  runs: readonly NewRun[],
  created: (task: { id: number; run_id: number }) => void,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    if (values.parent_id !== null) await holdOpenParent(trx, dialect, values.parent_id);
    const runId = values.run_id ?? (await nextRunId(trx, dialect));
    const task = await trx
      .insertInto('task')
      .values({ ...values, run_id: runId, created_at: nowStored() })
      .returning('id')
      .executeTakeFirstOrThrow();
    created({ id: task.id, run_id: runId });
    const assignedAt = nowStored();
    await trx
      .insertInto('result')
      .values(
        runs.map((r) => ({
          task_id: task.id,
          organization_id: r.organization_id,
          input: r.input,
          assigned_at: assignedAt,
          status: 'pending',
        })),
      )
      .execute();
    return task.id;
  });
}

/** The status of the node of each receiving organization of a task (organizations without a node are left out). */
export async function receiverNodeStatuses(
  db: Kysely<Database>,
  taskId: number,
): Promise<{ organization_id: number; status: string | null }[]> {
  // A left join: SQLite then reads the task's runs first and looks up each run's node, the plan of a few rows.
  // Joined inner, with no statistics to go by, SQLite may start from every node of the collaboration instead and
  // read each one's runs of every task (600 µs against 9 at 200 nodes; docs/performance.md, seventh session).
  const rows = await db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .leftJoin('node', (join) =>
      join
        .onRef('node.organization_id', '=', 'result.organization_id')
        .onRef('node.collaboration_id', '=', 'task.collaboration_id'),
    )
    .select(['result.organization_id as organization_id', 'node.id as node_id', 'node.status as status'])
    .where('result.task_id', '=', taskId)
    .execute();
  return rows.flatMap((r) =>
    r.node_id === null ? [] : [{ organization_id: r.organization_id, status: r.status }],
  );
}
