import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { authenticate, bearerToken, touchLastSeen } from '../auth/authenticate.js';
import type { CachedAnswer } from './read-cache.js';

/**
 * Authenticates every request to a route with a policy (`request.caller`) and, with the read cache on, answers a
 * GET from it when an answer kept for the same Authorization header and URL is still current
 * (docs/performance.md). Install after the audit hooks: a kept answer is recorded too, and never given while the log
 * cannot be written.
 */
export function authenticateRequests(app: FastifyInstance, ctx: AppContext): void {
  const cache = ctx.readCache;
  app.addHook('onRequest', async (request, reply) => {
    const policy = request.routeOptions.config.policy;
    if (!policy) return;
    // Keyed by the whole Authorization header: an answer only ever goes back to the token it was made for.
    // Public answers are never kept (nobody authenticated them), so public routes do not read the clock either.
    const key =
      cache && request.method === 'GET' && policy.callers !== 'public'
        ? `${request.headers.authorization ?? ''} ${request.url}`
        : null;
    if (key !== null && cache?.remote && !cache.holds(key)) {
      // PostgreSQL, where reading the clock is a round trip, and no answer is kept for this request (the first
      // read after a change): the reading comes with the caller, in one query (auth/authenticate.ts). When one is
      // kept, the clock alone is read first (below): a trivial query, and often all the request costs.
      request.readCacheKey = key;
      request.caller = await authenticate(ctx, request, policy);
      if (request.readCacheReading === null) {
        // Recording last_seen changed the database since the reading: the answer is computed afresh and not kept,
        // which spares this request a second look at the clock (a round trip).
        request.readCacheKey = null;
        return;
      }
      const kept = cache.answer(key, request.readCacheReading);
      if (kept && kept.until > Date.now()) {
        request.readCacheKey = null;
        request.readCacheHit = true;
        return reply.headers(kept.headers).send(kept.body);
      }
      return;
    }
    if (key !== null && cache) {
      let reading = await cache.refresh();
      const kept = cache.answer(key, reading);
      if (kept && kept.until > Date.now()) {
        request.auditActor = { kind: kept.caller.kind, id: kept.caller.id };
        const seen = touchLastSeen(ctx, kept.caller.kind, kept.caller.id);
        if (!seen) {
          request.readCacheHit = true;
          return reply.headers(kept.headers).send(kept.body);
        }
        await seen; // recording last_seen changed the database: the answer is computed afresh
        reading = await cache.refresh();
      }
      request.readCacheReading = reading;
    }
    request.caller = await authenticate(ctx, request, policy);
    if (key !== null && cache && request.caller) {
      request.readCacheKey = key;
      request.readCacheReading ??= await cache.refresh();
    }
  });
}

/**
 * With the read cache on: keeps each 200 answer of a GET that {@link authenticateRequests} marked, until the
 * token or the caller's validity ends, and (PostgreSQL) notes that any other request may have changed the
 * database. Install after the security headers' hook, so that a kept answer carries them.
 */
export function keepReadAnswers(app: FastifyInstance, ctx: AppContext): void {
  const cache = ctx.readCache;
  if (!cache) return;
  if (cache.remote) {
    // A request that may have written (not a GET): nothing kept is worth a look at the clock any more.
    app.addHook('onResponse', (request, _reply, done) => {
      if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS')
        cache.changed();
      done();
    });
  }
  app.addHook('onSend', (request, reply, payload, done) => {
    const reading = request.readCacheReading;
    if (
      request.readCacheKey !== null &&
      reading !== null &&
      reply.statusCode === 200 &&
      typeof payload === 'string'
    ) {
      const headers: CachedAnswer['headers'] = {};
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined && name !== 'content-length' && !name.startsWith('access-control-'))
          headers[name] = value;
      }
      const caller = request.caller;
      const until = Math.min(
        ctx.tokens.acceptedUntil(bearerToken(request.headers.authorization)),
        request.caller?.validUntil ?? Infinity,
      );
      if (caller && until > Date.now()) {
        cache.keepAnswer(request.readCacheKey, reading, {
          headers,
          body: Buffer.from(payload),
          caller: { kind: caller.kind, id: caller.id },
          until,
        });
      }
    }
    done(null, payload);
  });
}
