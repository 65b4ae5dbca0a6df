import { requestTraceparent } from '../../http/request-tracing.js';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import type { Caller } from '../../auth/caller.js';
import { can } from '../../auth/caller.js';
import { callerCollaborations } from '../../auth/scope.js';
import { ApiError, forbidden, notFound } from '../../errors.js';
import { findLinkedStore } from '../../repositories/store.js';
import { storeVisibility } from '../../store/linked.js';
import { PaginationQuery, includes, paginate } from '../../http/pagination.js';
import { IdParams, MessageSchema, Paginated, errorResponses } from '../../serializers/common.js';
import {
  CreatedTaskSchema,
  TaskResultSchema,
  TaskSchema,
  TaskWithResultsSchema,
  loadTaskResults,
  loadTasks,
  loadTasksWithVisibleResults,
  taskPage,
  type TaskOut,
  type TaskWithResultsOut,
} from '../../serializers/task.js';
import { findTask, runIdsOfTask, taskCollaborations, taskIds } from '../../repositories/task/index.js';
import { tasksWithVisibleResults } from '../../repositories/result.js';
import { V4_API_PATH } from '../../http/api-surfaces.js';
import { removeTask } from './remove.js';
import { announceTask, createTask, offlineNodeHint } from './create.js';
import { NewTaskBodySchema } from '@federa/common';

const TaskItem = Type.Union([TaskWithResultsSchema, TaskSchema]);

const TaskListQuery = Type.Object({
  ...PaginationQuery,
  initiator_id: Type.Optional(Type.Integer({ description: 'id of the initiating organization' })),
  init_user_id: Type.Optional(Type.Integer({ description: 'id of the user who created the task' })),
  collaboration_id: Type.Optional(Type.Integer()),
  parent_id: Type.Optional(Type.Integer()),
  is_user_created: Type.Optional(
    Type.Integer({
      description: '1: only the tasks users made (no parent task); 0: only the sub-tasks algorithms made',
    }),
  ),
  run_id: Type.Optional(Type.Integer()),
  study_id: Type.Optional(Type.Integer({ description: 'the tasks scoped to this study' })),
  store_id: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'the tasks running an algorithm of this store: 0 the store inside this server, else a linked store (`GET /algorithmstore`)',
    }),
  ),
  result_id: Type.Optional(Type.Integer({ description: 'the task owning this result' })),
  name: Type.Optional(Type.String({ description: 'SQL LIKE pattern (`%` and `_` are wildcards)' })),
  image: Type.Optional(Type.String({ description: 'SQL LIKE pattern' })),
  description: Type.Optional(Type.String({ description: 'SQL LIKE pattern' })),
  database: Type.Optional(Type.String({ description: 'SQL LIKE pattern' })),
  status: Type.Optional(
    Type.String({
      description: 'exact aggregate status: pending, initializing, active, completed, failed, unknown',
    }),
  ),
});

const IncludeQuery = Type.Object({
  include: Type.Optional(
    Type.Array(Type.String(), { description: '`results` (or `result`) embeds the results' }),
  ),
});

/** `include=results` (vantage6 3.10.4+) or `include=result` (3.3.0 – 3.10.3). */
const wantsResults = (q: { include?: string[] | undefined }): boolean =>
  includes(q, 'results') || includes(q, 'result');

/** Whether a caller may see a task: `task.v_glo`, or `task.v_org` and a member of its collaboration. */
export async function mayViewTask(
  ctx: AppContext,
  caller: Caller,
  collaborationId: number | null,
): Promise<boolean> {
  const scope = await taskCollaborations(ctx.dbh.db, caller);
  return scope === null || (collaborationId !== null && scope.includes(collaborationId));
}

