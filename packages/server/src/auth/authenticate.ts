import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { AppContext } from '../context.js';
import { formatStored, nowStored } from '../http/datetime.js';
import { describeRule } from './rules.js';
import type { CallerKind, RoutePolicy } from './policy.js';
import {
  containerCaller,
  nodeCaller,
  nodeCallerInSession,
  userCaller,
  userCallerInSession,
  type Caller,
} from './caller.js';
import type { ContainerIdentity, TokenClaims } from './tokens.js';
import { checkSession, liveSession } from './sessions.js';
import { containerRunState, recordSeen } from '../repositories/caller.js';
import { findNode } from '../repositories/node.js';
import type { ClockReading } from '../db/change-clock.js';

/** Reads `Authorization: Bearer <token>`: missing → 401, malformed → 422. */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || header === '')
    throw new ApiError('missing_authorization', 'Missing Authorization Header');
  const m = /^Bearer\s+(\S+)$/.exec(header.trim());
  if (!m?.[1])
    throw new ApiError('invalid_token', "Bad Authorization header. Expected 'Authorization: Bearer <JWT>'");
  return m[1];
}

/** Loads the caller a verified access token names; the token's session (or run, for containers) must be live. */
export async function callerFromClaims(ctx: AppContext, claims: TokenClaims): Promise<Caller> {
  return (await loadCaller(ctx, claims, false)).caller;
}

/**
 * {@link callerFromClaims}; with `withReading` (PostgreSQL), the read cache's clock reading of the same query for
 * tokens of a session (users, nodes), none for others.
 */
async function loadCaller(
  ctx: AppContext,
  claims: TokenClaims,
  withReading: boolean,
): Promise<{ caller: Caller; reading?: string }> {
  const db = ctx.dbh.db;
  if (claims.client_type === 'reset')
    throw new ApiError('invalid_token', 'A password reset token cannot be used here');
  if (claims.client_type === 'container') {
    const identity = claims.sub as ContainerIdentity;
    if (typeof identity !== 'object' || typeof identity.node_id !== 'number') {
      throw new ApiError('invalid_token', 'Invalid container token');
    }
    const validUntil = await containerValidUntil(ctx, identity, claims.iat);
    return { caller: { ...(await containerCaller(db, identity)), validUntil } };
  }
  const id = claims.sub;
  if (typeof id !== 'number') throw new ApiError('invalid_token', 'Invalid token subject');
  if (claims.client_type === 'user' && typeof claims.sid === 'string') {
    // The user, their rules and the token's session in one round trip.
    const found = await userCallerInSession(db, id, claims.sid, withReading);
    if (!found) throw new ApiError('identity_missing', `Error loading the user ${id}`);
    checkSession(claims, found.session);
    return found;
  }
  if (claims.client_type === 'user') {
    const caller = await userCaller(db, id);
    if (!caller) throw new ApiError('identity_missing', `Error loading the user ${id}`);
    await liveSession(ctx, claims);
    return { caller };
  }
  if (typeof claims.sid === 'string') {
    const found = await nodeCallerInSession(db, id, claims.sid, withReading);
    if (!found) throw new ApiError('identity_missing', `Error loading the node ${id}`);
    checkSession(claims, found.session);
    return found;
  }
  const node = await findNode(db, id);
  if (!node) throw new ApiError('identity_missing', `Error loading the node ${id}`);
  await liveSession(ctx, claims);
  return { caller: await nodeCaller(db, node) };
}

/**
 * Until when a container token is accepted (ms since the epoch): while its run is going, and for
 * `container_token_grace_minutes` after it finished (the node still reports, sub-task results are still read).
 * @throws ApiError `session_ended` when the task or the node is gone, the node's API key was reset after the token
 *   was issued (to the second), or the run finished longer ago.
 */
async function containerValidUntil(
  ctx: AppContext,
  identity: ContainerIdentity,
  issuedAt: number,
): Promise<number> {
  const { run, nodeExists, apiKeyReset } = await containerRunState(
    ctx.dbh.db,
    identity,
    formatStored(new Date((issuedAt + 1) * 1000)),
  );
  const refuse = (why: string): ApiError =>
    new ApiError('session_ended', `Token has expired: this container token is no longer valid (${why}).`);
  if (!run) throw refuse('its task was deleted');
  if (!nodeExists) throw refuse('its node was deleted');
  if (apiKeyReset) throw refuse("its node's API key was reset");
  if (!run.finished_at) return Infinity;
  const until = Date.parse(`${run.finished_at}Z`) + ctx.config.container_token_grace_minutes * 60_000;
  if (until <= Date.now()) throw refuse('its run has finished');
  return until;
}
/**
 * Authenticates a request for a route with the given policy: verifies the token, loads the caller, checks the
 * caller kind and the policy's rules, and records `last_seen` of users and nodes.
 */
