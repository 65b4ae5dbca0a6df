import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { findStoreUser, upsertStoreUser } from '../repositories/store.js';
import { normalizeServerUrl } from './identity.js';
import { tokenExpiry } from './catalogue-cache.js';
import { STORE_ROLES, storedRoles, type StoreRole } from './roles.js';
import type { StoreCaller, StoreContext } from './context.js';

/**
 * The caller of a store route. A user is recorded the first time they call (as a viewer); what their server says
 * of them (organization, e-mail) is kept current. Users the configuration names as managers hold every role.
 */
export async function storeCaller(sctx: StoreContext, request: FastifyRequest): Promise<StoreCaller> {
  // Kept only for this server's own tokens: another server's logout is not a change of this database.
  const local = request.headers['server-url'] === undefined;
  const key = callerKey(request);
  const reading = local ? await sctx.cache?.look(request) : undefined;
  const kept = sctx.cache?.caller(reading, key);
  if (kept) return kept;
  const caller = await identifiedCaller(sctx, request);
  sctx.cache?.keepCaller(reading, key, caller, tokenExpiry(request.headers.authorization));
  return caller;
}

/** What a caller is kept under: the token, and the server it names. */
export const callerKey = (request: FastifyRequest): string =>
  `${String(request.headers['server-url'] ?? '')} ${request.headers.authorization ?? ''}`;

async function identifiedCaller(sctx: StoreContext, request: FastifyRequest): Promise<StoreCaller> {
  const identity = await sctx.identify(request);
  const known = await findStoreUser(sctx.db, identity.server_url, identity.username);
  const user =
    known && known.organization_id === identity.organization_id && known.email === identity.email
      ? known
      : await upsertStoreUser(sctx.db, {
          server_url: identity.server_url,
          username: identity.username,
          organization_id: identity.organization_id,
          email: identity.email,
        });
  return { user, roles: storeRolesOf(sctx, user), identity };
}

/**
 * The roles a store user holds: viewer, those given to them, and every role for a store manager (given the role,
 * or named as one by the configuration).
 */
export function storeRolesOf(
  sctx: StoreContext,
  user: { server_url: string; username: string; roles: string },
): Set<StoreRole> {
  const managed = sctx.managers.some(
    (m) => normalizeServerUrl(m.server_url) === user.server_url && m.username === user.username,
  );
  const roles = new Set<StoreRole>(['viewer', ...storedRoles(user.roles), ...(managed ? STORE_ROLES : [])]);
  if (roles.has('store manager')) for (const r of STORE_ROLES) roles.add(r);
  return roles;
}

/** The caller when the request carries a token; null when it carries none (public reading). */
export async function optionalStoreCaller(
  sctx: StoreContext,
  request: FastifyRequest,
): Promise<StoreCaller | null> {
  if (!request.headers.authorization) return null;
  return storeCaller(sctx, request);
}

/** Refuses a caller without `role`. */
export function requireRole(caller: StoreCaller, role: StoreRole, doing: string): void {
  if (!caller.roles.has(role))
    throw new ApiError('forbidden', `You need the store role '${role}' to ${doing}`);
}
