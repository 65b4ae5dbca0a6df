import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../errors.js';
import { OPERATIONS, SCOPES } from '../auth/rules.js';
import { paginate, PaginationQuery } from '../http/pagination.js';
import { ruleIds } from '../repositories/rule.js';
import { errorResponses, IdParams, Paginated } from '../serializers/common.js';
import { loadRules, RuleSchema } from '../serializers/rule.js';

const RuleListQuery = Type.Object({
  ...PaginationQuery,
  name: Type.Optional(Type.String({ description: 'the resource the rule governs, e.g. `task`' })),
  operation: Type.Optional(
    Type.Unsafe<string>({
      type: 'string',
      enum: Object.values(OPERATIONS),
      description: 'VIEW, EDIT, CREATE or DELETE',
    }),
  ),
  scope: Type.Optional(
    Type.Unsafe<string>({
      type: 'string',
      enum: Object.values(SCOPES),
      description: 'OWN, ORGANIZATION, COLLABORATION or GLOBAL',
    }),
  ),
  role_id: Type.Optional(Type.Integer({ description: 'rules contained in this role' })),
  user_id: Type.Optional(
    Type.Integer({
      description: 'rules this user has, through a role or directly (the vantage6 4.x filter)',
    }),
  ),
});

/** `/rule` and `/rule/{id}` (docs/api.md#roles-and-rules): any user may read the rule catalogue. */
export const ruleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  app.get(
    '/rule',
    {
      schema: {
        tags: ['rule'],
        summary: 'List the rules',
        querystring: RuleListQuery,
        response: { 200: Paginated(RuleSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const ids = ruleIds(db(), q);
      return paginate(db(), request, reply, ids, (page) => loadRules(ctx, page));
    },
  );

  app.get(
    '/rule/:id',
    {
      schema: {
        tags: ['rule'],
        summary: 'A rule',
        params: IdParams,
        response: { 200: RuleSchema, ...errorResponses },
      },
    },
    async (request) => {
      const [rule] = await loadRules(ctx, [request.params.id]);
      if (!rule) throw notFound('rule', request.params.id);
      return rule;
    },
  );
};
