import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { nowStored } from '../../db/stored-time.js';
import { prepared } from '../../db/prepared.js';
import type { DialectName } from '../../db/uri.js';
import { dialectSql } from '../../db/dialects/sql.js';
import { newRunId } from './rows.js';

/** Data access for creating a task: what the checks of `POST /task` read, and the task with its runs. */

/** What `POST /task` checks of a collaboration for some organizations (see {@link taskAudience}). */
export interface TaskAudience {
  /** Those of the organizations that are members. */
  members: Set<number>;
  /**
   * The node in the collaboration of each member that has one: its id, name, status, whether it has a task policy,
   * and its organization's name (to name both in a warning).
   */
  nodes: Map<
    number,
    {
      id: number;
      name: string | null;
      status: string | null;
      hasPolicy: boolean;
      organizationName: string | null;
    }
  >;
}

const audienceRows = prepared((db, collaborationId: number, organizationIds: readonly number[]) =>
  db
    .selectFrom('collaboration as c')
    .leftJoin('member as m', (join) =>
      join.onRef('m.collaboration_id', '=', 'c.id').on('m.organization_id', 'in', organizationIds),
    )
    .leftJoin('node as n', (join) =>
      join.onRef('n.collaboration_id', '=', 'c.id').onRef('n.organization_id', '=', 'm.organization_id'),
    )
    .leftJoin('organization as o', 'o.id', 'm.organization_id')
    .select([
      'm.organization_id as member_id',
      'n.id as node_id',
      'n.name as node_name',
      'n.status as node_status',
      'o.name as organization_name',
    ])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('node_config')
            .select('node_config.id')
            .whereRef('node_config.node_id', '=', 'n.id')
            .where('node_config.key', 'in', ['allowed_users', 'allowed_orgs']),
        )
        .as('has_policy'),
    )
    .where('c.id', '=', collaborationId),
);

/**
 * Which of these organizations are members of a collaboration and their nodes in it, in one query; undefined when
 * the collaboration does not exist. A member has at most one node there (db/migrations/0014).
 */
export async function taskAudience(
  db: Kysely<Database>,
  collaborationId: number,
  organizationIds: readonly number[],
): Promise<TaskAudience | undefined> {
  const rows = await audienceRows(db, collaborationId, [...new Set(organizationIds)]);
  if (rows.length === 0) return undefined;
  const audience: TaskAudience = { members: new Set(), nodes: new Map() };
  for (const r of rows) {
    if (r.member_id === null) continue;
    audience.members.add(r.member_id);
    if (r.node_id !== null)
      audience.nodes.set(r.member_id, {
        id: r.node_id,
        name: r.node_name,
        status: r.node_status,
        organizationName: r.organization_name,
        hasPolicy: Boolean(r.has_policy),
      });
  }
  return audience;
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
  /** JSON list of `{label, type, parameters}`, or null (see migrations/0021-task-databases.ts). */
  databases: string | null;
  collaboration_id: number;
  run_id: number | null;
  parent_id: number | null;
  initiator_id: number;
  init_user_id: number | null;
  /** 0/1 (docs/run-statuses.md#cancel-on-failure). */
  cancel_on_failure?: number;
  /** The store algorithm it runs (docs/store.md). */
  store_algorithm_id?: number | null;
  algorithm_store_id?: number | null;
  /** `v4` for a task created on the vantage6 4.x surface. */
  api?: string | null;
  /** The study it is scoped to. */
  study_id?: number | null;
  /** W3C `traceparent` of the creating request (docs/observability.md#traces). */
  traceparent?: string | null;
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
  const open = dialectSql(dialect).lockForUpdate(
    trx
      .selectFrom('result')
      .select('id')
      .where('task_id', '=', parentId)
      .where('finished_at', 'is', null)
      .limit(1),
  );
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
    const task = await trx
      .insertInto('task')
      .values({ ...values, run_id: values.run_id ?? newRunId(dialect), created_at: nowStored() })
      .returning(['id', 'run_id'])
      .executeTakeFirstOrThrow();
    created(task);
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

/** The database labels each of these nodes reported (`database_labels` of its `node_info_update`); absent: none. */
export async function reportedDatabaseLabels(
  db: Kysely<Database>,
  nodeIds: readonly number[],
): Promise<Map<number, Set<string>>> {
  const labels = new Map<number, Set<string>>();
  if (nodeIds.length === 0) return labels;
  const rows = await db
    .selectFrom('node_config')
    .select(['node_id', 'value'])
    .where('node_id', 'in', nodeIds)
    .where('key', '=', 'database_labels')
    .execute();
  for (const r of rows) {
    let set = labels.get(r.node_id);
    if (!set) labels.set(r.node_id, (set = new Set()));
    set.add(r.value);
  }
  return labels;
}
