import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError, notFound } from '../../errors.js';
import { paginate, PaginationQuery } from '../../http/pagination.js';
import { errorResponses, IdParams, Paginated } from '../../serializers/common.js';
import { loadOrganizations, OrganizationSchema } from '../../serializers/organization.js';
import { addMember, memberIds, memberIdsListing, removeMember } from '../../repositories/collaboration.js';
import { findOrganization } from '../../repositories/organization.js';
import { assertMayViewCollaboration, callerOf, collaborationOr404 } from './shared.js';

const OrganizationIdBody = Type.Object({ id: Type.Integer({ description: 'organization id' }) });

/** `/collaboration/{id}/organization`: the member organizations (docs/api.md#collaborations). Items as `GET /organization`. */
export const collaborationMemberRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  app.get(
    '/collaboration/:id/organization',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'The member organizations of a collaboration',
        params: IdParams,
        querystring: Type.Object({ ...PaginationQuery }),
        response: { 200: Paginated(OrganizationSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await collaborationOr404(db(), id);
      await assertMayViewCollaboration(db(), callerOf(request), id);
      return paginate(db(), request, reply, memberIdsListing(db(), id), (page) =>
        loadOrganizations(ctx, page),
      );
    },
  );

  app.post(
    '/collaboration/:id/organization',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'Add an organization to a collaboration; answers all members',
        params: IdParams,
        body: OrganizationIdBody,
        response: { 200: Type.Array(OrganizationSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.params;
      await collaborationOr404(db(), id);
      if (!(await findOrganization(db(), request.body.id))) throw notFound('Organization', request.body.id);
      await addMember(db(), id, request.body.id);
      return loadOrganizations(ctx, await memberIds(db(), id));
    },
  );

  app.delete(
    '/collaboration/:id/organization',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'Remove an organization from a collaboration; answers the remaining members',
        params: IdParams,
        body: OrganizationIdBody,
        response: { 200: Type.Array(OrganizationSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.params;
      const organizationId = request.body.id;
      await collaborationOr404(db(), id);
      if (!(await findOrganization(db(), organizationId))) throw notFound('Organization', organizationId);
      const members = await memberIds(db(), id);
      if (!members.includes(organizationId)) {
        throw new ApiError(
          'bad_request',
          `Organization ${organizationId} is not a member of collaboration ${id}.`,
        );
      }
      await removeMember(db(), id, organizationId);
      // Sockets of the organization's users leave the collaboration's room at once (docs/security.md).
      ctx.events.identityChanged?.({ what: 'rooms', kind: 'user' });
      return loadOrganizations(
        ctx,
        members.filter((m) => m !== organizationId),
      );
    },
  );
};