/** `/task…` (docs/api.md#tasks). */
export const taskRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  app.get(
    '/task',
    {
      schema: {
        tags: ['task'],
        summary: 'List tasks (newest first)',
        querystring: TaskListQuery,
        response: { 200: Paginated(TaskItem), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = request.caller as Caller;
      const q = request.query;
      // A store linked only to a collaboration the caller may not view is, to them, one that does not exist.
      if (q.store_id !== undefined && q.store_id !== 0) {
        const store = await findLinkedStore(db(), q.store_id);
        if (!store || !(await storeVisibility(db(), caller))(store))
          throw new ApiError('bad_request', `Algorithm store ${q.store_id} does not exist.`);
      }
      const scope = await taskCollaborations(db(), caller);
      const ids = taskIds(db(), scope, q);
      const load = wantsResults(q)
        ? (page: number[]) => loadTasksWithVisibleResults(ctx, caller, page)
        : taskPage(ctx);
      return paginate<TaskOut | TaskWithResultsOut>(db(), request, reply, ids, load, {
        items: wantsResults(q) ? TaskWithResultsSchema : TaskSchema,
      });
    },
  );

  app.post(
    '/task',
    {
      schema: {
        tags: ['task'],
        summary: 'Create a task (users; algorithm containers create sub-tasks)',
        body: NewTaskBodySchema,
        response: { 201: CreatedTaskSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      // The surface the task is made on: the 4.x one adds its rules, and its nodes answer its algorithm in 4.x.
      const v4 = request.routeOptions.url?.startsWith(`${V4_API_PATH}/`) ?? false;
      const caller = request.caller as Caller;
      const created = await createTask(
        ctx,
        caller,
        request.body,
        v4 ? { api: 'v4' } : {},
        requestTraceparent(ctx, request),
      );
      const taskId = created.id;
      request.traceSpan?.setAttributes({
        'federa.task.id': taskId,
        ...(caller.container ? { 'federa.parent_task.id': caller.container.task_id } : {}),
      });
      announceTask(
        ctx,
        reply.raw,
        request.body.collaboration_id,
        taskId,
        request.body.organizations.map((o) => o.id),
        request.traceSpan,
      );
      const [task] = await loadTasks(ctx, [taskId]);
      if (!task) throw notFound('Task', taskId);
      const warning = offlineNodeHint(created.offline);
      return reply.status(201).send(warning ? { ...task, warning } : task);
    },
  );

  app.get(
    '/task/:id',
    {
      schema: {
        tags: ['task'],
        summary: 'One task; include=results embeds its results',
        params: IdParams,
        querystring: IncludeQuery,
        response: { 200: TaskItem, ...errorResponses },
      },
    },
    async (request) => {
      const caller = request.caller as Caller;
      const { id } = request.params;
      const refused = () =>
        forbidden(
          `You lack the permission to view task ${id}: it belongs to a collaboration your organization is not part of.`,
        );
      if (wantsResults(request.query)) {
        // Which results the caller sees depends on the permission: looked at before they are read.
        const task = await findTask(db(), id);
        if (!task) throw notFound('Task', id);
        if (!(await mayViewTask(ctx, caller, task.collaboration_id))) throw refused();
        return (await loadTasksWithVisibleResults(ctx, caller, [task.id]))[0];
      }
      // The task as it is shown carries its collaboration: one read gives the answer and what the check needs.
      const [task] = await loadTasks(ctx, [id]);
      if (!task) throw notFound('Task', id);
      if (!(await mayViewTask(ctx, caller, task.collaboration?.id ?? null))) throw refused();
      return task;
    },
  );

  app.delete(
    '/task/:id',
    {
      schema: {
        tags: ['task'],
        summary: 'Delete a task and its results (an unfinished task is killed first); sub-tasks are kept',
        params: IdParams,
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = request.caller as Caller;
      const task = await findTask(db(), request.params.id);
      if (!task) throw notFound('Task', request.params.id);
      if (!can(caller, 'task.d_glo')) {
        const member =
          task.collaboration_id !== null &&
          (await callerCollaborations(db(), caller)).includes(task.collaboration_id);
        if (!member)
          throw forbidden(
            `You lack the permission to delete task ${task.id}: it belongs to a collaboration your organization is not part of.`,
          );
      }
      await removeTask(ctx, task, request.log);
      request.log.info({ event: 'task.deleted', task_id: task.id, by: caller.id }, 'task deleted');
      return { msg: `Task id=${task.id} and its results have been deleted.` };
    },
  );

  app.get(
    '/task/:id/result',
    {
      schema: {
        tags: ['task'],
        summary: "The task's results (task and organization as plain ids)",
        params: IdParams,
        querystring: Type.Object(PaginationQuery),
        response: { 200: Paginated(TaskResultSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = request.caller as Caller;
      const task = await findTask(db(), request.params.id);
      if (!task) throw notFound('Task', request.params.id);
      if (!(await tasksWithVisibleResults(db(), caller, [task.id])).has(task.id)) {
        throw forbidden(
          `You cannot view the results of task ${task.id}: only organizations that were members of its collaboration when it was posted can.`,
        );
      }
      return paginate(db(), request, reply, runIdsOfTask(db(), task.id), (page) =>
        loadTaskResults(ctx, page),
      );
    },
  );
};
