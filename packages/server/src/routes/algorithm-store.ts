import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Caller } from '../auth/caller.js';
import { ApiError, notFound } from '../errors.js';
import { askLinkedStore, isAlgorithm, linkedStore, storeVisibility } from '../store/linked.js';
import { IdParams, errorResponses } from '../serializers/common.js';
import { assertMayViewCollaboration, collaborationOr404 } from './collaboration/shared.js';
import { deleteLinkedStore, insertLinkedStore, linkedStoreRows } from '../repositories/store.js';

/**
 * The algorithm stores this server's users use (vantage6 4.x `/algorithmstore`, docs/store.md): the store inside
 * the server (id 0, when on) and the stores linked to it, for all collaborations or one. A user reads only the
 * stores linked to every collaboration or to one they may view (store/linked.ts `storeVisibility`).
 */
const StoreSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  url: Type.String({ description: "the store's API; a path for the store inside this server" }),
  collaboration_id: Type.Union([Type.Integer(), Type.Null()]),
  internal: Type.Boolean(),
});

/** A test of text against a LIKE pattern (`%` any text, `_` one character, `\\` escapes); none: every text. */
function likeMatcher(pattern: string | undefined): (text: string) => boolean {
  if (pattern === undefined) return () => true;
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]!);
    else source += c === '%' ? '[\\s\\S]*' : c === '_' ? '[\\s\\S]' : escapeRegExp(c);
  }
  const re = new RegExp(`^${source}$`, 'i');
  return (text) => re.test(text);
}

const escapeRegExp = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export const algorithmStoreRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const db = ctx.dbh.db;
  /** The store inside this server, when it is on. */
  const ownStore = () =>
    ctx.config.algorithm_store.enabled
      ? [
          {
            id: 0,
            name: 'this server',
            url: ctx.config.algorithm_store.path,
            collaboration_id: null,
            internal: true,
          },
        ]
      : [];

  app.get(
    '/algorithmstore',
    {
      schema: {
        tags: ['algorithm store'],
        summary: 'The algorithm stores linked to this server',
        querystring: Type.Object({
          collaboration_id: Type.Optional(
            Type.Integer({
              minimum: 1,
              description:
                'only the stores this collaboration may use: those linked to it and those for every collaboration',
            }),
          ),
          name: Type.Optional(Type.String({ maxLength: 200, description: 'LIKE pattern (`%`, `_`)' })),
          url: Type.Optional(Type.String({ maxLength: 500, description: 'LIKE pattern (`%`, `_`)' })),
        }),
        response: { 200: Type.Array(StoreSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { collaboration_id: wanted, name, url } = request.query;
      const caller = request.caller as Caller;
      // As vantage6 4.x: a collaboration that does not exist is a 404, one the caller may not view a refusal.
      if (wanted !== undefined) {
        await collaborationOr404(db, wanted);
        await assertMayViewCollaboration(db, caller, wanted);
      }
      const visible = await storeVisibility(db, caller);
      const linked = (await linkedStoreRows(db))
        .filter((s) => wanted === undefined || s.collaboration_id === null || s.collaboration_id === wanted)
        .filter(visible)
        .map((s) => ({ ...s, internal: false }));
      const named = likeMatcher(name);
      const at = likeMatcher(url);
      // A 4.x client names a store by its address, without the API path (routes/v4/shapes.ts).
      return [...ownStore(), ...linked].filter(
        (s) => named(s.name) && (at(s.url) || at(s.url.replace(/\/api$/, ''))),
      );
    },
  );

  app.get(
    '/algorithmstore/:id',
    {
      schema: {
        tags: ['algorithm store'],
        summary: "One linked algorithm store, or (id 0) this server's own",
        params: Type.Object({ id: Type.Integer({ minimum: 0, description: "0: this server's own store" }) }),
        response: { 200: StoreSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.params;
      const own = ownStore()[0];
      if (id === 0 && own) return own;
      if (id === 0) throw notFound('Algorithm store', id);
      return { ...(await linkedStore(ctx, id, request.caller as Caller)), internal: false };
    },
  );

  // A linked store's approved algorithms, read through this server: the web UI may only talk to its own server
  // (its Content-Security-Policy), and the task check reads the store the same way.
  const Algorithm = Type.Record(Type.String(), Type.Unknown(), {
    description: "an algorithm as the linked store describes it (GET /algorithm/{id} of the store's API)",
  });
  app.get(
    '/algorithmstore/:id/algorithm',
    {
      schema: {
        tags: ['algorithm store'],
        summary: "A linked store's approved algorithms: search, pages",
        params: IdParams,
        querystring: Type.Object({
          search: Type.Optional(Type.String({ maxLength: 200 })),
          page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
          per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        }),
        response: { 200: Type.Object({ data: Type.Array(Algorithm) }), ...errorResponses },
      },
    },
    async (request) => {
      const store = await linkedStore(ctx, request.params.id, request.caller as Caller);
      const { search, page, per_page } = request.query;
      const body = (await askLinkedStore(ctx, store, '/algorithm', 'its algorithms are not listed', {
        search,
        page,
        per_page,
      })) as { data?: unknown } | null;
      const data = Array.isArray(body) ? body : body?.data;
      if (!Array.isArray(data) || !data.every(isAlgorithm))
        throw new ApiError(
          'store_unreachable',
          `The algorithm store '${store.name}' (${store.url}) did not answer with a list of algorithms; its algorithms are not listed.`,
        );
      return { data };
    },
  );

  app.get(
    '/algorithmstore/:id/algorithm/:algorithm_id',
    {
      schema: {
        tags: ['algorithm store'],
        summary: 'One algorithm of a linked store, with its functions',
        params: Type.Object({
          id: Type.Integer({ minimum: 1 }),
          algorithm_id: Type.Integer({ minimum: 1 }),
        }),
        response: { 200: Algorithm, ...errorResponses },
      },
    },
    async (request) => {
      const store = await linkedStore(ctx, request.params.id, request.caller as Caller);
      const id = request.params.algorithm_id;
      const body = await askLinkedStore(ctx, store, `/algorithm/${id}`, 'the algorithm is not shown');
      if (!isAlgorithm(body))
        throw new ApiError(
          'store_unreachable',
          `The algorithm store '${store.name}' (${store.url}) did not describe algorithm ${id}.`,
        );
      return body;
    },
  );

  app.post(
    '/algorithmstore',
    {
      schema: {
        tags: ['algorithm store'],
        summary: 'Link a store to this server (for all collaborations, or one)',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            url: Type.String({
              pattern: '^https?://\\S+$',
              maxLength: 500,
              description: "the store's API URL",
            }),
            collaboration_id: Type.Optional(Type.Integer({ minimum: 1 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: StoreSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      if (request.body.collaboration_id !== undefined)
        await collaborationOr404(db, request.body.collaboration_id);
      const values = {
        name: request.body.name,
        url: request.body.url.replace(/\/+$/, ''),
        collaboration_id: request.body.collaboration_id ?? null,
      };
      const id = await insertLinkedStore(db, values);
      return reply.status(201).send({ id, ...values, internal: false });
    },
  );

  app.delete(
    '/algorithmstore/:id',
    {
      schema: {
        tags: ['algorithm store'],
        summary: 'Unlink a store',
        params: IdParams,
        response: { 200: Type.Object({ msg: Type.String() }), ...errorResponses },
      },
    },
    async (request) => {
      if (!(await deleteLinkedStore(db, request.params.id)))
        throw notFound('Algorithm store', request.params.id);
      return { msg: `Algorithm store ${request.params.id} unlinked` };
    },
  );
};
