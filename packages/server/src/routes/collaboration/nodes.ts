import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError, notFound } from '../../errors.js';
import { paginate, PaginationQuery } from '../../http/pagination.js';
import { errorResponses, IdParams, MessageSchema, Paginated } from '../../serializers/common.js';
import { loadNodes, nodePage, NodeSchema } from '../../serializers/node.js';
import { isMember } from '../../auth/scope.js';
import {
  duplicateNodeMessage,
  findNode,
  nodeIds,
  nodeOfOrganizationIn,
  updateNode,
} from '../../repositories/node.js';
import { refuseDuplicateNode } from '../node.js';
import { assertMayViewCollaboration, callerOf, collaborationOr404 } from './shared.js';

const NodeIdBody = Type.Object({ id: Type.Integer({ description: 'node id' }) });

/**
 * `/collaboration/{id}/node` (docs/api.md#collaborations).
 *
 * Items have the same shape as `GET /node` (the full node form): Federa's requirement "the same shape as /node"
 * wins over the 3.x simple form (docs/api.md#collaborations). The full form is a superset of the simple one
 * (`type` and `collaboration` added); only `config` differs, which no 3.x client reads here.
 */
export const collaborationNodeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;
  const nodesOf = async (collaborationId: number) => {
    return loadNodes(ctx, await nodeIds(db(), null, { collaboration_id: collaborationId }).all());
  };

  app.get(
    '/collaboration/:id/node',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'The nodes of a collaboration',
        params: IdParams,
        querystring: Type.Object({ ...PaginationQuery }),
        response: { 200: Paginated(NodeSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await collaborationOr404(db(), id);
      await assertMayViewCollaboration(db(), callerOf(request), id);
      const ids = nodeIds(db(), null, { collaboration_id: id });
      return paginate(db(), request, reply, ids, nodePage(ctx));
    },
  );

  app.post(
    '/collaboration/:id/node',
    {
      schema: {
        tags: ['collaboration'],
        summary: "Move a node into a collaboration; answers the collaboration's nodes (201)",
        params: IdParams,
        body: NodeIdBody,
        response: { 201: Type.Array(NodeSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await collaborationOr404(db(), id);
      const node = await findNode(db(), request.body.id);
      if (!node) throw notFound('Node', request.body.id);
      if (node.collaboration_id === id)
        throw new ApiError('bad_request', `Node ${node.id} is already in collaboration ${id}.`);
      if (!(await isMember(db(), node.organization_id, id))) {
        throw new ApiError(
          'bad_request',
          `The organization of node ${node.id} (id=${node.organization_id}) is not a member of collaboration ${id}; add it first.`,
        );
      }
      const existing = await nodeOfOrganizationIn(db(), node.organization_id, id, node.id);
      if (existing !== undefined)
        throw new ApiError('bad_request', duplicateNodeMessage(node.organization_id, id, existing));
      await updateNode(db(), node.id, { collaboration_id: id }).catch((error: unknown) =>
        refuseDuplicateNode(db(), error, node.organization_id, id, node.id),
      );
      return reply.status(201).send(await nodesOf(id));
    },
  );

  app.delete(
    '/collaboration/:id/node',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'Detach a node from a collaboration',
        params: IdParams,
        body: NodeIdBody,
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.params;
      await collaborationOr404(db(), id);
      const node = await findNode(db(), request.body.id);
      if (!node) throw notFound('Node', request.body.id);
      if (node.collaboration_id !== id)
        throw new ApiError('bad_request', `Node ${node.id} is not part of collaboration ${id}.`);
      await updateNode(db(), node.id, { collaboration_id: null });
      return { msg: `Node id=${node.id} removed from collaboration id=${id}` };
    },
  );
};