export async function authenticate(
  ctx: AppContext,
  request: FastifyRequest,
  policy: RoutePolicy,
): Promise<Caller | null> {
  if (policy.callers === 'public') return null;
  const token = bearerToken(request.headers.authorization);
  const claims = await ctx.tokens.verify(token);
  if (policy.callers === 'refresh') {
    if (claims.type !== 'refresh') throw new ApiError('invalid_token', 'Only refresh tokens are allowed');
    return callerFromClaims(ctx, { ...claims, type: 'access' });
  }
  if (claims.type === 'refresh') throw new ApiError('invalid_token', 'Only non-refresh tokens are allowed');
  const caller = await accessCaller(ctx, request, token, claims);
  if (!policy.callers.includes(caller.kind)) {
    throw new ApiError('wrong_caller', `This endpoint is not available to ${caller.kind}s`);
  }
  if (policy.anyOf && policy.anyOf.length > 0 && !policy.anyOf.some((r) => caller.rules.has(r))) {
    throw new ApiError(
      'forbidden',
      `You lack the permission to do that! You need one of: ${policy.anyOf.map(describeRule).join(', ')}`,
    );
  }
  const seen = touchLastSeen(ctx, caller.kind, caller.id);
  if (seen) {
    await seen;
    // This request changed the database: a reading taken before is no longer the state its queries will see.
    request.readCacheReading = null;
  }
  return caller;
}

/**
 * The caller of an access token. While the database is unchanged the caller loaded before is reused (the read
 * cache drops it at the next change, so a changed role or a deleted user applies to the next request).
 *
 * On PostgreSQL a reading of the clock is a round trip (db/change-clock.ts): a GET whose answer may be kept
 * (`readCacheKey`) reads it in the same query as its caller and sets `readCacheReading`; other requests take none
 * and load their caller directly (a write changes the database anyway, so a caller kept for it would rarely be
 * found again).
 */
async function accessCaller(
  ctx: AppContext,
  request: FastifyRequest,
  token: string,
  claims: TokenClaims,
): Promise<Caller> {
  const cache = ctx.readCache;
  if (!cache) return callerFromClaims(ctx, claims);
  let taken: ClockReading | null = request.readCacheReading;
  if (taken === null && cache.remote) {
    if (request.readCacheKey === null) return callerFromClaims(ctx, claims);
    if (typeof claims.sid === 'string' && (claims.client_type === 'user' || claims.client_type === 'node')) {
      const loaded = await loadCaller(ctx, claims, true);
      if (loaded.reading === undefined) throw new Error('the caller query gave no clock reading');
      const reading = cache.observe(loaded.reading);
      request.readCacheReading = reading;
      cache.keepCaller(token, reading, loaded.caller);
      return loaded.caller;
    }
    // A token without a session (a container's): the reading first, then the caller, as on SQLite.
    taken = request.readCacheReading = await cache.refresh();
  }
  // A GET took its reading before anything else; other requests take one now, before the caller's queries.
  const reading = cache.callerReading(claims.client_type, taken ?? (await cache.refresh()));
  const known = cache.caller(token, reading);
  if (known && (known.validUntil ?? Infinity) > Date.now()) return known;
  const caller = await callerFromClaims(ctx, claims);
  cache.keepCaller(token, reading, caller);
  return caller;
}

/** `last_seen` is written at most once per this many milliseconds per user or node (per instance). */
export const LAST_SEEN_RESOLUTION_MS = 5_000;
const lastSeenWrites = new WeakMap<AppContext, Map<string, number>>();

/**
 * Records that a user or node was seen now. Returns the write's promise, or nothing when it was recorded less
 * than 5 s ago (or the caller is a container): the common case costs no promise.
 */
export function touchLastSeen(ctx: AppContext, kind: CallerKind, id: number): Promise<void> | undefined {
  if (kind !== 'user' && kind !== 'node') return undefined;
  let writes = lastSeenWrites.get(ctx);
  if (!writes) lastSeenWrites.set(ctx, (writes = new Map()));
  const key = `${kind}:${id}`;
  const now = Date.now();
  if (now - (writes.get(key) ?? 0) < LAST_SEEN_RESOLUTION_MS) return undefined;
  if (writes.size >= 100_000) writes.clear();
  writes.set(key, now);
  return recordSeen(ctx.dbh.db, kind, id, nowStored());
}
