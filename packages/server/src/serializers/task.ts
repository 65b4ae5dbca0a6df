import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { toApiTime } from '../http/datetime.js';
import { idList, parseIdList } from '../db/id-list.js';
import { prepared } from '../db/prepared.js';
import { inOrder } from '../http/pagination.js';
import type { Result } from '../db/schema.js';
import { DateTime, Nullable, NullableReference, ReferenceList, ReferenceSchema } from './common.js';

/**
 * Tasks and results are shown in several linked forms (api.md §2.7, §2.8), so both live in this file:
 * task; task with results; result; result with task; task-result (ids instead of references).
 */

/** Run statuses that are still going. Anything else but `completed` is a failure. */
export const OPEN_STATUSES = new Set(['pending', 'initializing', 'active']);
export const isFailedStatus = (s: string | null): boolean =>
  s !== null && !OPEN_STATUSES.has(s) && s !== 'completed';

/** The aggregate status of a task from its results' statuses. */
export function taskStatus(statuses: (string | null)[]): string {
  if (statuses.length === 0) return 'completed';
  if (statuses.every((s) => s === null)) return 'unknown';
  if (statuses.some(isFailedStatus)) return 'failed';
  for (const s of ['active', 'initializing', 'pending']) if (statuses.includes(s)) return s;
  return 'completed';
}

const PortItem = Type.Object({ id: Type.Integer(), port: Type.Integer(), label: Nullable(Type.String()) });
const EmbeddedNode = Type.Object({
  id: Type.Optional(Type.Integer()),
  name: Type.Optional(Nullable(Type.String())),
  ip: Type.Optional(Nullable(Type.String())),
  status: Type.Optional(Nullable(Type.String())),
});

const resultFields = {
  id: Type.Integer(),
  input: Nullable(Type.String()),
  result: Nullable(Type.String()),
  log: Nullable(Type.String()),
  assigned_at: DateTime,
  started_at: DateTime,
  finished_at: DateTime,
  status: Nullable(Type.String()),
  node: EmbeddedNode,
  ports: Type.Array(PortItem),
};

/** Result in the task-result form: `task` and `organization` as plain ids. */
export const TaskResultSchema = Type.Object(
  { ...resultFields, task: Type.Integer(), organization: Type.Integer() },
  { $id: 'TaskResult' },
);
const EmbeddedTaskResult = Type.Object({ ...resultFields, organization: Type.Integer() });

const taskFields = {
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  image: Type.String(),
  database: Nullable(Type.String()),
  run_id: Type.Integer(),
  initiator: Type.Integer({ description: 'id of the initiating organization' }),
  init_org: Type.Integer({ description: 'same as initiator (read by vantage6 3.5.0 nodes)' }),
  init_user: Nullable(Type.Integer()),
  collaboration: NullableReference,
  parent: NullableReference,
  children: ReferenceList,
  complete: Type.Boolean(),
  status: Type.String(),
  finished_at: DateTime,
  created_at: DateTime,
};

export const TaskSchema = Type.Object({ ...taskFields, results: ReferenceList }, { $id: 'Task' });
export const TaskWithResultsSchema = Type.Object(
  { ...taskFields, results: Type.Array(EmbeddedTaskResult) },
  { $id: 'TaskWithResults' },
);
const TaskNoResults = Type.Object(taskFields);

export const ResultSchema = Type.Object(
  { ...resultFields, task: ReferenceSchema, organization: ReferenceSchema },
  { $id: 'Result' },
);
export const ResultWithTaskSchema = Type.Object(
  { ...resultFields, task: TaskNoResults, organization: ReferenceSchema },
  { $id: 'ResultWithTask' },
);

export type TaskOut = Static<typeof TaskSchema>;
export type TaskWithResultsOut = Static<typeof TaskWithResultsSchema>;
export type ResultOut = Static<typeof ResultSchema>;
export type ResultWithTaskOut = Static<typeof ResultWithTaskSchema>;
export type TaskResultOut = Static<typeof TaskResultSchema>;

type ResultCore = Omit<TaskResultOut, 'task' | 'organization'> & { task_id: number; organization_id: number };

