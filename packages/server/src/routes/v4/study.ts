/**
 * Studies on the vantage6 4.x surface (docs/vantage6-4.md#studies): a named subset of a collaboration's
 * organizations that tasks can be scoped to. A study is part of its collaboration, so the collaboration's rules
 * apply to it: who may view the collaboration may view its studies (auth/policy.ts, `assertMayViewCollaboration`),
 * who may edit it may make and change them, who may delete from it may delete them.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { can, type Caller } from '../../auth/caller.js';
import { ApiError, badRequest, notFound } from '../../errors.js';
import { paginate, PaginationQuery } from '../../http/pagination.js';
import { errorResponses, IdParams, MessageSchema } from '../../serializers/common.js';
import { collaborationIdsOfOrganization, memberIds } from '../../repositories/collaboration.js';
import {
  addStudyMember,
  createStudy,
  deleteStudy,
  findStudy,
  loadStudyRows,
  removeStudyMember,
  studyIdByName,
  studyIds,
  updateStudy,
} from '../../repositories/study.js';
import { assertMayViewCollaboration, collaborationOr404 } from '../collaboration/shared.js';
import { Listing4, Study4 } from './schemas.js';
import { ref4 } from './shapes.js';

const link = (to: string, id: number) => `/v4/api/${to}?study_id=${id}`;

/** Studies by id, in 4.x's shape. */
async function loadStudies(ctx: AppContext, ids: number[]): Promise<Static<typeof Study4>[]> {
  return (await loadStudyRows(ctx.dbh.db, ids)).map((s) => ({
    id: s.id,
    name: s.name,
    collaboration: ref4('collaboration', s.collaboration_id) as Static<typeof Study4>['collaboration'],
    organizations: link('organization', s.id),
    tasks: link('task', s.id),
  }));
}

const nameTaken = (name: string): ApiError =>
  new ApiError('conflict', `A study named '${name}' already exists; study names must be unique.`);

/** Every organization is a member of the collaboration; else a 400 naming those that are not. */
async function assertMembers(ctx: AppContext, collaborationId: number, organizationIds: readonly number[]) {
  const members = new Set(await memberIds(ctx.dbh.db, collaborationId));
  const outsiders = [...new Set(organizationIds)].filter((id) => !members.has(id));
  if (outsiders.length > 0)
    throw badRequest(
      `Organization(s) ${outsiders.join(', ')} are not members of collaboration ${collaborationId}; a study holds members of its collaboration only.`,
    );
}

export const studyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;
  const studyOr404 = async (id: number) => {
    const study = await findStudy(db(), id);
    if (!study) throw notFound('Study', id);
    return study;
  };
  const one = async (id: number) => {
    const [study] = await loadStudies(ctx, [id]);
    if (!study) throw notFound('Study', id);
    return study;
  };

  app.get(
    '/study',
    {
      schema: {
        tags: ['study'],
        summary: 'List the studies of the collaborations you may view',
        querystring: Type.Object({
          name: Type.Optional(Type.String({ description: 'SQL LIKE pattern' })),
          collaboration_id: Type.Optional(Type.Integer()),
          organization_id: Type.Optional(
            Type.Integer({ description: 'studies this organization is part of' }),
          ),
          ...PaginationQuery,
        }),
        response: { 200: Listing4(Study4), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = request.caller as Caller;
      const q = request.query;
      // Without the rule to view every collaboration, the studies of the caller's own collaborations.
      const scope = can(caller, 'collaboration.v_glo')
        ? undefined
        : await collaborationIdsOfOrganization(db(), caller.organizationId);
      const ids = studyIds(db(), { ...q, scope });
      // Listings of the 4.x surface are always asked with include=metadata (routes/v4/index.ts).
      return (await paginate(db(), request, reply, ids, (page) => loadStudies(ctx, page))) as {
        data: Static<typeof Study4>[];
        links: Record<string, string>;
      };
    },
  );

  app.get(
    '/study/:id',
    {
      schema: {
        tags: ['study'],
        summary: 'A study',
        params: IdParams,
        response: { 200: Study4, ...errorResponses },
      },
    },
    async (request) => {
      const study = await studyOr404(request.params.id);
      await assertMayViewCollaboration(db(), request.caller as Caller, study.collaboration_id);
      return one(study.id);
    },
  );

  app.post(
    '/study',
    {
      schema: {
        tags: ['study'],
        summary: 'Make a study of some organizations of a collaboration',
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 200 }),
          collaboration_id: Type.Integer({ minimum: 1 }),
          organization_ids: Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 10_000 }),
        }),
        response: { 201: Study4, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { name, collaboration_id: collaborationId, organization_ids: organizationIds } = request.body;
      await collaborationOr404(db(), collaborationId);
      if ((await studyIdByName(db(), name)) !== undefined) throw nameTaken(name);
      await assertMembers(ctx, collaborationId, organizationIds);
      const id = await createStudy(db(), { name, collaboration_id: collaborationId, organizationIds });
      return reply.status(201).send(await one(id));
    },
  );

  app.patch(
    '/study/:id',
    {
      schema: {
        tags: ['study'],
        summary: 'Rename a study; organization_ids replaces its members',
        params: IdParams,
        body: Type.Object({
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          organization_ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 10_000 })),
        }),
        response: { 200: Study4, ...errorResponses },
      },
    },
    async (request) => {
      const study = await studyOr404(request.params.id);
      const { name, organization_ids: organizationIds } = request.body;
      if (name !== undefined && (await studyIdByName(db(), name, study.id)) !== undefined)
        throw nameTaken(name);
      if (organizationIds !== undefined) await assertMembers(ctx, study.collaboration_id, organizationIds);
      await updateStudy(db(), study.id, {
        ...(name !== undefined ? { name } : {}),
        ...(organizationIds !== undefined ? { organizationIds } : {}),
      });
      return one(study.id);
    },
  );

  app.delete(
    '/study/:id',
    {
      schema: {
        tags: ['study'],
        summary: 'Delete a study (its tasks stay, no longer scoped to it)',
        params: IdParams,
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const study = await studyOr404(request.params.id);
      await deleteStudy(db(), study.id);
      return { msg: `Study id=${study.id} successfully deleted` };
    },
  );

  const MemberBody = Type.Object({ id: Type.Integer({ minimum: 1, description: 'an organization' }) });
  for (const method of ['post', 'delete'] as const)
    app[method](
      '/study/:id/organization',
      {
        schema: {
          tags: ['study'],
          summary:
            method === 'post' ? 'Add an organization to a study' : 'Remove an organization from a study',
          params: IdParams,
          body: MemberBody,
          response: { 200: Study4, ...errorResponses },
        },
      },
      async (request) => {
        const study = await studyOr404(request.params.id);
        const organizationId = request.body.id;
        if (method === 'post') {
          await assertMembers(ctx, study.collaboration_id, [organizationId]);
          await addStudyMember(db(), study.id, organizationId);
        } else await removeStudyMember(db(), study.id, organizationId);
        return one(study.id);
      },
    );
};
