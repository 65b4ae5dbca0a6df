import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { AppContext } from '../context.js';
import { nowStored } from '../http/datetime.js';
import { describeRule } from './rules.js';
import type { CallerKind, RoutePolicy } from './policy.js';
import { containerCaller, nodeCaller, userCaller, type Caller } from './caller.js';
import type { ContainerIdentity, TokenClaims } from './tokens.js';

/** Reads `Authorization: Bearer <token>`: missing → 401, malformed → 422. */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || header === '')
    throw new ApiError('missing_authorization', 'Missing Authorization Header');
  const m = /^Bearer\s+(\S+)$/.exec(header.trim());
  if (!m?.[1])
    throw new ApiError('invalid_token', "Bad Authorization header. Expected 'Authorization: Bearer <JWT>'");
  return m[1];
}

/** Loads the caller a verified access token names. */
export async function callerFromClaims(ctx: AppContext, claims: TokenClaims): Promise<Caller> {
  const db = ctx.dbh.db;
  if (claims.client_type === 'reset')
    throw new ApiError('invalid_token', 'A password reset token cannot be used here');
  if (claims.client_type === 'container') {
    const identity = claims.sub as ContainerIdentity;
    if (typeof identity !== 'object' || typeof identity.node_id !== 'number') {
      throw new ApiError('invalid_token', 'Invalid container token');
    }
    return containerCaller(db, identity);
  }
  const id = claims.sub;
  if (typeof id !== 'number') throw new ApiError('invalid_token', 'Invalid token subject');
  if (claims.client_type === 'user') {
    const caller = await userCaller(db, id);
    if (!caller) throw new ApiError('identity_missing', `Error loading the user ${id}`);
    return caller;
  }
  const node = await db.selectFrom('node').selectAll().where('id', '=', id).executeTakeFirst();
  if (!node) throw new ApiError('identity_missing', `Error loading the node ${id}`);
  return nodeCaller(db, node);
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
  const caller = await accessCaller(ctx, token, claims);
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
  if (seen) await seen;
  return caller;
}

/**
 * The caller of an access token. While the database is unchanged the caller loaded before is reused (the read
 * cache drops it at the next change, so a changed role or a deleted user applies to the next request).
 */
async function accessCaller(ctx: AppContext, token: string, claims: TokenClaims): Promise<Caller> {
  const cache = ctx.readCache;
  if (!cache) return callerFromClaims(ctx, claims);
  const known = cache.caller(token);
  if (known) return known;
  const reading = cache.reading();
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
  return ctx.dbh.db
    .updateTable(kind)
    .set({ last_seen: nowStored() })
    .where('id', '=', id)
    .execute()
    .then(() => undefined);
}
