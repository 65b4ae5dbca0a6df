import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { callerFromClaims } from '../auth/authenticate.js';
import type { SocketIdentity, TasksSocket } from './types.js';

/**
 * The access token of a handshake: the HTTP header `Authorization: Bearer <token>` (what vantage6 nodes send),
 * else the socket.io auth payload `{token}` (browsers cannot set headers on a WebSocket).
 */
export function handshakeToken(socket: Pick<TasksSocket, 'handshake'>): string | null {
  const header = socket.handshake.headers.authorization;
  if (typeof header === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
    if (m?.[1]) return m[1];
  }
  const auth = socket.handshake.auth as Record<string, unknown> | undefined;
  const token = auth?.token;
  if (typeof token === 'string' && token.trim() !== '') return token.trim().replace(/^Bearer\s+/i, '');
  return null;
}

/**
 * Whether the handshake carries a token signed by this server (no database lookup). Only such sockets take a place
 * in admission: an anonymous or forged handshake costs no lookup, so a flood of them keeps no node out.
 */
export async function hasSignedToken(
  ctx: AppContext,
  socket: Pick<TasksSocket, 'handshake'>,
): Promise<boolean> {
  const token = handshakeToken(socket);
  if (token === null) return false;
  try {
    await ctx.tokens.verify(token);
    return true;
  } catch {
    return false;
  }
}

export type IdentifyOutcome =
  { identity: SocketIdentity; sid: string | undefined } | { identity: null; problem: string };

/**
 * Resolves the identity behind a handshake. Never throws: a missing, invalid or expired token gives
 * `{identity: null, problem}`, and the connection is accepted and told `expired_token` (docs/socket-protocol.md#authentication).
 * Only access tokens of users and nodes are accepted (no refresh, container or reset tokens).
 */
export async function identify(
  ctx: AppContext,
  socket: Pick<TasksSocket, 'handshake'>,
): Promise<IdentifyOutcome> {
  const token = handshakeToken(socket);
  if (token === null) return { identity: null, problem: 'no token' };
  try {
    const claims = await ctx.tokens.verify(token);
    if (claims.type !== 'access') return { identity: null, problem: 'not an access token' };
    if (claims.client_type !== 'user' && claims.client_type !== 'node') {
      return { identity: null, problem: `${claims.client_type} tokens cannot open a socket` };
    }
    const caller = await callerFromClaims(ctx, claims);
    if (caller.kind === 'node' && caller.node) {
      const n = caller.node;
      return {
        sid: claims.sid,
        identity: {
          kind: 'node',
          id: n.id,
          name: n.name,
          organizationId: n.organization_id,
          collaborationId: n.collaboration_id,
        },
      };
    }
    if (caller.kind === 'user' && caller.user) {
      const u = caller.user;
      return {
        sid: claims.sid,
        identity: { kind: 'user', id: u.id, name: u.username, organizationId: u.organization_id },
      };
    }
    return { identity: null, problem: 'unsupported caller' };
  } catch (error) {
    if (error instanceof ApiError)
      return { identity: null, problem: error.code === 'token_expired' ? 'expired token' : error.message };
    ctx.log.error(
      { err: error, event: 'socket.identify_failed' },
      'could not resolve the identity of a socket',
    );
    return { identity: null, problem: 'identity lookup failed' };
  }
}
