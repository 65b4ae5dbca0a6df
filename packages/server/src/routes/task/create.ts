import type { AppContext } from '../../context.js';
import type { Caller } from '../../auth/caller.js';
import { SocketRooms, imageReferenceProblem, type NewTaskBody } from '@federa/common';
import { SpanKind, type Span } from '@federa/common/tracing';
import { resolveTaskAlgorithm } from '../../store/task-algorithm.js';
import { ApiError, badRequest, forbidden, notFound } from '../../errors.js';
import { can } from '../../auth/caller.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import {
  findTask,
  insertTaskWithRuns,
  ParentComplete,
  hasRunOf,
  isTaskComplete,
  taskAudience,
  taskPolicyEntries,
  storedDatabases,
  type TaskAudience,
} from '../../repositories/task/index.js';
import { findOrganization } from '../../repositories/organization.js';
import { assertInStudy, refuseMissingDatabases } from './task-scope.js';

/**
 * `POST /task` (docs/api.md#tasks): the checks of steps 1–11 in their order, then the task and one result per
 * receiving organization, written in one transaction.
 */

/** Organizations whose node in the collaboration does not accept tasks from this user (docs/node-protocol.md#policies). */
async function policyRefusals(
  db: Kysely<Database>,
  caller: Caller,
  nodes: TaskAudience['nodes'],
): Promise<number[]> {
  // Most nodes have no policy: their entries are read only when one has.
  const withPolicy = [...nodes.values()].filter((n) => n.hasPolicy).map((n) => n.id);
  if (withPolicy.length === 0) return [];
  const rows = await taskPolicyEntries(db, withPolicy);
  if (rows.length === 0) return [];
  const org = await findOrganization(db, caller.organizationId);
  const mine = new Set([String(caller.organizationId), ...(org?.name ? [org.name] : [])]);
  const refused: number[] = [];
  for (const [orgId, { id: nodeId }] of nodes) {
    const policy = rows.filter((r) => r.node_id === nodeId);
    if (policy.length === 0) continue;
    const allowed = policy.some((r) =>
      r.key === 'allowed_users' ? r.value.trim() === String(caller.id) : mine.has(r.value.trim()),
    );
    if (!allowed) refused.push(orgId);
  }
  return refused;
}

/** Creates a task; returns its id. Throws the refusal of the first failing step. */
/** A container's sub-task refused: its parent task is complete (its runs finished, or were killed). */
const parentComplete = (parentId: number): ApiError =>
  forbidden(`The parent task ${parentId} is already complete; its container can no longer create sub-tasks.`);

/** A receiving node that was not online when the task was created, named for the warning. */
export interface OfflineNode {
  organizationId: number;
  organizationName: string | null;
  nodeName: string | null;
}

/** A created task: its id, and the receiving nodes that were not online when it was created. */
export interface CreatedTask {
  id: number;
  offline: OfflineNode[];
}

