import { RunReportBodySchema, SocketRooms } from '@federa/common';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { can, type Caller } from '../auth/caller.js';
import { badRequest, forbidden } from '../errors.js';
import { nowStored, parseClientTime } from '../http/datetime.js';
import { failureCancelsSiblings, planRunUpdate } from '../runs/run-update.js';
import { announceRunLog } from '../runs/run-log-events.js';
import { truthy } from '../http/filters.js';
import { PaginationQuery, includes, paginate } from '../http/pagination.js';
import { IdParams, Paginated, errorResponses } from '../serializers/common.js';
import {
  ResultSchema,
  ResultWithTaskSchema,
  loadResults,
  loadResultsWithTask,
  resultPage,
  resultWithTaskPage,
  type ResultOut,
  type ResultWithTaskOut,
} from '../serializers/task.js';
import {
  cancelPendingSiblings,
  writeRunChanges,
  resultCollaborations,
  visibleResultIds,
} from '../repositories/result.js';
import { findAddressedResultWithOutput, findVisibleResult } from './result-access.js';
import { checkUploaded } from './result-output.js';
import { removeUnnamedUploads } from '../result-store/remove-unnamed.js';
import { findNode } from '../repositories/node.js';

const ResultItem = Type.Union([ResultWithTaskSchema, ResultSchema]);

const DATE_RANGES = {
  assigned_from: ['assigned_at', '>='],
  assigned_till: ['assigned_at', '<='],
  started_from: ['started_at', '>='],
  started_till: ['started_at', '<='],
  finished_from: ['finished_at', '>='],
  finished_till: ['finished_at', '<='],
} as const;
type DateRangeKey = keyof typeof DATE_RANGES;

const dateParam = (what: string) =>
  Type.Optional(
    Type.String({ description: `${what}: YYYY-MM-DDTHH:MM:SS[.ffffff] (or a date, for the whole day)` }),
  );

const ResultListQuery = Type.Object({
  ...PaginationQuery,
  task_id: Type.Optional(Type.Integer()),
  organization_id: Type.Optional(Type.Integer()),
  node_id: Type.Optional(
    Type.Integer({ description: "results addressed to this node: its organization's, in its collaboration" }),
  ),
  state: Type.Optional(Type.String({ description: '`open`: only results not finished yet' })),
  port: Type.Optional(Type.String({ description: 'when true: only results with algorithm ports' })),
  assigned_from: dateParam('assigned at or after'),
  assigned_till: dateParam('assigned at or before'),
  started_from: dateParam('started at or after'),
  started_till: dateParam('started at or before'),
  finished_from: dateParam('finished at or after'),
  finished_till: dateParam('finished at or before'),
});

/** A date-range bound in the stored form; a bare date covers the whole day. Invalid → 400 naming the parameter. */
function rangeBound(key: DateRangeKey, value: string): string {
  const v = value.trim();
  const full = /^\d{4}-\d{2}-\d{2}$/.test(v)
    ? `${v}T${key.endsWith('_from') ? '00:00:00' : '23:59:59.999999'}`
    : v;
  const stored = parseClientTime(full);
  if (stored === null)
    throw badRequest(
      `query parameter '${key}' is not a valid date-time (expected YYYY-MM-DDTHH:MM:SS[.ffffff]): '${value}'`,
    );
  return stored;
}

/** A timestamp sent by a node, in the stored form; invalid → 400 naming the field. */
function bodyTime(field: string, value: string | null): string | null {
  if (value === null) return null;
  const stored = parseClientTime(value);
  if (stored === null)
    throw badRequest(
      `field '${field}' is not a valid date-time (expected YYYY-MM-DDTHH:MM:SS[.ffffff]): '${value}'`,
    );
  return stored;
}

/**
 * `include=task` embeds whole tasks: only for a caller who may view them. Results are visible only within the
 * caller's collaborations, where `task.v_org` views every task, so either task view rule covers every result.
 */
function includeTaskAllowed(caller: Caller, query: { include?: string[] | undefined }): boolean {
  if (!includes(query, 'task')) return false;
  if (can(caller, 'task.v_glo') || can(caller, 'task.v_org')) return true;
  throw forbidden(
    'include=task embeds the tasks of the results, and you lack the permission to view tasks (task VIEW ORGANIZATION or GLOBAL); leave include=task out to get the results.',
  );
}