/** Results by id with their node and ports. */
async function loadResultCores(ctx: AppContext, ids: number[]): Promise<ResultCore[]> {
  if (ids.length === 0) return [];
  const db = ctx.dbh.db;
  const rows: (Result & { collaboration_id: number | null })[] = await db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .selectAll('result')
    .select('task.collaboration_id')
    .where('result.id', 'in', ids)
    .execute();
  const [ports, nodes] = await Promise.all([
    db
      .selectFrom('port')
      .select(['id', 'port', 'label', 'result_id'])
      .where('result_id', 'in', ids)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('node')
      .select(['id', 'name', 'ip', 'status', 'organization_id', 'collaboration_id'])
      .where('organization_id', 'in', [...new Set(rows.map((r) => r.organization_id))])
      .execute(),
  ]);
  return inOrder(ids, rows).map((r) => {
    const node = nodes.find(
      (n) => n.organization_id === r.organization_id && n.collaboration_id === r.collaboration_id,
    );
    return {
      id: r.id,
      input: r.input,
      result: r.result,
      log: r.log,
      assigned_at: toApiTime(r.assigned_at),
      started_at: toApiTime(r.started_at),
      finished_at: toApiTime(r.finished_at),
      status: r.status,
      node: node ? { id: node.id, name: node.name, ip: node.ip, status: node.status } : {},
      ports: ports
        .filter((p) => p.result_id === r.id)
        .map((p) => ({ id: p.id, port: p.port, label: p.label })),
      task_id: r.task_id,
      organization_id: r.organization_id,
    };
  });
}

const stripIds = ({ task_id: _t, organization_id: _o, ...rest }: ResultCore) => rest;

export async function loadTaskResults(ctx: AppContext, ids: number[]): Promise<TaskResultOut[]> {
  return (await loadResultCores(ctx, ids)).map((r) => ({
    ...stripIds(r),
    task: r.task_id,
    organization: r.organization_id,
  }));
}

type TaskCore = Omit<TaskOut, 'results'> & { resultIds: number[] };

/** Task rows with the ids of their children, in one query. */
const tasksWithChildren = prepared((db, ids: readonly number[]) =>
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
const resultsByTaskAndStatus = prepared((db, taskIds: readonly number[]) =>
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

async function loadTaskCores(ctx: AppContext, ids: number[]): Promise<TaskCore[]> {
  if (ids.length === 0) return [];
  const db = ctx.dbh.db;
  const [rows, groups] = await Promise.all([tasksWithChildren(db, ids), resultsByTaskAndStatus(db, ids)]);
  return inOrder(ids, rows).map((t) => {
    const own = groups.filter((g) => g.task_id === t.id);
    const complete = own.every((g) => Number(g.finished) === Number(g.results));
    const lastFinished = own.reduce<string | null>(
      (last, g) => (last === null || (g.last_finished_at ?? '') > last ? g.last_finished_at : last),
      null,
    );
    const resultIds = own.flatMap((g) => parseIdList(g.ids)).sort((a, b) => a - b);
    return {
      id: t.id,
      name: t.name,
      description: t.description,
      image: t.image,
      database: t.database,
      run_id: t.run_id,
      initiator: t.initiator_id,
      init_org: t.initiator_id,
      init_user: t.init_user_id,
      collaboration: ctx.refs.maybe('collaboration', t.collaboration_id),
      parent: ctx.refs.maybe('task', t.parent_id),
      children: ctx.refs.many('task', parseIdList(t.child_ids)),
      complete,
      status: taskStatus(own.map((g) => g.status)),
      finished_at: toApiTime(complete && resultIds.length ? lastFinished : null),
      created_at: toApiTime(t.created_at),
      resultIds,
    };
  });
}

export async function loadTasks(ctx: AppContext, ids: number[]): Promise<TaskOut[]> {
  return (await loadTaskCores(ctx, ids)).map(({ resultIds, ...t }) => ({
    ...t,
    results: ctx.refs.many('result', resultIds),
  }));
}

export async function loadTasksWithResults(ctx: AppContext, ids: number[]): Promise<TaskWithResultsOut[]> {
  const tasks = await loadTaskCores(ctx, ids);
  const results = await loadResultCores(
    ctx,
    tasks.flatMap((t) => t.resultIds),
  );
  return tasks.map(({ resultIds, ...t }) => ({
    ...t,
    results: results
      .filter((r) => resultIds.includes(r.id))
      .map((r) => ({ ...stripIds(r), organization: r.organization_id })),
  }));
}

export async function loadResults(ctx: AppContext, ids: number[]): Promise<ResultOut[]> {
  return (await loadResultCores(ctx, ids)).map((r) => ({
    ...stripIds(r),
    task: ctx.refs.one('task', r.task_id),
    organization: ctx.refs.one('organization', r.organization_id),
  }));
}

export async function loadResultsWithTask(ctx: AppContext, ids: number[]): Promise<ResultWithTaskOut[]> {
  const results = await loadResultCores(ctx, ids);
  const tasks = await loadTaskCores(ctx, [...new Set(results.map((r) => r.task_id))]);
  return results.map((r) => {
    const { resultIds: _ids, ...task } = tasks.find((t) => t.id === r.task_id) as TaskCore;
    return { ...stripIds(r), task, organization: ctx.refs.one('organization', r.organization_id) };
  });
}