export async function createTask(
  ctx: AppContext,
  caller: Caller,
  body: NewTaskBody,
  /** `v4`: created on the vantage6 4.x surface, whose rules add to the 3.x ones (docs/vantage6-4.md). */
  options: { api?: 'v4' } = {},
  traceparent: string | null = null,
): Promise<CreatedTask> {
  const db = ctx.dbh.db;
  const collaborationId = body.collaboration_id;

  // A store algorithm: approved, pinned, and its input fits the function (store/task-algorithm.ts).
  const fromStore =
    body.store_algorithm_id !== undefined
      ? await resolveTaskAlgorithm(ctx, caller, { ...body, store_algorithm_id: body.store_algorithm_id })
      : null;

  // 0. The image is a usable reference: a node must never be handed one its engine cannot parse
  // (docs/security.md, "The node survives any task").
  const imageProblem = imageReferenceProblem(fromStore?.image ?? body.image ?? '');
  if (imageProblem)
    throw new ApiError('validation_failed', `field 'image' ${imageProblem}`, {
      extra: { message: { image: imageProblem } },
    });

  // 0. One answer to "which data": `database` and `databases` may both be given only when they agree.
  const databases = body.databases ?? [];
  const firstLabel = databases[0]?.label;
  if (firstLabel !== undefined && body.database && body.database !== firstLabel)
    throw new ApiError(
      'validation_failed',
      `field 'database' ('${body.database}') is not the first label of 'databases' ('${firstLabel}'); send one of them, or the same database in both`,
      { extra: { message: { database: 'differs from databases[0].label' } } },
    );

  // 1–3 read in one query: the collaboration, which organizations are members, and their nodes.
  const orgIds = body.organizations.map((o) => o.id);
  const audience = await taskAudience(db, collaborationId, [...orgIds, caller.organizationId]);

  // 1. The collaboration exists.
  if (!audience) throw notFound('Collaboration', collaborationId);

  // 2. Every receiving organization is a member, and is listed once (one result per organization per task).
  const twice = [...new Set(orgIds.filter((id, i) => orgIds.indexOf(id) !== i))];
  if (twice.length > 0)
    throw badRequest(
      `Organization(s) ${twice.join(', ')} are listed more than once; list each organization once.`,
    );
  const members = audience.members;
  const outsiders = orgIds.filter((id) => !members.has(id));
  if (outsiders.length > 0) {
    throw badRequest(
      `Organization(s) ${outsiders.join(', ')} are not members of collaboration ${collaborationId}.`,
    );
  }

  // 3. Every receiving organization has a node in the collaboration.
  const nodeOf = new Map([...audience.nodes].filter(([orgId]) => orgIds.includes(orgId)));
  const nodeless = orgIds.filter((id) => !nodeOf.has(id));
  if (nodeless.length > 0) {
    throw badRequest(
      `Cannot create this task: organization(s) ${nodeless.join(', ')} have no node registered in collaboration ${collaborationId}. Register a node for them or leave them out.`,
    );
  }

  // 3a. A study: of this collaboration, and every receiving organization is part of it.
  if (body.study_id !== undefined) await assertInStudy(ctx, body.study_id, collaborationId, orgIds);

  // 3b. On the 4.x surface: every receiving node that reported its databases has each one asked for.
  if (options.api === 'v4')
    await refuseMissingDatabases(
      ctx,
      databases.length > 0 ? databases.map((d) => d.label) : body.database ? [body.database] : [],
      nodeOf,
    );

  // 4. Users: the receiving nodes' policies (allowed_users / allowed_orgs) admit the caller.
  if (caller.kind === 'user') {
    const refused = await policyRefusals(db, caller, nodeOf);
    if (refused.length > 0) {
      throw badRequest(
        `The node(s) of organization(s) ${refused.join(', ')} do not accept tasks from you (their policy allows other users or organizations).`,
      );
    }
  }

  // 5. The initiating organization (the user's, or the organization of the node that started the container) is a member.
  const initiatorId = caller.organizationId;
  if (!members.has(initiatorId)) {
    throw forbidden(
      `Your organization (id=${initiatorId}) is not a member of collaboration ${collaborationId}, so you cannot create tasks in it.`,
    );
  }

  // 6. Permission: users by rule; containers by their token.
  let parent: { id: number; run_id: number; init_user_id: number | null } | null = null;
  if (caller.kind === 'user') {
    if (!can(caller, 'task.c_glo') && !can(caller, 'task.c_org')) {
      throw forbidden(
        'You lack the permission to do that! You need one of: task CREATE GLOBAL, task CREATE ORGANIZATION',
      );
    }
  } else {
    const token = caller.container;
    if (!token) throw new ApiError('wrong_caller', 'Only users and algorithm containers can create tasks');
    const image = body.image ?? '';
    // Exactly the parent's image: a suffix would let `evil.example/` + the parent's image through.
    if (image !== token.image) {
      throw forbidden(
        `Sub-tasks must use the image of their parent task: '${image}' is not '${token.image}'.`,
      );
    }
    if (token.collaboration_id !== collaborationId) {
      throw forbidden(`This container can only create tasks in collaboration ${token.collaboration_id}.`);
    }
    const parentTask = await findTask(db, token.task_id);
    if (!parentTask) throw forbidden(`The parent task ${token.task_id} of this container no longer exists.`);
    if (await isTaskComplete(db, parentTask.id)) throw parentComplete(parentTask.id);
    // The sub-task carries its parent's researcher as init_user: only a container of an organization that researcher
    // sent the parent to may do that (a token from before tokens were limited to such runs is refused here).
    if (!(await hasRunOf(db, parentTask.id, token.organization_id)))
      throw forbidden(
        `The parent task ${parentTask.id} has no run for organization ${token.organization_id}; this container cannot create sub-tasks of it.`,
      );
    parent = { id: parentTask.id, run_id: parentTask.run_id, init_user_id: parentTask.init_user_id };
  }

  // 9 (checked before anything is stored, unlike vantage6 which kept the task row): `master` keeps only the
  // user's own organization.
  // A store function's input carries the master flag its type calls for (store/task-algorithm.ts).
  let receivers = fromStore
    ? body.organizations.map((o) => ({ id: o.id, input: fromStore.inputs.get(o.id) ?? o.input }))
    : body.organizations;
  if (caller.kind === 'user' && body.master === true) {
    receivers = receivers.filter((o) => o.id === caller.organizationId);
    if (receivers.length === 0) {
      throw badRequest(
        `A master task must include your own organization (id=${caller.organizationId}) among the organizations.`,
      );
    }
  }

  // 7. The task: a user's task starts a new run; a sub-task joins its parent's run.
  const taskId = await insertTaskWithRuns(
    db,
    ctx.dbh.dialect,
    {
      name: body.name ?? '',
      description: body.description ?? '',
      image: fromStore?.image ?? body.image ?? '',
      // The first label of `databases` is the task's `database` for callers that read only that field.
      database: firstLabel ?? (body.database === undefined ? '' : body.database),
      databases: storedDatabases(databases),
      collaboration_id: collaborationId,
      run_id: parent ? parent.run_id : null,
      parent_id: parent?.id ?? null,
      initiator_id: initiatorId,
      init_user_id: parent ? parent.init_user_id : caller.id,
      cancel_on_failure: body.cancel_on_failure ? 1 : 0,
      store_algorithm_id: fromStore?.store_algorithm_id ?? null,
      algorithm_store_id: fromStore?.algorithm_store_id ?? null,
      api: options.api ?? null,
      study_id: body.study_id ?? null,
      traceparent,
    },
    // 10. One result per receiving organization, holding that organization's input.
    receivers.map((o) => ({
      organization_id: o.id,
      input: typeof o.input === 'string' ? o.input : JSON.stringify(o.input),
    })),
    // 8. `task_created`, before the results are created, to the task's audience (docs/socket-protocol.md#audiences).
    (task) =>
      ctx.events.emit(
        SocketRooms.audience(collaborationId, [...receivers.map((o) => o.id), initiatorId]),
        'task_created',
        {
          task_id: task.id,
          run_id: task.run_id,
          collaboration_id: collaborationId,
          init_org_id: initiatorId,
        },
      ),
  ).catch((error: unknown) => {
    // The parent's runs finished between the check above and the transaction (a kill): refused the same way.
    throw error instanceof ParentComplete ? parentComplete(error.parentId) : error;
  });

  // 11. The nodes with a run are told by announceTask, once the caller has the answer.
  return {
    id: taskId,
    offline: receivers.flatMap((o) => {
      const node = nodeOf.get(o.id);
      return node?.status === 'online'
        ? []
        : [
            {
              organizationId: o.id,
              organizationName: node?.organizationName ?? null,
              nodeName: node?.name ?? null,
            },
          ];
    }),
  };
}

