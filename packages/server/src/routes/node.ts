import { endSessions } from '../auth/sessions.js';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { can } from '../auth/caller.js';
import { isMember, nodeRefusal, nodeView, viewsNode } from '../auth/scope.js';
import type { AppContext } from '../context.js';
import type { NodeRow } from '../db/schema.js';
import { ApiError, forbidden, notFound } from '../errors.js';
import { timeBound } from '../http/datetime.js';
import { truthy } from '../http/filters.js';
import { paginate, PaginationQuery } from '../http/pagination.js';
import { errorResponses, IdParams, MessageSchema, Paginated } from '../serializers/common.js';
import { loadNodes, nodePage, NodeSchema, NodeWithKeySchema, type NodeOut } from '../serializers/node.js';
import { findCollaboration } from '../repositories/collaboration.js';
import { findOrganization } from '../repositories/organization.js';
import {
  createNode,
  defaultNodeName,
  deleteNode,
  duplicateNodeMessage,
  findNode,
  nodeNameProblem,
  nodeOfOrganizationIn,
  regenerateApiKey,
  updateNode,
  nodeIds,
} from '../repositories/node.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isUniqueViolation } from '../db/violations.js';
import { callerOf, listCollaborationTasks, TaskItem } from './collaboration/shared.js';
import { NewNodeBodySchema, NodePatchBodySchema } from '@federa/common';

async function nodeOut(ctx: AppContext, id: number): Promise<NodeOut> {
  const [node] = await loadNodes(ctx, [id]);
  if (!node) throw notFound('Node', id);
  return node;
}

async function nodeOr404(ctx: AppContext, id: number): Promise<NodeRow> {
  const node = await findNode(ctx.dbh.db, id);
  if (!node) throw notFound('Node', id);
  return node;
}

const invalidName = (name: string): ApiError =>
  new ApiError('bad_request', nodeNameProblem(name) ?? 'Invalid node name.');

/** Routes of `/node` (docs/api.md#nodes) and `POST /recover/node` (docs/api.md#account-recovery-and-passwords). */
/**
 * A node write refused by the database's rule of one node per organization in a collaboration
 * (db/migrations/0014-one-node-per-organization.ts): another request registered or moved one there after this
 * request's check. Answered as the check answers; any other error goes on.
 */
export async function refuseDuplicateNode(
  db: Kysely<Database>,
  error: unknown,
  organizationId: number,
  collaborationId: number,
  exceptId?: number,
): Promise<never> {
  if (isUniqueViolation(error)) {
    const existing = await nodeOfOrganizationIn(db, organizationId, collaborationId, exceptId);
    if (existing !== undefined)
      throw new ApiError('bad_request', duplicateNodeMessage(organizationId, collaborationId, existing));
  }
  throw error;
}

