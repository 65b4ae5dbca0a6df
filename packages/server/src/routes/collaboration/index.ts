import { Type } from '@sinclair/typebox';
import { CollaborationPatchBodySchema, NewCollaborationBodySchema } from '@federa/common';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { can } from '../../auth/caller.js';
import { ApiError, forbidden, notFound } from '../../errors.js';
import { paginate, PaginationQuery } from '../../http/pagination.js';
import {
  errorResponses,
  IdParams,
  MessageSchema,
  Paginated,
  sendJsonText,
} from '../../serializers/common.js';
import {
  CollaborationSchema,
  collaborationJson,
  loadCollaborations,
  type CollaborationOut,
} from '../../serializers/collaboration.js';
import type { AppContext } from '../../context.js';
import { existingOrganizationIds } from '../../repositories/organization.js';
import {
  collaborationIdByName,
  collaborationIds,
  createCollaboration,
  deleteCollaboration,
  updateCollaboration,
} from '../../repositories/collaboration.js';
import {
  assertMayViewCollaboration,
  callerOf,
  collaborationOr404,
  listCollaborationTasks,
  TaskItem,
} from './shared.js';
import { collaborationMemberRoutes } from './members.js';
import { collaborationNodeRoutes } from './nodes.js';

async function collaborationOut(ctx: AppContext, id: number): Promise<CollaborationOut> {
  const [collaboration] = await loadCollaborations(ctx, [id]);
  if (!collaboration) throw notFound('Collaboration', id);
  return collaboration;
}

/** The `encrypted` body value: undefined when absent or null; only `true`/`1` are true. */
function encryptedValue(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return value === 1;
  const text = 'must be a boolean or an integer (true/1: encrypted)';
  throw new ApiError('validation_failed', `field 'encrypted' ${text}`, {
    extra: { message: { encrypted: text } },
  });
}

const nameTaken = (name: string): ApiError =>
  new ApiError(
    'conflict',
    `A collaboration named '${name}' already exists; collaboration names must be unique.`,
  );

/** `encrypted` as a query filter: 1/0/true/false. */
function encryptedFilter(value: string): number {
  const v = value.trim().toLowerCase();
  if (v === '1' || v === 'true') return 1;
  if (v === '0' || v === 'false') return 0;
  throw new ApiError('validation_failed', "query parameter 'encrypted' must be one of 1, 0, true, false", {
    extra: { message: { encrypted: 'must be one of 1, 0, true, false' } },
  });
}