/**
 * Step 11 of `POST /task`: `new_task` to the users watching the collaboration and to the nodes of the
 * organizations with a run in it (`SocketRooms.audience`), sent once the answer to the POST has been
 * written (or its connection closed). Each of those nodes fetches its run at that event; sent earlier, their
 * fetches would be served before the answer, which waits for its audit entry (docs/performance.md, bench/fan-out).
 */
export function announceTask(
  ctx: AppContext,
  response: NodeJS.EventEmitter,
  collaborationId: number,
  taskId: number,
  organizationIds: readonly number[],
  requestSpan: Span | null = null,
): void {
  let sent = false;
  const send = (): void => {
    if (sent) return;
    sent = true;
    // The event itself carries only the task's id (the vantage6 contract): the nodes find the trace context on
    // the task they fetch. This span marks when the event went out.
    const span = requestSpan
      ? ctx.tracing?.start('new_task', {
          parent: requestSpan,
          kind: SpanKind.PRODUCER,
          attributes: { 'federa.task.id': taskId, 'federa.task.organizations': organizationIds.length },
        })
      : undefined;
    ctx.events.emit(SocketRooms.audience(collaborationId, organizationIds), 'new_task', taskId);
    span?.end();
  };
  response.once('finish', send);
  response.once('close', send);
}

/**
 * A hint for the caller when receiving nodes are not online (as read by the task's checks): the task queues and runs
 * when they connect, but the researcher should know why nothing happens yet (docs/first-hour-researcher.md).
 */
export function offlineNodeHint(offline: readonly OfflineNode[]): string | undefined {
  if (offline.length === 0) return undefined;
  // Named as a researcher knows them (the organization), with the node's name for its admin; ids only as a last resort.
  const named = offline.map((o) => {
    const org = o.organizationName
      ? `${o.organizationName} (organization ${o.organizationId})`
      : `organization ${o.organizationId}`;
    return o.nodeName ? `"${o.nodeName}" of ${org}` : `the node of ${org}`;
  });
  return (
    `Offline node(s): ${named.join(', ')}. The task waits and runs when they connect. ` +
    'Ask their node admins to start them (vnode start).'
  );
}
