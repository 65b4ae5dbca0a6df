import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { can, type Caller } from '../auth/caller.js';
import { ApiError, forbidden, notFound } from '../errors.js';
import { paginate, PaginationQuery } from '../http/pagination.js';
import { errorResponses, IdParams, Paginated } from '../serializers/common.js';
import { OrganizationBodySchema } from '@federa/common';
import {
  loadOrganizations,
  organizationPage,
  OrganizationSchema,
  type OrganizationOut,
} from '../serializers/organization.js';
import type { AppContext } from '../context.js';
import { CollaborationSchema, loadCollaborations } from '../serializers/collaboration.js';
import { loadNodes, NodeSchema } from '../serializers/node.js';
import {
  createOrganization,
  findOrganization,
  organizationFields,
  updateOrganization,
  viewableOrganizations,
  organizationScope,
  organizationIds,
} from '../repositories/organization.js';
import { withFreeOrganizationName } from '../repositories/organization-names.js';
import { collaborationIdsOfOrganization } from '../repositories/collaboration.js';
import { nodeIds } from '../repositories/node.js';
import { nodeView } from '../auth/scope.js';

/** The authenticated caller (the policy table guarantees one on this resource's routes). */
const callerOf = (request: FastifyRequest): Caller => {
  if (!request.caller) throw new ApiError('missing_authorization', 'Missing Authorization Header');
  return request.caller;
};

/** One serialized organization (404 when it vanished meanwhile). */
async function organizationOut(ctx: AppContext, id: number): Promise<OrganizationOut> {
  const [org] = await loadOrganizations(ctx, [id]);
  if (!org) throw notFound('Organization', id);
  return org;
}

/** Routes of `/organization` (docs/api.md#organizations). */
export const organizationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  app.get(
    '/organization',
    {
      schema: {
        tags: ['organization'],
        summary: 'List the organizations you may view',
        querystring: Type.Object({
          name: Type.Optional(Type.String({ description: 'SQL LIKE pattern (supply % yourself)' })),
          country: Type.Optional(Type.String({ description: 'exact country' })),
          collaboration_id: Type.Optional(
            Type.Integer({ description: 'only members of this collaboration' }),
          ),
          study_id: Type.Optional(Type.Integer({ description: 'only the organizations of this study' })),
          ...PaginationQuery,
        }),
        response: { 200: Paginated(OrganizationSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const q = request.query;
      const scope = organizationScope(caller);
      if (scope === null) throw forbidden('You lack the permission to view organizations.');
      const ids = organizationIds(db(), scope, q);
      return paginate(db(), request, reply, ids, organizationPage(ctx));
    },
  );

  app.post(
    '/organization',
    {
      schema: {
        tags: ['organization'],
        summary: 'Create an organization',
        body: OrganizationBodySchema,
        response: { 201: OrganizationSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const fields = organizationFields(request.body);
      const id = await withFreeOrganizationName(db(), ctx.dbh.dialect, fields.name, undefined, (trx) =>
        createOrganization(trx, fields),
      );
      return reply.status(201).send(await organizationOut(ctx, id));
    },
  );

  /** The organization, after the 404 and the view permission check. */
  const viewable = async (request: FastifyRequest, id: number) => {
    const caller = callerOf(request);
    if (!(await findOrganization(db(), id))) throw notFound('Organization', id);
    const scope = await viewableOrganizations(db(), caller);
    if (scope !== 'all' && !scope?.includes(id))
      throw forbidden(`You lack the permission to view organization ${id}.`);
  };

  app.get(
    '/organization/:id',
    {
      schema: {
        tags: ['organization'],
        summary: 'Get an organization',
        params: IdParams,
        response: { 200: OrganizationSchema, ...errorResponses },
      },
    },
    async (request) => {
      await viewable(request, request.params.id);
      return organizationOut(ctx, request.params.id);
    },
  );

  app.patch(
    '/organization/:id',
    {
      schema: {
        tags: ['organization'],
        summary: 'Update an organization (a node may update its own organization, e.g. its public key)',
        params: IdParams,
        body: OrganizationBodySchema,
        response: { 200: OrganizationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      if (!(await findOrganization(db(), id))) throw notFound('Organization', id);
      const allowed =
        can(caller, 'organization.e_glo') ||
        (can(caller, 'organization.e_org') && caller.organizationId === id);
      if (!allowed)
        throw forbidden(
          `You lack the permission to edit organization ${id}: you may only edit your own organization.`,
        );
      const fields = organizationFields(request.body);
      await withFreeOrganizationName(db(), ctx.dbh.dialect, fields.name, id, (trx) =>
        updateOrganization(trx, id, fields),
      );
      return organizationOut(ctx, id);
    },
  );

  app.get(
    '/organization/:id/collaboration',
    {
      schema: {
        tags: ['organization'],
        summary: 'The collaborations of an organization (plain list)',
        params: IdParams,
        response: { 200: Type.Array(CollaborationSchema), ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      if (!(await findOrganization(db(), id))) throw notFound('Organization', id);
      if (!(
        can(caller, 'collaboration.v_glo') ||
        (can(caller, 'collaboration.v_org') && caller.organizationId === id)
      )) {
        throw forbidden(`You lack the permission to view the collaborations of organization ${id}.`);
      }
      return loadCollaborations(ctx, await collaborationIdsOfOrganization(db(), id));
    },
  );

  app.get(
    '/organization/:id/node',
    {
      schema: {
        tags: ['organization'],
        summary: 'The nodes of an organization (plain list)',
        params: IdParams,
        response: { 200: Type.Array(NodeSchema), ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      if (!(await findOrganization(db(), id))) throw notFound('Organization', id);
      const view = await nodeView(db(), caller);
      const whole = view === null || view.organizationId === id;
      // A partner's nodes, with `node.v_col`: those in the collaborations the caller's organization shares with it.
      const shared = whole
        ? true
        : (await collaborationIdsOfOrganization(db(), id)).some((c) => view.collaborationIds?.includes(c));
      if (!shared) throw forbidden(`You lack the permission to view the nodes of organization ${id}.`);
      const scope = whole ? null : view;
      return loadNodes(ctx, await nodeIds(db(), scope, { organization_id: id }).all());
    },
  );
};
