import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.js';
import type { CollaborationRow, Database } from '../../db/schema.js';
import { can, type Caller } from '../../auth/caller.js';
import { callerOrganizationIsMember } from '../../auth/scope.js';
import { ApiError, forbidden, notFound } from '../../errors.js';
import { includes, paginate } from '../../http/pagination.js';
import { findCollaboration } from '../../repositories/collaboration.js';
import { collaborationTaskIds } from '../../repositories/task/index.js';
import {
  loadTasks,
  loadTasksWithVisibleResults,
  TaskSchema,
  TaskWithResultsSchema,
  type TaskOut,
  type TaskWithResultsOut,
} from '../../serializers/task.js';

/** Helpers shared by the collaboration routes and `GET /node/{id}/task`. */

/** The authenticated caller (the policy table guarantees one on these routes). */
export const callerOf = (request: FastifyRequest): Caller => {
  if (!request.caller) throw new ApiError('missing_authorization', 'Missing Authorization Header');
  return request.caller;
};

/** The collaboration, or 404. */
export async function collaborationOr404(db: Kysely<Database>, id: number): Promise<CollaborationRow> {
  const collaboration = await findCollaboration(db, id);
  if (!collaboration) throw notFound('Collaboration', id);
  return collaboration;
}

/** `collaboration.v_glo`, or `collaboration.v_org` and the caller's organization is a member; else 401. */
export async function assertMayViewCollaboration(
  db: Kysely<Database>,
  caller: Caller,
  collaborationId: number,
): Promise<void> {
  if (can(caller, 'collaboration.v_glo')) return;
  if (can(caller, 'collaboration.v_org') && (await callerOrganizationIsMember(db, caller, collaborationId)))
    return;
  throw forbidden(
    `You lack the permission to view collaboration ${collaborationId}: your organization is not a member of it.`,
  );
}

/** A task listing item: a task, or a task with its results (`include=results`). */
export const TaskItem = Type.Union([TaskWithResultsSchema, TaskSchema]);

/**
 * Paginated tasks of a collaboration (`GET /collaboration/{id}/task`, `GET /node/{id}/task`). Permission:
 * `task.v_glo`, or `task.v_org` and the caller's organization is a member of the collaboration; else 401.
 * `include=results` (or the 3.x spelling `include=result`) gives tasks with their results.
 */
export async function listCollaborationTasks(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  collaborationId: number | null,
  options: { order: 'asc' | 'desc'; state?: 'open' | undefined },
): Promise<
  (TaskOut | TaskWithResultsOut)[] | { data: (TaskOut | TaskWithResultsOut)[]; links: Record<string, string> }
> {
  const db = ctx.dbh.db;
  const caller = callerOf(request);
  if (!can(caller, 'task.v_glo')) {
    const member =
      collaborationId !== null &&
      can(caller, 'task.v_org') &&
      (await callerOrganizationIsMember(db, caller, collaborationId));
    if (!member)
      throw forbidden(
        `You lack the permission to view the tasks of collaboration ${collaborationId ?? '(none)'}: your organization is not a member of it.`,
      );
  }
  const ids = collaborationTaskIds(db, collaborationId, options.order, options.state === 'open');
  const q = request.query as { include?: string[] };
  const withResults = includes(q, 'results') || includes(q, 'result');
  const load = (page: number[]): Promise<(TaskOut | TaskWithResultsOut)[]> =>
    withResults ? loadTasksWithVisibleResults(ctx, caller, page) : loadTasks(ctx, page);
  return paginate(db, request, reply, ids, load, { items: withResults ? TaskWithResultsSchema : TaskSchema });
}
