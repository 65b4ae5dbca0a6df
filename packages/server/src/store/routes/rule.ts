import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors.js';
import { findStoreUser } from '../../repositories/store.js';
import { storeCaller, storeRolesOf } from '../caller.js';
import type { StoreContext } from '../context.js';
import { normalizeServerUrl } from '../identity.js';
import { StorePageQuery, storeListPage } from '../paging.js';
import { rulesOfRoles, STORE_RULES, storeRoleOfId, type StoreRule } from '../roles.js';

const RuleQuery = Type.Object({
  ...StorePageQuery,
  name: Type.Optional(
    Type.String({ maxLength: 100, description: 'the resource: algorithm, review, user, …' }),
  ),
  operation: Type.Optional(Type.String({ maxLength: 20, description: 'view, create, edit or delete' })),
  role_id: Type.Optional(Type.Integer({ minimum: 1, description: 'the rules of this role (`GET /role`)' })),
  username: Type.Optional(Type.String({ maxLength: 200, description: "a user's rules, with `server_url`" })),
  server_url: Type.Optional(Type.String({ maxLength: 500, description: 'the server that user logs in to' })),
  no_pagination: Type.Optional(Type.Integer({ description: '1: every rule on one page' })),
});

const refuse = (msg: string): never => {
  throw new ApiError('bad_request', msg);
};

/** `GET /rule`: the store's rules (roles.ts), to any user it knows, as vantage6 4.x's store lists them. */
export function ruleRoutes(sctx: StoreContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/rule',
      {
        schema: {
          tags: ['store: user'],
          summary: "The store's rules: what each of its fixed roles lets one do",
          querystring: RuleQuery,
        },
      },
      async (request, reply) => {
        const caller = await storeCaller(sctx, request);
        const q = request.query;
        let rules: readonly StoreRule[] = STORE_RULES;
        if (q.role_id !== undefined) {
          const role = storeRoleOfId(q.role_id);
          rules = rulesOfRoles(new Set([role ?? refuse(`Store role ${q.role_id} does not exist.`)]));
        }
        if ((q.username === undefined) !== (q.server_url === undefined))
          refuse('Both username and server_url are needed to list the rules of a user.');
        if (q.username !== undefined && q.server_url !== undefined) {
          // The caller's own server, named as their client names it in its header (4.x's client sends `server_url`
          // with every store call), is the one the store knows them by.
          const named = normalizeServerUrl(q.server_url);
          const headers = [request.headers['server-url'], request.headers.server_url];
          const own = headers.some((h) => typeof h === 'string' && normalizeServerUrl(h) === named);
          const server = own ? caller.user.server_url : named;
          const user =
            (await findStoreUser(sctx.db, server, q.username)) ??
            refuse(`The store knows no user '${q.username}' of the server '${named}'.`);
          const held = new Set(rulesOfRoles(storeRolesOf(sctx, user)).map((r) => r.id));
          rules = rules.filter((r) => held.has(r.id));
        }
        if (q.name !== undefined) rules = rules.filter((r) => r.name === q.name);
        if (q.operation !== undefined) rules = rules.filter((r) => r.operation === q.operation);
        if (q.no_pagination === 1) return { data: [...rules], links: {} };
        return storeListPage(request, reply, rules);
      },
    );
  };
}
