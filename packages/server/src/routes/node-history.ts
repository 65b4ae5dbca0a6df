import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { NodeOnlinePeriodSchema, type NodeOnlinePeriod } from '@federa/common';
import { nodeRefusal, nodeView, viewsNode } from '../auth/scope.js';
import { forbidden, notFound } from '../errors.js';
import { toApiTime } from '../http/datetime.js';
import { inOrder, paginate, PaginationQuery } from '../http/pagination.js';
import { historyIds, periodsByIds } from '../repositories/node-history.js';
import { findNode } from '../repositories/node.js';
import { errorResponses, IdParams, Paginated } from '../serializers/common.js';
import { callerOf } from './collaboration/shared.js';

/** `GET /node/{id}/history`: the periods a node was online, newest first (docs/api.md#nodes, docs/socket-protocol.md#online-history). */
export const nodeHistoryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  app.get(
    '/node/:id/history',
    {
      schema: {
        tags: ['node'],
        summary: 'The periods the node was online, newest first (an open one while it is online)',
        params: IdParams,
        querystring: Type.Object({ ...PaginationQuery }),
        response: { 200: Paginated(NodeOnlinePeriodSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const node = await findNode(db(), request.params.id);
      if (!node) throw notFound('Node', request.params.id);
      // Whoever may view the node may view its history, as GET /node/{id}.
      const view = await nodeView(db(), caller);
      if (!viewsNode(view, node)) throw forbidden(nodeRefusal(view, node.id));
      return paginate(db(), request, reply, historyIds(db(), node.id), async (ids) =>
        inOrder(ids, await periodsByIds(db(), ids)).map((p): NodeOnlinePeriod => ({
          id: p.id,
          node: ctx.refs.one('node', p.node_id),
          started_at: toApiTime(p.started_at) ?? '',
          ended_at: toApiTime(p.ended_at),
          end_reason: p.end_reason,
        })),
      );
    },
  );
};
