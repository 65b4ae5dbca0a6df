import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../errors.js';
import {
  setStoreUserRoles,
  storeUserById,
  storeUserRows,
  upsertStoreUser,
} from '../../repositories/store.js';
import { requireRole, storeCaller } from '../caller.js';
import { normalizeServerUrl } from '../identity.js';
import { readPolicies, writePolicies } from '../policies.js';
import { ROLE_DESCRIPTIONS, STORE_ROLES } from '../roles.js';
import { userAnswer } from '../serialize.js';
import { LOCAL_SERVER, type StoreContext } from '../context.js';

const Roles = Type.Array(Type.Union(STORE_ROLES.map((r) => Type.Literal(r))), { maxItems: 4 });

/** The store's policies, roles, users and version. */
export function adminRoutes(sctx: StoreContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const db = sctx.db;

    app.get(
      '/policy',
      {
        schema: {
          tags: ['store: policy'],
          summary: "The store's review and viewing policies (public)",
          security: [],
        },
      },
      async () => readPolicies(db),
    );

    app.patch(
      '/policy',
      {
        schema: {
          tags: ['store: policy'],
          summary: 'Change policies (store managers)',
          body: Type.Object(
            {
              min_reviewers: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
              min_reviewing_organizations: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
              assign_review_own_algorithm: Type.Optional(Type.Boolean()),
              algorithm_view: Type.Optional(
                Type.Union([Type.Literal('public'), Type.Literal('authenticated')]),
              ),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => {
        const caller = await storeCaller(sctx, request);
        requireRole(caller, 'store manager', 'change policies');
        await writePolicies(db, request.body);
        await sctx.audit?.record('store.policy.changed', { ...request.body, by: caller.user.username });
        return readPolicies(db);
      },
    );

    app.get(
      '/role',
      { schema: { tags: ['store: user'], summary: "The store's roles", security: [] } },
      async () => ({
        data: STORE_ROLES.map((name, i) => ({ id: i + 1, name, description: ROLE_DESCRIPTIONS[name] })),
        links: {},
      }),
    );

    app.get(
      '/user',
      {
        schema: {
          tags: ['store: user'],
          summary: 'The users the store knows, with their roles (store managers)',
        },
      },
      async (request) => {
        const caller = await storeCaller(sctx, request);
        requireRole(caller, 'store manager', 'list users');
        return { data: (await storeUserRows(db)).map(userAnswer), links: {} };
      },
    );

    app.get(
      '/user/me',
      { schema: { tags: ['store: user'], summary: 'Who the store takes you for, and your roles' } },
      async (request) => {
        const caller = await storeCaller(sctx, request);
        return { ...userAnswer(caller.user), roles: [...caller.roles] };
      },
    );

    app.post(
      '/user',
      {
        schema: {
          tags: ['store: user'],
          summary: 'Give a user of a trusted server store roles (store managers)',
          body: Type.Object(
            {
              username: Type.String({ minLength: 1, maxLength: 200 }),
              server_url: Type.Optional(
                Type.String({
                  maxLength: 500,
                  description: 'the server they log in to; left out: this server',
                }),
              ),
              organization_id: Type.Optional(Type.Integer({ minimum: 1 })),
              roles: Roles,
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request, reply) => {
        const caller = await storeCaller(sctx, request);
        requireRole(caller, 'store manager', 'give roles');
        const body = request.body;
        const user = await upsertStoreUser(
          db,
          {
            server_url: body.server_url ? normalizeServerUrl(body.server_url) : LOCAL_SERVER,
            username: body.username,
            organization_id: body.organization_id ?? null,
            email: null,
          },
          [...new Set(body.roles)],
        );
        await sctx.audit?.record('store.user.roles', {
          user: user.username,
          server: user.server_url,
          roles: body.roles,
          by: caller.user.username,
        });
        return reply.status(201).send(userAnswer(user));
      },
    );

    app.patch(
      '/user/:id',
      {
        schema: {
          tags: ['store: user'],
          summary: "Set a user's store roles (store managers)",
          params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
          body: Type.Object({ roles: Roles }, { additionalProperties: false }),
        },
      },
      async (request) => {
        const caller = await storeCaller(sctx, request);
        requireRole(caller, 'store manager', 'give roles');
        const user = await storeUserById(db, request.params.id);
        if (!user) throw notFound('Store user', request.params.id);
        const roles = [...new Set(request.body.roles)];
        await setStoreUserRoles(db, user.id, roles);
        await sctx.audit?.record('store.user.roles', {
          user: user.username,
          server: user.server_url,
          roles,
          by: caller.user.username,
        });
        return userAnswer({ ...user, roles: JSON.stringify(roles) });
      },
    );

    app.get(
      '/version',
      { schema: { tags: ['store: policy'], summary: "The store's version", security: [] } },
      async () => ({ version: sctx.version }),
    );
  };
}
