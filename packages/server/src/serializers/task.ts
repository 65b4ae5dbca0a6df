import type { Result, ResultWithTask, Task, TaskResult, TaskWithResults } from '@federa/common';
import { ACTIVE_LIKE_RUN_STATUSES, OPEN_RUN_STATUSES } from '@federa/common';
import type { AppContext } from '../context.js';
import { toApiTime } from '../http/datetime.js';
import { parseIdList } from '../db/id-list.js';
import { fromRows, inOrder, type PageLoad } from '../http/pagination.js';
import type { RowOf } from '../repositories/listing.js';
import type { Caller } from '../auth/caller.js';
import { tasksWithVisibleResults } from '../repositories/result.js';
import {
  portsOfResults,
  resultRowsWithNode,
  parseRunGroups,
  tasksWithRuns,
  tasksWithRunSummary,
} from '../repositories/task/load.js';
import { readDatabases } from '../repositories/task/databases.js';

/**
 * Tasks and results are shown in several linked forms (docs/api.md#task, docs/api.md#result), so both live in this file:
 * task; task with results; result; result with task; task-result (ids instead of references).
 */

/** Run statuses that are still going. Anything else but `completed` is a failure. */
export const OPEN_STATUSES: ReadonlySet<string> = new Set(OPEN_RUN_STATUSES);
export const isFailedStatus = (s: string | null): boolean =>
  s !== null && !OPEN_STATUSES.has(s) && s !== 'completed';

/** The aggregate status of a task from its results' statuses. */
export function taskStatus(statuses: (string | null)[]): string {
  if (statuses.length === 0) return 'completed';
  if (statuses.every((s) => s === null)) return 'unknown';
  if (statuses.some(isFailedStatus)) return 'failed';
  if (statuses.some((s) => (ACTIVE_LIKE_RUN_STATUSES as readonly (string | null)[]).includes(s)))
    return 'active';
  for (const s of ['initializing', 'pending']) if (statuses.includes(s)) return s;
  return 'completed';
}

export {
  CreatedTaskSchema,
  ResultSchema,
  ResultWithTaskSchema,
  TaskResultSchema,
  TaskSchema,
  TaskWithResultsSchema,
} from '@federa/common';
export type TaskOut = Task;
export type TaskWithResultsOut = TaskWithResults;
export type ResultOut = Result;
export type ResultWithTaskOut = ResultWithTask;
export type TaskResultOut = TaskResult;

type ResultCore = Omit<TaskResultOut, 'task' | 'organization'> & { task_id: number; organization_id: number };

type ResultWithNodeRow = RowOf<typeof resultRowsWithNode>;
type TaskWithRunsRow = RowOf<typeof tasksWithRuns>;

/** Results by id with their node and ports: one query, and a second only when some have ports (VPN runs). */
async function loadResultCores(ctx: AppContext, ids: number[]): Promise<ResultCore[]> {
  if (ids.length === 0) return [];
  return resultCores(ctx, inOrder(ids, await resultRowsWithNode.byIds(ctx.dbh.db, ids)));
}