/** Routes of `/collaboration` (docs/api.md#collaborations); the members, nodes and tasks sub-collections are in `collaboration/`. */
export const collaborationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  app.get(
    '/collaboration',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'List the collaborations you may view',
        querystring: Type.Object({
          name: Type.Optional(Type.String({ description: 'SQL LIKE pattern (supply % yourself)' })),
          encrypted: Type.Optional(Type.String({ description: '1/0/true/false' })),
          organization_id: Type.Optional(
            Type.Integer({ description: 'only collaborations this organization is a member of' }),
          ),
          algorithm_store_id: Type.Optional(
            Type.Integer({
              description: 'the collaboration a linked algorithm store serves (none when it serves all)',
            }),
          ),
          ...PaginationQuery,
        }),
        response: { 200: Paginated(CollaborationSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const q = request.query;
      const global = can(caller, 'collaboration.v_glo');
      if (!global && !can(caller, 'collaboration.v_org'))
        throw forbidden('You lack the permission to view collaborations.');
      if (q.organization_id !== undefined && !global && q.organization_id !== caller.organizationId) {
        throw forbidden(
          `You lack the permission to view the collaborations of organization ${q.organization_id}.`,
        );
      }
      // Without v_glo the caller sees the collaborations of its own organization; with it, optionally of one organization.
      const organizationId = global ? q.organization_id : caller.organizationId;
      const ids = collaborationIds(db(), {
        organization_id: organizationId,
        name: q.name,
        encrypted: q.encrypted === undefined ? undefined : encryptedFilter(q.encrypted),
        algorithm_store_id: q.algorithm_store_id,
      });
      return paginate(db(), request, reply, ids, (page) => loadCollaborations(ctx, page));
    },
  );

  app.post(
    '/collaboration',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'Create a collaboration (answers 200, as vantage6 3.x)',
        body: NewCollaborationBodySchema,
        response: { 200: CollaborationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { name, organization_ids } = request.body;
      const encrypted = encryptedValue(request.body.encrypted);
      // As 3.x: the name is checked before the permission.
      if ((await collaborationIdByName(db(), name)) !== undefined) throw nameTaken(name);
      if (!can(caller, 'collaboration.c_glo'))
        throw forbidden('You lack the permission to create collaborations.');
      const organizationIds = await existingOrganizationIds(db(), organization_ids);
      let id: number;
      try {
        id = await createCollaboration(db(), { name, encrypted: encrypted ?? false, organizationIds });
      } catch (error) {
        // A concurrent request took the name between the check and the insert.
        if ((await collaborationIdByName(db(), name)) !== undefined) throw nameTaken(name);
        throw error;
      }
      return collaborationOut(ctx, id);
    },
  );

  app.get(
    '/collaboration/:id',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'Get a collaboration',
        params: IdParams,
        response: { 200: CollaborationSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      // Read first: a collaboration that does not exist is a 404 before any permission is looked at.
      const collaboration = await collaborationJson(ctx, id);
      if (collaboration === undefined) throw notFound('Collaboration', id);
      await assertMayViewCollaboration(db(), callerOf(request), id);
      return sendJsonText(reply, collaboration);
    },
  );

  app.patch(
    '/collaboration/:id',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'Update a collaboration; organization_ids replaces the member list',
        params: IdParams,
        body: CollaborationPatchBodySchema,
        response: { 200: CollaborationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { name, organization_ids } = request.body;
      await collaborationOr404(db(), id);
      if (typeof name === 'string' && (await collaborationIdByName(db(), name, id)) !== undefined)
        throw nameTaken(name);
      const changes: { name?: string; encrypted?: boolean; organizationIds?: number[] } = {};
      if (typeof name === 'string') changes.name = name;
      const encrypted = encryptedValue(request.body.encrypted);
      if (encrypted !== undefined) changes.encrypted = encrypted;
      if (Array.isArray(organization_ids))
        changes.organizationIds = await existingOrganizationIds(db(), organization_ids);
      try {
        await updateCollaboration(db(), id, changes);
      } catch (error) {
        if (changes.name !== undefined && (await collaborationIdByName(db(), changes.name, id)) !== undefined)
          throw nameTaken(changes.name);
        throw error;
      }
      // Sockets of users of removed organizations leave the collaboration's room at once (docs/security.md).
      if (changes.organizationIds) ctx.events.identityChanged?.({ what: 'rooms', kind: 'user' });
      return collaborationOut(ctx, id);
    },
  );

  app.delete(
    '/collaboration/:id',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'Delete a collaboration and its memberships (its nodes and tasks stay, detached)',
        params: IdParams,
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.params;
      await collaborationOr404(db(), id);
      await deleteCollaboration(db(), id);
      ctx.events.identityChanged?.({ what: 'rooms', kind: 'user' });
      return { msg: `Collaboration id=${id} successfully deleted` };
    },
  );

  app.get(
    '/collaboration/:id/task',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'The tasks of a collaboration (include=results adds their results)',
        params: IdParams,
        querystring: Type.Object({ ...PaginationQuery }),
        response: { 200: Paginated(TaskItem), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await collaborationOr404(db(), id);
      return listCollaborationTasks(ctx, request, reply, id, { order: 'asc' });
    },
  );

  await app.register(collaborationMemberRoutes);
  await app.register(collaborationNodeRoutes);
};
