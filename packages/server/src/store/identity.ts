import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { AppContext } from '../context.js';
import { bearerToken, callerFromClaims } from '../auth/authenticate.js';
import { LOCAL_SERVER, type IdentityResolver, type ServerIdentity } from './context.js';

/**
 * Who calls a store (docs/store.md#who-calls-a-store). A caller names the server they log in to with the
 * `Server-Url` header (as for vantage6's store) and sends that server's token; the store asks the server who the
 * token belongs to (`POST {server}/token/user/validate`) and trusts only the servers it is told to.
 */

/** The user behind a token of the server the store lives in, checked in-process (no header needed). */
export function localIdentity(ctx: AppContext): (request: FastifyRequest) => Promise<ServerIdentity> {
  return async (request) => {
    const claims = await ctx.tokens.verify(bearerToken(request.headers.authorization));
    if (claims.type === 'refresh') throw new ApiError('invalid_token', 'Only non-refresh tokens are allowed');
    if (claims.client_type !== 'user')
      throw new ApiError('wrong_caller', 'The algorithm store is used with a user account');
    const caller = await callerFromClaims(ctx, claims);
    const user = caller.user;
    if (!user) throw new ApiError('wrong_caller', 'The algorithm store is used with a user account');
    return {
      server_url: LOCAL_SERVER,
      user_id: user.id,
      username: user.username,
      email: user.email,
      organization_id: user.organization_id,
    };
  };
}

/** Normalizes a server URL for comparison: no trailing slash. */
export const normalizeServerUrl = (url: string): string => url.trim().replace(/\/+$/, '');

/** Asks a trusted server who holds the caller's token; `timeoutMs` bounds the question. */
export function remoteIdentity(
  trusted: readonly string[],
  timeoutMs: number,
): (request: FastifyRequest, serverUrl: string) => Promise<ServerIdentity> {
  const allowed = new Set(trusted.map(normalizeServerUrl));
  return async (request, serverUrl) => {
    const server = normalizeServerUrl(serverUrl);
    if (!allowed.has(server))
      throw new ApiError('forbidden', `This store does not trust the server '${server}' (Server-Url header)`);
    const authorization = request.headers.authorization;
    bearerToken(authorization);
    let answer: Response;
    try {
      answer = await fetch(`${server}/token/user/validate`, {
        method: 'POST',
        headers: { authorization: authorization ?? '' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw new ApiError(
        'store_unreachable',
        `The server '${server}' cannot be reached to check who you are; try again later.`,
      );
    }
    if (answer.status === 401 || answer.status === 422)
      throw new ApiError('invalid_token', `The server '${server}' does not accept your token`);
    if (!answer.ok)
      throw new ApiError(
        'store_unreachable',
        `The server '${server}' answered ${answer.status} when asked who you are; try again later.`,
      );
    const body = (await answer.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body || typeof body.username !== 'string' || typeof body.user_id !== 'number')
      throw new ApiError('store_unreachable', `The server '${server}' did not say who you are`);
    return {
      server_url: server,
      user_id: body.user_id,
      username: body.username,
      email: typeof body.email === 'string' ? body.email : null,
      organization_id: typeof body.organization_id === 'number' ? body.organization_id : null,
    };
  };
}

/**
 * The store's resolver: without `Server-Url` (or naming one of `ownUrls`) the local server answers, when the store
 * lives in one; any other named server must be trusted.
 */
export function identityResolver(options: {
  local?: (request: FastifyRequest) => Promise<ServerIdentity>;
  ownUrls?: readonly string[];
  trusted: readonly string[];
  timeoutMs: number;
}): IdentityResolver {
  const remote = remoteIdentity(options.trusted, options.timeoutMs);
  const own = new Set((options.ownUrls ?? []).map(normalizeServerUrl));
  return async (request) => {
    const header = request.headers['server-url'];
    const named = typeof header === 'string' && header.trim() !== '' ? header : undefined;
    if (options.local && (named === undefined || own.has(normalizeServerUrl(named))))
      return options.local(request);
    if (named === undefined) {
      bearerToken(request.headers.authorization);
      throw new ApiError('bad_request', "Name the server you log in to in the 'Server-Url' header");
    }
    return remote(request, named);
  };
}
