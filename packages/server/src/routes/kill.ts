import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Caller } from '../auth/caller.js';
import { can } from '../auth/caller.js';
import { callerCollaborations } from '../auth/scope.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { MessageSchema, errorResponses } from '../serializers/common.js';
import { findNode } from '../repositories/node.js';
import { collaborationRoom, findTask, hasTaskFinished, killTask } from '../repositories/task/index.js';

/** `/kill…` (docs/api.md#kill, docs/node-protocol.md#kill): stop running algorithm containers. */
export const killRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  app.post(
    '/kill/task',
    {
      schema: {
        tags: ['kill'],
        summary: "Kill a task's runs and those of its direct sub-tasks",
        body: Type.Object({ id: Type.Integer({ description: 'the task to kill' }) }),
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = request.caller as Caller;
      const task = await findTask(db(), request.body.id);
      if (!task) throw notFound('Task', request.body.id);
      if (!can(caller, 'event.c_glo')) {
        const member =
          task.collaboration_id !== null &&
          (await callerCollaborations(db(), caller)).includes(task.collaboration_id);
        if (!member)
          throw forbidden(
            `You lack the permission to kill task ${task.id}: it belongs to a collaboration your organization is not part of.`,
          );
      }
      if (await hasTaskFinished(db(), task.id))
        throw badRequest(`Task ${task.id} has already finished; there is nothing to kill.`);
      const killed = await killTask(db(), ctx.events, task);
      request.log.info(
        { event: 'task.killed', task_id: task.id, runs: killed.length, by: caller.id },
        'task killed',
      );
      return { msg: `Nodes have been instructed to kill the runs of task ${task.id} and its sub-tasks.` };
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
      if (
        !can(caller, 'task.c_glo') &&
        !(can(caller, 'task.c_org') && node.organization_id === caller.organizationId)
      ) {
        throw forbidden(
          `You lack the permission to kill the runs of node ${node.id}: it belongs to another organization.`,
        );
      }
      if (node.status !== 'online' || node.collaboration_id === null)
        throw badRequest(`Node ${node.id} is not online, so it cannot kill its runs.`);
      ctx.events.emit(collaborationRoom(node.collaboration_id), 'kill_containers', {
        node_id: node.id,
        collaboration_id: node.collaboration_id,
      });
      request.log.info({ event: 'node.tasks_killed', node_id: node.id, by: caller.id }, 'node runs killed');
      return { msg: `Node ${node.id} has been instructed to kill all its algorithm runs.` };
    },
  );
};