/** Results from their rows (in the order given), with their ports: a query only when some have ports. */
async function resultCores(ctx: AppContext, rows: readonly ResultWithNodeRow[]): Promise<ResultCore[]> {
  const withPorts = rows.filter((r) => Boolean(r.has_ports)).map((r) => r.id);
  const ports = withPorts.length > 0 ? await portsOfResults(ctx.dbh.db, withPorts) : [];
  return rows.map((r) => {
    return {
      id: r.id,
      input: r.input,
      result: r.result,
      log: r.log,
      assigned_at: toApiTime(r.assigned_at),
      started_at: toApiTime(r.started_at),
      finished_at: toApiTime(r.finished_at),
      status: r.status,
      node:
        r.node_id === null ? {} : { id: r.node_id, name: r.node_name, ip: r.node_ip, status: r.node_status },
      ports: ports
        .filter((p) => p.result_id === r.id)
        .map((p) => ({ id: p.id, port: p.port, label: p.label })),
      result_stored:
        r.result_sha256 === null ? null : { size: Number(r.result_size), sha256: r.result_sha256 },
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

type TaskCore<R> = Omit<TaskOut, 'results'> & { results: R };

/**
 * Tasks by id with their status and their results as `results(ids)` makes them from the ids of the task's results
 * (none when `withResultIds` is false: the task embedded in a run lists no results, and a node fetching its run of
 * a 1,000-organization task reads a summary of a few rows, not the 1,000 ids). Each task is built in one object
 * literal: this runs for every task of every listing.
 */
async function loadTaskCores<R>(
  ctx: AppContext,
  ids: number[],
  results: (ids: number[]) => R,
  withResultIds = true,
): Promise<TaskCore<R>[]> {
  if (ids.length === 0) return [];
  const rows = await (withResultIds ? tasksWithRuns : tasksWithRunSummary).byIds(ctx.dbh.db, ids);
  return taskCores(ctx, inOrder(ids, rows), results);
}

/** Tasks from their rows, in the order given (see {@link loadTaskCores}). */
function taskCores<R>(
  ctx: AppContext,
  rows: readonly TaskWithRunsRow[],
  results: (ids: number[]) => R,
): TaskCore<R>[] {
  const refs = ctx.refs;
  return rows.map((t) => {
    const own = parseRunGroups(t.run_groups);
    let complete = true;
    let lastFinished: string | null = null;
    const statuses: (string | null)[] = [];
    let resultIds: number[] = [];
    for (const g of own) {
      if (g.finished !== g.runs) complete = false;
      if (lastFinished === null || (g.lastFinishedAt ?? '') > lastFinished) lastFinished = g.lastFinishedAt;
      statuses.push(g.status);
      if (g.ids) resultIds = resultIds.concat(parseIdList(g.ids));
    }
    if (own.length > 1) resultIds.sort((a, b) => a - b);
    return {
      id: t.id,
      name: t.name,
      description: t.description,
      image: t.image,
      database: t.database,
      databases: readDatabases(t.databases),
      run_id: t.run_id,
      api: t.api ?? undefined,
      study_id: t.study_id ?? undefined,
      store_id: t.store_algorithm_id === null ? undefined : (t.algorithm_store_id ?? 0),
      store_algorithm_id: t.store_algorithm_id ?? undefined,
      initiator: t.initiator_id,
      init_org: t.initiator_id,
      init_user: t.init_user_id,
      collaboration: refs.maybe('collaboration', t.collaboration_id),
      parent: refs.maybe('task', t.parent_id),
      children: refs.many('task', parseIdList(t.child_ids)),
      complete,
      status: taskStatus(statuses),
      finished_at: toApiTime(complete && own.length > 0 ? lastFinished : null),
      created_at: toApiTime(t.created_at),
      cancel_on_failure: Number(t.cancel_on_failure) === 1,
      traceparent: t.traceparent ?? undefined,
      results: results(resultIds),
    };
  });
}

export async function loadTasks(ctx: AppContext, ids: number[]): Promise<TaskOut[]> {
  return loadTaskCores(ctx, ids, (resultIds) => ctx.refs.many('result', resultIds));
}

/** Tasks as {@link loadTasks} makes them, from the rows of a listing's page (http/pagination.ts `paginate`). */
export const taskPage = (ctx: AppContext): PageLoad<TaskOut> =>
  fromRows(tasksWithRuns, (rows) => taskCores(ctx, rows, (resultIds) => ctx.refs.many('result', resultIds)));

export async function loadTasksWithResults(ctx: AppContext, ids: number[]): Promise<TaskWithResultsOut[]> {
  return withResults(ctx, await loadTaskCores(ctx, ids, (resultIds) => resultIds));
}

async function withResults(ctx: AppContext, tasks: TaskCore<number[]>[]): Promise<TaskWithResultsOut[]> {
  const results = await loadResultCores(
    ctx,
    tasks.flatMap((t) => t.results),
  );
  return tasks.map(({ results: resultIds, ...t }) => ({
    ...t,
    results: results
      .filter((r) => resultIds.includes(r.id))
      .map((r) => ({ ...stripIds(r), organization: r.organization_id })),
  }));
}

export async function loadResults(ctx: AppContext, ids: number[]): Promise<ResultOut[]> {
  return resultsOf(ctx, await loadResultCores(ctx, ids));
}

const resultsOf = (ctx: AppContext, cores: ResultCore[]): ResultOut[] =>
  cores.map((r) => ({
    ...stripIds(r),
    task: ctx.refs.one('task', r.task_id),
    organization: ctx.refs.one('organization', r.organization_id),
  }));

/** Results as {@link loadResults} makes them, from the rows of a listing's page. */
export const resultPage = (ctx: AppContext): PageLoad<ResultOut> =>
  fromRows(resultRowsWithNode, async (rows) => resultsOf(ctx, await resultCores(ctx, rows)));

export async function loadResultsWithTask(ctx: AppContext, ids: number[]): Promise<ResultWithTaskOut[]> {
  return resultsWithTask(ctx, await loadResultCores(ctx, ids));
}

/** Results as {@link loadResultsWithTask} makes them, from the rows of a listing's page. */
export const resultWithTaskPage = (ctx: AppContext): PageLoad<ResultWithTaskOut> =>
  fromRows(resultRowsWithNode, async (rows) => resultsWithTask(ctx, await resultCores(ctx, rows)));

async function resultsWithTask(ctx: AppContext, results: ResultCore[]): Promise<ResultWithTaskOut[]> {
  const tasks = await loadTaskCores(ctx, [...new Set(results.map((r) => r.task_id))], () => null, false);
  return results.map((r) => {
    const { results: _none, ...task } = tasks.find((t) => t.id === r.task_id) as TaskCore<null>;
    return { ...stripIds(r), task, organization: ctx.refs.one('organization', r.organization_id) };
  });
}

/**
 * Tasks in the "task with results" form, embedding a task's results only when the caller may view them (see
 * {@link tasksWithVisibleResults}); otherwise `results` is `[]`. Every listing with `include=results` uses this,
 * so `task.v_glo` alone never reveals results of a collaboration the caller is not part of.
 */
export async function loadTasksWithVisibleResults(
  ctx: AppContext,
  caller: Caller,
  ids: number[],
): Promise<TaskWithResultsOut[]> {
  const [tasks, visible] = await Promise.all([
    loadTasksWithResults(ctx, ids),
    tasksWithVisibleResults(ctx.dbh.db, caller, ids),
  ]);
  return tasks.map((t) => (visible.has(t.id) ? t : { ...t, results: [] }));
}
