import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Caller } from '../auth/caller.js';
import { can } from '../auth/caller.js';
import { callerCollaborations } from '../auth/scope.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { MessageSchema, errorResponses } from '../serializers/common.js';
import { findNode } from '../repositories/node.js';
import { removeUnnamedUploads } from '../result-store/remove-unnamed.js';
import {
  findTask,
  hasOpenRunInTree,
  killListedRuns,
  killNodeRuns,
  killTask,
  openNodeRuns,
} from '../repositories/task/index.js';
import type { Kysely } from 'kysely';
import type { Database, TaskRow } from '../db/schema.js';

/**
 * Who may kill a task (docs/run-statuses.md): whoever may post it. `task CREATE ORGANIZATION` kills the tasks the
 * caller's organization posted (a Researcher's own organization's); `event CREATE ORGANIZATION` (vantage6 3.x) those
 * of any collaboration the caller's organization is in; `task`/`event CREATE GLOBAL` any task.
 */
async function mayKill(db: Kysely<Database>, caller: Caller, task: TaskRow): Promise<boolean> {
  if (can(caller, 'event.c_glo') || can(caller, 'task.c_glo')) return true;
  if (can(caller, 'task.c_org') && task.initiator_id === caller.organizationId) return true;
  if (!can(caller, 'event.c_org') || task.collaboration_id === null) return false;
  return (await callerCollaborations(db, caller)).includes(task.collaboration_id);
}

/** `/kill…` (docs/run-statuses.md#kill, docs/node-protocol.md#kill): stop a task tree at every depth, or every run of a node. */
export const killRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  app.post(
    '/kill/task',
    {
      schema: {
        tags: ['kill'],
        summary: "Kill a task's runs and those of its sub-tasks at every depth",
        body: Type.Object({ id: Type.Integer({ description: 'the task to kill' }) }),
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = request.caller as Caller;
      const task = await findTask(db(), request.body.id);
      if (!task) throw notFound('Task', request.body.id);
      if (!(await mayKill(db(), caller, task)))
        throw forbidden(
          `You lack the permission to kill task ${task.id}: it needs task CREATE ORGANIZATION and a task your organization posted, event CREATE ORGANIZATION and a task of a collaboration your organization is in, or task or event CREATE GLOBAL.`,
        );
      if (!(await hasOpenRunInTree(db(), task.id)))
        throw badRequest(
          `Task ${task.id} and its sub-tasks have already finished; there is nothing to kill.`,
        );
      const killed = await killTask(db(), ctx.events, task);
      // A killed run names no upload: one it made before the kill leaves the store (docs/large-results.md); the
      // runs of the tree that had finished keep the output they named.
      await removeUnnamedUploads(
        db(),
        ctx.results,
        killed.map((k) => k.result_id),
      );
      request.log.info(
        { event: 'task.killed', task_id: task.id, runs: killed.length, by: caller.id },
        'task killed',
      );
      return {
        msg: `Task ${task.id} and its sub-tasks at every depth are killed; their nodes have been instructed to stop them.`,
      };
    },
  );

  app.post(
    '/kill/node/tasks',
    {
      schema: {
        tags: ['kill'],
        summary: 'Kill every algorithm run on a node',
        body: Type.Object({ id: Type.Integer({ description: 'the node whose runs are killed' }) }),
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = request.caller as Caller;
      const node = await findNode(db(), request.body.id);
      if (!node) throw notFound('Node', request.body.id);
      // The permission of /kill/task, run by run: global rules kill anything; on a node of the caller's
      // organization `event CREATE ORGANIZATION` kills every task of its collaboration, `task CREATE ORGANIZATION`
      // only the tasks the caller's organization posted (a run started from such a task, sub-tasks included).
      const global = can(caller, 'task.c_glo') || can(caller, 'event.c_glo');
      const ownNode = node.organization_id === caller.organizationId;
      if (!global && !(ownNode && (can(caller, 'task.c_org') || can(caller, 'event.c_org')))) {
        throw forbidden(
          `You lack the permission to kill the runs of node ${node.id}: it belongs to another organization.`,
        );
      }
      if (node.collaboration_id === null)
        throw badRequest(`Node ${node.id} is in no collaboration, so it has no runs to kill.`);
      const placed = { ...node, collaboration_id: node.collaboration_id };
      let killed: number[];
      if (global || can(caller, 'event.c_org')) {
        killed = await killNodeRuns(db(), ctx.events, placed);
      } else {
        const open = await openNodeRuns(db(), placed);
        const foreign = [
          ...new Set(open.filter((r) => r.posted_by !== caller.organizationId).map((r) => r.task_id)),
        ];
        if (foreign.length > 0)
          throw forbidden(
            `You lack the permission to kill the runs of node ${node.id}: it runs task(s) ${foreign.join(', ')} of other organizations, and task CREATE ORGANIZATION kills only tasks your organization posted. Kill yours with POST /kill/task; killing every run of the node needs event CREATE ORGANIZATION.`,
          );
        await killListedRuns(db(), ctx.events, placed.collaboration_id, open, [node.organization_id]);
        killed = open.map((r) => r.result_id);
      }
      // As for a killed task: the uploads the killed runs made leave the store (docs/large-results.md).
      await removeUnnamedUploads(db(), ctx.results, killed);
      const runs = killed.length;
      request.log.info(
        {
          event: 'node.tasks_killed',
          node_id: node.id,
          runs,
          online: node.status === 'online',
          by: caller.id,
        },
        'node runs killed',
      );
      return {
        msg:
          node.status === 'online'
            ? `Node ${node.id} has been instructed to kill all its algorithm runs (${runs} open runs marked killed).`
            : `Node ${node.id} is offline: its ${runs} open runs are marked killed, and it stops what still runs when it reconnects.`,
      };
    },
  );
};
