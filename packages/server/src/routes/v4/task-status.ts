import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Caller } from '../../auth/caller.js';
import { forbidden, notFound } from '../../errors.js';
import { IdParams, errorResponses } from '../../serializers/common.js';
import { loadTasks } from '../../serializers/task.js';
import { mayViewTask } from '../task/index.js';

/**
 * `GET /v4/api/task/{id}/status` (vantage6 4.x; its client's `wait_for_results` polls it): the task's status as
 * `GET /task/{id}` shows it, with the same check of who may see the task.
 */
export const taskStatusRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  app.get(
    '/task/:id/status',
    {
      schema: {
        tags: ['vantage6 4.x'],
        summary: "A task's status (vantage6 4.x)",
        params: IdParams,
        response: { 200: Type.Object({ status: Type.String() }), ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.params;
      const [task] = await loadTasks(ctx, [id]);
      if (!task) throw notFound('Task', id);
      if (!(await mayViewTask(ctx, request.caller as Caller, task.collaboration?.id ?? null)))
        throw forbidden(
          `You lack the permission to view task ${id}: it belongs to a collaboration your organization is not part of.`,
        );
      return { status: task.status };
    },
  );
};