/** `/result…` (docs/api.md#results). Who may see a result: repositories/result.ts `resultCollaborations`. */
export const resultRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  app.get(
    '/result',
    {
      schema: {
        tags: ['result'],
        summary:
          'List results (newest first); nodes fetch their work with state=open&include=task&node_id=<own id>',
        querystring: ResultListQuery,
        response: { 200: Paginated(ResultItem), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = request.caller as Caller;
      const q = request.query;
      const visible = await resultCollaborations(db(), caller);
      const ids = visibleResultIds(db(), visible, caller.organizationId, {
        task_id: q.task_id,
        organization_id: q.organization_id,
        // A node fetching its own runs (every fetch after new_task) names itself: its row came with the caller.
        node:
          q.node_id === undefined
            ? undefined
            : caller.kind === 'node' && caller.id === q.node_id && caller.node
              ? caller.node
              : ((await findNode(db(), q.node_id)) ?? null),
        open: q.state === 'open',
        withPorts: truthy(q.port),
        ranges: (Object.keys(DATE_RANGES) as DateRangeKey[]).flatMap((key) => {
          const value = q[key];
          if (value === undefined) return [];
          const [column, op] = DATE_RANGES[key];
          return [{ column, op, value: rangeBound(key, value) }];
        }),
      });
      const load = includeTaskAllowed(caller, q) ? resultWithTaskPage(ctx) : resultPage(ctx);
      return paginate<ResultOut | ResultWithTaskOut>(db(), request, reply, ids, load);
    },
  );

  app.get(
    '/result/:id',
    {
      schema: {
        tags: ['result'],
        summary: 'One result; include=task embeds its task',
        params: IdParams,
        querystring: Type.Object({
          include: Type.Optional(Type.Array(Type.String(), { description: '`task` embeds the task' })),
        }),
        response: { 200: ResultItem, ...errorResponses },
      },
    },
    async (request) => {
      const caller = request.caller as Caller;
      const result = await findVisibleResult(db(), caller, request.params.id);
      const [out] = includeTaskAllowed(caller, request.query)
        ? await loadResultsWithTask(ctx, [result.id])
        : await loadResults(ctx, [result.id]);
      return out;
    },
  );

  app.patch(
    '/result/:id',
    {
      schema: {
        tags: ['result'],
        summary:
          'Update a run (nodes only): started_at and status are kept when absent; finished_at, result and log are overwritten',
        params: IdParams,
        body: RunReportBodySchema,
        response: { 200: ResultSchema, ...errorResponses },
      },
    },
    async (request) => {
      const result = await findAddressedResultWithOutput(db(), request.caller as Caller, request.params.id);
      const stored = result.output;
      const { result_stored: uploaded, ...body } = request.body;
      if (uploaded && typeof body.result === 'string')
        throw badRequest('A report carries its output in `result` or names it in `result_stored`, not both.');
      if (uploaded) await checkUploaded(ctx.results, result.id, uploaded);
      const plan = planRunUpdate(
        { ...stored, id: result.id, status: result.status, finished_at: result.finished_at },
        {
          ...body,
          stored: uploaded ?? null,
          ...(body.started_at !== undefined ? { started_at: bodyTime('started_at', body.started_at) } : {}),
          ...(body.finished_at !== undefined
            ? { finished_at: bodyTime('finished_at', body.finished_at) }
            : {}),
        },
        nowStored,
      );
      if (plan.kind === 'refused') throw badRequest(plan.message);
      if (plan.kind === 'unchanged') {
        const [out] = await loadResults(ctx, [result.id]);
        return out;
      }
      // Only over the state the plan was made from: a kill that finished the run meanwhile wins.
      const written = await writeRunChanges(db(), result.id, plan.changes, result.finished_at === null);
      if (!written)
        throw badRequest(`Result ${result.id} changed while this report was on its way; it has finished.`);
      // A failure cancels the task's pending runs when the task asks for it (docs/run-statuses.md).
      const cancelled =
        result.finished_at === null && failureCancelsSiblings(plan.status)
          ? await cancelPendingSiblings(db(), result.task_id, result.id)
          : [];
      // A run that finished without naming an upload leaves none in the store (docs/large-results.md), nor do the
      // runs this failure cancelled.
      const finishedNow = result.finished_at === null && plan.changes.finished_at != null;
      const orphaned = [
        ...(finishedNow && !uploaded && !stored.stored ? [result.id] : []),
        ...cancelled.map((r) => r.id),
      ];
      await removeUnnamedUploads(db(), ctx.results, orphaned);
      if (cancelled.length > 0)
        request.log.info(
          {
            event: 'run.siblings_cancelled',
            result_id: result.id,
            task_id: result.task_id,
            cancelled: cancelled.map((r) => r.id),
          },
          'a run failed: the pending runs of its task are cancelled',
        );
      // Emitted once the change is stored, so a listener that fetches the result sees the new state.
      // To the organization rooms too: researchers (only *event view organization*) wait on these.
      if (result.collaboration_id !== null) {
        for (const run of [result, ...cancelled])
          ctx.events.emit(
            SocketRooms.audience(result.collaboration_id, [run.organization_id, result.initiator_id]),
            'status_update',
            { result_id: run.id },
          );
        // The final report's log replaces the live log: followers read it (and see the run finished).
        if (plan.changes.log != null || plan.changes.finished_at != null)
          announceRunLog(ctx, result, {
            result_id: result.id,
            task_id: result.task_id,
            offset: plan.changes.log?.length ?? 0,
          });
      }
      const [out] = await loadResults(ctx, [result.id]);
      return out;
    },
  );
};