export const nodeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  app.get(
    '/node',
    {
      schema: {
        tags: ['node'],
        summary: 'List the nodes you may view',
        querystring: Type.Object({
          organization_id: Type.Optional(Type.Integer()),
          collaboration_id: Type.Optional(Type.Integer()),
          status: Type.Optional(Type.String({ description: 'online or offline' })),
          ip: Type.Optional(Type.String({ description: 'exact VPN IP' })),
          name: Type.Optional(Type.String({ description: 'SQL LIKE pattern (supply % yourself)' })),
          last_seen_from: Type.Optional(Type.String({ description: 'ISO-8601; last_seen at or after' })),
          last_seen_till: Type.Optional(Type.String({ description: 'ISO-8601; last_seen at or before' })),
          ...PaginationQuery,
        }),
        response: { 200: Paginated(NodeSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const q = request.query;
      const view = await nodeView(db(), caller);
      const ids = nodeIds(db(), view, {
        organization_id: q.organization_id,
        collaboration_id: q.collaboration_id,
        status: q.status,
        ip: q.ip,
        name: q.name,
        last_seen_from:
          q.last_seen_from === undefined ? undefined : timeBound('last_seen_from', q.last_seen_from),
        last_seen_till:
          q.last_seen_till === undefined ? undefined : timeBound('last_seen_till', q.last_seen_till),
      });
      return paginate(db(), request, reply, ids, nodePage(ctx));
    },
  );

  app.post(
    '/node',
    {
      schema: {
        tags: ['node'],
        summary: 'Register a node; the answer holds its API key, shown this once',
        body: NewNodeBodySchema,
        response: { 201: NodeWithKeySchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const body = request.body;
      const collaboration = await findCollaboration(db(), body.collaboration_id);
      if (!collaboration) throw notFound('Collaboration', body.collaboration_id);
      let organizationId = caller.organizationId;
      if (can(caller, 'node.c_glo')) {
        organizationId = body.organization_id ?? caller.organizationId;
      } else if (
        !can(caller, 'node.c_org') ||
        (body.organization_id != null && body.organization_id !== caller.organizationId)
      ) {
        throw forbidden('You lack the permission to create nodes for other organizations than your own.');
      }
      const organization = await findOrganization(db(), organizationId);
      if (!organization) throw notFound('Organization', organizationId);
      if (!(await isMember(db(), organizationId, collaboration.id))) {
        throw new ApiError(
          'bad_request',
          `Organization ${organizationId} is not a member of collaboration ${collaboration.id}.`,
        );
      }
      const existing = await nodeOfOrganizationIn(db(), organizationId, collaboration.id);
      if (existing !== undefined)
        throw new ApiError('bad_request', duplicateNodeMessage(organizationId, collaboration.id, existing));
      const name =
        body.name ??
        defaultNodeName(organization.name, collaboration.name, {
          organizationId,
          collaborationId: collaboration.id,
        });
      if (nodeNameProblem(name)) throw invalidName(name);
      const { id, apiKey } = await createNode(db(), {
        name,
        organizationId,
        collaborationId: collaboration.id,
      }).catch((error: unknown) => refuseDuplicateNode(db(), error, organizationId, collaboration.id));
      request.log.info(
        {
          event: 'node.created',
          node_id: id,
          organization_id: organizationId,
          collaboration_id: collaboration.id,
        },
        'node registered',
      );
      return reply.status(201).send({ ...(await nodeOut(ctx, id)), api_key: apiKey });
    },
  );

  app.get(
    '/node/:id',
    {
      schema: {
        tags: ['node'],
        summary: 'Get a node (never its API key)',
        params: IdParams,
        response: { 200: NodeSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const node = await nodeOr404(ctx, request.params.id);
      const view = await nodeView(db(), caller);
      if (!viewsNode(view, node)) throw forbidden(nodeRefusal(view, node.id));
      return nodeOut(ctx, node.id);
    },
  );

  app.patch(
    '/node/:id',
    {
      schema: {
        tags: ['node'],
        summary: 'Update a node (name, organization, collaboration, VPN IP)',
        params: IdParams,
        body: NodePatchBodySchema,
        response: { 200: NodeSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const body = request.body;
      const node = await nodeOr404(ctx, request.params.id);
      const global = can(caller, 'node.e_glo');
      if (!(global || (can(caller, 'node.e_org') && node.organization_id === caller.organizationId))) {
        throw forbidden(
          `You lack the permission to edit node ${node.id}: it belongs to another organization.`,
        );
      }
      // null values are ignored: 3.x clients send null for every field they do not set.
      const changes: Parameters<typeof updateNode>[2] = {};
      if (body.name != null) {
        if (nodeNameProblem(body.name)) throw invalidName(body.name);
        changes.name = body.name;
      }
      if (body.organization_id != null && body.organization_id !== node.organization_id) {
        if (!global)
          throw forbidden(
            'You lack the permission to move a node to another organization (node EDIT GLOBAL).',
          );
        if (!(await findOrganization(db(), body.organization_id)))
          throw notFound('Organization', body.organization_id);
        changes.organization_id = body.organization_id;
      }
      if (body.collaboration_id != null && body.collaboration_id !== node.collaboration_id) {
        if (!(await findCollaboration(db(), body.collaboration_id)))
          throw notFound('Collaboration', body.collaboration_id);
        if (!global && !(await isMember(db(), caller.organizationId, body.collaboration_id))) {
          throw forbidden(
            `You lack the permission to move a node into collaboration ${body.collaboration_id}: your organization is not a member of it.`,
          );
        }
        changes.collaboration_id = body.collaboration_id;
      }
      const organizationId = changes.organization_id ?? node.organization_id;
      const collaborationId =
        changes.collaboration_id !== undefined ? changes.collaboration_id : node.collaboration_id;
      if (
        (changes.organization_id !== undefined || changes.collaboration_id !== undefined) &&
        collaborationId !== null
      ) {
        if (!(await isMember(db(), organizationId, collaborationId))) {
          throw new ApiError(
            'bad_request',
            `Organization ${organizationId} is not a member of collaboration ${collaborationId}.`,
          );
        }
        const existing = await nodeOfOrganizationIn(db(), organizationId, collaborationId, node.id);
        if (existing !== undefined)
          throw new ApiError('bad_request', duplicateNodeMessage(organizationId, collaborationId, existing));
      }
      if (body.ip != null) changes.ip = body.ip;
      if (truthy(body.clear_ip)) changes.ip = null;
      await updateNode(db(), node.id, changes).catch((error: unknown) =>
        collaborationId === null
          ? Promise.reject(error)
          : refuseDuplicateNode(db(), error, organizationId, collaborationId, node.id),
      );
      return nodeOut(ctx, node.id);
    },
  );

  app.delete(
    '/node/:id',
    {
      schema: {
        tags: ['node'],
        summary: 'Delete a node',
        params: IdParams,
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const node = await nodeOr404(ctx, request.params.id);
      if (!(
        can(caller, 'node.d_glo') ||
        (can(caller, 'node.d_org') && node.organization_id === caller.organizationId)
      )) {
        throw forbidden(
          `You lack the permission to delete node ${node.id}: it belongs to another organization.`,
        );
      }
      await deleteNode(db(), node.id);
      // A deleted node keeps no way into the VPN (docs/vpn.md#certificates).
      await ctx.vpn?.revokeNode(node.id, 'deleted');
      await endSessions(ctx, 'node', node.id, 'deleted');
      request.log.info({ event: 'node.deleted', node_id: node.id }, 'node deleted');
      return { msg: `Successfully deleted node id=${node.id}` };
    },
  );

  app.get(
    '/node/:id/task',
    {
      schema: {
        tags: ['node'],
        summary: "The tasks of the node's collaboration (include=results adds their results)",
        params: IdParams,
        querystring: Type.Object({
          state: Type.Optional(
            Type.Union([Type.Literal('open')], { description: 'open: only tasks with unfinished results' }),
          ),
          ...PaginationQuery,
        }),
        response: { 200: Paginated(TaskItem), ...errorResponses },
      },
    },
    async (request, reply) => {
      const node = await nodeOr404(ctx, request.params.id);
      // Newest first, as GET /task.
      return listCollaborationTasks(ctx, request, reply, node.collaboration_id, {
        order: 'desc',
        state: request.query.state,
      });
    },
  );

  app.post(
    '/recover/node',
    {
      schema: {
        tags: ['node'],
        summary: 'Give a node a new API key (shown this once; the old key stops working)',
        body: Type.Object({ id: Type.Integer({ description: 'node id' }) }),
        response: { 200: Type.Object({ api_key: Type.String() }), ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const node = await nodeOr404(ctx, request.body.id);
      if (!(
        can(caller, 'node.e_glo') ||
        (can(caller, 'node.e_org') && node.organization_id === caller.organizationId)
      )) {
        throw forbidden(
          `You lack the permission to reset the API key of node ${node.id}: it belongs to another organization.`,
        );
      }
      const apiKey = await regenerateApiKey(db(), node.id);
      await endSessions(ctx, 'node', node.id, 'api_key_reset');
      // Whoever held the old key may hold the node's VPN configurations too (docs/vpn.md#certificates).
      await ctx.vpn?.revokeNode(node.id, 'api_key_reset');
      request.log.info(
        { event: 'node.api_key_reset', node_id: node.id, user_id: caller.id },
        'node API key regenerated',
      );
      return { api_key: apiKey };
    },
  );
};
